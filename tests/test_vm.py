"""Programs run in-process: values, operators, value semantics, closures, calls (SPEC 4-5),
errors with positions and the Synsema stack (SPEC 6), and the resource limits of SPEC 13.
What a program prints, and how a run ends, come from the test harness (the public API);
`error` drives the VM itself, for the frames of the Synsema stack it records."""

import sys
from functools import partial

import pytest

from harness import failure, output

from synsema.compiler import compile_source
import synsema
from synsema.vm.errors import SynError
from synsema.runtime.machine import VM, Options


# The program's printed output (a failure fails the test); a runaway stops after 10 s.
run = partial(output, name="app.syn", dedent=False)
# The Outcome of a program that must fail: its exit code and bare message.
fails = partial(failure, name="app.syn", dedent=False)


def error(src, **opts):
    """The runtime error the program ends with (and what it printed before)."""
    out = []
    opts.setdefault("timeout", 10)
    vm = VM(compile_source(src, "app.syn"), Options(out=out.append, **opts))
    with pytest.raises(SynError) as info:
        vm.run_main()
    info.value.printed = "".join(out)
    return info.value


def p(*exprs):
    return "".join(f"print({e})\n" for e in exprs)


# ---- arithmetic ---------------------------------------------------------------------------

def test_integer_and_float_arithmetic():
    assert run(p("1 + 2", "7 - 10", "6 * 7", "2.5 + 0.5", "0.1 + 0.2", "1e3", "-0.5")) == \
        "3\n-3\n42\n3\n0.30000000000000004\n1000\n-0.5\n"


def test_true_division_exact_when_it_divides():
    assert run(p("6 / 2", "7 / 2", "-7 / 2", "10 / 4", "1 / 3", "type_of(6 / 2)")) == \
        "3\n3.5\n-3.5\n2.5\n0.3333333333333333\nnumber\n"


def test_division_result_is_an_integer_for_indexing():
    assert run("print([10, 20, 30][6 / 3])\n") == "30\n"


def test_modulo_takes_the_sign_of_the_divisor():
    assert run(p("7 % 3", "-7 % 3", "7 % -3", "-7 % -3", "7.5 % 2")) == "1\n2\n-2\n-1\n1.5\n"


@pytest.mark.parametrize("expr", ["1 / 0", "1.5 / 0", "5 % 0", "1 / 0.0"])
def test_division_by_zero(expr):
    e = error(f"print({expr})\n")
    assert e.message.startswith("division by zero")


def test_big_integers_are_exact():
    assert run(p("2 * 4611686018427387904 * 4611686018427387904",
                 "99999999999999999999 + 1", "-(10000000000 * 10000000000)")) == \
        "42535295865117307932921825928971026432\n100000000000000000000\n-100000000000000000000\n"


def test_float_display():
    assert run(p("1.0", "2.50", "1e15", "100.0 / 3", "-0.1")) == \
        "1\n2.5\n1000000000000000\n33.333333333333336\n-0.1\n"


def test_round_half_to_even_and_floor():
    assert run(p("round(2.5)", "round(3.5)", "round(-0.5)", "floor(2.7)", "floor(-2.1)")) == \
        "2\n4\n0\n2\n-3\n"


def test_unary_minus_and_precedence():
    assert run(p("-2 * 3", "-(2 + 3)", "2 - -2", "not 1 == 2")) == "-6\n-5\n4\ntrue\n"


# ---- text -------------------------------------------------------------------------------

def test_text_ops():
    src = p('"ab" + "cd"', 'len("héllo😀")', '"héllo"[1]', '"abc"[-1]', 'slice("abcdef", 1, 3)',
            'upper("aé")', 'replace("a-b-c", "-", "+")', 'split("a,b", ",")',
            'join(["x", "y"], "/")', 'trim("  t  ")', 'contains("haystack", "st")',
            'starts_with("abc", "ab")', 'text(1.5) + "!"', '"a" < "b"')
    assert run(src) == ('abcd\n6\né\nc\nbc\nAÉ\na+b+c\n["a", "b"]\nx/y\nt\ntrue\ntrue\n'
                        '1.5!\ntrue\n')


