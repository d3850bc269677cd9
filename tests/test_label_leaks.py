"""Leak classes an outside review found in the labels (SPEC section 10), one test group a
class. Each attempt must end in a label_violation (exit 3) or give the same public output
whatever the secret; each legitimate program must give its permitted result."""

import io
import textwrap

import pytest

from synsema.compiler import compile_source
from synsema.vm.caps import Ceiling, CeilingError
from synsema.vm.errors import LabelViolation, LimitExceeded, SynError
from synsema.runtime.machine import VM, Options


def run(src, cap="stdout", labels=True, trace=False):
    """(exit code, stdout, error message) of `src` run in-process as `syn run` would."""
    prog = compile_source(textwrap.dedent(src), "app.syn")
    buf = io.StringIO()
    vm = VM(prog, Options(labels=labels, ceiling=Ceiling.parse(cap), out=buf.write,
                          trace=trace))
    try:
        vm.run_main()
        return 0, buf.getvalue(), ""
    except LabelViolation as e:
        return 3, buf.getvalue(), e.message
    except LimitExceeded as e:
        return 4, buf.getvalue(), e.message
    except SynError as e:
        return e.exit_code, buf.getvalue(), e.message


def same_for_every_secret(template, secrets, cap="stdout"):
    """Run `template` with each secret; the runs that finish must print the same."""
    outs = set()
    for s in secrets:
        code, out, _ = run(template.replace("SECRET", s), cap)
        if code == 0:
            outs.add(out)
    assert len(outs) <= 1, f"public output depends on the secret: {outs}"
    return outs


# ---- labels raised inside a try reach every enclosing try ------------------------------

def test_a_label_raised_in_a_callee_try_reaches_the_callers_try():
    # probe's own try learns the secret; so must the caller's: the statements after
    # probe(g) in the caller's try run only when probe did not raise.
    src = """
        let secret be private(2, "pin")
        task probe(g)
            try
                let d be 10 / (g - secret)
            recover e
                fail("inner")
            give true
        let found be -1
        try
            probe(0)
            set found to 0
        recover e
            print("caught")
        print("done")
    """
    code, out, msg = run(src)
    assert code == 3 and "pin" in msg


def test_nested_try_in_one_task_taints_the_outer_try():
    src = """
        let secret be private(SECRET, "pin")
        let hits be 0
        try
            try
                let d be 10 / (1 - secret)
            recover e
                print("inner caught")
            set hits to 1
        recover e
            print("outer")
        print(hits)
    """
    # `set hits` sits in the outer try after a try that learnt the secret.
    for s in ("1", "2"):
        assert run(src.replace("SECRET", s))[0] == 3


def test_outer_try_guessing_loop_cannot_find_the_secret():
    src = """
        let secret be private(SECRET, "pin")
        task check(g)
            try
                when g == secret
                    fail("hit")
            recover e
                fail(e)
            give 0
        let found be 0
        for each g in range(10)
            try
                check(g)
            recover e
                set found to g
        print(found)
    """
    same_for_every_secret(src, ["3", "7"])


# ---- and/or right operands -------------------------------------------------------------

def test_right_operand_that_is_not_bool_errors_under_its_label():
    src = """
        let x be private(5, "k")
        try
            let y be true and x
        recover e
            print(e)
    """
    code, _, msg = run(src)
    assert code == 3 and "k" in msg


def test_right_operand_inside_try_taints_it():
    src = """
        let x be private(SECRET, "k")
        let after be 0
        try
            let y be true or x
            let z be false or x
            set after to 1
        recover e
            print("no")
        print(after)
    """
    assert run(src.replace("SECRET", "true"))[0] == 3
    assert run(src.replace("SECRET", "3"))[0] == 3


def test_uncaught_non_bool_right_operand_is_withheld():
    code, _, msg = run('let y be false or private("the secret", "k")\nprint(1)\n')
    assert code == 1 and "the secret" not in msg


# ---- labels_of carries what it reports -------------------------------------------------

def test_labels_of_answer_is_labelled_by_its_labels():
    src = """
        let x be private(SECRET, "k")
        let y be x and private(true, "j")
        print(labels_of(y))
    """
    assert run(src.replace("SECRET", "true"))[0] == 3
    assert run(src.replace("SECRET", "false"))[0] == 3
    code, out, _ = run(src.replace("SECRET", "true"), cap="stdout,stdout=k,stdout=j")
    assert (code, out) == (0, '["j", "k"]\n')


