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
    from synsema.runtime.machine import VM, Options
    with pytest.raises(SynError) as info:
        VM(compile_source(src, "h.syn"), Options(out=io.StringIO().write)).run_main()
    assert hint in info.value.message


def cerr(src):
    with pytest.raises(CompileError) as info:
        compile_source(src, "h.syn")
    return info.value


# A Python text prefix, written against the text (no space): the caret is on the prefix.
@pytest.mark.parametrize("src, says", [
    ('let name be "Ana"\nprint(f"hello {name}")\n',
     'Synsema has no f-strings; build the text with + and text(x): "hello " + text(name)'),
    ('let a be 1\nlet b be {"c": 2}\nprint(F"a {a} and { b.c }!")\n',
     'Synsema has no f-strings; build the text with + and text(x): '
     '"a " + text(a) + " and " + text(b.c) + "!"'),
    ('let x be 1\nprint(f"{x:.2f}")\n',
     'Synsema has no f-strings; build the text with + and text(x): "hello " + text(name)'),
    ('print(f"hi")\n', "Synsema has no f-strings: remove the 'f'"),
    ('let p be r"a"\n', "Synsema texts take no prefix: remove the 'r' before the '\"' "
                         "(a backslash in a text is written \\\\)"),
    ('print(rb"x")\n', "Synsema texts take no prefix: remove the 'rb'"),
    ('print(b"x")\n', "Synsema texts take no prefix: remove the 'b' before the '\"'"),
    ('f"x {y}"\n', 'Synsema has no f-strings; build the text with + and text(x): '
                   '"x " + text(y)'),
])
def test_a_prefixed_text_says_synsema_has_none(src, says):
    e = cerr(src)
    assert e.message.startswith(says), e.message
    line = src.splitlines()[e.line - 1]
    assert line[e.col - 1:].lstrip("fFrRbB").startswith('"'), (e.line, e.col)
    assert line[e.col - 1] in "fFrRbB"


def test_a_raw_text_with_a_backslash_says_to_double_it():
    # the lexer meets the escape before the parser meets the prefix
    e = cerr('let p be r"a\\d+"\n')
    assert e.message.startswith("unknown escape '\\d' in text; Synsema texts take no 'r' "
                                "prefix: remove it and write each backslash as \\\\"), e.message
    assert "no 'r' prefix" not in cerr('let p be "a\\d+"\n').message
    assert "prefix" not in cerr('let p be xr"a\\d+"\n').message


def test_a_name_then_a_spaced_text_is_not_taken_for_a_prefix():
    e = cerr('print(f "x")\n')
    assert "f-string" not in e.message and "prefix" not in e.message


# `print x`: a builtin or a task of the file called without parentheses.
@pytest.mark.parametrize("src, col, says", [
    ("let x be 1\nprint x\n", 7,
     "unexpected name 'x' after the builtin 'print'; call it with parentheses: print(x)"),
    ('print "hi"\n', 7,
     "unexpected text after the builtin 'print'; call it with parentheses: print(\"hi\")"),
    ("task go(a)\n    give a\ngo 1\n", 4,
     "unexpected number 1 after the task 'go'; call it with parentheses: go(1)"),
    ("go true\ntask go(a)\n    give a\n", 4, "after the task 'go'; call it with parentheses: "
                                               "go(true)"),
    ("let x be 1\nassert x == 1\n", 8,
     "unexpected name 'x' after the builtin 'assert'; call it with parentheses: assert(...)"),
    ("let xs be [1]\nwhen len xs > 0\n    print(1)\n", 10,
     "after the builtin 'len'; call it with parentheses: len(...)"),
    ("let x be 1\nprint(text x)\n", 12, "after the builtin 'text'; call it with parentheses: "
                                        "text(x)"),
    ("let x be 1\nprint not x\n", 7, "unexpected 'not' after the builtin 'print'"),
])
def test_a_call_without_parentheses_says_to_add_them(src, col, says):
    e = cerr(src)
    assert says in e.message, e.message
    assert e.col == col


@pytest.mark.parametrize("src", [
    "let y be 1\nfoo y\n",                        # not a builtin nor a task: no guess
    'let m be {"print": 1}\nm.print 1\n',         # a field named like a builtin
])
def test_only_a_builtin_or_task_is_taken_for_a_call_without_parentheses(src):
    assert "parentheses" not in cerr(src).message


@pytest.mark.parametrize("src, col, says", [
    ("let f be lambda x: x + 1\n", 10,
     "'lambda' is Python; Synsema writes a lambda as `(x) => EXPR`, like `(x) => x + 1`"),
    ("let f be lambda a, b: a + b\n", 10, "as `(a, b) => EXPR`"),
    ("let f be lambda: 1\n", 10, "as `() => EXPR`"),
    ("print(lambda x: x)\n", 7, "'lambda' is Python"),
    ("lambda x: x\n", 1, "'lambda' is Python"),
    ("print(lambda)\n", 7, "'lambda' is not declared; Synsema writes a lambda as "
                           "`(x) => x + 1`"),
])
def test_python_lambda_says_how_synsema_writes_one(src, col, says):
    e = cerr(src)
    assert says in e.message, e.message
    assert e.col == col


# SPEC 5's types are number, text, bool, list, map, task, any: other languages' names get
# the Synsema one, before any edit-distance guess (`int` is one edit from `list`).
@pytest.mark.parametrize("typ, fix", [
    ("int", "use number"), ("float", "use number"), ("complex", "use number"),
    ("Int", "use number"), ("str", "use text"), ("string", "use text"),
    ("dict", "use map"), ("tuple", "use list"), ("set", "use list"),
    ("boolean", "use bool"), ("Any", "write it in lower case: any"),
    ("None", "use any (which also accepts nothing), or leave the parameter untyped"),
    ("NoneType", "use any"), ("nothing", "use any"),
    ("numbr", "did you mean 'number'?"),
])
def test_python_type_names_get_the_synsema_type(typ, fix):
    e = cerr(f"task f(a: {typ})\n    give a\n")
    assert e.message.startswith(f"unknown type '{typ}'; "), e.message
    assert fix in e.message and "did you mean 'list'" not in e.message, e.message
    assert e.message.endswith("(the types are number, text, bool, list, map, task, any)")
    assert (e.line, e.col) == (1, 11)