def test_text_plus_number_tells_the_fix():
    e = error('print("n=" + 1)\n')
    assert e.message.startswith("cannot add text and number") and "text(x)" in e.message
    e = error('print(1 + "n")\n')
    assert e.message.startswith("cannot add number and text") and "text(x)" in e.message


def test_for_each_over_text_is_code_points():
    assert run('for each c in "a😀é"\n    print(c)\n') == "a\n😀\né\n"


def test_text_shown_inside_collections_is_quoted():
    assert run(p('["a\\"b", "\\n"]', '{"k": "v"}')) == '["a\\"b", "\\n"]\n{"k": "v"}\n'


# ---- equality -----------------------------------------------------------------------------

def test_equality_rules():
    assert run(p("1 == 1.0", "true != 1", "true == 1", "0 == false", '"1" == 1',
                 "nothing == false", "[1, [2]] == [1, [2]]", "[1, 2] == [2, 1]",
                 '{"a": 1, "b": 2} == {"b": 2, "a": 1}', '{"a": 1} == {"a": 1.0}',
                 '{"a": 1} != {"a": 2}')) == \
        "true\ntrue\nfalse\nfalse\nfalse\nfalse\ntrue\nfalse\ntrue\ntrue\ntrue\n"


def test_ordering_of_mixed_types_is_an_error():
    e = error('print(1 < "a")\n')
    assert "cannot compare number and text" in e.message
    e = error("print([1] < [2])\n")
    assert "compare" in e.message


def test_map_keys_one_and_one_point_zero_are_the_same():
    assert run('let m be {1: "a"}\nset m[1.0] to "b"\nprint(len(m))\nprint(m[1])\n') == "1\nb\n"


def test_map_keeps_insertion_order_and_existing_key_position():
    src = 'let m be {"b": 1, "a": 2}\nset m["c"] to 3\nset m["b"] to 9\nprint(m)\nprint(keys(m))\n'
    assert run(src) == '{"b": 9, "a": 2, "c": 3}\n["b", "a", "c"]\n'


def test_missing_map_key_is_nothing_and_list_index_out_of_range_is_an_error():
    assert run(p('{"a": 1}["zz"]', '{"a": 1}.zz')) == "nothing\nnothing\n"
    e = error("print([1][1])\n")
    assert "out of range" in e.message


# ---- conditions --------------------------------------------------------------------------

@pytest.mark.parametrize("src,msg", [
    ("when 1\n    print(1)\n", "when needs a bool, got number"),
    ('while "x"\n    print(1)\n', "while needs a bool, got text"),
    ("print(1 and true)\n", "and needs a bool, got number"),
    ("print(false or nothing)\n", "or needs a bool, got nothing"),
    ("print(not [])\n", "not needs a bool, got list"),
    ("when false\n    print(1)\notherwise when 2\n    print(2)\n", "when needs a bool, got number"),
])
def test_conditions_must_be_bool(src, msg):
    assert error(src).message == msg


@pytest.mark.parametrize("labels", [False, True])
def test_a_when_ending_in_continue_inside_a_while_is_still_a_when(labels):
    # The word in the message comes from the file's code: the `when`'s exit follows its
    # `continue` (a jump back), yet it is a `when`.
    src = ("let i be 0\nwhile i < 3\n    set i to i + 1\n    when i\n        continue\n"
           "print(i)\n")
    assert error(src, labels=labels).message == "when needs a bool, got number"
    src = "let i be 0\nwhile i\n    when true\n        continue\n"
    assert error(src, labels=labels).message == "while needs a bool, got number"


