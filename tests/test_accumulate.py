"""`set s to s + E` compiles to E then ADD_TO_LOCAL s (compiler/codegen.py _adds_to):
only where E cannot change s, with the errors, positions and label checks that the load,
ADD and store it replaces have."""

import pytest

from conftest import ops_of
from conftest import printed as run
from synsema.vm import opcodes as O
from synsema.vm.errors import LabelViolation, SynError


def test_a_sum_into_a_tasks_local_is_one_instruction():
    src = "task dot(a, b)\n    let s be 0\n    for each i in range(len(a))\n" \
          "        set s to s + a[i] * b[i]\n    give s\nprint(dot([1, 2, 3], [4, 5, 6]))\n"
    assert O.ADD_TO_LOCAL in ops_of(src, "dot")
    assert run(src) == run(src, labels=True) == "32\n"


@pytest.mark.parametrize("value", ["n", "1", "\"x\"", "true"])
def test_a_name_or_constant_keeps_its_superinstructions(value):
    assert O.ADD_TO_LOCAL not in ops_of(f"task f(n)\n    let s be n\n    set s to s + {value}\n"
                                        f"    give s\nprint(f(1))\n", "f")


def test_text_and_lists_keep_their_order():
    src = "task f(xs)\n    let s be \"a\"\n    set s to s + text(len(xs))\n" \
          "    let ys be [1]\n    set ys to ys + [len(xs)]\n    give s + text(ys)\n" \
          "print(f([7, 8]))\n"
    assert O.ADD_TO_LOCAL in ops_of(src, "f")
    assert run(src) == "a2[1, 2]\n"


def test_at_the_top_level_too():
    src = "let s be 1\nfor each x in [1, 2]\n    set s to s + len([x, x])\nprint(s)\n"
    assert O.ADD_TO_LOCAL in ops_of(src, "<top level>")
    assert run(src) == "5\n"


def test_its_error_is_the_additions_at_the_additions_place():
    # The same message and line:column as `s + [n]` computed by ADD, in both loops.
    src = "task f(n)\n    let s be n\n    set s to s + [n]\n    give s\nprint(f(1))\n"
    assert O.ADD_TO_LOCAL in ops_of(src, "f")
    for labels in (False, True):
        with pytest.raises(SynError) as plain:
            run(src.replace("set s to s", "let t be s"), labels)
        with pytest.raises(SynError) as fused:
            run(src, labels)
        assert "cannot add" in fused.value.message
        assert fused.value.message == plain.value.message
        assert fused.value.trace[0][1:] == plain.value.trace[0][1:]


def test_under_a_labelled_branch_it_is_a_checked_set():
    src = "task f(x)\n    let s be 0\n    when private(x, \"p\") > 0\n" \
          "        set s to s + len([x])\n    give s\nprint(declassify(f(1), \"ok\"))\n"
    assert O.ADD_TO_LOCAL in ops_of(src, "f")
    with pytest.raises(LabelViolation) as e:
        run(src, labels=True)
    # On the `set`'s line (the CLI shows the line; the column is the `+`'s, where the
    # one instruction is: an addition's error carets its operator).
    assert e.value.trace[0][1] == 4
    assert run(src) == "1\n"
