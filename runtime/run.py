"""Starting and ending a run: its settings checked and turned into vm.machine.Options
(ceiling, limits, host tools, model provider, audit file, MCP servers), its VM started,
what it started released, and an error that ended it turned into the host's error."""

import gc
import os
import sys

from synsema.runtime import MAX_DEPTH
from synsema.runtime.errors import (ArgumentError, InternalError, LabelViolation,  # noqa: F401
                                    LimitExceeded, Refused, RunError, ToolRefused, UsageError)
from synsema.runtime.report import printable, runtime_error, shown_message
from synsema.runtime.threads import in_big_stack
from synsema.vm import errors as E
from synsema.vm.values import UNSET, Closure, Labeled


# ---- running --------------------------------------------------------------------------------

def options(program, out, tools=None, cap_set=None, labels=False, provider=None,
             max_steps=None, timeout=None, max_depth=1000, audit=None, trace=False,
             llm_flags=None, mcp_servers=None, cli=False, max_requests=None,
             max_tokens=None, token_flag="--max-tokens", tracer_provider=None):
    """vm.machine.Options for one run; raises UsageError for a bad setting. Messages name
    the keyword (audit=), or with `cli` (the syn command's runs) the flag (--audit)."""
    from synsema.vm.caps import Ceiling, CeilingError
    from synsema.vm.machine import Options
    for name, v in (("max_steps", max_steps), ("max_depth", max_depth),
                    ("max_requests", max_requests), ("max_tokens", max_tokens)):
        if v is not None and (type(v) is not int or v < 1):
            raise UsageError(f"usage error: {name} must be a whole number of at least 1, "
                             f"got {v!r}")
    if max_depth is not None and max_depth > MAX_DEPTH:
        raise UsageError(f"usage error: max_depth must be at most {MAX_DEPTH}, got "
                         f"{max_depth!r}")
    if timeout is not None and (type(timeout) not in (int, float)
                                or not 0 < timeout < float("inf")):
        raise UsageError(f"usage error: timeout must be a number of seconds above 0, got "
                         f"{timeout!r}")
    ceiling = None
    if isinstance(cap_set, (list, tuple)) and all(isinstance(c, str) for c in cap_set):
        cap_set = ",".join(cap_set)             # ["stdout", "llm"] as "stdout,llm"
    if cap_set is not None and not isinstance(cap_set, str):
        kind = "a list with an item that is not a text" if isinstance(
            cap_set, (list, tuple)) else type(cap_set).__name__
        raise UsageError("usage error: cap_set must be a text of ceiling items, like "
                         f"\"stdout,llm,tool=bank.*\" (or a list of them), got {kind}")
    if cap_set is not None:
        try:
            ceiling = Ceiling.parse(cap_set)
        except CeilingError as e:
            text = str(e) if cli else str(e).replace("--cap-set:", "cap_set:", 1)
            raise UsageError(f"usage error: {text}") from None
    host_tools = {}
    if tools is not None:
        from synsema.stdlib.hosttools import ToolError
        from synsema.stdlib.toolbox import collect
        try:
            host_tools = collect(tools)
        except ToolError as e:
            raise UsageError(f"usage error: {e}") from None
    llm = llm_for(program, provider, llm_flags)
    if llm is not None:         # one provider per run: its limits are this run's
        llm.max_requests, llm.max_tokens, llm.token_flag = max_requests, max_tokens, token_flag
    log = None
    if audit is not None and audit is not False and not isinstance(audit, (str, os.PathLike)):
        # open() takes an int as a file descriptor: audit=True would write to (and then
        # close) the host's stdout.
        raise UsageError(f"usage error: audit= must be the path of a file, got "
                         f"{type(audit).__name__}")
    if audit:
        from synsema.vm.audit import Audit
        try:
            log = Audit(audit)
        except OSError as e:
            raise UsageError(f"usage error: {'--audit' if cli else 'audit='}: cannot open "
                             f"{audit}: {e.strerror or e}") from None
    # Options takes `tools` only with host tools: a VM without them needs no keyword.
    extra = {"tools": host_tools} if host_tools else {}
    tracing = find_tracer_provider(tracer_provider)
    if tracing is not None:
        from synsema.stdlib.otel import Spans
        extra["spans"] = Spans(tracing)
    opts = Options(labels=bool(labels), ceiling=ceiling, max_steps=max_steps,
                   timeout=timeout, max_depth=max_depth or 1000, audit=log, llm=llm,
                   trace=trace, out=out, **extra)
    opts.from_cli = cli         # for start's and start_mcp's messages
    opts.mcp = start_mcp(program, mcp_servers, opts) if mcp_servers else None
    return opts


