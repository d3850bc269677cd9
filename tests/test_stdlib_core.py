"""The pure builtins of stdlib/core.py, called through the registry as the VM calls them."""
import pytest
from hypothesis import given, strategies as st

from synsema.stdlib import core  # importing it registers the builtins
from synsema.vm.equality import equal
from synsema.stdlib.registry import BUILTINS
from synsema.vm.errors import SynError
from synsema.vm.values import FALSE_KEY, TRUE_KEY, Closure

PURE = ["text", "number", "type_of", "json_encode", "json_decode", "len", "contains", "keys",
        "values", "get", "append", "put", "remove", "slice", "range", "sort", "reverse",
        "join", "split", "upper", "lower", "trim", "replace", "starts_with", "ends_with",
        "min", "max", "abs", "round", "floor", "fail"]


class _Func:
    def __init__(self, name, kind="task", line=1):
        self.name, self.kind, self.line = name, kind, line


def call(name, *args):
    """Call a builtin as the VM would: arity checked against the registry first."""
    b = BUILTINS[name]
    assert b.min_args <= len(args) <= b.max_args, f"{name} called with {len(args)} args"
    before = repr(args)
    try:
        return b.fn(*args)
    finally:
        assert repr(args) == before, f"{name} changed its arguments"


def err(name, *args):
    with pytest.raises(SynError) as e:
        call(name, *args)
    return e.value.message


def same(a, b):
    """Equal and of the same Python types throughout (so 3 is not 3.0, true is not 1)."""
    return equal(a, b) and repr(a) == repr(b)


def test_registry():
    for name in PURE:
        b = BUILTINS[name]
        assert b.kind == "pure"
        assert b.doc, f"{name} has no doc line"
    assert BUILTINS["get"].min_args == 2 and BUILTINS["get"].max_args == 3
    assert BUILTINS["range"].arity_text() == "1 to 3 arguments"
    assert BUILTINS["len"].arity_text() == "1 argument"


# ---- conversion ----------------------------------------------------------------------

def test_text():
    assert call("text", 12) == "12"
    assert call("text", "a") == "a"
    assert call("text", 3.0) == "3"
    assert call("text", [1, "a", None, False]) == '[1, "a", nothing, false]'
    assert call("text", {"a": 1, TRUE_KEY: 2}) == '{"a": 1, true: 2}'
    assert call("text", Closure(_Func("double"))) == "<task double>"


@pytest.mark.parametrize("t, n", [
    ("12", 12), ("-3", -3), ("+4", 4), (" 7 \n", 7), ("2.5", 2.5), ("1e3", 1000.0),
    (".5", 0.5), ("5.", 5.0), ("-1.5E-2", -0.015), ("123456789012345678901234567890",
                                                    123456789012345678901234567890),
])
def test_number(t, n):
    assert same(call("number", t), n)


def test_number_of_number_is_itself():
    assert same(call("number", 4), 4)
    assert same(call("number", 4.5), 4.5)


@pytest.mark.parametrize("t", ["abc", "", " ", "1,000", "1_000", "0x10", "nan", "inf",
                               "1e", "--1", "١٢", "12abc"])
def test_number_bad_text(t):
    m = err("number", t)
    assert m.startswith("number cannot read ")
    assert f'"{t}"' in m or t == "١٢"


def test_number_errors():
    assert err("number", True) == "number needs a text or number, got bool"
    assert err("number", None) == "number needs a text or number, got nothing"
    assert err("number", [1]) == "number needs a text or number, got list"
    assert "out of range" in err("number", "1e999")
    assert call("number", "9" * 5000) == 10 ** 5000 - 1        # integers are unbounded


def test_type_of():
    assert [call("type_of", v) for v in (1, 1.5, "x", True, None, [], {},
                                         Closure(_Func("f")))] == \
        ["number", "number", "text", "bool", "nothing", "list", "map", "task"]


def test_json_builtins():
    assert call("json_encode", {"a": [1, True, None]}) == '{"a": [1, true, null]}'
    assert call("json_decode", '{"k": [1, 2]}')["k"] == [1, 2]
    assert "json_encode" in err("json_encode", {1: 2})
    assert err("json_decode", "{").startswith("json_decode: not valid JSON: ")


