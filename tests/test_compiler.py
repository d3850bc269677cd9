"""The resolver and code generator: every compile-time check of names, scopes, tasks,
requires, arity and intent (SPEC 2-5, 9), and the determinism and size of .synb output."""

from functools import partial

import pytest

from conftest import SHARED
from harness import failure, output
from synsema.compiler import compile_source
from synsema.vm.codec import decode, encode
from synsema.vm.errors import CompileError
from synsema.runtime.machine import VM, Options


def cerr(src):
    with pytest.raises(CompileError) as info:
        compile_source(src, "app.syn")
    e = info.value
    assert e.source_name == "app.syn"
    assert e.line >= 1 and e.col >= 1
    return e


run = partial(output, dedent=False, name="app.syn")     # what a program prints (harness)


# ---- undeclared names and suggestions -----------------------------------------------------

def test_undeclared_name_with_suggestion():
    e = cerr("let count be 1\nprint(cont)\n")
    assert e.message == "'cont' is not declared; did you mean 'count'?"
    assert (e.line, e.col) == (2, 7)


def test_suggestion_at_distance_two():
    e = cerr("let total be 1\nprint(totxx)\n")
    assert e.message.endswith("did you mean 'total'?")


def test_no_suggestion_when_far():
    e = cerr("let count be 1\nprint(zzzzzz)\n")
    assert e.message == "'zzzzzz' is not declared"


def test_no_suggestion_at_distance_three():
    e = cerr("let abcdef be 1\nprint(abcxyz)\n")
    assert "did you mean" not in e.message


def test_suggestion_ties_go_to_the_first_declared():
    e = cerr("let ab be 1\nlet ac be 2\nprint(ad)\n")
    assert e.message.endswith("did you mean 'ab'?")
    e = cerr("let ac be 1\nlet ab be 2\nprint(ad)\n")
    assert e.message.endswith("did you mean 'ac'?")


def test_user_names_win_ties_over_builtins():
    e = cerr("let lem be 1\nprint(lex)\n")     # 'len' is a builtin at the same distance
    assert e.message.endswith("did you mean 'lem'?")


def test_builtin_and_task_suggestions():
    assert cerr("prnt(1)\n").message.endswith("did you mean 'print'?")
    e = cerr("task greet(n)\n    give n\nprint(gret(1))\n")
    assert e.message.endswith("did you mean 'greet'?")


def test_closer_candidate_wins_over_earlier_one():
    e = cerr("let abcd be 1\nlet abce be 2\nprint(abce1)\n")
    assert e.message.endswith("did you mean 'abce'?")


# ---- declarations -------------------------------------------------------------------------

def test_redeclaration_at_top_level():
    e = cerr("let x be 1\nlet x be 2\n")
    assert e.message == "'x' is already declared at line 1; use set"
    assert (e.line, e.col) == (2, 5)


def test_redeclaration_inside_a_task_and_of_a_parameter():
    e = cerr("task f()\n    let y be 1\n    when true\n        let y be 2\n")
    assert e.message == "'y' is already declared at line 2; use set"
    e = cerr("task f(a)\n    let a be 1\n")
    assert "'a' is already declared at line 1" in e.message


def test_redeclaring_a_top_level_name_inside_a_top_level_block():
    e = cerr("let x be 1\nwhen true\n    let x be 2\n")
    assert "'x' is already declared at line 1" in e.message


def test_let_inside_a_loop_may_run_many_times():
    assert run("for each i in [1, 2, 3]\n    let sq be i * i\n    print(sq)\n") == "1\n4\n9\n"


def test_set_of_an_undeclared_name_says_use_let():
    e = cerr("set y to 1\n")
    assert "'y' is not declared" in e.message and "use let" in e.message
    assert (e.line, e.col) == (1, 5)


def test_set_with_suggestion():
    e = cerr("let total be 0\nset totl to 1\n")
    assert "did you mean 'total'?" in e.message and "use let" in e.message


