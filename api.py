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

import errno
import io
import os
import queue
import sys
import threading
import time
from collections import namedtuple

from synsema.cli.options import MAX_DEPTH
from synsema.cli.report import Source, compile_error, printable, runtime_error, shown_message
from synsema.vm import errors as E
from synsema.vm.pystack import deep_recursion
from synsema.vm.values import UNSET, Closure, Labeled

__all__ = ["compile_file", "compile_source", "load", "Program", "Result", "Usage", "Provider",
           "FunctionModel", "TestModel", "Error", "CompileError", "SourceError", "InvalidProgram",
           "UsageError", "RunError", "ArgumentError", "ToolRefused", "LabelViolation", "Refused",
           "LimitExceeded", "InternalError"]


# ---- errors ---------------------------------------------------------------------------------

# Every failure of the API (vm.errors.HostError: message, exit_code, labels,
# host_message, output); a host tool declared wrongly raises synsema.ToolError, one too.
Error = E.HostError


class CompileError(Error):
    """The source does not compile (or is not UTF-8); the message has every error found,
    each with its position and caret; `line` is the first one's line, and `errors` lists
    them all in source order (SourceError: line, col, message, suggestion)."""
    line = None

    def __init__(self, message, line=None, errors=()):
        super().__init__(message)
        self.line = line
        self.errors = list(errors)


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


class InvalidProgram(Error):
    """A .synb file the loader refuses: `not a valid .synb: REASON`."""


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


class LabelViolation(Error):
    """Labelled data would have reached a sink the host ceiling does not open (SPEC 10)."""
    exit_code = 3


class Refused(Error):
    """The program requires capabilities the ceiling (cap_set) does not grant."""
    exit_code = 3


class LimitExceeded(Error):
    """max_steps, timeout, max_depth, max_requests or max_tokens was reached; the message
    names it (`token limit (500, --max-tokens) reached`)."""
    exit_code = 4


class InternalError(Error):
    """A bug in Synsema, not in the program; `__cause__` is the internal error."""
    exit_code = 70


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
        raise CompileError(f"{path}:{line}: error: {message}", line,
                           [SourceError(line, col, message, "save it as UTF-8")]) from None
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
        raise CompileError(compile_error(e, source).rstrip("\n"), e.line,
                           [SourceError(x.line, x.col, x.message, x.suggestion)
                            for x in e.errors]) from None


def load(path):
    """Load a compiled .synb file (verified before it is used). Raises InvalidProgram, or
    OSError when the file cannot be read (or is larger than MAX_PROGRAM_BYTES)."""
    from synsema.vm.codec import decode
    data = _read_program(path)
    try:
        program = decode(data)
    except E.InvalidProgram as e:
        if _looks_like_source(path, data):
            raise InvalidProgram("not a valid .synb: the file holds text (Synsema source?), "
                                 "not a compiled program: run a source with `syn run`, or "
                                 "compile it first (`syn compile`; synsema.compile_file "
                                 "from Python)") from None
        raise InvalidProgram(f"not a valid .synb: {printable(e.reason)}") from None
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

class Usage(namedtuple("Usage", "requests input_tokens output_tokens total_tokens")):
    """The model usage of a run (after Pydantic AI's RunUsage): requests made (a replayed
    one too), input and output tokens where the provider reports them (None where it
    does not), and total_tokens, the run's llm_tokens_used()."""
    __slots__ = ()


class Result(namedtuple("Result", "value labels output tool_calls tokens")):
    """What a call returned (immutable).

    value: the task's result as a Python value (None for `run`); labels: the labels on
    it, a frozenset of label names (empty without labels=True; the same type as
    synsema.Error.labels); output: everything the run printed;
    tool_calls: [(name, args, outcome)] of the host tools called, in order; tokens: the
    model tokens used (llm_tokens_used() at the end); usage: a synsema.Usage, the same
    tokens split into input and output, and the number of model requests. (`usage` is
    not one of the tuple's fields: a Result still unpacks into five.)"""

    def __new__(cls, value, labels, output, tool_calls, tokens, usage=None):
        self = super().__new__(cls, value, labels, output, tool_calls, tokens)
        object.__setattr__(self, "usage", usage or Usage(0, None, None, tokens))
        return self

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.Result is immutable")