@pytest.mark.parametrize("labels", [False, True])
def test_remainder_tests_in_conditions(labels):
    # `when x % m == c` runs as one instruction: ints, floats, texts compared, mixed types,
    # negative numbers and an error at the `%` all behave as the separate steps do.
    src = ("let out be []\nlet xs be [0, 1, 2, 3, -1, -4, 2.5, 7.0]\nfor each x in xs\n"
           "    let y be x\n    when y % 3 == 0\n        set out to append(out, \"z\")\n"
           "    otherwise when y % 3 == 1\n        set out to append(out, \"o\")\n"
           "    otherwise when y % 2 == 0.5\n        set out to append(out, \"h\")\n"
           "    otherwise when y % 2 == \"a\"\n        set out to append(out, \"never\")\n"
           "    otherwise\n        set out to append(out, \"-\")\nprint(out)\n")
    assert run(src, labels=labels) == '["z", "o", "-", "z", "-", "-", "h", "o"]\n'
    e = error('let s be "ab"\nwhen s % 2 == 0\n    print(1)\n', labels=labels)
    assert e.trace[0][1:] == (2, 8) and "remainder" in e.message


@pytest.mark.parametrize("labels", [False, True])
def test_base_case_guards(labels):
    # `when n < c` / `give n` runs as one instruction: taken, passed, with floats, with a
    # non-number (an error at the `<`), and as the last thing a task does.
    src = ("task down(n)\n    when n < 1\n        give n\n    give down(n - 1)\n"
           "print(down(3))\nprint(down(2.5))\nprint(down(-4))\nprint(down(0.25))\n")
    assert run(src, labels=labels) == "0\n0.5\n-4\n0.25\n"
    e = error('task f(n)\n    when n < 2\n        give n\n    give 0\nprint(f("x"))\n',
              labels=labels)
    assert e.trace[0][1:] == (2, 12) and "compare" in e.message


def test_base_case_guard_under_labels_carries_the_label():
    src = ('task fib(n)\n    when n < 2\n        give n\n    give fib(n - 1) + fib(n - 2)\n'
           'let r be fib(private(6, "c"))\nprint(labels_of(r))\n')
    assert run(src, labels=True, cap_set="stdout,stdout=c") == '["c"]\n'


def test_and_or_short_circuit():
    assert run(p("false and 1", "true or 1", "false and fail(\"x\")")) == "false\ntrue\nfalse\n"


def test_loops():
    src = ("let i be 0\nlet total be 0\nwhile i < 10\n    set i to i + 1\n"
           "    when i % 2 == 0\n        continue\n    when i > 7\n        break\n"
           "    set total to total + i\nprint(total)\n"
           'for each k in {"b": 1, "a": 2}\n    print(k)\n')
    assert run(src) == "16\nb\na\n"


# ---- value semantics ----------------------------------------------------------------------

def test_set_on_a_copy_leaves_the_original():
    src = "let xs be [1, 2, 3]\nlet ys be xs\nset ys[0] to 9\nprint(xs)\nprint(ys)\n"
    assert run(src) == "[1, 2, 3]\n[9, 2, 3]\n"


def test_nested_set_paths():
    src = ('let m be {"a": [1, {"k": 1}]}\nlet before be m\n'
           'set m["a"][1]["k"] to 5\nset m.b to 2\nset m["a"][-1].j to [0]\n'
           "print(m)\nprint(before)\n")
    assert run(src) == ('{"a": [1, {"k": 5, "j": [0]}], "b": 2}\n'
                        '{"a": [1, {"k": 1}]}\n')


def test_set_on_an_element_of_a_list_in_a_list_copy():
    src = "let a be [[1], [2]]\nlet b be a\nset b[0][0] to 7\nprint(a)\nprint(b)\n"
    assert run(src) == "[[1], [2]]\n[[7], [2]]\n"


def test_tasks_cannot_mutate_their_arguments():
    src = ("task f(xs, m)\n    set xs[0] to 99\n    set m.k to 1\n    give [xs, m]\n"
           "let a be [1]\nlet b be {}\nprint(f(a, b))\nprint(a)\nprint(b)\n")
    assert run(src) == '[[99], {"k": 1}]\n[1]\n{}\n'