def test_set_of_a_top_level_variable_inside_a_task_or_test():
    e = cerr("let x be 1\ntask f()\n    set x to 2\n")
    assert "cannot set the top-level variable 'x' inside a task" in e.message
    assert (e.line, e.col) == (3, 9)
    e = cerr("let x be 1\ntest \"t\"\n    set x to 2\n")
    assert "inside a test" in e.message


def test_a_task_may_shadow_a_global_with_its_parameter_and_set_that():
    assert run("let x be 1\ntask f(x)\n    set x to x + 1\n    give x\nprint(f(5))\nprint(x)\n") \
        == "6\n1\n"


def test_set_of_a_task_or_builtin_is_an_error():
    assert "only variables can be set" in cerr("task f()\n    give 1\nset f to 2\n").message
    assert "only variables can be set" in cerr("set len to 2\n").message


# ---- what each part of the program sees ---------------------------------------------------

def test_top_level_sees_only_what_is_declared_above():
    e = cerr("print(y)\nlet y be 1\n")
    assert e.message.startswith("'y' is not declared")
    assert "line 2" in e.message
    assert (e.line, e.col) == (1, 7)


def test_lambda_at_top_level_sees_only_what_is_above():
    e = cerr("let f be () => later\nlet later be 1\n")
    assert "'later' is not declared" in e.message


def test_tasks_are_hoisted_and_see_every_global():
    src = ("print(show())\n"          # task used above its definition ...
           "let late be \"x\"\n"
           "print(show())\n"
           "task show()\n"
           "    give helper() + late\n"     # ... and sees a global declared anywhere
           "task helper()\n"
           "    give \">\"\n")
    assert failure(src, dedent=False).message == "'late' is not set yet (declared at line 2)"
    assert run(src.replace("print(show())\nlet", "let", 1)) == ">x\n"


def test_tests_see_all_globals():
    prog = compile_source("test \"t\"\n    assert_eq(g, 2)\nlet g be 2\n", "app.syn")
    vm = VM(prog, Options(out=[].append))
    vm.run_main()
    vm.run_function(prog.tests[0][1])


def test_block_scope_ends_with_the_block():
    e = cerr("when true\n    let z be 1\nprint(z)\n")
    assert e.message.startswith("'z' is not declared")
    assert "line 2" in e.message
    e = cerr("task f()\n    for each i in [1]\n        let k be i\n    give k\n")
    assert e.message.startswith("'k' is not declared")
    e = cerr("for each i in [1]\n    print(i)\nprint(i)\n")
    assert e.message.startswith("'i' is not declared")
    e = cerr("try\n    fail(\"x\")\nrecover err\n    print(err)\nprint(err)\n")
    assert e.message.startswith("'err' is not declared")


def test_same_name_in_sibling_blocks_is_fine():
    src = "when true\n    let a be 1\n    print(a)\nwhen true\n    let a be 2\n    print(a)\n"
    assert run(src) == "1\n2\n"


def test_break_and_continue_outside_a_loop():
    e = cerr("break\n")
    assert "`break` outside a loop" in e.message and (e.line, e.col) == (1, 1)
    e = cerr("task f()\n    when true\n        continue\n")
    assert "`continue` outside a loop" in e.message and (e.line, e.col) == (3, 9)


def test_break_inside_a_loop_inside_a_task_is_fine():
    assert run("task f()\n    for each i in [1, 2, 3]\n        when i == 2\n            break\n"
               "        print(i)\nf()\n") == "1\n"


def test_give_at_top_level_is_an_error():
    e = cerr("give 1\n")
    assert "`give`" in e.message and "task" in e.message
    e = cerr("when true\n    give\n")
    assert (e.line, e.col) == (2, 5)


def test_give_inside_a_test_is_allowed():
    prog = compile_source("test \"t\"\n    give 1\n", "app.syn")
    assert len(prog.tests) == 1


# ---- tasks and parameters -----------------------------------------------------------------

