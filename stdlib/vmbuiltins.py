"""Builtins that need the running VM: output, labels, calls and tools, tests, network and
models. Each one that touches the world checks the current capability set (vm.caps) and,
under --labels, the labels of its inputs and of the pc, right here at the moment of use:
never trusting the compiler or the .synb file.

Under --labels their arguments may be Labeled; without labels they never are, and every
check below on a Labeled type is simply false.
"""

from synsema.vm import display as D
from synsema.vm.equality import equal
from synsema.stdlib import hostcall
from synsema.stdlib.labelling import check_argument  # noqa: F401  (vmbuiltins.check_argument)
from synsema.stdlib.labelling import label as _label, split as _split
from synsema.stdlib.registry import builtin
from synsema.vm import caps as C
from synsema.vm import precise as P
from synsema.vm.errors import EMPTY, SynError
from synsema.vm.values import UNSET, Closure, HostFn, Labeled, type_name

NO_PROVIDER = "[no llm provider]"


def _labels_text(labels):
    return ", ".join(sorted(labels))


def _sink(vm, what, labels, allowed=None):
    """Labelled data (or pc) reaches a sink only with the ceiling's leave for each label
    (`allowed(label)`: e.g. stdout=L for print); otherwise it is a label_violation."""
    labels = labels | vm.pc
    if labels:
        if allowed is not None:
            labels = frozenset(l for l in labels if not allowed(l))
            if not labels:
                return
        vm.violation(f"{what} would reveal data labelled {_labels_text(labels)}")


# ---- output -----------------------------------------------------------------------------

@builtin("print", 1, kind="vm", never_raises=True)
def print_(vm, x):
    """Write a value's text form and a newline to standard output (needs stdout)."""
    vm.need("print", ("stdout",))
    x, labels = _split(x)
    if vm.labels:
        _sink(vm, "print", labels, vm.ceiling.may_print)
    vm.write(D.display(x) + "\n")
    return None


# ---- labels -----------------------------------------------------------------------------

def _text_arg(name, what, v):
    if type(v) is not str or not v:
        raise SynError(f"{name} needs {what} as a non-empty text, got "
                       f"{'an empty text' if v == '' else type_name(v)}")
    return v


@builtin("private", 2, kind="vm", never_raises=True, owns_errors=True)
def private(vm, v, label):
    """Label a value (with --labels; without, returns it unchanged)."""
    label, label_labels = _split(label)
    if label_labels:
        # A label name made from labelled data would carry that data out in every
        # labels_of and every violation message.
        vm.violation("private: a label name cannot be made from labelled data")
    _text_arg("private", "the label", label)
    if not C.is_label(label):
        # A label is named in ceilings (stdout=L, net=L@HOST) and in messages: "a,b" or
        # "x@y" could never be granted, and would read as two labels or a host.
        raise SynError(f"private: {D.quote(label)} is not a label name; a label has only "
                       "letters, digits, '_', '-' and '.'")
    if not vm.labels:
        return v
    return _label(vm, v, frozenset((label,)))


@builtin("declassify", 2, kind="vm", never_raises=True, owns_errors=True)
def declassify(vm, v, reason):
    """Remove a value's labels; needs declassify=LABEL in the host ceiling for each."""
    reason, reason_labels = _split(reason)
    if reason_labels:
        vm.violation("declassify: the reason is written to the audit trail, so it cannot be "
                     "made from labelled data")
    _text_arg("declassify", "a reason", reason)
    if not vm.labels:
        return v
    v, labels = _split(v)
    every = labels | vm.pc
    refused = sorted(l for l in every if not vm.ceiling.may_declassify(l))
    if refused:
        vm.violation(f"declassify of data labelled {', '.join(refused)} is not allowed by "
                     f"the host ceiling (it needs declassify={refused[0]} in --cap-set)")
    vm.audit_event(event="declassify", labels=sorted(every), reason=reason, at=vm.where())
    return _label(vm, v, EMPTY)


@builtin("labels_of", 1, kind="vm", never_raises=True, owns_errors=True)
def labels_of(vm, v):
    """The sorted list of a value's label names. The list carries those labels too: which
    labels a value has can depend on labelled data (`x and private(y, "j")` has j only
    when x was true), so the answer is as secret as the value (SPEC 10)."""
    _, labels = _split(v)
    return _label(vm, sorted(labels), labels)


