"""The VM: a loaded program, its globals, capabilities, labels state and limits.

The loops themselves (vm.loop_fast, labels off; vm.loop_labels_fast, labels on) are
generated from vm/instructions.py; this module holds what they share and what builtins
reach through the `vm` they are given.
"""

import os
import sys
import time
from _weakref import ref as _weak   # weakref.ref; the weakref module is off start-up

from synsema.vm import caps as C
from synsema.vm import opcodes as O
from synsema.vm.decode import FramePads, decode_function, make_task_closures
from synsema.vm.errors import (EMPTY, CapabilityDenied, InternalError, LabelViolation,  # noqa: F401
                               LimitExceeded, Refused, SynError)
from synsema.vm.optable import TIER2_GATE
from synsema.vm.program import cap_text
from synsema.vm.values import UNSET, Closure, HostFn, Labeled, type_name

_CHUNK = 4096   # steps between two looks at the clock


class Host:
    """What a VM is given at construction that the VM does not hold itself: the builtins'
    implementations and the calls out of the language. The VM defines what it needs; the
    standard library provides it (stdlib.host.STANDARD), and synsema.runtime.VM passes it.
      builtins       name -> the builtin (vm.signatures.Signature's facts, plus fn and
                     labelled: stdlib.registry.Builtin)
      call_host      (vm, fn, args, labels) -> the result of a host function's call
      model_errors() the exception class(es) a model provider raises for a failed call;
                     the VM turns them into the calling builtin's catchable error
    """

    def __init__(self, builtins, call_host, model_errors):
        self.builtins = builtins
        self.call_host = call_host
        self.model_errors = model_errors


class Options:
    """How to run: everything the CLI's run options set."""

    def __init__(self, labels=False, ceiling=None, max_steps=None, timeout=None,
                 max_depth=1000, audit=None, llm=None, trace=False, out=None, tools=None,
                 spans=None, tier=None):
        self.labels = labels
        self.ceiling = ceiling          # caps.Ceiling, or None for developer mode
        self.max_steps = max_steps
        self.timeout = timeout
        self.max_depth = max_depth
        self.audit = audit              # vm.audit.Audit or None
        self.llm = llm                  # stdlib.llm.Provider or None (offline)
        self.trace = trace
        self.out = out                  # write(text) for print; default sys.stdout
        self.tools = tools or {}        # host tools: name -> stdlib.hosttools.HostTool
        # OpenTelemetry (stdlib.otel.Spans), set by the API when the host traces; the
        # builtins that call a model or a tool open spans through it (never the VM).
        self.spans = spans
        self.tier = tier                # 1: the loop; 2 or "auto": vm.tier2; None: SYN_TIER


