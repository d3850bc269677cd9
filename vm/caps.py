"""Capabilities (SPEC section 9): the host ceiling, the agent's set, and the checks the
world-touching builtins make at the moment of use.

A capability a program holds is a tuple: ("stdout",), ("llm",), ("llm", LABEL),
("net", HOST) where HOST may be "*.example.com", ("net", HOST, LABEL) (data labelled
LABEL may go to HOST), ("tool", NAME) where NAME may be "bank.*" or "*" (host tools).
"""

from synsema.vm.program import cap_text

CEILING_FORMS = ("stdout", "stdout=LABEL", "llm", "llm@HOST", "llm=LABEL@HOST", "net=HOST",
                 "net=*.DOMAIN", "net=LABEL@HOST", "tool=NAME", "tool=PREFIX.*",
                 "declassify=LABEL", "*")


class CeilingError(ValueError):
    """A malformed --cap-set item (a usage error, exit 2)."""


def is_host(h):
    """A host name, or `*.` and a domain: dot-separated labels of ASCII letters, digits and
    '-' (not first or last), 1-63 characters each, 253 in all; no final dot, no port, no
    scheme. The one host rule: the compiler, the verifier, --cap-set and the URL check of
    http_get/http_post all use it, so a host one accepts the others accept. Case is not
    checked here: every caller lower-cases the host it keeps."""
    body = h[2:] if h.startswith("*.") else h
    if body is not h and not body.rsplit(".", 1)[-1][:1].isalpha():
        # `*.` covers a domain's names, and a top-level domain starts with a letter;
        # `*.0.0.1` or `*.0x1` would cover addresses (127.0.0.0x1 is 127.0.0.1).
        return False
    return 0 < len(body) <= 253 and all(_is_dns_label(part) for part in body.split("."))


def host_problem(h):
    """Why vm.caps.is_host refuses `h`, and the fix, in a few words."""
    if "://" in h or "/" in h:
        what = "write the host alone, without scheme or path"
    elif h.startswith("["):
        what = "IPv6 addresses are not supported; use a host name"
    elif "%" in h:
        what = "write the host plainly, not percent-encoded"
    elif ":" in h:
        what = "no port: a net capability covers every port of its host"
    elif h.endswith("."):
        what = "no final dot"
    elif h.startswith("."):
        what = 'a host cannot begin with a dot (a pattern for subdomains begins with "*.")'
    elif "*" in h:
        what = 'a pattern is "*." and a domain, like "*.example.com"'
    elif not h or ".." in h:
        what = "a host name has no empty parts between dots"
    elif not h.isascii():
        what = "write an international name in its ASCII form (xn--...)"
    elif len(h) > 253 or any(len(part) > 63 for part in h.split(".")):
        what = "a part between dots is at most 63 characters, the whole at most 253"
    elif any(part.startswith("-") or part.endswith("-") for part in h.split(".")):
        what = "a part between dots cannot begin or end with '-'"
    else:
        what = "only letters, digits, '-' and dots are allowed"
    guess = _guess(h)
    if guess != h and is_host(guess):
        return f'{what}; write "{guess}"'
    return f'{what}; write a host like "api.example.com" or "*.example.com"'


def _guess(h):
    h = h.lower().split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
    if h.startswith(".") and not h.startswith(".."):
        return "*" + h.rstrip(".")
    return h.strip(".")


def _is_dns_label(part):
    return (0 < len(part) <= 63 and part.isascii() and part.replace("-", "").isalnum()
            and part[0] != "-" and part[-1] != "-")


def is_label(x):
    return bool(x) and all(c.isalnum() or c in "_-." for c in x)


def is_tool_name(name):
    """A host tool's name: dotted identifiers (`bank.send_money`) of ASCII letters,
    digits and `_`, none starting with a digit (on ASCII text, isidentifier() is exactly
    that; no `re`, which is off the start-up path)."""
    return all(part.isascii() and part.isidentifier() for part in name.split("."))


def is_tool_pattern(p):
    """A tool capability's argument: a name, `PREFIX.*` (every tool under PREFIX.) or `*`."""
    if p == "*":
        return True
    if p.endswith(".*"):
        return is_tool_name(p[:-2])
    return is_tool_name(p)


def is_cap(cap):
    """Is `cap` a well-formed capability tuple (the one rule for the compiler's output, the
    .synb reader and the verifier)? Hosts must be lower-case, as the compiler keeps them."""
    if type(cap) is not tuple or not cap or not all(type(x) is str for x in cap):
        return False
    kind, n = cap[0], len(cap)
    if n == 1:
        return kind in ("stdout", "llm")
    if kind == "llm":
        return n == 2 and is_label(cap[1])
    if kind == "net":
        return (n in (2, 3) and cap[1] == cap[1].lower() and is_host(cap[1])
                and (n == 2 or is_label(cap[2])))
    if kind == "tool":
        return n == 2 and is_tool_pattern(cap[1])
    return False


def tool_covers(pattern, name):
    """Does tool pattern `pattern` cover `name` (a tool name or itself a pattern)?"""
    if pattern == "*" or pattern == name:
        return True
    if pattern.endswith(".*"):
        return name.startswith(pattern[:-1]) and name != "*"
    return False


_is_host, _is_label = is_host, is_label