# ---- calls and tools ----------------------------------------------------------------------

def named_args(name, task, args, tool, value_labels=EMPTY):
    """The positional argument list for `task` from the map `args` (SPEC section 5).
    `value_labels`: the labels of every value (an entry point's --args-label), which an
    error about a value (its type) carries; the keys are the host's own."""
    if type(task) is not Closure:
        raise SynError(f"{name} needs a task as its first argument, got {type_name(task)}")
    if type(args) is not dict:
        raise SynError(f"{name} needs a map of arguments as its second argument, got "
                       f"{type_name(args)}")
    f = task.func
    who = f"task '{f.name}'" if f.kind == "task" else f.describe()
    params = f.params
    names = [p.name for p in params]
    for key in args:
        if key not in names:
            shown = key if type(key) is str else D.show_key(key)
            from synsema.vm.suggest import did_you_mean     # an error's hint: off start-up
            hint = did_you_mean(shown, names) if type(key) is str else ""
            raise SynError(f"{who} has no parameter '{shown}'{hint}")
    out = []
    for p in params:
        if p.name in args:
            v = args[p.name]
            try:
                check_argument(p.name, p.type, v, p.default == p.DEFAULT_NOTHING)
            except SynError as e:
                e.labels = e.labels | value_labels
                raise
            out.append(v)
        elif p.default != p.NO_DEFAULT:
            out.append(UNSET)
        elif tool and p.type is not None:
            raise SynError(f"missing '{p.name}' ({p.type})")
        else:
            out.append(None)
    while out and out[-1] is UNSET:
        out.pop()          # let the task's own default code run (a gap: its prologue fills it)
    return out


def _checked_args(vm, name, task, args, labels, tool):
    """named_args; an error it raises carries the labels of the task and the map."""
    if labels and vm.labels and vm.try_entries:
        vm.taint_try(labels)
    try:
        return named_args(name, task, args, tool)
    except SynError as e:
        e.labels = e.labels | labels
        raise


def _spread(vm, task, positional, amap):
    """Each argument taken from a labelled map carries its own labels and the map's shape
    (SPEC 10: containers are precise); one the map left out, the shape's."""
    if type(amap) is not Labeled:
        return positional
    from synsema.vm.values import UNSET
    shape = P.shape_of(amap)
    out = []
    for p, a in zip(task.func.params, positional):
        if a is UNSET:
            out.append(a)
        elif p.name in amap.v:
            out.append(P.join(P.entry(amap, p.name), vm.pc))
        else:
            out.append(_label(vm, a, shape))
    return out


def _call_labels(has_defaults, tl, shape):
    """The labels a call from a map runs under: the task value's, and the map's shape when
    the task (or host tool) has defaults -- which keys the map holds decides which defaults
    run (and their side effects), so that is as secret as the shape (SPEC 10)."""
    return tl | shape if shape and has_defaults else tl


def _has_defaults(task):
    return any(p.default != p.NO_DEFAULT for p in task.func.params)


def _call_host(vm, name, fn, tl, amap, as_tool):
    """call/call_tool of a host tool: the map checked against its signature, then
    stdlib.hostcall.invoke (capability, label contract, record). Each argument carries
    its own labels and the map's shape (SPEC 10)."""
    args, al = _split(amap)
    if type(args) is not dict:
        err = SynError(f"{name} needs a map of arguments as its second argument, got "
                       f"{type_name(args)}")
        err.labels = tl | al
        raise err
    try:
        named = hostcall.named_args(name, fn, args, as_tool)
    except SynError as e:
        # Whether the map fits the signature is as secret as the map; on success
        # hostcall.invoke raises the pc by the arguments' labels, after the contract has
        # read the pc of the call itself.
        if vm.labels and vm.try_entries and (tl | al):
            vm.taint_try(tl | al)
        e.labels = e.labels | tl | al
        raise
    shape = P.shape_of(amap)
    if al:
        named = {k: (P.entry(amap, k) if k in args else _label(vm, v, shape))
                 for k, v in named.items()}
    under = _call_labels(any(p.has_default for p in fn.tool.params), tl, shape)
    return hostcall.invoke(vm, fn, named, under)


