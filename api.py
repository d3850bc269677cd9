"""The Python embedding API (SPEC section 16); the `syn` command is built on it.

    import synsema

    prog = synsema.compile_file("agent.syn")     # or synsema.load("agent.synb"),
                                                 #    synsema.compile_source(text, "agent.syn")
    result = prog.call("answer", {"question": "Weather in Lima?"}, labels=True,
                       cap_set="stdout,llm")
    result.value, result.labels, result.output, result.tool_calls, result.tokens

A `Program` is immutable: every call builds its own VM and output buffer, so one program
serves any number of calls from any number of threads at once. Every failure raises a
`synsema.Error` whose `.message` is what `syn` prints for it (a setting named by its
keyword, `cap_set=`, where `syn` names its flag, `--cap-set`) and whose `.exit_code` is
the code `syn` exits with (SPEC 13).

This module keeps its imports cheap: `syn exec` loads it on every start.
"""

import io
import os

from synsema.runtime import run
from synsema.runtime.errors import (ArgumentError, CompileError, Error,  # noqa: F401
                                    InternalError, InvalidProgram, LabelViolation,
                                    LimitExceeded, Refused, RunError, SourceError, ToolRefused,
                                    UsageError)
from synsema.runtime.report import Source, compile_error, printable
from synsema.runtime.run import public_message  # noqa: F401  (re-exported)
from synsema.runtime.threads import OVERTIME, in_big_stack, in_worker  # noqa: F401
from synsema.vm import errors as E

# (Result, Usage, Provider, FunctionModel and TestModel: given by __getattr__, below.)
__all__ = ["compile_file", "compile_source", "load", "Program",
           "Result", "Usage", "Provider", "FunctionModel", "TestModel",  # noqa: F822
           "Error", "CompileError", "SourceError", "InvalidProgram",
           "UsageError", "RunError", "ArgumentError", "ToolRefused", "LabelViolation", "Refused",
           "LimitExceeded", "InternalError"]


# ---- errors ---------------------------------------------------------------------------------
# Every failure of the API is a synsema.Error: the message `syn` prints and the code it
# exits with (exit_code, SPEC 13). One hierarchy, each class defined once in vm.errors
# (runtime.errors adds the host's own), re-exported above.

# ---- loading --------------------------------------------------------------------------------

# The most a program file (.syn or .synb) may hold. Read bounded: a path can name a device
# or pipe that never ends (/dev/zero), and a file is read whole before anything else.
MAX_PROGRAM_BYTES = 16 * 1024 * 1024


def _read_program(path):
    # open() takes an int as a file descriptor, and would close the host's when done.
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise UsageError(f"usage error: a program path must be a str or a path, got "
                         f"{type(path).__name__}")
    with open(path, "rb") as fh:
        data = fh.read(MAX_PROGRAM_BYTES + 1)
    if len(data) > MAX_PROGRAM_BYTES:
        import errno
        raise OSError(errno.EFBIG, f"it holds more than the {MAX_PROGRAM_BYTES // 2**20} MiB "
                                   "a program file may hold")
    return data


