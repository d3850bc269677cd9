"""The load-time verifier (vm/verify.py): accepts every compiled program, refuses bad code
with a reason that names the problem, the function and the offset."""
import glob
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from synsema.vm import opcodes as O
from synsema.vm.errors import CompileError, InvalidProgram
from synsema.vm.program import Function, Param, Program
from synsema.vm.verify import MAX_COUNT, MAX_STACK, verify

SHARED = str(Path(__file__).resolve().parent.parent.parent / "shared")

SOURCES = {
    "loops": """
let total be 0
let i be 0
while i < 10
    set i to i + 1
    when i % 2 == 0
        continue
    otherwise when i > 7
        break
    set total to total + i
print(total)
""",
    "try_recover": """
task risky(x)
    when x > 2
        fail("too big")
    give x * 2

task safe(x)
    try
        give risky(x)
    recover err
        give err

print(safe(1))
print(safe(5))
""",
    "foreach_break": """
task first_big(xs: list, limit: number = 10)
    for each x in xs
        when x > limit
            give x
        when x == 0
            break
    give nothing

let found be []
let counts be {"a": 0}
for each k in {"a": 1, "b": 2}
    try
        when k == "b"
            break
        set found to append(found, k)
        set counts[k] to 1
    recover e
        continue
print(first_big([1, 20, 3]))
print(found)
""",
    "lambdas": """
let base be 10
let add be (x, y) => x + y + base
let twice be (f, x) => f(f(x, 0), 0)
task apply(f, x = 1)
    give f(x, 2)
print(twice(add, 1))
print(apply(add))
print(apply((a, b) => a * b, 3))
""",
    "defaults_and_paths": """
task greet(name: text, greeting = "hello", extra = nothing)
    give greeting + " " + name

let m be {"a": [1, 2, {"b": 3}]}
set m["a"][2]["b"] to 4
set m.a to [5]
print(greet("Ann"))
print(greet("Bob", "hi"))
print(m)
""",
    "short_circuit_and_nested_try": """
task check(a, b)
    let r be a and (b or not a)
    try
        try
            when r
                fail("inner")
        recover e1
            fail(e1 + "!")
    recover e2
        give e2
    give r

test "it checks"
    assert(check(true, false) == "inner!")
    assert_eq(check(false, true), false)
""",
}


def _compile(text, name="t.syn"):
    from synsema.compiler import compile_source
    return compile_source(text, name)


def _shared_files():
    return sorted(glob.glob(os.path.join(SHARED, "conformance", "*", "*.syn"))
                  + glob.glob(os.path.join(SHARED, "seeds", "*.syn")))


# ---- compiled programs are accepted --------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SOURCES))
def test_accepts_compiled(name):
    prog = _compile(SOURCES[name])
    assert verify(prog) is None
    for f in prog.functions:
        assert 1 <= f.max_stack <= MAX_STACK, f.describe()