def test_builtins_return_new_values():
    src = ('let a be [3, 1]\nlet b be append(a, 2)\nlet c be sort(b)\n'
           'let m be {"x": 1}\nlet n be put(m, "y", 2)\nprint([a, b, c])\nprint([m, n])\n')
    assert run(src) == '[[3, 1], [3, 1, 2], [1, 2, 3]]\n[{"x": 1}, {"x": 1, "y": 2}]\n'


def test_lambdas_capture_by_value():
    src = ("let x be 1\nlet g be () => x\nset x to 2\nprint(g())\n"
           "let xs be [1]\nlet h be () => xs\nset xs[0] to 5\nprint(h())\n")
    assert run(src) == "1\n[1]\n"


def test_values_in_collections_are_not_shared():
    src = "let inner be [1]\nlet outer be [inner, inner]\nset outer[0][0] to 2\nprint(outer)\n"
    assert run(src) == "[[2], [1]]\n"


# ---- closures, recursion, defaults --------------------------------------------------------

def test_closures_made_in_a_task():
    src = ("task adder(n)\n    give (x) => x + n\n"
           "let add2 be adder(2)\nlet add5 be adder(5)\nprint(add2(1))\nprint(add5(1))\n")
    assert run(src) == "3\n6\n"


def test_lambda_looks_up_tasks_when_it_runs():
    src = "let g be () => later(1)\nprint(g())\ntask later(v)\n    give v + 1\n"
    assert run(src) == "2\n"


def test_tasks_are_values_in_maps_and_lists():
    src = ("task double(x)\n    give x * 2\n"
           'let tools be {"d": double, "l": (x) => x - 1}\n'
           'print(tools["d"](4))\nprint(tools.l(4))\nprint([double][0](1))\nprint(double)\n'
           "print(tools.l)\n")
    assert run(src) == "8\n3\n2\n<task double>\n<lambda at line 3>\n"


def test_recursion():
    src = ("task fact(n)\n    when n <= 1\n        give 1\n    give n * fact(n - 1)\n"
           "task fib(n)\n    when n < 2\n        give n\n    give fib(n - 1) + fib(n - 2)\n"
           "print(fact(25))\nprint(fib(15))\n")
    assert run(src) == "15511210043330985984000000\n610\n"


def test_mutual_recursion():
    src = ("task even(n)\n    when n == 0\n        give true\n    give odd(n - 1)\n"
           "task odd(n)\n    when n == 0\n        give false\n    give even(n - 1)\n"
           "print(even(10))\nprint(odd(7))\n")
    assert run(src) == "true\ntrue\n"


def test_defaults_are_evaluated_at_call_time():
    src = ("task stamp(x, seen = [])\n    set seen to append(seen, x)\n    give seen\n"
           "print(stamp(1))\nprint(stamp(2))\n"
           "task f(a, b = len(a))\n    give b\nprint(f([1, 2]))\nprint(f(\"abcd\"))\n"
           "task g(a, b = a * 10)\n    give [a, b]\nprint(g(3))\nprint(g(3, nothing))\n")
    assert run(src) == "[1]\n[2]\n2\n4\n[3, 30]\n[3, nothing]\n"


def test_default_sees_globals_at_call_time():
    src = "task f(a = base)\n    give a\nlet base be 5\nprint(f())\n"
    assert run(src) == "5\n"


def test_bare_give_and_falling_off_give_nothing():
    src = "task f()\n    give\ntask g()\n    let x be 1\nprint(f())\nprint(g())\n"
    assert run(src) == "nothing\nnothing\n"


