"""The test harness (tests/harness.py) says what `syn` says: the in-process Outcome of a
program and the real command's agree on exit code, output and error message."""

import pytest

import synsema
from harness import failure, output, result, run, run_cli

PROGRAMS = {
    "success": "print(1 + 2)\nprint([1, \"a\"])\n",
    "runtime error": "print(\"before\")\ntask f(x)\n    give x / 0\nprint(f(1))\n",
    "compile error": "let count be 1\nprint(cont)\n",
    "fail": "fail(\"boom\")\n",
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_in_process_and_the_command_agree(name, tmp_path):
    (tmp_path / "t.syn").write_text(PROGRAMS[name], encoding="utf-8")
    here, there = run(PROGRAMS[name]), run_cli("run", "t.syn", cwd=tmp_path)
    assert (here.code, here.out, here.err) == (there.code, there.out, there.err)


def test_a_limit_is_exit_4_in_both(tmp_path):
    src = "while true\n    let x be 1\n"
    (tmp_path / "t.syn").write_text(src, encoding="utf-8")
    here = run(src, max_steps=100)
    there = run_cli("run", "t.syn", "--max-steps", "100", cwd=tmp_path)
    assert here.code == there.code == 4
    assert here.err == there.err
    assert here.err.startswith("t.syn:2:5: error: step limit (100, --max-steps) reached\n")


def test_an_outcome_holds_the_value_labels_and_the_bare_message():
    o = run("task f(x)\n    give private(x * 2, \"c\")\n", task="f", args={"x": 2},
            labels=True, cap_set="stdout")
    assert (o.code, o.value, o.labels, o.err, o.error) == (0, 4, frozenset({"c"}), "", None)
    e = failure("print(\"x\")\nprint(1 / 0)\n")
    assert (e.code, e.out, e.message) == (1, "x\n", "division by zero")
    assert isinstance(e.error, synsema.RunError)
    assert e.err.startswith("t.syn:2:9: error: division by zero")
    assert failure("print(nope)\n").message == "'nope' is not declared"
    withheld = run("fail(private(\"s\", \"c\"))\n", labels=True, cap_set="stdout")
    assert withheld.err.startswith("t.syn:1:5: error: (message withheld: labelled c)\n")


def test_output_and_failure_fail_the_test_on_the_other_outcome():
    assert output("print(1)\n") == "1\n"
    with pytest.raises(AssertionError, match="division by zero"):
        output("print(1 / 0)\n")
    with pytest.raises(AssertionError, match="succeeded"):
        failure("print(1)\n")


def test_result_raises_the_api_error():
    assert result("print(1)\n").output == "1\n"
    with pytest.raises(synsema.LimitExceeded):
        result("while true\n    let x be 1\n", max_steps=50)


def test_run_cli_takes_input():
    o = run_cli("repl", input="print(1 + 1)\n")
    assert o.code == 0 and o.out.splitlines()[0] == "2"
