"""Information-flow labels (SPEC section 10): a suite of leak attempts under --labels.

Each program tries to get a secret (or one bit about it) to a sink. A leak attempt must end
in a `label_violation` (exit 3, `label_violation` on stderr, the secret nowhere in stdout or
stderr); a legitimate program must give the permitted result.

The secret is built from pieces ("hun" + "ter2") so that the literal never appears in a
source line (a caret line of an error report would otherwise show it).

Most programs run in-process (fast); a handful go through the `syn` command, and some
through `syn compile` + `syn exec` to show that both paths agree.
"""

import io
import json
import textwrap
import time

import pytest

from synsema.runtime.report import Source, runtime_error
from synsema.compiler import compile_source
from synsema.vm.caps import Ceiling
from synsema.vm.errors import LabelViolation, LimitExceeded, SynError
from synsema.runtime.machine import VM, Options

SECRET = "hunter2"
MAKE = 'let secret be private("hun" + "ter2", "c")\n'


class Result:
    def __init__(self, code, out, err, vm=None):
        self.code, self.out, self.err, self.vm = code, out, err, vm

    def __repr__(self):
        return f"Result(code={self.code}, out={self.out!r}, err={self.err!r})"


def run(src, labels=True, cap=None, audit=None, out=None):
    """Compile and run `src` in-process; exit code as the CLI would give it."""
    src = textwrap.dedent(src)
    prog = compile_source(src, "app.syn")
    buf = io.StringIO()
    opts = Options(labels=labels, ceiling=Ceiling.parse(cap) if cap is not None else None,
                   out=out or buf.write, audit=audit)
    vm = VM(prog, opts)
    try:
        vm.run_main()
        return Result(0, buf.getvalue(), "", vm)
    except SynError as e:
        if isinstance(e, LabelViolation):
            code = 3
        elif isinstance(e, LimitExceeded):
            code = 4
        else:
            code = e.exit_code
        # No source lines: the report must not leak through a caret line either way.
        return Result(code, buf.getvalue(), runtime_error(e, Source("app.syn")), vm)


def violation(src, **kw):
    r = run(src, **kw)
    assert r.code == 3, r
    assert "label_violation" in r.err, r
    assert SECRET not in r.out and SECRET not in r.err, r
    return r


def ok(src, expected_out, **kw):
    r = run(src, **kw)
    assert r.code == 0, r
    assert r.out == expected_out, r
    return r


# labels_of's answer carries the labels it reports (SPEC 10): printing it needs stdout=L.
SHOW = "stdout,stdout=a,stdout=c,stdout=d"
SHOW_LLM = SHOW + ",llm=c@api.openai.com"


def shown(src, expected_out, **kw):
    """ok(), with a ceiling that lets the labels these tests use reach stdout."""
    return ok(src, expected_out, cap=SHOW, **kw)


# ---- explicit flows -------------------------------------------------------------------

def test_print_of_private_is_a_violation():
    r = violation(MAKE + "print(secret)\n")
    assert "print would reveal data labelled c" in r.err


def test_print_of_derived_values_is_a_violation():
    for expr in ('secret + "!"', "len(secret)", "upper(secret)", "text(secret)",
                 'secret == "x"', "slice(secret, 0, 3)", 'split(secret, "t")',
                 "json_encode(secret)", "[secret]", '{"k": secret}', "secret[0]",
                 'replace(secret, "h", "H")', 'contains(secret, "h")', "type_of(secret)"):
        violation(MAKE + f"print({expr})\n")


@pytest.mark.parametrize("expr", ['len("abc")', 'upper("x")', 'slice("abcdef", 1, 3)',
                                  'replace("aa", "a", "b")', "keys({})"])
def test_pure_builtin_on_public_data_under_a_labelled_branch_takes_the_pc_label(expr):
    # no argument is labelled: the label comes only from the branch being taken
    body = f"when len(secret) > 3\n    let y be {expr}\n    print(labels_of(y))\n"
    violation(MAKE + body)
    # What labels_of sees inside the branch, carried out in a list that is labelled
    # already (no upgrade) and declassified after it.
    ok(MAKE + 'let seen be private([], "c")\nwhen len(secret) > 3\n'
       f'    set seen to append(seen, labels_of({expr}))\n'
       'print(declassify(seen, "test"))\n', '[["c"]]\n', cap="stdout,declassify=c")
    ok(MAKE + f"print(labels_of({expr}))\n", "[]\n")


@pytest.mark.parametrize("expr", ['slice(secret, 0, 2)', 'replace("ab", "a", secret)',
                                  'contains(secret, "x")'])
def test_pure_builtin_with_a_labelled_argument_among_several(expr):
    shown(MAKE + f"print(labels_of({expr}))\n", '["c"]\n')


def test_public_data_prints_normally_under_labels():
    ok('let x be 1 + 2\nprint(x)\nprint(labels_of(x))\n', "3\n[]\n")


# ---- implicit flows: branches -----------------------------------------------------------

