"""Calling host tools from Synsema (SPEC 15.2): the capability, the label contract, the
audit line and the record of the call, checked here, in the VM, at the moment of the call
-- never by trusting the program or its .synb file.

A host tool is a task value (`HostFn`, vm.values) that holds the tool's declaration
(stdlib.hosttools.HostTool). Every way of calling one -- `t(...)`, `call`, `call_tool` --
ends in `invoke`.
"""

from _thread import _local    # threading.local itself, without importing threading

from synsema.stdlib.registry import builtin
from synsema.stdlib.labelling import check_argument, label as _label, split as _split
from synsema.vm import caps as C
from synsema.vm import precise as P
from synsema.vm.errors import EMPTY, CapabilityDenied, SynError
from synsema.vm.program import cap_text
from synsema.vm.values import type_name

# The thread a host tool runs on. A run's VM works in a thread of its own (api: a large
# stack for deep recursion), but the host called Program.call from its thread and gave
# tools that may rely on it: a database connection made there, a contextvar or a
# threading.local set there. So the VM's thread hands each call to the host's, which waits
# for the run and serves them (runtime.threads.HostThread); `post` is set in the VM's
# thread only. (Here rather than in stdlib.hosttools, which `syn exec` of a run given no
# host tools never loads.)
VM_THREAD = _local()

# ---- the three ways in --------------------------------------------------------------------

def call_positional(vm, fn, args, labels=EMPTY):
    """`t(a, b)`: positional arguments, strict arity (SPEC 4)."""
    tool = fn.tool
    if getattr(tool, "foreign", False):     # a Synsema task as a plan sees it (stdlib.plans)
        return tool.call_positional(vm, args, labels)
    params = tool.params
    required = sum(1 for p in params if not p.has_default)
    if not required <= len(args) <= len(params) or any(
            not p.has_default for p in params[len(args):]):
        if required == len(params):
            want = f"{len(params)} argument" + ("" if len(params) == 1 else "s")
        else:
            want = f"{required} to {len(params)} arguments"
        err = SynError(f"host tool '{tool.name}' takes {want}, got {len(args)}")
        err.labels = labels
        raise err
    return invoke(vm, fn, dict(zip((p.name for p in params), args)), labels)


def named_args(name, fn, args, as_tool):
    """`call`/`call_tool` of a host tool: the argument map checked as SPEC 5 says."""
    tool = fn.tool
    tool.check_keys(args)
    out = {}
    for p in tool.params:
        if p.name in args:
            check_argument(p.name, p.type, _split(args[p.name])[0],
                           p.has_default and p.default is None)
            out[p.name] = args[p.name]
        elif not p.has_default and as_tool:
            raise SynError(f"missing '{p.name}' ({p.type})")
        elif not p.has_default:
            out[p.name] = None
    return out


# ---- the call -----------------------------------------------------------------------------

def invoke(vm, fn, args, labels=EMPTY):
    """Run host tool `fn` with `args` (parameter name -> value, maybe labelled; a missing
    key takes the tool's default). `labels`: of the task value and the argument map; an
    error the call raises carries them (which tool, or which keys, may be secret)."""
    if vm.spans is not None:        # OpenTelemetry (stdlib.otel): an execute_tool span
        return vm.spans.tool(vm, fn.tool.name, "host", labels,
                             lambda: _invoke_labelled(vm, fn, args, labels))
    return _invoke_labelled(vm, fn, args, labels)


def _invoke_labelled(vm, fn, args, labels):
    if not labels:
        return _invoke(vm, fn, args, labels)
    try:
        return _invoke(vm, fn, args, labels)
    except SynError as e:
        if e.catchable:
            e.labels = e.labels | labels
        raise