@pytest.mark.parametrize("path", _shared_files(), ids=os.path.basename)
def test_accepts_shared_examples(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        prog = _compile(text, os.path.basename(path))
    except CompileError:
        # Only the cases that expect a compile error (or exit 1 from one) may not compile.
        assert re.search(r"^-- expect(-compile-error|-exit: 1)\s*$", text, re.M), \
            f"{path} does not compile but its case expects it to run"
        return
    verify(prog)


def test_max_stack_is_exact_for_a_known_shape():
    prog = _compile("print([1, [2, 3], 4])\n")
    verify(prog)
    # CONST 1, CONST 2, CONST 3 are live at once, under nothing else.
    assert prog.main.max_stack == 3


def test_handler_entry_depth_inside_for_each():
    prog = _compile("""
for each x in [1, 2]
    try
        fail("x")
    recover e
        print(e)
""")
    verify(prog)
    assert prog.main.max_stack >= 2


# ---- hand-made programs ------------------------------------------------------------------------

def make(code, consts=(None,), nlocals=0, globals_=(), builtins=(), functions=()):
    """A program whose top level is `code`; `functions` are appended after it. The top
    level's locals are the globals: there are max(nlocals, len(globals_)) of both."""
    p = Program("t.syn")
    p.consts = list(consts)
    nlocals = max(nlocals, len(globals_))
    p.globals = list(globals_) + [f"v{i}" for i in range(len(globals_), nlocals)]
    p.global_lines = [1] * len(p.globals)
    p.builtins = list(builtins)
    main = Function("<top level>", "main", 1)
    main.code = list(code)
    main.nlocals = nlocals
    p.functions = [main, *functions]
    return p


def func(kind, code, params=(), ncaptures=0, nlocals=None, name="f", line=3):
    f = Function(name, kind, line)
    f.params = [p if isinstance(p, Param) else Param(p) for p in params]
    f.ncaptures = ncaptures
    f.nlocals = len(f.params) + ncaptures if nlocals is None else nlocals
    f.code = list(code)
    return f


RET_NOTHING = [O.CONST, 0, O.RETURN]


def refused(prog, *fragments):
    with pytest.raises(InvalidProgram) as e:
        verify(prog)
    reason = e.value.reason
    for frag in fragments:
        assert frag in reason, f"{frag!r} not in {reason!r}"
    return reason


def test_minimal_program_is_accepted():
    p = make(RET_NOTHING)
    verify(p)
    assert p.main.max_stack == 1


def test_unknown_opcode():
    refused(make([99] + RET_NOTHING), "unknown opcode 99", "top level", "offset 0")
    refused(make([0] + RET_NOTHING), "unknown opcode 0")


def test_internal_opcode():
    refused(make([O.JUMP_BACK, 0]), "internal opcode", "JUMP_BACK")
    refused(make([O.CONST, 0, O.CALL_VM_BUILTIN, 0, 0]), "internal opcode", "offset 2")


def test_truncated_instruction():
    refused(make([O.CONST, 0, O.RETURN, O.CALL_TASK, 1]), "CALL_TASK", "cut short", "offset 3")
    refused(make([O.CONST]), "cut short")


def test_empty_code():
    refused(make([]), "empty")


def test_operand_not_an_int():
    refused(make([O.CONST, "0", O.RETURN]), "not a non-negative int")
    refused(make([O.CONST, -1, O.RETURN]), "not a non-negative int")
    refused(make([O.CONST, True, O.RETURN]), "not a non-negative int")
    refused(make([O.CONST, 0.0, O.RETURN]), "not a non-negative int")
    refused(make([True, 0, O.RETURN]), "opcode True is not an int")


def test_const_out_of_range():
    refused(make([O.CONST, 5, O.RETURN]), "CONST constant index 5 is out of range", "offset 0")


def test_local_out_of_range():
    refused(make([O.LOAD_LOCAL, 0, O.RETURN]), "LOAD_LOCAL local index 0 is out of range")
    refused(make([O.CONST, 0, O.DECLARE_LOCAL, 2] + RET_NOTHING, nlocals=2), "local index 2")
    t = func("task", [O.JUMP_IF_SET, 1, 3] + RET_NOTHING, params=["a"], name="g")
    refused(make(RET_NOTHING, functions=[t]), "task g", "JUMP_IF_SET local index 1")


def test_global_out_of_range():
    refused(make([O.LOAD_GLOBAL, 1, O.RETURN], globals_=["x"]), "global index 1")
    t = func("task", [O.LOAD_GLOBAL, 0, O.RETURN], name="g")
    verify(make([O.CONST, 0, O.DECLARE_LOCAL, 0] + RET_NOTHING, globals_=["x"], functions=[t]))


def test_func_out_of_range():
    refused(make([O.LOAD_TASK, 3, O.RETURN]), "LOAD_TASK function index 3 is out of range")


def test_builtin_out_of_range_and_unknown():
    refused(make([O.CONST, 0, O.CALL_BUILTIN, 1, 1, O.RETURN], builtins=["print"]),
            "builtin index 1")
    refused(make(RET_NOTHING, builtins=["no_such_builtin"]), "no_such_builtin", "not a known")


def test_builtin_arity():
    refused(make([O.CALL_BUILTIN, 0, 0, O.RETURN], builtins=["print"]),
            "CALL_BUILTIN passes 0 arguments to print")
    verify(make([O.CONST, 0, O.CALL_BUILTIN, 0, 1, O.RETURN], builtins=["print"]))


def test_count_too_large():
    refused(make([O.BUILD_LIST, MAX_COUNT + 1, O.RETURN]), "count", "too large")


def test_jump_into_the_middle_of_an_instruction():
    refused(make([O.CONST, 0, O.JUMP, 1]), "JUMP jumps to offset 1", "inside an instruction")
    refused(make([O.CONST, 0, O.JUMP_IF_FALSE, 3, 0] + RET_NOTHING, consts=[True]),
            "JUMP_IF_FALSE", "inside an instruction", "offset 2")


def test_jump_past_the_end():
    refused(make([O.JUMP, 50] + RET_NOTHING), "jump target 50", "past the end")
    # The end itself is not an instruction either.
    refused(make([O.JUMP, 5] + RET_NOTHING), "past the end")


def test_stack_underflow():
    refused(make([O.POP] + RET_NOTHING), "POP pops 1", "underflow", "offset 0")
    refused(make([O.CONST, 0, O.ADD, O.RETURN]), "ADD pops 2", "holds 1")
    refused(make([O.RETURN]), "underflow")
    refused(make([O.CONST, 0, O.BUILD_MAP, 1, O.RETURN]), "BUILD_MAP pops 2")


def test_inconsistent_depth_at_a_join():
    # 0 CONST; 2 JUMP_IF_FALSE 7; 5 CONST; 7 CONST; 9 RETURN: depth 0 or 1 at offset 7.
    code = [O.CONST, 0, O.JUMP_IF_FALSE, 7, 0, O.CONST, 0, O.CONST, 0, O.RETURN]
    refused(make(code, consts=[True]), "offset 7", "stack depth is", "on one path")


def test_loop_that_grows_the_stack():
    refused(make([O.CONST, 0, O.JUMP, 0]), "offset 0", "stack depth")


def test_falling_off_the_end():
    refused(make([O.CONST, 0, O.POP]), "falls off the end")
    # A branch whose fallthrough runs off the end.
    # 0 CONST; 2 JUMP_IF_FALSE 8; 5 CONST; 7 RETURN; 8 CONST; 10 POP
    code = [O.CONST, 0, O.JUMP_IF_FALSE, 8, 0, O.CONST, 0, O.RETURN, O.CONST, 0, O.POP]
    refused(make(code, consts=[True]), "offset 10", "falls off the end")


def test_unreachable_tail_is_fine():
    verify(make(RET_NOTHING + [O.CONST, 0, O.POP]))


def test_make_lambda_count_mismatch():
    lam = func("lambda", [O.LOAD_LOCAL, 0, O.RETURN], ncaptures=1, line=7)
    refused(make([O.MAKE_LAMBDA, 1, 0, O.RETURN], functions=[lam]),
            "MAKE_LAMBDA captures 0 values", "has 1 captures")
    verify(make([O.CONST, 0, O.MAKE_LAMBDA, 1, 1, O.RETURN], functions=[lam]))


def test_make_lambda_of_a_task():
    t = func("task", RET_NOTHING, name="g")
    refused(make([O.MAKE_LAMBDA, 1, 0, O.RETURN], functions=[t]), "task g", "not a lambda")


def test_call_task_arity():
    t = func("task", [O.LOAD_LOCAL, 0, O.RETURN], params=["a"], name="g")
    refused(make([O.CALL_TASK, 1, 0, O.RETURN], functions=[t]),
            "CALL_TASK passes 0 arguments to task g", "takes 1 argument")
    refused(make([O.CONST, 0, O.CONST, 0, O.CALL_TASK, 1, 2, O.RETURN], functions=[t]),
            "passes 2 arguments")
    verify(make([O.CONST, 0, O.CALL_TASK, 1, 1, O.RETURN], functions=[t]))


def test_call_task_with_defaults():
    # 0 JUMP_IF_SET b 7; 3 CONST; 5 DECLARE_LOCAL b; 7 LOAD_LOCAL a; 9 RETURN
    t = func("task", [O.JUMP_IF_SET, 1, 7, O.CONST, 0, O.DECLARE_LOCAL, 1,
                      O.LOAD_LOCAL, 0, O.RETURN],
             params=[Param("a"), Param("b", None, Param.DEFAULT_EXPR)], name="g")
    for n in (1, 2):
        verify(make([O.CONST, 0] * n + [O.CALL_TASK, 1, n, O.RETURN], functions=[t]))
    refused(make([O.CONST, 0] * 3 + [O.CALL_TASK, 1, 3, O.RETURN], functions=[t]),
            "takes 1 to 2 arguments")


def test_call_task_and_load_task_need_a_task():
    lam = func("lambda", RET_NOTHING, line=9)
    test = func("test", RET_NOTHING, name="a test")
    refused(make([O.CALL_TASK, 1, 0, O.RETURN], functions=[lam]), "lambda at line 9",
            "not a task")
    refused(make([O.LOAD_TASK, 1, O.RETURN], functions=[test]), "not a task")


def test_field_and_check_bool_need_text_constants():
    refused(make([O.CONST, 0, O.FIELD, 0, O.RETURN]), "FIELD needs a text constant")
    refused(make([O.CONST, 0, O.CHECK_BOOL, 1, O.RETURN], consts=[True, 3]),
            "CHECK_BOOL needs a text constant")
    verify(make([O.CONST, 0, O.FIELD, 1, O.RETURN], consts=[None, "k"]))


def test_for_iter_depths():
    # 0 CONST; 2 ITER_START; 4 FOR_ITER 10; 6 DECLARE_LOCAL 0; 8 JUMP 4; 10 CONST; 12 RETURN
    code = [O.CONST, 0, O.ITER_START, 0, O.FOR_ITER, 10, O.DECLARE_LOCAL, 0, O.JUMP, 4,
            O.CONST, 0, O.RETURN]
    p = make(code, nlocals=1)
    verify(p)
    assert p.main.max_stack == 2
    # Forgetting to store the item: the loop grows the stack.
    bad = list(code)
    bad[6:8] = [O.CONST, 0]
    refused(make(bad, nlocals=1), "stack depth")
    refused(make([O.FOR_ITER, 2] + RET_NOTHING), "FOR_ITER pops 1", "underflow")


def test_and_jump_keeps_its_value_on_the_jump():
    # 0 CONST; 2 AND_JUMP 9; 5 CONST; 7 CHECK_BOOL; 9 RETURN
    code = [O.CONST, 0, O.AND_JUMP, 9, 0, O.CONST, 0, O.CHECK_BOOL, 1, O.RETURN]
    verify(make(code, consts=[True, "and"]))
    # Without the right operand the two paths disagree.
    refused(make([O.CONST, 0, O.AND_JUMP, 5, 0, O.RETURN], consts=[True]), "stack depth")


def test_try_handler_gets_one_value():
    # 0 TRY_BEGIN 7; 3 TRY_END; 4 CONST; 6 RETURN; 7 RETURN (returns the message)
    code = [O.TRY_BEGIN, 7, 0, O.TRY_END, O.CONST, 0, O.RETURN, O.RETURN]
    p = make(code)
    verify(p)
    assert p.main.max_stack == 1
    bad = code[:7] + [O.POP, O.RETURN]
    refused(make(bad), "offset 8", "underflow")


def test_try_end_without_try_begin():
    refused(make([O.TRY_END] + RET_NOTHING), "TRY_END without an open TRY_BEGIN")
    # TRY_END twice after one TRY_BEGIN (handler at 8).
    code = [O.TRY_BEGIN, 8, 0, O.TRY_END, O.TRY_END, O.CONST, 0, O.RETURN, O.RETURN]
    refused(make(code), "offset 4", "TRY_END")


def test_open_handlers_differ_at_a_join():
    # 0 CONST; 2 JUMP_IF_FALSE 8; 5 TRY_BEGIN 12; 8 CONST; 10 RETURN; 11 -; 12 RETURN
    code = [O.CONST, 0, O.JUMP_IF_FALSE, 8, 0, O.TRY_BEGIN, 11, 0, O.CONST, 0, O.RETURN,
            O.RETURN]
    refused(make(code, consts=[True]), "offset 8", "try handlers differ")


def test_pop_below_the_try():
    # The stack holds 1 at TRY_BEGIN; popping it inside the try would let the handler see
    # a stack shorter than the verifier assumed.
    code = [O.CONST, 0, O.TRY_BEGIN, 10, 0, O.POP, O.TRY_END, O.CONST, 0, O.RETURN,
            O.POP, O.RETURN]
    refused(make(code), "POP pops below", "enclosing try")


def test_conditional_jumps_go_forward_only():
    # Only JUMP is checked against the step limit, so a loop must close with JUMP.
    refused(make([O.CONST, 0, O.JUMP_IF_FALSE, 0, 0] + RET_NOTHING, consts=[True]),
            "JUMP_IF_FALSE jumps backward to 0", "only JUMP")
    # 0 CONST []; 2 ITER_START; 4 FOR_ITER 0: an endless loop that never meets a JUMP.
    refused(make([O.BUILD_LIST, 0, O.ITER_START, 0, O.FOR_ITER, 0, O.POP] + RET_NOTHING),
            "FOR_ITER jumps backward")
    refused(make([O.TRY_BEGIN, 0, 0] + RET_NOTHING), "TRY_BEGIN jumps backward")
    verify(make([O.CONST, 0, O.JUMP_IF_FALSE, 10, 0, O.JUMP, 0, O.CONST, 0, O.RETURN,
                 O.CONST, 0, O.RETURN], consts=[True]))


def test_set_path_needs_a_key():
    refused(make([O.CONST, 0, O.CONST, 0, O.SET_PATH, 0, O.RETURN]), "SET_PATH needs at least")


def test_iterators_stay_inside_their_loop():
    # FOR_ITER on something ITER_START did not make.
    refused(make([O.CONST, 0, O.FOR_ITER, 6, O.POP, O.RETURN, O.CONST, 0, O.RETURN]),
            "FOR_ITER needs an iterator")
    # Storing the iterator itself in a variable.
    refused(make([O.BUILD_LIST, 0, O.ITER_START, 0, O.DECLARE_LOCAL, 0] + RET_NOTHING,
                 nlocals=1), "DECLARE_LOCAL uses a loop iterator")
    # Returning it, or passing it to a builtin.
    refused(make([O.BUILD_LIST, 0, O.ITER_START, 0, O.RETURN]), "RETURN uses a loop iterator")
    refused(make([O.BUILD_LIST, 0, O.ITER_START, 0, O.CALL_BUILTIN, 0, 1, O.RETURN],
                 builtins=["print"]), "CALL_BUILTIN uses a loop iterator")
    # Dropping it with POP (a `break`) is fine; returning from inside the loop must drop
    # it first (frames share one value stack: a return leaves nothing behind).
    verify(make([O.BUILD_LIST, 0, O.ITER_START, 0, O.POP] + RET_NOTHING))
    refused(make([O.BUILD_LIST, 0, O.ITER_START, 0] + RET_NOTHING),
            "RETURN with 1 other value(s) left on the stack")
    # Two paths that disagree on whether a slot is an iterator.
    # 0 CONST t; 2 JUMP_IF_FALSE 12; 5 BUILD_LIST 0; 7 ITER_START; 9 JUMP 14; 11 -;
    # 12 CONST; 14 POP; 15 CONST; 17 RETURN
    code = [O.CONST, 1, O.JUMP_IF_FALSE, 11, 0, O.BUILD_LIST, 0, O.ITER_START, 0, O.JUMP, 13,
            O.CONST, 0, O.POP] + RET_NOTHING
    refused(make(code, consts=[None, True]), "offset 13", "iterators", "differ")


def _with_optional(code, kind=Param.DEFAULT_EXPR):
    t = func("task", code, params=[Param("a"), Param("b", None, kind)], name="g")
    return make(RET_NOTHING, functions=[t])


def test_optional_parameter_read_before_its_default():
    refused(_with_optional([O.LOAD_LOCAL, 1, O.RETURN]),
            "task g, offset 0", "reads optional parameter 'b' before its default")
    refused(_with_optional([O.LOAD_LOCAL, 1, O.RETURN], Param.DEFAULT_NOTHING), "'b'")
    verify(_with_optional([O.LOAD_LOCAL, 0, O.RETURN]))
    if hasattr(O, "APPEND_LOCAL"):      # an in-place update reads the slot too
        refused(_with_optional([O.CONST, 0, O.APPEND_LOCAL, 1] + RET_NOTHING),
                "APPEND_LOCAL reads optional parameter 'b'")
    # The compiler's prologue: JUMP_IF_SET b, skip; default; DECLARE_LOCAL b; skip:
    verify(_with_optional([O.JUMP_IF_SET, 1, 7, O.CONST, 0, O.DECLARE_LOCAL, 1,
                           O.LOAD_LOCAL, 1, O.RETURN]))
    # Without the store on the fallthrough path the two paths disagree.
    refused(_with_optional([O.JUMP_IF_SET, 1, 6, O.CONST, 0, O.POP, O.LOAD_LOCAL, 1,
                            O.RETURN]), "optional parameters", "differs")


def test_max_stack_bound():
    code = [O.CONST, 0] * (MAX_STACK + 1) + [O.RETURN]
    refused(make(code), "stack grows past")


def test_reason_names_the_function():
    t = func("task", [O.POP] + RET_NOTHING, name="helper")
    reason = refused(make(RET_NOTHING, functions=[t]), "in task helper, offset 0")
    assert "underflow" in reason
    lam = func("lambda", [O.POP] + RET_NOTHING, line=12)
    refused(make(RET_NOTHING, functions=[lam]), "in lambda at line 12, offset 0")
    tst = func("test", [O.POP] + RET_NOTHING, name="adds")
    refused(make(RET_NOTHING, functions=[tst]), "in test 'adds', offset 0")


# ---- program shape ------------------------------------------------------------------------

def test_first_function_must_be_main():
    p = make(RET_NOTHING)
    p.main.kind = "task"
    refused(p, "function 0 (task) has the name '<top level>'")     # a task's name is a name
    p.main.name = "main"
    refused(p, "functions[0]", "top level")
    p = make(RET_NOTHING)
    p.main.params = [Param("x")]
    p.main.nlocals = 1
    refused(p, "functions[0]")
    refused(make(RET_NOTHING, functions=[func("main", RET_NOTHING)]), "only functions[0]")
    p = make(RET_NOTHING)
    p.functions = []
    refused(p, "no functions")


def test_unknown_function_kind():
    refused(make(RET_NOTHING, functions=[func("macro", RET_NOTHING)]), "unknown kind 'macro'")


def test_nlocals_must_hold_params_and_captures():
    refused(make(RET_NOTHING, functions=[func("task", RET_NOTHING, params=["a", "b"],
                                              nlocals=1)]),
            "1 locals cannot hold 2 parameters")
    refused(make(RET_NOTHING, functions=[func("lambda", RET_NOTHING, ncaptures=2, nlocals=1)]),
            "captures")
    refused(make(RET_NOTHING, functions=[func("task", RET_NOTHING, ncaptures=1)]),
            "only a lambda may have captures")


def test_param_types_and_defaults():
    refused(make(RET_NOTHING, functions=[func("task", RET_NOTHING,
                                              params=[Param("a", "numbr")])]),
            "unknown type 'numbr'")
    refused(make(RET_NOTHING, functions=[func("task", RET_NOTHING,
                                              params=[Param("a", None, 3)])]),
            "bad default kind 3")
    refused(make(RET_NOTHING, functions=[func("task", RET_NOTHING,
                                              params=[Param("a", None, 1), Param("b")])]),
            "without a default follows")
    for t in ("number", "text", "bool", "list", "map", "task", "any", None):
        verify(make(RET_NOTHING, functions=[func("task", RET_NOTHING, params=[Param("a", t)])]))


def test_tests_refer_to_test_functions():
    p = make(RET_NOTHING, functions=[func("task", RET_NOTHING), func("test", RET_NOTHING)])
    p.tests = [("ok", 2)]
    verify(p)
    p.tests = [("bad", 1)]
    refused(p, "test entry 0", "not a test")
    p.tests = [("bad", 9)]
    refused(p, "not a test")
    p.tests = [("bad",)]
    refused(p, "test entry 0")


def test_requires_shape():
    for cap in [("stdout",), ("llm",), ("llm", "customers"), ("net", "api.x.com"),
                ("net", "api.x.com", "public"), ("tool", "bank.*")]:
        p = make(RET_NOTHING)
        p.requires = [cap]
        verify(p)
    for cap in [("disk",), ("llm", 5), ("net",), ("stdout", "x"), ["llm"],
                ("net", "a", "b", "c"), ("net", "API.X.COM"), ("tool", "no such")]:
        p = make(RET_NOTHING)
        p.requires = [cap]
        refused(p, "bad require")
    t = func("task", RET_NOTHING, name="g")
    t.requires = [("fs",)]
    refused(make(RET_NOTHING, functions=[t]), "task g", "bad require")


def test_positions_shape():
    p = make(RET_NOTHING)
    p.main.positions = [(0, 1, 1), (2, 1, 5)]
    verify(p)
    for bad in [(0, -1, 0)], [(0, 1)], [(0, 1, 1.5)], [(2, 1, 1), (0, 1, 1)], [(99, 1, 1)]:
        p.main.positions = bad
        refused(p, "position")


def test_constant_types():
    verify(make(RET_NOTHING, consts=[None, 1, 2.5, "t", True, 2 ** 100]))
    refused(make(RET_NOTHING, consts=[None, [1]]), "constant 1 is a list")


# ---- robustness: never anything but InvalidProgram -----------------------------------------

_small = st.integers(min_value=-2, max_value=110) | st.sampled_from(sorted(O.BY_CODE))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_small, max_size=30), st.integers(0, 3))
def test_random_code_only_ever_invalid(code, nlocals):
    t = func("task", [O.LOAD_LOCAL, 0, O.RETURN], params=["a"], name="g")
    lam = func("lambda", [O.LOAD_LOCAL, 0, O.RETURN], ncaptures=1)
    p = make(code, consts=[None, True, "k"], nlocals=nlocals, globals_=["x"],
             builtins=["print"], functions=[t, lam])
    try:
        verify(p)
    except InvalidProgram as e:
        assert e.reason
    else:
        _runs_safely(p)