# ---- collections ---------------------------------------------------------------------

def test_len():
    assert call("len", "héllo") == 5
    assert call("len", "😀") == 1
    assert call("len", "") == 0
    assert call("len", [1, [2, 3]]) == 2
    assert call("len", {"a": 1, "b": 2}) == 2
    assert err("len", 5) == "len needs a text, list or map, got number"
    assert err("len", None) == "len needs a text, list or map, got nothing"


def test_contains_map():
    m = {"a": 1, 1: "one", TRUE_KEY: "t"}
    assert call("contains", m, "a")
    assert not call("contains", m, "b")
    assert call("contains", m, 1)
    assert call("contains", m, 1.0)
    assert call("contains", m, True)
    assert not call("contains", m, False)
    assert not call("contains", {1: "x"}, True)
    assert not call("contains", {TRUE_KEY: "x"}, 1)
    # nothing, a list or a map can never be a key (put refuses them): asking is a mistake
    for bad in (None, [1], {"a": 1}):
        with pytest.raises(SynError, match="contains needs a text, number or bool as a map key"):
            call("contains", m, bad)
    assert not call("contains", {}, float("nan"))


def test_contains_list():
    assert call("contains", ["get_weather", "add"], "add")
    assert not call("contains", ["get_weather"], "get")
    assert call("contains", [1, 2], 2.0)
    assert not call("contains", [1], True)
    assert not call("contains", [True], 1)
    assert call("contains", [[1, {"a": 2}]], [1.0, {"a": 2}])
    assert call("contains", [None], None)
    assert not call("contains", [], None)


def test_contains_text():
    assert call("contains", "haystack", "st")
    assert call("contains", "haystack", "")
    assert not call("contains", "haystack", "x")
    assert call("contains", "héllo", "é")
    assert err("contains", "abc", 1).startswith("contains needs a text to look for in a text, got number")
    assert err("contains", None, "x") == "contains needs a map, list or text, got nothing"
    assert err("contains", 3, 3) == "contains needs a map, list or text, got number"


def test_keys_values():
    m = {"b": 1, 2: "x", TRUE_KEY: 3, FALSE_KEY: 4}
    ks = call("keys", m)
    assert ks == ["b", 2, True, False]
    assert type(ks[2]) is bool
    assert call("values", m) == [1, "x", 3, 4]
    assert call("keys", {}) == []
    assert err("keys", [1]) == "keys needs a map, got list"
    assert err("values", "x") == "values needs a map, got text"


def test_get():
    m = {"a": 1, 1: "one", TRUE_KEY: "t"}
    assert call("get", m, "a") == 1
    assert call("get", m, "zz") is None
    assert call("get", m, "zz", 0) == 0
    assert call("get", m, 1.0) == "one"
    assert call("get", m, True) == "t"
    assert call("get", {1: "x"}, True, "d") == "d"
    assert err("get", m, [1], "d") == "get needs a text, number or bool as a map key, got list"
    assert call("get", [10, 20, 30], 1) == 20
    assert call("get", [10, 20, 30], -1) == 30
    assert call("get", [10, 20, 30], 1.0) == 20
    assert call("get", [10, 20, 30], 3, "d") == "d"
    assert call("get", [10, 20, 30], -4, "d") == "d"
    assert call("get", [], 0) is None
    assert call("get", "héllo", 1) == "é"
    assert err("get", [1], "0") == "get needs an integer index for a list, got text"
    assert err("get", [1], 0.5) == "get needs an integer index for a list, got number 0.5"
    assert err("get", [1], True) == "get needs an integer index for a list, got bool"
    assert err("get", 5, 0) == "get needs a map, list or text, got number"


def test_append():
    xs = [7, 8]
    assert call("append", xs, 9) == [7, 8, 9]
    assert xs == [7, 8]
    assert call("append", [], [1]) == [[1]]
    assert err("append", "ab", "c") == "append needs a list, got text; use + to join texts"
    assert err("append", {}, 1) == "append needs a list, got map"


