"""`syn test`: compile each file, run its top level once (output captured), then every
test block in a fresh scope with the program's capabilities (SPEC section 7).

One line per test, `ok` or `FAIL` and its id (a failure adds its message and line, and
what the test printed, as pytest shows captured output), and last, alone on its line,
`N passed, M failed`. A test's id is its name, or `FILE::NAME` when the run covers
several files (or a folder); `--json` reports always carry the `FILE::NAME` id.

Exit codes (SPEC 13): 0 all passed, 1 a failure (a file that does not compile is the
failure `(compile)`, in its place), 2 usage (a missing path, a .synb, `-k` selecting no
test), 3 a file's requires refused by the ceiling (the failure `(refused)` of that file;
the other files still run) when nothing failed otherwise. `--json` prints its report in
every case, an `error` key saying why a run stopped early.

What a report shows of a program's output and messages is bounded (clip_output,
runtime.report.MAX_MESSAGE): a failing top level that printed 100 MB shows its last lines.

Tests run offline: no model is called unless the run asks for one with `--online` (the
provider settings of the environment and flags) or a cassette (`--cassette` or
SYN_LLM_CASSETTE), so a key set in the shell never makes a test suite spend money.
"""

import io
import os

from synsema import api
from synsema.api import UsageError
from synsema.cli import runner
from synsema.runtime import run
from synsema.runtime.threads import in_big_stack
from synsema.cli.output import flush_stdout, write_stdout
from synsema.runtime.report import json_text, printable, runtime_error, shown_frames, shown_message
from synsema.vm.errors import Refused, SynError


def find_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".syn")]
        else:
            files.append(p)
    return files


class Report:
    def __init__(self, as_json, prefixed):
        self.as_json = as_json
        self.prefixed = prefixed        # ids are FILE::NAME in the text report too
        self.data = {"files": [], "passed": 0, "failed": 0}
        self.selected = 0
        self.refused = False            # a file's start refused by the ceiling (exit 3)

    def file(self, path):
        entry = {"file": path, "tests": [], "passed": 0, "failed": 0}
        self.data["files"].append(entry)
        return entry

    def add(self, entry, name, ok, text, **fields):
        """One test's outcome: into the JSON report and, as `text` (its lines after the
        first), into the text report."""
        test_id = f"{entry['file']}::{name}"
        entry["tests"].append({"id": test_id, "name": name, "ok": ok, **fields})
        key = "passed" if ok else "failed"
        entry[key] += 1
        self.data[key] += 1
        shown = test_id if self.prefixed else name
        self.emit(f"{'ok   ' if ok else 'FAIL '} {printable(shown)}\n{text}")

    def emit(self, text):
        if not self.as_json:
            write_stdout(text)
            flush_stdout()

    def stop(self, message, code):
        """End the run early: the reason on stderr, and in the JSON report."""
        runner.err(message)
        if self.as_json:
            self.data["error"] = message
            self.finish()
        return code

    def finish(self):
        if self.as_json:
            write_stdout(json_text(self.data, indent=2) + "\n")
        else:
            write_stdout(f"{self.data['passed']} passed, {self.data['failed']} failed\n")


def run_tests(paths, select, verbose, as_json, values):
    report = Report(as_json, len(paths) > 1 or any(os.path.isdir(p) for p in paths))
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        return report.stop(f"error: no such file or folder: {', '.join(missing)}",
                           runner.EXIT_USAGE)
    files = find_files(paths)
    if not files:
        return report.stop("error: no .syn files found in " + ", ".join(paths),
                           runner.EXIT_USAGE)
    report.prefixed = report.prefixed or len(files) > 1
    online = values.get("online") or values.get("cassette") or os.environ.get(
        "SYN_LLM_CASSETTE", "").strip()
    provider = None if online else api.Provider()       # Provider(): offline
    for path in files:
        stopped = _run_file(report, path, select, verbose, values, provider)
        if stopped:
            return report.stop(*stopped)
    if select and not report.selected and not report.data["failed"]:
        return report.stop(f"usage error: no test matched -k {select!r}", runner.EXIT_USAGE)
    report.finish()
    if report.refused:
        return runner.EXIT_REFUSED
    return runner.EXIT_ERROR if report.data["failed"] else runner.EXIT_OK


