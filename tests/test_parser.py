"""The grammar (compiler.grammar): tree shapes, precedence (SPEC 1), every statement form,
syntax errors with file:line:col and a helpful message, and the committed LALR tables."""

import os
from functools import partial
import subprocess
import sys

import pytest

from synsema.compiler import compile_source
from synsema.compiler.parser import parse
from synsema.compiler.lexer import tokenize
from synsema.vm.errors import CompileError
from harness import output

def tree(src):
    return parse(tokenize(src, "t.syn"), "t.syn")


def expr_of(src):
    """The expression of a one-line `let v be EXPR` program."""
    item = tree(f"let v be {src}\n").items[0]
    assert item.kind == "let"
    return item.value


def shape(e):
    """A compact s-expression of an expression tree."""
    k = e.kind
    if k in ("num", "text", "bool"):
        return e.value
    if k == "nothing":
        return None
    if k == "name":
        return e.name
    if k == "binop":
        return (e.op, shape(e.left), shape(e.right))
    if k in ("and", "or"):
        return (k, shape(e.left), shape(e.right))
    if k in ("not", "neg"):
        return (k, shape(e.operand))
    if k == "call":
        return ("call", shape(e.callee), [shape(a) for a in e.args])
    if k == "index":
        return ("index", shape(e.target), shape(e.key))
    if k == "field":
        return ("field", shape(e.target), e.name)
    if k == "list":
        return ["list"] + [shape(i) for i in e.items]
    if k == "map":
        return {"map": [(shape(a), shape(b)) for a, b in e.pairs]}
    if k == "lambda":
        return ("lambda", [p[0] for p in e.params], shape(e.body))
    raise AssertionError(k)


run = partial(output, dedent=False)      # what a program prints (tests/harness.py)


def syntax_error(src):
    with pytest.raises(CompileError) as info:
        compile_source(src, "t.syn")
    return info.value


# ---- precedence --------------------------------------------------------------------------

def test_not_binds_looser_than_comparison():
    assert shape(expr_of("not 1 == 2")) == ("not", ("EQ", 1, 2))
    assert run("print(not 1 == 2)\n") == "true\n"


def test_unary_minus_binds_tighter_than_multiplication():
    assert shape(expr_of("-2 * 3")) == ("TIMES", ("neg", 2), 3)
    assert shape(expr_of("-2 % 3")) == ("MOD", ("neg", 2), 3)
    assert run("print(-2 % 3)\n") == "1\n"       # (-2) % 3, not -(2 % 3)


def test_and_binds_tighter_than_or():
    assert shape(expr_of("a or b and c")) == ("or", "a", ("and", "b", "c"))
    assert run("print(true or false and false)\n") == "true\n"
    assert shape(expr_of("a and b or c")) == ("or", ("and", "a", "b"), "c")


def test_arithmetic_precedence_and_left_associativity():
    assert shape(expr_of("1 + 2 * 3")) == ("PLUS", 1, ("TIMES", 2, 3))
    assert shape(expr_of("1 - 2 - 3")) == ("MINUS", ("MINUS", 1, 2), 3)
    assert shape(expr_of("8 / 4 / 2")) == ("DIVIDE", ("DIVIDE", 8, 4), 2)
    assert shape(expr_of("(1 + 2) * 3")) == ("TIMES", ("PLUS", 1, 2), 3)
    assert run("print(1 - 2 - 3)\nprint(8 / 4 / 2)\n") == "-4\n1\n"


def test_comparison_binds_looser_than_arithmetic():
    assert shape(expr_of("1 + 2 < 3 * 4")) == ("LT", ("PLUS", 1, 2), ("TIMES", 3, 4))


def test_postfix_binds_tightest():
    assert shape(expr_of("-a.b[1](2)")) == \
        ("neg", ("call", ("index", ("field", "a", "b"), 1), [2]))
    assert shape(expr_of("not f(x)")) == ("not", ("call", "f", ["x"]))


def test_lambda_is_lowest():
    assert shape(expr_of("(x) => x + 1 == 2 or y")) == \
        ("lambda", ["x"], ("or", ("EQ", ("PLUS", "x", 1), 2), "y"))


# ---- comparisons do not chain --------------------------------------------------------------

@pytest.mark.parametrize("src", ["print(1 < 2 < 3)\n", "print(1 == 2 == 3)\n",
                                 "let b be 1 <= 2 > 0\n"])
def test_comparisons_do_not_chain(src):
    e = syntax_error(src)
    assert e.source_name == "t.syn" and e.line == 1
    assert "comparisons do not chain" in e.message and "and" in e.message


def test_parenthesised_comparison_is_not_a_chain():
    assert shape(expr_of("(1 < 2) == true")) == ("EQ", ("LT", 1, 2), True)


# ---- trailing commas -----------------------------------------------------------------------

def test_trailing_commas_everywhere():
    src = ("task f(a, b = 2,)\n"
           "    give [a, b,]\n"
           "let g be (x, y,) => x + y\n"
           "let m be {\"k\": 1, \"j\": 2,}\n"
           "print(f(1,))\n"
           "print(g(1, 2,))\n"
           "print(m,)\n")
    assert run(src) == "[1, 2]\n3\n{\"k\": 1, \"j\": 2}\n"