# call and call_tool taint the try themselves (below), after a host tool's label contract
# has read the pc of the call: the generic wrapper must not.
@builtin("call", 2, kind="vm", never_raises=True)
def call(vm, task, args):
    """Call a task with named arguments from a map (runs with the caller's capabilities)."""
    task, tl = _split(task)
    if type(task) is HostFn:
        if getattr(task.tool, "foreign", False):    # a plan's tool (stdlib.plans)
            return task.tool.call_map(vm, "call", tl, args)
        return _call_host(vm, "call", task, tl, args, as_tool=False)
    amap = args
    args, al = _split(args)
    positional = _checked_args(vm, "call", task, args, tl | al, tool=False)
    return vm.call_labelled(task, _spread(vm, task, positional, amap),
                            _call_labels(_has_defaults(task), tl, P.shape_of(amap)))


@builtin("call_tool", 2, kind="vm", never_raises=True)
def call_tool(vm, task, args):
    """Call a task as a tool: named arguments checked strictly, least privilege."""
    if vm.trace:
        return _traced_call_tool(vm, task, args)
    return _call_tool(vm, task, args)


def _call_tool(vm, task, args):
    task, tl = _split(task)
    if type(task) is HostFn:
        if getattr(task.tool, "foreign", False):    # a plan's tool (stdlib.plans)
            return task.tool.call_map(vm, "call_tool", tl, args)
        return _call_host(vm, "call_tool", task, tl, args, as_tool=True)
    amap = args
    args, al = _split(args)
    positional = _checked_args(vm, "call_tool", task, args, tl | al, tool=True)
    if vm.spans is not None and type(task) is Closure:    # an execute_tool span (stdlib.otel)
        return vm.spans.tool(vm, task.func.name, "task", tl, lambda: vm.call_labelled(
            task, _spread(vm, task, positional, amap),
            _call_labels(_has_defaults(task), tl, P.shape_of(amap)), as_tool=True))
    return vm.call_labelled(task, _spread(vm, task, positional, amap),
                            _call_labels(_has_defaults(task), tl, P.shape_of(amap)),
                            as_tool=True)


@builtin("tool_spec", 2, kind="vm")
def tool_spec(vm, task, describe):
    """The catalog entry of a task: {name, describe, params, optional}."""
    task, tl = _split(task)
    describe, dl = _split(describe)
    if type(task) is HostFn and getattr(task.tool, "foreign", False):
        task = task.tool.closure            # a plan's view of a Synsema task
    if type(task) is HostFn:
        # A host tool's catalog entry; `nothing` takes the tool's own description.
        from synsema.stdlib.hosttools import catalog_entry
        if describe is not None and type(describe) is not str:
            raise SynError(f"tool_spec needs a text description, got {type_name(describe)}")
        # An MCP server's descriptions are third-party text that steers the model: the
        # entry carries the server's labels (stdlib.mcpclient.McpTool).
        third = getattr(task.tool, "description_labels", EMPTY)
        return _label(vm, catalog_entry(task.tool, describe), tl | dl | third)
    if type(task) is not Closure or task.func.kind != "task":
        raise SynError("tool_spec needs a task declared with `task` as its first argument, "
                       f"got {type_name(task) if type(task) is not Closure else 'a lambda'}")
    if type(describe) is not str:
        raise SynError(f"tool_spec needs a text description, got {type_name(describe)}")
    f = task.func
    spec = {"name": f.name, "describe": describe, "params": [p.spec() for p in f.params],
            "optional": [p.name for p in f.params if p.default != p.NO_DEFAULT]}
    return _label(vm, spec, tl | dl)


# ---- tests ------------------------------------------------------------------------------

@builtin("assert", 2, kind="vm")
def assert_(vm, cond, source):
    """Fail with the condition's source text unless it is true."""
    cond, labels = _split(cond)
    source, _ = _split(source)
    if cond is True:
        return None
    if cond is False:
        raise SynError(f"assert failed: {source}", labels | vm.pc)
    raise SynError(f"assert needs a bool, got {type_name(cond)} (in assert({source}))",
                   labels | vm.pc)