class VM:
    def __init__(self, program, options=None, host=None):
        if host is None:
            raise TypeError("a VM needs its host (vm.machine.Host): synsema.runtime.VM gives "
                            "it the standard library's")
        opts = options or Options()
        self.host = host
        self.program = program
        self.options = opts
        self.labels = opts.labels
        self.ceiling = C.Ceiling.for_program(opts.ceiling, program.requires)
        self.max_steps = opts.max_steps
        self.timeout = opts.timeout
        self.max_depth = opts.max_depth
        self.audit = opts.audit
        self.llm = opts.llm
        self.trace = opts.trace
        self.spans = opts.spans
        self.write = opts.out or _stdout_write
        self.tokens_used = 0
        # Given up on at its time limit while in one long operation (api._in_big_stack):
        # when that operation ends, the run may do nothing more.
        self.abandoned = False
        # The count is the provider's answer too (a model sets its length): it carries the
        # labels of every prompt counted, and the pc of every call (labels on).
        self.token_labels = EMPTY
        self.trace_calls = 0            # model calls so far, numbered in --trace lines
        self.depth = 0
        self.steps = 0                  # steps accounted so far
        self.deadline = None
        self.globals = [UNSET] * len(program.globals)
        self.global_stamps = [0] * len(program.globals)
        # The program whose globals are `globals`: this one, or a plan while it runs
        # (SPEC 17; stdlib.plans swaps all three, and back, around the plan's code).
        self.gprogram = program
        self.caps, missing = C.agent_set(program.requires, self.ceiling)
        if missing:
            missing = [cap_text(c) for c in missing]
            raise Refused(", ".join(missing), missing)
        self.tool = None                # name of the task call_tool is running, if any
        self.tool_requires = ()         # and what that task declared
        self.caller_tool = None         # the tool that ran it by call_tool, if any
        self.site = None                # (code, index) of the running builtin call
        self.part = None                # which part of a superinstruction raised
        # Host tools (SPEC 15): each a task value; every call of one is recorded here.
        self.host_fns = {name: HostFn(t) for name, t in opts.tools.items()}
        self.tool_calls = []            # [(name, args, "ok" | "refused" | "failed")]
        self.tool_call_labels = []      # the labels each record carries (the pc, the args)
        # Labels state (vm.labels): the pc stack and the innermost try entries.
        self.pc_stack = []
        self.pc = EMPTY
        self.try_entries = []
        self.stamp = 0
        call_host = host.call_host
        self.call_host = lambda fn, args, labels=EMPTY: call_host(self, fn, args, labels)
        # The loops find a function's code and frame pads here (decoded[f], pads[f]);
        # errors and builtins find a code list's function, positions and `when`/`while`
        # words by the list's id (the loops keep only the code in their frames). What a
        # program decodes to is made once per program and mode and shared (_decoded):
        # nothing in it changes once made.
        self.pads = {}
        self.decoded = {}
        self.owner = {}
        self.positions = {}
        self.words = {}
        self.tasks = self._decode(program)
        self.adopted = {}               # plans decoded in this run: Program -> its tasks
        if self.labels:
            from synsema.vm.loop_labels_fast import run_labels as run1
        else:
            from synsema.vm.loop_fast import run_plain as run1
        self._run = run1
        tier = opts.tier or _tier()
        if tier != 1:
            self._run = make_runner(self, run1, always=tier == 2)

    def _decode(self, program):
        """`program`'s functions in this run's tables; its task values."""
        d = _decoded(program, self.labels, self.host.builtins)
        self.pads.update(d.pads)
        self.decoded.update(d.decoded)
        self.owner.update(d.owner)
        self.positions.update(d.positions)
        self.words.update(d.words)
        return d.tasks

    def adopt(self, program):
        """The task values of a plan (SPEC 17), decoded into this run once: a plan runs in
        the VM of the program that runs it, under that run's limits and labels."""
        tasks = self.adopted.get(program)
        if tasks is None:
            tasks = self.adopted[program] = self._decode(program)
        return tasks

    # ---- running ----------------------------------------------------------------------

    def start_clock(self):
        if self.timeout is not None and self.deadline is None:
            self.deadline = time.monotonic() + self.timeout

    def run_main(self, pc=EMPTY):
        """Run the top level; `pc`: labels it runs under (labels on), as a labelled task
        value's call does (`syn repl`, after an entry that ended on a labelled error)."""
        self.start_clock()
        main = Closure(self.program.main)
        return self._run(self, Labeled(main, pc) if pc and self.labels else main, [])

    def run_function(self, index):
        """Run a test body (or any zero-parameter function) by function index."""
        self.start_clock()
        self.pc_stack.clear()
        self.pc = EMPTY
        self.try_entries.clear()
        return self._run(self, Closure(self.program.functions[index]), [])

    def call(self, closure, args):
        """Call a task value with a list of arguments (from a builtin: call, assert_error)."""
        # A call from a builtin is one level deeper than the builtin (vm.depth): checked
        # here, since a task that recurses only through call() makes no call instruction.
        if self.depth > self.max_depth:
            raise self.depth_limit()
        return self._run(self, closure, list(args))

    # ---- limits -----------------------------------------------------------------------

    def take_budget(self, room):
        """A chunk of steps for a loop to spend before it calls tick(); charged now.

        A loop spends one step per call it makes, so a chunk no larger than `room` (the
        calls the depth limit still allows from where the loop is) lets the loop check
        the call depth only when the chunk is spent (tick_call), not at every call."""
        n = _CHUNK
        if self.max_steps is not None:
            n = max(1, min(_CHUNK, self.max_steps - self.steps))
        if n > room:
            n = max(1, room)
        self.steps += n
        return n

    def return_budget(self, budget):
        """A loop ends: what it did not spend of its chunk is refunded."""
        self.steps -= max(budget, 0)

    def tick(self, budget, room):
        """A loop spent its chunk (budget <= 0): count the overshoot, check the limits,
        hand out the next chunk."""
        self.steps -= budget
        if self.abandoned:
            raise self.given_up()
        if self.max_steps is not None and self.steps >= self.max_steps:
            raise LimitExceeded(f"step limit ({self.max_steps}, --max-steps) reached")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self.time_limit()
        return self.take_budget(room)

    def time_limit(self, note=""):
        t = self.timeout
        shown = int(t) if float(t).is_integer() else t
        return LimitExceeded(f"time limit ({shown} s, --timeout) reached{note}")

    def given_up(self):
        """The error of a run its host gave up on (api._in_big_stack: the time limit past
        one long operation, or Ctrl-C): it may act no more."""
        if self.timeout is None:
            return LimitExceeded("the run was interrupted: it may act no more")
        return self.time_limit()

    def tick_call(self, budget, room):
        """tick() at a call that spent the chunk: the call depth is checked here (room: the
        calls the depth limit still allows, this one included)."""
        if room <= 0:
            raise self.depth_limit()
        return self.tick(budget, room)

    def depth_limit(self):
        return LimitExceeded(f"call depth limit ({self.max_depth}, --max-depth) reached")

    # ---- errors -----------------------------------------------------------------------

    def unset_error(self, g):
        name = self.gprogram.globals[g]
        line = self.gprogram.global_lines[g]
        return SynError(f"'{name}' is not set yet (declared at line {line})")

    def cond_error(self, code, idx, v):
        word = self.words[id(code)].get(idx, "when")
        return SynError(f"{word} needs a bool, got {type_name(v)}")

    def bad_opcode(self, op):
        return InternalError(f"unknown opcode {op}")

    def as_error(self, exc):
        if isinstance(exc, SynError):
            return exc
        if isinstance(exc, RecursionError):
            # Python's own stack, not --max-depth: calls made through a builtin (call,
            # call_tool, a callback) each nest the interpreter, so they end sooner.
            return LimitExceeded(
                f"call depth limit reached at {self.depth} calls through builtins (call, "
                "call_tool, callbacks), which nest the interpreter and stop sooner than "
                f"--max-depth ({self.max_depth}); call the task directly to recurse deeper")
        # Only errors the language defines may be caught: an operation raises its own
        # SynError for what the program did wrong (vm.ops: "division by zero", "number
        # too large"); any other Python exception, OverflowError included, is a bug in
        # Synsema and ends the run as an internal error (exit 70).
        if isinstance(exc, MemoryError):
            return LimitExceeded("out of memory")
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        err = InternalError(f"{type(exc).__name__}: {exc}")
        err.original = exc
        return err

    def trace_frame(self, err, code, idx):
        """Add the frame running `code` at instruction idx to an error's Synsema trace."""
        func = self.owner[id(code)]
        positions = self.positions[id(code)]
        pos = positions[idx] if 0 <= idx < len(positions) else (func.line, func.col)
        # A superinstruction's part other than the one whose position it has said it
        # raised (vm/instructions.py): that part's own position.
        part, self.part = self.part, None
        parts = positions.parts.get(idx) if part is not None else None
        if parts:
            pos = parts[part]
        err.trace.append((func, pos[0], pos[1]))

    # ---- capabilities -----------------------------------------------------------------

    def need(self, builtin, cap, fix=None):
        """Raise the catchable CapabilityDenied unless the running code holds `cap`."""
        if self.abandoned:          # every effect (output, network, models) passes here
            raise self.given_up()
        if cap[0] == "net":
            ok = C.net_held(self.caps, cap[1])
        else:
            ok = cap in self.caps
        if ok:
            return
        have = C.describe_set(self.caps)
        where = (f"tool '{self.tool}' runs with {have}" if self.tool is not None
                 else f"the program runs with {have}")
        err = CapabilityDenied(f"{builtin} needs {cap_text(cap)}; {where}{self.cap_hint(cap)}")
        # stdout and llm are needed whatever the arguments are: the error tells nothing of
        # them, so it does not carry their labels (a net host comes from the URL: it does)
        err.from_arguments = cap[0] == "net"
        raise err

    def cap_hint(self, cap):
        """The fix for running code that lacks `cap`: the host's ceiling, the caller of
        call_tool, the task's own `require`, or the program's."""
        declare = f"`require {cap_text(cap)}`"
        if self.ceiling_refuses(cap) and self.options.ceiling is not None:
            hint = "; the host's --cap-set does not grant it"
            if cap == ("stdout",) and self.ceiling.stdout_labels:
                hint += (" (its stdout=LABEL items let labelled data through a print that "
                         "stdout allows: give both, `--cap-set stdout,stdout=LABEL`)")
        elif self.tool is not None:
            if C.cap_held(frozenset(self.tool_requires), cap):
                if self.caller_tool is not None:    # call_tool inside a task run by call_tool
                    hint = (f"; the caller of call_tool, task '{self.caller_tool}', does not "
                            f"hold it: add {declare} as the first line of task "
                            f"'{self.caller_tool}'")
                else:
                    hint = (f"; the caller of call_tool does not hold it: add {declare} at the "
                            "top of the program")
            elif self.tool == "<lambda>":       # the verifier keeps that name for lambdas
                hint = (f"; a lambda has no `require` of its own, so call_tool gives it "
                        f"nothing: make it a task with {declare} as its first line")
            else:
                hint = f"; add {declare} as the first line of task '{self.tool}'"
        else:
            hint = f"; add {declare} at the top of the program"
            func = self.owner.get(id(self.site[0])) if self.site else None
            if func is not None and func.kind == "task" and \
                    C.cap_held(frozenset(func.requires), cap):
                hint = (f"; task '{func.name}' declares it, but a task's own `require` only "
                        "limits what call_tool gives it (a plain call, or --call, runs with "
                        f"the program's set): add {declare} at the top of the program")
        return hint

    def ceiling_refuses(self, cap):
        return not self.ceiling.admits(cap)

    def run_as_tool(self, closure, args):
        """call_tool: run with (the task's own requires ∩ the current set)."""
        f = closure.func
        saved = self.caps, self.tool, self.tool_requires, self.caller_tool
        self.caps = C.tool_set(f.requires, saved[0])
        self.caller_tool = saved[1]        # the task that ran call_tool, if it is a tool
        self.tool = f.name
        self.tool_requires = f.requires
        try:
            return self.call(closure, args)
        finally:
            self.caps, self.tool, self.tool_requires, self.caller_tool = saved

    def call_labelled(self, closure, args, labels, as_tool=False):
        """Call a task value from a builtin. Under --labels a labelled task value raises
        the pc for the call and labels its result (SPEC 10: it 'labels the call')."""
        if labels and self.labels:
            return self.call_under(labels, lambda: self.call_labelled(closure, args, EMPTY,
                                                                      as_tool))
        if as_tool:
            return self.run_as_tool(closure, args)
        return self.call(closure, args)

    def provider_call(self, fn, name, labels):
        """fn(provider) for builtin `name`, whose input (with the pc) carries `labels`:
        audited, bounded by the run's deadline, and its tokens counted -- also those of an
        answer the provider then rejects, or of a call that fails after the model answered."""
        llm = self.llm
        self.audit_event(event="capability", kind="llm", host=llm.config.host, builtin=name,
                         at=self.where())
        # Every wait of the call (request timeouts, retry pauses) ends by the run's
        # deadline; --trace hears of each retry, unless the prompt is labelled: how a
        # provider reacts to it (a 503 for some prompts) is as private as the prompt.
        hidden = self.labels and not self.shows(labels | self.pc)
        llm.bound(self.deadline, self.timeout,
                  self.trace_line if self.trace and not hidden else None)
        before = llm.spent
        try:
            return fn(llm)
        except self.host.model_errors() as e:
            # What a provider says depends on the prompt (and may quote the model's own
            # answer: a refusal, a wrong typed value), so the error carries its labels.
            err = SynError(f"{name}: {e.message}")
            err.labels = labels | self.pc
            raise err from None
        finally:
            self.tokens_used += llm.spent - before
            self.token_labels = self.token_labels | labels

    def trace_line(self, text):
        if self.labels and self.pc and not self.shows(self.pc):
            # Under a labelled condition, that the event happened at all (and how many
            # times) depends on the labels: --trace shows nothing of it, unless the
            # ceiling lets those labels out.
            return
        sys.stderr.write(f"trace: {text}\n")
        sys.stderr.flush()

    # ---- labels -----------------------------------------------------------------------

    def where(self):
        """FILE:LINE of the builtin call running now (for audit lines and violations)."""
        site = self.site
        if site is None:
            return self.program.source_name
        code, idx = site
        func = self.owner[id(code)]
        positions = self.positions[id(code)]
        line = positions[idx][0] if 0 <= idx < len(positions) else func.line
        return f"{self.program.source_name}:{line}"

    def shows(self, labels):
        """May --trace (stderr, like an uncaught error's report) show what carries
        `labels`? When the ceiling's stdout= items cover every one (SPEC 10: what print
        could have shown)."""
        return not labels or not self.ceiling.blocked(labels)

    def hides(self, labels):
        """Must what depends on `labels` be kept from whoever reads this run's stderr and
        audit log? Not when the ceiling lets each label out anyway, by stdout=LABEL or a
        declassify the program could make (developer mode grants every one): that reader
        may see the data itself."""
        c = self.ceiling
        return any(not (c.may_print(l) or c.may_declassify(l)) for l in labels)

    def violation(self, message):
        if self.labels and self.pc and self.hides(self.pc):
            # Under a labelled condition, which sink or variable was refused says which
            # way the condition went (`set of 'a'` in one branch, `'b'` in another): the
            # message keeps only the condition's labels, as a report keeps only that
            # frames ran there (vm.labels._withhold_frames).
            message = (f"under a condition on data labelled {', '.join(sorted(self.pc))}, "
                       "the program reached something that label does not allow (which "
                       "one, and where, is withheld: it depends on the data). Under a "
                       "labelled `when`, `while`, `for each` or caught error: declare a "
                       "variable you set inside the branch, or label it with private(...) "
                       "when you declare it; print or send only what the host ceiling lets "
                       "out (stdout=LABEL, llm=LABEL@HOST, net=LABEL@HOST); or declassify "
                       "the condition first. A ceiling that lets the label out (or developer "
                       "mode: no --cap-set) shows which")
        self.audit_event(event="label_violation", message=message, at=self.where())
        raise LabelViolation(message)

    def audit_event(self, labelled=(), **event):
        """One --audit line. `labelled`: the fields whose values were made from labelled
        data (a host from a labelled URL), written as withheld."""
        if self.audit is None:
            return
        if self.labels and self.pc and self.hides(self.pc):
            # Whether an event happens under a labelled condition, how often and where,
            # depends on the labels (a loop on a secret would count it out; even one line
            # saying "withheld" would tell that the branch ran), as with --trace: it is
            # not written. A violation is, without its place: it ends the run, which the
            # exit code says anyway, and its message is then the condition's labels only.
            if event.get("event") != "label_violation":
                return
            event["at"] = "(withheld: under a labelled condition)"
        for field in labelled:      # (labels on: the callers pass fields only then)
            event[field] = "(withheld: labelled data)"
        self.audit.write(event)

    # vm.labels provides these; labels off they are never reached, so it is imported only
    # with labels on (the labels loop imports it too): off the start-up of `syn exec`.
    def call_under(self, labels, thunk):
        from synsema.vm.labels import call_under
        return call_under(self, labels, thunk)

    def taint_try(self, labels):
        from synsema.vm.labels import taint_try
        taint_try(self, labels)

    def after_caught(self, err):
        if self.labels and err.labels:
            self.taint_try(err.labels)


