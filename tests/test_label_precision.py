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
