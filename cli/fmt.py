"""`syn fmt` (the canonical layout, compiler.format) and `syn check` (compile only).

Both take files and folders (every .syn below a folder, hidden folders skipped). A file
that does not compile is reported as `syn compile` reports it, and left as it is."""

import difflib
import json
import os

from synsema.cli import runner
from synsema.cli.output import write_stdout
from synsema.cli.replace import replace_file
from synsema.cli.testing import find_files


def _files(paths):
    """The .syn files of `paths`, or None after saying which path is missing (exit 2)."""
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        runner.err(f"error: no such file or folder: {', '.join(missing)}")
        return None
    files = find_files(paths)
    if not files:
        runner.err("error: no .syn files found in " + ", ".join(paths))
        return None
    return files


def fmt(paths, check, diff):
    """Rewrite each file in its canonical layout; with --check or --diff write nothing
    (--check: exit 1 when a file would change; --diff: print what would). A layout larger
    than a program file may hold is refused (exit 1), the file left as it is."""
    from synsema.runtime.report import Source, compile_error
    from synsema.vm.errors import CompileError
    files = _files(paths)
    if files is None:
        return runner.EXIT_USAGE
    worst = runner.EXIT_OK
    changed = 0
    for path in files:
        hint = _compiled(path, "fmt")
        if hint:
            runner.err(hint)
            worst = max(worst, runner.EXIT_USAGE)
            continue
        program, code = runner.compile_file(path)
        if program is None:
            worst = max(worst, code)
            continue
        text = program.source.text     # as read by compile_file (a byte-order mark too)
        try:
            new = formatted(text, path)         # errors name the file as given
        except CompileError as e:       # brackets nested deeper than the formatter goes
            runner.err(compile_error(e, Source(path, text)))
            worst = max(worst, runner.EXIT_ERROR)
            continue
        except TooLarge as e:
            runner.err(f"error: {path}: {e}; it is left as it is")
            worst = max(worst, runner.EXIT_ERROR)
            continue
        except AssertionError as e:     # the layout would change the tokens: a bug here
            runner.err(f"internal error: {e}; {path} is left as it is")
            worst = max(worst, runner.EXIT_INTERNAL)
            continue
        if new == text:
            continue
        changed += 1
        if diff:
            write_stdout("".join(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), path, path + " (formatted)")))
        if check:
            if not diff:
                write_stdout(f"would reformat {path}\n")
        elif not diff:
            if not _replace(path, new):
                worst = max(worst, runner.EXIT_ERROR)
                continue
            runner.err(f"reformatted {path}")
    if check and changed:
        worst = max(worst, runner.EXIT_ERROR)
    return worst


# What `syn fmt` and `syn check` say of a compiled program, as `syn run` does
# (cli.runner.wrong_kind): its bytes are not text, and "not valid UTF-8" would not say why.
COMPILED = {"fmt": "{p} is a compiled program, and `syn fmt` formats source code: give it "
                   "the .syn file",
            "check": "{p} is a compiled program, and `syn check` compiles source code: give "
                     "it the .syn file (`syn inspect {p}` shows what a .synb holds)"}


def _compiled(path, command):
    """The usage error for a .synb given to `command` (fmt, check), or None."""
    if str(path).endswith(".synb"):
        return "error: " + COMPILED[command].format(p=path)
    return None


class TooLarge(Exception):
    """The canonical layout of a file would be larger than a program file may hold."""


def _limit():
    from synsema.api import MAX_PROGRAM_BYTES
    return MAX_PROGRAM_BYTES


# A file whose layout_bound is above this many times the program file limit is refused
# without being laid out: the layout of brackets nested N deep grows as N squared (each
# level broken onto lines of its own, one step deeper), so 10,000 nested parentheses, a
# 20 KB file, would take 400 MB. Ordinary code's bound is about twice its size, so only a
# file whose layout would be far too large anyway is refused this way; the layout itself
# is then checked against the limit exactly (formatted).
BOUND_FACTOR = 4