@builtin("assert_eq", 2, kind="vm")
def assert_eq(vm, actual, expected):
    """Fail showing both values unless they are equal."""
    actual, al = _split(actual)
    expected, el = _split(expected)
    if equal(actual, expected):
        return None
    raise SynError(f"expected {D._show(expected)}, got {D._show(actual)}", al | el | vm.pc)


@builtin("assert_error", 1, 2, kind="vm")
def assert_error(vm, f, part=None):
    """Pass when calling f() raises a catchable error (containing `part`, if given)."""
    f, fl = _split(f)
    part, _ = _split(part)
    if type(f) is HostFn:
        needs = [p.name for p in f.tool.params if not p.has_default]
        shown = f.tool.name
    elif type(f) is Closure:
        needs = [p.name for p in f.func.params[:f.func.nrequired]]
        shown = f.func.name if f.func.kind == "task" else "f"
    else:
        raise SynError(f"assert_error needs a task or lambda, got {type_name(f)}")
    if needs:
        # Else the arity error would be the error expected, and the test could not fail.
        raise SynError(f"assert_error calls its task with no arguments, and this one needs "
                       f"{', '.join(repr(n) for n in needs)}; wrap the call in a lambda: "
                       f"assert_error(() => {shown}(...))")
    if part is not None and type(part) is not str:
        raise SynError(f"assert_error needs the part of the message as a text, got "
                       f"{type_name(part)}")
    try:
        if type(f) is HostFn:
            vm.call_host(f, [], fl)     # as the loop calls a labelled host tool
        else:
            vm.call_labelled(f, [], fl)
    except SynError as e:
        if not e.catchable:
            raise
        msg, _ = _split(e.message)
        if part is not None and part not in msg:
            raise SynError(f"expected an error containing {D.quote(part)}, got: {msg}",
                           e.labels | fl) from None
        vm.after_caught(e)
        return None
    raise SynError("expected an error, but none was raised")


# ---- network ------------------------------------------------------------------------------

def _http(vm, name, url, body=None):
    from synsema.stdlib import net
    url, ul = _split(url)
    body, bl = _split(body)
    labels = ul | bl
    host = bad = None
    if type(url) is str:
        try:
            host = net.url_host(url)      # the host net.fetch connects to, by construction
        except net.BadURL as e:
            bad = e
    if vm.labels and host is None:
        # With no host to grant it, labelled data goes nowhere: checked before a message
        # can echo the URL. With a host, _net_gate checks the labels it may take.
        _sink(vm, name, labels)
    if type(url) is not str:
        raise SynError(f"{name} needs a URL text, got {type_name(url)}")
    if host is None:
        raise SynError(f"{name}: refused {url!r}: {bad}")
    # The host is data when the URL is labelled; a redirect's, when anything sent is (a
    # server can choose where to send the request on from what it got).
    _net_gate(vm, name, host, labels, host_labels=ul)
    if body is not None and type(body) is not str:
        from synsema.vm.jsonvalues import json_encode      # json and re: off start-up
        body = json_encode(body)
    # The answer depends on what was sent (an echoing or enriching API returns it): it
    # carries the URL's and the body's labels, as a model's answer carries its prompt's.
    return _label(vm, net.fetch(name, url, host, body,
                                lambda to: _net_gate(vm, name, to, labels,
                                                     host_labels=labels)), labels)


def _net_labels_for(vm, host):
    """May data labelled L go to `host`: net(HOST, "L") held and net=L@HOST in the ceiling
    (SPEC 15)."""
    return lambda label: (C.net_label_held(vm.caps, host, label)
                          and vm.ceiling.net_label_ok(label, host))


def _net_gate(vm, name, host, labels=EMPTY, host_labels=EMPTY):
    """May the running code reach `host` now (with data labelled `labels`)? Checked for the
    URL's host and again for every host a redirect leads to (net.fetch calls it), so both
    go through one check."""
    if vm.labels and (labels or vm.pc):
        _sink(vm, name, labels, _net_labels_for(vm, host))
    vm.need(name, ("net", host))
    if not vm.ceiling.net_ok(host):
        from synsema.vm.errors import CapabilityDenied
        raise CapabilityDenied(f"{name} needs net(\"{host}\"); the host's --cap-set does not "
                               "grant it")
    vm.audit_event(event="capability", kind="net", host=host, builtin=name, at=vm.where(),
                   labelled=("host",) if vm.labels and vm.hides(host_labels) else ())