@pytest.mark.parametrize("body", [
    # when / otherwise when / otherwise
    'when len(secret) > 3\n    print("long")\n',
    'when len(secret) > 30\n    print("a")\notherwise\n    print("b")\n',
    'when len(secret) > 30\n    print("a")\notherwise when len(secret) > 3\n    print("b")\n',
    # while
    'let i be 0\nwhile i < len(secret)\n    print("tick")\n    let j be i\n    '
    'set i to i + 1\n',
    # for each over a labelled collection / text
    'for each ch in secret\n    print("char")\n',
    'for each k in private({"a": 1}, "c")\n    print("key")\n',
    # and / or / not
    'let b be len(secret) > 3 and true\nprint(b)\n',
    'let b be false or len(secret) > 3\nprint(b)\n',
    'let b be not (len(secret) > 3)\nprint(b)\n',
])
def test_implicit_flow_through_branches(body):
    violation(MAKE + body)


def test_short_circuit_right_operand_runs_under_the_left_label():
    violation(MAKE + textwrap.dedent('''\
        task side()
            print("side effect")
            give true
        let b be len(secret) == 99 or side()
    '''))
    violation(MAKE + textwrap.dedent('''\
        task side()
            print("side effect")
            give true
        let b be len(secret) == 7 and side()
    '''))


def test_short_circuit_result_carries_the_label():
    shown(MAKE + 'let b be len(secret) == 99 and true\nprint(labels_of(b))\n', '["c"]\n')
    shown(MAKE + 'let b be true and len(secret) == 99\nprint(labels_of(b))\n', '["c"]\n')
    shown('let b be true and false\nprint(b)\n', "false\n")


def test_branch_without_give_ends_its_pc_at_the_end_of_the_statement():
    ok(MAKE + 'when len(secret) > 3\n    let x be 1\nprint("after")\n', "after\n")


def test_labelled_condition_that_is_not_bool_errors_under_its_label():
    r = run(MAKE + 'let n be private(5, "c")\ntry\n    when n\n        let q be 1\n'
             'recover e\n    print(e)\n')
    assert r.code == 3 and "label_violation" in r.err


# ---- containers ------------------------------------------------------------------------

CONTAINERS = MAKE + textwrap.dedent('''\
    let xs be [1, secret]
    let m be {"a": 1, "b": secret}
    let nested be {"k": [1, {"z": secret}]}
''')


# SPEC 10: containers are precise -- each element keeps its own label, the shape its own.
@pytest.mark.parametrize("expr, out", [
    ("xs[0]", "1"), ("xs[-2]", "1"), ('m["a"]', "1"), ("m.a", "1"), ('nested["k"][0]', "1"),
    ('get(m, "a", 0)', "1"), ('get(m, "zz", 0)', "0"), ('get(m, "zz")', "nothing"),
    ('get(m, "a")', "1"), ("len(xs)", "2"), ("len(m)", "2"),
    ('keys(m)', '["a", "b"]'), ("sort([2, 1])", "[1, 2]"),
    ("append(xs, 3)[2]", "3"), ('put(m, "c", 5).c', "5"), ('put(m, "b", 0).b', "0"),
])
def test_reading_a_public_element_of_a_container_is_public(expr, out):
    ok(CONTAINERS + f"print({expr})\n", out + "\n")


@pytest.mark.parametrize("expr", [
    "xs[1]", "m.b", 'm["b"]', 'nested["k"][1]', 'nested["k"][1].z', 'get(m, "b", 0)',
    'get(m, "b")', "get(xs, 0, 0)",
    "xs", "m", "reverse(xs)", "values(m)", "contains(xs, 1)", "append(xs, 3)", "xs + [9]",
    "slice(xs, 1, 2)", "text(xs)", "xs == [1, 2]", "join([text(xs[1])], \"\")",
])
def test_whatever_reaches_the_secret_element_is_labelled(expr):
    violation(CONTAINERS + f"print({expr})\n")


def test_an_index_chosen_by_a_secret_labels_the_element():
    violation(CONTAINERS + "print(xs[len(secret) % 1])\n")
    violation(MAKE + 'let ys be [1, 2]\nprint(ys[len(secret) % 2])\n')


def test_iterating_gives_each_item_its_own_label():
    ok(CONTAINERS + "for each x in xs\n    when x == 1\n        print(\"one\")\n", "one\n")
    violation(CONTAINERS + "for each x in xs\n    print(x)\n")


def test_a_container_built_under_a_secret_branch_has_a_secret_shape():
    violation(MAKE + 'let xs be []\nwhen len(secret) > 3\n    let ys be [1]\n    print(len(ys))\n')
    violation(MAKE + 'let ys be private([1, 2], "c")\nprint(ys[0])\n')


def test_map_with_labelled_key_is_labelled():
    violation(MAKE + 'let m be {secret: 1}\nprint(keys(m))\n')
    violation(MAKE + 'let m be {"a": 1}\nset m[secret] to 2\nprint(len(m))\n')


def test_set_of_an_element_to_a_labelled_value_labels_that_element():
    ok(MAKE + 'let xs be [1, 2]\nset xs[0] to secret\nprint(xs[1])\n', "2\n")
    ok(MAKE + 'let m be {"a": 1}\nset m.b to secret\nprint(m.a)\n', "1\n")
    violation(MAKE + 'let xs be [1, 2]\nset xs[0] to secret\nprint(xs[0])\n')
    violation(MAKE + 'let m be {"a": 1}\nset m.b to secret\nprint(m.b)\n')
    violation(MAKE + 'let xs be [1, 2]\nset xs[len(secret) % 2] to 5\nprint(xs[0])\n')