def test_put():
    m = {"a": 1}
    assert call("put", m, "b", 2) == {"a": 1, "b": 2}
    assert m == {"a": 1}
    r = call("put", {"x": 1, "y": 2}, "x", 5)
    assert list(r.items()) == [("x", 5), ("y", 2)]       # existing key keeps its place
    r = call("put", {1: "a"}, 1.0, "b")
    assert r == {1: "b"} and len(r) == 1                # 1 and 1.0 are one key
    r = call("put", {1: "a"}, True, "b")
    assert len(r) == 2 and r[TRUE_KEY] == "b" and r[1] == "a"
    assert call("put", [1, 2, 3], -1, 9) == [1, 2, 9]
    assert call("put", [1, 2, 3], 0, "x") == ["x", 2, 3]
    assert err("put", [1], 1, 0) == "put: index 1 is out of range for a list of 1 item"
    assert err("put", {}, [1], 0) == "put needs a text, number or bool as a map key, got list"
    assert err("put", {}, None, 0) == "put needs a text, number or bool as a map key, got nothing"
    assert err("put", {}, float("nan"), 0) == "put cannot use nan as a map key"
    assert err("put", "t", 0, 0) == "put needs a map or list, got text"


def test_remove():
    m = {"a": 1, "b": 2, "c": 3}
    r = call("remove", m, "b")
    assert list(r) == ["a", "c"]
    assert m == {"a": 1, "b": 2, "c": 3}
    r2 = call("remove", m, "zz")
    assert r2 == m and r2 is not m
    assert call("remove", {1: "x", TRUE_KEY: "t"}, True) == {1: "x"}
    assert call("remove", {1: "x"}, 1.0) == {}
    assert call("remove", [1, 2, 3], 0) == [2, 3]
    assert call("remove", [1, 2, 3], -1) == [1, 2]
    assert err("remove", [1, 2], 2) == "remove: index 2 is out of range for a list of 2 items"
    assert err("remove", [1, 2], -3) == "remove: index -3 is out of range for a list of 2 items"
    assert err("remove", [], 0) == "remove: index 0 is out of range for a list of 0 items"
    assert err("remove", [1], "0") == "remove needs an integer index for a list, got text"
    assert err("remove", "abc", 0) == "remove needs a map or list, got text"


def test_slice():
    assert call("slice", [1, 2, 3, 4], 1, 3) == [2, 3]
    assert call("slice", [1, 2, 3, 4], 2) == [3, 4]
    assert call("slice", [1, 2, 3, 4], -2) == [3, 4]
    assert call("slice", [1, 2, 3, 4], 0, -1) == [1, 2, 3]
    assert call("slice", [1, 2, 3, 4], 10) == []
    assert call("slice", [1, 2, 3, 4], -10, 10) == [1, 2, 3, 4]
    assert call("slice", [1, 2, 3, 4], 3, 1) == []
    assert call("slice", "héllo😀", 1, -1) == "éllo"
    assert call("slice", "héllo😀", -1) == "😀"
    assert call("slice", "abc", 1.0, 2.0) == "b"
    assert call("slice", "abc", 0, 10 ** 30) == "abc"
    assert err("slice", "abc", 0.5) == "slice needs an integer start, got number 0.5"
    assert err("slice", "abc", 0, "2") == "slice needs an integer end, got text"
    assert err("slice", {"a": 1}, 0) == "slice needs a list or text, got map"


def test_range():
    assert call("range", 3) == [0, 1, 2]
    assert call("range", 0) == []
    assert call("range", -2) == []
    assert call("range", 2, 5) == [2, 3, 4]
    assert call("range", 5, 2) == []
    assert call("range", 0, 10, 3) == [0, 3, 6, 9]
    assert call("range", 5, 0, -2) == [5, 3, 1]
    assert call("range", 3.0) == [0, 1, 2]
    assert type(call("range", 3.0)[0]) is int
    assert err("range", 0, 5, 0) == "range step must not be 0"
    assert err("range", 1.5) == "range needs an integer count, got number 1.5"
    assert err("range", "3") == "range needs an integer count, got text"
    assert err("range", True) == "range needs an integer count, got bool"
    assert err("range", 0, None, 2).startswith("range needs an integer end")
    assert "the limit is 10000000" in err("range", 10_000_001)
    assert "the limit is 10000000" in err("range", 0, 10 ** 40)
    assert "the limit is 10000000" in err("range", -10 ** 40, 10 ** 40, 1)