def _usage(vm):
    """The Usage of a run's VM (None: the run never started)."""
    if vm is None:
        return Usage(0, None, None, 0)
    llm = vm.llm
    if llm is None:
        return Usage(0, None, None, vm.tokens_used)
    return Usage(llm.requests, llm.tokens_in, llm.tokens_out, vm.tokens_used)


class Provider:
    """The model provider of a run, given explicitly (the environment is not read):
    `Provider(url="http://localhost:11434", model="llama3.2")`; `Provider()` is offline.
    api is "openai" or "anthropic" (inferred from the URL when absent); cassette and
    cassette_mode ("record", "replay", "auto") record or replay model exchanges."""
    __slots__ = ("url", "api", "model", "key", "cassette", "cassette_mode", "_config")

    def __init__(self, url=None, api=None, model=None, key=None, cassette=None,
                 cassette_mode=None):
        fields = dict(url=url, api=api, model=model, key=key, cassette=cassette,
                      cassette_mode=cassette_mode)
        for k, v in fields.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_config", _provider_config(**fields))

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.Provider is immutable")

    def __repr__(self):
        shown = [f"{k}={getattr(self, k)!r}" for k in ("url", "api", "model", "cassette",
                                                       "cassette_mode") if getattr(self, k)]
        if self.key:
            shown.append("key=[key]")          # never the key itself
        return f"Provider({', '.join(shown)})"


def _provider_config(url, api, model, key, cassette, cassette_mode):
    """The stdlib.llm LLMConfig of a Provider (None: offline), built from its fields alone,
    with errors that name the keyword rather than the CLI flag."""
    from synsema.stdlib.llm.config import APIS, CASSETTE_MODES, check_url, config_from

    def bad(text):
        return UsageError(f"usage error: synsema.Provider: {text}")
    for k, v in (("url", url), ("api", api), ("model", model), ("key", key),
                 ("cassette_mode", cassette_mode), ("cassette", cassette)):
        if v is not None and not (isinstance(v, str) or (k == "cassette" and
                                                         isinstance(v, os.PathLike))):
            raise bad(f"{k}= must be a text, got {type(v).__name__}")
    if api is not None and api not in APIS:
        raise bad(f"api must be 'openai' or 'anthropic', got {api!r}")
    if cassette_mode is not None and cassette_mode not in CASSETTE_MODES:
        raise bad(f"cassette_mode must be 'record', 'replay' or 'auto', got {cassette_mode!r}")
    if key and url is None and api is None:
        raise bad("key= needs url= or api= to say which provider it is for")
    if cassette_mode is not None and cassette is None:
        raise bad(f"cassette_mode={cassette_mode!r} needs a cassette file: give cassette=FILE")
    try:
        if url is not None:
            check_url(url, "url")
        return config_from({"SYN_LLM_KEY": key} if key else {}, url=url, api=api,
                           model=model, cassette=cassette, cassette_mode=cassette_mode)
    except ValueError as e:
        raise bad(str(e)) from None