class Ceiling:
    """What the host allows. `all` is `*`; llm_hosts: None = any host for unlabelled use."""

    def __init__(self):
        self.all = False
        self.stdout = False
        self.stdout_labels = set()     # `stdout=LABEL`: labelled data that may be printed
        self.llm_any = False           # `llm`
        self.llm_hosts = set()         # `llm@HOST`
        self.llm_labels = set()        # {(LABEL, HOST)} from `llm=LABEL@HOST`
        self.net = set()               # host patterns
        self.net_labels = set()        # {(LABEL, HOST)} from `net=LABEL@HOST`
        self.tools = set()             # tool patterns from `tool=NAME`, `tool=PREFIX.*`
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
            elif low.startswith("stdout=") and _is_label(item[7:]):
                c.stdout_labels.add(item[7:])
            elif low == "llm":
                c.llm_any = True
            elif low.startswith("llm@") and _is_host(low[4:]):
                c.llm_hosts.add(low[4:])
            elif low.startswith("llm=") and "@" in item:
                label, _, host = item[4:].partition("@")
                if not (_is_label(label) and _is_host(host.lower())):
                    raise _bad(item)
                c.llm_labels.add((label, host.lower()))
            elif low.startswith("net=") and "@" in item:
                label, _, host = item[4:].partition("@")
                if not (_is_label(label) and _is_host(host.lower())):
                    raise _bad(item)
                c.net_labels.add((label, host.lower()))
            elif low.startswith("net=") and _is_host(low[4:]):
                c.net.add(low[4:])
            elif low.startswith("tool=") and is_tool_pattern(item[5:]):
                c.tools.add(item[5:])
            elif low.startswith("declassify=") and _is_label(item[11:]):
                c.declassify.add(item[11:])
            else:
                raise _bad(item)
        return c

    @classmethod
    def for_program(cls, spec, requires):
        """The ceiling a run of a program with these requires has: `spec` as given (a
        Ceiling), parsed (a --cap-set text), or, with none, developer mode."""
        if spec is None:
            return cls.developer(requires)
        return cls.parse(spec) if isinstance(spec, str) else spec

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
                if len(cap) == 3:
                    c.net_labels.add((cap[2], cap[1]))
            elif cap[0] == "tool":
                c.tools.add(cap[1])
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
            if len(cap) == 3:
                return any(label == cap[2] and host_covers(h, cap[1])
                           for label, h in self.net_labels)
            return (any(host_covers(p, cap[1]) for p in self.net)
                    or any(host_covers(h, cap[1]) for _, h in self.net_labels))
        if kind == "tool":
            return any(tool_covers(p, cap[1]) for p in self.tools)
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

    def net_label_ok(self, label, host):
        """May data labelled `label` be sent to `host` (SPEC 15, network, labelled)?"""
        return self.all or any(lab == label and host_covers(h, host)
                               for lab, h in self.net_labels)

    def may_print(self, label):
        """May data (or pc) labelled `label` reach standard output (SPEC 10, sinks)?"""
        return self.all or label in self.stdout_labels

    def blocked(self, labels):
        """The labels, sorted, that may not reach stdout or a sink guarded like it."""
        return sorted(label for label in labels if not self.may_print(label))

    def may_declassify(self, label):
        return self.all or self.declassify_any or label in self.declassify

    def net_ok(self, host):
        """May the network reach `host` (unlabelled data; net=L@HOST grants that too)?"""
        return (self.all or any(host_covers(p, host) for p in self.net)
                or any(host_covers(h, host) for _, h in self.net_labels))


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
            caps.update(_implied(cap))
        else:
            missing.append(cap)
    if ("stdout",) not in requires and ceiling.admits(("stdout",)):
        caps.add(("stdout",))
    return frozenset(caps), missing


def tool_set(task_requires, caller):
    """call_tool's least privilege: the task's own declarations ∩ what the caller holds.
    A declaration the caller holds is kept whole; a pattern the caller holds only part of
    is narrowed to that part: net("*.example.com") ∩ net("api.example.com") is
    net("api.example.com"), tool("bank.*") ∩ tool("bank.pay") is tool("bank.pay")."""
    caps = set()
    for cap in task_requires:
        kept = [cap] if cap_held(caller, cap) else [c for c in caller if _narrows(c, cap)]
        for c in kept:
            caps.add(c)
            caps.update(_implied(c))
    return frozenset(caps)


def _narrows(held, declared):
    """Is the caller's capability `held` a part of the task's pattern `declared`?"""
    if held[0] != declared[0] or len(held) != len(declared):
        return False
    if held[0] == "net":
        return held[2:] == declared[2:] and host_covers(declared[1], held[1])
    if held[0] == "tool":
        return tool_covers(declared[1], held[1])
    return False


def _implied(cap):
    """What a labelled grant grants too: llm("L") is also llm, net(H, "L") also net(H)."""
    if cap[0] == "llm" and len(cap) == 2:
        return (("llm",),)
    if cap[0] == "net" and len(cap) == 3:
        return (("net", cap[1]),)
    return ()


def cap_held(caps, cap):
    if cap in caps:
        return True
    if cap[0] == "net":
        if len(cap) == 3:
            return net_label_held(caps, cap[1], cap[2])
        return any(c[0] == "net" and host_covers(c[1], cap[1]) for c in caps)
    if cap[0] == "tool":
        return tool_held(caps, cap[1])
    return False


def net_held(caps, host):
    return any(c[0] == "net" and len(c) == 2 and host_covers(c[1], host) for c in caps)


def net_label_held(caps, host, label):
    """Does the running code hold net(HOST, LABEL) for this host?"""
    return any(c[0] == "net" and len(c) == 3 and c[2] == label and host_covers(c[1], host)
               for c in caps)


def tool_held(caps, name):
    return any(c[0] == "tool" and tool_covers(c[1], name) for c in caps)


def describe_set(caps):
    return "[" + ", ".join(sorted(cap_text(c) for c in caps)) + "]"