def test_range_limit_is_inclusive(monkeypatch):
    monkeypatch.setattr(core, "RANGE_LIMIT", 10)
    assert len(call("range", 10)) == 10
    assert len(call("range", 0, 20, 2)) == 10
    assert err("range", 11) == "range would make 11 items; the limit is 10; use a while loop to count further"


def test_sort():
    assert call("sort", [3, 1.5, 2]) == [1.5, 2, 3]
    assert call("sort", ["b", "a", "C", "é"]) == ["C", "a", "b", "é"]
    assert call("sort", []) == []
    assert call("sort", [2 ** 80, -1, 0.5]) == [-1, 0.5, 2 ** 80]
    xs = [3, 1, 2]
    call("sort", xs)
    assert xs == [3, 1, 2]
    assert err("sort", [1, "a"]) == "sort needs all numbers or all texts, got number and text"
    assert err("sort", ["a", 1]) == "sort needs all numbers or all texts, got text and number"
    assert err("sort", [1, True]) == "sort needs all numbers or all texts, got number and bool"
    assert err("sort", [[1], [0]]) == "sort needs numbers or texts, got list"
    assert err("sort", "cba") == "sort needs a list, got text"


def test_reverse():
    assert call("reverse", [1, 2, 3]) == [3, 2, 1]
    assert call("reverse", "héllo") == "olléh"
    assert call("reverse", []) == []
    assert err("reverse", {"a": 1}) == "reverse needs a list or text, got map"


def test_join():
    assert call("join", ["x", "y"], "-") == "x-y"
    assert call("join", [], ", ") == ""
    assert call("join", [1, "a", None, 2.0, True, [1, "b"], {"k": "v"}], " ") == \
        '1 a nothing 2 true [1, "b"] {"k": "v"}'
    assert err("join", "abc", "-") == "join needs a list, got text"
    assert err("join", ["a"], 1) == "join needs a text separator, got number"


# ---- text ----------------------------------------------------------------------------

def test_split():
    assert call("split", "a,b,c", ",") == ["a", "b", "c"]
    assert call("split", "a,,b", ",") == ["a", "", "b"]
    assert call("split", "", ",") == [""]
    assert call("split", "a--b", "--") == ["a", "b"]
    assert call("split", "  a b\n\tc  ") == ["a", "b", "c"]
    assert call("split", "   ") == []
    assert call("split", "a b", None) == ["a", "b"]
    assert err("split", "a", "").startswith("split separator must not be empty")
    assert err("split", 1, ",") == "split needs a text, got number"
    assert err("split", "a", 1) == "split needs a text separator, got number"


def test_case_and_trim():
    assert call("upper", "abc") + call("lower", "DEF") == "ABCdef"
    assert call("upper", "straße") == "STRASSE"
    assert call("lower", "ÉCOLE") == "école"
    assert call("trim", "  hi  ") == "hi"
    assert call("trim", "\n\t hi there \u00a0") == "hi there"
    assert err("upper", [1]) == "upper needs a text, got list"
    assert err("lower", None) == "lower needs a text, got nothing"
    assert err("trim", 3) == "trim needs a text, got number"


def test_replace():
    assert call("replace", "a-b-c", "-", "+") == "a+b+c"
    assert call("replace", "aaa", "aa", "b") == "ba"
    assert call("replace", "abc", "x", "y") == "abc"
    assert call("replace", "héllo", "é", "e") == "hello"
    assert err("replace", "abc", "", "x") == "replace needs a non-empty text to look for"
    assert err("replace", 1, "a", "b") == "replace needs a text, got number"
    assert err("replace", "a", 1, "b") == "replace needs a text to look for, got number"
    assert err("replace", "a", "a", None) == "replace needs a text to put in, got nothing"


def test_starts_ends_with():
    assert call("starts_with", "synsema", "syn")
    assert not call("starts_with", "synsema", "sema")
    assert call("ends_with", "synsema", "sema")
    assert call("starts_with", "x", "")
    assert err("starts_with", None, "a") == "starts_with needs a text, got nothing"
    assert err("ends_with", "a", 1) == "ends_with needs a text suffix, got number"