def _invoke(vm, fn, args, labels):
    if vm.abandoned:                # given up on (time limit, Ctrl-C): it may act no more
        raise vm.given_up()
    tool = fn.tool
    name = tool.name
    arg_labels = EMPTY
    plain = {}
    for k, v in args.items():
        v, l = _split(v)
        plain[k] = v
        arg_labels = arg_labels | l
    # What the record of this call may reveal: it happened (the pc), with these arguments.
    seen = vm.pc | labels | arg_labels if vm.labels else EMPTY
    if not C.tool_held(vm.caps, name):
        _refuse_capability(vm, name, seen, labels)
    if vm.labels:
        pc = vm.pc | labels
        # Whether the contract refuses depends on the arguments' labels (which can depend
        # on labelled data), so inside a try they raise the pc like any operation that
        # can raise; and the refusal carries them.
        if vm.try_entries and (arg_labels or labels):
            vm.taint_try(arg_labels | labels)
        _check_contract(vm, tool, args, pc, plain, seen, labels)
        out_labels = tool.result_labels | arg_labels | pc
    else:
        out_labels = EMPTY
    try:
        result = tool.invoke(plain, vm.labels)
    except SynError as e:
        _record(vm, name, plain, "failed", seen, labels)
        if vm.labels:
            e.labels = e.labels | out_labels
        raise
    _record(vm, name, plain, "ok", seen, labels)
    if out_labels:
        # With Labelled parts (hosttools.Labelled) the result is precise already: the whole
        # labels join its shape, so every part carries them too.
        return P.join(result, out_labels)
    return result


def _check_contract(vm, tool, args, pc, plain, seen, named):
    """SPEC 15.2: every parameter, passed or defaulted, is a sink for what it carries."""
    if not tool.params and not pc <= tool.accepts_all:
        _refuse_labels(vm, tool, None, pc, tool.accepts_all, plain, seen, named)
    for p in tool.params:
        carried = pc | P.labels_of(args.get(p.name))
        accepted = tool.accepts.get(p.name, EMPTY)
        if not carried <= accepted:
            _refuse_labels(vm, tool, p.name, carried, accepted, plain, seen, named,
                           from_pc=carried - accepted <= pc)
    for who, what in tool.readers:
        # `who` names the parties that will read `what`. Chosen from labelled data (an
        # address read from a mail: the attacker's, maybe), or under a labelled pc (which
        # of two literal addresses), they may be sent only what carries no label at all,
        # so nothing labelled can reach a party the data chose. Left out: its default.
        if who not in args and not _names_someone(tool, who):
            continue
        own = P.labels_of(args.get(who))
        chosen = pc | own
        if not chosen:
            continue
        for p in what:
            mine = P.labels_of(args.get(p))
            carried = pc | mine
            if carried:
                why = PC_NOTE if not own or not mine else ""
                _refuse(vm, tool, plain, seen, named, carried | chosen,
                        f"'{p}' carries {_show(carried)}, and '{who}', who reads it, carries "
                        f"{_show(chosen)}; readers chosen from labelled data may be sent only "
                        f"what carries no label{why}",
                        {"parameter": p, "labels": sorted(carried), "accepts": [],
                         "reader": who, "reader_labels": sorted(chosen)})


def _names_someone(tool, who):
    """Whether parameter `who`, left out, still names readers: its default is not nothing
    nor empty (a fixed address is chosen as much by a labelled pc as a literal is)."""
    for p in tool.params:
        if p.name == who:
            return p.has_default and p.default not in (None, "", [], {})
    return False


def _show(labels):
    return "[" + ", ".join(sorted(labels)) + "]"


# Refused for labels the pc has too: where they can come from (else the message seems to
# blame a literal the program wrote: a value made under a pc carries it).
PC_NOTE = ("; the call runs under them too (a labelled `when`, `while`, `for each` or caught "
           "error, or a labelled task value or lambda: one that captures labelled data), and "
           "every value made there carries them")


def _refuse_labels(vm, tool, param, carried, accepted, plain, seen, named, from_pc=False):
    what = f"'{param}'" if param is not None else "the call (under a labelled branch)"
    why = PC_NOTE if from_pc else ""
    _refuse(vm, tool, plain, seen, named, carried,
            f"{what} carries {_show(carried)}, accepts {_show(accepted)}{why}",
            {"parameter": param or "", "labels": sorted(carried), "accepts": sorted(accepted)})


