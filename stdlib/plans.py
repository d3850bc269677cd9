"""Plans (SPEC 17): `plan(request, catalog[, feedback])` asks the planner model for a
Synsema program; `run_plan(source, tools)` compiles it in plan mode and runs it in the
caller's VM -- no second interpreter, no Python eval.

What keeps a plan in its box, each where it is enforced:
  * scope: a plan is its own program (compiler plan mode), with its own globals; the only
    value it is given is `tools`. The caller's variables are never in its frames.
  * the removed builtins: the compiler reports them; here a compiled plan that names one
    anyway is refused before any of it runs.
  * tools: each Synsema task in `tools` is given to the plan wrapped (ForeignTask), so
    every way of calling it -- `t(...)`, `call`, `call_tool`, from any task or lambda of
    the plan -- runs as `call_tool` runs it (arguments checked, its own declarations
    intersected with the current set), with its own program's globals. Host tools keep
    their capability check and label contract (stdlib.hostcall), as anywhere.
  * labels: the whole plan runs under a pc raised by the labels of its source and of
    `tools` (vm.call_under), so every value it makes and every sink it reaches sees them.
  * limits: the caller's step budget, deadline and depth: the same VM counts them.
  * nothing of the plan outlives it: a task value of the plan may not leave it, as its
    answer or as an argument to a tool; a tool may not hand the plan a task value it
    could call around the wrapper.
"""

from synsema.stdlib.registry import PLAN_REMOVED, builtin
from synsema.stdlib.vmbuiltins import (TASK_TYPES, _call_tool, _label, _llm_gate, _shown,
                                       _split, _trace_call, _trace_failed, check_argument,
                                       holds)
from synsema.vm import precise as P
from synsema.vm.errors import EMPTY, PlanRejected, SynError
from synsema.vm.program import Param
from synsema.vm.values import UNSET, Closure, HostFn, Labeled, type_name

OFFLINE_PLAN = 'task main()\n    give "[no llm provider]"\n'
PLAN_NAME = "<plan>"            # the source name a plan's errors and positions carry

# ---- compiling, once per text ---------------------------------------------------------------


def _compiled(source):
    """_compile, cached: functools (and the lru_cache made with it) only once a plan is
    made, off the start-up of every other run (issue 31)."""
    global _compiled_cached
    if _compiled_cached is None:
        from functools import lru_cache
        _compiled_cached = lru_cache(maxsize=256)(_compile)
    return _compiled_cached(source)


_compiled_cached = None


def _compile(source):
    """The compiled plan (a Program is immutable once compiled: every VM decodes it into
    its own tables), or the PlanRejected to raise again (a rejected text stays rejected)."""
    from synsema.compiler import compile_plan   # only a run that makes a plan compiles
    try:
        program = compile_plan(source, PLAN_NAME)
    except PlanRejected as e:
        return e
    named = sorted(PLAN_REMOVED.intersection(program.builtins))
    if named:       # never by trusting the compiler: the check a plan cannot get past
        raise RuntimeError(f"a compiled plan names {', '.join(named)}, which plans do "
                            "not have")
    if "main" not in {f.name for f in program.functions if f.kind == "task"}:
        raise RuntimeError("a compiled plan has no task main")
    return program


def compile_checked(source):
    """The Program of a plan's source; raises PlanRejected."""
    got = _compiled(source)
    if isinstance(got, PlanRejected):
        raise got
    return got


# ---- the tools a plan is given -------------------------------------------------------------


class _ParamView:
    """A Synsema parameter as the host-tool code paths read one (name, type, has_default,
    default): what `assert_error`, the trace and error messages need of a ForeignTask."""
    __slots__ = ("name", "type", "has_default", "default", "description", "choices")

    def __init__(self, p):
        self.name = p.name
        self.type = p.type or "any"
        self.has_default = p.default != Param.NO_DEFAULT
        self.default = None
        self.description = None
        self.choices = None