class Decoded:
    """A program decoded for one mode (labels on or off): each function's instruction
    list, frame pads, positions and `when`/`while` words, and the task values. VMs of the
    program in that mode, in any number of threads, share it: the loops only read the
    instruction lists (link_callees fills in each direct call's callee code before any
    run), and a FramePads only ever adds the pad every VM would make alike."""

    __slots__ = ("functions", "builtins", "tasks", "pads", "decoded", "owner", "positions",
                 "words")

    def __init__(self, program, labels, builtins):
        self.functions = tuple(program.functions)
        self.builtins = builtins
        self.tasks = make_task_closures(program)
        self.pads = {f: FramePads(f) for f in program.functions}
        self.decoded, self.owner, self.positions, self.words = {}, {}, {}, {}
        table = _builtin_table(builtins, labels)
        for f in program.functions:
            code, positions, words = decode_function(f, program, self.tasks, table,
                                                     self.pads, labels)
            self.decoded[f] = code
            self.owner[id(code)] = f
            self.positions[id(code)] = positions
            self.words[id(code)] = words
        link_callees(self.decoded)
        for c in self.tasks.values():       # task values carry their code and pads
            c.code, c.pads = self.decoded[c.func], self.pads[c.func]


def _builtins_of(program, registry):
    """The host registry's entry of each builtin the program's code calls, by index."""
    return tuple(registry[name] for name in program.builtins)