class FunctionModel:
    """A model in process, for tests: `function(messages, info)` answers every model call
    of a run (llm_step, ask, summarize, classify, extract, a planner's prompt) through the
    same provider path a real model's answer takes (argument conversion, labels, tokens,
    cassettes, --trace). Named and shaped after Pydantic AI's FunctionModel: `messages`
    is the thread (dicts with "role" and "content"; "tool_calls" of an assistant tool
    step; "id" and "name" of a tool result), `info` a synsema.AgentInfo (function_tools,
    op, model_name); it returns a text, a synsema.ToolCallPart, a list of parts or a
    synsema.ModelResponse (docs/embedding.md). A ceiling names its host `function`
    (llm@function, llm=LABEL@function)."""
    __slots__ = ("function", "model_name", "cassette", "cassette_mode", "_config")

    def __init__(self, function, *, model_name=None, cassette=None, cassette_mode=None):
        from synsema.stdlib.llm.config import CASSETTE_MODES
        from synsema.stdlib.llm.function import FunctionConfig

        def bad(text):
            return UsageError(f"usage error: synsema.FunctionModel: {text}")
        if not callable(function):
            raise bad(f"function must be callable as function(messages, info), got "
                      f"{type(function).__name__}")
        if model_name is None:
            model_name = "function:" + getattr(function, "__name__", type(function).__name__)
        if not isinstance(model_name, str) or not model_name.strip():
            raise bad(f"model_name= must be a non-empty text, got {model_name!r}")
        if cassette is not None and not isinstance(cassette, (str, os.PathLike)):
            raise bad(f"cassette= must be a file path, got {type(cassette).__name__}")
        if cassette_mode is not None and cassette_mode not in CASSETTE_MODES:
            raise bad(f"cassette_mode must be 'record', 'replay' or 'auto', got "
                      f"{cassette_mode!r}")
        if cassette_mode is not None and cassette is None:
            raise bad(f"cassette_mode={cassette_mode!r} needs a cassette file: give "
                      "cassette=FILE")
        fields = dict(function=function, model_name=model_name, cassette=cassette,
                      cassette_mode=cassette_mode)
        for k, v in fields.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_config", FunctionConfig(
            function, model_name, None if cassette is None else os.fspath(cassette),
            cassette_mode or "auto"))

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.FunctionModel is immutable")

    def __repr__(self):
        shown = f"FunctionModel({self.model_name!r}"
        if self.cassette:
            shown += f", cassette={self.cassette!r}"
        return shown + ")"


class TestModel(FunctionModel):
    """A model for tests that needs no function (after Pydantic AI's TestModel): the first
    llm_step with tools calls each tool in `call_tools` ("all", or a list of names) once,
    with sample arguments of the declared types ("a", 0, false, [], {}); every other call
    answers `custom_output_text`, else a JSON object of the tool results in the thread,
    else "success (no tool calls)". classify needs a custom_output_text that is one of
    its options."""
    __slots__ = ("call_tools", "custom_output_text")
    __test__ = False            # not a pytest test class

    def __init__(self, *, call_tools="all", custom_output_text=None, model_name="test",
                 cassette=None, cassette_mode=None):
        from synsema.stdlib.llm.function import test_answer
        if call_tools != "all" and not (isinstance(call_tools, (list, tuple)) and all(
                isinstance(n, str) for n in call_tools)):
            raise UsageError("usage error: synsema.TestModel: call_tools must be \"all\" or "
                             f"a list of tool names, got {call_tools!r}")
        if custom_output_text is not None and not isinstance(custom_output_text, str):
            raise UsageError("usage error: synsema.TestModel: custom_output_text must be a "
                             f"text, got {type(custom_output_text).__name__}")
        names = call_tools if call_tools == "all" else tuple(call_tools)
        object.__setattr__(self, "call_tools", names)
        object.__setattr__(self, "custom_output_text", custom_output_text)
        super().__init__(lambda messages, info: test_answer(messages, info, names,
                                                            custom_output_text),
                         model_name=model_name, cassette=cassette, cassette_mode=cassette_mode)

    def __repr__(self):
        return (f"TestModel(call_tools={self.call_tools!r}, "
                f"custom_output_text={self.custom_output_text!r})")


_ENV_SETTINGS = ("SYN_LLM_URL", "SYN_LLM_API", "SYN_LLM_MODEL", "SYN_LLM_KEY",
                 "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SYN_LLM_CASSETTE",
                 "SYN_LLM_CASSETTE_MODE")