def test_unknown_type_with_suggestion():
    e = cerr("task f(a: numbr)\n    give a\n")
    assert e.message.startswith("unknown type 'numbr'; did you mean 'number'?")
    assert (e.line, e.col) == (1, 11)


def test_unknown_type_without_suggestion_lists_the_types():
    e = cerr("task f(a: strng)\n    give a\n")
    assert "did you mean" not in e.message
    for t in ("number", "text", "bool", "list", "map", "task", "any"):
        assert t in e.message


def test_task_is_a_parameter_type():
    assert run("task ap(f: task)\n    give f()\nprint(ap(() => 7))\n") == "7\n"


@pytest.mark.parametrize("t", ["number", "text", "bool", "list", "map", "any"])
def test_every_other_parameter_type_compiles(t):
    prog = compile_source(f"task f(a: {t})\n    give a\n", "app.syn")
    assert prog.functions[1].params[0].type == t


def test_default_before_non_default_is_an_error():
    e = cerr("task f(a = 1, b)\n    give a\n")
    assert "parameter 'b' has no default but follows one that does" in e.message
    assert (e.line, e.col) == (1, 15)


def test_duplicate_parameter():
    assert "declared twice" in cerr("task f(a, a)\n    give a\n").message


def test_duplicate_task():
    e = cerr("task f()\n    give 1\ntask f()\n    give 2\n")
    assert e.message == "task 'f' is already declared at line 1"
    assert e.line == 3


def test_variable_named_like_a_task_is_an_error():
    e = cerr("task f()\n    give 1\nlet f be 2\n")
    assert "'f' is already declared at line 1" in e.message


def test_user_task_and_variable_may_shadow_builtins():
    assert run("task len(x)\n    give 42\nprint(len([1]))\n") == "42\n"
    assert run("let keys be 3\nprint(keys + 1)\n") == "4\n"


def test_builtin_is_not_a_value():
    e = cerr("let f be len\n")
    assert "only be called" in e.message and "(x) => len(x)" in e.message


# ---- arity at compile time ---------------------------------------------------------------

def test_direct_task_call_arity_is_checked_at_compile_time():
    e = cerr("task f(a)\n    give a\nprint(f(1, 2))\n")
    assert e.message == "task 'f' takes 1 argument, got 2"
    assert e.line == 3
    e = cerr("task f(a, b = 1)\n    give a\nprint(f())\n")
    assert e.message == "task 'f' takes 1 to 2 arguments, got 0"
    e = cerr("task f(a, b)\n    give a\nf(1)\n")
    assert e.message == "task 'f' takes 2 arguments, got 1"


def test_arity_checked_for_tasks_called_before_their_definition():
    e = cerr("print(f())\ntask f(a)\n    give a\n")
    assert e.message == "task 'f' takes 1 argument, got 0"


def test_builtin_arity_is_checked_at_compile_time():
    e = cerr("print(len(1, 2))\n")
    assert e.message == "builtin 'len' takes 1 argument, got 2"
    assert (e.line, e.col) == (1, 10)
    assert "builtin 'range'" in cerr("print(range())\n").message
    assert "builtin 'assert'" in cerr("test \"t\"\n    assert(true, 1)\n").message


def test_arity_of_a_task_value_is_checked_at_run_time():
    e = failure("task f(a)\n    give a\nlet g be f\nprint(g(1, 2))\n")
    assert e.code == 1 and e.message == "task 'f' takes 1 argument, got 2"


# ---- require ------------------------------------------------------------------------------

@pytest.mark.parametrize("req,cap", [
    ("require stdout", ("stdout",)),
    ("require llm", ("llm",)),
    ('require llm("customers")', ("llm", "customers")),
    ('require net("api.weather.com")', ("net", "api.weather.com")),
    ('require net("*.example.com")', ("net", "*.example.com")),
])
def test_require_forms(req, cap):
    prog = compile_source(req + "\n", "app.syn")
    assert cap in prog.requires
    prog = compile_source(f"task t()\n    {req}\n    give 1\n", "app.syn")
    assert prog.functions[1].requires == [cap]