def _builtin_table(entries, labels):
    """Builtin index -> (callable, needs_vm[, labelled wrapper]) for a program's code."""
    builtins = {}
    for i, b in enumerate(entries):
        if b.kind == "vm":
            fn = (_labelled_vm(b.fn, not b.never_raises, not b.owns_errors)
                  if labels else b.fn)
            builtins[i] = (fn, True)
        elif labels:
            # The labels loop calls the builtin itself when no label is involved (no
            # labelled argument, empty pc), else this wrapper.
            builtins[i] = (b.fn, False, b.labelled(b.fn) if b.labelled
                           else _labelled_pure(b.fn, taint=not b.never_raises))
        else:
            builtins[i] = (b.fn, False)
    return builtins


def _same(xs, ys):
    return len(xs) == len(ys) and all(x is y for x, y in zip(xs, ys))


# id(program) -> (weak reference to it, {labels: Decoded}); an entry goes with its program,
# dropped by the reference's callback: a weakref.WeakKeyDictionary's work, without the
# weakref module (with the _weakrefset and types it imports, a twentieth of the start-up
# of `syn exec`: issue 31).
_DECODED = {}


def _modes(program):
    key = id(program)
    entry = _DECODED.get(key)
    if entry is None or entry[0]() is not program:
        def gone(r):
            if _DECODED.get(key, (None,))[0] is r:
                _DECODED.pop(key, None)
        fresh = (_weak(program, gone), {})
        entry = _DECODED.setdefault(key, fresh)     # another thread's, if it was first
        if entry[0]() is not program:       # a gone program's, its callback not yet run
            entry = _DECODED[key] = fresh
    return entry[1]


