"""Hostile command lines (an outside review): a file the command writes beside its output
(--audit, a cassette) named as one it reads or writes otherwise, empty paths, `syn fmt`
layouts larger than a program may be, a .synb given to fmt and check, `syn compile` of
a device, and Ctrl-C while `syn serve` runs a call. Every case a clear message and the
exit code of SPEC 13, nothing written over, never a traceback or a hang."""

import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

from conftest import syn_command

# It can call a model (task m), so its model settings, the cassette among them, are read.
DECLASSIFIES = ('let v be private("s", "d")\nprint(declassify(v, "ok"))\n'
                'task f(x)\n    let p be private(x, "d")\n    give declassify(p, "ok")\n'
                'task m()\n    require llm\n    give ask("x")\n')
INPUTS = '{"x": "a"}\n{"x": "b"}\n{"x": "c"}\n'
SPIN = 'task spin()\n    let i be 0\n    while true\n        set i to i + 1\n    give i\n'


def usage(p, text):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert text in p.stderr, p.stderr
    assert "Traceback" not in p.stderr + p.stdout


@pytest.fixture
def files(write, syn, tmp_path):
    src = write("d.syn", DECLASSIFIES)
    write("in.jsonl", INPUTS)
    assert syn("compile", "d.syn").returncode == 0
    before = {n: (tmp_path / n).read_bytes() for n in ("d.syn", "d.synb", "in.jsonl")}
    yield src
    for name, data in before.items():       # nothing read was written to
        assert (tmp_path / name).read_bytes() == data, name


# ---- --audit (and the cassette) never name a file the command reads --------------------------

APPENDED = "the audit lines would be appended to it; give another file"