def _runs_safely(p):
    """What the verifier accepts runs in both loops without an internal error (exit 70):
    it ends, fails with a Synsema error, or stops at a limit."""
    from synsema.vm.errors import SynError
    from synsema.runtime.machine import VM, Options
    for labels in (False, True):
        vm = VM(p, Options(labels=labels, max_steps=300, max_depth=20, out=lambda t: None))
        try:
            vm.run_main()
        except SynError as e:
            assert e.exit_code != 70, (labels, e)


_compiled = {}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_compiled_code_only_ever_invalid(data):
    if "p" not in _compiled:
        _compiled["p"] = _compile(SOURCES["foreach_break"])
    prog = _compiled["p"]
    f = prog.functions[data.draw(st.integers(0, len(prog.functions) - 1))]
    i = data.draw(st.integers(0, len(f.code) - 1))
    saved = f.code[i]
    f.code[i] = data.draw(_small)
    try:
        verify(prog)
    except InvalidProgram:
        pass
    else:
        _runs_safely(prog)
    finally:
        f.code[i] = saved


# ---- what tasks may reach of the top level, and other operand rules ------------------------

def _reader(op=O.LOAD_GLOBAL):
    code = [O.LOAD_GLOBAL, 0, O.RETURN] if op == O.LOAD_GLOBAL else \
        [O.CONST, 0, op, 0] + RET_NOTHING
    return func("task", code, name="reader")


