"""`syn fmt` (the canonical layout, compiler.format) and `syn check` (compile only).

Both take files and folders (every .syn below a folder, hidden folders skipped). A file
that does not compile is reported as `syn compile` reports it, and left as it is."""

import difflib
import json
import os

from synsema.cli import runner
from synsema.cli.entry import write_stdout
from synsema.cli.files import replace_file
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
    (--check: exit 1 when a file would change; --diff: print what would)."""
    from synsema.cli.report import Source, compile_error
    from synsema.compiler.format import format_source
    from synsema.vm.errors import CompileError
    files = _files(paths)
    if files is None:
        return runner.EXIT_USAGE
    worst = runner.EXIT_OK
    changed = 0
    for path in files:
        program, code = runner.compile_file(path)
        if program is None:
            worst = max(worst, code)
            continue
        text = program._source.text     # as read by compile_file (a byte-order mark too)
        try:
            new = format_source(text, path)     # errors name the file as given
        except CompileError as e:       # brackets nested deeper than the formatter goes
            runner.err(compile_error(e, Source(path, text)))
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


def _replace(path, text):
    """Write `text` over `path` all or nothing (cli.files, with the file's permissions);
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
        if as_json:
            diagnostic, code = _diagnose(path)
            if diagnostic is not None:
                found.append(diagnostic)
        else:
            code = runner.compile_file(path)[1] or runner.EXIT_OK
        worst = max(worst, code)
    if as_json:
        write_stdout(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    return worst


def _diagnose(path):
    """(diagnostic or None, exit code) of one file, compiled as api.compile_file does."""
    from synsema.compiler import compile_source
    from synsema.vm.errors import CompileError

    def diagnostic(line, column, problem, suggestion=None):
        return {"file": path, "line": line, "column": column, "message": problem,
                "suggestion": suggestion}, runner.EXIT_ERROR
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        return {"file": path, "line": None, "column": None,
                "message": f"cannot read {path}: {e.strerror or e}",
                "suggestion": None}, runner.EXIT_USAGE
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return diagnostic(line, column, f"the file is not valid UTF-8 (byte {e.start})",
                          "save it as UTF-8")
    try:
        compile_source(text.removeprefix("\ufeff"), os.path.basename(path))
    except CompileError as e:
        return diagnostic(e.line, e.col, e.problem, e.suggestion)
    return None, runner.EXIT_OK
