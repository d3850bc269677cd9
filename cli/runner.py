"""The run options of `syn run`, `syn exec` and `syn test` turned into calls of the
embedding API (synsema.api, SPEC 16), and every outcome into the exit code of SPEC 13:

    0 success · 1 compile/runtime error, failed test, invalid .synb · 2 usage ·
    3 start refused by the ceiling, or label_violation · 4 resource limit · 70 internal
"""

import os
import sys

from synsema import api
from synsema.runtime import run as runs
from synsema.cli.output import write_stdout

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_REFUSED, EXIT_LIMIT, EXIT_INTERNAL = 0, 1, 2, 3, 4, 70


def err(text):
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def compile_file(path, command=None):
    """(api.Program, None) or (None, exit code) after printing why it does not compile.
    `command` (run, compile, ...) names the command, for the hint when given a .synb."""
    return _opened(path, ".syn", api.compile_file, command)


def load_synb(path, command=None):
    """(api.Program, None) or (None, exit code) after printing why the file is refused."""
    return _opened(path, ".synb", api.load, command)


def open_program(path, command=None):
    """load_synb for a .synb, compile_file for anything else: for the commands that take
    either (outline, dis, batch, serve)."""
    opener = load_synb if str(path).endswith(".synb") else compile_file
    return opener(path, command)


# A file of the other kind than the command reads: the command that fits.
OTHER_COMMAND = {
    ("run", ".synb"): "{p} is a compiled program: run it with `syn exec {p}`",
    ("compile", ".synb"): "{p} is already compiled: run it with `syn exec {p}`",
    ("exec", ".syn"): "{p} is source code: run it with `syn run {p}`, or compile it with "
                      "`syn compile {p}` and exec the .synb",
    ("inspect", ".syn"): "{p} is source code, and `syn inspect` reads a compiled .synb: use "
                         "`syn outline {p}`, or `syn compile {p}` first",
    ("test", ".synb"): "{p} is a compiled program, and `syn test` runs the test blocks of "
                       "source code: give it the .syn file",
}


def wrong_kind(path, kind, command):
    """The usage error for a file of the other kind than `command` reads (a .synb given
    to `syn run`), or None."""
    other = ".synb" if kind == ".syn" else ".syn"
    hint = OTHER_COMMAND.get((command, other))
    if hint and str(path).endswith(other):
        return "error: " + hint.format(p=path)
    return None


def _opened(path, kind, opener, command):
    hint = wrong_kind(path, kind, command)
    if hint:
        err(hint)
        return None, EXIT_USAGE
    try:
        return opener(path), None
    except IsADirectoryError:
        err(f"error: {path} is a folder, not a {kind} file")
        return None, EXIT_USAGE
    except OSError as e:
        err(f"error: cannot read {path}: {e.strerror or e}")
        return None, EXIT_USAGE
    except api.Error as e:
        err(e.message)
        return None, e.exit_code


def settings(values):
    """The api.Program keywords (and the CLI's own --llm-* overrides) of the run options;
    raises api.UsageError for a bad --tools, or --args-label without --labels (it would
    do nothing: no label is tracked)."""
    if values.get("args_label") and not values.get("labels"):
        raise api.UsageError("usage error: --args-label needs --labels (without it no "
                             "label is tracked)")
    out = {k: values.get(k) for k in ("cap_set", "max_steps", "timeout", "audit",
                                      "max_requests", "max_tokens")}
    out.update(labels=values.get("labels", False), trace=values.get("trace", False),
               max_depth=values.get("max_depth") or 1000, tools=load_tools(values),
               mcp_servers=load_mcp(values), llm_flags=llm_flags(values),
               cli=True)        # messages name the flags (--audit), not the keywords
    return out


def load_mcp(values):
    """The MCP servers of --mcp NAME=COMMAND|URL (docs/mcp.md), or None."""
    if not any(values.get(k) for k in ("mcp", "mcp_label", "mcp_accepts")):
        return None
    from synsema.stdlib.mcpclient import ConfigError, from_options
    try:
        return from_options(values)
    except ConfigError as e:
        raise api.UsageError(f"usage error: {e}") from None


def llm_flags(values):
    return {"url": values.get("llm_url"), "api": values.get("llm_api"),
            "model": values.get("llm_model"), "cassette": values.get("cassette"),
            "cassette_mode": values.get("cassette_mode"), "timeout": values.get("llm_timeout"),
            "max_retries": values.get("llm_max_retries")}