def test_tasks_see_only_globals_declared_outside_every_block():
    def main(code, op=O.LOAD_GLOBAL):
        return make(code, consts=[None, True], globals_=["x"], functions=[_reader(op)])
    declare = [O.CONST, 0, O.DECLARE_LOCAL, 0]
    verify(main(declare + RET_NOTHING))
    # After a loop: it runs however many times the loop does.
    verify(main([O.CONST, 1, O.JUMP_IF_FALSE, 7, 0, O.JUMP, 0] + declare + RET_NOTHING))
    # Inside a `when`: whether it ran is which way the branch went.
    blocked = "names top-level variable 'x', which is not declared at the top level"
    when = [O.CONST, 1, O.JUMP_IF_FALSE, 9, 0] + declare + RET_NOTHING
    refused(main(when), "in task reader, offset 0: LOAD_GLOBAL", blocked)
    refused(main(when, O.APPEND_GLOBAL), "APPEND_GLOBAL", blocked)
    verify(main(declare + RET_NOTHING, O.APPEND_GLOBAL))
    # Inside a loop's body, or a `try` (an error before it skips it).
    loop = [O.CONST, 1, O.JUMP_IF_FALSE, 11, 0] + declare + [O.JUMP, 0] + RET_NOTHING
    refused(main(loop), blocked)
    try_ = ([O.TRY_BEGIN, 10, 0] + declare + [O.TRY_END, O.JUMP, 11, O.POP]
            + RET_NOTHING)
    verify(make(try_, globals_=["x"]))
    refused(main(try_), blocked)


