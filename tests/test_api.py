"""The Python embedding API (SPEC 16): loading, call/run and their Result, every error
class with exactly the text `syn` prints for the same program, argument checking, labels,
providers, and one program called from many threads at once."""

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import synsema
from conftest import ROOT
from llm_server import LLMServer, openai_text

AGENT = ('print("ready")\n'
         'task answer(question: text, n: number = 2)\n'
         '    print("asked " + question)\n'
         '    give {"q": question, "n": n, "xs": [1, 2.5, true, nothing]}\n')


@pytest.fixture
def agent(write):
    return write("agent.syn", AGENT)


# ---- loading ------------------------------------------------------------------------------

def test_compile_file_compile_source_and_load_give_the_same_program(agent, syn, tmp_path):
    assert syn("compile", "agent.syn").returncode == 0
    progs = [synsema.compile_file(agent), synsema.compile_source(AGENT, "agent.syn"),
             synsema.load(tmp_path / "agent.synb")]
    expected = synsema.Result({"q": "hi", "n": 2, "xs": [1, 2.5, True, None]}, frozenset(),
                              "ready\nasked hi\n", [], 0)
    assert [p.call("answer", {"question": "hi"}) for p in progs] == [expected] * 3
    assert [(p.name, p.tasks) for p in progs] == [("agent.syn", ("answer",))] * 3


def test_a_program_and_a_result_are_immutable(agent):
    prog = synsema.compile_file(agent)
    with pytest.raises(AttributeError):
        prog._program = None
    r = prog.run()
    with pytest.raises(AttributeError):
        r.value = 1
    assert r.value is None and r.output == "ready\n"


def test_a_bad_synb_is_refused_with_the_cli_text(write, syn):
    with pytest.raises(synsema.InvalidProgram) as e:
        synsema.load(write("bad.synb", "print(1)\n"))
    assert e.value.message.startswith("not a valid .synb: ") and e.value.exit_code == 1
    p = syn("exec", "bad.synb")
    assert (p.returncode, p.stderr) == (1, e.value.message + "\n")


def test_an_unreadable_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        synsema.compile_file(tmp_path / "missing.syn")
    with pytest.raises(FileNotFoundError):
        synsema.load(tmp_path / "missing.synb")


# ---- every error, as the command line prints it -------------------------------------------

DEEP = "task f(n)\n    give f(n + 1)\nprint(f(0))\n"

CASES = [
    # (source, api keywords, CLI options, error class, exit code)
    ("print(1 +\n", {}, [], synsema.CompileError, 1),
    ('task inner(x)\n    give x + "s"\nprint(inner(1))\n', {}, [], synsema.RunError, 1),
    ('let s be private("abc", "secret")\nprint(len(s) + "x")\n', {"labels": True},
     ["--labels"], synsema.RunError, 1),
    ('print(private("abc", "secret"))\n', {"labels": True}, ["--labels"],
     synsema.LabelViolation, 3),
    ('require net("api.example.com")\nprint(1)\n', {"cap_set": "stdout"},
     ["--cap-set", "stdout"], synsema.Refused, 3),
    (DEEP, {"max_depth": 50}, ["--max-depth", "50"], synsema.LimitExceeded, 4),
    ("while true\n    let x be 1\n", {"max_steps": 1000}, ["--max-steps", "1000"],
     synsema.LimitExceeded, 4),
    ("print(1)\n", {"cap_set": "stdout,bogus"}, ["--cap-set", "stdout,bogus"],
     synsema.UsageError, 2),
]


@pytest.mark.parametrize("source, kwargs, options, cls, code", CASES)
def test_each_error_carries_the_text_and_exit_code_of_the_cli(write, syn, source, kwargs,
                                                              options, cls, code):
    path = write("app.syn", source)
    with pytest.raises(cls) as e:
        synsema.compile_file(path).run(**kwargs)
    assert isinstance(e.value, synsema.Error) and e.value.exit_code == code
    p = syn("run", path, *options)      # the same path: errors name the file by it
    assert p.returncode == code
    # The API names its keyword where syn names the flag.
    assert p.stderr == e.value.message.replace("(cap_set=)", "(--cap-set)").replace(
        "cap_set:", "--cap-set:") + "\n"