@builtin("http_get", 1, kind="vm")
def http_get(vm, url):
    """GET a URL and give the response text (needs net(HOST))."""
    return _http(vm, "http_get", url)


@builtin("http_post", 2, kind="vm")
def http_post(vm, url, body):
    """POST a text (or a value, as JSON) to a URL and give the response text."""
    return _http(vm, "http_post", url, body)


# ---- models -------------------------------------------------------------------------------

def _llm_gate(vm, name, labels):
    """The llm capability first (offline too), then labels: require llm("L") for each
    label, and online the ceiling's llm=L@HOST for the provider's host."""
    vm.need(name, ("llm",))
    labels = labels | vm.pc
    if not vm.labels or not labels:
        if vm.llm is not None and not vm.ceiling.llm_host_ok(vm.llm.config.host):
            from synsema.vm.errors import CapabilityDenied
            raise CapabilityDenied(f"{name}: the host's --cap-set does not allow model calls to "
                                   f"{vm.llm.config.host}")
        return labels
    for label in sorted(labels):
        if ("llm", label) not in vm.caps:
            vm.violation(f"{name} would send data labelled {label} to a model without "
                         f"`require llm(\"{label}\")`")
        if vm.llm is not None and not vm.ceiling.llm_label_ok(label, vm.llm.config.host):
            vm.violation(f"{name} would send data labelled {label} to {vm.llm.config.host}, "
                         f"which the host ceiling does not allow (it needs "
                         f"llm={label}@{vm.llm.config.host})")
    return labels


@builtin("llm_available", 0, kind="vm")
def llm_available(vm):
    """True when a model provider is configured."""
    return vm.llm is not None


@builtin("llm_tokens_used", 0, kind="vm")
def llm_tokens_used(vm):
    """Tokens spent on model calls by this run so far (labelled by the prompts counted)."""
    return _label(vm, vm.tokens_used, vm.token_labels)


def _check_catalog(catalog):
    if type(catalog) is not list:
        raise SynError(f"llm_step needs a catalog list, got {type_name(catalog)}")
    for i, entry in enumerate(catalog):
        if type(entry) is not dict or type(entry.get("name")) is not str:
            raise SynError(f"llm_step: catalog item {i} must be a map with a text \"name\" "
                           "(use tool_spec(task, \"what it does\"))")
        params = entry.get("params", [])
        if type(params) is not list or any(type(p) is not str for p in params):
            raise SynError(f"llm_step: catalog item {i} (\"{entry['name']}\") needs "
                           "\"params\" as a list of texts like \"a: number\"")
    # What a provider checks before it sends the catalog (each parameter's type, names a
    # model can be sent), checked offline too: an offline run fails where an online one
    # would.
    from synsema.stdlib.llm import ProviderError
    from synsema.stdlib.llm.convert import input_schema, wire_names
    try:
        wire_names(catalog)
        for entry in catalog:
            input_schema(entry)
    except ProviderError as e:
        raise SynError(f"llm_step: {e.message}") from None