# ---- numbers -------------------------------------------------------------------------

def test_min_max():
    assert call("min", [3, 1, 2]) == 1
    assert call("max", [3, 1, 2]) == 3
    assert call("min", 3, 1, 2) == 1
    assert call("max", 1.5, 2) == 2
    assert call("min", ["b", "a"]) == "a"
    assert call("max", "b", "a") == "b"
    assert call("min", [5]) == 5
    assert same(call("min", [1, 1.0]), 1)               # the first of equals
    assert same(call("max", [1.0, 1]), 1.0)
    assert call("max", [2 ** 100, 1e30]) == 2 ** 100
    assert err("min", []) == "min of an empty list; give it at least one item"
    assert err("max", 5).startswith("max needs a list, or two or more numbers or texts, got number")
    assert err("min", 1, "a") == "min needs all numbers or all texts, got number and text"
    assert err("max", [True, False]) == "max needs numbers or texts, got bool"
    assert err("min", [1], [2]) == "min needs numbers or texts, got list"


def test_abs():
    assert same(call("abs", -3), 3)
    assert same(call("abs", -2.5), 2.5)
    assert same(call("abs", -(2 ** 80)), 2 ** 80)
    assert err("abs", True) == "abs needs a number, got bool"
    assert err("abs", "-1") == "abs needs a number, got text"


def test_round():
    assert same(call("round", 2.5), 2)
    assert same(call("round", 3.5), 4)
    assert same(call("round", -2.5), -2)
    assert same(call("round", 2.4), 2)
    assert same(call("round", 7), 7)
    assert same(call("round", 2.675, 2), 2.67)
    assert same(call("round", 1.25, 1), 1.2)
    assert same(call("round", 1234.5, -2), 1200.0)
    assert same(call("round", 1250, -2), 1200)
    assert same(call("round", 1350, -2), 1400)
    assert same(call("round", 5, 2), 5)
    assert same(call("round", 2.5, 0), 2)
    assert same(call("round", 2.5, 0.0), 2)
    assert err("round", float("inf")) == "round cannot make an integer of inf"
    assert err("round", float("nan")) == "round cannot make an integer of nan"
    assert err("round", "2.5") == "round needs a number, got text"
    assert err("round", 2.5, 1.5) == "round needs an integer number of digits, got number 1.5"


def test_floor():
    assert same(call("floor", 2.7), 2)
    assert same(call("floor", -2.1), -3)
    assert same(call("floor", 5), 5)
    assert same(call("floor", 1e20), 100000000000000000000)
    assert err("floor", float("-inf")) == "floor cannot make an integer of -inf"
    assert err("floor", None) == "floor needs a number, got nothing"


def test_fail():
    assert err("fail", "too big: 4") == "too big: 4"
    assert err("fail", "") == ""
    assert err("fail", [1, "a"]) == '[1, "a"]'
    assert err("fail", 3.0) == "3"


# ---- properties ----------------------------------------------------------------------

_ints = st.integers(min_value=-50, max_value=50)


@given(st.lists(st.integers()), _ints, st.one_of(st.none(), _ints))
def test_slice_matches_python(xs, a, b):
    args = (xs, a) if b is None else (xs, a, b)
    assert call("slice", *args) == xs[a:b]


@given(st.text(), st.text(min_size=1), st.text())
def test_replace_split_join(t, old, new):
    assert call("replace", t, old, new) == call("join", call("split", t, old), new)


@given(st.lists(st.one_of(st.integers(), st.floats(allow_nan=False))))
def test_sort_is_ordered_permutation(xs):
    r = call("sort", xs)
    assert all(a <= b for a, b in zip(r, r[1:]))
    assert sorted(map(repr, r)) == sorted(map(repr, xs))
    if xs:
        assert call("min", xs) == r[0] and call("max", xs) == r[-1]


@given(st.integers() | st.floats(allow_nan=False, allow_infinity=False))
def test_number_reads_text(n):
    assert call("number", call("text", n)) == n