def _env_provider(flags):
    """provider=None: the stdlib.llm Provider the environment (and the CLI's --llm-*
    flags, `flags`) describe, or None when offline."""
    env = os.environ
    if not any(flags.values()) and not any(env.get(k) for k in _ENV_SETTINGS):
        return None        # offline: do not even import the provider code
    from synsema.stdlib.llm import Provider as LLMProvider, config_from
    try:
        config = config_from(dict(env), **flags)
    except ValueError as e:
        raise UsageError(f"usage error: {e}") from None
    return LLMProvider(config) if config is not None else None


def _reaches_model(program):
    """Does the program `require llm`, at the top level or in a task?"""
    return any(c[0] == "llm" for f in [program, *program.functions] for c in f.requires)


def _llm_for(program, provider, flags):
    """The provider a run talks to. Read only for a program that can reach a model at all
    (_reaches_model): a shell with both OPENAI_API_KEY and ANTHROPIC_API_KEY set must not
    stop a program that never calls a model."""
    if provider is not None and not isinstance(provider, (Provider, FunctionModel)):
        raise UsageError("usage error: provider must be a synsema.Provider, a "
                         f"synsema.FunctionModel or None, got {type(provider).__name__}")
    if not _reaches_model(program):
        return None
    if provider is None:
        return _env_provider(flags or {})
    if provider._config is None:
        return None
    from synsema.stdlib.llm import Provider as LLMProvider
    return LLMProvider(provider._config)        # one per run: its session is its own


# ---- running --------------------------------------------------------------------------------