def _decoded(program, labels, registry):
    """The program decoded for this mode: made once, then shared (a second Program.call
    decodes nothing). Made again if what it was made from changed: the program's functions
    or the builtins its code calls (a VM whose host gives other builtins decodes its own)."""
    builtins = _builtins_of(program, registry)
    modes = _modes(program)
    d = modes.get(labels)
    if d is None or not _same(d.builtins, builtins) or not _same(d.functions,
                                                                 program.functions):
        d = modes[labels] = Decoded(program, labels, builtins)
    return d


# Labels off, a program that loops or calls tasks from tasks runs translated (vm.tier2)
# unless SYN_TIER says otherwise.
DEFAULT_TIER = "auto"


def _tier():
    """SYN_TIER=1: the loop only; 2: every program translated (vm.tier2), as the tests force
    it; auto: a program worth it translated (worth_translating)."""
    t = os.environ.get("SYN_TIER", DEFAULT_TIER)
    return {"1": 1, "2": 2}.get(t, "auto")


# ---- whether a run is worth tier 2, decided without importing it ---------------------------
# vm/tier2.py builds on `ast` (about 8 ms to import, as much as the rest of `syn exec`'s own
# start-up): a straight-line script, which tier 2 would not translate anyway, never imports
# it. Nor are the instruction bodies (vm/tier2_defs.py) imported: which opcodes loop or
# call is generated with them (tools/gen_tier2.py) into the opcode table, vm.optable.