def reaches_model(program):
    """Does the program `require llm`, at the top level or in a task (vm.program.Program.
    reaches_model)?"""
    return program.reaches_model()


def llm_for(program, provider, flags):
    """The provider a run talks to (runtime.providers.llm_for). The provider code is
    imported only when a provider is given (it is checked) or the program can reach a
    model: `syn exec` of a program without model calls never loads it (issue 31)."""
    if provider is None and not program.reaches_model():
        return None
    from synsema.runtime import providers
    return providers.llm_for(program, provider, flags)


def find_tracer_provider(given):
    """The OpenTelemetry TracerProvider a run's spans go to (docs/observability.md):
    `given` (tracer_provider=), else the global one when the host configured one, else
    None -- and then nothing is imported: a host that never imported opentelemetry.trace
    cannot have configured it, so a run without tracing pays one dict lookup."""
    if given is not None:
        if not callable(getattr(given, "get_tracer", None)):
            raise UsageError("usage error: tracer_provider= must be an OpenTelemetry "
                             f"TracerProvider, got {type(given).__name__}")
        return given
    otel = sys.modules.get("opentelemetry.trace")
    if otel is None:
        return None
    provider = otel.get_tracer_provider()
    # The API's stand-ins until the host sets a provider: spans there go nowhere.
    if isinstance(provider, (otel.ProxyTracerProvider, otel.NoOpTracerProvider)):
        return None
    return provider


def release(opts):
    """Stop what a run's options started: its MCP servers, then its audit file."""
    if opts.mcp is not None:
        opts.mcp.close()
    if opts.audit is not None:
        opts.audit.close()


def start_mcp(program, mcp_servers, opts):
    """Start the run's MCP servers (stdlib.mcpclient) and add their tools to opts.tools;
    whoever ends the run closes them (opts.mcp.close())."""
    from synsema.stdlib import mcpclient
    try:
        servers = mcpclient.start(program, mcp_servers, opts.ceiling)
        if servers is not None:
            clash = sorted(set(servers.tools) & set(opts.tools))
            if clash:
                servers.close()
                given = "--tools" if opts.from_cli else "tools="
                raise mcpclient.ConfigError(f"host tool '{clash[0]}' is given by {given} "
                                            "and by an MCP server; rename one of them")
            opts.tools = {**opts.tools, **servers.tools}
        return servers
    except (mcpclient.ConfigError, mcpclient.StartError) as e:
        if opts.audit is not None:
            opts.audit.close()
        if isinstance(e, mcpclient.StartError):
            raise RunError(f"error: {e}") from None
        raise UsageError(f"usage error: {e}") from None


def start(program, opts):
    """A VM for one run; Refused when the ceiling does not grant what the program needs."""
    # Importing the VM and the standard library (at the first run) and decoding the
    # program make objects that all live on, which the cyclic collector would scan for
    # nothing (as while compiling: compiler/__init__.py); a millisecond of `syn exec`.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from synsema.runtime.machine import VM
        return VM(program, opts)
    except Refused as e:
        flag = "--cap-set" if opts.from_cli else "cap_set="
        raise Refused("error: the program requires capabilities the host ceiling "
                      f"({flag}) does not grant: {', '.join(e.missing)}; the program "
                      "does not start", e.missing) from None
    finally:
        if was_enabled:
            gc.enable()


def failure(e, source, ceiling=None):
    """The API error for an error that ended a run, with the report `syn` prints (what
    the run's host ceiling lets out shown, SPEC 10): a LabelViolation, LimitExceeded or
    InternalError is given as one of its own class (`reported`), a catchable error as a
    RunError (ToolRefused for a refused host tool call)."""
    text = runtime_error(e, source, ceiling).rstrip("\n")
    if isinstance(e, InternalError):
        err = InternalError(text + "\ninternal error: this is a bug in syn, not in your "
                            "program; please report it with the program that shows it")
    elif isinstance(e, (LabelViolation, LimitExceeded)):
        err = type(e)(text)
    elif e.refusal is not None:
        tool, parameter, _, accepts, reader = e.refusal
        err = ToolRefused(text, tool, parameter, accepts=accepts, reader=reader)
    else:
        err = RunError(text)
    # Where a labelled error happened (its position, the call stack) can depend on the
    # data: a host that passes errors on to another sink (syn batch, syn serve) checks
    # `labels` first and withholds the whole report (see `public_message`).
    err.labels = frozenset(e.labels) if e.catchable or isinstance(e, LabelViolation) \
        else frozenset()
    err.violation = isinstance(e, LabelViolation)
    err.reported = True
    # The host's own view of the message, labelled data included (a host tool's refusal
    # names the parameter and labels): kept off the exception's text and its chain, so a
    # traceback or a log line never shows it; pass it to no sink.
    err.host_message = e.message
    return err


