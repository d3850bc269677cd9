"""Defects found by differential testing (issue 9), one class per section: escapes the
lexer must refuse, integers of any length (SPEC 4), display and equality that never raise
(SPEC 10 lists ==, != and text as never raising), lone surrogates from JSON, nan equality
that cannot tell shared storage from a copy, and one display of values for the model."""

import sys
from functools import partial

import pytest

from synsema.vm.display import display
from synsema.vm.equality import equal
from synsema.vm.jsonvalues import json_decode, json_encode, lone_surrogate
from synsema.stdlib.llm import convert, prompts
from synsema.vm.digits import int_of_digits, int_text
from synsema.vm.errors import SynError
from harness import failure, output

NAN = "let inf be 1e308 * 10\nlet n be inf - inf\n"      # a program's way to a nan


run = partial(output, dedent=False, name="app.syn", timeout=20)  # what it prints (harness)


def lines(src, **opts):
    return run(src, **opts).splitlines()


def _chunked_int(digits):
    """A reference for int(digits) past CPython's limit, from chunks it accepts."""
    n = 0
    for i in range(0, len(digits), 1000):
        chunk = digits[i:i + 1000]
        n = n * 10 ** len(chunk) + int(chunk)
    return n


def _chunked_text(n):
    """A reference for str(n) past CPython's limit: base 10**1000 limbs."""
    limbs = []
    while n:
        n, r = divmod(n, 10 ** 1000)
        limbs.append(r)
    if not limbs:
        return "0"
    return str(limbs[-1]) + "".join(str(r).zfill(1000) for r in reversed(limbs[:-1]))


# ---- integers of any length ---------------------------------------------------------------

