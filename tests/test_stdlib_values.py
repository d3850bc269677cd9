"""The value helpers: display, equality and ordering, JSON (SPEC section 4)."""
import json

import pytest
from hypothesis import given, strategies as st

from synsema.vm.display import display, format_number
from synsema.vm.equality import compare, equal
from synsema.vm.jsonvalues import json_decode, json_encode
from synsema.vm.errors import SynError
from synsema.vm.values import FALSE_KEY, TRUE_KEY, Closure, norm_key


class _Func:
    def __init__(self, name, kind="task", line=1):
        self.name, self.kind, self.line = name, kind, line


def _nested(depth):
    v = []
    for _ in range(depth):
        v = [v]
    return v


# ---- display -------------------------------------------------------------------------

@pytest.mark.parametrize("value, shown", [
    ("hello", "hello"),
    ("say \"hi\"", "say \"hi\""),
    ("", ""),
    (42, "42"),
    (-7, "-7"),
    (2 ** 100, "1267650600228229401496703205376"),
    (2.5, "2.5"),
    (3.0, "3"),
    (-3.0, "-3"),
    (0.1 + 0.2, "0.30000000000000004"),
    (-0.1, "-0.1"),
    (1e15, "1000000000000000"),
    (9999999999999998.0, "9999999999999998"),
    (1e16, "1e+16"),
    (-1e16, "-1e+16"),
    (1e100, "1e+100"),
    (1e-7, "1e-07"),
    (float("inf"), "inf"),
    (float("-inf"), "-inf"),
    (float("nan"), "nan"),
    (-0.0, "-0"),
    (True, "true"),
    (False, "false"),
    (None, "nothing"),
    ([], "[]"),
    ({}, "{}"),
    ([1, "a", None, False], "[1, \"a\", nothing, false]"),
    ({"a": 1, "b": [2, 3]}, "{\"a\": 1, \"b\": [2, 3]}"),
    (["say \"hi\""], "[\"say \\\"hi\\\"\"]"),
    (["line\nnext\ttab\\"], "[\"line\\nnext\\ttab\\\\\"]"),
    (["héllo 😀"], "[\"héllo 😀\"]"),
    (["\x01"], "[\"\\u0001\"]"),
    ({"a": 1, 2: "x", TRUE_KEY: 3, FALSE_KEY: 4, 2.5: 5}, "{\"a\": 1, 2: \"x\", true: 3, false: 4, 2.5: 5}"),
    ([[1.0, [2.5]], {"k": {"j": None}}], "[[1, [2.5]], {\"k\": {\"j\": nothing}}]"),
])
def test_display(value, shown):
    assert display(value) == shown


def test_display_closures():
    assert display(Closure(_Func("add"))) == "<task add>"
    assert display(Closure(_Func("", "lambda", 12))) == "<lambda at line 12>"
    assert display([Closure(_Func("add"))]) == "[<task add>]"


def test_format_number():
    assert format_number(3) == "3"
    assert format_number(3.0) == "3"
    assert format_number(3.25) == "3.25"
    assert format_number(123456789012345678) == "123456789012345678"
    assert format_number(1.5e16) == "1.5e+16"


def test_display_huge_int_shows_every_digit():
    # SPEC 4: integers are unbounded, and text() never raises (SPEC 10).
    assert display(10 ** 5000) == "1" + "0" * 5000
    assert display([-(10 ** 5000)]) == "[-1" + "0" * 5000 + "]"


def test_display_deep_nesting_shows():
    assert display(_nested(3)) == "[[[[]]]]"
    assert display(_nested(100_000)) == "[" * 100_001 + "]" * 100_001


@given(st.floats(allow_nan=False))
def test_display_of_float_reads_back(f):
    assert float(display(f)) == f


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_display_of_float_is_repr_or_integral(f):
    shown = display(f)
    if f.is_integer() and abs(f) < 1e16:
        assert "." not in shown and "e" not in shown
        assert int(shown) == f
    else:
        assert shown == repr(f)


# ---- equality ------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [
    (1, 1), (1, 1.0), (1.0, 1), ("a", "a"), (True, True), (None, None),
    ([], []), ({}, {}), ([1, 2], [1, 2.0]),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ({"list": [1, {"k": "v"}]}, {"list": [1.0, {"k": "v"}]}),
    ({1: "x"}, {1.0: "x"}),
    ({TRUE_KEY: 1}, {norm_key(True): 1}),
    (2 ** 80, 2 ** 80),
    ("héllo", "héllo"),
])
def test_equal(a, b):
    assert equal(a, b) is True
    assert equal(b, a) is True


@pytest.mark.parametrize("a, b", [
    (1, "1"), (True, 1), (1, True), (False, 0), (0, None), (None, False), ("", None),
    ([], {}), ([1], [True]), ([1, 2], [2, 1]), ([1], [1, 1]),
    ({"a": 1}, {"a": 1, "b": 2}), ({"a": 1}, {"b": 1}), ({"a": 1}, {"a": "1"}),
    ({1: "x"}, {TRUE_KEY: "x"}), ({0: "x"}, {FALSE_KEY: "x"}), ({"1": 1}, {1: 1}),
    ([[1, [2]]], [[1, [3]]]), (1, 1.5), (2 ** 80, float(2 ** 80) + 2 ** 30),
    (float("nan"), float("nan")),
])
def test_not_equal(a, b):
    assert equal(a, b) is False
    assert equal(b, a) is False