def test_only_the_top_level_sets_its_variables_and_only_as_locals():
    declare = [O.CONST, 0, O.DECLARE_LOCAL, 0]
    for op in (O.STORE_GLOBAL, O.DECLARE_GLOBAL):
        refused(make(declare + RET_NOTHING, globals_=["x"], functions=[_reader(op)]),
                "sets top-level variable 'x'; only the top level sets its variables")
    refused(make(declare + [O.LOAD_GLOBAL, 0, O.RETURN], globals_=["x"]),
            "top level, offset 4: LOAD_GLOBAL in the top level, whose variables are its "
            "locals")


def test_the_top_levels_locals_are_the_globals():
    p = make(RET_NOTHING, globals_=["x"])
    p.main.nlocals = 2
    refused(p, "the top level has 2 locals, but its locals are the program's 1 globals")
    p = make(RET_NOTHING, globals_=["x"])
    p.global_lines = []
    refused(p, "1 globals but 0 lines")


def test_drop_under_needs_a_value_to_drop():
    refused(make([O.CONST, 0, O.DROP_UNDER, 0, O.RETURN]),
            "DROP_UNDER needs at least one value to drop")
    verify(make([O.CONST, 0, O.CONST, 0, O.DROP_UNDER, 1, O.RETURN]))


def test_jump_if_set_tests_only_a_parameter_with_a_default():
    refused(make([O.CONST, 0, O.DECLARE_LOCAL, 0, O.JUMP_IF_SET, 0, 7] + RET_NOTHING,
                 nlocals=1), "JUMP_IF_SET tests local 0, which is not a parameter with a "
                             "default")
    t = func("task", [O.JUMP_IF_SET, 0, 3, O.LOAD_LOCAL, 0, O.RETURN], params=["a"])
    refused(make(RET_NOTHING, functions=[t]), "task f, offset 0", "local 0")