def test_a_labelled_runtime_error_withholds_its_message():
    prog = synsema.compile_source('let s be private("abc", "secret")\nprint(len(s) + "x")\n',
                                  "app.syn")
    with pytest.raises(synsema.RunError) as e:
        prog.run(labels=True)
    assert "(message withheld: labelled secret)" in e.value.message
    with pytest.raises(synsema.RunError) as e:
        prog.run()
    assert "cannot add" in e.value.message


def test_an_internal_error_is_exit_70(monkeypatch):
    from synsema.stdlib.host import load_all

    def broken(*args):
        raise KeyError("boom")
    monkeypatch.setattr(load_all()["len"], "fn", broken)
    with pytest.raises(synsema.InternalError) as e:
        synsema.compile_source("print(len([1]))\n", "app.syn").run()
    assert e.value.exit_code == 70
    assert e.value.message.endswith("internal error: this is a bug in syn, not in your "
                                    "program; please report it with the program that shows it")


# ---- calls and their arguments ---------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    ({"question": 1}, "'question' must be text, got number"),
    ({}, "missing 'question' (text)"),
    ({"question": "a", "m": 1}, "task 'answer' has no parameter 'm'; did you mean 'n'?"),
    ({"question": None}, "'question' must be text, got nothing"),
    ([1], "args must be a dict of named arguments, got list"),
    ({"question": object()}, "a value Synsema cannot hold (type object at [\"question\"])"),
])
def test_arguments_are_checked_as_call_tool_checks_them(agent, syn, args, message):
    prog = synsema.compile_file(agent)
    with pytest.raises(synsema.ArgumentError) as e:
        prog.call("answer", args)
    assert e.value.message.startswith(
        f"agent.syn: error: bad arguments for task 'answer': {message}")
    assert e.value.exit_code == 1 and isinstance(e.value, synsema.RunError)


def test_bad_arguments_stop_the_call_after_the_top_level_runs(agent, syn):
    # SPEC 14: "runs the top-level statements (as usual), then calls TASK with the keys of
    # the JSON object as named arguments, checked exactly as call_tool checks them"
    p = syn("run", "agent.syn", "--call", "answer", "--args", '{"question": 1}')
    assert (p.returncode, p.stdout) == (1, "ready\n")
    with pytest.raises(synsema.ArgumentError) as e:
        synsema.compile_file(agent).call("answer", {"question": 1})
    assert p.stderr == e.value.message + "\n"


def test_an_unknown_task_is_a_usage_error_with_a_suggestion(agent, syn):
    with pytest.raises(synsema.UsageError) as e:
        synsema.compile_file(agent).call("answr")
    assert e.value.message == "usage error: agent.syn has no task 'answr'; did you mean " \
                              "'answer'?"
    p = syn("run", "agent.syn", "--call", "answr")
    assert (p.returncode, p.stderr) == (2, e.value.message + "\n")


def test_python_values_convert_both_ways():
    prog = synsema.compile_source("task echo(x)\n    give x\n", "echo.syn")
    value = {"t": (1, 2), "m": {"k": [None, True, 1.5]}, 3: "three"}
    assert prog.call("echo", {"x": value}).value == \
        {"t": [1, 2], "m": {"k": [None, True, 1.5]}, 3: "three"}
    lam = synsema.compile_source("task f()\n    give [(x) => x]\n", "f.syn")
    with pytest.raises(synsema.RunError, match=r"the result of task 'f' cannot leave the program: it holds a task value "
                       r"\(<lambda at line 2>\) at \[0\]"):
        lam.call("f")


def test_the_task_runs_with_the_programs_capabilities_not_least_privilege():
    prog = synsema.compile_source('require stdout\ntask say(x: text)\n    print(x)\n',
                                  "say.syn")
    assert prog.call("say", {"x": "hi"}, cap_set="stdout").output == "hi\n"


def test_limits_count_the_top_level_and_the_call_together():
    prog = synsema.compile_source("task spin()\n    while true\n        let x be 1\n", "s.syn")
    with pytest.raises(synsema.LimitExceeded, match=r"step limit \(500, --max-steps\)"):
        prog.call("spin", max_steps=500)
    with pytest.raises(synsema.LimitExceeded, match="time limit"):
        prog.call("spin", timeout=0.2)
    with pytest.raises(synsema.UsageError, match="max_steps must be a whole number"):
        prog.call("spin", max_steps=0)


# ---- labels ------------------------------------------------------------------------------------

