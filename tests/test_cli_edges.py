"""The command line's rough edges, as a new user met them (issue 15), each run as a real
process: unsafe -o targets, stdout that breaks or fills, limits that are not numbers,
Ctrl-C, provider settings, `syn test` over several files, the command that fits."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import syn_command

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import LLMServer, openai_error, openai_text  # noqa: E402

COUNT = 'let i be 0\nwhile i < 20000\n    print(i)\n    set i to i + 1\n'
SPIN = 'let i be 0\nwhile true\n    set i to i + 1\n\ntest "spins"\n    while true\n        let j be 1\n'
ASKS = 'require llm\nprint(ask("hi"))\n'
TWO = ('print("top")\ntask add(a, b)\n    give a + b\n'
       'test "adds"\n    assert_eq(add(1, 2), 3)\n'
       'test "shows what it printed"\n    print("looking at " + text(add(1, 1)))\n    assert_eq(add(1, 1), 3)\n')


def no_traceback(p):
    assert "Traceback" not in p.stderr + p.stdout


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("SYN_LLM") or k.endswith("_API_KEY") or k.endswith("_BASE_URL"))}
    env.update(extra)
    return env


# ---- syn compile -o -----------------------------------------------------------------------

def test_compile_refuses_to_overwrite_its_source(syn, write):
    src = write("x.syn", 'print("hi")\n')
    p = syn("compile", "x.syn", "-o", "x.syn")
    assert p.returncode == 2 and "is the source file itself" in p.stderr
    assert src.read_text() == 'print("hi")\n'
    os.symlink("x.syn", src.parent / "link.syn")
    p = syn("compile", "x.syn", "-o", "link.syn")
    assert p.returncode == 2 and "source file itself" in p.stderr
    assert src.read_text() == 'print("hi")\n'


def test_compile_refuses_a_fifo_as_output(syn, write, tmp_path):
    # A FIFO stands for every special file: the test never points -o at a real device.
    write("x.syn", 'print("hi")\n')
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    p = syn("compile", "x.syn", "-o", "pipe")
    assert p.returncode == 2 and "not a regular file" in p.stderr
    assert not fifo.is_file() and os.path.exists(fifo)
    assert syn("compile", "x.syn", "-o", "out.synb").returncode == 0


# ---- stdout that breaks, is closed, or is full ---------------------------------------------

def test_broken_pipe_is_a_quiet_exit(write, tmp_path):
    write("p.syn", COUNT)
    cmd = " ".join(syn_command()) + " run p.syn | head -2"
    p = subprocess.run(["bash", "-c", cmd + "; echo rc=${PIPESTATUS[0]}"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60, env=clean_env())
    assert p.stdout.splitlines() == ["0", "1", "rc=1"]
    assert p.stderr == ""


@pytest.mark.parametrize("redirect, says", [(">&-", "stdout is closed"),
                                            ("> /dev/full", "No space left on device")])
@pytest.mark.parametrize("command", ["run p.syn", "exec p.synb", "outline p.syn"])
def test_closed_or_full_stdout_is_one_line(write, tmp_path, syn, redirect, says, command):
    write("p.syn", COUNT)
    assert syn("compile", "p.syn").returncode == 0
    cmd = " ".join(syn_command()) + f" {command} {redirect}"
    p = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60, env=clean_env())
    assert p.returncode == 1
    assert p.stderr == f"error: cannot write to stdout: {says}\n"


# ---- limits that are not numbers -----------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300", "0", "-3", "soon"])
@pytest.mark.parametrize("command", ["run p.syn", "exec p.synb", "test p.syn"])
def test_timeout_must_be_a_real_number_of_seconds(syn, write, value, command):
    write("p.syn", 'print("hi")\n')
    syn("compile", "p.syn")
    p = syn(*command.split(), "--timeout", value)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "--timeout" in p.stderr and "hi" not in p.stdout
    no_traceback(p)


@pytest.mark.parametrize("flag, value", [("--llm-timeout", "nan"), ("--llm-timeout", "inf"),
                                         ("--llm-max-retries", "-1"),
                                         ("--llm-max-retries", "two")])
def test_llm_request_flags_are_checked(syn, write, flag, value):
    write("p.syn", ASKS)
    p = syn("run", "p.syn", flag, value)
    assert p.returncode == 2 and flag in p.stderr


def test_llm_flags_reach_the_provider(syn, write):
    """--llm-max-retries 0: one attempt only; SYN_LLM_MAX_RETRIES=1: two."""
    write("p.syn", ASKS)
    with LLMServer() as server:
        server.reply(openai_error("overloaded", "server_error"), 503, times=3)
        for extra, env, attempts in ((["--llm-max-retries", "0"], {}, 1),
                                     ([], {"SYN_LLM_MAX_RETRIES": "1"}, 2)):
            before = len(server.requests)
            p = syn("run", "p.syn", "--llm-url", server.url, *extra, env=env)
            assert p.returncode == 1 and "HTTP 503" in p.stderr
            assert len(server.requests) - before == attempts


# ---- Ctrl-C ----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["run", "spin.syn"], ["exec", "spin.synb"],
                                     ["exec", "spin.synb", "--labels"], ["test", "spin.syn"]])
def test_ctrl_c_exits_130_everywhere(syn, write, tmp_path, command):
    write("spin.syn", SPIN)
    assert syn("compile", "spin.syn").returncode == 0
    p = subprocess.Popen(syn_command() + command, cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=clean_env(),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130
    assert err.strip() == "interrupted" and "Aborted" not in err


# ---- the command that fits -------------------------------------------------------------------

def test_each_command_names_the_one_that_fits(syn, write):
    write("app.syn", 'print("hi")\n')
    assert syn("compile", "app.syn").returncode == 0
    cases = [(("run", "app.synb"), "syn exec app.synb"), (("exec", "app.syn"), "syn run app.syn"),
             (("inspect", "app.syn"), "syn outline app.syn"),
             (("compile", "app.synb"), "syn exec app.synb")]
    for args, fits in cases:
        p = syn(*args)
        assert p.returncode == 2 and fits in p.stderr, (args, p.stderr)
        assert len(p.stderr.splitlines()) == 1


# ---- long lines and deep expressions ---------------------------------------------------------

def test_a_long_line_is_clipped_around_the_caret(syn, write):
    line = "let x be " + "1 + " * 300 + '"a" + ' + "2 + " * 300 + "3"
    write("long.syn", line + "\n")
    p = syn("run", "long.syn")
    assert p.returncode == 1
    shown, caret = p.stderr.splitlines()[1:3]
    assert len(shown) < 120 and shown.strip().startswith("...") and shown.endswith("...")
    assert '"a"' in shown
    assert shown[caret.index("^")] == "+"          # the caret still points at the operator
    assert shown[caret.index("^") + 2:].startswith('"a"')


def test_an_expression_of_a_thousand_terms_compiles(syn, write):
    write("sum.syn", "print(" + " + ".join(["1"] * 1000) + ")\n")
    p = syn("run", "sum.syn")
    assert (p.returncode, p.stdout) == (0, "1000\n"), p.stderr
    # CPython compiles the same expression, which is the depth promised.
    compile("print(" + " + ".join(["1"] * 1000) + ")", "sum.py", "exec")


# ---- provider settings -------------------------------------------------------------------

def test_both_keys_set_do_not_stop_a_cassette_replay(syn, write, tmp_path):
    write("p.syn", ASKS)
    tape = tmp_path / "t.jsonl"
    with LLMServer() as server:
        server.reply(openai_text("hello"))
        p = syn("run", "p.syn", "--llm-url", server.url, "--cassette", tape,
                "--cassette-mode", "record")
        assert p.returncode == 0 and p.stdout == "hello\n", p.stderr
    p = syn("run", "p.syn", "--cassette", tape, "--cassette-mode", "replay",
            env={"OPENAI_API_KEY": "sk-a", "ANTHROPIC_API_KEY": "sk-b"})
    assert p.returncode == 0 and p.stdout == "hello\n", p.stderr
    p = syn("run", "p.syn", env={"OPENAI_API_KEY": "sk-a", "ANTHROPIC_API_KEY": "sk-b"})
    assert p.returncode == 2 and "SYN_LLM_API" in p.stderr       # online it must be chosen


def test_cassette_mode_without_a_cassette_is_a_usage_error(syn, write):
    write("p.syn", ASKS)
    p = syn("run", "p.syn", "--cassette-mode", "replay")
    assert p.returncode == 2 and "--cassette-mode replay needs a cassette file" in p.stderr


def test_openai_base_url_gets_the_request_and_the_key(syn, write):
    write("p.syn", ASKS)
    with LLMServer() as server:
        server.reply(openai_text("from the gateway"))
        p = syn("run", "p.syn", env={"OPENAI_API_KEY": "sk-test-key",
                                     "OPENAI_BASE_URL": server.url + "/v1"})
        assert p.returncode == 0 and p.stdout == "from the gateway\n", p.stderr
        (req,) = server.requests
        assert req["path"] == "/v1/chat/completions"
        assert req["headers"]["authorization"] == "Bearer sk-test-key"


def test_syn_test_is_offline_unless_asked(syn, write):
    write("t.syn", 'require llm\ntest "offline"\n    assert_eq(ask("hi"), "[no llm provider]")\n')
    with LLMServer() as server:
        server.reply(openai_text("online answer"))
        env = {"OPENAI_API_KEY": "sk-test-key", "OPENAI_BASE_URL": server.url}
        p = syn("test", "t.syn", env=env)
        assert p.returncode == 0 and server.requests == [], p.stdout + p.stderr
        p = syn("test", "t.syn", "--online", env=env)
        assert p.returncode == 1 and "online answer" in p.stdout
        assert len(server.requests) == 1


def test_trace_says_when_offline(syn, write):
    write("p.syn", ASKS)
    p = syn("run", "p.syn", "--trace")
    assert p.returncode == 0 and p.stdout == "[no llm provider]\n"
    assert p.stderr.startswith("trace: model: none configured") and "offline" in p.stderr
    write("plain.syn", 'print("no model here")\n')
    assert syn("run", "plain.syn", "--trace").stderr == ""


# ---- syn test over several files ---------------------------------------------------------

def test_syn_test_ids_order_compile_errors_and_printed_output(syn, write):
    write("a.syn", TWO)
    write("b.syn", "let x be\n")
    write("c.syn", 'test "fine"\n    assert(true)\n')
    p = syn("test", "a.syn", "b.syn", "c.syn")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert lines[0] == "ok    a.syn::adds"
    assert lines[1] == "FAIL  a.syn::shows what it printed"
    assert lines[3:5] == ["      printed:", "        looking at 2"]
    assert lines[5] == "FAIL  b.syn::(compile)"
    assert lines[6].startswith("      b.syn:1:7: error:")      # at the `be` with nothing after it
    assert "ok    c.syn::fine" in lines and lines[-1] == "2 passed, 2 failed"
    data = json.loads(syn("test", "--json", "a.syn", "b.syn", "c.syn").stdout)
    ids = [t["id"] for f in data["files"] for t in f["tests"]]
    assert ids == ["a.syn::adds", "a.syn::shows what it printed", "b.syn::(compile)",
                   "c.syn::fine"]
    failed = data["files"][0]["tests"][1]
    assert failed["output"] == "looking at 2\n" and failed["message"] == "expected 3, got 2"
    compile_error = data["files"][1]["tests"][0]
    assert compile_error["message"].startswith("b.syn:1:7: error:")
    assert "^" in compile_error["report"]


def test_syn_test_json_is_json_when_the_ceiling_refuses(syn, write):
    write("a.syn", 'test "ok"\n    assert(true)\n')
    write("b.syn", 'require net("example.com")\ntest "never"\n    assert(true)\n')
    p = syn("test", "--json", "--cap-set", "stdout", "a.syn", "b.syn")
    assert p.returncode == 3
    data = json.loads(p.stdout)
    refused = data["files"][1]["tests"][0]
    assert refused["name"] == "(refused)" and "b.syn" in refused["message"]
    assert "does not grant" in refused["message"] and data["passed"] == 1


def test_syn_test_exit_codes_of_pytest(syn, write):
    write("a.syn", 'test "ok"\n    assert(true)\n')
    p = syn("test", "-k", "nothing like it", "a.syn")
    assert p.returncode == 2 and "no test matched" in p.stderr
    p = syn("test", "a.syn", "missing.syn")
    assert p.returncode == 2 and "missing.syn" in p.stderr and p.stdout == ""
    p = syn("test", "--json", "missing.syn")
    assert p.returncode == 2 and "missing.syn" in json.loads(p.stdout)["error"]


@pytest.mark.parametrize("source, says", [
    ('test "same"\n    assert(true)\ntest "same"\n    assert(true)\n',
     'test "same" is already declared at line 1'),
    ('test ""\n    assert(true)\n', "not an empty text"),
    ('test "   "\n    assert(true)\n', "not an empty text")])
def test_duplicate_and_empty_test_names_do_not_compile(syn, write, source, says):
    write("t.syn", source)
    p = syn("compile", "t.syn")
    assert p.returncode == 1 and says in p.stderr


# ---- the repository tells the truth about itself --------------------------------------------

def test_license_file_matches_pyproject():
    import tomllib
    from conftest import ROOT
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    text = (ROOT / "LICENSE").read_text()
    assert declared == {"text": "MIT"} and text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_the_demo_is_described_as_recorded_from_a_scripted_server():
    from conftest import ROOT
    makefile = (ROOT / "Makefile").read_text()
    readme = (ROOT / "examples" / "README.md").read_text()
    assert "a real multi-step" not in makefile
    assert "scripted local server" in makefile and "not from a hosted model" in makefile
    assert "not recorded from a hosted model" in readme


# ---- Python habits ---------------------------------------------------------------------------

@pytest.mark.parametrize("source, says", [
    ("let x be True\n", "'True' is not declared; Synsema writes true"),
    ("let x be None\n", "'None' is not declared; Synsema writes nothing"),
    ("let x be str(5)\n", "'str' is not declared; use text(x) to make a text"),
    ('let x be int("5")\n', "use number(x)"),
    ("task f()\n    give elif\n", "otherwise when COND"),
])
def test_python_words_get_the_synsema_form(syn, write, source, says):
    write("h.syn", source)
    p = syn("compile", "h.syn")
    assert p.returncode == 1 and says in p.stderr


@pytest.mark.parametrize("source, fix, col", [
    ("let xs be []\nappend(xs, 1)\n", "`set xs to append(xs, ...)`", 1),
    ('let m be {}\nwhen true\n    put(m, "a", 1)\n', "`set m to put(m, ...)`", 5)])
def test_a_thrown_away_append_or_put_does_not_compile(syn, write, source, fix, col):
    write("v.syn", source)
    p = syn("compile", "v.syn")
    assert p.returncode == 1
    assert "is thrown away" in p.stderr and "lists and maps are values" in p.stderr
    assert fix in p.stderr and f":{col}: error:" in p.stderr.splitlines()[0]


def test_kept_results_and_own_tasks_named_append_compile(syn, write):
    write("ok.syn", 'let xs be []\nset xs to append(xs, 1)\nprint(len(append(xs, 2)))\n')
    assert syn("run", "ok.syn").stdout == "2\n"
    write("own.syn", 'task append(a, b)\n    print("mine")\nappend(1, 2)\n')
    assert syn("run", "own.syn").stdout == "mine\n"