# ---- closures and task values -----------------------------------------------------------

def test_lambda_capturing_a_secret_is_labelled():
    violation(MAKE + 'let f be () => secret\nprint(f())\n')
    r = run(MAKE + 'let f be () => secret\nprint(labels_of(f))\nprint(f())\n', cap=SHOW)
    assert r.out == '["c"]\n' + SECRET + "\n", r


def test_labelled_lambda_that_ignores_captures_still_labels_its_call():
    violation(MAKE + 'let f be (x) => len(secret) * 0 + x\nprint(f(1))\n')
    violation(MAKE + 'let f be private((x) => x, "c")\nprint(f(1))\n')


def test_labelled_task_value_raises_the_pc_of_its_call():
    violation(MAKE + textwrap.dedent('''\
        task hello()
            print("hi")
            give 1
        let t be private(hello, "c")
        t()
    '''))
    violation(MAKE + textwrap.dedent('''\
        task hello()
            print("hi")
            give 1
        call(private(hello, "c"), {})
    '''))


def test_task_value_chosen_by_a_secret_is_labelled():
    violation(MAKE + textwrap.dedent('''\
        task a()
            give 1
        task b()
            give 2
        let fs be [a, b]
        let f be fs[len(secret) % 2]
        print(f())
    '''))


def test_labelled_task_value_may_set_its_own_parameter():
    r = run(textwrap.dedent('''\
        task inc(n)
            set n to n + 1
            give n
        let t be private(inc, "c")
        let r be t(1)
        print(labels_of(r))
    '''), cap=SHOW)
    assert r.code == 0 and r.out == '["c"]\n', r


# ---- errors ------------------------------------------------------------------------------

def test_fail_with_secret_caught_and_printed():
    violation(MAKE + 'try\n    fail(secret)\nrecover e\n    print(e)\n')


def test_recover_runs_under_the_error_label():
    violation(MAKE + 'try\n    fail(secret)\nrecover e\n    print("caught")\n')
    ok(MAKE + 'try\n    fail(secret)\nrecover e\n    let z be labels_of(e)\nprint("after")\n',
       "after\n")


def test_division_by_secret_zero_inside_try():
    violation(MAKE + 'let z be private(0, "c")\ntry\n    let q be 1 / z\n'
              'recover e\n    print("zero")\n')
    # No error: the rest of the try is under the label (the operation could have raised).
    violation(MAKE + 'let z be private(1, "c")\ntry\n    let q be 1 / z\n'
              '    print("not zero")\nrecover e\n    let w be 0\n')


def test_index_error_depending_on_secret():
    violation(MAKE + 'let n be private(5, "c")\nlet xs be [1, 2, 3]\ntry\n'
              '    let v be xs[n]\nrecover e\n    print("out of range")\n')
    violation(MAKE + 'let n be private(1, "c")\nlet xs be [1, 2, 3]\ntry\n'
              '    let v be xs[n]\n    print("in range")\nrecover e\n    let w be 0\n')


def test_after_the_try_printing_is_allowed_again():
    ok(MAKE + 'let z be private(0, "c")\ntry\n    let q be 1 / z\nrecover e\n'
       '    let w be 0\nprint("after")\n', "after\n")


def test_uncaught_labelled_error_is_withheld():
    r = run(MAKE + "fail(secret)\n")
    assert r.code == 1, r
    assert "(message withheld: labelled c)" in r.err
    assert SECRET not in r.err


def test_uncaught_labelled_error_from_operation_is_withheld():
    r = run(MAKE + "let n be number(secret)\n")
    assert r.code == 1 and "(message withheld: labelled c)" in r.err and SECRET not in r.err


def test_uncaught_labelled_error_cli(syn, write):
    p = write("app.syn", MAKE + "fail(secret + \" is the password\")\n")
    r = syn("run", "--labels", p)
    assert r.returncode == 1
    assert "error: (message withheld: labelled c)" in r.stderr
    assert SECRET not in r.stderr + r.stdout
    r = syn("run", p)          # without labels the message is shown
    assert r.returncode == 1 and SECRET in r.stderr


def test_error_raised_in_a_labelled_branch_carries_the_pc():
    violation(MAKE + 'try\n    when len(secret) > 3\n        fail("long")\nrecover e\n'
              '    print(e)\n')


def test_labelled_branch_in_a_called_task_taints_the_callers_try():
    violation(MAKE + textwrap.dedent('''\
        task g(s)
            when s
                fail("x")
            give 1
        try
            g(len(secret) > 30)
            print("no fail")
        recover e
            let w be 1
    '''))


def test_assert_inside_try_taints_the_try():
    violation(MAKE + 'let n be private(0, "c")\ntry\n    assert(n == 0)\n'
              '    print("n is 0")\nrecover e\n    let w be 0\n')
    violation(MAKE + 'let n be private(1, "c")\ntry\n    assert_eq(n, 1)\n'
              '    print("n is 1")\nrecover e\n    let w be 0\n')


def test_assert_error_does_not_unlabel_the_message():
    r = run(MAKE + 'assert_error(() => fail(secret), "zzz")\n')
    assert r.code == 1 and SECRET not in r.err, r