def _run_file(report, path, select, verbose, values, provider):
    """Run one file's tests into the report; (message, exit code) when the run must stop."""
    wrong = runner.wrong_kind(path, ".syn", "test")
    if wrong:
        return wrong, runner.EXIT_USAGE
    entry = report.file(path)
    try:
        prog = api.compile_file(path)
    except api.CompileError as e:
        report.add(entry, "(compile)", False, _indent(e.message), line=e.line,
                   message=e.message.splitlines()[0], report=e.message)
        return None
    except OSError as e:
        return f"error: cannot read {path}: {e.strerror or e}", runner.EXIT_USAGE
    program, source = prog.compiled, prog.source
    captured = io.StringIO()
    try:
        opts = runner.vm_options(values, prog, captured.write, provider)
    except UsageError as e:
        return e.message, runner.EXIT_USAGE
    try:
        runner.trace_offline(prog, values, provider)
    except UsageError as e:
        run.release(opts)          # the audit file it opened, and any MCP servers
        return e.message, runner.EXIT_USAGE
    try:
        return _run_tests(report, entry, program, source, opts, captured, select, verbose,
                          path)
    finally:
        run.release(opts)          # the file's MCP servers and audit file end with its tests


def _run_tests(report, entry, program, source, opts, captured, select, verbose, path):
    from synsema.runtime.machine import VM
    try:
        vm = VM(program, opts)
    except Refused as e:
        # That file's tests cannot run; the other files' still can.
        msg = (f"error: {printable(path)}: the program requires capabilities the host "
               f"ceiling (--cap-set) does not grant: {printable(', '.join(e.missing))}; its "
               "tests do not run")
        report.refused = True
        report.add(entry, "(refused)", False, _indent(msg), line=None, message=msg,
                   report=msg)
        return None
    try:
        in_big_stack(vm.run_main, vm)
        top_error = None
    except SynError as e:
        top_error = e
    printed = clip_output(captured.getvalue())
    if verbose and printed:
        report.emit(printed)
    if top_error is not None:
        # What the ceiling's stdout= items let out is shown (SPEC 10), as `syn run` shows it.
        msg = runtime_error(top_error, source, vm.ceiling)
        line = _failed_line(top_error, vm.ceiling)
        # What the top level printed is shown only with -v (SPEC 7), failing or not.
        report.add(entry, "(top level)", False, _indent(msg),
                   line=line, message=shown_message(top_error, vm.ceiling), report=msg.strip(),
                   **_output(printed))
        return None
    for name, index in program.tests:
        if select and select not in name:
            continue
        report.selected += 1
        if vm.abandoned:
            # An earlier test was given up on at its time limit while in one long
            # operation; the tests share its VM, so none can run after it.
            msg = "not run: an earlier test was given up on at its time limit"
            report.add(entry, name, False, f"      {msg}\n", message=msg)
            continue
        vm.steps = 0
        vm.deadline = None
        test_out = io.StringIO()
        vm.write = test_out.write
        try:
            in_big_stack(lambda: vm.run_function(index), vm)
            error = None
        except SynError as e:
            error = e
        printed = clip_output(test_out.getvalue())
        if error is None:
            report.add(entry, name, True, _indent(printed) if verbose else "",
                       **_output(printed))
            continue
        line = _failed_line(error, vm.ceiling) or program.functions[index].line
        said = shown_message(error, vm.ceiling)
        report.add(entry, name, False,
                   _indent(f"{said} (line {line})") + _printed(printed, verbose),
                   line=line, message=said,
                   report=runtime_error(error, source, vm.ceiling).strip(), **_output(printed))
    return None


# The most of a program's output a report shows: its last lines, as a terminal would.
MAX_OUTPUT_LINES = 200
MAX_OUTPUT_CHARS = 64 * 1024


def clip_output(text):
    """`text` cut to its last MAX_OUTPUT_LINES lines and MAX_OUTPUT_CHARS characters,
    after a note of how much was left out."""
    if len(text) <= MAX_OUTPUT_CHARS and text.count("\n") <= MAX_OUTPUT_LINES:
        return text
    kept = text[-MAX_OUTPUT_CHARS:]
    kept = "".join(kept.splitlines(keepends=True)[-MAX_OUTPUT_LINES:])
    left = text[:len(text) - len(kept)]
    return (f"[... {left.count(chr(10))} earlier lines ({len(left)} characters) of output "
            "not shown ...]\n" + kept)


def _output(printed):
    return {"output": printed} if printed else {}


def _printed(printed, verbose):
    """What a failing test printed, under its FAIL line (with -v it is shown already)."""
    if not printed or verbose:
        return ""
    return "      printed:\n" + "".join("        " + line + "\n" for line in printed.splitlines())


def _failed_line(error, ceiling):
    """The line an error was raised at; None when it has no position, or when where it
    was depends on labelled data the ceiling does not let out (SynError.secret_frames)."""
    return error.trace[0][1] if error.trace and not shown_frames(error, ceiling) else None


def _indent(text):
    return "".join("      " + line + "\n" for line in text.splitlines())
