"""Entry points on the command line (SPEC 14): `syn run|exec FILE --call TASK` with
--args, --args-file and --args-label; every error and its exit code; `run` and
`compile` + `exec` behave the same."""

import json

import pytest

APP = ('print("top")\n'
       'task answer(question: text, n: number = 2)\n'
       '    give {"q": question, "n": n}\n'
       'task quiet()\n'
       '    let x be 1\n'
       'task lam()\n'
       '    give [(x) => x]\n'
       'task numkey()\n'
       '    give private({1: "one"}, "k")\n')


@pytest.fixture
def app(write, syn):
    write("app.syn", APP)
    assert syn("compile", "app.syn").returncode == 0


def both(syn, *args):
    """The same command line through `syn run app.syn` and `syn exec app.synb`: they must
    agree; returns the result."""
    r = syn("run", "app.syn", *args)
    e = syn("exec", "app.synb", *args)
    assert (r.returncode, r.stdout, r.stderr) == (e.returncode, e.stdout, e.stderr)
    assert "Traceback" not in r.stderr
    return r


def test_call_writes_the_result_as_one_line_of_json_after_the_top_level(app, syn):
    r = both(syn, "--call", "answer", "--args", '{"question": "hi", "n": 5}')
    assert (r.returncode, r.stdout, r.stderr) == (0, 'top\n{"q": "hi", "n": 5}\n', "")
    assert json.loads(r.stdout.splitlines()[1]) == {"q": "hi", "n": 5}


def test_a_default_fills_a_missing_key_and_nothing_prints_nothing(app, syn):
    assert both(syn, "--call", "answer", "--args", '{"question": "x"}').stdout == \
        'top\n{"q": "x", "n": 2}\n'
    r = both(syn, "--call", "quiet")
    assert (r.returncode, r.stdout) == (0, "top\n")


def test_args_file(app, syn, write):
    write("args.json", '{"question": "from a file"}\n')
    r = both(syn, "--call", "answer", "--args-file", "args.json")
    assert r.stdout == 'top\n{"q": "from a file", "n": 2}\n'


@pytest.mark.parametrize("args, message", [
    ('{"question": 1}', "'question' must be text, got number"),
    ("{}", "missing 'question' (text)"),
    ('{"question": "a", "m": 1}', "task 'answer' has no parameter 'm'; did you mean 'n'?"),
    ('{"question": null}', "'question' must be text, got nothing"),
])
def test_bad_arguments_are_exit_1(app, syn, args, message):
    r = both(syn, "--call", "answer", "--args", args)
    # SPEC 14: the top level runs (it prints "top"), then the call's arguments are checked
    assert r.returncode == 1 and r.stdout == "top\n"
    assert r.stderr == f"app.syn: error: bad arguments for task 'answer': {message}\n"


@pytest.mark.parametrize("args, stderr", [
    (["--call", "answr"], "usage error: app.syn has no task 'answr'; did you mean 'answer'?"),
    (["--call", "answer", "--args", '{"question": 1'],
     "usage error: --args: not valid JSON: Expecting ',' delimiter (line 1 column 15)"),
    (["--call", "answer", "--args", "[1]"],
     'usage error: --args must be a JSON object of named arguments ({"name": value}), got a '
     "list"),
    (["--call", "answer", "--args", "{}", "--args-file", "a.json"],
     "usage error: give --args or --args-file, not both"),
    (["--call", "answer", "--args-file", "missing.json"],
     "usage error: --args-file: cannot read missing.json: No such file or directory"),
    (["--args", "{}"], "usage error: --args needs --call TASK"),
    (["--args-label", "cust"], "usage error: --args-label needs --call TASK"),
    (["--call", "answer", "--args", '{"question": "x"}', "--labels", "--args-label", "a b"],
     "usage error: 'a b' is not a label name (letters, digits, _, - and .)"),
    (["--tools", "no_such_module:tools"],
     "usage error: --tools no_such_module:tools: no module named 'no_such_module'"),
    (["--tools", "nocolon"], "usage error: --tools needs MODULE:NAME"),
])
def test_usage_errors_are_exit_2(app, syn, args, stderr):
    r = both(syn, *args)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith(stderr) and r.stderr.count("\n") == 1


def test_tools_naming_something_that_is_not_a_tool_is_a_usage_error(app, syn, write):
    write("mytools.py", "def helper(x):\n    return x\n")
    r = both(syn, "--tools", "mytools:helper")
    assert r.returncode == 2
    assert r.stderr.startswith("usage error: --tools mytools:helper: the function 'helper' "
                               "is not a host tool")
    t = syn("test", "app.syn", "--tools", "mytools:helper")
    assert (t.returncode, t.stderr) == (2, r.stderr)


def test_args_label_makes_the_result_a_stdout_sink_under_labels(app, syn, tmp_path):
    call = ["--call", "answer", "--args", '{"question": "secret"}', "--args-label", "cust"]
    r = both(syn, "--labels", *call, "--audit", "audit.jsonl")
    assert (r.returncode, r.stdout) == (3, "top\n")
    assert r.stderr == ("label_violation: writing the result of task 'answer' to stdout would "
                        "reveal data labelled cust\n")
    events = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "label_violation" and "secret" not in str(events)
    ok = both(syn, "--labels", "--cap-set", "stdout,stdout=cust", *call)
    assert (ok.returncode, ok.stdout) == (0, 'top\n{"q": "secret", "n": 2}\n')
    unlabelled = both(syn, *call)           # without --labels it would do nothing
    assert (unlabelled.returncode, unlabelled.stdout) == (2, "")
    assert unlabelled.stderr == ("usage error: --args-label needs --labels (without it no "
                                 "label is tracked)\n")


def test_a_result_json_cannot_hold_is_exit_1_and_withheld_when_labelled(app, syn):
    r = both(syn, "--call", "lam")
    assert (r.returncode, r.stdout) == (1, "top\n")
    assert r.stderr == ("app.syn: error: the result of task 'lam' cannot be written as JSON: "
                        "json_encode cannot encode a task\n")
    key = both(syn, "--call", "numkey")
    assert key.stderr == ("app.syn: error: the result of task 'numkey' cannot be written as "
                          "JSON: json_encode needs text map keys, got the number key 1; use "
                          "text(key) to make it a text\n")
    # stdout=k lets the reader see data labelled k: the message is shown (SPEC 10)
    labelled = both(syn, "--call", "numkey", "--labels", "--cap-set", "stdout,stdout=k")
    assert (labelled.returncode, labelled.stderr) == (1, key.stderr)


def test_print_streams_before_the_run_ends(write, syn):
    write("slow.syn", 'print("first")\ntask spin()\n    while true\n        let x be 1\n')
    r = syn("run", "slow.syn", "--call", "spin", "--timeout", "0.5")
    assert (r.returncode, r.stdout) == (4, "first\n")
    assert r.stderr.startswith("slow.syn:4:")
    assert "time limit (0.5 s, --timeout) reached" in r.stderr


def test_without_call_a_program_is_its_top_level(app, syn):
    r = both(syn)
    assert (r.returncode, r.stdout, r.stderr) == (0, "top\n", "")
