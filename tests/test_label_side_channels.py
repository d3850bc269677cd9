"""What a run tells its host besides its output, under --labels: label-violation messages,
audit lines, trace lines of model retries, results that cannot leave, and token counts.
Each must say nothing that depends on labelled data the ceiling does not let out (SPEC 10;
docs/security.md), and each says everything when the ceiling lets the labels out."""

import json
import os
import sys

import pytest

import synsema
from synsema.api import public_message
from synsema.vm.caps import Ceiling

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import LLMServer, openai_error, openai_text  # noqa: E402
from test_llm_vm import run_syn  # noqa: E402


def compiled(src):
    return synsema.compile_source(src, "app.syn")


# ---- label violations under a labelled condition ------------------------------------------

BRANCHES = """\
let s be private(SECRET, "k")
let a be 0
let b be 0
let c be 0
when s == 0
    set a to 1
otherwise when s == 1
    print("b")
otherwise
    set c to 1
"""


def violation_text(secret, cap_set):
    with pytest.raises(synsema.LabelViolation) as e:
        compiled(BRANCHES.replace("SECRET", str(secret))).run(labels=True, cap_set=cap_set)
    return str(e.value)


def test_a_violation_under_a_labelled_branch_does_not_say_which_branch_ran():
    texts = {violation_text(s, "stdout") for s in (0, 1, 2)}
    assert len(texts) == 1, texts        # a `set` of a, a print, a `set` of c: one message
    (text,) = texts
    assert "under a condition on data labelled k" in text
    assert "'a'" not in text and "'c'" not in text and "print" not in text.split(".")[0]


def test_where_the_reader_may_see_the_labels_the_violation_is_told_in_full():
    # Developer mode (no ceiling) may declassify anything: nothing is kept from it.
    assert "set of 'a' under a branch on data labelled k" in violation_text(0, None)
    assert "set of 'c' under a branch" in violation_text(2, None)
    # A ceiling that prints k: the same.
    assert "set of 'a'" in violation_text(0, "stdout,stdout=k")


def test_a_violation_under_a_public_pc_keeps_its_message():
    with pytest.raises(synsema.LabelViolation, match="print would reveal data labelled k"):
        compiled('print(private(1, "k"))\n').run(labels=True, cap_set="stdout")


# ---- the audit log --------------------------------------------------------------------------

def audit_lines(tmp_path, src, cap_set, **kw):
    path = tmp_path / "audit.jsonl"
    if path.exists():
        path.unlink()
    try:
        compiled(src).run(labels=True, cap_set=cap_set, audit=str(path), **kw)
    except synsema.Error:
        pass
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def ping_tool():
    calls = []

    @synsema.tool(name="t.ping")
    def ping() -> int:
        """Ping."""
        calls.append(1)
        return 1
    return ping, calls


LOOP = """\
require tool("t.ping")
let s be private(N, "k")
let i be 0
try
    while i < s
        host_tool("t.ping")()
        set i to i + 1
recover e
    let z be 1
"""


def test_audit_events_under_a_labelled_condition_are_not_written(tmp_path, ping_tool):
    tool, _ = ping_tool
    seen = []
    for n in (0, 2, 5):         # 0: the loop does not run at all
        lines = audit_lines(tmp_path, LOOP.replace("N", str(n)), "stdout,tool=t.ping",
                            tools=[tool])
        seen.append(lines)
    assert seen[0] == seen[1] == seen[2] == []
    # A reader the ceiling lets see k gets every call, with its position.
    full = audit_lines(tmp_path, LOOP.replace("N", "5"), "stdout,stdout=k,tool=t.ping",
                       tools=[tool])
    calls = [line for line in full if line["event"] == "host_tool"]
    assert len(calls) >= 1 and all(line["at"] == "app.syn:6" for line in calls)


def test_an_audit_position_under_a_labelled_branch_is_not_written(tmp_path):
    src = 'let s be private(S, "k")\nwhen s == 1\n    print("a")\notherwise\n    print("b")\n'
    one = audit_lines(tmp_path, src.replace("S", "1"), "stdout")
    two = audit_lines(tmp_path, src.replace("S", "2"), "stdout")
    # The violation ends the run (its exit code says so anyway): it is written, with the
    # condition's labels only, and without its place.
    assert one == two and [line["event"] for line in one] == ["label_violation"]
    assert one[0]["at"] == "(withheld: under a labelled condition)"
    assert "under a condition on data labelled k" in one[0]["message"]


def test_the_audit_log_does_not_name_a_tool_a_labelled_value_chose(tmp_path):
    @synsema.tool(name="alpha")
    def alpha(x: int) -> int:
        """A."""
        return x

    @synsema.tool(name="beta")
    def beta(x: int) -> int:
        """B."""
        return x

    src = ('require tool("alpha")\nrequire tool("beta")\nlet secret be private(S, "s")\n'
           'let t be host_tools()[secret]\nt(1)\n')
    runs = [audit_lines(tmp_path, src.replace("S", f'"{n}"'), "stdout,tool=*",
                        tools=[alpha, beta]) for n in ("alpha", "beta")]
    assert runs[0] == runs[1]
    assert runs[0][0]["tool"] == "(withheld: labelled data)"
    shown = audit_lines(tmp_path, src.replace("S", '"beta"'), "stdout,stdout=s,tool=*",
                        tools=[alpha, beta])
    assert shown[0]["tool"] == "beta"


