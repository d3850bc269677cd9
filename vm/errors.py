"""Every error of Synsema, in one hierarchy: each defined here, once; the API re-exports
them (synsema.Error, synsema.LimitExceeded, ...), runtime/errors.py adding only the
errors that exist for a host alone.

    HostError (synsema.Error)     what a host sees: message, exit_code, labels
    ├── CompileError              the source does not compile (the compiler's, and the API's
    │   └── PlanRejected            with the report rendered); a plan that does not compile
    ├── InvalidProgram            a .synb the loader refuses
    ├── Refused                   the ceiling does not grant the requires (exit 3)
    ├── LabelViolation  ┐         (also SynErrors, below: the VM raises them, and the host
    ├── LimitExceeded   ├──────    is given the same class, with the report as message)
    ├── InternalError   ┘
    └── runtime.errors            UsageError, RunError (ArgumentError, ToolRefused)
    SynError                      inside a run: an error the program may catch
    ├── CapabilityDenied
    ├── LabelViolation            never caught in the language; exit 3
    ├── LimitExceeded             never caught; exit 4 (a resource limit)
    └── InternalError             never caught; a bug in Synsema, exit 70

An error inside a run is a value the program's `try` may see (when `catchable`) and the
VM unwinds with its trace; the host's error is the report that run ended with:
runtime.run.failure makes it, an instance of the same class for the three that are both
(`reported` true) and a RunError (ToolRefused) for every catchable one. What a host tool
raises -- a synsema.LimitExceeded of a nested run it let out, say -- is that tool's
failure, never the outer run's own limit (stdlib.hosttools).

Exit codes (SPEC section 13), each class's `exit_code`: 1 compile/runtime error, 2 usage,
3 ceiling or label_violation, 4 resource limit, 70 internal error.
"""

from synsema.vm.values import EMPTY     # no labels: one frozenset for the whole VM


class HostError(Exception):
    """synsema.Error: the base of every error the embedding API raises to its host
    (runtime/errors.py subclasses it; a host tool declared wrongly raises
    hosttools.ToolError, one too). Defined here, beneath stdlib/ and runtime/, so all
    can derive from it.
    `message`: the text `syn` prints; `exit_code`: its exit; `labels`: the labels of a run
    error (under labels; empty otherwise); `host_message`: a run error's own message even
    when `message` withholds it -- for the host only."""
    exit_code = 1
    labels = frozenset()
    violation = False
    host_message = None
    output = ""         # Program.call/run: what the run printed before it failed,
    tool_calls = ()     # the host tool calls it made (as Result.tool_calls),
    tokens = 0          # and the model tokens it spent

    def __init__(self, message):
        super().__init__(message)
        self.message = message


# Hosts know it as synsema.Error (tracebacks and pickles name it so; synsema resolves it).
HostError.__module__, HostError.__name__, HostError.__qualname__ = "synsema", "Error", "Error"


class SynError(Exception):
    """A catchable runtime error. `message` is the bare text a `recover` block sees.

    `labels` are the information-flow labels of the values the error was made from
    (only ever non-empty under --labels). `trace` is filled by the VM as the error
    unwinds: a list of (function, line, col) innermost first. Its first `secret_frames`
    entries ran under a labelled pc (--labels): where they were depends on labelled data,
    so reports withhold them (runtime/report.py) unless the ceiling lets out `secret_pc`, the
    labels of that pc.

    `refusal`: for a host tool call that was refused (stdlib.hostcall), (tool, parameter,
    labels it carried, labels it accepts, reader); the embedding API raises
    synsema.ToolRefused for it. None for every other error.

    `catchable`: whether a `try`/`recover` sees it (SPEC, `try`): labels violations, limits and
    internal errors end the run. `reported`: true on the error a run ended with as the
    API gives it to the host (runtime.run.failure: its message is the report), false while
    it unwinds a run.
    """
    exit_code = 1
    catchable = True
    refusal = None
    reported = False

    def __init__(self, message, labels=EMPTY):
        super().__init__(message)
        self.message = message
        self.labels = labels
        self.trace = []          # [(function, line, col)], innermost first
        self.secret_frames = 0
        self.secret_pc = EMPTY
        self.source_name = None


