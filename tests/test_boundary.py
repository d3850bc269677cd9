"""The Python boundary (stdlib.pyvalues, stdlib.hosttools): every exception a host tool
raises is the catchable `host tool 'x' failed` error on every surface (the API, `syn run`,
`syn batch`, `syn serve --mcp`); a value whose reading raises is the catchable "cannot
hold" error; one set of conversion rules for arguments, results, MCP and serve."""

import asyncio
import dataclasses
import json
import math

import pytest

import synsema
from synsema.stdlib import pyvalues
from synsema.stdlib.hosttools import to_synsema
from synsema.vm.errors import SynError
from synsema.vm.values import TRUE_KEY

TOOLS = """\
import asyncio
import synsema


class Mine(BaseException):
    pass


@synsema.tool(result_labels=["vendor"])
def odd(x: int) -> int:
    \"\"\"Raises a BaseException that is not an Exception for some x.\"\"\"
    if x == 2:
        raise asyncio.CancelledError("cancelled at 2")
    if x == 3:
        raise Mine("mine at 3")
    if x == 4:
        raise GeneratorExit("generator exit at 4")
    return x * 10
"""

APP = """\
require tool("odd")
task go(x: number)
    give host_tool("odd")(x)
"""


class Mine(BaseException):
    pass


def _raiser(exc):
    @synsema.tool(result_labels=["vendor"])
    def odd(x: int) -> int:
        raise exc
    return odd


CAUGHT = """\
require tool("odd")
require stdout
try
    print(host_tool("odd")(1))
recover err
    print(err)
print("after")
"""


@pytest.mark.parametrize("exc, shown", [
    (asyncio.CancelledError("gone"), "CancelledError: gone"),
    (GeneratorExit(), "GeneratorExit"),
    (Mine("mine"), "Mine: mine"),
    (SystemExit(3), "SystemExit: 3"),
])
def test_every_exception_a_tool_raises_is_catchable_and_keeps_its_labels(exc, shown):
    prog = synsema.compile_source(CAUGHT, "c.syn")
    r = prog.run(tools=_raiser(exc), labels=True,
                 cap_set="stdout,stdout=vendor,tool=*")
    assert r.output == f"host tool 'odd' failed: {shown}\nafter\n"
    uncaught = synsema.compile_source(APP, "a.syn")
    with pytest.raises(synsema.RunError) as e:
        uncaught.call("go", {"x": 1}, tools=_raiser(exc), labels=True)
    assert e.value.labels == {"vendor"}
    assert f"host tool 'odd' failed: {shown}" in e.value.host_message
    assert e.value.exit_code == 1


def test_ctrl_c_in_a_tool_still_stops_the_run():
    prog = synsema.compile_source(CAUGHT, "c.syn")
    with pytest.raises(KeyboardInterrupt):
        prog.run(tools=_raiser(KeyboardInterrupt()))


def test_syn_run_prints_no_traceback(write, syn):
    write("bt.py", TOOLS)
    write("t.syn", APP + 'try\n    print(go(2))\nrecover e\n    print("caught")\n'
          'print(go(3))\n')
    r = syn("run", "t.syn", "--tools", "bt:odd")
    assert r.returncode == 1
    assert r.stdout == "caught\n"
    assert "Traceback" not in r.stderr
    assert "host tool 'odd' failed: Mine: mine at 3" in r.stderr


def test_syn_batch_survives_and_writes_every_result(write, syn, tmp_path):
    write("bt.py", TOOLS)
    write("t.syn", APP)
    write("in.jsonl", "".join(json.dumps({"x": n}) + "\n" for n in (1, 2, 3, 4, 5)))
    r = syn("batch", "t.syn", "--call", "go", "in.jsonl", "-o", "out.jsonl", "--tools",
            "bt:odd", "--jobs", "1")
    assert "Traceback" not in r.stderr
    assert r.returncode == 0, r.stderr
    got = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [x.get("value") for x in got] == [10, None, None, None, 50]
    assert "CancelledError: cancelled at 2" in got[1]["error"]
    assert "Mine: mine at 3" in got[2]["error"]
    assert "GeneratorExit: generator exit at 4" in got[3]["error"]


SERVED = APP + """\
task merged()
    give {1: "a", true: "b"}
task numbered()
    give {1: "a"}
"""


def test_syn_serve_keeps_answering_after_any_tool_exception(write, tmp_path):
    pytest.importorskip("mcp")
    from test_mcp import _serve, _session, _texts
    write("bt.py", TOOLS)
    write("s.syn", SERVED)
    _, results = _session(_serve("s.syn", "--mcp", "--tools", "bt:odd", cwd=tmp_path),
                          [("go", {"x": 2}), ("go", {"x": 3}), ("go", {"x": 4}),
                           ("go", {"x": 5}), ("merged", {}), ("numbered", {})])
    cancelled, mine, gen, ok, merged, numbered = results
    assert cancelled["isError"] and "CancelledError: cancelled at 2" in _texts(cancelled)[0]
    assert mine["isError"] and "Mine: mine at 3" in _texts(mine)[0]
    assert gen["isError"] and "GeneratorExit" in _texts(gen)[0]
    assert (ok["isError"], _texts(ok)) == (False, ["50"])
    # a map Python (and JSON) cannot hold faithfully is an error naming it, not one key
    assert merged["isError"] and "the keys 1 and true, which are one key in Python" in \
        _texts(merged)[0]
    assert numbered["isError"] and _texts(numbered) == [
        "the result of task 'numbered' cannot be written as JSON: json_encode needs text map "
        "keys, got the number key 1; use text(key) to make it a text"]