def trace_offline(program, values, provider=None):
    """--trace: say at the start when the program's model calls will be answered offline,
    so an empty-looking run is not mistaken for a model that said nothing. `provider` as
    vm_options takes it. Raises api.UsageError for bad provider settings."""
    if not values.get("trace"):
        return
    prog = program.compiled
    if not runs.reaches_model(prog):
        return          # the program cannot call a model
    if provider is None:
        if runs.llm_for(prog, None, llm_flags(values)) is not None:
            return
    elif not provider.offline:
        return
    err('trace: model: none configured, so every model call answers "[no llm provider]" '
        "(offline; set SYN_LLM_URL or a provider key" +
        (", and give syn test --online)" if provider is not None else ")"))


def load_tools(values):
    """The host tools of the --tools MODULE:NAME options (SPEC 15.2), or None."""
    targets = values.get("tools") or ()
    if not targets:
        return None
    from synsema.stdlib.hosttools import ToolError
    from synsema.stdlib.toolbox import collect, load_target
    try:
        return collect([list(load_target(t).values()) for t in targets])
    except ToolError as e:      # ToolTargetError included: an import or a wrong object
        raise api.UsageError(f"usage error: {e}") from None


def vm_options(values, program, out, provider=None):
    """vm.machine.Options of the run options for `program` (an api.Program), print going
    to `out`, the model `provider` an api.Provider (None: the environment's and the
    flags'); raises api.UsageError for a bad value."""
    return runs.options(program.compiled, out, provider=provider, **settings(values))


def run(program, values):
    """`syn run` / `syn exec`: the top level, and the task of --call if any; the exit code.
    print writes to stdout as the program runs."""
    try:
        task = values.get("call")
        if task is None:
            for flag, dest in (("--args", "args"), ("--args-file", "args_file"),
                               ("--args-label", "args_label")):
                if values.get(dest) not in (None, ()):
                    raise api.UsageError(f"usage error: {flag} needs --call TASK")
        args = call_args(values) if task is not None else None
        trace_offline(program, values)
        runs.execute(program.compiled, program.source, task, args, write_stdout,
                     result_to=write_stdout, result_on_stdout=True,
                     args_labels=values.get("args_label") or (), **settings(values))
    except api.Error as e:
        return outcome(e)
    return EXIT_OK


# The most of an --args-file (or of one `syn batch` input line) read: a bigger one, or
# an endless stream such as /dev/zero, is a usage error rather than all the memory.
MAX_ARGS_BYTES = 16 * 1024 * 1024
LIMIT_TEXT = "16 MB"


def call_args(values):
    """The argument map of --args JSON / --args-file FILE (SPEC 14)."""
    text, where = values.get("args"), "--args"
    path = values.get("args_file")
    if text is not None and path is not None:
        raise api.UsageError("usage error: give --args or --args-file, not both")
    if path is not None:
        where = f"--args-file {path}"
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_ARGS_BYTES + 1)
            if len(data) > MAX_ARGS_BYTES:
                raise api.UsageError(f"usage error: --args-file {path} is larger than "
                                     f"{LIMIT_TEXT}, the most it may hold")
            text = data.decode("utf-8-sig")     # a byte-order mark, as a .syn may have
        except (OSError, UnicodeDecodeError) as e:
            raise api.UsageError(f"usage error: --args-file: cannot read {path}: "
                                 f"{getattr(e, 'strerror', None) or e}") from None
    if text is None:
        return {}
    from synsema.vm.jsonvalues import json_decode
    from synsema.vm.errors import SynError
    try:
        args = json_decode(text)
    except SynError as e:
        raise api.UsageError(f"usage error: {where}: {e.message.removeprefix('json_decode: ')}"
                             ) from None
    if type(args) is not dict:
        raise api.UsageError(f"usage error: {where} must be a JSON object of named arguments "
                             f"({{\"name\": value}}), got {json_kind(args)}")
    return args


def json_kind(value):
    """What a decoded JSON value is, for a message: `null`, `a list`, `a text`, ..."""
    from synsema.vm.values import type_name
    return "null" if value is None else "a " + type_name(value)


def outcome(e):
    """Print an API error that ended a run; return its exit code."""
    err(e.message)
    original = getattr(e.__cause__, "original", None)
    if isinstance(e, api.InternalError) and os.environ.get("SYN_DEBUG") and original:
        import traceback
        traceback.print_exception(original)
    return e.exit_code
