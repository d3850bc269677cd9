"""The `syn` commands (click). Exit codes: SPEC section 13 (see cli.runner)."""

import os
import sys

import click

from synsema import LANGUAGE_LEVEL, __version__
from synsema.cli import runner
from synsema.cli.output import write_stdout
from synsema.cli.options import ENTRY_OPTIONS, RUN_OPTIONS, convert

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Checked(click.ParamType):
    """A number option checked by cli.options.convert, the rule the fast `syn exec` path
    uses too."""

    def __init__(self, kind):
        self.kind = kind
        self.name = "seconds" if kind == "number" else "integer"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value            # a default
        try:
            return convert(self.kind, value)
        except ValueError as e:
            self.fail(str(e), param, ctx)


# What each text option holds, as --help names it.
METAVARS = {"cap_set": "ITEMS", "audit": "FILE", "llm_url": "URL", "llm_model": "NAME",
            "cassette": "FILE", "tools": "MODULE:NAME", "mcp": "NAME=COMMAND|URL",
            "mcp_label": "NAME=LABEL,...", "mcp_accepts": "NAME.TOOL:PARAM=LABEL,...",
            "call": "TASK", "args": "JSON", "args_file": "FILE", "args_label": "LABEL",
            "request_label": "LABEL"}


def run_options(fn, table=RUN_OPTIONS):
    """Attach the shared run options (cli.options.RUN_OPTIONS) to a command."""
    for flag, dest, kind, default, help_ in reversed(table):
        if kind == "flag":
            opt = click.option(flag, dest, is_flag=True, default=default, help=help_)
        elif kind == "multi":
            opt = click.option(flag, dest, multiple=True, metavar=METAVARS.get(dest, "TEXT"),
                               help=help_)
        elif kind.partition(":")[0] in ("int", "count", "number"):
            opt = click.option(flag, dest, type=Checked(kind), default=default,
                               show_default=default is not None, help=help_)
        elif kind.startswith("choice:"):
            opt = click.option(flag, dest, type=click.Choice(kind[7:].split("|")),
                               default=default, help=help_)
        else:
            opt = click.option(flag, dest, default=default, metavar=METAVARS.get(dest),
                               help=help_)
        fn = opt(fn)
    return fn


def entry_options(fn):
    """The run options and the entry point options (--call, --args, ...) of run and exec."""
    return run_options(run_options(fn, ENTRY_OPTIONS))


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "--version", "-V",
                      message=f"syn %(version)s (Synsema {LANGUAGE_LEVEL})")
def cli():
    """Synsema: an English-like language for LLM agents that cannot be talked into
    misbehaving.

    \b
    Quick tour:
      syn run app.syn            compile in memory and run
      syn agent "REQUEST" --tools MODULE:NAME   a model plans, the plan runs safely
      syn test app.syn           run the program's test blocks
      syn compile app.syn        write app.synb beside it
      syn exec app.synb          run a precompiled program
      syn batch app.syn --call T in.jsonl -o out.jsonl   a task over a dataset
      syn outline app.syn        tasks, parameters, requires, tests
      syn inspect app.synb       the manifest of a compiled program
      syn dis app.syn            disassembly with source lines
      syn fmt .                  rewrite every .syn below . in the canonical layout
      syn check app.syn          compile only: report errors, write nothing
      syn repl                   type statements and see their values
      syn lsp                    the language server for editors (stdio)

    Exit codes: 0 ok, 1 error or failed test, 2 usage, 3 refused by the ceiling or a
    label_violation, 4 resource limit, 70 internal error, 130 interrupted (Ctrl-C).
    """


def _done(code):
    sys.exit(code)


def _echo(text):
    write_stdout(text + "\n")


@cli.command("compile", context_settings=CONTEXT)
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Where to write the .synb (default: beside the source).")
def compile_cmd(source, output):
    """Compile SOURCE (.syn) to a .synb file."""
    if output == "":
        runner.err("usage error: -o needs a file path, got an empty one")
        _done(runner.EXIT_USAGE)
    if output is None and _special(source):
        runner.err(f"usage error: {source} is not a regular file (a device, FIFO or "
                   "socket), so the .synb has no place beside it: give -o PATH")
        _done(runner.EXIT_USAGE)
    program, code = runner.compile_file(source, "compile")
    if program is None:
        _done(code)
    from synsema.vm.codec import decode, encode
    from synsema.vm.errors import InvalidProgram
    data = encode(program.compiled)
    try:
        # The loader's check, before the file is written: what it would refuse (a bound
        # the compiler does not check at the source's place, like the stack depth of
        # deeply nested literals) is refused here, not at `syn exec`.
        decode(data)
    except InvalidProgram as e:
        runner.err(f"error: {source}: the compiled program goes past what a .synb may hold "
                   f"({e.reason}); split the program's largest literals or tasks")
        _done(runner.EXIT_ERROR)
    out = output or os.path.splitext(source)[0] + ".synb"
    refused = _unsafe_output(source, out)
    if refused:
        runner.err(f"error: {refused}")
        _done(runner.EXIT_USAGE)
    from synsema.cli.replace import Replacement
    try:
        replacement = Replacement(out)
    except OSError as e:        # a path that cannot be written at all: like a bad --audit
        runner.err(f"usage error: cannot write {out}: {e.strerror or e}")
        _done(runner.EXIT_USAGE)
    try:
        replacement.commit([data])  # all or nothing: a failed write never leaves half a file
    except OSError as e:
        runner.err(f"error: cannot write {out}: {e.strerror or e}")
        _done(runner.EXIT_ERROR)
    _done(runner.EXIT_OK)


