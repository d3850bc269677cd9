"""`syn batch` (docs/batch.md): one task over a JSON-lines file, on the local process
pool and on a real local Ray cluster. Bad input lines, failing host tools, a label
violation and a spent token budget each end their item only (or stop scheduling); a run
killed half-way and resumed loses and repeats no item; exit codes."""

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, syn_command
from llm_server import LLMServer, openai_text

EXAMPLE = ROOT / "examples" / "batch"

APP = """\
task answer(question: text, n: number = 2)
    when question == "boom"
        fail("boom asked")
    when question == "leak"
        give private("the secret", "secret")
    give {"q": question, "n": n * 2}
"""

TOOLS = """\
import synsema

@synsema.tool()
def double(x: int) -> int:
    \"\"\"Double it, except 3.\"\"\"
    if x == 3:
        raise ValueError("three is bad")
    return x * 2
"""

TOOLY = """\
require tool("double")
task go(x: number)
    give host_tool("double")(x)
"""

# About 40 ms an item: long enough to stop a run half-way.
SLOW = """\
task work(id: number)
    let n be 0
    let total be 0
    while n < 20000
        set total to total + n % 7
        set n to n + 1
    give [id, total]
"""


def lines(path):
    return [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines()]


def without_time(results):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in results]


def write_inputs(path, rows):
    Path(path).write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n"
                                  for r in rows), encoding="utf-8")


@pytest.fixture
def app(write):
    write("app.syn", APP)