def worth_translating(vm):
    """Does the program loop or call tasks from tasks (so that its run is likely to outlast
    its translation)? A straight-line script (a few builtin and tool calls) stays in the
    loop: it would pay the translation and gain nothing."""
    loops, calls = TIER2_GATE[bool(vm.labels)]
    for f, code in vm.decoded.items():
        for op, _ in code:
            if op in loops or (op in calls and f.kind != "main"):
                return True
    return False


def make_runner(vm, run1, always=False):
    """VM._run: the first run decides (always: SYN_TIER=2) between the loop (run1) and
    vm.tier2.make_runner's run, which then is the VM's run function."""
    state = {}

    def run(vm_, closure, args):
        r = state.get("r")
        if r is None:
            if always or worth_translating(vm):
                from synsema.vm.tier2 import make_runner as tier2_runner
                r = tier2_runner(vm, run1)      # decided here
            else:
                r = run1
            state["r"] = r
        if vm._run is run:
            vm._run = r
        return r(vm_, closure, args)
    return run


def link_callees(decoded):
    """A direct call carries its callee's decoded code, saving a lookup per call
    (decoded: Function -> its code list)."""
    for code in decoded.values():
        for i, (op, a) in enumerate(code):
            at = O.CALLEE_AT.get(op)
            if at is not None:
                callee, slot = at
                code[i] = (op, a[:slot] + (decoded[a[callee]],) + a[slot + 1:])