def execute(compiled, source, task, args, out, *, args_labels=(), llm_flags=None,
            result_to=None, box=None, result_on_stdout=False, **settings):
    """One run of a compiled program (api.Program.compiled; `source` its Source, for the
    carets of an error): the top level, then (task not None) the task called with the
    Synsema map `args`; `settings` those of options(). Returns (vm, the raw result). `out` receives what print writes (the CLI
    streams it); with `result_to`, a result other than nothing is written to it as a
    line of JSON, a stdout sink under labels (`syn --call`). `box`, a dict, gets the VM
    as soon as it exists, so a caller can read the tokens and tool calls of a run that
    failed half-way (`syn batch` counts them against its budget)."""
    prog = compiled
    index = task_index(compiled, task) if task is not None else None
    labels = settings.get("labels")
    if isinstance(args_labels, str) or not isinstance(args_labels, (list, tuple, set,
                                                                    frozenset)):
        raise UsageError("usage error: args_labels must be a list of label names, like "
                         f"[\"customers\"], got {type(args_labels).__name__}")
    if args_labels and not labels:      # it would do nothing: no label is tracked
        raise UsageError("usage error: args_labels= needs labels=True")
    # checked before anything runs; E.EMPTY when nothing is labelled
    arg_labels = label_set(args_labels) if labels else E.EMPTY
    opts = options(prog, out, llm_flags=llm_flags, **settings)
    spans, vm, raw = opts.spans, None, None
    if spans is not None:
        spans.start_run(prog, task, labels, settings.get("cap_set"))
    try:
        vm = start(prog, opts)
        if box is not None:
            box["vm"] = vm

        def body():
            vm.run_main()
            if index is None:
                return None
            # SPEC 14: the top level runs, then the call, its arguments checked as
            # call_tool checks them
            positional = task_arguments(compiled, index, task, args, arg_labels,
                                        vm.ceiling)
            if arg_labels:
                positional = [a if a is UNSET else Labeled(a, arg_labels)
                              for a in positional]
            return vm.call(vm.tasks[index], positional)
        try:
            raw = in_big_stack(body, vm)
            if result_to is not None and raw is not None:
                write_result(vm, task, raw, result_to, result_on_stdout)
        except E.SynError as e:
            # A labelled error's own message is the data: never chain it.
            raise failure(e, source, vm.ceiling) from (None if e.labels or isinstance(
                e, E.LabelViolation) else e)
    except E.HostError as e:
        if spans is not None:
            # As a guarded sink shows it; an error before the VM started (a refused
            # start) is made from no data.
            spans.end_run(vm, error=e, message=e.message if vm is None else
                          public_message(e, vm.ceiling))
            spans = None
        raise
    finally:
        if spans is not None:       # the run ended (or was interrupted)
            spans.end_run(vm, raw.l if type(raw) is Labeled else ())
        release(opts)
    return vm, raw


def task_index(compiled, name):
    """The index of task `name` among the functions of a compiled program; a UsageError
    (with a did-you-mean) when it has no such task."""
    funcs = compiled.functions
    for i, f in enumerate(funcs):
        if f.kind == "task" and f.name == name:
            return i
    from synsema.vm.suggest import did_you_mean
    known = [f.name for f in compiled.tasks()]
    raise UsageError(f"usage error: {printable(compiled.source_name)} has no task "
                     f"'{printable(name)}'{did_you_mean(str(name), known)}")