@pytest.mark.parametrize("args, said", [
    (["run", "d.syn", "--labels", "--audit", "d.syn"], "--audit d.syn is the program d.syn"),
    (["run", "d.syn", "--audit", "./d.syn"], "--audit ./d.syn is the program d.syn"),
    (["exec", "d.synb", "--audit", "d.synb"], "--audit d.synb is the program d.synb"),
    (["exec", "d.synb", "--labels", "--audit", "d.syn"],
     "--audit d.syn is the source of the program d.syn"),
    # not the fast `syn exec` path (the `--` sends it to click): the same check
    (["exec", "--audit", "d.synb", "--", "d.synb"], "--audit d.synb is the program d.synb"),
    (["run", "d.syn", "--call", "f", "--args-file", "in.jsonl", "--audit", "in.jsonl"],
     "--audit in.jsonl is the --args-file in.jsonl"),
    (["exec", "d.synb", "--call", "f", "--args-file", "in.jsonl", "--audit", "in.jsonl"],
     "--audit in.jsonl is the --args-file in.jsonl"),
    (["test", "d.syn", "--audit", "d.syn"], "--audit d.syn is the program d.syn"),
    (["test", ".", "--audit", "d.syn"], "--audit d.syn is the program ./d.syn"),
    (["batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit", "in.jsonl"],
     "--audit in.jsonl is the input dataset in.jsonl"),
    (["batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit", "d.syn"],
     "--audit d.syn is the program d.syn"),
    (["batch", "d.synb", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit", "d.syn"],
     "--audit d.syn is the source of the program d.syn"),
    (["batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit", "res.jsonl",
      "--labels"], "--audit res.jsonl is the -o results file res.jsonl"),
    (["serve", "d.syn", "--mcp", "--audit", "d.syn"], "--audit d.syn is the program d.syn"),
    (["serve", "d.synb", "--mcp", "--audit", "d.syn"],
     "--audit d.syn is the source of the program d.syn"),
])
def test_audit_is_never_a_file_the_command_reads(syn, files, tmp_path, args, said):
    p = syn(*args)
    usage(p, f"usage error: {said}: {APPENDED}")
    assert not (tmp_path / "res.jsonl").exists()


def test_audit_over_the_batch_results_is_refused_with_resume_too(syn, files, tmp_path):
    # The review's case: a declassifying task with --audit the results file was a
    # KeyError traceback in the final sort, audit lines mixed into the results.
    res = tmp_path / "res.jsonl"
    res.write_text("")
    p = syn("batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit",
            "res.jsonl", "--labels", "--resume", "--jobs", "1")
    usage(p, "--audit res.jsonl is the -o results file res.jsonl")
    assert res.read_text() == ""


def test_links_are_the_file_they_name(syn, files, tmp_path):
    os.symlink("d.syn", tmp_path / "sym.log")
    os.link(tmp_path / "in.jsonl", tmp_path / "hard.log")
    usage(syn("run", "d.syn", "--audit", "sym.log"), "--audit sym.log is the program d.syn")
    usage(syn("batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit",
              "hard.log"), "--audit hard.log is the input dataset in.jsonl")
    os.mkdir(tmp_path / "sub")
    usage(syn("run", "d.syn", "--audit", "sub/../d.syn"), "is the program d.syn")


def test_the_cassette_is_never_the_audit_log_or_a_file_read(syn, files, tmp_path):
    usage(syn("run", "d.syn", "--audit", "a.log", "--cassette", "./a.log"),
          "--audit a.log is the --cassette file ./a.log")
    usage(syn("run", "d.syn", "--audit", "a.log", env={"SYN_LLM_CASSETTE": "a.log"}),
          "--audit a.log is the SYN_LLM_CASSETTE file a.log")
    usage(syn("run", "d.syn", "--cassette", "d.syn"),
          "usage error: --cassette d.syn is the program d.syn: the recorded model exchanges "
          "would be written into it")
    usage(syn("batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--cassette",
              "res.jsonl"), "--cassette res.jsonl is the -o results file res.jsonl")
    usage(syn("repl", "--audit", "x.log", "--cassette", "x.log"),
          "--audit x.log is the --cassette file x.log")
    assert not (tmp_path / "a.log").exists() and not (tmp_path / "x.log").exists()


def test_other_audit_files_still_work(syn, files, tmp_path):
    p = syn("run", "d.syn", "--labels", "--audit", "audit.jsonl")
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "audit.jsonl").read_text())["event"] == "declassify"
    # a device destroys nothing: it may be named twice
    p = syn("run", "d.syn", "--labels", "--audit", "/dev/null", "--cassette", "/dev/null")
    assert p.returncode == 0, p.stderr
    p = syn("batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit",
            "b.jsonl", "--labels", "--jobs", "1")
    assert p.returncode == 0, p.stderr
    results = [json.loads(x) for x in (tmp_path / "res.jsonl").read_text().splitlines()]
    assert [r["value"] for r in results] == ["a", "b", "c"]
    audit = [json.loads(x) for x in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert sum(a["at"] == "d.syn:5" for a in audit) == 3      # the task's, once per item


def test_a_results_file_others_wrote_to_is_not_a_traceback(tmp_path):
    from synsema.cli import batch
    out = tmp_path / "res.jsonl"
    lines = '{"line": 2, "status": "ok"}\n{"event": "declassify"}\n{"line": 1, "status": "ok"}\n'
    out.write_text(lines)
    with pytest.raises(batch.Stop) as e:
        batch._in_input_order(str(out))
    assert e.value.code == 1 and "not results of this batch" in e.value.message
    assert out.read_text() == lines


# ---- empty paths ----------------------------------------------------------------------------

@pytest.mark.parametrize("args, flag", [
    (["run", "d.syn", "--labels", "--audit", ""], "--audit"),
    (["exec", "d.synb", "--audit", ""], "--audit"),
    (["test", "d.syn", "--audit", ""], "--audit"),
    (["run", "d.syn", "--cassette", ""], "--cassette"),
    (["batch", "d.syn", "--call", "f", "in.jsonl", "-o", "res.jsonl", "--audit", ""], "--audit"),
    (["batch", "d.syn", "--call", "f", "in.jsonl", "-o", ""], "-o"),
    (["compile", "d.syn", "-o", ""], "-o"),
])
def test_an_empty_path_is_a_usage_error(syn, files, tmp_path, args, flag):
    inode = os.stat(tmp_path / "d.synb").st_ino
    p = syn(*args)
    usage(p, f"usage error: {flag} needs a file path, got an empty one")
    assert os.stat(tmp_path / "d.synb").st_ino == inode     # compile wrote no default either


# ---- syn compile of a device -----------------------------------------------------------------

def test_compile_writes_no_default_output_beside_a_device(syn, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in ("/dev/null", str(fifo)):
        p = syn("compile", path, timeout=20)
        usage(p, f"usage error: {path} is not a regular file")
        assert "give -o PATH" in p.stderr
        assert not os.path.exists(path + ".synb")
    p = syn("compile", "/dev/null", "-o", "empty.synb")     # with -o a device is a source
    assert p.returncode == 0, p.stderr
    assert syn("exec", "empty.synb").returncode == 0


# ---- syn fmt and syn check on a .synb --------------------------------------------------------

def test_fmt_and_check_say_a_synb_is_compiled(syn, files, tmp_path):
    for command, does in (("fmt", "formats source code"), ("check", "compiles source code")):
        p = syn(command, "d.synb")
        usage(p, f"error: d.synb is a compiled program, and `syn {command}` {does}")
        assert "UTF-8" not in p.stderr
    p = syn("fmt", "--check", "d.synb")
    usage(p, "is a compiled program")
    p = syn("check", "--json", "d.synb")
    assert p.returncode == 2
    [entry] = json.loads(p.stdout)
    assert entry["file"] == "d.synb" and "is a compiled program" in entry["message"]
    # a folder still means its .syn files
    assert syn("check", ".").returncode == 0


# ---- syn fmt never writes a file too large to read -------------------------------------------

def nested(depth, lines):
    return "".join(f"let x{i} be " + "(" * depth + "1" + ")" * depth + "\n"
                   for i in range(lines))


@pytest.mark.parametrize("mode", [(), ("--check",), ("--diff",)])
def test_fmt_refuses_a_layout_larger_than_a_program_may_be(syn, write, mode):
    # 50 lines of 300 nested parentheses: 30 KB that runs; laid out one level per line,
    # 17 MiB, which no syn command reads (api.MAX_PROGRAM_BYTES).
    text = nested(300, 50)
    src = write("deep.syn", text)
    assert syn("run", "deep.syn").returncode == 0
    p = syn("fmt", *mode, "deep.syn")
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("error: deep.syn: the canonical layout would hold 1")
    assert "more than the 16 MiB a program file may hold" in p.stderr
    assert p.stderr.rstrip().endswith("it is left as it is")
    assert p.stdout == "" and "Traceback" not in p.stderr
    assert src.read_text() == text


def test_fmt_refuses_a_quadratic_layout_before_making_it(syn, write):
    # 10,000 nested parentheses would be laid out in 400 MB: refused at once, from the
    # bound, without building it.
    text = "let x be " + "(" * 10000 + "1" + ")" * 10000 + "\n"
    src = write("deep.syn", text)
    start = time.monotonic()
    p = syn("fmt", "deep.syn", timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "far more than the 16 MiB a program file may hold" in p.stderr
    assert time.monotonic() - start < 30
    assert src.read_text() == text
    src.write_text(nested(300, 500))        # many lines each well in range: the same
    p = syn("fmt", "deep.syn", timeout=60)
    assert p.returncode == 1 and "far more than the 16 MiB" in p.stderr


def test_the_layout_bound_holds_for_the_examples():
    from pathlib import Path
    from synsema.cli.fmt import formatted, layout_bound
    from conftest import ROOT
    paths = sorted(Path(ROOT, "examples").rglob("*.syn"))
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8")
        out = formatted(text, str(path))
        assert len(out.encode("utf-8")) <= layout_bound(text) <= 4 * len(text.encode()), path
    squeezed = "let t be [" + ", ".join(f'"{i}"' for i in range(500)) + "]\n"
    assert len(formatted(squeezed, "t.syn")) <= layout_bound(squeezed)


def test_the_editor_formatting_refuses_it_too():
    from synsema.cli.lsp import format_text
    assert format_text(nested(300, 50)) is None
    assert format_text("let x be [1,2]\n") == "let x be [1, 2]\n"


# ---- Ctrl-C stops syn serve at once ------------------------------------------------------------

def _serve(tmp_path, *extra):
    (tmp_path / "spin.syn").write_text(SPIN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYN_LLM")}
    return subprocess.Popen(syn_command() + ["serve", "spin.syn", "--mcp", *extra],
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _interrupt(p):
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("syn serve did not stop on Ctrl-C")
    err = err.decode()
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err
    assert "Exception ignored" not in err


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "spin", "arguments": {}}}


@pytest.mark.parametrize("busy", [False, True])
def test_ctrl_c_stops_serve_over_stdio(tmp_path, busy):
    p = _serve(tmp_path)
    try:
        for msg in [INIT, INITIALIZED] + ([CALL] if busy else []):
            p.stdin.write((json.dumps(msg) + "\n").encode())
            p.stdin.flush()
            if msg is INIT:
                assert b'"id":1' in p.stdout.readline()
        time.sleep(1.0)         # the call is running its endless loop
        _interrupt(p)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def _post(url, msg, session=None):
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
    request = urllib.request.Request(url, json.dumps(msg).encode(), headers)
    for _ in range(100):
        try:
            return urllib.request.urlopen(request, timeout=30)
        except urllib.error.URLError as e:
            if "refused" not in str(e):
                raise
            time.sleep(0.1)     # the banner is written just before uvicorn listens
    raise AssertionError(f"{url} never answered")


@pytest.mark.parametrize("busy", [False, True])
def test_ctrl_c_stops_serve_over_http(tmp_path, busy):
    p = _serve(tmp_path, "--http", "127.0.0.1:0")
    try:
        banner = p.stderr.readline().decode()
        assert "(Ctrl-C stops)" in banner
        url = re.search(r"(http://\S+/mcp)", banner).group(1)
        if busy:
            r = _post(url, INIT)
            session = r.headers.get("mcp-session-id")
            r.read()
            _post(url, INITIALIZED, session).read()

            def call():
                try:
                    _post(url, CALL, session).read()
                except Exception:
                    pass        # the server went away mid-answer: what the test does
            threading.Thread(target=call, daemon=True).start()
        else:
            _post(url, INIT).read()
        time.sleep(1.0)
        _interrupt(p)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()



def test_compile_refuses_a_program_its_synb_could_not_hold(tmp_path, syn):
    # 11 nested lists of 9,999 items each: each bound alone holds, the stack does not.
    e = "[" + ", ".join("1" for _ in range(9_999)) + "]"
    for _ in range(10):
        e = "[" + ", ".join("1" for _ in range(9_998)) + ", " + e + "]"
    (tmp_path / "deep.syn").write_text(f"print(len({e}))\n")
    r = syn("compile", "deep.syn", "-o", "deep.synb")
    assert r.returncode == 1 and not (tmp_path / "deep.synb").exists()
    assert "the compiled program goes past what a .synb may hold" in r.stderr
    assert "the stack grows past" in r.stderr and "Traceback" not in r.stderr


def test_the_audit_log_is_not_the_source_beside_a_compiled_file_of_any_name(tmp_path, syn):
    (tmp_path / "app.syn").write_text('print("hi")\n')
    assert syn("compile", "app.syn", "-o", "app.bin").returncode == 0
    r = syn("exec", "app.bin", "--audit", "app.syn")
    assert r.returncode == 2 and "is the source of the program" in r.stderr
    assert (tmp_path / "app.syn").read_text() == 'print("hi")\n'


def test_a_cassette_is_not_checked_for_a_program_that_cannot_call_a_model(tmp_path, syn):
    (tmp_path / "p.syn").write_text('print("hi")\n')
    r = syn("run", "p.syn", "--cassette", "p.syn")
    assert r.returncode == 0 and r.stdout == "hi\n"
    assert (tmp_path / "p.syn").read_text() == 'print("hi")\n'
