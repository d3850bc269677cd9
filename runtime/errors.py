"""The errors a host sees (SPEC 16): every failure of a compile or a run, as the API
raises it; `message` is what `syn` prints, `exit_code` the code it exits with (SPEC 13).
The API (synsema.Error, synsema.CompileError, ...) re-exports them.

One hierarchy (vm.errors): the errors a run or a compile can end with are defined there,
and are the same classes here; this module defines only the ones a host alone sees
(UsageError, RunError, ArgumentError, ToolRefused, SourceError)."""

from synsema.vm import errors as E

# Every failure of the API (vm.errors.HostError: message, exit_code, labels,
# host_message, output); a host tool declared wrongly raises synsema.ToolError, one too.
Error = E.HostError


# The compiler's, the loader's and the VM's errors are the host's too (vm.errors: one
# hierarchy): the VM raises LabelViolation, LimitExceeded and InternalError as a run
# unwinds, and the host is given the same class with the report (runtime.run.failure).
CompileError = E.CompileError
InvalidProgram = E.InvalidProgram
Refused = E.Refused
LabelViolation = E.LabelViolation
LimitExceeded = E.LimitExceeded
InternalError = E.InternalError


class SourceError:
    """One error of a source that does not compile: where (line and column, from 1), the
    message (its fix included), and the fix alone (`suggestion`, or None)."""
    __slots__ = ("line", "col", "message", "suggestion")

    def __init__(self, line, col, message, suggestion=None):
        self.line, self.col, self.message, self.suggestion = line, col, message, suggestion

    def __repr__(self):
        return f"SourceError({self.line}, {self.col}, {self.message!r})"

    def __eq__(self, other):
        return isinstance(other, SourceError) and (self.line, self.col, self.message) == (
            other.line, other.col, other.message)

    __hash__ = None


class UsageError(Error, ValueError):
    """A bad setting (cap_set, audit, provider, tools, an unknown task); exit 2."""
    exit_code = 2


class RunError(Error):
    """An uncaught runtime error; its message is withheld when made from labelled data."""


class ArgumentError(RunError):
    """The arguments do not fit the called task (`bad arguments for task 'answer': ...`)."""


class ToolRefused(RunError):
    """An uncaught refusal of a host tool call: its label contract refused an argument
    (SPEC 15.2), or the run did not hold the tool's capability. `tool`: its name;
    `parameter`: the refused parameter (None when the capability was missing, or when a
    tool without parameters was called under a labelled condition); `labels`: the labels
    of the refusal, those the argument carried among them (as every Error's `labels`);
    `accepts`: the labels that parameter accepts (None when the capability was missing);
    `reader`: for a `readers=` refusal, the parameter naming who would read it.
    A RunError, so a host catching RunError keeps working."""

    def __init__(self, message, tool=None, parameter=None, labels=frozenset(),
                 accepts=None, reader=None):
        super().__init__(message)
        self.tool, self.parameter, self.accepts, self.reader = tool, parameter, accepts, reader
        self.labels = frozenset(labels)


# Hosts know these as synsema.api's (tracebacks and pickles name them so), where they
# were defined before the run machinery moved to synsema.runtime.
for _cls in (UsageError, RunError, ArgumentError, ToolRefused, SourceError):
    _cls.__module__ = "synsema.api"
del _cls