@builtin("llm_step", 3, kind="vm")
def llm_step(vm, prompt, catalog, context):
    """Ask the model for its next decision: a final answer or a tool call."""
    prompt, pl = _split(prompt)
    catalog, cl = _split(catalog)
    context, xl = _split(context)
    labels = _llm_gate(vm, "llm_step", pl | cl | xl)
    if type(prompt) is not str:
        raise SynError(f"llm_step needs a prompt text, got {type_name(prompt)}")
    _check_catalog(catalog)
    if context is None:
        context = ""
    if type(context) is list:
        # A conversation (SPEC 11): checked offline too, so an offline run fails where
        # an online one would. Its labels are those of everything in it (xl).
        from synsema.stdlib.llm import ProviderError
        from synsema.stdlib.llm.history import messages
        try:
            messages(context)
        except ProviderError as e:
            raise SynError(f"llm_step: {e.message}", labels) from None
    elif type(context) is not str:
        raise SynError("llm_step needs the context as a text or a list of messages, got "
                       f"{type_name(context)}")
    if vm.llm is None:
        answer = {"kind": "final", "text": NO_PROVIDER, "tokens": 0}
    else:
        n = _trace_call(vm, labels)
        try:
            answer = _model_call(
                vm, lambda p: p.step(vm.program.intent, prompt, catalog, context), "llm_step",
                labels)
        except SynError as e:
            _trace_failed(vm, n, "llm_step", e, labels)
            raise
        tokens = answer.get("tokens", 0) or 0      # counted by provider_call
        if vm.trace:
            if vm.labels and not vm.shows(labels | vm.pc):
                said = _shown(vm, answer, labels)        # even the kind is private
            elif answer["kind"] == "tool":
                said = f"tool {answer['name']} {_shown(vm, answer.get('args', {}), labels)}"
            else:
                said = f"final {_shown(vm, answer.get('text', ''), labels)}"
            vm.trace_line(f"llm_step {n}: {said}{_tokens_note(vm, tokens, labels)}")
    return _label(vm, answer, labels)


def _model_call(vm, fn, name, labels):
    """vm.provider_call, in an OpenTelemetry span when the run has spans (stdlib.otel)."""
    if vm.spans is None:
        return vm.provider_call(fn, name, labels)
    return vm.spans.model(vm, name, labels, lambda: vm.provider_call(fn, name, labels))


def _text_op(name):
    def op(vm, *args):
        plain = []
        labels = EMPTY
        for a in args:
            a, l = _split(a)
            labels |= l
            plain.append(a)
        labels = _llm_gate(vm, name, labels)
        if len(plain) == 3:
            return _typed_extract(vm, plain, labels)
        if type(plain[0]) is not str:
            raise SynError(f"{name} needs a text, got {type_name(plain[0])}")
        if name == "classify":
            opts = plain[1]
            if type(opts) is not list or not opts or any(type(o) is not str for o in opts):
                raise SynError("classify needs a non-empty list of option texts")
        elif name == "extract" and type(plain[1]) is not str:
            raise SynError(f"extract needs what to extract as a text, got {type_name(plain[1])}")
        if vm.llm is None:
            return _label(vm, NO_PROVIDER, labels)
        n = _trace_call(vm, labels)
        try:
            text, tokens = _model_call(
                vm, lambda p: p.text_op(vm.program.intent, name, *plain), name, labels)
        except SynError as e:
            _trace_failed(vm, n, name, e, labels)
            raise
        if vm.trace:
            vm.trace_line(f"{name} {n}: {_shown(vm, text, labels)}"
                          f"{_tokens_note(vm, tokens or 0, labels)}")
        return _label(vm, text, labels)
    op.__name__ = name
    op.__doc__ = f"The model's answer to {name}."
    return op


def _typed_extract(vm, args, labels):
    """extract(data, what, type) (SPEC 11): a value of the type, or a catchable error;
    offline too (there is no value of the type to give without a model). The result
    carries the labels of all three arguments and the pc, as any model answer does."""
    data, what, typ = args
    if type(what) is not str:
        raise SynError(f"extract needs what to extract as a text, got {type_name(what)}")
    if type(typ) is not str and type(typ) is not dict:
        raise SynError("extract needs the type as a type name (\"number\", \"text\", "
                       f"\"bool\", \"list\", \"map\") or a JSON Schema map, got {type_name(typ)}")
    if holds(data, TASK_TYPES):
        raise SynError("extract cannot read a task value; give it data")
    # The type is checked offline too: an offline run fails where an online one would.
    from synsema.stdlib.llm import ProviderError
    from synsema.stdlib.llm.schema import Type
    try:
        Type(typ)
    except ProviderError as e:
        raise SynError(e.message) from None
    if vm.llm is None:
        raise SynError("extract: no llm provider")
    n = _trace_call(vm, labels)
    try:
        value, tokens = vm.provider_call(
            lambda p: p.typed_extract(vm.program.intent, data, what, typ), "extract", labels)
    except SynError as e:
        _trace_failed(vm, n, "extract", e, labels)
        raise
    if vm.trace:
        vm.trace_line(f"extract {n}: {_shown(vm, value, labels)}"
                      f"{_tokens_note(vm, tokens or 0, labels)}")
    return _label(vm, value, labels)