def test_a_functions_locals_are_what_its_code_declares():
    t = func("task", RET_NOTHING, nlocals=3)
    refused(make(RET_NOTHING, functions=[t]),
            "in task f: 3 `let` slots (locals past the parameters and captures), but 0 "
            "DECLARE_LOCAL of them")
    t = func("task", [O.CONST, 0, O.DECLARE_LOCAL, 0, O.CONST, 0, O.DECLARE_LOCAL, 1,
                      O.CONST, 0, O.DECLARE_LOCAL, 2] + RET_NOTHING, nlocals=3)
    verify(make(RET_NOTHING, functions=[t]))
    lam = func("lambda", [O.CONST, 0, O.DECLARE_LOCAL, 1, O.LOAD_LOCAL, 1, O.RETURN],
               params=["a"], nlocals=2)
    refused(make(RET_NOTHING, functions=[lam]), "a lambda's locals are its 1 parameters")
    tst = func("test", RET_NOTHING, params=["a"], name="adds")
    refused(make(RET_NOTHING, functions=[tst]), "test 'adds': a test takes no parameters")


def test_frames_over_all_argument_counts_are_bounded_by_the_code():
    from synsema.vm.verify import MAX_PAD_SLOTS
    lets = 4_000
    params = [Param(f"p{i}", None, Param.DEFAULT_NOTHING) for i in range(255)]
    code = []
    for slot in range(255, 255 + lets):
        code += [O.CONST, 0, O.DECLARE_LOCAL, slot]
    t = func("task", code + RET_NOTHING, params=params, nlocals=255 + lets)
    slots = 256 * (255 + lets)
    assert slots > MAX_PAD_SLOTS and slots > 4 * len(t.code)
    refused(make(RET_NOTHING, functions=[t]), f"would need {slots} local slots")