def test_vm_builtin_argument_errors_carry_labels():
    violation('require llm("c")\nlet p be private(5, "c")\ntry\n    llm_step(p, [], "")\n'
              'recover e\n    print(e)\n')
    violation('let r be private("", "c")\ntry\n    declassify(1, r)\nrecover e\n'
              '    print(e)\n')
    violation('let l be private(7, "c")\ntry\n    private(1, l)\nrecover e\n    print(e)\n')


# ---- give / break / continue in labelled branches (sticky pc) --------------------------

def test_give_in_labelled_branch_keeps_pc_until_the_task_returns():
    violation(MAKE + textwrap.dedent('''\
        task f(s)
            when s
                give 1
            print("after branch")
            give 2
        f(len(secret) == 99)
    '''))


def test_give_in_labelled_branch_not_taken_is_covered_too():
    violation(MAKE + textwrap.dedent('''\
        task f(s)
            when s
                give 1
            otherwise
                let z be 0
            print("after branch")
        f(len(secret) == 99)
    '''))


def test_result_of_task_with_give_in_labelled_branch_is_labelled():
    shown(MAKE + textwrap.dedent('''\
        task f(s)
            when s
                give 1
            give 2
        let r be f(len(secret) == 99)
        print(labels_of(r))
        print("after the task")
    '''), '["c"]\nafter the task\n')


def test_give_in_labelled_loop_keeps_pc_until_return():
    violation(MAKE + textwrap.dedent('''\
        task f(xs)
            for each x in xs
                give x
            print("empty")
        f(private([], "c"))
    '''))


@pytest.mark.parametrize("word", ["break", "continue"])
def test_break_continue_keep_pc_for_rest_of_loop(word):
    violation(MAKE + textwrap.dedent(f'''\
        let s be private(2, "c")
        for each i in range(4)
            when i == s
                {word}
            print(i)
    '''))
    violation(MAKE + textwrap.dedent(f'''\
        let s be private(2, "c")
        let i be 0
        while i < 4
            let j be i
            set i to i + 1
            when j == s
                {word}
            print(j)
    '''))


def test_break_pc_holds_until_loop_ends_then_printing_is_allowed():
    # SPEC 10: a break aimed at the loop keeps the pc raised "until that loop ends".
    ok(MAKE + textwrap.dedent('''\
        let s be private(2, "c")
        for each i in range(4)
            when i == s
                break
        print("loop over")
    '''), "loop over\n")


def test_break_of_inner_loop_is_released_when_the_inner_loop_ends():
    # The break is aimed at the inner loop: its pc lasts until the inner loop ends, so the
    # outer loop's body after it may print again (SPEC 10: "until that loop ends").
    violation(MAKE + textwrap.dedent('''\
        let s be private(1, "c")
        for each i in range(2)
            for each j in range(3)
                when j == s
                    break
                print(j)
    '''))
    ok(MAKE + textwrap.dedent('''\
        let s be private(1, "c")
        for each i in range(2)
            for each j in range(3)
                when j == s
                    break
            print(i)
    '''), "0\n1\n")


def test_break_inside_try_inside_loop():
    violation(MAKE + textwrap.dedent('''\
        let s be private(1, "c")
        for each i in range(3)
            try
                when i == s
                    break
            recover e
                let w be 0
            print(i)
    '''))


def test_give_in_try_keeps_pc_until_return():
    violation(MAKE + textwrap.dedent('''\
        task f(s)
            try
                let q be 1 / s
                give 1
            recover e
                let w be 0
            print("after try")
            give 2
        f(private(0, "c"))
    '''))
    shown(MAKE + textwrap.dedent('''\
        task f(s)
            try
                let q be 1 / s
                give 1
            recover e
                let w be 0
            give 2
        print(labels_of(f(private(0, "c"))))
    '''), '["c"]\n')


def test_sticky_pc_through_nested_tasks_in_try():
    violation(MAKE + textwrap.dedent('''\
        task inner(n)
            give 10 / n
        task outer(n)
            give inner(n) + 1
        try
            outer(private(5, "c"))
            print("no error")
        recover e
            let w be 0
    '''))


def test_labelled_for_each_in_try_taints_through_recover():
    violation(MAKE + textwrap.dedent('''\
        try
            for each x in private([1, 2], "c")
                let y be x
            fail("plain")
        recover e
            print("recovered")
    '''))


def test_pc_stack_stays_bounded_in_a_long_loop():
    """A loop whose body has a try with `continue` must not pile up pc entries."""
    sizes = []
    holder = []
    src = textwrap.dedent('''\
        for each i in range(300)
            try
                when i == 3
                    continue
                print(i)
            recover e
                let q be 0
    ''')
    vm = VM(compile_source(src, "app.syn"),
            Options(labels=True, out=lambda text: sizes.append(len(holder[0].pc_stack))))
    holder.append(vm)
    vm.run_main()
    assert len(sizes) == 299
    assert max(sizes) <= 20, max(sizes)


# ---- no sensitive upgrade ------------------------------------------------------------------

def test_set_of_outer_variable_under_labelled_branch():
    r = violation(MAKE + 'let x be 0\nwhen len(secret) > 3\n    set x to 1\n')
    assert "no sensitive upgrade" in r.err


def test_set_of_outer_variable_in_not_taken_branch_is_not_needed_to_detect():
    # The check fires when the branch is taken; when not taken, x stays public and prints.
    ok(MAKE + 'let x be 0\nwhen len(secret) > 30\n    set x to 1\nprint(x)\n', "0\n")