def test_equal_closures():
    f = _Func("add")
    assert equal(Closure(f), Closure(f))
    assert not equal(Closure(f), Closure(_Func("add")))
    assert not equal(Closure(f), "<task add>")


def test_equal_deep():
    assert equal(_nested(500), _nested(500))
    assert not equal(_nested(500), _nested(499))
    assert equal(_nested(100_000), _nested(100_000))     # == never raises (SPEC 10)
    assert not equal(_nested(100_000), _nested(99_999))


def test_compare():
    assert compare(1, 2, "<") == -1
    assert compare(2, 1, "<") == 1
    assert compare(2, 2.0, "<") == 0
    assert compare(2 ** 100, 1.5, ">") == 1
    assert compare("a", "b", "<=") == -1
    assert compare("b", "a", "<=") == 1
    assert compare("é", "é", ">=") == 0
    assert compare("Z", "a", "<") == -1          # by code point


@pytest.mark.parametrize("a, b, msg", [
    (1, "1", "cannot compare number and text with <"),
    ("1", 1, "cannot compare text and number with <"),
    (True, 1, "cannot compare bool and number with <"),
    (1, False, "cannot compare number and bool with <"),
    (None, None, "cannot compare nothing and nothing with <"),
    ([1], [2], "cannot compare list and list with <"),
    ({}, {}, "cannot compare map and map with <"),
])
def test_compare_errors(a, b, msg):
    with pytest.raises(SynError) as e:
        compare(a, b, "<")
    assert e.value.message == msg


# ---- JSON ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    ({"a": [1, True, None]}, "{\"a\": [1, true, null]}"),
    ([], "[]"), ({}, "{}"), ("hé\"😀\n", "\"hé\\\"😀\\n\""),
    (3.0, "3"), (2.5, "2.5"), (1e16, "1e+16"), (2 ** 70, "1180591620717411303424"),
    (False, "false"), (None, "null"),
    ({"x": {"y": [1.5, "z"]}}, "{\"x\": {\"y\": [1.5, \"z\"]}}"),
])
def test_json_encode(value, text):
    assert json_encode(value) == text
    assert equal(json.loads(text), value)


@pytest.mark.parametrize("value, msg", [
    ({1: "a"}, "json_encode needs text map keys, got the number key 1; use text(key)"),
    ({TRUE_KEY: "a"}, "json_encode needs text map keys, got the bool key true"),
    ([float("nan")], "json_encode cannot encode the number nan"),
    ({"a": float("inf")}, "json_encode cannot encode the number inf"),
    ([Closure(_Func("add"))], "json_encode cannot encode a task"),
])
def test_json_encode_errors(value, msg):
    with pytest.raises(SynError) as e:
        json_encode(value)
    assert msg in e.value.message


def test_json_encode_deep_is_a_syn_error():
    with pytest.raises(SynError, match="json_encode: value nested too deeply"):
        json_encode(_nested(100_000))


def test_json_decode():
    assert json_decode("{\"k\": [1, 2]}") == {"k": [1, 2]}
    v = json_decode(" {\"a\": 1, \"b\": 2.5, \"c\": [true, false, null], \"d\": \"é\\u00e9\"} ")
    assert v == {"a": 1, "b": 2.5, "c": [True, False, None], "d": "éé"}
    assert type(v["a"]) is int and type(v["b"]) is float
    assert list(v) == ["a", "b", "c", "d"]          # insertion order kept
    assert json_decode("12345678901234567890123") == 12345678901234567890123
    assert json_decode("\"x\"") == "x"
    assert json_decode("{\"a\": 1, \"a\": 2}") == {"a": 2}
    assert type(json_decode("1.0")) is float


@pytest.mark.parametrize("text, msg", [
    ("{\"k\": [1, 2", "json_decode: not valid JSON: Expecting ',' delimiter (line 1 column 12)"),
    ("", "json_decode: not valid JSON: Expecting value (line 1 column 1)"),
    ("[1,]", "json_decode: not valid JSON:"),
    ("{'a': 1}", "json_decode: not valid JSON:"),
    ("[1]\n x", "json_decode: not valid JSON: Extra data (line 2 column 2)"),
    ("[NaN]", "json_decode: not valid JSON: NaN"),
    ("Infinity", "json_decode: not valid JSON: Infinity"),
    ("1e400", "json_decode: number out of range: 1e400"),
    ("[" * 100_000, "json_decode: JSON nested too deeply"),
    ('["\\ud800"]', "json_decode: the JSON has a lone surrogate \\ud800"),
])
def test_json_decode_errors(text, msg):
    with pytest.raises(SynError) as e:
        json_decode(text)
    assert e.value.message.startswith(msg)


def test_json_decode_needs_text():
    with pytest.raises(SynError, match="json_decode needs a text, got number"):
        json_decode(1)


_scalars = (st.none() | st.booleans() | st.integers() | st.text()
            | st.floats(allow_nan=False, allow_infinity=False))
_json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(_json_values)
def test_json_round_trip(v):
    text = json_encode(v)
    assert equal(json_decode(text), v)
    assert equal(json.loads(text), v)          # it is standard JSON


_no_nothing = st.recursive(
    st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(_no_nothing)
def test_json_encode_is_spaced_like_display(v):
    # Inside a list both quote texts the same way; only `nothing` vs `null` differs.
    assert json_encode([v]) == display([v])


@given(_json_values, _json_values)
def test_equal_is_symmetric_and_reflexive(a, b):
    assert equal(a, a)
    assert equal(a, b) == equal(b, a)