# Regression (commit 2a4650a): RETURN/RETURN_LOCAL left the callee's for-each iterator on
# the shared value stack, so the caller's own loop then iterated the wrong iterator.
@pytest.mark.parametrize("labels", [False, True])
def test_give_from_inside_for_each_in_a_task_called_in_a_loop(labels):
    src = ("task first(xs)\n    for each x in xs\n        give x\n    give nothing\n"
           "task pick(xs)\n    for each x in xs\n        when x > 1\n            give x\n"
           "    give 0\n"
           "for each i in [1, 2, 3]\n    print(first([i, 0]))\n"
           "let total be 0\nfor each j in [[5], [1]]\n    set total to total + pick(j)\n"
           "print(total)\nprint(\"end\")\n")
    assert run(src, max_steps=100000, labels=labels) == "1\n2\n3\n5\nend\n"


def test_give_from_inside_for_each_inside_a_task_inside_a_task():
    src = ("task first(xs)\n    for each x in xs\n        give x\n"
           "task s()\n    let out be []\n    for each i in [1, 2, 3]\n"
           "        set out to append(out, first([i, 0]))\n    give out\nprint(s())\n")
    assert run(src, max_steps=100000) == "[1, 2, 3]\n"


def test_give_from_for_each_inside_try_leaks_no_python_value():
    src = ("task f()\n    try\n        for each x in [1]\n            give x\n    recover e\n"
           "        give 0\nlet s be 0\nfor each i in [1, 2]\n    set s to s + f()\nprint(s)\n")
    assert run(src, max_steps=100000) == "2\n"


# ---- call and call_tool -------------------------------------------------------------------

TOOLS = ("task add(a: number, b: number = 1)\n    give a + b\n"
         "task pair(a, b = 2)\n    give [a, b]\n"
         "task tag(name: text, extra = nothing)\n    give [name, extra]\n"
         "task anyp(a: any, b)\n    give [a, b]\n"
         "task two(ab, ac)\n    give ab\n"
         "task far(abc, bcd = 2)\n    give abc\n")


def test_call_named_arguments_defaults_and_nothing():
    src = TOOLS + p('call(pair, {"a": 1})', "call(pair, {})", 'call(pair, {"b": 5, "a": 4})',
                    'call(anyp, {})', 'call((x) => x, {"x": 3})')
    assert run(src) == "[1, 2]\n[nothing, 2]\n[4, 5]\n[nothing, nothing]\n3\n"


@pytest.mark.parametrize("expr,msg", [
    ('call(pair, {"a": 1, "c": 2})', "task 'pair' has no parameter 'c'; did you mean 'a'?"),
    ('call_tool(pair, {"a": 1, "c": 2})', "task 'pair' has no parameter 'c'; did you mean 'a'?"),
    ('call(two, {"ad": 1})', "task 'two' has no parameter 'ad'; did you mean 'ab'?"),
    ('call(far, {"x": 1})', "task 'far' has no parameter 'x'"),
    ('call(pair, {"zzzzz": 1})', "task 'pair' has no parameter 'zzzzz'"),
    ('call(add, {"a": "2"})', "'a' must be number, got text"),
    ('call_tool(add, {"a": "2"})', "'a' must be number, got text"),
    ('call_tool(add, {"a": 1, "b": nothing})', "'b' must be number, got nothing"),
    ('call(add, {"a": nothing})', "'a' must be number, got nothing"),
    ('call_tool(add, {})', "missing 'a' (number)"),
    ('call_tool(anyp, {})', "missing 'a' (any)"),
    ('call_tool(tag, {"name": 5})', "'name' must be text, got number"),
])
def test_call_argument_errors(expr, msg):
    e = error(TOOLS + f"print({expr})\n")
    assert e.message == msg


def test_call_tool_accepts_what_spec_allows():
    src = TOOLS + p('call_tool(add, {"a": 2})', 'call_tool(tag, {"name": "n", "extra": nothing})',
                    'call_tool(anyp, {"a": nothing})', 'call_tool(pair, {})',
                    'call_tool(add, {"a": 1.5, "b": 2})')
    assert run(src) == '3\n["n", nothing]\n[nothing, nothing]\n[nothing, 2]\n3.5\n'