@pytest.mark.parametrize("stmt", ["set x to 1", "set xs[0] to 5", "set m[\"a\"] to 5",
                                  "set m.a to 5", "set xs to append(xs, 1)",
                                  "set xs to xs + [1]"])
def test_no_sensitive_upgrade_every_set_form(stmt):
    violation(MAKE + textwrap.dedent('''\
        let x be 0
        let xs be [1, 2]
        let m be {"a": 1}
        when len(secret) > 3
        ''') + "    " + stmt + "\n")


def test_no_sensitive_upgrade_in_task_and_loops():
    violation(MAKE + textwrap.dedent('''\
        task f(s)
            let n be 0
            when s
                set n to 1
            give n
        f(len(secret) > 3)
    '''))
    violation(MAKE + 'let n be 0\nfor each ch in secret\n    set n to n + 1\n')
    violation(MAKE + 'let n be 0\nwhile n < len(secret)\n    set n to n + 1\n')


def test_variable_declared_inside_branch_may_be_set():
    ok(MAKE + 'when len(secret) > 3\n    let y be 1\n    set y to 2\nprint("ok")\n', "ok\n")


def test_variable_already_labelled_may_be_set():
    shown(MAKE + 'let x be private(0, "c")\nwhen len(secret) > 3\n    set x to 1\n'
       'print(labels_of(x))\n', '["c"]\n')


def test_labelled_with_a_different_label_is_still_an_upgrade():
    violation(MAKE + 'let x be private(0, "d")\nwhen len(secret) > 3\n    set x to 1\n')


# ---- tool results and model answers ---------------------------------------------------------

def test_call_tool_with_labelled_args_gives_labelled_result():
    shown(MAKE + textwrap.dedent('''\
        task shout(t)
            give upper(t)
        let r be call_tool(shout, {"t": secret})
        print(labels_of(r))
        let r2 be call_tool(shout, private({"t": "x"}, "c"))
        print(labels_of(r2))
    '''), '["c"]\n["c"]\n')
    violation(MAKE + textwrap.dedent('''\
        task shout(t)
            give upper(t)
        print(call_tool(shout, {"t": secret}))
    '''))


def test_tool_receiving_labelled_args_cannot_print_them():
    violation(MAKE + textwrap.dedent('''\
        task leak(t)
            require stdout
            print(t)
        call_tool(leak, {"t": secret})
    '''))


def test_offline_llm_step_answer_carries_prompt_labels():
    ok('require llm("c")\n' + MAKE + textwrap.dedent('''\
        let a be llm_step(secret, [], "")
        print(labels_of(a))
        print(labels_of(a["kind"]))
        print(labels_of(a["text"]))
        print(labels_of(a.name))
        print(labels_of(a.args))
        print(labels_of(a["tokens"]))
    '''), '["c"]\n' * 6, cap=SHOW_LLM)


def test_llm_answer_labelled_by_context_and_catalog_too():
    ok('require llm("c")\n' + MAKE + textwrap.dedent('''\
        let a be llm_step("hi", [], secret)
        print(labels_of(a))
        let b be llm_step("hi", private([], "c"), "")
        print(labels_of(b))
    '''), '["c"]\n["c"]\n', cap=SHOW_LLM)


def test_model_choice_cannot_steer_a_print():
    violation('require llm("c")\n' + MAKE + textwrap.dedent('''\
        let a be llm_step(secret, [], "")
        when a["kind"] == "final"
            print("final")
    '''))


def test_text_ops_answers_are_labelled():
    ok('require llm("c")\n' + MAKE + textwrap.dedent('''\
        print(labels_of(ask(secret)))
        print(labels_of(summarize(secret)))
        print(labels_of(classify(secret, ["a", "b"])))
        print(labels_of(extract(secret, "x")))
    '''), '["c"]\n' * 4, cap=SHOW_LLM)


def test_llm_with_labelled_data_needs_require_llm_label_offline():
    r = violation('require llm\n' + MAKE + 'let a be llm_step(secret, [], "")\n')
    assert 'require llm("c")' in r.err
    violation('require llm("d")\n' + MAKE + 'let a be ask(secret)\n')
    # pc counts as data sent to the model
    violation('require llm\n' + MAKE + 'when len(secret) > 3\n    let a be ask("hi")\n')


def test_llm_label_require_reduced_in_tool():
    violation('require llm("c")\n' + MAKE + textwrap.dedent('''\
        task t(x)
            require llm
            give ask(x)
        call_tool(t, {"x": secret})
    '''))
    ok('require llm("c")\n' + MAKE + textwrap.dedent('''\
        task t(x)
            require llm("c")
            give ask(x)
        print(labels_of(call_tool(t, {"x": secret})))
    '''), '["c"]\n', cap=SHOW_LLM)