class ForeignTask:
    """A Synsema task (or lambda) of the caller, as the plan sees it: a HostFn whose tool
    is this. Calling it switches to its own program's globals and runs it as call_tool
    does; whatever globals were active before come back after."""
    foreign = True

    def __init__(self, closure, home):
        self.closure = closure
        self.home = home                    # (globals, global_stamps, gprogram)
        f = closure.func
        self.name = f.name if f.kind == "task" else f"<lambda at line {f.line}>"
        self.params = [_ParamView(p) for p in f.params]
        self.description = ""

    def __str__(self):
        return str(self.closure)

    def _enter(self, vm):
        saved = vm.globals, vm.global_stamps, vm.gprogram
        vm.globals, vm.global_stamps, vm.gprogram = self.home
        return saved

    def call_positional(self, vm, args, labels):
        """`tools["x"](a, b)`: the arguments checked by type as call_tool checks them (the
        count by the task's own frame), then run with least privilege."""
        f = self.closure.func
        for p, a in zip(f.params, args):
            v, al = _split(a)
            try:
                check_argument(p.name, p.type, v, p.default == p.DEFAULT_NOTHING)
            except SynError as e:
                e.labels = e.labels | al | labels
                raise
        _refuse_plan_tasks(args, labels)
        saved = self._enter(vm)
        try:
            result = vm.call_labelled(self.closure, list(args), labels, as_tool=True)
        finally:
            vm.globals, vm.global_stamps, vm.gprogram = saved
        return _no_task_in(result, self.name)

    def call_map(self, vm, name, tl, amap):
        """`call(t, {...})` / `call_tool(t, {...})`: always as call_tool runs it."""
        _refuse_plan_tasks([amap], tl)
        saved = self._enter(vm)
        try:
            result = _call_tool(vm, Labeled(self.closure, tl) if tl else self.closure, amap)
        finally:
            vm.globals, vm.global_stamps, vm.gprogram = saved
        return _no_task_in(result, self.name)


_CLOSURES = (Closure,)          # inside a plan, a Closure is one of the plan's own


def _refuse_plan_tasks(args, labels):
    # Inside a plan every Closure is the plan's own (the caller's come wrapped): one
    # passed to a tool could be kept and called after the plan ends, with other powers.
    if any(holds(a, _CLOSURES) for a in args):
        raise SynError("a plan cannot give a task to a tool: pass data, and call the task "
                       "in the plan", labels)


def _no_task_in(result, name):
    # A task value from a tool could be called without the wrapper, with the plan's
    # globals in place of its own.
    if holds(result, TASK_TYPES):
        raise SynError(f"tool '{name}' gave the plan a task value; a plan calls only the "
                       "tools it is given")
    return result


def _bind_tools(vm, tools):
    """The plan's `tools`: the same names, each host tool as it is and each Synsema task
    wrapped. Labels are not kept inside: the whole plan runs under all of them."""
    home = (vm.globals, vm.global_stamps, vm.gprogram)
    bound = {}
    for key, value in tools.items():
        if type(key) is not str:
            raise SynError(f"run_plan needs tool names as the keys of its tools map, got "
                           f"{type_name(key)}")
        t = type(value)
        if t is HostFn:
            bound[key] = value
        elif t is Closure:
            bound[key] = HostFn(ForeignTask(value, home))
        else:
            raise SynError(f"run_plan: tools[\"{key}\"] must be a task or a host tool, got "
                           f"{type_name(value)}")
    return bound


# ---- the builtins -------------------------------------------------------------------------

@builtin("run_plan", 2, kind="vm")
def run_plan(vm, source, tools):
    """Compile a plan (a program a model wrote) and give what its main() gives."""
    src, _ = _split(source)
    tmap, _ = _split(tools)
    # SPEC 17: the plan's pc is the caller's joined with every label of its source and
    # of `tools` (Labeled.l: every label anywhere in the value).
    labels = vm.pc | P.labels_of(source) | P.labels_of(tools) if vm.labels else EMPTY
    if type(src) is not str:
        raise SynError(f"run_plan needs the plan's source as a text, got {type_name(src)}",
                       labels)
    if type(tmap) is not dict:
        raise SynError(f"run_plan needs a map of tools (name -> task or host tool), got "
                       f"{type_name(tmap)}", labels)
    try:
        program = compile_checked(src)
    except PlanRejected as e:
        raise SynError(e.message, labels) from None
    return _run(vm, program, _bind_tools(vm, tmap), labels)


