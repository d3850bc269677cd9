"""Python habits get targeted hints (issue 15): each compile error names the Synsema form."""

import pytest

from synsema.compiler import compile_source
from synsema.vm.errors import CompileError


@pytest.mark.parametrize("src, hint", [
    ("if x > 1\n", "'if' is Python; Synsema writes `when CONDITION`"),
    ("let x be 1\nelif x\n", "otherwise when"),
    ("task f()\n    return 1\n", "'return' is Python; Synsema writes `give VALUE`"),
    ("def f()\n", "declares a task with `task NAME(PARAMS)`"),
    ("import json\n", "Synsema has no imports"),
    ("# a comment\n", "comments start with `--`"),
    ("let s be 'hi'\n", "texts are written in double quotes"),
    ("let x be True\n", "Synsema writes true"),
    ("let x be None\n", "Synsema writes nothing"),
    ("print(str(1))\n", "use text(x)"),
])
def test_python_habits_get_a_hint(src, hint):
    with pytest.raises(CompileError) as info:
        compile_source(src, "h.syn")
    assert hint in info.value.message


@pytest.mark.parametrize("src, hint", [
    ("let xs be [1]\nxs.append(2)\n", "a list has no methods (.append)"),
    ("let xs be [1]\nxs.append(2)\n", "write `set xs to append(xs, x)`"),
    ('let t be "a"\nprint(t.upper())\n', "write `upper(t)`"),
])
def test_a_method_call_says_which_builtin_to_call(src, hint):
    import io

    from synsema.vm.errors import SynError
    from synsema.vm.machine import VM, Options
    with pytest.raises(SynError) as info:
        VM(compile_source(src, "h.syn"), Options(out=io.StringIO().write)).run_main()
    assert hint in info.value.message