@pytest.mark.parametrize("ndigits", [1, 4300, 4301, 5000, 20_011, 123_457])
def test_int_text_and_int_of_digits_agree_with_a_chunked_reference(ndigits):
    digits = ("9876543210" * (ndigits // 10 + 1))[:ndigits]
    n = _chunked_int(digits)
    assert int_of_digits(digits) == n
    assert int_of_digits("-" + digits) == -n and int_of_digits("+" + digits) == n
    assert int_text(n) == _chunked_text(n) == digits
    assert int_text(-n) == "-" + digits


def test_int_conversions_leave_the_process_limit_alone():
    before = sys.get_int_max_str_digits()
    int_text(10 ** 9000)
    int_of_digits("7" * 9000)
    assert sys.get_int_max_str_digits() == before


def test_int_text_of_a_million_digits_is_fast_enough():
    import time
    n = 3 ** 2_100_000          # about a million digits
    start = time.perf_counter()
    text = int_text(n)
    assert int_of_digits(text) == n
    assert time.perf_counter() - start < 10     # the built-ins would take minutes


def test_huge_integers_through_the_language():
    big = "9" * 5000
    out = lines(f"let x be {big}\n"
                "print(x)\n"
                "print(len(text(x)))\n"
                "print(number(text(x)) == x)\n"
                "print(json_decode(json_encode([x]))[0] == x)\n"
                "print(len(text(x + 1)))\n")
    assert out == [big, "5000", "true", "true", "5001"]


def test_error_messages_show_a_huge_index():
    e = _error(f"let xs be [1]\nprint(xs[{'1' * 5000}])\n")
    assert e.message.startswith("index 111") and "out of range" in e.message
    for src in (f"put([1], {'2' * 5000}, 0)", f"remove([1], {'3' * 5000})"):
        assert "is out of range" in _error(f"print({src})\n").message


def test_round_to_minus_a_huge_number_of_digits_is_zero_at_once():
    assert lines(f"print(round(123456, -{'9' * 5000}))\nprint(round(150, -2))\n"
                 "print(round(250, -2))\nprint(round(-251, -2))\n") == ["0", "200", "200", "-300"]


def _error(src):
    return failure(src, dedent=False, name="app.syn", timeout=20)


# ---- display and == never raise -----------------------------------------------------------

def test_text_and_equality_of_deep_nesting_inside_try():
    out = lines("let x be []\nlet y be []\n"
                "for each i in range(100000)\n    set x to [x]\n    set y to [y]\n"
                "try\n"
                "    print(len(text(x)))\n"
                "    print(len(text({\"k\": x})))\n"
                "    print(x == y)\n"
                "    print(x != [y])\n"
                "    print(contains([1, x], y))\n"
                "recover e\n"
                "    print(\"raised: \" + e)\n", max_steps=10_000_000)
    assert out == ["200002", "200009", "true", "true", "true"]


def test_display_of_deep_maps():
    m = {}
    for i in range(50_000):
        m = {"k": m, "n": i}
    shown = display(m)
    assert shown.startswith('{"k": {"k": ') and shown.endswith('"n": 49999}')


# ---- nan: equality cannot see shared storage ----------------------------------------------

def test_nan_is_unequal_to_itself_wherever_it_sits():
    out = lines(NAN +
                "let xs be [n]\n"
                "print([n] == [n])\nprint([n] == [n + 0])\nprint(xs == xs)\n"
                "print({\"a\": n} == {\"a\": n})\nprint([[n]] != [[n]])\n"
                "print(contains([n], n))\nprint(contains(xs, xs[0]))\n"
                "print(n == n)\nprint(n != n)\n")
    assert out == ["false", "false", "false", "false", "true", "false", "false", "false",
                   "true"]


def test_equal_has_no_identity_shortcut():
    nan = float("nan")
    shared = [nan]
    assert not equal(shared, shared)
    assert not equal([shared], [shared])
    assert not equal({"a": shared}, {"a": shared})
    assert equal([1, [2, "x"]], [1.0, [2, "x"]])
    assert not equal([True], [1]) and not equal({"a": 1}, {"a": True})


def test_task_values_compare_their_captures_as_synsema_values():
    out = lines(NAN +
                "task mk(v)\n    give (x) => x + v\n"
                "let h be mk(n)\nlet f be (x) => x\nlet g be f\n"
                "print(h == h)\nprint(mk(true) == mk(1))\nprint(mk([1]) == mk([1.0]))\n"
                "print(f == g)\nprint(mk(1) == mk(2))\n")
    assert out == ["false", "false", "true", "true", "false"]


def test_a_nan_map_key_is_refused_everywhere():
    for src in ("{n: 1}", "put({}, n, 1)"):
        e = _error(NAN + f"let m be {src}\n")
        assert "nan" in e.message
    e = _error(NAN + "let m be {}\nset m[n] to 1\n")
    assert e.message == "a map key cannot be nan"
    assert lines(NAN + "let m be {1: 2}\nprint(m[n])\nprint(contains(m, n))\n") == \
        ["nothing", "false"]


# ---- lone surrogates from JSON ------------------------------------------------------------

@pytest.mark.parametrize("text", ['"\\ud800"', '["a\\uDBFFb"]', '{"\\udc00": 1}',
                                  '{"k": {"x": ["\\ude00\\ud83d"]}}'])
def test_json_decode_refuses_a_lone_surrogate(text):
    with pytest.raises(SynError, match=r"json_decode: the JSON has a lone surrogate \\u"):
        json_decode(text)


def test_json_decode_keeps_pairs_and_escaped_backslashes():
    assert json_decode('["\\ud83d\\ude00"]') == ["\U0001F600"]
    assert json_decode('"\\\\ud800"') == "\\ud800"        # a backslash, then "ud800"


def test_lone_surrogate_in_a_program_is_catchable():
    out = lines('try\n    print(json_decode("\\"\\\\ud800\\""))\nrecover e\n    print(e)\n')
    assert out[0].startswith("json_decode: the JSON has a lone surrogate \\ud800")


def test_lone_surrogate_finds_keys_and_deep_items():
    assert lone_surrogate({"a": [1, {"b": "x\ud800"}]}) == "\ud800"
    assert lone_surrogate({"\udfff": 1}) == "\udfff"
    assert lone_surrogate(["\U0001F600", 1.5, None, {"k": True}]) is None


def test_json_decode_of_a_long_integer():
    assert json_decode("[" + "8" * 6000 + "]") == [_chunked_int("8" * 6000)]
    assert json_encode(-(10 ** 5000)) == "-1" + "0" * 5000


# ---- one display for the model ------------------------------------------------------------

@pytest.mark.parametrize("value", [-0.0, 0.0, 3.0, 1e16, 1.5e-7, float("nan"), float("-inf"),
                                   10 ** 5000, [1, -0.0, "a\"b"], {"k": [True, None]}],
                         ids=lambda v: type(v).__name__)
def test_the_model_sees_what_text_shows(value):
    assert convert.convert_value(value, "text") == display(value)
    assert convert.display is display
    system, _ = prompts.op_messages(None, "extract", ["data", value])
    assert display(value) in system


def test_classify_options_are_shown_as_text_shows_a_list():
    system, _ = prompts.op_messages(None, "classify", ["t", ["a\"x", "é"]])
    assert display(["a\"x", "é"]) in system


def test_model_numbers_and_json_args_convert_as_the_language_reads_them():
    assert convert.parse_number("9" * 5000) == 10 ** 5000 - 1
    assert convert.parse_number("\u0661\u0662") == "\u0661\u0662"      # not 12
    assert convert.convert_value("[1, NaN]", "list") == "[1, NaN]"     # kept, not nan
    assert convert.convert_value('["\\ud800"]', "list") == '["\\ud800"]'
    assert convert.convert_value("[1, 2]", "list") == [1, 2]


# ---- the command line: compile errors, never a traceback ----------------------------------

@pytest.mark.parametrize("command", ["run", "compile", "dis"])
def test_surrogate_escape_is_a_compile_error_on_the_command_line(syn, write, command):
    write("app.syn", 'print("ok")\nprint("x\\u{D800}")\n')
    r = syn(command, "app.syn")
    assert r.returncode == 1, r.stderr
    assert "app.syn:2:9: error: \\u{D800} is a surrogate" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