def test_args_labels_label_every_argument_under_labels(agent):
    prog = synsema.compile_file(agent)
    r = prog.call("answer", {"question": "hi"}, labels=True, args_labels=["cust"],
                  cap_set="stdout,stdout=cust")
    assert r.labels == frozenset({"cust"}) and r.value["q"] == "hi"
    assert r.output == "ready\nasked hi\n"
    with pytest.raises(synsema.LabelViolation, match="print would reveal data labelled cust"):
        prog.call("answer", {"question": "hi"}, labels=True, args_labels=["cust"],
                  cap_set="stdout")
    plain = prog.call("answer", {"question": "hi"}, labels=True, cap_set="stdout")
    assert plain.labels == frozenset()
    with pytest.raises(synsema.UsageError, match=r"args_labels= needs labels=True"):
        prog.call("answer", {"question": "hi"}, args_labels=["cust"], cap_set="stdout")
    with pytest.raises(synsema.UsageError, match="is not a label name"):
        prog.call("answer", {"question": "hi"}, labels=True, args_labels=["no label"])


def test_a_default_of_a_labelled_call_stays_unlabelled():
    prog = synsema.compile_source("task f(a: text, b: number = 5)\n    give b\n", "f.syn")
    r = prog.call("f", {"a": "x"}, labels=True, args_labels=["cust"])
    assert (r.value, r.labels) == (5, frozenset())


# ---- providers ---------------------------------------------------------------------------------

ASKS = ('require llm\ntask ask(q: text)\n    give {"there": llm_available(), '
        '"said": llm_step(q, [], "")["text"]}\n')


def test_an_offline_provider_answers_without_a_model():
    prog = synsema.compile_source(ASKS, "ask.syn")
    r = prog.call("ask", {"q": "hi"}, provider=synsema.Provider())
    assert r.value == {"there": False, "said": "[no llm provider]"} and r.tokens == 0


def test_an_explicit_provider_is_used_and_its_tokens_counted():
    prog = synsema.compile_source(ASKS, "ask.syn")
    with LLMServer() as server:
        server.reply(openai_text("sunny", prompt_tokens=20, completion_tokens=5))
        provider = synsema.Provider(url=server.url, model="m1", key="sk-test-123")
        r = prog.call("ask", {"q": "weather?"}, provider=provider, cap_set="llm")
    assert r.value == {"there": True, "said": "sunny"} and r.tokens == 25
    assert server.requests[0]["body"]["model"] == "m1"
    assert "sk-test-123" not in repr(provider)


@pytest.mark.parametrize("kwargs, message", [
    ({"api": "gemini"}, "api must be 'openai' or 'anthropic', got 'gemini'"),
    ({"cassette_mode": "x"}, "cassette_mode must be 'record', 'replay' or 'auto'"),
    ({"key": "k"}, "key= needs url= or api= to say which provider it is for"),
    ({"url": "ftp://x"}, "url must be an http:// or https:// URL"),
])
def test_a_bad_provider_is_a_usage_error(kwargs, message):
    with pytest.raises(synsema.UsageError) as e:
        synsema.Provider(**kwargs)
    assert e.value.message.startswith("usage error: synsema.Provider: " + message)


def test_a_provider_that_is_not_one_is_refused():
    prog = synsema.compile_source(ASKS, "ask.syn")
    with pytest.raises(synsema.UsageError, match="provider must be a synsema.Provider"):
        prog.call("ask", {"q": "x"}, provider="http://localhost")


# ---- threads -----------------------------------------------------------------------------------

COUNTER = ('let base be 7\n'
           'task work(name: text, n: number)\n'
           '    let total be base\n'
           '    let i be 0\n'
           '    while i < n\n'
           '        set i to i + 1\n'
           '        set total to total + i\n'
           '    let who be private(name, "cust")\n'
           '    print(who + " " + text(total))\n'
           '    give {"name": who, "total": total}\n')


@pytest.mark.parametrize("labels", [False, True])
def test_one_program_called_from_eight_threads_at_once(labels):
    prog = synsema.compile_source(COUNTER, "counter.syn")
    barrier = threading.Barrier(8)
    results, errors = {}, []

    def worker(k):
        try:
            barrier.wait()
            for round_ in range(3):
                n = 2000 + 100 * k + round_
                r = prog.call("work", {"name": f"w{k}", "n": n}, labels=labels,
                              cap_set="stdout,stdout=cust")
                results[(k, round_)] = (r, n)
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for (k, _), (r, n) in results.items():
        total = 7 + n * (n + 1) // 2
        assert r.value == {"name": f"w{k}", "total": total}
        assert r.output == f"w{k} {total}\n"
        assert r.labels == (frozenset({"cust"}) if labels else frozenset())
    assert len(results) == 24