class CapabilityDenied(SynError):
    """A builtin was used without the capability it needs (catchable, exit 1)."""


class LabelViolation(SynError, HostError):
    """Labelled data would reach a sink the host ceiling does not open, or a forbidden
    declassify/upgrade (SPEC 10). Never caught in the language; exit 3. The host is given
    one too (synsema.LabelViolation), its message the report."""
    exit_code = 3
    catchable = False
    violation = True


class LimitExceeded(SynError, HostError):
    """A resource limit was reached: max_steps, timeout, max_depth, max_requests or
    max_tokens (--max-steps, ...), or memory; the message names it (`token limit (500,
    --max-tokens) reached`). Never caught in the language; exit 4. The host is given one
    too (synsema.LimitExceeded), its message the report."""
    exit_code = 4
    catchable = False


class InternalError(SynError, HostError):
    """A Python exception escaped an operation: a bug in Synsema, not in the program;
    exit 70. As the host is given it (synsema.InternalError), `__cause__` is the error
    the run ended with, and that one's `original` the Python exception."""
    exit_code = 70
    catchable = False


for _cls in (LabelViolation, LimitExceeded, InternalError):
    # Hosts know these as synsema.api's (tracebacks and pickles name them so).
    _cls.__module__ = "synsema.api"
del _cls


class CompileError(HostError):
    """A compile error at a position; `message` is written for the reader, fix included.

    Messages say what is wrong, then `; `, then the fix ("did you mean 'x'?", "use let",
    ...): `problem` and `suggestion` are the two parts, for editors (`syn check --json`);
    `suggestion` is None when the message names no fix.

    `errors`: every error the compile found, in source order, this one (the first) among
    them; each a CompileError with its own line, col and message. As the API raises it
    (synsema.CompileError), `message` is the whole report (every error with its position
    and caret) and `errors` lists api.SourceError (line, col, message, suggestion)."""

    def __init__(self, message, line=0, col=0, source_name="<source>", errors=None):
        super().__init__(message)
        self.line = line
        self.col = col
        self.source_name = source_name
        self.problem, _, fix = message.partition("; ")
        self.suggestion = fix or None
        self.errors = [self] if errors is None else list(errors)


# Hosts know it as synsema.CompileError, raised by synsema.api (tracebacks and pickles name it
# so), as InvalidProgram below.
CompileError.__module__ = "synsema.api"


class PlanRejected(CompileError):
    """A plan (SPEC 17) that does not compile: `errors` holds every CompileError found,
    in source order; the message is SPEC's `plan rejected:` then one `LINE:COL: message`
    line per error."""

    def __init__(self, errors):
        first = errors[0]
        lines = "".join(f"\n{e.line}:{e.col}: {e.message}" for e in errors)
        super().__init__("plan rejected:" + lines, first.line, first.col, first.source_name)
        self.errors = errors


class InvalidProgram(HostError):
    """A .synb file that the loader refuses: `reason` says why; as the API raises it
    (synsema.InvalidProgram), `message` is `not a valid .synb: REASON` (exit 1)."""

    def __init__(self, reason, message=None):
        super().__init__(reason if message is None else message)
        self.reason = reason


InvalidProgram.__module__ = "synsema.api"


class Refused(HostError):
    """The program requires capabilities the host ceiling (cap_set, --cap-set) does not
    grant; the program does not start (exit 3). `missing`: those it lacks, as the
    requires say them. The VM raises it with them as its message; the API's message is
    the whole sentence (runtime.run.start)."""
    exit_code = 3

    def __init__(self, message, missing=()):
        super().__init__(message)
        self.missing = list(missing)


Refused.__module__ = "synsema.api"
