"""Plans from Python (SPEC 17 and 16): `synsema.run_plan(source, tools=[...])`, a sandbox
for code that a model wrote, and the planning agent `syn agent` is built on (`agent`:
plan, then run the plan, in one run).

How a plan is run here. The VM derives a run's capabilities from its program's `require`s
and the host ceiling, and refuses the start when the ceiling does not grant them, exactly
as for any program. So each run gets a generated program made of `require` lines only
(`require llm`, `require tool("N")` per tool given, `require llm("L")` per label the run
may send to a model: `_capabilities`), and the plan is then run by stdlib.plans directly
from Python, in that program's VM. Not by a generated caller that calls the `run_plan`
builtin: an error of the plan would then be reported at that hidden caller's call (the
builtin drops the plan's frames for its caller's report), and the host would read
positions in a program it never wrote. Here the plan's frames are the only ones on the
stack, so every error is reported in the plan's own text (`<plan>:3:5: error: ...`).
"""

import io
import json
import sys
from functools import lru_cache

from synsema import api
from synsema.api_results import Result, usage_of
from synsema.runtime import run as R
from synsema.runtime.report import Source, compile_error, lets_out, printable
from synsema.runtime.threads import in_big_stack, in_worker
from synsema.stdlib import plans
from synsema.stdlib.hosttools import ToolError, catalog_entry
from synsema.stdlib.toolbox import collect
from synsema.stdlib.llm.prompts import plan_messages as planner_messages
from synsema.stdlib.pyvalues import Unholdable, to_python
from synsema.vm import errors as E
from synsema.vm.caps import Ceiling, CeilingError
from synsema.vm.display import display
from synsema.vm.values import Labeled

__all__ = ["run_plan", "run_plan_async", "plan_messages"]

PLAN_NAME = plans.PLAN_NAME


def run_plan(source, *, tools=None, source_labels=(), labels=False, cap_set=None,
             provider=None, max_steps=None, timeout=None, max_depth=1000, audit=None,
             trace=False, max_requests=None, max_tokens=None, _box=None):
    """Run `source`, a plan (a Synsema program with `task main()` that a model wrote), in
    plan mode; returns a synsema.Result whose value is what main() gives.

    tools: host tools (a decorated function, a list of them, a synsema.Toolbox), bound in
    the plan as the map `tools` of their names: nothing else of the host is reachable.
    source_labels: labels of the source (["untrusted"] when the model that wrote it had
    read such data; needs labels=True): the whole plan runs under them, and its answer
    carries them (Result.labels). The other keywords are Program.call's. A plan's text is
    compiled once (cached by text). Raises synsema.CompileError for a rejected plan (the
    message `plan rejected:` then one `LINE:COL: message` line per error, `errors` each
    as a SourceError: the text to give the planner back), and what Program.call raises
    otherwise, every position in the plan's text. A code fence around the source (a
    model's habit) is ignored."""
    if not isinstance(source, str):
        raise api.UsageError(f"usage error: run_plan needs the plan's source as a text "
                             f"(str), got {type(source).__name__}")
    given = _label_names("source_labels", source_labels, labels)
    host = _host(tools, cap_set, given, labels, need_llm=False)
    source = _unfenced(source)
    box = {} if _box is None else _box
    box["source"] = Source(PLAN_NAME, source)

    def body(vm):
        program = _compiled(vm, source, given)
        return plans.run_compiled(vm, program, dict(vm.host_fns), given)
    return _result(host, body, box, tools=tools, cap_set=cap_set, labels=labels,
                   provider=provider, max_steps=max_steps, timeout=timeout,
                   max_depth=max_depth, audit=audit, trace=trace, max_requests=max_requests,
                   max_tokens=max_tokens)


async def run_plan_async(source, **settings):
    """`await synsema.run_plan_async(...)`: run_plan (the same keywords) without blocking
    the event loop, as Program.call_async is Program.call; `async def` tools run on this
    event loop."""
    return await in_worker(lambda box: run_plan(source, _box=box, **settings))


def plan_messages(request, tools=None, feedback=None, intent=None):
    """The planner's prompt for a model of the host's own (any SDK, any framework): the
    chat messages [{"role": "system", ...}, {"role": "user", ...}] that `plan()` and `syn
    agent` send: the plan language in brief with three example plans, the catalog of
    `tools` (host tools, as run_plan takes them), the request, and `feedback` (the message
    of a rejected plan's CompileError, to be fixed). The model's answer is the source to
    give run_plan (a code fence around it is removed there too)."""
    for name, v in (("request", request), ("feedback", feedback), ("intent", intent)):
        if not (isinstance(v, str) or (v is None and name != "request")):
            raise api.UsageError(f"usage error: plan_messages: {name} must be a text, got "
                                 f"{type(v).__name__}")
    try:
        found = collect(tools) if tools is not None else {}
    except ToolError as e:
        raise api.UsageError(f"usage error: {e}") from None
    system, user = planner_messages(intent, request, [catalog_entry(t) for t in found.values()],
                            feedback)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# ---- the agent of `syn agent` ---------------------------------------------------------------