# ---- a value whose reading raises ------------------------------------------------------------

class BadItems(dict):
    def items(self):
        raise RuntimeError("items broke")


class BadIter(list):
    def __iter__(self):
        raise RuntimeError("iteration broke")


class BadTuple(tuple):
    def __iter__(self):
        raise GeneratorExit("tuple broke")


@dataclasses.dataclass
class Record:
    name: str


class BadAttr:
    def __getattr__(self, name):
        raise ValueError(f"no {name} here")


def _unreadable_record():
    r = Record("x")
    del r.name          # a field that cannot be read
    return r


class BadLen(list):
    def __len__(self):
        raise RuntimeError("len broke")

    def __iter__(self):
        raise RuntimeError("iter broke")


@pytest.mark.parametrize("value, said", [
    (BadItems(a=1), "type BadItems (reading it raised RuntimeError: items broke)"),
    (BadIter([1]), "type BadIter (reading it raised RuntimeError: iteration broke)"),
    (BadTuple((1,)), "type BadTuple (reading it raised GeneratorExit: tuple broke)"),
    ({"r": _unreadable_record()}, "type Record (reading it raised AttributeError: "),
    ([1, BadAttr()], "type BadAttr (reading it raised ValueError: no model_dump here) at "),
    (BadLen([1]), "type BadLen (reading it raised RuntimeError: iter broke)"),
])
def test_a_result_whose_reading_raises_is_the_catchable_cannot_hold_error(value, said):
    @synsema.tool
    def give_it():
        return value
    prog = synsema.compile_source('require tool("give_it")\nrequire stdout\ntry\n'
                                  '    print(host_tool("give_it")())\nrecover e\n'
                                  '    print(e)\n', "g.syn")
    out = prog.run(tools=give_it).output
    assert out.startswith("host tool 'give_it' returned a value Synsema cannot hold (")
    assert said in out
    with pytest.raises(synsema.ArgumentError) as e:       # the same rules for arguments
        synsema.compile_source("task f(x)\n    give x\n", "f.syn").call("f", {"x": value})
    assert said in e.value.message


# ---- one set of rules both ways ------------------------------------------------------------

def test_arguments_follow_the_same_rules_as_tool_results():
    prog = synsema.compile_source("task f(x)\n    give x\n", "f.syn")
    for bad, said in [("a\udc00b", "a lone surrogate \\udc00 in a text"),
                      ({"k\ud800": 1}, "a lone surrogate \\ud800 in a map key"),
                      (math.nan, "the number nan"), ([math.inf], "the number inf")]:
        with pytest.raises(synsema.ArgumentError, match="a value Synsema cannot hold"):
            prog.call("f", {"x": bad})
        with pytest.raises(SynError, match="returned a value Synsema cannot hold"):
            to_synsema(bad, "t")
        with pytest.raises(pyvalues.Unholdable) as e:
            pyvalues.from_python(bad)
        assert said in e.value.render()
    # what a tool may return, an argument may be: a dataclass, a tuple, an Enum key
    assert prog.call("f", {"x": Record("ana")}).value == {"name": "ana"}
    assert prog.call("f", {"x": (1, (2,))}).value == [1, [2]]


def test_a_map_python_would_merge_is_an_error_naming_its_keys():
    prog = synsema.compile_source('task f()\n    give {1: "a", true: "b"}\n'
                                  'task g()\n    give [{"x": {false: 1, 0.0: 2}}]\n'
                                  'task h()\n    give {1: "a", "1": "b", true: "c"}\n', "m.syn")
    with pytest.raises(synsema.RunError) as e:
        prog.call("f")
    assert e.value.message == (
        "m.syn: error: the result of task 'f' cannot leave the program: it holds a map with "
        "the keys 1 and true, which are one key in Python (1 == True); make them texts "
        "(text(key)) to keep both")
    with pytest.raises(synsema.RunError, match=r"the keys 0 and false, which are one key in "
                                               r"Python \(0 == False\).* at \[0\]\[\"x\"\]"):
        prog.call("g")
    with pytest.raises(synsema.RunError, match="the keys 1 and true"):
        prog.call("h")

    @synsema.tool
    def take(m: dict) -> int:
        return len(m)
    app = synsema.compile_source('require tool("take")\nrequire stdout\n'
                                 'print(host_tool("take")({"1": 1, true: 2}))\n'
                                 'try\n    host_tool("take")({1: 1, true: 2})\nrecover e\n'
                                 '    print(e)\n', "t.syn")
    assert app.run(tools=take).output == (
        "2\nhost tool 'take' cannot take 'm': it holds a map with the keys 1 and true, which "
        "are one key in Python (1 == True); make them texts (text(key)) to keep both; pass "
        "data Python can hold\n")


def test_a_bool_key_and_a_number_key_stay_two_keys_on_the_way_in():
    assert pyvalues.from_python({True: 1, "a": 2}) == {TRUE_KEY: 1, "a": 2}
    with pytest.raises(pyvalues.Unholdable, match="two keys that are one in Synsema"):
        import enum

        class E(enum.Enum):
            A = "a"
        pyvalues.from_python({E.A: 1, "a": 2})

