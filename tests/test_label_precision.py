"""SPEC 10: the operations that never raise a catchable error (`==`, `!=`, `text`,
`type_of`, `labels_of`, `private`, `declassify`, building a list or map, passing an
argument) do not raise an enclosing `try`'s pc, so a public print after them inside the
try is allowed."""

import pytest

import synsema

NEVER_RAISING = ['type_of(s)', 's == 1', 's != 1', 'text(s)', 'labels_of(s)',
                 'private(s, "j")', 'declassify(s, "reason")', '[s, 1]', '{"a": s}',
                 'f(s)', 'type_of([s])', 'type_of(xs)', 'type_of({"a": s})']


@pytest.mark.parametrize("expr", NEVER_RAISING)
def test_an_operation_that_never_raises_does_not_taint_the_try(expr):
    src = (f'task f(x)\n    give 1\nlet s be private(1, "k")\nlet xs be private([1], "k")\n'
           f'try\n    let v be {expr}\n    print("ok")\nrecover e\n    print("no")\n')
    r = synsema.compile_source(src, "p.syn").run(labels=True, cap_set="stdout,declassify=k")
    assert r.output == "ok\n"


def test_an_operation_that_can_raise_still_taints_the_try():
    src = ('let s be private(1, "k")\ntry\n    let v be len(s)\n    print("ok")\n'
           'recover e\n    print("no")\n')
    with pytest.raises(synsema.LabelViolation):
        synsema.compile_source(src, "p.syn").run(labels=True, cap_set="stdout")


def test_sort_labels_each_element_with_all_and_keeps_the_lists_shape():
    src = ('let xs be [private(3, "k"), 1, 2]\nlet ys be sort(xs)\nprint(len(ys))\n'
           'print(labels_of(ys[1]))\nprint(labels_of(len(sort(private([2, 1], "j")))))\n')
    r = synsema.compile_source(src, "s.syn").run(labels=True,
                                                 cap_set="stdout,stdout=k,stdout=j")
    assert r.output == '3\n["k"]\n["j"]\n'
    # the length of a sorted list is the list's: public; any element tells of all
    prog = synsema.compile_source('let xs be [private(3, "k"), 1]\nprint(len(sort(xs)))\n'
                                  'print(sort(xs)[1])\n', "s.syn")
    with pytest.raises(synsema.LabelViolation) as e:
        prog.run(labels=True, cap_set="stdout")
    assert e.value.output == "2\n" and "s.syn:3" in e.value.message
    # whether sort raises depends on the elements: inside a try it raises the pc
    mixed = synsema.compile_source('let xs be [private(3, "k"), "a"]\ntry\n'
                                   '    let ys be sort(xs)\nrecover e\n    print("caught")\n'
                                   'print("after")\n', "m.syn")
    with pytest.raises(synsema.LabelViolation):
        mixed.run(labels=True, cap_set="stdout")
