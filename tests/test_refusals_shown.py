"""SPEC 10 (issue 28, item 2): an uncaught labelled error, its position and stack lines,
--trace lines and `syn test` failure lines are shown when the ceiling's stdout= items
cover their labels; a host tool's refusal reaches Python as synsema.ToolRefused."""

import subprocess
import sys
from pathlib import Path

import pytest

import synsema

SYN = str(Path(sys.executable).with_name("syn"))

UNDER_PC = '''task check(n: number)
    when n > 3
        fail("too big: " + text(n))
    give n
let secret be private(7, "k")
print(check(secret))
'''


def syn(tmp_path, src, *args, cmd="run"):
    f = tmp_path / "app.syn"
    f.write_text(src)
    return subprocess.run([SYN, cmd, *args, f.name], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)


@pytest.mark.parametrize("ceiling, shown", [("stdout,stdout=k", True), ("stdout,stdout=j", False),
                                            ("*", True), (None, False)])
def test_an_uncaught_labelled_error_is_shown_only_when_stdout_covers_it(tmp_path, ceiling, shown):
    args = ["--labels"] + (["--cap-set", ceiling] if ceiling else [])
    p = syn(tmp_path, UNDER_PC, *args)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert ("too big: 7" in p.stderr) is shown, p.stderr
    assert ("message withheld: labelled k" in p.stderr) is not shown
    # the position and stack lines: raised under a pc labelled k
    assert ("app.syn:3:" in p.stderr and "in task check (app.syn:3)" in p.stderr) is shown
    assert ("in code that ran under a labelled condition" in p.stderr) is not shown


def test_syn_test_failure_lines_follow_the_same_rule(tmp_path):
    src = 'test "t"\n    fail(private("secret 42", "k"))\n'
    shown = syn(tmp_path, src, "--labels", "--cap-set", "stdout,stdout=k", cmd="test")
    hidden = syn(tmp_path, src, "--labels", "--cap-set", "stdout", cmd="test")
    assert shown.returncode == hidden.returncode == 1
    assert "secret 42 (line 2)" in shown.stdout, shown.stdout
    assert "secret 42" not in hidden.stdout and "withheld" in hidden.stdout


@synsema.tool(accepts={"body": ["mail"]})
def send(to: str, body: str) -> str:
    """Send a message.

    :param to: the address
    :param body: the text
    """
    return "sent"


REFUSED = '''require tool("send")
let body be private("hello", "k")
print(host_tool("send")("a@b.c", body))
'''


def test_a_contract_refusal_raises_tool_refused_with_its_details():
    prog = synsema.compile_source(REFUSED, "app.syn")
    with pytest.raises(synsema.ToolRefused) as info:
        prog.run(tools=[send], labels=True, cap_set="stdout,tool=send")
    e = info.value
    assert isinstance(e, synsema.RunError) and e.exit_code == 1
    assert (e.tool, e.parameter, e.accepts, e.reader) == ("send", "body", {"mail"}, None)
    assert e.labels == frozenset({"k"}) and type(e.labels) is frozenset
    assert "withheld" in e.message             # stdout=k not in the ceiling
    assert e.tool_calls == [("send", {"to": "a@b.c", "body": "hello"}, "refused")]
    shown = pytest.raises(synsema.ToolRefused, prog.run, tools=[send], labels=True,
                          cap_set="stdout,stdout=k,tool=send").value
    assert "'body' carries [k], accepts [mail]" in shown.message


def test_a_missing_tool_capability_is_a_tool_refused_too():
    prog = synsema.compile_source('print(host_tool("send")("x", "y"))\n', "app.syn")
    with pytest.raises(synsema.ToolRefused) as info:
        prog.run(tools=[send])
    assert (info.value.tool, info.value.parameter, info.value.accepts) == ("send", None, None)


def test_a_caught_refusal_is_no_tool_refused():
    src = REFUSED.replace("print(host_tool(\"send\")(\"a@b.c\", body))",
                          "try\n    host_tool(\"send\")(\"a@b.c\", body)\nrecover e\n    fail(\"gave up\")")
    prog = synsema.compile_source(src, "app.syn")
    with pytest.raises(synsema.RunError) as info:
        prog.run(tools=[send], labels=True, cap_set="stdout,tool=send")
    assert type(info.value) is synsema.RunError


def test_result_labels_and_error_labels_are_one_type():
    prog = synsema.compile_source('task f(x: text)\n    give x\n', "app.syn")
    r = prog.call("f", {"x": "a"}, labels=True, args_labels=["k"], cap_set="stdout,stdout=k")
    assert type(r.labels) is frozenset and r.labels == {"k"}
    assert prog.call("f", {"x": "a"}).labels == frozenset()