def _special(path):
    """Whether `path` is there and is not a regular file or a folder (/dev/null, a FIFO,
    `<(cmd)`): the default .synb beside it would be a new file in /dev, say."""
    import stat
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False            # not there (compile_file says so)
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _unsafe_output(source, out):
    """Why `out` must not be written, or None. The write replaces the file (see
    compile_cmd), so the source itself, or a device or FIFO (`-o /dev/null`: running as
    root, the device would be replaced by a regular file), is refused."""
    import stat
    try:
        st = os.stat(out)
    except OSError:
        return None             # nothing there yet (or unreadable: the write will say)
    if os.path.exists(source) and os.path.samefile(source, out):
        return f"-o {out} is the source file itself; the .synb would overwrite it"
    if not stat.S_ISREG(st.st_mode):
        return f"-o {out} is not a regular file (a device, FIFO or socket); give a .synb path"
    return None


@cli.command("exec", context_settings=CONTEXT)
@click.argument("program", type=click.Path(dir_okay=False))
@entry_options
def exec_cmd(program, **values):
    """Run a precompiled PROGRAM (.synb); the loader verifies it first."""
    from synsema.cli.commands_exec import exec_path
    _done(exec_path(program, values))


@cli.command("run", context_settings=CONTEXT)
@click.argument("source", type=click.Path(dir_okay=False))
@entry_options
def run_cmd(source, **values):
    """Compile SOURCE (.syn) in memory and run its top-level statements (then, with
    --call, one of its tasks)."""
    program, code = runner.compile_file(source, "run")
    if program is None:
        _done(code)
    from synsema.cli.files import calls_models
    _refuse_written_files(values, [("the program", source)], calls_models(program))
    _done(runner.run(program, values))


def agent_options(fn):
    """The options of `syn agent` (cli.agent.AGENT_OPTIONS: the run options, --show-plan,
    --retries, --request-label)."""
    from synsema.cli.agent import AGENT_OPTIONS
    return run_options(fn, AGENT_OPTIONS)


@cli.command("agent", context_settings=CONTEXT)
@click.argument("request")
@agent_options
def agent_cmd(request, **values):
    """Carry out REQUEST with the host tools of --tools: a planner model, seeing only the
    request and the tools' catalog, writes a plan (a Synsema program); the plan runs under
    the run options (--labels, --cap-set, limits) and its answer is printed, a stdout sink
    like any other. A plan the compiler rejects is asked for again, with its errors, up
    to --retries times (default 2). Capabilities: llm, tool("N") for each tool, and
    llm("L") for each llm=L@HOST item of --cap-set; nothing else."""
    _refuse_written_files(values, [])
    from synsema.cli.agent import agent
    _done(agent(request, values))


def _refuse_written_files(values, reads, model=True):
    """Exit 2 when --audit or the cassette is empty or a file the command reads
    (cli.files.written_files_error)."""
    from synsema.cli.files import written_files_error
    refused = written_files_error(values, reads, model)
    if refused:
        runner.err(refused)
        _done(runner.EXIT_USAGE)


def batch_options(fn):
    """The run options and those of `syn batch` (cli.batch.OPTIONS: --call, --jobs, ...)."""
    from synsema.cli.batch import BATCH_RUN_OPTIONS, OPTIONS
    return run_options(run_options(fn, OPTIONS), BATCH_RUN_OPTIONS)


@cli.command("batch", context_settings=CONTEXT)
@click.argument("program", type=click.Path(dir_okay=False))
@click.argument("inputs", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The results file: one JSON line per input (docs/batch.md).")
@batch_options
def batch_cmd(program, inputs, output, **values):
    """Call the task of --call once per line of INPUTS (JSON objects of its arguments;
    `-` reads them from standard input), on a local process pool or a Ray cluster;
    PROGRAM is a .syn or a .synb file."""
    from synsema.cli.batch import run_batch
    _done(run_batch(program, inputs, output, values))


def serve_options(fn):
    """The options of `syn serve` (cli.serve.OPTIONS: the run options, --expose, --http)."""
    from synsema.cli.serve import OPTIONS
    return run_options(fn, OPTIONS)


@cli.command("serve", context_settings=CONTEXT)
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--mcp", "protocol", flag_value="mcp", required=True,
              help="Serve the Model Context Protocol (the one protocol so far).")