def _stdout_write(text):
    sys.stdout.write(text)


def _labelled_vm(fn, taint, label_errors=True):
    """Under --labels, a builtin that needs the VM: it sees the labelled arguments itself,
    but whatever error it raises carries their labels, and inside a try their labels
    decide whether it raises (SPEC 10), so they taint the try."""

    def call(vm, *args):
        labels = EMPTY
        for a in args:
            if type(a) is Labeled:
                labels = labels | a.l
        if labels and taint and vm.try_entries:
            vm.taint_try(labels)
        if not labels or not label_errors:
            return fn(vm, *args)
        try:
            return fn(vm, *args)
        except Exception as e:  # noqa: BLE001 - whatever it is, it carries the labels
            err = vm.as_error(e)
            if err.catchable and getattr(err, "from_arguments", True):
                err.labels = err.labels | labels
            if err is e:
                raise
            raise err from None
    call.__name__ = getattr(fn, "__name__", "builtin")
    return call


def _labelled_pure(fn, taint=True):
    """Under --labels, a pure builtin: unwrap the arguments, call, label the result with
    their join and the pc; an error it raises carries the same labels."""

    def call(vm, *args):
        labels = vm.pc
        plain = []
        for a in args:
            if type(a) is Labeled:
                labels = labels | a.l
                plain.append(a.v)
            else:
                plain.append(a)
        if taint and labels and vm.try_entries:
            vm.taint_try(labels)
        try:
            result = fn(*plain)
        except Exception as e:  # noqa: BLE001 - whatever it is, it carries the labels
            err = vm.as_error(e)
            if labels:
                err.labels = err.labels | labels
            if err is e:
                raise
            raise err from None
        if labels:
            return Labeled(result, labels)
        return result
    call.__name__ = getattr(fn, "__name__", "builtin")
    return call