def compile_file(path):
    """Compile a .syn file to a Program. Raises CompileError, or OSError when the file
    cannot be read (or is larger than MAX_PROGRAM_BYTES)."""
    data = _read_program(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        message = f"the file is not valid UTF-8 (byte {e.start}); save it as UTF-8"
        err = CompileError(f"{path}:{line}: error: {message}", line, col, path,
                           errors=[SourceError(line, col, message, "save it as UTF-8")])
        err.problem, err.suggestion = message, "save it as UTF-8"
        raise err from None
    # The program (and its .synb) names the file alone; errors show the path as given.
    return _compile(text.removeprefix("\ufeff"), os.path.basename(path), path, text)


def compile_source(text, name="<source>"):
    """Compile Synsema source text to a Program; `name` is the file name errors show."""
    if not isinstance(text, str):
        raise UsageError(f"usage error: compile_source needs the source as a text (str), got "
                         f"{type(text).__name__}"
                         + (" (decode it first, or use compile_file)" if isinstance(
                             text, (bytes, bytearray)) else ""))
    if not isinstance(name, str):
        raise UsageError(f"usage error: compile_source: name= must be a text, got "
                         f"{type(name).__name__}")
    return _compile(text, name, name)


def _compile(text, name, shown, as_read=None):
    from synsema.compiler import compile_source as compile_text
    source = Source(shown, text, as_read)   # split when a caret wants a line; as_read: syn fmt
    try:
        return Program(compile_text(text, name), source)
    except E.CompileError as e:
        e.source_name = shown
        err = CompileError(compile_error(e, source).rstrip("\n"), e.line, e.col, shown,
                           errors=[SourceError(x.line, x.col, x.message, x.suggestion)
                                   for x in e.errors])
        err.problem, err.suggestion = e.problem, e.suggestion     # the first error's
        raise err from None


def load(path):
    """Load a compiled .synb file (verified before it is used). Raises InvalidProgram, or
    OSError when the file cannot be read (or is larger than MAX_PROGRAM_BYTES)."""
    from synsema.vm.codec import decode
    data = _read_program(path)
    try:
        program = decode(data)
    except E.InvalidProgram as e:
        if _looks_like_source(path, data):
            raise InvalidProgram(e.reason, "not a valid .synb: the file holds text (Synsema "
                                 "source?), not a compiled program: run a source with `syn "
                                 "run`, or compile it first (`syn compile`; "
                                 "synsema.compile_file from Python)") from None
        raise InvalidProgram(e.reason, f"not a valid .synb: {printable(e.reason)}") from None
    return Program(program, Source.beside(path, program.source_name))


def _looks_like_source(path, data):
    """A .syn file given where a .synb belongs: by its name, or text where the format's
    magic would be (a .synb is a msgpack array starting with it)."""
    from synsema.vm.codec import MAGIC
    if str(path).endswith(".syn"):
        return True
    if MAGIC in data[:16] or not data.strip() or b"\0" in data[:4096]:
        return False
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start > 4090       # a character cut at the end of the sample
    return True


# ---- results and providers ------------------------------------------------------------------

# Result and Usage (api_results), Provider, FunctionModel and TestModel (runtime.providers):
# given here on first use (__getattr__), so that `syn exec` of a program that calls no
# model loads neither (issue 31).
_LAZY = {"Result": "synsema.api_results", "Usage": "synsema.api_results",
         "Provider": "synsema.runtime.providers", "FunctionModel": "synsema.runtime.providers",
         "TestModel": "synsema.runtime.providers"}


def __getattr__(name):
    if name == "_usage":                    # (an old name, as below)
        from synsema.api_results import usage_of
        return usage_of
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'synsema.api' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


# ---- programs -------------------------------------------------------------------------------

class Program:
    """A compiled, verified program (immutable). `call` and `run` build a fresh VM each
    time; `name` is its source file name, `tasks` the names of its tasks; `compiled` and
    `source` what it was made from (for tools built on the API, as `syn` is)."""
    __slots__ = ("_program", "_source")

    def __init__(self, program, source):
        object.__setattr__(self, "_program", program)
        object.__setattr__(self, "_source", source)

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.Program is immutable")

    def __repr__(self):
        return f"<synsema.Program {self.name} tasks=[{', '.join(self.tasks)}]>"

    @property
    def name(self):
        return self._program.source_name

    @property
    def tasks(self):
        return tuple(f.name for f in self._program.tasks())

    @property
    def compiled(self):
        """The compiled program (a vm.program.Program: its code, tasks, requires, intent),
        as a .synb holds it (vm.codec.encode writes one); read it, never change it."""
        return self._program

    @property
    def source(self):
        """The source it was compiled from (a runtime.report.Source: `name` as errors show
        it, `lines` for their carets, `text` as read by compile_file); for a loaded .synb
        the source beside it, its `lines` None when there is none."""
        return self._source

    def call(self, task, args=None, *, tools=None, cap_set=None, labels=False,
             provider=None, max_steps=None, timeout=None, max_depth=1000, args_labels=(),
             audit=None, trace=False, mcp_servers=None, max_requests=None, max_tokens=None,
             tracer_provider=None, _box=None):
        """Run the top-level statements, then call `task` with the named arguments in the
        dict `args`, checked as call_tool checks them (SPEC 5); the task runs with the
        program's capabilities. Returns a Result.

        tools: host tools (a decorated function, a list of them, a synsema.Toolbox).
        cap_set: the host ceiling as `syn --cap-set` takes it ("stdout,llm,tool=*"); None
        is developer mode. labels: track information-flow labels. provider: None (from
        the environment), a synsema.Provider or a synsema.FunctionModel. max_steps,
        timeout (seconds), max_depth, max_requests (model requests), max_tokens (model
        tokens): limits of this run; one reached raises LimitExceeded. args_labels: labels put on every argument (under labels). audit: a file
        to append the audit lines to. trace: model decisions and tool calls to stderr.
        mcp_servers: {NAME: command line, URL or settings map}, each server's tools
        host tools NAME.TOOL for this call (docs/mcp.md). tracer_provider: the
        OpenTelemetry TracerProvider for this call's spans; None: the global one, when
        the host set one (docs/observability.md)."""
        if not isinstance(task, str):
            raise UsageError("usage error: call needs the name of a task, as a text, got "
                             f"{type(task).__name__} (run() runs the top level only)")
        return self._result(task, args, tools=tools, cap_set=cap_set, labels=labels,
                            provider=provider, max_steps=max_steps, timeout=timeout,
                            max_depth=max_depth, args_labels=args_labels, audit=audit,
                            trace=trace, mcp_servers=mcp_servers, max_requests=max_requests,
                            max_tokens=max_tokens, tracer_provider=tracer_provider, _box=_box)

    def run(self, *, tools=None, cap_set=None, labels=False, provider=None, max_steps=None,
            timeout=None, max_depth=1000, audit=None, trace=False, mcp_servers=None,
            max_requests=None, max_tokens=None, tracer_provider=None, _box=None):
        """Run the top-level statements only (the keywords of `call`); result.value is
        None."""
        return self._result(None, None, tools=tools, cap_set=cap_set, labels=labels,
                            provider=provider, max_steps=max_steps, timeout=timeout,
                            max_depth=max_depth, audit=audit, trace=trace,
                            mcp_servers=mcp_servers, max_requests=max_requests,
                            max_tokens=max_tokens, tracer_provider=tracer_provider, _box=_box)

    async def call_async(self, task, args=None, **settings):
        """`await prog.call_async(...)`: `call` (the same keywords) without blocking the
        event loop. The run works in a thread of its own; its `async def` host tools run
        on this (the caller's) event loop, its plain ones in that thread. Cancelling the
        await (asyncio.wait_for's timeout, task.cancel()) gives the run up: it stops at
        its next step, a tool coroutine it is awaiting is cancelled (and recorded as a
        failed call), and the CancelledError reaches the caller once the run has ended."""
        return await self._in_worker(lambda box: self.call(task, args, _box=box,
                                                           **settings))

    async def run_async(self, **settings):
        """`await prog.run_async(...)`: `run` as call_async is `call`."""
        return await self._in_worker(lambda box: self.run(_box=box, **settings))

    async def _in_worker(self, work):
        return await in_worker(work)

    def _result(self, task, args, _box=None, **settings):
        from synsema.api_results import Result, usage_of
        buffer = io.StringIO()
        if task is not None:
            args = run.python_args(self._program, task, args)
        box = {} if _box is None else _box
        try:
            vm, raw = self._execute(task, args, buffer.write, box=box, **settings)
        except Error as e:
            # What the run printed and did before it failed: the host's own record, as a
            # Result would have it (the host gave the tools).
            e.output = buffer.getvalue()
            failed = box.get("vm")
            e.tool_calls = list(getattr(failed, "tool_calls", []))
            e.tokens = getattr(failed, "tokens_used", 0)
            e.usage = usage_of(failed)
            raise
        try:
            value, labels = run.python_value(self._program, task, raw)
        except RunError as e:
            e.output = buffer.getvalue()
            raise
        return Result(value, labels, buffer.getvalue(), list(getattr(vm, "tool_calls", [])),
                      vm.tokens_used, usage_of(vm))

    def _execute(self, task, args, out, **settings):
        # (runtime.run.execute: what `syn` runs, through program.compiled and .source)
        return run.execute(self._program, self._source, task, args, out, **settings)


# The names this module used before the run machinery moved to synsema.runtime, for code
# written against them.
_options, _release, _start, _failure = run.options, run.release, run.start, run.failure
_in_big_stack, _OVERTIME = in_big_stack, OVERTIME
_label_set, _write_result = run.label_set, run.write_result
_reaches_model, _tracer_provider = run.reaches_model, run.find_tracer_provider
# (and _usage: __getattr__)