def test_empty_collections_and_calls():
    assert shape(expr_of("[]")) == ["list"]
    assert shape(expr_of("{}")) == {"map": []}
    assert shape(expr_of("f()")) == ("call", "f", [])


# ---- statements ----------------------------------------------------------------------------

def test_when_otherwise_when_otherwise_tree_and_run():
    src = ("task pick(n)\n"
           "    when n < 0\n"
           "        give \"neg\"\n"
           "    otherwise when n == 0\n"
           "        give \"zero\"\n"
           "    otherwise when n < 10\n"
           "        give \"small\"\n"
           "    otherwise\n"
           "        give \"big\"\n"
           "print(pick(-1))\nprint(pick(0))\nprint(pick(3))\nprint(pick(30))\n")
    task = tree(src).items[0]
    w = task.body[0]
    assert w.kind == "when" and len(w.branches) == 3 and w.otherwise is not None
    assert run(src) == "neg\nzero\nsmall\nbig\n"


def test_when_without_otherwise():
    w = tree("when x\n    print(1)\n").items[0]
    assert w.kind == "when" and w.otherwise is None and len(w.branches) == 1


def test_for_each_tree():
    f = tree("for each item in [1, 2]\n    print(item)\n").items[0]
    assert f.kind == "foreach" and f.name == "item"
    assert shape(f.iterable) == ["list", 1, 2]
    assert len(f.body) == 1


def test_try_recover_tree():
    t = tree("try\n    fail(\"x\")\nrecover err\n    print(err)\n").items[0]
    assert t.kind == "try" and t.name == "err"
    assert len(t.body) == 1 and len(t.recover) == 1


@pytest.mark.parametrize("params", [[], ["a"], ["a", "b"], ["a", "b", "c", "d"]])
def test_lambdas_with_any_number_of_params(params):
    src = "(" + ", ".join(params) + ") => " + (" + ".join(params) or "0")
    e = expr_of(src)
    assert e.kind == "lambda" and [p[0] for p in e.params] == params
    args = ", ".join(str(i + 1) for i in range(len(params)))
    expected = sum(range(1, len(params) + 1))
    assert run(f"let f be {src}\nprint(f({args}))\n") == f"{expected}\n"


def test_lambda_as_argument_and_returning_lambda():
    assert run("let add be (a) => (b) => a + b\nprint(add(2)(3))\n") == "5\n"
    assert run("task ap(f, x)\n    give f(x)\nprint(ap((n) => n * 10, 4))\n") == "40\n"


def test_nested_maps_across_lines():
    src = ("let cfg be {\n"
           "    \"name\": \"agent\",\n"
           "    \"tools\": [\n"
           "        {\"name\": \"add\",\n"
           "         \"params\": [\"a\", \"b\"]},\n"
           "    ],\n"
           "    \"limits\": {\"steps\": 5,\n"
           "               \"budget\": 100}\n"
           "}\n"
           "print(cfg[\"tools\"][0][\"params\"][1])\n"
           "print(cfg.limits.budget)\n")
    assert run(src) == "b\n100\n"


def test_set_paths_parse():
    s = tree("set m[\"a\"][0].b to 1\n").items[0]
    assert s.kind == "set" and s.name == "m"
    assert [shape(k) for k in s.path] == ["a", 0, "b"]


def test_give_bare_and_with_value():
    t = tree("task f()\n    give\ntask g()\n    give 1\n").items
    assert t[0].body[0].value is None
    assert shape(t[1].body[0].value) == 1


def test_require_forms_parse():
    items = tree('require llm\nrequire llm("customers")\nrequire net("a.com")\n').items
    assert [(i.cap_name, i.arg) for i in items] == [("llm", None), ("llm", "customers"),
                                                   ("net", "a.com")]


def test_intent_item():
    i = tree('intent: "what it is for"\nprint(1)\n').items[0]
    assert i.kind == "intent" and i.text == "what it is for"


def test_positions_of_nodes():
    items = tree("let x be 1\n\nprint(x + 2)\n").items
    assert (items[0].line, items[0].col) == (1, 1)
    call = items[1].value
    assert call.kind == "call" and call.line == 3
    plus = call.args[0]
    assert (plus.line, plus.col) == (3, 9)


# ---- syntax errors -------------------------------------------------------------------------

def test_a_syntax_error_is_a_compile_error_not_a_python_crash():
    e = syntax_error("print(2 + * 3)\n")
    assert (e.source_name, e.line, e.col) == ("t.syn", 1, 11)
    assert "unexpected '*'" in e.message


