"""`xs[E]` of a local xs compiles to E then INDEX_LOCAL xs (compiler/codegen.py): one
instruction instead of a load before E and an INDEX after it, with INDEX's results,
errors, positions and labels."""

import io

import pytest

from conftest import ops_of
from conftest import printed as run
from synsema.compiler import compile_source
from synsema.vm import opcodes as O
from synsema.vm.errors import SynError
from synsema.runtime.machine import VM, Options


def error(src, labels=False):
    with pytest.raises(SynError) as e:
        run(src, labels)
    return e.value.message, [t[1:] for t in e.value.trace]


PROG = ('let xs be [10, 20, 30]\nlet m be {"a1": 1, "b2": 2}\nlet i be 1\n'
        'print(xs[i + 1])\nprint(xs[(i * 7) % len(xs)])\nprint(m["a" + text(i)])\n'
        'print(m["zz" + ""])\nprint(xs[-(i)])\n'
        'task f(ys, k)\n    let v be ys[k - 1]\n    give upper(ys[k % 2])\n'
        'print(f(["a", "b"], 1))\n')


def test_an_element_by_an_expression_is_one_instruction():
    assert O.INDEX_LOCAL in ops_of(PROG)
    assert O.INDEX_LOCAL in ops_of(PROG, "f")
    assert run(PROG) == run(PROG, labels=True) == "30\n20\n1\nnothing\n30\nB\n"


@pytest.mark.parametrize("key", ["i", "1", '"a"', "true", "nothing"])
def test_a_name_or_constant_key_keeps_its_superinstructions(key):
    assert O.INDEX_LOCAL not in ops_of(f"let xs be [1]\nlet i be 0\nprint(xs[{key}])\n")


def test_a_global_read_from_a_task_keeps_the_load():
    src = "let xs be [1, 2]\ntask f(i)\n    give xs[i + 1]\nprint(f(0))\n"
    assert O.INDEX_LOCAL not in ops_of(src, "f") and run(src) == "2\n"


@pytest.mark.parametrize("src, message, where", [
    ("let xs be [1, 2]\nlet i be 1\nprint(xs[i + 5])\n", "index 6 is out of range", (3, 9)),
    ("let xs be 7\nlet i be 1\nprint(xs[i + 0])\n", "cannot index", (3, 9)),
    ("let xs be [1]\nlet i be 1\nprint(xs[i / 0])\n", "division by zero", (3, 12)),
    ("let xs be [1]\nlet i be 1\nprint(xs[i + 0.5])\n", "", (3, 9)),
])
def test_errors_and_their_positions_are_the_index_s(src, message, where):
    for labels in (False, True):
        msg, trace = error(src, labels)
        assert message in msg
        assert trace[0][:2] == where


def test_labels_of_the_container_and_of_the_key_reach_the_element():
    src = ('let xs be [private(1, "a"), 2]\nlet k be private(1, "k")\n'
           'print(labels_of(xs[0 + 0]))\nprint(labels_of(xs[k + 0]))\n'
           'print(labels_of(xs[1 + 0]))\n')
    out = io.StringIO()
    from synsema.vm.caps import Ceiling
    VM(compile_source(src, "t.syn"), Options(labels=True, out=out.write,
                                             ceiling=Ceiling.parse("stdout,stdout=a,stdout=k"))
       ).run_main()
    assert out.getvalue() == '["a"]\n["k"]\n[]\n'