def agent(request, *, tools=None, request_labels=(), labels=False, retries=2, show_plan=None,
          write=None, settings=None):
    """`syn agent`: ask the planner for a plan with the tools' catalog, run it, and write
    its answer with `write` (a stdout sink: withheld -- a label_violation -- unless the
    ceiling lets its labels out). A plan the compiler rejects is asked for again with the
    rejection as feedback, `retries` times. `show_plan(text)` gets each plan's source
    (indented, after `plan N:`), or `(plan withheld: labelled L)` when the ceiling does
    not let its labels out, and each rejection that is fed back.
    `settings`: the rest of runtime.run.options' keywords. Raises what run_plan raises."""
    settings = dict(settings or {})
    given = _label_names("request_labels", request_labels, labels)
    host = _host(tools, settings.get("cap_set"), given, labels, need_llm=True)
    box = {"source": Source("syn agent")}

    def body(vm):
        fns = dict(vm.host_fns)
        catalog = [catalog_entry(fn.tool) for fn in fns.values()]
        asked = Labeled(request, given) if given else request
        feedback = None
        for attempt in range(retries + 1):
            source = plans.plan(vm, asked, catalog, feedback)
            text, source_labels = (source.v, source.l) if type(source) is Labeled else (
                source, E.EMPTY)
            box["source"] = Source(PLAN_NAME, text)
            if show_plan is not None:
                show_plan(f"plan {attempt + 1}:\n" + _shown_plan(vm, text, source_labels))
            try:
                program = plans.compile_checked(text)
            except E.PlanRejected as e:
                if attempt == retries:
                    raise _rejected(vm, e, text, source_labels, retries) from None
                if show_plan is not None:
                    left = retries - attempt
                    show_plan(f"plan {attempt + 1} rejected; asking again ({left} more "
                              f"{'try' if left == 1 else 'tries'}, --retries):\n"
                              + _shown_plan(vm, e.message, source_labels))
                feedback = Labeled(e.message, source_labels) if source_labels else e.message
                continue
            answer = plans.run_compiled(vm, program, fns, source_labels)
            _write_answer(vm, answer, write)
            return answer
    return _result(host, body, box, tools=tools, labels=labels, **settings)


def _shown_plan(vm, text, labels):
    if labels and not lets_out(vm.ceiling, labels):
        return f"    (plan withheld: labelled {', '.join(sorted(labels))})"
    return "\n".join("    " + line for line in printable(text.rstrip("\n"), lines=True)
                     .split("\n"))


def _rejected(vm, err, text, labels, retries):
    """The error that ends `syn agent` when its last plan is rejected too."""
    tries = f"{retries + 1} plans" if retries else "the plan"
    said = f"error: the planner wrote {tries}, and the compiler rejected " + (
        "each" if retries else "it") + f" (--retries {retries}); the last one's errors:"
    if labels and not lets_out(vm.ceiling, labels):
        report = f"{PLAN_NAME}: (errors withheld: labelled {', '.join(sorted(labels))})"
    else:
        report = compile_error(err, Source(PLAN_NAME, text)).rstrip("\n")
    out = api.RunError(said + "\n" + report)
    out.labels = frozenset(labels)
    out.host_message = err.message
    return out


def _write_answer(vm, answer, write):
    """The plan's answer to stdout: a sink like print (SPEC 17)."""
    value, labels = (answer.v, answer.l) if type(answer) is Labeled else (answer, E.EMPTY)
    vm.site = None
    vm.need("writing the plan's answer to stdout", ("stdout",))
    if vm.labels:
        blocked = vm.ceiling.blocked(labels | vm.pc)
        if blocked:
            vm.violation(f"writing the plan's answer to stdout would reveal data labelled "
                         f"{', '.join(blocked)}")
    if write is not None:
        write(display(value) + "\n")


def _unfenced(source):
    """The source with the code fence a model often puts around it made blank lines, so
    every position is still a position in the text the host has."""
    lines = source.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) >= 2 and lines[filled[0]].lstrip().startswith("```") and \
            lines[filled[-1]].strip() == "```":
        lines[filled[0]] = lines[filled[-1]] = ""
    return "\n".join(lines)


# ---- the run ---------------------------------------------------------------------------------