def test_normal_calls_do_not_check_types_but_check_arity():
    assert run(TOOLS + p('add("x", "y")')) == "xy\n"
    e = error(TOOLS + "let g be pair\nprint(g(1, 2, 3))\n")
    assert e.message == "task 'pair' takes 1 to 2 arguments, got 3"
    e = error(TOOLS + "let g be add\nprint(g())\n")
    assert e.message == "task 'add' takes 1 to 2 arguments, got 0"
    e = error("let f be (a) => a\nprint(f(1, 2))\n")
    assert "takes 1 argument, got 2" in e.message


def test_call_errors_are_catchable():
    src = TOOLS + ('try\n    print(call_tool(add, {"a": "x"}))\nrecover e\n    print("caught: " + e)\n')
    assert run(src) == "caught: 'a' must be number, got text\n"


def test_tool_spec():
    src = TOOLS + ("task city(city)\n    give city\n" +
                   p('tool_spec(add, "Add two numbers")', 'tool_spec(city, "W")',
                     'tool_spec(tag, "T")', 'keys(tool_spec(pair, "P"))'))
    assert run(src) == (
        '{"name": "add", "describe": "Add two numbers", "params": ["a: number", "b: number"], '
        '"optional": ["b"]}\n'
        '{"name": "city", "describe": "W", "params": ["city"], "optional": []}\n'
        '{"name": "tag", "describe": "T", "params": ["name: text", "extra"], '
        '"optional": ["extra"]}\n'
        '["name", "describe", "params", "optional"]\n')


def test_tool_spec_equals_the_seed_literal():
    src = TOOLS + p('tool_spec(add, "Add two numbers") == {"name": "add", "describe": '
                    '"Add two numbers", "params": ["a: number", "b: number"], "optional": ["b"]}')
    assert run(src) == "true\n"


# ---- try / recover ------------------------------------------------------------------------

def test_recover_binds_the_bare_message():
    src = ('try\n    fail("boom: exact")\nrecover e\n    print(e)\n'
           "try\n    print(1 / 0)\nrecover e\n    print(e)\n"
           'try\n    assert_eq(1, 2)\nrecover e\n    print(e)\n'
           'try\n    let x be "a" + 1\nrecover e\n    print(type_of(e))\n    print(e)\n')
    out = run(src).splitlines()
    assert out[0] == "boom: exact"
    assert out[1] == "division by zero"
    assert out[2] == "expected 2, got 1"
    assert out[3] == "text"
    assert out[4].startswith("cannot add text and number")
    for line in out:
        assert "error:" not in line and "app.syn" not in line


def test_error_in_a_called_task_is_caught_by_the_caller():
    src = ('task bad(n)\n    give inner(n)\ntask inner(n)\n    fail("no " + text(n))\n'
           "try\n    print(bad(3))\n    print(\"not here\")\nrecover err\n    print(err)\n"
           'print("after")\n')
    assert run(src) == "no 3\nafter\n"


def test_try_inside_a_loop_and_nested_try():
    src = ("let n be 0\nfor each d in [1, 0, 2]\n    try\n        set n to n + 10 / d\n"
           "    recover e\n        set n to n + 100\nprint(n)\n"
           'try\n    try\n        fail("inner")\n    recover a\n        fail(a + "+outer")\n'
           "recover b\n    print(b)\n")
    assert run(src) == "115\ninner+outer\n"


def limit(src, **kw):
    """The Outcome of a run that must end at a resource limit (exit 4)."""
    o = fails(src, **kw)
    assert o.code == 4 and isinstance(o.error, synsema.LimitExceeded), o
    return o


def test_limits_are_not_caught_by_try():
    limit("try\n    while true\n        print(nothing)\nrecover e\n    print(e)\n",
          max_steps=1000)
    src = "task f(n)\n    try\n        give f(n + 1)\n    recover e\n        give e\nprint(f(0))\n"
    limit(src, max_depth=50)


# ---- runtime error positions and the stack ------------------------------------------------