@pytest.mark.parametrize("host", ["http://x.com/", "a.com/path", "a.com:80", "a..com", ""])
def test_bad_net_host(host):
    e = cerr(f'require net("{host}")\n')
    assert "require net" in e.message and (e.line, e.col) == (1, 1)


def test_bad_require_forms():
    assert "unknown capability 'foo'" in cerr("require foo\n").message
    assert "did you mean 'llm'" in cerr("require lmm\n").message
    assert "needs a host" in cerr("require net\n").message
    assert "takes no argument" in cerr('require stdout("x")\n').message
    assert "bad label" in cerr('require llm("a b")\n').message


def test_require_placement():
    e = cerr("task f()\n    print(1)\n    require llm\n")
    assert "`require`" in e.message and "first" in e.message and e.line == 3
    e = cerr("when true\n    require llm\n")
    assert "`require` is not allowed inside a block" in e.message
    e = cerr("task f()\n    when true\n        require llm\n")
    assert e.line == 3


def test_require_may_come_after_other_top_level_items():
    prog = compile_source("print(1)\nrequire llm\n", "app.syn")
    assert ("llm",) in prog.requires


# ---- intent -------------------------------------------------------------------------------

def test_intent_is_frozen_into_the_program():
    prog = compile_source('intent: "sort mail"\nprint(1)\n', "app.syn")
    assert prog.intent == "sort mail"
    assert decode(encode(prog)).intent == "sort mail"


def test_intent_at_most_once_and_first():
    assert "at most one" in cerr('intent: "a"\nintent: "b"\n').message
    e = cerr('print(1)\nintent: "b"\n')
    assert "before any other item" in e.message and e.line == 2
    e = cerr('require llm\nintent: "b"\n')
    assert "before any other item" in e.message


def test_no_intent_is_none():
    assert compile_source("print(1)\n", "app.syn").intent is None


# ---- output: deterministic and compact ----------------------------------------------------

REALISTIC = '''intent: "triage support tickets"
require llm

task classify_ticket(ticket: map, labels: list = ["bug", "billing", "other"])
    let body be lower(ticket["body"])
    for each label in labels
        when contains(body, label)
            give label
    give "other"

task summarize_all(tickets)
    let counts be {}
    for each t in tickets
        let label be classify_ticket(t)
        set counts[label] to get(counts, label, 0) + 1
    give counts

let tickets be [
    {"id": 1, "body": "I found a BUG in the app"},
    {"id": 2, "body": "billing question"},
    {"id": 3, "body": "hello"},
]
print(summarize_all(tickets))

test "classification"
    assert_eq(classify_ticket({"body": "bug!"}), "bug")
    assert_eq(summarize_all([]), {})
'''


def _sources():
    out = {"realistic.syn": REALISTIC}
    seeds = SHARED / "seeds"
    if seeds.exists():
        for f in sorted(seeds.glob("*.syn")):
            out[f.name] = f.read_text(encoding="utf-8")
    return out


@pytest.mark.parametrize("name", sorted(_sources()))
def test_compiling_twice_gives_identical_bytes(name):
    src = _sources()[name]
    a = encode(compile_source(src, name))
    b = encode(compile_source(src, name))
    assert a == b
    assert encode(decode(a)) == a


@pytest.mark.parametrize("name", sorted(_sources()))
def test_synb_is_at_most_twice_the_source(name):
    src = _sources()[name]
    size = len(encode(compile_source(src, name)))
    assert size <= 2 * len(src.encode("utf-8")), (size, len(src))


def test_realistic_program_runs():
    assert run(REALISTIC) == '{"bug": 1, "billing": 1, "other": 1}\n'


def test_the_source_name_is_recorded():
    assert decode(encode(compile_source("print(1)\n", "agent.syn"))).source_name == "agent.syn"


# ---- a default sees only the parameters before it ---------------------------------------