def _compiled(vm, source, labels):
    """The compiled plan; a rejection as synsema.CompileError, its text withheld (as a run
    error's is) unless the ceiling lets the source's labels out."""
    try:
        return plans.compile_checked(source)
    except E.PlanRejected as e:
        message = e.message
        if labels and not lets_out(vm.ceiling, labels):
            message = f"plan rejected: (message withheld: labelled {', '.join(sorted(labels))})"
        err = api.CompileError(message, e.line, e.col, PLAN_NAME,
                               errors=[api.SourceError(x.line, x.col, x.message,
                                                       getattr(x, "suggestion", None))
                                       for x in e.errors])
        err.labels = frozenset(labels)
        err.host_message = e.message
        raise err from None


def _result(host, body, box, *, tools=None, labels=False, **settings):
    """Run body(vm) in a VM of the capability program `host`, as Program.call runs a task
    (options, the start's ceiling check, the big stack, the host's thread for tools);
    the Result, or the api error with the plan's positions."""
    buffer = io.StringIO()
    vm = None
    try:
        opts = R.options(host.compiled, buffer.write, tools=tools, labels=labels,
                          **settings)
        try:
            try:
                vm = R.start(host.compiled, opts)
            except api.Refused as e:
                flag = "--cap-set" if opts.from_cli else "cap_set="
                raise api.Refused(f"error: the host ceiling ({flag}) does not grant what "
                                  f"the plan's run needs: {', '.join(e.missing)} (each tool "
                                  "given needs tool=NAME; a planner, llm); the plan does not "
                                  "start", e.missing) from None
            box["vm"] = vm

            def run():
                vm.run_main()       # the requires' program: nothing; starts the clock
                return body(vm)
            try:
                # (an api error raised by body, a rejection, passes as it is)
                raw = in_big_stack(run, vm)
            except E.SynError as e:
                raise R.failure(e, box["source"], vm.ceiling) from (
                    None if e.labels or isinstance(e, E.LabelViolation) else e)
        finally:
            R.release(opts)
    except api.Error as e:
        e.output = buffer.getvalue()
        e.tool_calls = list(getattr(vm, "tool_calls", []))
        e.tokens = getattr(vm, "tokens_used", 0)
        e.usage = usage_of(vm)
        raise
    value, result_labels = raw, frozenset()
    if type(raw) is Labeled:
        value, result_labels = raw.v, frozenset(raw.l)
    if value is not None:
        try:
            value = to_python(value)
        except Unholdable as e:
            err = api.RunError(f"{PLAN_NAME}: error: the plan's answer cannot leave the "
                               f"program: it holds {printable(e.render())}")
            err.labels = result_labels
            err.output = buffer.getvalue()
            raise err from None
    return Result(value, result_labels, buffer.getvalue(), list(vm.tool_calls),
                  vm.tokens_used, usage_of(vm))


def _label_names(keyword, names, labels):
    if isinstance(names, str) or not isinstance(names, (list, tuple, set, frozenset)):
        raise api.UsageError(f"usage error: {keyword} must be a list of label names, like "
                             f"[\"untrusted\"], got {type(names).__name__}")
    if names and not labels:
        raise api.UsageError(f"usage error: {keyword}= needs labels=True (without it no "
                             "label is tracked)")
    return R.label_set(names) if labels else E.EMPTY


def _host(tools, cap_set, given, labels, need_llm):
    """The capability program of a run (see the module's docstring)."""
    try:
        found = collect(tools) if tools is not None else {}
    except ToolError as e:
        raise api.UsageError(f"usage error: {e}") from None
    ceiling = None
    if isinstance(cap_set, (list, tuple)) and all(isinstance(c, str) for c in cap_set):
        cap_set = ",".join(cap_set)
    if isinstance(cap_set, str):
        try:
            ceiling = Ceiling.parse(cap_set)
        except CeilingError:
            pass                # runtime.run.options reports it, with its message
    if ceiling is not None and not ceiling.all:
        # llm("L") for each llm=L@HOST item: the labelled data the host lets a model read
        models = sorted({label for label, _ in ceiling.llm_labels})
        use_llm = need_llm or ceiling.admits(("llm",))
    else:
        # Developer mode (or `*`): the labels this run can know of, those of the source
        # and those its tools put on their results, may go to the model.
        known = set(given) if labels else set()
        if labels:
            for t in found.values():
                known.update(t.result_labels)
        models = sorted(known)
        use_llm = True
    return _capabilities(tuple(found), use_llm, tuple(models))


@lru_cache(maxsize=128)
def _capabilities(tool_names, use_llm, llm_labels):
    lines = (["require llm"] if use_llm else []) + [
        f"require llm({json.dumps(label)})" for label in llm_labels] + [
        f"require tool({json.dumps(name)})" for name in tool_names]
    return api.compile_source("".join(line + "\n" for line in lines), "<run_plan>")


def stderr_line(text):
    sys.stderr.write(text + "\n")