def test_the_host_of_a_labelled_url_is_not_written_to_the_audit_log(tmp_path):
    src = ('require net("*.example.com", "k")\nlet s be private("hunter2", "k")\n'
           'http_get("http://" + s + ".example.invalid.example.com/")\n')
    lines = audit_lines(tmp_path, src, "stdout,net=k@*.example.com", timeout=5)
    text = json.dumps(lines)
    assert "hunter2" not in text
    (cap,) = [line for line in lines if line["event"] == "capability"]
    assert cap["host"] == "(withheld: labelled data)" and cap["at"] == "app.syn:3"


def test_a_public_audit_line_is_unchanged(tmp_path):
    lines = audit_lines(tmp_path, 'let s be private(1, "k")\nlet p be declassify(s, "ok")\n',
                        "stdout,declassify=k")
    assert lines == [{"event": "declassify", "labels": ["k"], "reason": "ok",
                      "at": "app.syn:2"}]


# ---- results that cannot leave ----------------------------------------------------------

PROBE = """\
let secret be private("hunter2", "k")
task probe(i: number, c: text)
    when secret[i] == c
        give [probe]
    give [1]
"""


def test_a_labelled_result_holding_a_task_value_is_as_labelled_as_the_result():
    # `syn serve --mcp` answers a client with public_message: a right guess (a task value
    # in the result) and a wrong one (a result the ceiling does not let out) must read alike.
    prog = compiled(PROBE)
    ceiling = Ceiling.parse("stdout")
    with pytest.raises(synsema.RunError) as e:
        prog.call("probe", {"i": 0, "c": "h"}, labels=True, cap_set="stdout")
    assert e.value.labels == {"k"}
    assert public_message(e.value, ceiling) == "error: (message withheld)"
    wrong = prog.call("probe", {"i": 0, "c": "x"}, labels=True, cap_set="stdout")
    assert wrong.labels == {"k"} and ceiling.blocked(wrong.labels)


def test_serve_answers_a_right_and_a_wrong_guess_alike(tmp_path):
    from synsema.cli import serve
    path = tmp_path / "sv.syn"
    path.write_text(PROBE)
    values = {"labels": True, "cap_set": "stdout,stdout=untrusted",
              "args_label": ("untrusted",)}
    app = serve._App(synsema.compile_file(str(path)), values, ())
    right = app.run("probe", {"i": 0, "c": "h"})
    wrong = app.run("probe", {"i": 0, "c": "x"})
    assert right["isError"] and wrong["isError"]
    assert "task value" not in json.dumps(right) and "hunter2" not in json.dumps(right)


# ---- a --call result is written with the stdout capability ------------------------------

def test_a_call_result_needs_stdout_as_print_does(tmp_path):
    app = tmp_path / "f.syn"
    app.write_text("task f(x)\n    give x\n")
    r = run_syn("run", app, "--cap-set", "llm", "--call", "f", "--args", '{"x": 5}')
    assert r.returncode == 1 and r.stdout == ""
    assert "writing the result of task 'f' to stdout needs stdout" in r.stderr
    r = run_syn("run", app, "--labels", "--cap-set", "stdout=k", "--args-label", "k",
                "--call", "f", "--args", '{"x": 5}')
    assert r.returncode == 1 and r.stdout == "" and "needs stdout" in r.stderr
    r = run_syn("run", app, "--cap-set", "stdout", "--call", "f", "--args", '{"x": 5}')
    assert r.returncode == 0 and r.stdout == "5\n"


# ---- model calls: retries in the trace, tokens of answers that are rejected ---------------

@pytest.fixture
def server():
    with LLMServer() as s:
        yield s


def test_trace_does_not_show_a_retry_of_a_labelled_prompt(tmp_path, server):
    app = tmp_path / "a.syn"
    app.write_text('require llm("k")\nprint(declassify(ask(private("tell", "k")), "ok"))\n')
    for labelled in (True, False):
        server.reply(openai_error("busy"), status=503)
        server.reply(openai_text("fine"))
        args = ["run", app, "--llm-url", server.url, "--trace", "--llm-max-retries", "2"]
        if labelled:
            args += ["--labels", "--cap-set", "stdout,llm=k@127.0.0.1,declassify=k"]
        r = run_syn(*args, env={"SYN_LLM_KEY": "x"})
        assert r.returncode == 0, r.stderr
        assert r.stdout == "fine\n"
        assert ("retry 1" in r.stderr) is (not labelled), r.stderr


def test_tokens_of_an_answer_the_run_rejects_are_counted(tmp_path, server):
    app = tmp_path / "t.syn"
    app.write_text('require llm\ntry\n    classify("x", ["a", "b"])\nrecover e\n    print(e)\n'
                   'print(llm_tokens_used())\nprint(ask("y"))\nprint(llm_tokens_used())\n')
    server.reply(openai_text("c", prompt_tokens=100, completion_tokens=10))
    server.reply(openai_text("ok", prompt_tokens=10, completion_tokens=1))
    r = run_syn("run", app, "--llm-url", server.url, env={"SYN_LLM_KEY": "x"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1:] == ["110", "ok", "121"], r.stdout
