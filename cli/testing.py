"""`syn test`: compile each file, run its top level once (output captured), then every
test block in a fresh scope with the program's capabilities (SPEC section 7).

One line per test, `ok` or `FAIL` and its name (a failure adds its message and line),
and last, alone on its line, `N passed, M failed`. Exit 0 when none failed."""

import io
import json
import os
import sys

from synsema.api import UsageError, _in_big_stack
from synsema.cli import runner
from synsema.cli.report import runtime_error, shown_message
from synsema.vm.errors import StartRefused, SynError


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


def run_tests(paths, select, verbose, as_json, values):
    files = find_files(paths)
    if not files:
        runner.err("error: no .syn files found in " + ", ".join(paths))
        return runner.EXIT_USAGE
    report = {"files": [], "passed": 0, "failed": 0}
    worst = runner.EXIT_OK
    for path in files:
        result, code = _run_file(path, select, verbose, as_json, values)
        if code not in (runner.EXIT_OK, runner.EXIT_ERROR):
            return code
        report["files"].append(result)
        report["passed"] += result["passed"]
        report["failed"] += result["failed"]
        if code:
            worst = runner.EXIT_ERROR
    if report["failed"]:
        worst = runner.EXIT_ERROR
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(f"{report['passed']} passed, {report['failed']} failed\n")
    return worst


def _emit(as_json, text):
    if not as_json:
        sys.stdout.write(text)
        sys.stdout.flush()


def _run_file(path, select, verbose, as_json, values):
    result = {"file": path, "tests": [], "passed": 0, "failed": 0}
    prog, _ = runner.compile_file(path)
    if prog is None:
        result["failed"] += 1
        result["tests"].append({"name": "(compile)", "ok": False,
                                "message": "the file does not compile"})
        _emit(as_json, f"FAIL  (compile) {os.path.basename(path)}\n")
        return result, runner.EXIT_ERROR
    program, source = prog._program, prog._source
    captured = io.StringIO()
    from synsema.vm.machine import VM
    try:
        opts = runner.vm_options(values, prog, captured.write)
    except UsageError as e:
        runner.err(e.message)
        return result, runner.EXIT_USAGE
    try:
        vm = VM(program, opts)
    except StartRefused as e:
        runner.err("error: the program requires capabilities the host ceiling (--cap-set) "
                   f"does not grant: {', '.join(e.missing)}")
        return result, runner.EXIT_REFUSED
    try:
        _in_big_stack(vm.run_main)
        top_error = None
    except SynError as e:
        top_error = e
    if verbose and captured.getvalue() and not as_json:
        sys.stdout.write(captured.getvalue())
    if top_error is not None:
        result["failed"] += 1
        msg = runtime_error(top_error, source)
        result["tests"].append({"name": "(top level)", "ok": False, "message": msg.strip()})
        _emit(as_json, "FAIL  (top level)\n" + _indent(msg))
        return result, runner.EXIT_ERROR
    for name, index in program.tests:
        if select and select not in name:
            continue
        vm.steps = 0
        vm.deadline = None
        test_out = io.StringIO()
        vm.write = test_out.write
        try:
            _in_big_stack(lambda: vm.run_function(index))
            result["passed"] += 1
            result["tests"].append({"name": name, "ok": True})
            _emit(as_json, f"ok    {name}\n")
        except SynError as e:
            result["failed"] += 1
            line = e.trace[0][1] if e.trace else program.functions[index].line
            text = runtime_error(e, source)
            result["tests"].append({"name": name, "ok": False, "line": line,
                                    "message": shown_message(e), "report": text.strip()})
            _emit(as_json, f"FAIL  {name}\n      {shown_message(e)} (line {line})\n")
        if verbose and test_out.getvalue() and not as_json:
            sys.stdout.write(_indent(test_out.getvalue()))
    return result, runner.EXIT_OK


def _indent(text):
    return "".join("      " + line + "\n" for line in text.splitlines())