def _options(program, out, tools=None, cap_set=None, labels=False, provider=None,
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
        from synsema.stdlib.hosttools import ToolError, collect
        try:
            host_tools = collect(tools)
        except ToolError as e:
            raise UsageError(f"usage error: {e}") from None
    llm = _llm_for(program, provider, llm_flags)
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
    tracing = _tracer_provider(tracer_provider)
    if tracing is not None:
        from synsema.stdlib.otel import Spans
        extra["spans"] = Spans(tracing)
    opts = Options(labels=bool(labels), ceiling=ceiling, max_steps=max_steps,
                   timeout=timeout, max_depth=max_depth or 1000, audit=log, llm=llm,
                   trace=trace, out=out, **extra)
    opts.from_cli = cli         # for _start's and _start_mcp's messages
    opts.mcp = _start_mcp(program, mcp_servers, opts) if mcp_servers else None
    return opts


def _tracer_provider(given):
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


def _release(opts):
    """Stop what a run's options started: its MCP servers, then its audit file."""
    if opts.mcp is not None:
        opts.mcp.close()
    if opts.audit is not None:
        opts.audit.close()


def _start_mcp(program, mcp_servers, opts):
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


def _start(program, opts):
    """A VM for one run; Refused when the ceiling does not grant what the program needs."""
    from synsema.vm.machine import VM
    try:
        return VM(program, opts)
    except E.StartRefused as e:
        flag = "--cap-set" if opts.from_cli else "cap_set="
        raise Refused("error: the program requires capabilities the host ceiling "
                      f"({flag}) does not grant: {', '.join(e.missing)}; the program "
                      "does not start") from None


def _failure(e, source, ceiling=None):
    """The API error for an error that ended a run, with the report `syn` prints (what
    the run's host ceiling lets out shown, SPEC 10)."""
    from synsema.vm.machine import InternalError as Bug
    text = runtime_error(e, source, ceiling).rstrip("\n")
    if isinstance(e, Bug):
        err = InternalError(text + "\ninternal error: this is a bug in syn, not in your "
                            "program; please report it with the program that shows it")
    elif isinstance(e, E.LabelViolation):
        err = LabelViolation(text)
    elif isinstance(e, E.LimitReached):
        err = LimitExceeded(text)
    elif e.refusal is not None:
        tool, parameter, _, accepts, reader = e.refusal
        err = ToolRefused(text, tool, parameter, accepts=accepts, reader=reader)
    else:
        err = RunError(text)
    # Where a labelled error happened (its position, the call stack) can depend on the
    # data: a host that passes errors on to another sink (syn batch, syn serve) checks
    # `labels` first and withholds the whole report (see `public_message`).
    err.labels = frozenset(e.labels) if e.catchable or isinstance(e, E.LabelViolation) \
        else frozenset()
    err.violation = isinstance(e, E.LabelViolation)
    # The host's own view of the message, labelled data included (a host tool's refusal
    # names the parameter and labels): kept off the exception's text and its chain, so a
    # traceback or a log line never shows it; pass it to no sink.
    err.host_message = e.message
    return err


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


_stack_lock = threading.Lock()


# How long past its deadline a run may go before the one operation it is in (an
# arithmetic on a number of millions of digits, say) is given up on; the threads given up
# on (the `syn` command exits at once rather than wait for them at exit).
_OVERTIME = 2.0
_abandoned = []


class _HostThread:
    """The host's side of a run in the VM's thread: host tool calls the run posts (from
    stdlib.hosttools.on_host_thread) are run here, on the thread that called, one at a
    time, while it waits for the run to end."""
    DONE = object()

    def __init__(self):
        self.queue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.closed = False

    def post(self, fn, kwargs):
        """In the VM's thread: run fn(**kwargs) on the host's thread and give its result
        (or raise what it raised)."""
        reply = {"done": threading.Event()}
        with self.lock:
            if self.closed:         # the host gave up on the run (its time limit)
                raise E.LimitReached("the run was given up on; no more host tool calls")
            self.queue.put((fn, kwargs, reply))
        # A call the host took but never ran (interrupted between taking and running it)
        # would leave this thread waiting for good: it looks again now and then.
        while not reply["done"].wait(0.25):
            if self.closed:
                raise E.LimitReached("the run was given up on; no more host tool calls")
        if "error" in reply:
            raise reply["error"]
        return reply["value"]

    def serve(self, item):
        fn, kwargs, reply = item
        try:
            reply["value"] = fn(**kwargs)
        except BaseException as e:  # noqa: BLE001 - raised in the VM's thread, as if there
            reply["error"] = e
        finally:
            reply["done"].set()

    def close(self):
        """No more calls will be served: the ones waiting fail, later ones are refused."""
        with self.lock:
            self.closed = True
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return
            if item is not self.DONE:
                item[2]["error"] = E.LimitReached("the run was given up on; no more host "
                                                  "tool calls")
                item[2]["done"].set()


def _in_big_stack(fn, vm=None):
    """Run fn in a thread with a large stack, so deep (but limited) Synsema recursion
    through builtins never overflows the C stack; re-raise what it raised. Host tools the
    run calls run on this (the caller's) thread meanwhile (_HostThread), unless the run
    has a time limit.

    `vm`: the VM fn runs, whose --timeout the loop checks between instructions. One
    instruction can outlast it (Python cannot interrupt arithmetic on huge numbers): when
    the run is still going _OVERTIME seconds after its deadline, the time limit is raised
    here, and the thread (a daemon, so the process can still exit) is left to finish."""
    from synsema.stdlib.hosttools import _VM_THREAD
    box = {}
    host = _HostThread()
    # call_async/run_async: the caller's event loop, where `async def` tools run
    # (hosttools.run_awaitable); given up on at the deadline or when the run is.
    loop = getattr(_VM_THREAD, "loop", None)

    def gone():
        return vm is not None and (vm.abandoned or (
            vm.deadline is not None and time.monotonic() > vm.deadline))
    # With a time limit, tools stay in the VM's thread: this one must be free to give up
    # on a tool that blocks past the limit (Python cannot interrupt another thread).
    watch = vm is not None and vm.timeout is not None

    def target():
        if not watch:
            _VM_THREAD.post = host.post
        _VM_THREAD.loop, _VM_THREAD.gone = loop, gone
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the caller's thread
            box["error"] = e
        finally:
            host.queue.put(host.DONE)

    with deep_recursion():
        # threading.stack_size is process-wide: set, start and restore under one lock, so
        # runs started from several threads at once never restore each other's value.
        with _stack_lock:
            old = threading.stack_size()
            try:
                threading.stack_size(512 * 1024 * 1024)
            except (ValueError, RuntimeError):
                t = None
            else:
                try:
                    t = threading.Thread(target=target, name="synsema", daemon=True)
                    t.start()
                finally:
                    threading.stack_size(old)
        if t is None:
            return fn()
        try:
            while True:
                try:
                    item = host.queue.get(timeout=0.25 if watch else None)
                except queue.Empty:
                    deadline = vm.deadline
                    if deadline is not None and time.monotonic() > deadline + _OVERTIME:
                        # The run may act no more: its next check (a loop's limit, a
                        # capability, a host tool) ends it. `syn` exits at once
                        # (cli/entry.py).
                        vm.abandoned = True
                        _abandoned[:] = [x for x in _abandoned if x.is_alive()] + [t]
                        raise vm.time_limit(" in one operation that could not be stopped "
                                            "(it goes on in the background)") from None
                    continue
                if item is host.DONE:
                    break
                host.serve(item)
        except BaseException:
            # Ctrl-C or the time limit: the run is left behind, and may act no more (its
            # next loop check, effect or tool call ends it).
            if vm is not None:
                vm.abandoned = True
            host.close()
            raise
        t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


class Program:
    """A compiled, verified program (immutable). `call` and `run` build a fresh VM each
    time; `name` is its source file name, `tasks` the names of its tasks."""
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
        import asyncio
        loop = asyncio.get_running_loop()
        box = {}

        def worker():
            from synsema.stdlib.hosttools import _VM_THREAD
            _VM_THREAD.loop = loop
            try:
                return work(box)
            finally:
                _VM_THREAD.loop = None
        future = loop.run_in_executor(None, worker)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            vm = box.get("vm")
            if vm is not None:
                vm.abandoned = True         # its next step, effect or tool call ends it
            # Wait for the run to stop, so no tool is left running unseen.
            try:
                await asyncio.wait_for(asyncio.shield(future), _OVERTIME * 5)
            except BaseException:  # noqa: BLE001 - the run's own end (given up) is expected
                pass
            raise

    def _result(self, task, args, _box=None, **settings):
        buffer = io.StringIO()
        if task is not None:
            args = self._python_args(task, args)
        box = {} if _box is None else _box
        try:
            vm, raw = self._execute(task, args, buffer.write, box=box, **settings)
        except Error as e:
            # What the run printed and did before it failed: the host's own record, as a
            # Result would have it (the host gave the tools).
            e.output = buffer.getvalue()
            run = box.get("vm")
            e.tool_calls = list(getattr(run, "tool_calls", []))
            e.tokens = getattr(run, "tokens_used", 0)
            e.usage = _usage(run)
            raise
        value, labels = raw, frozenset()
        if type(raw) is Labeled:
            value, labels = raw.v, frozenset(raw.l)
        if value is not None:
            from synsema.stdlib.pyvalues import Unholdable, to_python
            try:
                value = to_python(value)
            except Unholdable as e:
                err = RunError(f"{printable(self.name)}: error: the result of task "
                               f"'{printable(task)}' cannot leave the program: it holds "
                               f"{printable(e.render())}")
                # Whether a labelled result holds a task value (or two keys Python would
                # merge) depends on the data: the error is as labelled as the result (a sink withholds it, public_message).
                err.labels = labels
                err.output = buffer.getvalue()
                raise err from None
        return Result(value, labels, buffer.getvalue(), list(getattr(vm, "tool_calls", [])),
                      vm.tokens_used, _usage(vm))

    def _python_args(self, task, args):
        """The Synsema map of a Python dict of arguments, converted by the rules every
        value crossing the boundary follows (stdlib.pyvalues)."""
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
        raise ArgumentError(f"{printable(self.name)}: error: bad arguments for task "
                            f"'{printable(task)}': {printable(said)}")

    def _execute(self, task, args, out, *, args_labels=(), llm_flags=None, result_to=None,
                 box=None, result_on_stdout=False, **settings):
        """One run: the top level, then (task not None) the task called with the Synsema
        map `args`. Returns (vm, the raw result). `out` receives what print writes (the CLI
        streams it); with `result_to`, a result other than nothing is written to it as a
        line of JSON, a stdout sink under labels (`syn --call`). `box`, a dict, gets the VM
        as soon as it exists, so a caller can read the tokens and tool calls of a run that
        failed half-way (`syn batch` counts them against its budget)."""
        prog = self._program
        index = self._task_index(task) if task is not None else None
        labels = settings.get("labels")
        if isinstance(args_labels, str) or not isinstance(args_labels, (list, tuple, set,
                                                                        frozenset)):
            raise UsageError("usage error: args_labels must be a list of label names, like "
                             f"[\"customers\"], got {type(args_labels).__name__}")
        if args_labels and not labels:      # it would do nothing: no label is tracked
            raise UsageError("usage error: args_labels= needs labels=True")
        # checked before anything runs; E.EMPTY when nothing is labelled
        arg_labels = _label_set(args_labels) if labels else E.EMPTY
        opts = _options(prog, out, llm_flags=llm_flags, **settings)
        spans, vm, raw = opts.spans, None, None
        if spans is not None:
            spans.start_run(prog, task, labels, settings.get("cap_set"))
        try:
            vm = _start(prog, opts)
            if box is not None:
                box["vm"] = vm

            def body():
                vm.run_main()
                if index is None:
                    return None
                # SPEC 14: the top level runs, then the call, its arguments checked as
                # call_tool checks them
                positional = self._arguments(index, task, args, arg_labels, vm.ceiling)
                if arg_labels:
                    positional = [a if a is UNSET else Labeled(a, arg_labels)
                                  for a in positional]
                return vm.call(vm.tasks[index], positional)
            try:
                raw = _in_big_stack(body, vm)
                if result_to is not None and raw is not None:
                    _write_result(vm, task, raw, result_to, result_on_stdout)
            except E.SynError as e:
                # A labelled error's own message is the data: never chain it.
                raise _failure(e, self._source, vm.ceiling) from (None if e.labels or isinstance(
                    e, E.LabelViolation) else e)
        except Error as e:
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
            _release(opts)
        return vm, raw

    def _task_index(self, name):
        funcs = self._program.functions
        for i, f in enumerate(funcs):
            if f.kind == "task" and f.name == name:
                return i
        from synsema.vm.suggest import did_you_mean
        raise UsageError(f"usage error: {printable(self.name)} has no task '{printable(name)}'"
                         f"{did_you_mean(str(name), list(self.tasks))}")

    def _arguments(self, index, task, args, labels=E.EMPTY, ceiling=None):
        """The positional arguments of the call, checked exactly as call_tool checks them;
        `labels`: those --args-label puts on every value (an error about one carries them,
        shown when `ceiling` lets them out)."""
        from synsema.stdlib.vmbuiltins import _named_args
        func = self._program.functions[index]
        try:
            for p in func.params:
                if p.type == "task" and (p.name in args or p.default == p.NO_DEFAULT):
                    # JSON (and Python's values) hold data, never a task value
                    raise E.SynError(f"'{p.name}' is a task parameter, and a task cannot "
                                     "come from outside the program; call a task whose "
                                     "parameters are data")
            return _named_args("call_tool", Closure(func), args, True, labels)
        except E.SynError as e:
            said = shown_message(e, ceiling)    # withheld when it tells of a labelled value
            err = ArgumentError(f"{printable(self.name)}: error: bad arguments for task "
                                f"'{printable(task)}': {said}")
            err.labels = frozenset(e.labels)
            raise err from None


def _label_set(args_labels):
    """args_labels= as a set of label names; a UsageError for one that is not a name."""
    from synsema.vm.caps import is_label
    for label in args_labels:
        if not isinstance(label, str) or not is_label(label):
            raise UsageError(f"usage error: {label!r} is not a label name (letters, digits, "
                             "_, - and .)")
    return frozenset(args_labels)


def _write_result(vm, task, raw, write, on_stdout):
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
