"""Capabilities (SPEC section 9): the host ceiling, the agent's set, and the checks the
world-touching builtins make at the moment of use.

A capability a program holds is a tuple: ("stdout",), ("llm",), ("llm", LABEL),
("net", HOST) where HOST may be "*.example.com".
"""

from synsema.vm.program import cap_text

CEILING_FORMS = ("stdout", "llm", "llm@HOST", "llm=LABEL@HOST", "net=HOST", "net=*.DOMAIN",
                 "declassify=LABEL", "*")


class CeilingError(ValueError):
    """A malformed --cap-set item (a usage error, exit 2)."""


def is_host(h):
    """A host name, or `*.` and a domain: letters, digits, '-', dots between labels."""
    body = h[2:] if h.startswith("*.") else h
    return (bool(body) and ".." not in body and not body.startswith(".")
            and not body.endswith(".") and all(c.isalnum() or c in "-." for c in body))


def is_label(x):
    return bool(x) and all(c.isalnum() or c in "_-." for c in x)


_is_host, _is_label = is_host, is_label


class Ceiling:
    """What the host allows. `all` is `*`; llm_hosts: None = any host for unlabelled use."""

    def __init__(self):
        self.all = False
        self.stdout = False
        self.llm_any = False           # `llm`
        self.llm_hosts = set()         # `llm@HOST`
        self.llm_labels = set()        # {(LABEL, HOST)} from `llm=LABEL@HOST`
        self.net = set()               # host patterns
        self.declassify = set()        # labels
        self.declassify_any = False    # developer mode

    @classmethod
    def parse(cls, text):
        c = cls()
        items = [i.strip() for i in text.split(",")]
        for item in items:
            if not item:
                continue
            low = item.lower()
            if item == "*":
                c.all = True
            elif low == "stdout":
                c.stdout = True
            elif low == "llm":
                c.llm_any = True
            elif low.startswith("llm@") and _is_host(low[4:]):
                c.llm_hosts.add(low[4:])
            elif low.startswith("llm=") and "@" in item:
                label, _, host = item[4:].partition("@")
                if not (_is_label(label) and _is_host(host.lower())):
                    raise _bad(item)
                c.llm_labels.add((label, host.lower()))
            elif low.startswith("net=") and _is_host(low[4:]):
                c.net.add(low[4:])
            elif low.startswith("declassify=") and _is_label(item[11:]):
                c.declassify.add(item[11:])
            else:
                raise _bad(item)
        return c

    @classmethod
    def developer(cls, requires):
        """No --cap-set: what the program declares, plus stdout and declassify of any label."""
        c = cls()
        c.stdout = True
        c.declassify_any = True
        for cap in requires:
            if cap[0] == "llm":
                c.llm_any = True
                if len(cap) == 2:
                    c.llm_labels.add((cap[1], "*"))
            elif cap[0] == "net":
                c.net.add(cap[1])
        return c

    # ---- what the program may declare -------------------------------------------------

    def admits(self, cap):
        if self.all:
            return True
        kind = cap[0]
        if kind == "stdout":
            return self.stdout
        if kind == "llm":
            if len(cap) == 1:
                return self.llm_any or bool(self.llm_hosts) or bool(self.llm_labels)
            return any(label == cap[1] for label, _ in self.llm_labels)
        if kind == "net":
            return any(host_covers(p, cap[1]) for p in self.net)
        return False

    # ---- checks at the moment of use --------------------------------------------------

    def llm_host_ok(self, host):
        """May a model at `host` be called at all (public data)?"""
        if self.all or self.llm_any:
            return True
        host = (host or "").lower()
        return (any(host_covers(h, host) for h in self.llm_hosts)
                or any(h == "*" or host_covers(h, host) for _, h in self.llm_labels))

    def llm_label_ok(self, label, host):
        """May data labelled `label` go to a model at `host`?"""
        if self.all:
            return True
        host = (host or "").lower()
        return any(lab == label and (h == "*" or host_covers(h, host))
                   for lab, h in self.llm_labels)

    def may_declassify(self, label):
        return self.all or self.declassify_any or label in self.declassify

    def net_ok(self, host):
        return self.all or any(host_covers(p, host) for p in self.net)


def _bad(item):
    return CeilingError(f"--cap-set: {item!r} is not a capability; the forms are "
                        + ", ".join(CEILING_FORMS))


def host_covers(pattern, host):
    """Does host pattern `pattern` (maybe `*.example.com`) cover `host` (maybe a pattern)?
    `*.example.com` covers subdomains, not example.com itself."""
    pattern, host = pattern.lower(), host.lower()
    if pattern == host:
        return True
    if pattern.startswith("*."):
        suffix = pattern[1:]           # ".example.com"
        return host.endswith(suffix) and len(host) > len(suffix)
    return False


def agent_set(requires, ceiling):
    """(capability set, missing): the program's requires (plus implicit stdout) that the
    ceiling admits, and the requires it refuses."""
    caps = set()
    missing = []
    for cap in requires:
        if ceiling.admits(cap):
            caps.add(cap)
            if cap[0] == "llm" and len(cap) == 2:
                caps.add(("llm",))
        else:
            missing.append(cap)
    if ("stdout",) not in requires and ceiling.admits(("stdout",)):
        caps.add(("stdout",))
    return frozenset(caps), missing


def tool_set(task_requires, caller):
    """call_tool's least privilege: the task's own declarations that the caller holds."""
    caps = set()
    for cap in task_requires:
        if cap_held(caller, cap):
            caps.add(cap)
            if cap[0] == "llm" and len(cap) == 2:
                caps.add(("llm",))
    return frozenset(caps)


def cap_held(caps, cap):
    if cap in caps:
        return True
    if cap[0] == "net":
        return any(c[0] == "net" and host_covers(c[1], cap[1]) for c in caps)
    return False


def net_held(caps, host):
    return any(c[0] == "net" and host_covers(c[1], host) for c in caps)


def describe_set(caps):
    return "[" + ", ".join(sorted(cap_text(c) for c in caps)) + "]"
