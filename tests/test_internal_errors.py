"""Only errors the language defines may be caught (SPEC 6): a Python exception escaping an
operation or a builtin is a bug in Synsema, an internal error (exit 70), never a `recover`."""

import io

import pytest

from synsema.compiler import compile_source
from synsema.stdlib.host import load_all
from synsema.runtime.machine import VM, InternalError, Options

SRC = 'try\n    print(upper("x"))\nrecover e\n    print("caught: " + e)\n'


@pytest.mark.parametrize("bug", [OverflowError("x"), ZeroDivisionError("y"), KeyError("z")])
@pytest.mark.parametrize("labels", [False, True])
def test_a_python_exception_in_a_builtin_is_internal_and_uncatchable(monkeypatch, bug, labels):
    def broken(_):
        raise bug
    monkeypatch.setattr(load_all()["upper"], "fn", broken)
    out = io.StringIO()
    vm = VM(compile_source(SRC, "app.syn"), Options(labels=labels, out=out.write))
    with pytest.raises(InternalError) as info:
        vm.run_main()
    assert info.value.exit_code == 70 and out.getvalue() == ""


@pytest.mark.parametrize("expr", ["big + 0.5", "big * 1.5", "big / 3", "big % 0.5", "0.5 - big"])
def test_arithmetic_too_large_for_a_float_is_the_languages_own_error(expr):
    src = (f"let big be 1\nfor each i in range(400)\n    set big to big * 10\n"
           f"try\n    print({expr})\nrecover e\n    print(e)\n")
    out = io.StringIO()
    VM(compile_source(src, "app.syn"), Options(out=out.write)).run_main()
    assert out.getvalue() == "number too large: the result does not fit in a number\n"