@pytest.mark.parametrize("src, says", [
    ("task f(a = b, b = 1)\n    give a\n", "the default of parameter 'a' reads 'b', a parameter "
                                             "after it"),
    ("task f(a = a)\n    give a\n", "the default of parameter 'a' reads 'a' itself"),
    ("task f(a = () => b, b = 1)\n    give a\n", "reads 'b', a parameter after it"),
    ("task f(x, a = [x, c], c = 1)\n    give a\n", "reads 'c', a parameter after it"),
    # a top-level variable of the same name does not stand in for the later parameter
    ("let b be 9\ntask f(a = b, b = 1)\n    give a\n", "reads 'b', a parameter after it"),
])
def test_a_default_reading_a_parameter_not_set_yet_is_a_compile_error(src, says):
    e = cerr(src)
    assert says in e.message


def test_a_default_may_use_the_parameters_before_it():
    src = ("task f(b = 1, a = b + 1, g = (x) => x + a)\n    give [a, b, g(10)]\n"
           "print(f())\nprint(f(5))\nprint(f(5, 0))\n")
    assert run(src) == "[2, 1, 12]\n[6, 5, 16]\n[0, 5, 10]\n"


@pytest.mark.parametrize("src, meant", [
    ("task zy()\n    give 1\nlet zx be 1\nprint(zz)\n", "zy"),     # the task is declared first
    ("let zx be 1\ntask zy()\n    give 1\nprint(zz)\n", "zx"),
    ("task f(zb)\n    let za be 1\n    give zz\n", "zb"),          # a parameter before a let
    ("task abcd(abce)\n    give abcf\n", "abcd"),                 # one line: the task first
])
def test_a_suggestion_tie_goes_to_the_name_declared_first(src, meant):
    assert cerr(src).message.endswith(f"did you mean '{meant}'?")


# ---- what the loader would refuse is a compile error (vm.verify's bounds) ---------------

def _runs_from_its_synb(src):
    """The program as `syn exec` would run it: encoded, decoded (verified), run."""
    out = []
    VM(decode(encode(compile_source(src, "t.syn"))), Options(out=out.append)).run_main()
    return "".join(out)


def test_a_long_list_literal_is_built_in_parts_and_loads():
    n = 25_000
    src = f"let xs be [{', '.join(str(i) for i in range(n))}]\n" \
          "print(len(xs))\nprint(xs[0])\nprint(xs[9999])\nprint(xs[10000])\nprint(xs[-1])\n"
    assert _runs_from_its_synb(src) == f"{n}\n0\n9999\n10000\n{n - 1}\n"
    assert _runs_from_its_synb("print([])\n") == "[]\n"


@pytest.mark.parametrize("src, message, line", [
    ("task t(" + ", ".join(f"p{i}" for i in range(300)) + ")\n    give 1\n",
     "task t has 300 parameters; at most 255", 1),
    ("print(1)\nlet m be {" + ", ".join(f'"k{i}": {i}' for i in range(10_001)) + "}\n",
     "too many keys in one map literal", 2),
    ("let f be (x) => x\nprint(f(" + ", ".join("1" for _ in range(10_001)) + "))\n",
     "too many arguments in one call", 2),
    ("".join(f"let v{i} be {i}\n" for i in range(70_000)),
     "the top level has 70,000 variables; at most 65,536", 1),
    ("print(1)\nlet xs be [" + ", ".join("1" for _ in range(400_000)) + "]\n",
     "line 2 has code past column 1,000,000", 2),
])
def test_what_a_synb_may_not_hold_is_a_compile_error_at_its_place(src, message, line):
    with pytest.raises(CompileError) as e:
        compile_source(src, "t.syn")
    assert message in e.value.message and e.value.line == line


def test_a_lambda_with_too_many_parameters_is_refused_at_its_line():
    src = "print(1)\nlet a be 2\nlet f be (" + ", ".join(f"p{i}" for i in range(256)) + ") => 1\n"
    with pytest.raises(CompileError) as e:
        compile_source(src, "t.syn")
    assert "has 256 parameters; at most 255" in e.value.message and e.value.line == 3