# ---- the documentation -------------------------------------------------------------------------

def test_the_embedding_page_examples_run_and_print_what_it_shows(tmp_path):
    """docs/embedding.md: every ```synsema block named `-- NAME.syn` and ```python block
    named `# NAME.py` is written to a folder; each ```console block's `$ ` commands run
    there and print exactly what the block shows."""
    text = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, re.S)
    ran = 0
    for lang, body in blocks:
        first = body.split("\n", 1)[0]
        name = re.fullmatch(r"(?:--|#) (\S+\.(?:syn|py))", first)
        if lang in ("synsema", "python") and name:
            (tmp_path / name.group(1)).write_text(body, encoding="utf-8")
        if lang != "console":
            continue
        shown = []
        for cmd in re.findall(r"^\$ (.*)$", body, re.M):
            env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
            r = subprocess.run(["bash", "-c", "{ " + cmd + " ; } 2>&1"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=120)
            shown.append("$ " + cmd + "\n" + r.stdout)
            ran += 1
        assert "".join(shown) == body
    assert ran >= 2


def test_a_labelled_run_error_does_not_chain_the_secret_message():
    prog = synsema.compile_source('fail("secret is " + private("hun" + "ter2", "s"))\n', "a.syn")
    with pytest.raises(synsema.RunError) as info:
        prog.run(labels=True, cap_set="stdout")
    assert info.value.__cause__ is None and "hunter2" not in info.value.message
    assert info.value.labels == frozenset({"s"})


def test_the_host_can_read_its_own_runs_withheld_message():
    prog = synsema.compile_source('fail("code " + private("12" + "34", "s"))\n', "a.syn")
    with pytest.raises(synsema.RunError) as info:
        prog.run(labels=True, cap_set="stdout")
    assert "1234" not in str(info.value) and info.value.host_message == "code 1234"


def test_tool_error_is_a_synsema_error_reachable_from_the_package():
    assert "ToolError" in dir(synsema) and "Program" in dir(synsema)
    assert issubclass(synsema.ToolError, synsema.Error)
    with pytest.raises(synsema.Error) as e:
        @synsema.tool
        def bad(*args):
            """Takes anything."""
    assert isinstance(e.value, synsema.ToolError) and e.value.exit_code == 2
    assert "'*args' cannot be declared" in e.value.message
    assert repr(synsema.Error("x")).startswith("Error(")


def test_a_provider_url_with_a_password_is_refused_without_repeating_it():
    with pytest.raises(synsema.UsageError) as e:
        synsema.Provider(url="http://admin:hunter2@127.0.0.1:9")
    assert "hunter2" not in e.value.message and "[user info]@127.0.0.1" in e.value.message


def test_a_refusal_for_the_pc_says_where_the_labels_come_from():
    @synsema.tool(name="bank.pay", accepts={"memo": ["untrusted"]})
    def pay(iban: str, amount: float, memo: str) -> str:
        """Pay."""
        return "ok"

    src = ('require tool("bank.*")\ntask go(page)\n    let pay be host_tool("bank.pay")\n'
           '    let f be () => call_tool(pay, {"iban": "DE00USER", "amount": 5, "memo": page})\n'
           '    give f()\n'
           'task direct(page)\n'
           '    give call_tool(host_tool("bank.pay"), {"iban": page, "amount": 5, "memo": "x"})\n')
    prog = synsema.compile_source(src, "a.syn")
    kw = dict(labels=True, args_labels=["untrusted"], tools=[pay], cap_set="stdout,tool=bank.*")
    with pytest.raises(synsema.RunError) as e:
        prog.call("go", {"page": "hi"}, **kw)
    assert "'iban' carries [untrusted], accepts []; the call runs under them too" in \
        e.value.host_message
    with pytest.raises(synsema.RunError) as e:       # the value's own label: no such note
        prog.call("direct", {"page": "DE00"}, **kw)
    assert e.value.host_message.endswith("'iban' carries [untrusted], accepts []")


def test_a_mistyped_provider_url_does_not_repeat_its_password_either():
    for url in ("http:/user:s3cret@h/", "http:user:s3cret@h", "ftp://user:s3cret@h/"):
        with pytest.raises(synsema.UsageError) as e:
            synsema.Provider(url=url)
        assert "s3cret" not in e.value.message, url