def task_arguments(compiled, index, task, args, labels=E.EMPTY, ceiling=None):
    """The positional arguments of the call, checked exactly as call_tool checks them;
    `labels`: those --args-label puts on every value (an error about one carries them,
    shown when `ceiling` lets them out)."""
    from synsema.stdlib.vmbuiltins import named_args
    func = compiled.functions[index]
    try:
        for p in func.params:
            if p.type == "task" and (p.name in args or p.default == p.NO_DEFAULT):
                # JSON (and Python's values) hold data, never a task value
                raise E.SynError(f"'{p.name}' is a task parameter, and a task cannot "
                                 "come from outside the program; call a task whose "
                                 "parameters are data")
        return named_args("call_tool", Closure(func), args, True, labels)
    except E.SynError as e:
        said = shown_message(e, ceiling)    # withheld when it tells of a labelled value
        err = ArgumentError(f"{printable(compiled.source_name)}: error: bad arguments for "
                            f"task '{printable(task)}': {said}")
        err.labels = frozenset(e.labels)
        raise err from None


def python_args(compiled, task, args):
    """The Synsema map of a Python dict of arguments for `task` (Program.call's `args`),
    converted by the rules every value crossing the boundary follows (stdlib.pyvalues); an
    ArgumentError when it is not a dict or holds what Synsema cannot."""
    if args is None:
        return {}
    from synsema.stdlib.pyvalues import Unholdable, from_python
    if not isinstance(args, dict):
        said = f"args must be a dict of named arguments, got {type(args).__name__}"
    else:
        try:
            return from_python(args)
        except Unholdable as e:
            said = f"a value Synsema cannot hold ({e.render()})"
    raise ArgumentError(f"{printable(compiled.source_name)}: error: bad arguments for task "
                        f"'{printable(task)}': {printable(said)}")


def python_value(compiled, task, raw):
    """(value, labels): the raw result of `task` (execute's) as a Python value and the
    labels it carries; a RunError when it holds what Python cannot (a task value, two
    keys that are one in Python)."""
    value, labels = raw, frozenset()
    if type(raw) is Labeled:
        value, labels = raw.v, frozenset(raw.l)
    if value is None:
        return value, labels
    from synsema.stdlib.pyvalues import Unholdable, to_python
    try:
        return to_python(value), labels
    except Unholdable as e:
        err = RunError(f"{printable(compiled.source_name)}: error: the result of task "
                       f"'{printable(task)}' cannot leave the program: it holds "
                       f"{printable(e.render())}")
        # Whether a labelled result holds a task value (or two keys Python would merge)
        # depends on the data: the error is as labelled as the result (a sink withholds
        # it, public_message).
        err.labels = labels
        raise err from None


def public_message(err, ceiling):
    """The text of run error `err` that may go to a sink that the ceiling guards (a results
    file, an MCP client): the whole report when nothing in it is labelled beyond what the
    ceiling lets out, else only that it was withheld -- no position, no call stack, no
    label names (which labels, and where, can depend on the data too)."""
    if getattr(err, "violation", False):
        return "label_violation (details withheld; the --audit log has them)"
    labels = getattr(err, "labels", frozenset())
    if ceiling.blocked(labels):
        return "error: (message withheld)"
    return err.message


def label_set(args_labels):
    """args_labels= as a set of label names; a UsageError for one that is not a name."""
    from synsema.vm.caps import is_label
    for label in args_labels:
        if not isinstance(label, str) or not is_label(label):
            raise UsageError(f"usage error: {label!r} is not a label name (letters, digits, "
                             "_, - and .)")
    return frozenset(args_labels)


def write_result(vm, task, raw, write, on_stdout):
    """`syn --call` (on_stdout) and `syn batch`: the result as one line of json_encode, a
    sink like stdout under labels."""
    from synsema.vm.jsonvalues import json_encode
    value, labels = raw, E.EMPTY
    if type(raw) is Labeled:
        value, labels = raw.v, raw.l
    vm.site = None          # an error is at the call, not at the last builtin
    # Writing to stdout is what print does (SPEC 9: the stdout capability is used by
    # `print` and a `--call` result): a ceiling without stdout refuses both.
    if on_stdout:
        vm.need(f"writing the result of task '{task}' to stdout", ("stdout",))
    blocked = vm.ceiling.blocked(labels)
    if blocked:
        vm.violation(f"writing the result of task '{task}' to stdout would reveal data "
                     f"labelled {', '.join(blocked)}")
    try:
        text = json_encode(value)
    except E.SynError as e:
        raise E.SynError(f"the result of task '{task}' cannot be written as JSON: "
                         f"{e.message}", labels) from None
    write(text + "\n")