def holds(v, kinds):
    """Is there a value of one of the types `kinds` anywhere in v (labelled or not)?"""
    stack = [v]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is Labeled:
            stack.append(x.v)
        elif t in kinds:
            return True
        elif t is list:
            stack.extend(x)
        elif t is dict:
            stack.extend(x.values())
    return False


TASK_TYPES = (Closure, HostFn)      # a task value of any kind


# --trace: one stderr line per model call and per tool dispatch. Under --labels, labelled
# content is withheld from the trace as it is from error messages, token counts of
# labelled calls too (a model can set how long it answers).

_TRACE_CLIP = 160


def _clip(text):
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= _TRACE_CLIP else text[: _TRACE_CLIP - 3] + "..."


def _shown(vm, value, labels, raw=False):
    """How the trace shows a value: clipped (a text quoted unless raw), or withheld when
    it is labelled."""
    value, more = _split(value)
    if vm.labels:
        hidden = labels | more | vm.pc
        if hidden and not vm.shows(hidden):
            return f"(withheld: labelled {_labels_text(hidden)})"
    if type(value) is str:
        return _clip(value if raw else D.quote(value))
    return _clip(D.display(value))


def _tokens_note(vm, tokens, labels):
    if vm.labels and not vm.shows(labels | vm.token_labels | vm.pc):
        return "  [tokens withheld: labelled]"
    return f"  [{tokens} tokens, {vm.tokens_used} this run]"


def _trace_call(vm, labels):
    """Number this model call; before the first, say which model answers. A call under a
    labelled condition is neither shown nor numbered (vm.trace_line): the numbers of the
    later ones would tell how many there were."""
    if vm.labels and not vm.shows(vm.pc):
        return 0
    vm.trace_calls += 1
    n = vm.trace_calls
    if vm.trace and n == 1:
        cfg = vm.llm.config
        where = (f"function model {cfg.model} (in process)" if cfg.api == "function"
                 else f"{cfg.api} {cfg.model} at {cfg.host}")
        if cfg.cassette and not cfg.network and cfg.api != "function":
            # No provider was configured: the tape alone answers, and the model and host
            # filled in for its requests are not who answered (a tape may come from a
            # local server): name the tape, not them.
            where = (f"the answers recorded in cassette {cfg.cassette} ({cfg.api} wire "
                     "format; nothing is sent)")
        elif cfg.cassette:
            if cfg.cassette_mode == "replay" or not cfg.network:
                where += f" (replaying cassette {cfg.cassette})"
            else:
                where += f" (cassette {cfg.cassette}, {cfg.cassette_mode})"
        vm.trace_line(f"model: {where}")
    return n


def _trace_failed(vm, n, name, e, labels):
    if vm.trace:
        vm.trace_line(f"{name} {n}: failed: {_shown(vm, e.message, labels | e.labels, raw=True)}")


def _traced_call_tool(vm, task, args):
    """call_tool with a trace line: the tool, its arguments as they arrived, and its
    result or the error that rejected them."""
    plain, tl = _split(task)
    if vm.labels and tl:
        name = _shown(vm, plain, tl)
    elif type(plain) is Closure:
        name = plain.func.name if plain.func.kind == "task" else D.display(plain)
    elif type(plain) is HostFn:
        name = plain.tool.name
    else:
        name = type_name(plain)
    head = f"  call_tool {name} {_shown(vm, args, tl)}"
    try:
        result = _call_tool(vm, task, args)
    except SynError as e:
        if e.catchable:
            vm.trace_line(f"{head} -> error: {_shown(vm, e.message, tl | e.labels, raw=True)}")
        raise
    vm.trace_line(f"{head} -> {_shown(vm, result, tl)}")
    return result


builtin("ask", 1, kind="vm")(_text_op("ask"))
builtin("summarize", 1, kind="vm")(_text_op("summarize"))
builtin("classify", 2, kind="vm")(_text_op("classify"))
builtin("extract", 2, 3, kind="vm")(_text_op("extract"))