def test_runtime_error_position_and_trace():
    src = ('task inner(x)\n    give x + "s"\ntask outer(y)\n    give inner(y)\n'
           'print("before")\nprint(outer(1))\n')
    e = error(src)
    assert e.printed == "before\n"
    assert e.message.startswith("cannot add number and text")
    frames = [(f.name, f.kind, line, col) for f, line, col in e.trace]
    assert frames == [("inner", "task", 2, 12), ("outer", "task", 4, 15),
                      ("<top level>", "main", 6, 12)]


def test_error_position_in_a_lambda_and_a_builtin_call():
    e = error("let f be (x) => x / 0\nprint(f(1))\n")
    assert e.trace[0][1:] == (1, 19)
    assert e.trace[0][0].kind == "lambda"
    assert e.trace[-1][1] == 2
    e = error('let n be 1\nprint(number("abc"))\n')
    assert e.trace[0][1] == 2 and "number" in e.message


def test_not_set_yet_error_names_the_declaration_line():
    src = "task f()\n    give y\nprint(f())\n\nlet y be 1\n"
    e = error(src)
    assert e.message == "'y' is not set yet (declared at line 5)"
    assert [(f.name, line) for f, line, _ in e.trace] == [("f", 2), ("<top level>", 3)]


def test_fail_message_is_exact_and_not_prefixed():
    e = error('fail("custom: 42")\n')
    assert e.message == "custom: 42"


# ---- limits ------------------------------------------------------------------------------

def test_infinite_loop_stopped_by_max_steps():
    o = limit("let i be 0\nwhile true\n    set i to i + 1\n", max_steps=20000)
    assert o.message == "step limit (20000, --max-steps) reached"


def test_max_steps_is_not_reached_by_a_small_program():
    assert run("let i be 0\nwhile i < 10\n    set i to i + 1\nprint(i)\n", max_steps=20000) == \
        "10\n"


def test_max_steps_counts_recursive_calls_too():
    o = limit("task f(n)\n    when n == 0\n        give 0\n    give f(n - 1) + f(n - 1)\n"
              "print(f(40))\n", max_steps=5000)
    assert o.message == "step limit (5000, --max-steps) reached"


def test_timeout():
    o = limit("while true\n    let x be 1\n", timeout=0.3)
    assert o.message == "time limit (0.3 s, --timeout) reached"
    o = limit("while true\n    let x be 1\n", timeout=1)
    assert o.message == "time limit (1 s, --timeout) reached"


def test_max_depth():
    src = "task f(n)\n    give f(n + 1)\nprint(f(0))\n"
    o = limit(src, max_depth=50)
    assert o.message == "call depth limit (50, --max-depth) reached"


def test_deep_recursion_hits_the_default_depth_limit_not_python_recursion():
    src = "task f(n)\n    give f(n + 1)\nprint(f(0))\n"
    o = limit(src)      # not a RecursionError (an internal error, exit 70)
    assert o.message == "call depth limit (1000, --max-depth) reached"


def test_deep_recursion_through_call_and_lambdas_has_no_python_recursion_error():
    old = sys.getrecursionlimit()
    try:
        src = 'task f(n)\n    give call((m) => f(m), {"m": n + 1})\nprint(f(0))\n'
        o = limit(src, max_depth=400)
        assert o.message == "call depth limit (400, --max-depth) reached"
    finally:
        sys.setrecursionlimit(old)


DEPTH_PROGRAMS = {
    "direct call": "task f(n)\n    when n == 0\n        give 0\n    give 1 + f(n - 1)\n"
                   "print(f({n}))\n",
    "f(n - 1)": "task f(n)\n    when n < 1\n        give 0\n    give f(n - 1)\nprint(f({n}))\n",
    "loop, then call": "task f(n)\n    let i be 0\n    while i < 50\n        set i to i + 1\n"
                       "    when n == 0\n        give 0\n    give 1 + f(n - 1)\nprint(f({n}))\n",
    "lambda at the bottom": "let g be (n) => n\ntask f(n, h)\n    when n == 0\n        give h(0)\n"
                            "    give f(n - 1, h)\nprint(f({n}, g))\n",
}