def test_llm_labelled_data_needs_provider_host_in_ceiling(syn, write):
    """Online half of SPEC 10: with a provider configured, llm=L@HOST must match its host.
    The check comes before any request (the provider URL is a closed local port)."""
    p = write("app.syn", 'require llm("c")\n' + MAKE +
              'let a be llm_step(secret, [], "")\nprint("sent")\n')
    env = {"SYN_LLM_URL": "http://127.0.0.1:9"}
    r = syn("run", "--labels", "--cap-set", "stdout,llm=c@api.other.com", p, env=env)
    assert r.returncode == 3 and "label_violation" in r.stderr
    assert "llm=c@127.0.0.1" in r.stderr and SECRET not in r.stderr + r.stdout
    # The ceiling names the host: the gate passes and the model is asked.
    from llm_server import LLMServer, openai_text
    with LLMServer() as server:
        server.reply(openai_text("an answer"))
        r = syn("run", "--labels", "--cap-set", "stdout,llm=c@127.0.0.1", p,
                env={"SYN_LLM_URL": server.url, "SYN_LLM_KEY": "k"})
        assert r.returncode == 0 and r.stdout == "sent\n", r.stderr
        assert len(server.requests) == 1


# ---- declassify ----------------------------------------------------------------------------

def test_declassify_needs_ceiling_for_every_label(tmp_path):
    src = MAKE + 'let v be private(secret, "d")\nprint(declassify(v, "ok to show"))\n'
    r = violation(src, cap="stdout,declassify=c")
    assert "declassify=d" in r.err
    ok(src, SECRET + "\n", cap="stdout,declassify=c,declassify=d")
    ok(src, SECRET + "\n")                               # developer mode: any label
    violation(MAKE + 'print(declassify(secret, "ok"))\n', cap="stdout")


def test_declassify_needs_ceiling_for_the_pc_label():
    src = MAKE + textwrap.dedent('''\
        let p be private(true, "d")
        when p
            let v be declassify(secret, "shown")
    ''')
    violation(src, cap="stdout,declassify=c")


def test_declassify_result_under_raised_pc_still_carries_pc():
    violation(MAKE + textwrap.dedent('''\
        let p be private(true, "d")
        when p
            print(declassify(secret, "reason"))
    '''), cap="stdout,declassify=c,declassify=d")
    ok(MAKE + textwrap.dedent('''\
        let p be private(true, "d")
        when p
            let v be declassify(secret, "reason")
            let w be labels_of(v)
        print("done")
    '''), "done\n", cap="stdout,declassify=c,declassify=d")


def test_declassify_reason_must_be_non_empty_text():
    for reason in ('""', "1", "nothing"):
        r = run(MAKE + f"let v be declassify(secret, {reason})\n")
        assert r.code == 1 and "declassify" in r.err and "reason" in r.err, r
    # the reason is checked without --labels too
    r = run(MAKE + 'let v be declassify(secret, "")\n', labels=False)
    assert r.code == 1 and "reason" in r.err


def test_declassify_audit_lines(syn, write, tmp_path):
    audit = tmp_path / "audit.jsonl"
    p = write("app.syn", MAKE + textwrap.dedent('''\
        let v be private(secret, "d")
        print(declassify(v, "the user asked to see it"))
        print(declassify(private(1, "c"), "count is public"))
    '''))
    r = syn("run", "--labels", "--cap-set", "stdout,declassify=c,declassify=d",
            "--audit", audit, p)
    assert r.returncode == 0, r.stderr
    assert r.stdout == SECRET + "\n1\n"
    text = audit.read_text()
    assert SECRET not in text
    events = [json.loads(l) for l in text.splitlines()]
    dec = [e for e in events if e["event"] == "declassify"]
    assert len(dec) == 2
    assert dec[0]["labels"] == ["c", "d"] and dec[0]["reason"] == "the user asked to see it"
    assert dec[0]["at"] == "app.syn:3"
    assert dec[1]["labels"] == ["c"] and dec[1]["at"] == "app.syn:4"


def test_violation_is_audited_without_data(syn, write, tmp_path):
    audit = tmp_path / "audit.jsonl"
    p = write("app.syn", MAKE + "print(secret)\n")
    r = syn("run", "--labels", "--audit", audit, p)
    assert r.returncode == 3
    text = audit.read_text()
    assert SECRET not in text
    ev = [json.loads(l) for l in text.splitlines()]
    assert ev and ev[-1]["event"] == "label_violation" and ev[-1]["at"] == "app.syn:2"


def test_labelled_reason_does_not_reach_the_audit(tmp_path):
    from synsema.vm.audit import Audit
    path = tmp_path / "a.jsonl"
    a = Audit(str(path))
    r = run(MAKE + 'let v be declassify(private(1, "d"), secret)\n', audit=a,
            cap="stdout,declassify=d")
    a.close()
    assert SECRET not in path.read_text()
    assert r.code == 3


# ---- labels_of -----------------------------------------------------------------------------

def test_labels_of_carries_what_it_reports():
    violation(MAKE + 'print(labels_of(secret))\n')
    violation(MAKE + 'let v be declassify(labels_of(secret), "r")\nprint(labels_of(secret))\n',
              cap="stdout,declassify=c")
    ok(MAKE + 'print(declassify(labels_of(secret), "which labels"))\n', '["c"]\n',
       cap="stdout,declassify=c")
    shown(MAKE + 'print(labels_of(secret))\nprint(labels_of(labels_of(secret)))\n',
          '["c"]\n["c"]\n')
    ok('print(labels_of(labels_of("public")))\n', '[]\n')
    violation(MAKE + 'let v be private(1, "d")\nwhen len(secret) > 3\n    print(labels_of(v))\n')
    shown(MAKE + 'print(labels_of(private(secret, "a")))\n', '["a", "c"]\n')