def _refuse(vm, tool, plain, seen, named, labels, why, refusal):
    """The contract refuses the call: recorded (with `refusal`: which parameter carried
    which labels, those it accepts, the reader), and the catchable error saying `why`,
    which carries the same facts for the host (synsema.ToolRefused)."""
    _record(vm, tool.name, plain, "refused", seen, named, refusal)
    err = SynError(f"host tool '{tool.name}' refused: {why}")
    err.labels = vm.pc | labels    # names labels, never data; which ones is as secret
    err.refusal = (tool.name, refusal["parameter"] or None, frozenset(labels),
                   frozenset(refusal["accepts"]), refusal.get("reader"))
    raise err


def _refuse_capability(vm, name, seen, named):
    need = cap_text(("tool", name))
    _record(vm, name, None, "refused", seen, named, {"capability": need})
    have = C.describe_set(vm.caps)
    who = f"task '{vm.tool}' runs with" if vm.tool is not None else "the program runs with"
    err = CapabilityDenied(f"host tool '{name}' needs {need}; {who} {have}"
                           f"{vm.cap_hint(('tool', name))}")
    err.refusal = (name, None, EMPTY, None, None)
    raise err


def _record(vm, name, plain, outcome, seen, named, refusal=None):
    """tool_calls for the embedding API (arguments kept: the host's own data), the labels
    the record carries (`seen`: syn batch shows a call only when the ceiling lets them
    out), and one audit line (name and outcome, and for a refusal why: the parameter, the
    labels it carried and those it accepts, or the capability missing; never the
    arguments; the name and parameter withheld when a labelled task value chose the tool:
    `named`, its labels)."""
    vm.tool_calls.append((name, dict(plain) if plain is not None else {}, outcome))
    vm.tool_call_labels.append(seen)
    why = dict(refusal or {})
    hide = ("tool", *(k for k in why if k in ("parameter", "reader"))) \
        if vm.labels and named and vm.hides(named) else ()
    vm.audit_event(event="host_tool", tool=name, outcome=outcome, at=vm.where(),
                   labelled=hide, **why)
    if vm.spans is not None:
        vm.spans.tool_record(vm, outcome, seen, named, why)
    if vm.trace:
        # --trace: every host tool call, called directly or by call_tool; with labelled
        # arguments, what it did is as secret as they are (and under a labelled branch,
        # vm.trace_line shows nothing: that it happened is) -- unless the ceiling's
        # stdout= items let those labels out (SPEC 10).
        said = f"{name}: {outcome}" if not vm.labels or vm.shows(seen) else \
            f"(withheld: labelled {', '.join(sorted(seen))})"
        vm.trace_line(f"host tool {said}")


# ---- builtins -----------------------------------------------------------------------------

@builtin("host_tool", 1, kind="vm")
def host_tool(vm, name):
    """The registered host tool of that name, as a task value (calling it needs tool(NAME))."""
    name, labels = _split(name)
    if labels:
        vm.violation("host_tool: a tool name cannot be made from labelled data")
    if type(name) is not str:
        raise SynError(f"host_tool needs a tool name as a text, got {type_name(name)}")
    fn = vm.host_fns.get(name)
    if fn is None:
        known = list(vm.host_fns)
        if not known:
            raise SynError(f"host tool '{name}' is not registered; this run has no host tools "
                           "(give them with --tools MODULE:NAME, --mcp NAME=COMMAND, or tools=...)")
        from synsema.vm.suggest import did_you_mean
        raise SynError(f"host tool '{name}' is not registered{did_you_mean(name, known)}")
    return fn


@builtin("host_tools", 0, kind="vm")
def host_tools(vm):
    """A map of every registered host tool, by name."""
    tools = dict(vm.host_fns)
    if not vm.labels:
        return tools
    # An MCP server chose its tools' names (and so which keys this map has, and what each
    # task value shows): third-party text, labelled as its descriptions and results are
    # (stdlib.mcpclient.McpTool.description_labels). Key labels are the shape's (SPEC 10).
    chosen = EMPTY
    for fn in tools.values():
        chosen = chosen | getattr(fn.tool, "description_labels", EMPTY)
    return _label(vm, tools, chosen)