@pytest.mark.parametrize("labels", [False, True])
@pytest.mark.parametrize("kind", DEPTH_PROGRAMS)
def test_the_depth_limit_is_exact(kind, labels):
    # The loops check the depth only when a call spends the step budget, which never
    # exceeds the calls the limit allows: the limit must still fall on the same call.
    # 64 calls deep: f(63) .. f(0) (with a lambda at the bottom, f(62) .. f(0), the lambda).
    deepest = 62 if kind == "lambda at the bottom" else 63
    src = DEPTH_PROGRAMS[kind]
    run(src.format(n=deepest), max_depth=64, labels=labels)
    assert "call depth limit" in limit(src.format(n=deepest + 1), max_depth=64,
                                       labels=labels).message
    # a step limit smaller than the depth allows still stops the same program first
    assert "step limit" in limit(src.format(n=deepest), max_depth=64, max_steps=30,
                                 labels=labels).message


def test_recursion_within_the_depth_limit_completes():
    src = "task f(n)\n    when n == 0\n        give 0\n    give 1 + f(n - 1)\nprint(f(900))\n"
    assert run(src) == "900\n"
    limit(src, max_depth=100)


# ---- layering and builtin facts -----------------------------------------------------------

_GROUND = {"values", "errors", "digits", "display", "equality", "jsonvalues"}
# decimal: only for an int past Python's digit limit (vm.digits), kept off start-up.
# vm.tier2: only for a program worth translating (its `ast` is dear at start-up).
# _json (json.encoder without it): display.quote's encoder, at the first quote (a C
# module: its load is dear at start-up, issue 31). vm.labels: the VM's call_under and
# taint_try, reached only with labels on.
_LAZY = {"decimal", "synsema.vm.tier2", "synsema.stdlib.llm",
         "synsema.vm.loop_fast", "synsema.vm.loop_labels_fast", "_json", "json.encoder",
         "synsema.vm.labels",
         # vm.codec's import of msgpack with `_datetime` standing in for `datetime`, once,
         # at the module's top level (_import_msgpack)
         "msgpack", "_datetime"}


def _imports(path):
    """(module imported, inside a function?) for every import of a file."""
    import ast
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = []

    def walk(node, inside):
        for child in ast.iter_child_nodes(node):
            deeper = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom) and child.module:
                out.append((child.module, inside))
            elif isinstance(child, ast.Import):
                out.extend((a.name, inside) for a in child.names)
            walk(child, deeper)
    walk(tree, False)
    return out


def test_the_ground_layer_imports_only_itself_and_vm_imports_at_the_top():
    import glob
    import os
    vm_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vm")
    for path in glob.glob(os.path.join(vm_dir, "*.py")):
        name = os.path.basename(path)[:-3]
        for module, inside in _imports(path):
            if name in _GROUND and module.startswith("synsema."):
                assert module.rsplit(".", 1)[-1] in _GROUND, f"{name} imports {module}"
            # No import hidden inside a function to dodge a cycle; the lazy ones keep
            # start-up cheap: only the loop a run needs. (tests/test_layering.py checks
            # the layering of every package.)
            assert not inside or module in _LAZY, f"vm/{name}.py imports {module} inside " \
                "a function"


def test_facts_about_builtins_are_declared_with_them():
    from synsema.stdlib.host import load_all
    b = load_all()
    assert b["append"].gives_copy == "list" and b["put"].gives_copy == "map"
    assert b["print"].never_raises and b["text"].never_raises and not b["len"].never_raises
    assert b["private"].owns_errors and not b["print"].owns_errors
    assert b["len"].labelled is not None and b["upper"].labelled is None
    # The compiler's warning about a dropped copy reads the fact.
    from synsema.vm.errors import CompileError
    with pytest.raises(CompileError, match="put gives a new map"):
        compile_source('let m be {}\nput(m, "a", 1)\n', "app.syn")
