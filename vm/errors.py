"""Every error of Synsema, in one hierarchy (the API re-exports it: synsema.Error, ...).

    HostError (synsema.Error)     what a host sees: message, exit_code, labels
    ├── CompileError              the source does not compile (the compiler's, and the API's
    │   └── PlanRejected            with the report rendered); a plan that does not compile
    ├── InvalidProgram            a .synb the loader refuses
    └── runtime.errors            UsageError, RunError (ArgumentError, ToolRefused),
                                  LabelViolation, Refused, LimitExceeded, InternalError
    SynError                      inside a run: an error the program may catch
    ├── CapabilityDenied
    ├── LabelViolation            never caught; the host sees synsema.LabelViolation
    ├── LimitReached              never caught; the host sees synsema.LimitExceeded
    └── InternalError             a bug in Synsema; the host sees synsema.InternalError
    StartRefused                  the ceiling does not grant the requires; synsema.Refused

An error inside a run is a value the program's `try` may see and the VM unwinds with its
trace; the host's error is the report that run ended with (runtime.run.failure makes it).
They stay apart so that what a host tool raises (a nested run's synsema.LimitExceeded,
say) is that tool's failure, never the outer run's own limit.

Exit codes (SPEC section 13): 1 compile/runtime error, 2 usage, 3 ceiling or
label_violation, 4 resource limit, 70 internal error.
"""

from synsema.vm.values import EMPTY     # no labels: one frozenset for the whole VM


class HostError(Exception):
    """synsema.Error: the base of every error the embedding API raises to its host
    (api.py subclasses it; a host tool declared wrongly raises hosttools.ToolError, one
    too). Defined here, beneath stdlib/ and api.py, so both can derive from it.
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
    """
    exit_code = 1
    catchable = True
    refusal = None

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


class LabelViolation(SynError):
    """Labelled data would reach a sink, or a forbidden declassify/upgrade. Never caught."""
    exit_code = 3
    catchable = False


class LimitReached(SynError):
    """A resource limit (--max-steps, --timeout, --max-depth). Never caught; exit 4."""
    exit_code = 4
    catchable = False


class InternalError(SynError):
    """A Python exception escaped an operation: a bug in Synsema, exit 70."""
    exit_code = 70
    catchable = False


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


class StartRefused(Exception):
    """The program's requires exceed the host ceiling (exit 3). `missing` lists them."""

    def __init__(self, missing):
        super().__init__(", ".join(missing))
        self.missing = missing