@pytest.mark.parametrize("where, bad", [
    ("task", ""), ("task", "a b"), ("task", "x\nrequires: none"), ("task", "<lambda>"),
    ("param", ""), ("param", "a: zzz"), ("param", "a:b:c"),
    ("local", "\x1b[8m"), ("global", "a\n"),
])
def test_names_are_names(where, bad):
    # Shown by syn inspect/outline/dis and matched by --call: held to the compiler's rule.
    p = make(RET_NOTHING, functions=[func("task", RET_NOTHING, params=[Param("a")],
                                          nlocals=1, name="t")])
    if where == "task":
        p.functions[1].name = bad
    elif where == "param":
        p.functions[1].params = [Param(bad)]
    elif where == "local":
        p.functions[1].local_names = [bad]
    else:
        p.globals, p.global_lines, p.main.nlocals = [bad], [1], 1
    refused(p, "name" if where != "param" else "malformed")


def test_duplicate_parameters_and_tasks_are_refused():
    p = make(RET_NOTHING, functions=[func("task", RET_NOTHING, params=[Param("a"), Param("a")],
                                          nlocals=2, name="t")])
    refused(p, "two parameters named 'a'")
    p = make(RET_NOTHING, functions=[func("task", RET_NOTHING, name="t"),
                                     func("task", RET_NOTHING, name="t")])
    refused(p, "a second task named 't'")