def test_each_input_line_is_one_result_line_and_a_bad_line_names_itself(app, syn, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [
        {"id": "a", "question": "hi"}, {"question": 3}, "not json\n", "\n",
        {"question": "boom", "n": 5}, "[1, 2]\n", {"id": 7, "question": "x", "n": 7}])
    r = syn("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "out.jsonl")
    assert r.returncode == 0, r.stderr
    assert r.stderr == "6 items: 2 ok, 4 error in " + r.stderr.split(" in ")[1]
    got = lines(tmp_path / "out.jsonl")
    assert [(x["line"], x["id"], x["status"]) for x in got] == [
        (1, "a", "ok"), (2, None, "error"), (3, None, "error"), (5, None, "error"),
        (6, None, "error"), (7, 7, "ok")]
    assert got[0]["value"] == {"q": "hi", "n": 4} and got[5]["value"] == {"q": "x", "n": 14}
    assert got[1]["error"] == ("app.syn: error: bad arguments for task 'answer': 'question' "
                               "must be text, got number")
    assert got[2]["error"].startswith("in.jsonl:3: error: the input is not valid JSON")
    assert got[3]["error"].startswith("app.syn:3:13: error: boom asked")
    assert got[4]["error"].startswith("in.jsonl:6: error: the input is a list, not a JSON "
                                      "object")
    for x in got:
        assert x["labels"] == [] and x["tokens"] == 0 and x["tool_calls"] == []
        assert x["seconds"] >= 0 and x["output"] == ""


def test_a_host_tool_failing_on_some_items_fails_those_only(write, syn, tmp_path):
    write("mytools.py", TOOLS)
    write("tooly.syn", TOOLY)
    write_inputs(tmp_path / "in.jsonl", [{"x": n} for n in range(1, 6)])
    r = syn("batch", "tooly.syn", "--call", "go", "in.jsonl", "-o", "out.jsonl", "--tools",
            "mytools:double", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "5 items: 4 ok, 1 error" in r.stderr
    got = lines(tmp_path / "out.jsonl")
    assert [x.get("value") for x in got] == [2, 4, None, 8, 10]
    assert "host tool 'double' failed: ValueError: three is bad" in got[2]["error"]
    assert got[2]["tool_calls"] == [{"name": "double", "outcome": "failed"}]
    assert got[0]["tool_calls"] == [{"name": "double", "outcome": "ok"}]


def test_a_label_violation_ends_that_item_only(app, syn, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [{"question": q} for q in ("a", "leak", "b")])
    base = ("batch", "app.syn", "--call", "answer", "in.jsonl", "--labels")
    r = syn(*base, "-o", "out.jsonl")
    assert r.returncode == 0 and "3 items: 2 ok, 1 label_violation" in r.stderr, r.stderr
    got = lines(tmp_path / "out.jsonl")
    assert [x["status"] for x in got] == ["ok", "label_violation", "ok"]
    # Where it happened and which labels can depend on the data: the file says neither.
    assert got[1]["error"] == "label_violation (details withheld; the --audit log has them)"
    assert "the secret" not in (tmp_path / "out.jsonl").read_text()
    # The results file is a stdout sink: a ceiling that opens it lets the value through,
    # and the result line says which labels it carries.
    r = syn(*base, "-o", "open.jsonl", "--cap-set", "stdout,stdout=secret")
    got = lines(tmp_path / "open.jsonl")
    assert (got[1]["status"], got[1]["value"], got[1]["labels"]) == ("ok", "the secret",
                                                                     ["secret"])


def test_the_token_budget_stops_scheduling_and_resume_runs_the_rest(write, syn, tmp_path):
    write("ask.syn", 'require llm\ntask ask(q: text)\n    give llm_step(q, [], "")["text"]\n')
    write_inputs(tmp_path / "in.jsonl", [{"q": f"question {n}"} for n in range(12)])
    with LLMServer() as server:
        server.reply(openai_text("fine", prompt_tokens=8, completion_tokens=2), times=12)
        args = ("batch", "ask.syn", "--call", "ask", "in.jsonl", "-o", "out.jsonl",
                "--llm-url", server.url, "--llm-model", "m", "--jobs", "1")
        r = syn(*args, "--max-tokens", "30")
        assert r.returncode == 4, r.stderr
        first = lines(tmp_path / "out.jsonl")
        # 3 items spend the budget; the items already in flight (2 per worker) finish.
        assert 3 <= len(first) <= 5 and all(x["tokens"] == 10 for x in first)
        assert f"token budget of 30 spent ({10 * len(first)} used): {12 - len(first)} " \
               "items not run, --resume runs them" in r.stderr
        r = syn(*args, "--resume")
        assert r.returncode == 0, r.stderr
    got = lines(tmp_path / "out.jsonl")
    assert [x["line"] for x in got] == list(range(1, 13))
    assert all(x["status"] == "ok" and x["value"] == "fine" for x in got)
    assert len(server.requests) == 12
    assert f"({len(first)} done by an earlier run)" in r.stderr


def test_max_steps_and_timeout_are_per_item(write, syn, tmp_path):
    write("spin.syn", "task spin(n: number)\n    let i be 0\n    while i < n\n"
                      "        set i to i + 1\n    give i\n")
    write_inputs(tmp_path / "in.jsonl", [{"n": 10}, {"n": 10 ** 9}, {"n": 20}])
    for limit, message in ((("--max-steps", "5000"), "step limit (5000, --max-steps)"),
                           (("--timeout", "0.5"), "time limit (0.5 s, --timeout)")):
        r = syn("batch", "spin.syn", "--call", "spin", "in.jsonl", "-o", f"{limit[0]}.jsonl",
                *limit)
        assert r.returncode == 0 and "3 items: 2 ok, 1 limit in " in r.stderr, r.stderr
        got = lines(tmp_path / f"{limit[0]}.jsonl")
        assert [x.get("value") for x in got] == [10, None, 20]
        assert got[1]["status"] == "limit" and message in got[1]["error"]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_half_way_and_resumed_without_losing_or_repeating_an_item(sig, write,
                                                                        tmp_path):
    write("slow.syn", SLOW)
    total = 60
    write_inputs(tmp_path / "in.jsonl", [{"id": n} for n in range(total)])
    argv = syn_command() + ["batch", "slow.syn", "--call", "work", "in.jsonl", "-o",
                            "out.jsonl", "--jobs", "2"]
    proc = subprocess.Popen(argv, cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    out = tmp_path / "out.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 10:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the batch ended before it could be stopped"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "interrupted: run again with --resume" in err
        assert "Traceback" not in err
    done = lines(out)
    assert 10 <= len(done) < total
    r = subprocess.run(argv + ["--resume"], cwd=tmp_path, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 0, r.stderr
    got = lines(out)
    assert [x["line"] for x in got] == list(range(1, total + 1))      # each once, in order
    assert all(x["status"] == "ok" for x in got)
    assert [x["value"][0] for x in got] == list(range(total))
    assert len({x["value"][1] for x in got}) == 1
    assert f"({len(done)} done by an earlier run)" in r.stderr


def test_resume_cuts_off_a_half_written_last_line(app, syn, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [{"question": "a"}, {"question": "b"}])
    assert syn("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "out.jsonl"
               ).returncode == 0
    whole = (tmp_path / "out.jsonl").read_text()
    (tmp_path / "out.jsonl").write_text(whole[:len(whole) // 2 + 30])     # cut in line 2
    r = syn("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "out.jsonl",
            "--resume")
    assert r.returncode == 0, r.stderr
    assert without_time(lines(tmp_path / "out.jsonl")) == without_time(
        [json.loads(x) for x in whole.splitlines()])


def test_exit_codes(app, syn, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [{"question": q} for q in ("a", "boom", "b", "c")])
    run = ("batch", "app.syn", "--call", "answer", "in.jsonl")
    assert syn(*run, "-o", "plain.jsonl").returncode == 0
    r = syn(*run, "-o", "strict.jsonl", "--strict")
    assert r.returncode == 1 and len(lines(tmp_path / "strict.jsonl")) == 4
    r = syn(*run, "-o", "fast.jsonl", "--fail-fast", "--jobs", "1")
    assert r.returncode == 1 and "stopped at the first item that failed" in r.stderr
    assert [x["line"] for x in lines(tmp_path / "fast.jsonl")][:2] == [1, 2]
    # Usage errors (2): no --call, an unknown task, a results file that is there already,
    # a bad option; a program that does not compile is 1. None writes a result.
    for args, code, message in [
            (("batch", "app.syn", "in.jsonl", "-o", "u1.jsonl"), 2, "needs --call TASK"),
            ((*run[:3], "answr", "in.jsonl", "-o", "u2.jsonl"), 2, "did you mean 'answer'"),
            ((*run, "-o", "plain.jsonl"), 2, "already holds results: add --resume"),
            ((*run, "-o", "u3.jsonl", "--cap-set", "bogus"), 2, "usage error"),
            ((*run, "-o", "u4.jsonl", "--tools", "nosuchmodule:x"), 2, "nosuchmodule"),
            ((*run, "-o", "u5.jsonl", "--address", "127.0.0.1:1"), 2, "needs --engine ray"),
            (("batch", "app.syn", "--call", "answer", "missing.jsonl", "-o", "u6.jsonl"), 2,
             "cannot read missing.jsonl"),
            ((*run, "-o", "no/such/dir/u.jsonl"), 2, "cannot write no/such/dir/u.jsonl")]:
        r = syn(*args)
        assert (r.returncode, message in r.stderr) == (code, True), (args, r.stderr)
        assert "Traceback" not in r.stderr
    (tmp_path / "bad.syn").write_text("let x be (1 +\n")
    r = syn("batch", "bad.syn", "--call", "t", "in.jsonl", "-o", "u7.jsonl")
    assert r.returncode == 1 and "'(' is never closed" in r.stderr
    assert not any((tmp_path / f"u{n}.jsonl").exists() for n in range(1, 8))


def test_a_synb_runs_like_its_source(app, syn, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [{"question": "a"}, {"question": "boom"}])
    assert syn("compile", "app.syn").returncode == 0
    for name in ("app.syn", "app.synb"):
        assert syn("batch", name, "--call", "answer", "in.jsonl", "-o", name + ".out"
                   ).returncode == 0
    assert without_time(lines(tmp_path / "app.syn.out")) == \
        without_time(lines(tmp_path / "app.synb.out"))


def test_engine_ray_without_ray_says_how_to_install_it(app, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [{"question": "a"}])
    # Ray is installed here; the child hides it, as a machine without the extra would.
    code = ("import sys; sys.modules['ray'] = None\n"
            "from synsema.cli.entry import main\n"
            "sys.exit(main(['batch', 'app.syn', '--call', 'answer', 'in.jsonl', '-o', "
            "'out.jsonl', '--engine', 'ray']))")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == ("usage error: --engine ray needs Ray, an optional extra: "
                                "pip install 'synsema[ray]'")
    assert not (tmp_path / "out.jsonl").exists() or not (tmp_path / "out.jsonl").read_text()


# ---- a real local Ray cluster (one for the module: Ray starts slowly) -------------------

# Slow (make test-fast skips them), and on one xdist worker together: one cluster a run.
def RAY(test):
    return pytest.mark.slow(pytest.mark.xdist_group("ray")(test))

@pytest.fixture(scope="module")
def ray_cluster():
    import ray              # the ray extra (`make test` installs every extra)
    # This machine only: the node's address is the loopback one, no dashboard; the
    # example's host tools shipped to the workers as a job runtime_env, as a host
    # program that starts Ray itself would.
    info = ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
                    logging_level="ERROR", log_to_driver=False,
                    runtime_env={"py_modules": [str(EXAMPLE / "crm.py")]})
    yield info.address_info["gcs_address"]
    ray.shutdown()


def local_results(tmp_path, name, *extra):
    argv = syn_command() + ["batch", "triage.syn", "--call", "triage", "tickets.jsonl",
                            "-o", str(tmp_path / name), "--tools", "crm:crm", *extra]
    r = subprocess.run(argv, cwd=EXAMPLE, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return r, lines(tmp_path / name)


@RAY
def test_the_example_on_ray_equals_the_local_pool_item_for_item(ray_cluster, tmp_path,
                                                                 monkeypatch, capsys):
    from synsema.cli.batch import OPTIONS, run_batch
    from synsema.cli.options import RUN_OPTIONS
    r, local = local_results(tmp_path, "local.jsonl")
    assert r.stderr.startswith("1000 items: 989 ok, 11 error in ")
    values = {dest: default for _, dest, _, default, _ in RUN_OPTIONS + OPTIONS}
    values.update(call="triage", tools=("crm:crm",), engine="ray", jobs=2)
    monkeypatch.chdir(EXAMPLE)
    assert run_batch("triage.syn", "tickets.jsonl", str(tmp_path / "ray.jsonl"), values) == 0
    assert capsys.readouterr().err.startswith("1000 items: 989 ok, 11 error in ")
    assert without_time(lines(tmp_path / "ray.jsonl")) == without_time(local)
    bad = local[499]
    assert (bad["line"], bad["status"]) == (500, "error")
    assert bad["error"].startswith("tickets.jsonl:500: error: the input is not valid JSON")


@RAY
def test_syn_batch_joins_a_ray_cluster_by_address_and_resumes_there(ray_cluster, tmp_path,
                                                                    syn):
    _, local = local_results(tmp_path, "local.jsonl", "--labels", "--args-label",
                             "customers", "--cap-set", "stdout=customers,tool=crm.plan")
    assert local[0]["labels"] == ["customers"]
    out = tmp_path / "ray.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in local[:300]))    # a run cut short
    argv = ["batch", "triage.syn", "--call", "triage", "tickets.jsonl", "-o", out,
            "--tools", "crm:crm", "--labels", "--args-label", "customers", "--cap-set",
            "stdout=customers,tool=crm.plan", "--engine", "ray", "--address", ray_cluster,
            "--resume"]
    r = syn(*argv, cwd=EXAMPLE)
    assert r.returncode == 0, r.stderr
    assert "1000 items: 989 ok, 11 error in " in r.stderr
    assert "(300 done by an earlier run)" in r.stderr
    assert without_time(lines(out)) == without_time(local)


def test_a_cassette_in_auto_mode_records_the_batch_once_then_replays_it_offline(write, syn,
                                                                                 tmp_path):
    write("ask.syn", 'require llm\ntask ask(q: text)\n    give llm_step(q, [], "")["text"]\n')
    write_inputs(tmp_path / "in.jsonl", [{"q": q} for q in "abc"])
    with LLMServer() as server:
        for answer in ("one", "two", "three"):
            server.reply(openai_text(answer))
        url = server.url
        args = ("batch", "ask.syn", "--call", "ask", "in.jsonl", "--cassette", "tape.jsonl",
                "--cassette-mode", "auto", "--llm-url", url, "--llm-model", "m")
        assert syn(*args, "-o", "online.jsonl", "--jobs", "1").returncode == 0
    # The server is gone: every answer now comes from the tape.
    r = syn(*args, "-o", "offline.jsonl", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert [x["value"] for x in lines(tmp_path / "offline.jsonl")] == ["one", "two", "three"]
    assert len(server.requests) == 3


def test_a_progress_bar_on_a_terminal(app, tmp_path):
    import pexpect          # the test extra (`make test` installs every extra)
    write_inputs(tmp_path / "in.jsonl", [{"question": str(n)} for n in range(30)])
    child = pexpect.spawn(syn_command()[0], syn_command()[1:] + [
        "batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "out.jsonl"],
        cwd=str(tmp_path), encoding="utf-8", timeout=30)
    child.expect(r"30/30 \[")
    child.expect(r"0 failed")
    child.expect(r"30 items: 30 ok in ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0



def test_errors_and_tool_calls_under_labels_reveal_nothing_of_the_branch(syn, write, tmp_path):
    # Two items that differ only in a secret: their error text and tool calls must agree.
    write("notify.py", "import synsema\n\n@synsema.tool(accepts={'*': ['s']})\n"
          "def notify() -> int:\n    return 1\n")
    write("branchy.syn", 'require tool("notify")\ntask t(n: number)\n'
          '    let s be private(n, "s")\n    when s == 1\n        host_tool("notify")()\n'
          '    when s == 1\n        fail("one")\n    when s == 2\n        fail("two")\n'
          '    give 0\n')
    write_inputs(tmp_path / "in.jsonl", [{"n": 1}, {"n": 2}])
    r = syn("batch", "branchy.syn", "--call", "t", "in.jsonl", "-o", "out.jsonl", "--labels",
            "--cap-set", "stdout,tool=*", "--tools", "notify:notify")
    assert r.returncode == 0, r.stderr
    a, b = lines(tmp_path / "out.jsonl")
    assert a["error"] == b["error"] == "error: (message withheld)"
    assert a["tool_calls"] == b["tool_calls"] == []


# ---- --resume checks the results file against the inputs (issue 29) ----------------------

def finished_batch(syn, tmp_path, rows, out="out.jsonl"):
    write_inputs(tmp_path / "in.jsonl", rows)
    r = syn("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", out)
    assert r.returncode == 0, r.stderr
    return (tmp_path / out).read_text()


def test_each_result_carries_the_hash_of_its_input_line(app, syn, tmp_path):
    import hashlib
    text = finished_batch(syn, tmp_path, [{"question": "a"}, "\n", "not json\n"])
    got = [json.loads(x) for x in text.splitlines()]
    assert [x["input_hash"] for x in got] == [
        hashlib.blake2b(raw, digest_size=8).hexdigest()
        for raw in (b'{"question": "a"}', b"not json")]


@pytest.mark.parametrize("damage, message", [
    # two results for input line 2: the old file kept both and counted one
    (lambda rows: rows + [rows[1]], "out.jsonl:4: the result of input line 2 does not "
     "match the inputs: an earlier line of the file is a result of that input line already"),
    (lambda rows: rows + [{**rows[0], "line": 9}], "out.jsonl:4: the result of input line 9 "
     "does not match the inputs: in.jsonl has 4 lines"),
    (lambda rows: rows + [{**rows[0], "line": 3}], "the result of input line 3 does not match "
     "the inputs: line 3 of in.jsonl is blank"),
    (lambda rows: [{k: v for k, v in r.items() if k != "input_hash"} for r in rows],
     "out.jsonl:1: the result of input line 1 does not match the inputs: the result has no "
     "input_hash"),
])
def test_resume_refuses_a_results_file_that_does_not_match_and_repair_mends_it(
        app, syn, tmp_path, damage, message):
    rows = [{"id": 1, "question": "a"}, {"id": 2, "question": "b"}, "\n",
            {"id": 3, "question": "c"}]
    whole = finished_batch(syn, tmp_path, rows)
    results = [json.loads(x) for x in whole.splitlines()]
    damaged = "".join(json.dumps(r) + "\n" for r in damage(results))
    (tmp_path / "out.jsonl").write_text(damaged)
    args = ("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "out.jsonl", "--resume")
    r = syn(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert message in r.stderr and "add --repair to drop" in r.stderr, r.stderr
    assert (tmp_path / "out.jsonl").read_text() == damaged        # refused: not touched
    r = syn(*args, "--repair")
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("repaired out.jsonl: dropped 1 ") or \
        r.stderr.startswith("repaired out.jsonl: dropped 3 ")
    assert "3 items: 3 ok in " in r.stderr
    assert without_time(lines(tmp_path / "out.jsonl")) == without_time(results)


def test_resume_refuses_the_results_of_another_dataset(app, syn, tmp_path):
    # The same ids, other questions: the old id check let these results through.
    finished_batch(syn, tmp_path, [{"id": n, "question": "old"} for n in range(3)])
    before = (tmp_path / "out.jsonl").read_text()
    write_inputs(tmp_path / "in.jsonl", [{"id": n, "question": "new"} for n in range(3)])
    args = ("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "out.jsonl", "--resume")
    r = syn(*args)
    assert r.returncode == 2
    assert r.stderr == (
        "usage error: out.jsonl: the result of input line 1 does not match the inputs: it "
        "was made from another input line than line 1 of in.jsonl (another dataset, or the "
        "line changed since). out.jsonl is not the results file of in.jsonl as it is now: "
        "give the right one, or add --repair to drop the results that do not match (their "
        "items run again)\n")
    assert (tmp_path / "out.jsonl").read_text() == before
    # A line fixed since (one ticket corrected): --repair runs that item again only.
    rows = [{"id": 0, "question": "old"}, {"id": 1, "question": "fixed"},
            {"id": 2, "question": "old"}]
    write_inputs(tmp_path / "in.jsonl", rows)
    r = syn(*args, "--repair")
    assert r.returncode == 0, r.stderr
    assert "dropped 1 results made from other input lines; their items run again" in r.stderr
    assert "(2 done by an earlier run)" in r.stderr
    assert [x["value"]["q"] for x in lines(tmp_path / "out.jsonl")] == ["old", "fixed", "old"]


def test_repair_needs_resume_and_a_file(app, syn, tmp_path):
    write_inputs(tmp_path / "in.jsonl", [{"question": "a"}])
    r = syn("batch", "app.syn", "--call", "answer", "in.jsonl", "-o", "o.jsonl", "--repair")
    assert (r.returncode, r.stderr) == (2, "usage error: --repair goes with --resume: it "
                                           "mends the results file a batch continues\n")
    r = syn("batch", "app.syn", "--call", "answer", "-", "-o", "o.jsonl", "--resume",
            "--repair")
    assert r.returncode == 2 and "--repair needs the inputs as a file" in r.stderr


# ---- standard input (issue 32) ---------------------------------------------------------------

def batch_stdin(tmp_path, text, *extra):
    return subprocess.run(syn_command() + ["batch", "app.syn", "--call", "answer", "-", "-o",
                                           "out.jsonl", *extra], cwd=tmp_path, input=text,
                          capture_output=True, text=True, timeout=60)


def test_inputs_from_standard_input_and_resume_with_them_again(app, tmp_path):
    rows = [{"id": n, "question": f"q{n}"} for n in range(6)]
    text = "".join(json.dumps(r) + "\n" for r in rows) + "\n[1]\n"
    r = batch_stdin(tmp_path, text)
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("7 items: 6 ok, 1 error in ")
    whole = lines(tmp_path / "out.jsonl")
    assert [x["line"] for x in whole] == [1, 2, 3, 4, 5, 6, 8]
    assert whole[-1]["error"].startswith("<stdin>:8: error: the input is a list")
    # Cut short after 3 results, resumed with the same stream: the rest run, once each.
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(x) + "\n" for x in whole[:3]))
    r = batch_stdin(tmp_path, text, "--resume")
    assert r.returncode == 0, r.stderr
    assert "7 items: 6 ok, 1 error in " in r.stderr and "(3 done by an earlier run)" in r.stderr
    assert without_time(lines(tmp_path / "out.jsonl")) == without_time(whole)
    # Another stream: refused at its first line that has a result.
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(x) + "\n" for x in whole[:3]))
    r = batch_stdin(tmp_path, text.replace("q0", "other"), "--resume")
    assert r.returncode == 2 and "line 1 of <stdin>" in r.stderr, r.stderr
    # A results file longer than the stream: found at the stream's end.
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(x) + "\n" for x in whole))
    r = batch_stdin(tmp_path, text.split("\n", 3)[0] + "\n", "--resume")
    assert r.returncode == 2 and "<stdin> has 1 lines" in r.stderr, r.stderr


def test_a_stopped_batch_on_standard_input_says_to_give_it_again(write, tmp_path):
    write("app.syn", APP)
    text = "".join(json.dumps({"question": q}) + "\n" for q in ["a", "boom"] + ["b"] * 5000)
    r = batch_stdin(tmp_path, text, "--fail-fast", "--jobs", "1")
    assert r.returncode == 1 and "stopped at the first item that failed" in r.stderr
    # Not read to its end: how many items it holds is not known, and not said.
    assert re.match(r"\d+ items of standard input: \d+ ok, 1 error in ", r.stderr), r.stderr


# ---- results that finish out of order ----------------------------------------------------

SLOW_HEAD = """\
task work(id: number, n: number)
    let i be 0
    while i < n
        set i to i + 1
    give id
"""


def test_results_wait_for_a_slow_item_only_as_long_as_the_buffer_then_are_sorted(write,
                                                                                tmp_path):
    write("slow.syn", SLOW_HEAD)
    rows = [{"id": 1, "n": 10_000_000}] + [{"id": n, "n": 1} for n in range(2, 5001)]
    write_inputs(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(syn_command() + ["batch", "slow.syn", "--call", "work", "in.jsonl",
                                             "-o", "out.jsonl", "--jobs", "2"],
                            cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    early = []
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if out.exists() and out.read_text().count("\n") >= 50:
            early = lines(out)
            break
        time.sleep(0.02)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    # While item 1 ran, the others did not wait for it without end: they were written.
    assert early and 1 not in [x["line"] for x in early], "item 1 was not the slow one"
    got = lines(out)
    assert [x["value"] for x in got] == list(range(1, 5001))         # in input order at last


# ---- memory bounded by the work in flight (issue 32) ---------------------------------------

TRIVIAL = 'task t(n: number, pad: text)\n    give {"n": n, "len": len(pad)}\n'

PEAK = """
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, repr(r.stderr))
"""


def peak_rss(tmp_path, n):
    """The peak resident memory (KB) of a `syn batch` of n trivial items and of the workers
    it waited for, from a process that runs nothing else."""
    inputs = tmp_path / f"in{n}.jsonl"
    pad = "x" * 200
    with open(inputs, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"n": i, "pad": pad}) + "\n")
    out = tmp_path / f"out{n}.jsonl"
    r = subprocess.run([sys.executable, "-c", PEAK] + syn_command() + [
        "batch", "t.syn", "--call", "t", str(inputs), "-o", str(out), "--jobs", "2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=1800)
    code, peak, err = r.stdout.split(" ", 2)
    assert code == "0", err + r.stderr
    with open(out, "rb") as fh:
        count = sum(1 for _ in fh)
    assert count == n
    inputs.unlink()
    out.unlink()
    return int(peak)


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_dataset(write, tmp_path):
    write("t.syn", TRIVIAL)
    small = peak_rss(tmp_path, 20_000)
    big = peak_rss(tmp_path, 200_000)
    # Before issue 32: 45 MB at 20,000 items, 258 MB at 200,000.
    assert big <= 1.5 * small, (small, big)


def test_ctrl_c_on_standard_input_says_to_give_the_input_again(write, tmp_path):
    write("slow.syn", SLOW)
    proc = subprocess.Popen(syn_command() + ["batch", "slow.syn", "--call", "work", "-", "-o",
                                             "out.jsonl", "--jobs", "1"],
                            cwd=tmp_path, stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    # The stream stays open: the batch has read part of an input of unknown length.
    proc.stdin.write("".join(json.dumps({"id": n}) + "\n" for n in range(3)))
    proc.stdin.flush()
    out = tmp_path / "out.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (out.exists() and out.read_text().count("\n")
                                               >= 3):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in err, err
    # communicate() closes the stream: the batch may see its end before it stops.
    assert re.match(r"3 items( of standard input)?: 3 ok in ", err), err
    assert err.rstrip().endswith("interrupted: run again with --resume to finish (with the "
                                 "same input on standard input)")
    assert [x["value"][0] for x in lines(out)] == [0, 1, 2]