SYNTAX_ERRORS = [
    # (source, line, col, words the message must contain)
    ("let x = 1\n", 1, 7, ["let x be"]),
    ("set x = 1\n", 1, 7, ["="]),
    ("print(1)\n    print(2)\n", 2, 5, ["unexpected indent"]),
    ("when true\nprint(1)\n", 2, 1, ["indented block"]),
    ("otherwise\n    print(1)\n", 1, 1, ["'otherwise' must follow a `when`"]),
    ("recover e\n    print(1)\n", 1, 1, ["'recover' must follow a `try`"]),
    ("try\n    print(1)\nprint(2)\n", 3, 1, ["'recover'"]),
    ("let task be 1\n", 1, 5, ["'task' is a keyword"]),
    ("task when()\n    give 1\n", 1, 6, ["'when' is a keyword"]),
    ("print(1 +)\n", 1, 10, ["unexpected ')'"]),
    ("print(1 2)\n", 1, 9, ["unexpected number 2"]),
    ("for x in [1]\n    print(x)\n", 1, 5, ["'each'"]),
    ("task f(a b)\n    give a\n", 1, 10, ["name 'b'"]),
    ("let m be {\"a\" 1}\n", 1, 15, ["unexpected number 1"]),
]


@pytest.mark.parametrize("src,line,col,words", SYNTAX_ERRORS)
def test_syntax_errors_have_position_and_helpful_message(src, line, col, words):
    e = syntax_error(src)
    assert e.source_name == "t.syn"
    assert (e.line, e.col) == (line, col), e.message
    for w in words:
        assert w in e.message


def test_unexpected_end_of_line_has_a_real_position():
    e = syntax_error("let x be\nprint(1)\n")
    assert e.line == 1 and 1 <= e.col <= 10
    assert "expected" in e.message


def test_syntax_error_through_the_cli_has_file_line_col_and_caret(syn, write):
    write("bad.syn", "let x be 1\nlet y = 2\n")
    p = syn("run", "bad.syn")
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert lines[0].startswith("bad.syn:2:7: error: ")
    assert lines[1].strip() == "let y = 2"
    assert lines[2].index("^") == lines[1].index("=")


def test_a_parse_after_a_failed_parse_still_works():
    with pytest.raises(CompileError):
        compile_source("print(1 +)\n", "t.syn")
    assert run("print(1 + 1)\n") == "2\n"


# ---- the parser writes nothing into the working directory ----------------------------------

def test_compiling_writes_no_parser_files_into_the_cwd(tmp_path):
    # The second program is a syntax error: the error path must not write files either.
    code = ("from synsema.compiler import compile_source\n"
            "from synsema.vm.errors import CompileError\n"
            "compile_source('task f(a)\\n    give a\\nprint(f(1))\\n', 'x.syn')\n"
            "try:\n    compile_source('let x = 1\\n', 'x.syn')\nexcept CompileError:\n    pass\n"
            "else:\n    raise SystemExit('the syntax error compiled')\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path)) == []


def test_syn_run_writes_nothing_but_its_output(syn, write, tmp_path):
    write("app.syn", "print(1)\n")
    p = syn("run", "app.syn")
    assert p.returncode == 0 and p.stdout == "1\n"
    assert sorted(os.listdir(tmp_path)) == ["app.syn"]


# ---- the committed tables are current ------------------------------------------------------

def _grammar_dict():
    import synsema.compiler.grammar as g
    return {k: getattr(g, k) for k in dir(g)}


def test_parsetab_signature_matches_the_grammar():
    import ply.yacc as yacc

    import synsema.compiler._parsetab as tab
    pinfo = yacc.ParserReflect(_grammar_dict(), log=yacc.NullLogger())
    pinfo.get_all()
    assert not pinfo.validate_all()
    assert pinfo.signature() == tab._lr_signature, \
        "compiler/_parsetab.py is stale: run `python -m synsema.compiler.grammar`"


def test_parsetab_tables_match_freshly_generated_ones(tmp_path, monkeypatch):
    import ply.yacc as yacc

    import synsema.compiler._parsetab as tab
    import synsema.compiler.grammar as g
    monkeypatch.chdir(tmp_path)
    fresh = yacc.yacc(module=g, write_tables=False, debug=False,
                      errorlog=yacc.NullLogger(), tabmodule="synsema_no_such_parsetab_module")
    assert os.listdir(tmp_path) == []

    def nonempty(d):
        return {k: v for k, v in d.items() if v}

    assert fresh.action == tab._lr_action
    assert nonempty(fresh.goto) == nonempty(tab._lr_goto)
    assert [(p.str, p.name, p.len) for p in fresh.productions] == \
        [(p[0], p[1], p[2]) for p in tab._lr_productions]
    assert tab._lr_method == "LALR"


def test_rules_with_a_from_token_maker_agree_with_it():
    # The parser calls `from_token` instead of the rule when it shifts and reduces a
    # token in one step: both ways must make the same node.
    from synsema.compiler import grammar, parser
    makers = [f for name, f in vars(grammar).items()
              if name.startswith("p_") and hasattr(f, "from_token")]
    assert len(makers) == 3
    for tok in [("NAME", "x", 3, 7, 40), ("NUMBER", 2.5, 1, 2, 1), ("TEXT", "hi", 9, 1, 99)]:
        for rule in makers:
            p = parser._Production([None, tok[1]])
            p.slice = [None, tok]
            rule(p)
            direct = rule.from_token(tok)
            assert type(p[0]) is type(direct) and p[0].f == direct.f
            assert (p[0].line, p[0].col) == (direct.line, direct.col) == (tok[2], tok[3])