def test_label_names_cannot_carry_data():
    r = run(MAKE + 'let v be private(1, secret)\nprint(labels_of(v))\n')
    assert SECRET not in r.out and SECRET not in r.err, r


# ---- network sinks ---------------------------------------------------------------------------

def test_http_get_of_labelled_url_is_a_violation_before_network():
    # 10.255.255.1 is unroutable: if the check did not come first this would hang, not fail.
    t0 = time.monotonic()
    r = violation('require net("10.255.255.1")\n' + MAKE +
                  'let u be "http://10.255.255.1/?q=" + secret\nlet r be http_get(u)\n')
    assert "http_get would reveal data labelled c" in r.err
    violation('require net("10.255.255.1")\n' + MAKE +
              'let r be http_post("http://10.255.255.1/", secret)\n')
    violation('require net("10.255.255.1")\n' + MAKE +
              'when len(secret) > 3\n    let r be http_get("http://10.255.255.1/")\n')
    assert time.monotonic() - t0 < 5


def test_http_errors_do_not_reveal_a_labelled_url():
    violation(MAKE + 'let u be secret\ntry\n    http_get(u)\nrecover e\n    print(e)\n')
    violation(MAKE + 'let u be "https://" + secret + ".com/"\ntry\n    http_get(u)\n'
              'recover e\n    print(e)\n')


# ---- violations cannot be caught; syn test ----------------------------------------------------

def test_label_violation_cannot_be_caught():
    r = violation(MAKE + 'try\n    print(secret)\nrecover e\n    let w be 0\nprint("after")\n')
    assert r.out == ""
    r = violation(MAKE + textwrap.dedent('''\
        task f()
            print(secret)
        try
            assert_error(() => f())
        recover e
            let w be 0
        print("after")
    '''))
    assert r.out == ""


def test_violation_in_syn_test_fails_that_test_and_next_runs(syn, write):
    p = write("t.syn", MAKE + textwrap.dedent('''\
        test "leaks"
            print(secret)
        test "fine"
            assert_eq(1 + 1, 2)
        test "leaks through a branch"
            when len(secret) > 3
                print("long")
        test "fine again"
            assert(true)
    '''))
    r = syn("test", "--labels", p)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert "FAIL  leaks" in lines and "ok    fine" in lines and "ok    fine again" in lines
    assert any(l.startswith("FAIL  leaks through a branch") for l in lines)
    assert "label_violation" in r.stdout or "would reveal" in r.stdout
    assert lines[-1] == "2 passed, 2 failed"
    assert SECRET not in r.stdout + r.stderr


def test_failing_assert_on_labelled_value_in_syn_test_is_withheld(syn, write):
    p = write("t.syn", MAKE + 'test "eq"\n    assert_eq(secret, "x")\n')
    r = syn("test", "--labels", p)
    assert r.returncode == 1 and "message withheld" in r.stdout
    assert SECRET not in r.stdout + r.stderr


# ---- without --labels ------------------------------------------------------------------------

def test_without_labels_nothing_is_tracked():
    ok(MAKE + 'print(secret)\nprint(labels_of(secret))\nlet x be 0\n'
       'when len(secret) > 3\n    set x to 1\nprint(declassify(secret, "r"))\n',
       SECRET + "\n[]\n" + SECRET + "\n", labels=False, cap="stdout")
    r = run(MAKE + 'let v be private(1, "c")\nprint(v + 1)\n', labels=False)
    assert r.out == "2\n" and type(r.vm.globals[1]) is int


# ---- both paths agree: syn run vs syn compile + syn exec -------------------------------------

AGREE = {
    "explicit": MAKE + "print(secret)\n",
    "implicit": MAKE + 'when len(secret) > 3\n    print("long")\n',
    "sticky_try": MAKE + 'let z be private(1, "c")\ntry\n    let q be 1 / z\n'
                  '    print("nz")\nrecover e\n    let w be 0\n',
    "permitted": MAKE + 'when len(secret) > 3\n    let y be 1\nprint("after")\n',
}


@pytest.mark.parametrize("name", sorted(AGREE))
def test_run_and_exec_agree(syn, write, tmp_path, name):
    p = write(f"{name}.syn", AGREE[name])
    a = syn("run", "--labels", p)
    c = syn("compile", p, "-o", tmp_path / f"{name}.synb")
    assert c.returncode == 0, c.stderr
    b = syn("exec", "--labels", tmp_path / f"{name}.synb")
    assert (a.returncode, a.stdout) == (b.returncode, b.stdout)
    assert a.stderr.splitlines()[:1] == b.stderr.splitlines()[:1]
    assert SECRET not in a.stderr + b.stderr
    if name == "permitted":
        assert a.returncode == 0 and a.stdout == 'after\n'
    else:
        assert a.returncode == 3 and "label_violation" in a.stderr


# ---- release points come from the code, not from the file -----------------------------------

def test_break_in_a_labelled_branch_of_a_loop_that_can_give_stays_raised():
    """After the loop, `print` runs only if the loop did not `give`, and that depends on
    the labelled branch: the pc stays raised until the task returns (stricter than the
    end-of-loop rule, which would let this print reveal the secret)."""
    r = run('''\
        task probe(secret)
            while true
                when secret
                    break
                give "gave"
            print("secret was true")
            give "broke"
        print(probe(private(true, "c")))
    ''')
    assert r.code == 3 and "label_violation" in r.err and "secret was true" not in r.out