def test_label_set_chosen_by_a_branch_cannot_be_printed():
    src = """
        let secret be private(SECRET, "s")
        let v be 1
        when secret > 5
            let inner be private(1, "b")
            print(labels_of(inner))
        print(labels_of(v))
    """
    same_for_every_secret(src, ["3", "9"])
    same_for_every_secret(src, ["3", "9"], cap="stdout,stdout=b")


def test_labels_of_a_public_value_prints_under_a_public_pc():
    assert run('print(labels_of("x"))\n') == (0, "[]\n", "")


# ---- stdout=L in the ceiling -----------------------------------------------------------

def test_stdout_label_lets_that_label_through_only():
    src = 'let a be private("A", "s")\nprint(a)\nprint(a + private("B", "t"))\n'
    code, out, msg = run(src, cap="stdout,stdout=s")
    assert out == "A\n" and code == 3 and "t" in msg and "s" not in msg.split("labelled")[1]


def test_stdout_label_covers_the_pc_too():
    src = """
        let a be private(SECRET, "s")
        when a > 1
            print("big")
    """
    assert run(src.replace("SECRET", "3"), cap="stdout,stdout=s") == (0, "big\n", "")
    assert run(src.replace("SECRET", "3"))[0] == 3


@pytest.mark.parametrize("item", ["stdout=", "stdout=a b", "stdout=x@y"])
def test_bad_stdout_items_are_refused(item):
    with pytest.raises(CeilingError, match="stdout=LABEL"):
        Ceiling.parse(item)


# ---- call / call_tool with a labelled argument map --------------------------------------

@pytest.mark.parametrize("fn", ["call", "call_tool"])
def test_defaults_run_under_the_maps_label(fn):
    # Which keys the map holds decides whether the default (and its print) runs.
    src = f"""
        task announce()
            require stdout
            print("default ran")
            give "d"
        task greet(name = announce())
            require stdout
            give name
        let empty be private({{}}, "s")
        {fn}(greet, empty)
    """
    code, out, msg = run(src)
    assert (code, out) == (3, "") and "s" in msg


def test_labelled_map_without_defaults_runs_normally():
    src = """
        task add(a, b)
            give a + b
        let r be call(add, private({"a": 1, "b": 2}, "s"))
        print("called")
    """
    assert run(src) == (0, "called\n", "")


# ---- errors made from Python exceptions carry their operands' labels --------------------

def test_overflow_from_a_labelled_number_is_labelled():
    src = """
        let big be 1
        for each i in range(400)
            set big to big * 10
        let s be private(big, "s")
        let x be s / 3
    """
    code, out, _ = run(src)
    assert code == 1
    # The CLI withholds the message of a labelled error; the error must carry the label.
    prog = compile_source(textwrap.dedent(src), "app.syn")
    with pytest.raises(SynError) as info:
        VM(prog, Options(labels=True, ceiling=Ceiling.parse("stdout"))).run_main()
    assert "s" in info.value.labels


# ---- --trace under a raised pc -----------------------------------------------------------

def test_trace_withholds_the_tool_chosen_under_a_labelled_branch(capsys):
    src = """
        task wire()
            give 1
        task post()
            give 2
        let secret be private(SECRET, "s")
        when secret > 5
            call_tool(wire, {})
        otherwise
            call_tool(post, {})
    """
    seen = []
    for secret in ("9", "1"):
        run(src.replace("SECRET", secret), trace=True)
        seen.append(capsys.readouterr().err)
    # not the tool, and not even that a call happened (a loop would count them)
    assert seen[0] == seen[1]
    assert "wire" not in seen[0] and "post" not in seen[0] and "call_tool" not in seen[0]


# ---- building is exempt: never raises the pc --------------------------------------------

def test_building_from_labelled_values_inside_try_keeps_the_pc():
    src = """
        let s be private("x", "s")
        try
            let m be {"a": s, "b": [s, 1]}
            let xs be [s, s]
            print("built")
        recover e
            print("no")
    """
    assert run(src) == (0, "built\n", "")


def test_a_labelled_map_key_inside_try_raises_the_pc():
    src = """
        let k be private(SECRET, "s")
        try
            let m be {k: 1}
            print("built")
        recover e
            print("no")
    """
    assert run(src.replace("SECRET", '"a"'))[0] == 3