@serve_options
def serve_cmd(program, protocol, **values):
    """Serve the tasks of PROGRAM (.synb or .syn) as the tools of an MCP server, over
    stdio (default) or streamable HTTP; each call runs under the ceiling and labels given
    (docs/mcp.md)."""
    from synsema.cli.serve import serve
    _done(serve(program, values))


@cli.command("test", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("-k", "select", help="Run only tests whose name contains this text.")
@click.option("-v", "--verbose", is_flag=True, help="Show the top-level output too.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable report.")
@click.option("--online", is_flag=True,
              help="Let tests call the configured model; without it (or a cassette) "
                   "tests run offline, whatever keys the environment holds.")
@run_options
def test_cmd(paths, select, verbose, as_json, **values):
    """Run the test blocks of each .syn file (folders are searched). Exit 0 all passed,
    1 a failure, 2 usage (no test matched -k included), 3 a file refused by the ceiling."""
    from synsema.cli.testing import find_files, run_tests
    _refuse_written_files(values, [("the program", p) for p in find_files(paths)])
    _done(run_tests(paths, select, verbose, as_json, values))


def _outline(source, as_json):
    # A compiled program describes its entry points as well as its source does.
    program, code = runner.open_program(source)
    if program is None:
        _done(code)
    from synsema.cli.describe import outline, outline_text
    from synsema.runtime.report import json_text
    data = outline(program.compiled)
    _echo(json_text(data, indent=2) if as_json else outline_text(data))
    _done(runner.EXIT_OK)


@cli.command("outline", context_settings=CONTEXT)
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def outline_cmd(source, as_json):
    """Tasks with parameters and input_schema, requires, tests, intent (of a .syn or a
    .synb)."""
    _outline(source, as_json)


@cli.group("code", context_settings=CONTEXT)
def code_group():
    """Source-level tools (`syn code outline` is `syn outline`)."""


@code_group.command("outline", context_settings=CONTEXT)
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def code_outline_cmd(source, as_json):
    """Same as `syn outline`."""
    _outline(source, as_json)


@cli.command("inspect", context_settings=CONTEXT)
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def inspect_cmd(program, as_json):
    """The manifest of a compiled PROGRAM: format, intent, requires, tasks, hash."""
    prog, code = runner.load_synb(program, "inspect")
    if prog is None:
        _done(code)
    from synsema.cli.describe import manifest, manifest_text
    from synsema.runtime.report import json_text
    data = manifest(prog.compiled, os.path.getsize(program))
    _echo(json_text(data, indent=2) if as_json else manifest_text(data))
    _done(runner.EXIT_OK)


@cli.command("fmt", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file would change.")
@click.option("--diff", is_flag=True, help="Write nothing; print the changes as a diff.")
def fmt_cmd(paths, check, diff):
    """Rewrite .syn files (folders are searched) in the one canonical layout."""
    from synsema.cli.fmt import fmt
    _done(fmt(paths, check, diff))


@cli.command("check", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True,
              help="Print the errors as JSON: [{file, line, column, message, suggestion}].")
def check_cmd(paths, as_json):
    """Compile .syn files (folders are searched) and report errors; writes nothing."""
    from synsema.cli.fmt import check
    _done(check(paths, as_json))


@cli.command("dis", context_settings=CONTEXT)
@click.argument("path", type=click.Path(dir_okay=False))
def dis_cmd(path):
    """Disassemble a .syn or .synb file, with source lines."""
    prog, code = runner.open_program(path)
    if prog is None:
        _done(code)
    from synsema.vm.dis import disassemble
    from synsema.runtime.report import printable
    # Names and source lines come from the file: shown with control characters escaped.
    write_stdout(printable(disassemble(prog.compiled, prog.source.lines), lines=True))
    _done(runner.EXIT_OK)


@cli.command("repl", context_settings=CONTEXT)
@run_options
def repl_cmd(**values):
    """Type statements and expressions and see their values; a block (task, when, ...)
    ends at a blank line. Every run option applies to each entry. Ctrl-D leaves."""
    _refuse_written_files(values, [])
    from synsema.cli.repl import main
    _done(main(values))


@cli.command("lsp", context_settings=CONTEXT)
def lsp_cmd():
    """The Synsema language server over stdio (needs the `editor` extra): diagnostics,
    hover, go to definition, completion, symbols and formatting."""
    from synsema.cli.lsp import main
    _done(main())