def formatted(text, name):
    """compiler.format.format_source(text, name); TooLarge when that layout would hold
    more than api.MAX_PROGRAM_BYTES, the most any `syn` command reads: `syn fmt` would
    otherwise turn a working program into one that nothing can read."""
    from synsema.compiler.format import format_source
    limit = _limit()
    mib = limit // 2**20
    if layout_bound(text, name) > BOUND_FACTOR * limit:
        raise TooLarge(f"its brackets nest so deeply that the canonical layout (each level "
                       f"broken onto deeper-indented lines of its own) would hold far more "
                       f"than the {mib} MiB a program file may hold")
    new = format_source(text, name)
    size = len(new.encode("utf-8"))
    if size > limit:
        raise TooLarge(f"the canonical layout would hold {size / 2**20:.1f} MiB, more than the "
                       f"{mib} MiB a program file may hold (deeply nested brackets are "
                       f"broken onto deeper-indented lines of their own)")
    return new


def layout_bound(text, name="<source>"):
    """About the most bytes compiler.format can lay `text` out in (its tokens must
    tokenize: CompileError otherwise): every token with a space on each side, and a new
    line, indented 4 columns per block and bracket level, at each place the layout may
    break one (a bracket, a comma, a comment, a line end, a line inside brackets kept as
    written)."""
    from synsema.compiler.format import CLOSERS, OPENERS, STEP
    from synsema.compiler.lexer import tokenize_layout
    breaks = ("COMMA", "NEWLINE", "COMMENT")
    block = depth = total = last_line = 0
    for typ, value, line, _, _ in tokenize_layout(text.removeprefix("\ufeff"), name):
        if typ == "INDENT":
            block += 1
            continue
        if typ == "DEDENT":
            block -= 1
            continue
        if typ in CLOSERS:
            depth -= 1
        elif typ in OPENERS:
            depth += 1
        if type(value) is str:
            total += len(value.encode("utf-8")) + 2
        if typ in OPENERS or typ in CLOSERS or typ in breaks or (depth and line != last_line):
            total += 2 + STEP * max(block + depth, 0)
        last_line = line
    return total


def _replace(path, text):
    """Write `text` over `path` all or nothing (cli.replace, with the file's permissions);
    False after saying why it could not."""
    try:
        replace_file(path, [text.encode("utf-8")])
        return True
    except OSError as e:
        runner.err(f"error: cannot write {path}: {e.strerror or e}")
        return False


def check(paths, as_json):
    """Compile each file, write nothing. Errors print as `syn compile` prints them, or
    with --json as one list of {file, line, column, message, suggestion}."""
    files = _files(paths)
    if files is None:
        if as_json:
            write_stdout("[]\n")
        return runner.EXIT_USAGE
    worst = runner.EXIT_OK
    found = []
    for path in files:
        hint = _compiled(path, "check")
        if hint:
            if as_json:
                found.append({"file": path, "line": None, "column": None,
                              "message": hint.removeprefix("error: "), "suggestion": None})
            else:
                runner.err(hint)
            worst = max(worst, runner.EXIT_USAGE)
            continue
        if as_json:
            diagnostics, code = _diagnose(path)
            found.extend(diagnostics)
        else:
            code = runner.compile_file(path)[1] or runner.EXIT_OK
        worst = max(worst, code)
    if as_json:
        write_stdout(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    return worst


def _diagnose(path):
    """([diagnostic, ...], exit code) of one file, compiled as api.compile_file does:
    every error found, in line order."""
    from synsema.compiler import compile_source
    from synsema.vm.errors import CompileError

    def diagnostic(line, column, problem, suggestion=None):
        return {"file": path, "line": line, "column": column, "message": problem,
                "suggestion": suggestion}
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        return [{"file": path, "line": None, "column": None,
                 "message": f"cannot read {path}: {e.strerror or e}",
                 "suggestion": None}], runner.EXIT_USAGE
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return [diagnostic(line, column, f"the file is not valid UTF-8 (byte {e.start})",
                           "save it as UTF-8")], runner.EXIT_ERROR
    try:
        compile_source(text.removeprefix("\ufeff"), os.path.basename(path))
    except CompileError as e:
        return [diagnostic(x.line, x.col, x.problem, x.suggestion) for x in e.errors], \
            runner.EXIT_ERROR
    return [], runner.EXIT_OK