def test_break_in_a_labelled_branch_releases_at_the_loop_end_otherwise():
    loop = '''\
        let secret be private(SECRET, "c")
        let n be 0
        while n < 3
            set n to n + 1
            when secret
                break
        print("after the loop")
    '''
    # Breaking at once: the loop ends, its pc is released, printing is fine.
    r = run(loop.replace("SECRET", "true"))
    assert r.code == 0 and r.out == "after the loop\n"
    # Not breaking: the second `set n` runs under the pc the first `when` left raised
    # until the loop ends, and n is public: no sensitive upgrade stops it.
    r = run(loop.replace("SECRET", "false"))
    assert r.code == 3 and "set of 'n'" in r.err

    r = run('''\
        let secret be private(true, "c")
        for each i in [1, 2]
            when secret
                continue
        print("after the loop")
    ''')
    assert r.code == 0 and r.out == "after the loop\n"


def test_no_sensitive_upgrade_looks_at_a_containers_shape():
    # The element is labelled, the shape is not: replacing the list under a secret branch
    # would tell the branch through its length.
    violation(MAKE + 'let xs be [private(1, "c")]\nwhen len(secret) > 3\n    set xs to [5, 6]\n'
              'print(len(xs))\n')


@pytest.mark.parametrize("src", [
    # A nested container read at a secret index, key or under a secret branch: its shape
    # carries the outer shape's and the index's labels too.
    'let a be [private(0, "t")]\nlet b be [private(0, "t"), 0]\nlet outer be [a, b]\n'
    'print(len(outer[len(secret) % 2]))\n',
    'let m be {"xs": [private(0, "t")], "ys": [private(0, "t"), 0]}\n'
    'let k be private("xs", "c")\nprint(len(get(m, k)))\n',
    'let outer be [[private(0, "t")]]\nset outer[len(secret) % 1] to outer[0]\n'
    'when len(secret) > 3\n    set outer[0] to [private(0, "t"), 0, 0]\nprint(len(outer[0]))\n',
    'let m be {"xs": [private(0, "t")]}\nlet k be private("xs", "c")\n'
    'set m[k] to [private(0, "t"), 0]\nfor each x in [m.xs]\n    print(len(x))\n',
])
def test_nested_containers_take_the_outer_shape(src):
    violation(MAKE + src)


def test_put_with_an_integral_float_index_on_a_precise_list():
    ok(MAKE + 'let ys be put([private(1, "t"), 2], 1.0, 5)\nprint(ys[1])\n', "5\n")


# ---- slice, reverse, remove, values keep each element's label (SPEC 10) -------------------

@pytest.mark.parametrize("expr, shown", [
    ("slice(xs, 1)", "[2, 3]"),
    ("reverse(xs)[0]", "3"),
    ("remove(xs, 0)", "[2, 3]"),
    ("len(remove(xs, 0))", "2"),
    ("values(m)[1]", "2"),
    ('remove(m, "k")', '{"j": 2}'),
])
def test_rearranging_builtins_keep_public_elements_public(expr, shown):
    r = run(f"""
        let xs be [private(1, "a"), 2, 3]
        let m be {{"k": private(1, "a"), "j": 2}}
        print({expr})
        """, cap="stdout")
    assert (r.code, r.out) == (0, shown + "\n")


@pytest.mark.parametrize("expr, label", [
    ("slice(xs, 0, 1)", "a"),              # the labelled element is in it
    ("slice(xs, n)", "b"),                 # a secret bound decides which elements
    ("len(remove(xs, n - 1))", "b"),       # and a secret index which one goes
    ('remove(m, private("k", "b"))', "b"),
    ('slice(private("text", "b"), 1)', "b"),
])
def test_rearranging_builtins_carry_what_decides_their_shape(expr, label):
    r = run(f"""
        let xs be [private(1, "a"), 2, 3]
        let m be {{"k": 1, "j": 2}}
        let n be private(1, "b")
        print({expr})
        """, cap="stdout")
    assert r.code == 3 and f"labelled {label}" in r.err


def test_joining_lists_with_plus_keeps_each_elements_label():
    # SPEC 10: moving elements keeps their labels; `+` moves them without looking. A list
    # literal longer than one BUILD_LIST's bound is built in parts joined by `+`.
    ok(MAKE + 'let ys be [1, secret] + [3]\nprint(ys[0])\nprint(ys[2])\nprint(len(ys))\n',
       "1\n3\n3\n")
    violation(MAKE + 'let ys be [1] + [secret]\nprint(ys[1])\n')
    big = "[secret, " + ", ".join("2" for _ in range(10_001)) + ", 5]"
    ok(MAKE + f"let xs be {big}\nprint(len(xs))\nprint(xs[1])\nprint(xs[-1])\n",
       "10003\n2\n5\n")
    # The shape joins both shapes: where the right list's elements land depends on how
    # long the left one is.
    violation(MAKE + 'let xs be slice([1, 2, 3], len(secret) % 2)\nlet ys be xs + [7]\n'
                     'print(ys[-1])\nprint(len(ys))\n')