def test_positions_far_past_any_source_are_refused():
    p = make(RET_NOTHING)
    p.main.positions = [(0, 4, 2 ** 40)]
    refused(p, "column at most")
    p.main.positions = [(0, 2 ** 40, 1)]
    refused(p, "line at most")


# ---- BUILD_MAP_KEYS: its keys are n text constants in a row from k ------------------------

def test_build_map_keys_accepts_text_keys_in_the_pool():
    verify(make([O.CONST, 0, O.CONST, 0, O.BUILD_MAP_KEYS, 1, 2, O.POP] + RET_NOTHING,
                consts=(None, "a", "b")))


@pytest.mark.parametrize("k,n,consts,fragments", [
    (1, 0, (None, "a"), ("BUILD_MAP_KEYS needs at least one key",)),
    (1, 2, (None, "a"), ("names constants 1 to 2, but there are 2",)),
    (1, 2, (None, "a", 7), ("needs text keys, constant 2 is 7",)),
    (0, 1, (None,), ("needs text keys, constant 0 is None",)),
    (5, 1, (None, "a"), ("constant",)),
])
def test_build_map_keys_refuses_keys_that_are_not_texts_in_the_pool(k, n, consts, fragments):
    code = [O.CONST, 0] * max(n, 1) + [O.BUILD_MAP_KEYS, k, n, O.POP] + RET_NOTHING
    refused(make(code, consts=consts), "BUILD_MAP_KEYS", *fragments)


def test_build_map_keys_may_not_name_more_keys_than_its_code_could_give_values_to():
    # A few ints each naming the same 10,000 keys: the loader would make a tuple of them
    # per instruction (gigabytes from a small file). Compiled code pushes a value (two
    # ints at least) for every key, so no compiled function comes near the bound.
    keys = ["a"] * 10_000
    dead = [O.BUILD_MAP_KEYS, 1, 10_000] * 400          # after the RETURN: never run
    prog = make(RET_NOTHING + dead, consts=[None] + keys)
    refused(prog, "offset 3: its map literals name 10000 keys, more than the 1203 ints")
    # The biggest literal a file may hold, compiled, loads.
    src = "let m be {" + ", ".join(f'"k{i}": {i}' for i in range(MAX_COUNT)) + "}\nprint(len(m))\n"
    verify(_compile(src))