def run_compiled(vm, program, tools, labels):
    """Run a compiled plan (compile_checked) from the host, with no caller program around
    it (synsema.run_plan, `syn agent`): `tools` a map of name -> HostFn, `labels` those of
    its source. The plan's own frames stay on its errors: there is no caller file to
    report them in, so they are reported in the plan's text."""
    return _run(vm, program, _bind_tools(vm, tools), labels, own_frames=True)


def _run(vm, program, bound, labels, own_frames=False):
    tasks = vm.adopt(program)
    top = Closure(program.main, (), vm.decoded[program.main], vm.pads[program.main])
    main = next(c for c in tasks.values() if c.func.name == "main")
    glob = [UNSET] * len(program.globals)
    glob[0] = bound                        # `tools` (compiler plan mode: global 0)
    saved = vm.globals, vm.global_stamps, vm.gprogram
    vm.globals, vm.global_stamps, vm.gprogram = glob, [0] * len(glob), program
    try:
        if labels:
            # Each run of the loop drops, when it returns, the pc entries of its depth:
            # the top level and main are two runs, so each is raised on its own.
            vm.call_under(labels, lambda: vm.call(top, []))
            result = vm.call_under(labels, lambda: vm.call(main, []))
        else:
            vm.call(top, [])
            result = vm.call(main, [])
    except SynError as e:
        if not own_frames:
            _drop_plan_frames(e, program)
        raise
    finally:
        vm.globals, vm.global_stamps, vm.gprogram = saved
    if holds(result, TASK_TYPES):
        raise SynError("a plan cannot give a task: give data (its code never runs after "
                       "run_plan returns)")
    return result


def _drop_plan_frames(err, program):
    """The plan's frames are positions in the plan's text, not in the caller's file, where
    a report would show them; the error is reported at the run_plan call."""
    funcs = set(map(id, program.functions))
    kept = []
    secret = 0
    for i, entry in enumerate(err.trace):
        if id(entry[0]) in funcs:
            continue
        kept.append(entry)
        if i < err.secret_frames:
            secret += 1
    err.trace[:] = kept
    err.secret_frames = secret


@builtin("plan", 2, 3, kind="vm")
def plan(vm, request, catalog, feedback=None):
    """Ask the planner model for a plan: a Synsema program with task main()."""
    labels = EMPTY
    plain = []
    for a in (request, catalog, feedback):
        a, l = _split(a)
        labels |= l
        plain.append(a)
    labels = _llm_gate(vm, "plan", labels)
    request, catalog, feedback = plain
    if type(request) is not str:
        raise SynError(f"plan needs the request as a text, got {type_name(request)}")
    if type(catalog) is not list:
        raise SynError(f"plan needs a list of catalog entries (tool_spec), got "
                       f"{type_name(catalog)}")
    if feedback is not None and type(feedback) is not str:
        raise SynError(f"plan needs the feedback as a text (the error of an earlier plan), "
                       f"got {type_name(feedback)}")
    if vm.llm is None:
        return _label(vm, OFFLINE_PLAN, labels)
    n = _trace_call(vm, labels)
    try:
        text, tokens = vm.provider_call(
            lambda p: p.text_op(vm.program.intent, "plan", request, catalog, feedback),
            "plan", labels)
    except SynError as e:
        _trace_failed(vm, n, "plan", e, labels)
        raise
    source = strip_fence(text)
    if vm.trace:
        vm.trace_line(f"plan {n}: {_shown(vm, source, labels)}")
    return _label(vm, source, labels)


def strip_fence(text):
    """A plan's source without the code fence a model often puts around it."""
    lines = text.strip().splitlines()
    if len(lines) >= 2 and lines[0].lstrip().startswith("```") and \
            lines[-1].strip() == "```":
        lines = lines[1:-1]
    return "\n".join(lines) + "\n"
