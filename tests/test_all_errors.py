"""Every error the compiler can find, in one pass, in line order (compiler.problems): the
lexer hands on the lines before its error, the parser skips a line it cannot parse and
goes on, the resolver goes on after an error. Recovery never reports an error it may
have caused itself."""

import json

import pytest

import synsema
from synsema.compiler import analyse_source, compile_source
from synsema.compiler.problems import MAX_ERRORS
from synsema.vm.errors import CompileError


def errors(src):
    with pytest.raises(CompileError) as info:
        compile_source(src, "t.syn")
    e = info.value
    assert e.errors[0] is e                 # the first is the error itself
    return [(x.line, x.col, x.message) for x in e.errors]


def where(src):
    return [(line, col) for line, col, _ in errors(src)]


def test_one_error_is_a_list_of_one():
    e = errors("let a be 1\nprint(b)\n")
    assert e == [(2, 7, "'b' is not declared; did you mean 'a'?")]


def test_name_errors_after_a_name_error_are_all_found():
    src = ("let count be 1\nprint(cuont)\nlet total be missing + 1\nprint(total)\n"
           "task f(a: nmber)\n    give a + b\nset nope to 2\nprint(f(1))\n")
    assert errors(src) == [
        (2, 7, "'cuont' is not declared; did you mean 'count'?"),
        (3, 14, "'missing' is not declared"),
        (5, 11, "unknown type 'nmber'; did you mean 'number'? (the types are number, "
                "text, bool, list, map, task, any)"),
        (6, 14, "'b' is not declared; did you mean 'f'?"),
        (7, 5, "'nope' is not declared; use let to declare it"),
    ]
    # `total` was declared though its value was wrong: no error for its use at line 4


def test_declarations_errors_go_on():
    src = ('intent: "x"\ntask f()\n    give 1\ntask f()\n    give 2\ntask g(a = 1, b)\n'
           '    give c\ntest ""\n    break\nlet f be 1\n')
    assert where(src) == [(4, 6), (6, 15), (7, 10), (8, 1), (9, 5), (10, 1)]


def test_syntax_errors_each_line_recovered():
    src = ("let a be 1\nprint(b)\nlet c be (1 +) * 2\nprint(d)\nprint(c)\n"
           "let e be 1 2\nprint(e)\nprint(a a)\n")
    assert errors(src) == [
        (2, 7, "'b' is not declared; did you mean 'a'?"),
        (3, 14, "unexpected ')'; expected an expression or statement"),
        (4, 7, "'d' is not declared; did you mean 'a'?"),
        (6, 12, "unexpected number 2 after a complete expression; write one statement per "
                "line, or join the two with an operator"),
        (8, 9, "unexpected name 'a'; expected ',' or ')' (separate the arguments with ',')"),
    ]
    # c and e are declared by lines that did not parse: their uses are no errors


def test_a_broken_header_keeps_its_block_and_reports_nothing_it_may_cause():
    # The block of `task f(a b)` uses a and b and gives; of `while x y` breaks: none of
    # that is an error if the header was what it seems. `otherwise` after a broken `when`
    # is no error either. Errors after them are still found.
    src = ("task f(a b)\n    give a + b\nprint(f(1))\nwhile x y\n    break\n"
           "when x z\n    print(1)\notherwise\n    print(2)\nprint(q)\n")
    assert where(src) == [(1, 10), (4, 9), (6, 8), (10, 7)]


def test_errors_inside_blocks_and_nested_blocks():
    src = ("task f(a)\n    let x be a +\n    when x\n        print(x y)\n    give zz\n"
           "print(f(1))\nprint(f(2) f(3))\n")
    assert where(src) == [(2, 16), (4, 17), (5, 10), (7, 12)]


def test_a_header_without_its_block_and_an_unexpected_indent():
    assert where("when true\nprint(1)\nprint(u)\n") == [(2, 1), (3, 7)]
    src = "let x be 1\n    let y be 2\nprint(w)\n"
    assert where(src) == [(2, 5), (3, 7)]


def test_after_an_uncertain_recovery_only_the_errors_before_it():
    # A try whose block ends without recover: where its code goes on is not known.
    src = "print(a)\ntry\n    print(1)\nprint(2)\nprint(qq)\n"
    assert where(src) == [(1, 7), (4, 1)]


def test_a_lexer_error_comes_after_the_errors_before_it():
    assert where('print(a)\nlet s be "abc\nprint(b)\n') == [(1, 7), (2, 10)]
    assert where("print(a)\nlet s be [1,\nprint(b)\n") == [(1, 7), (2, 10)]
    assert where("print(a)\nlet x be 1\n\tprint(x)\n") == [(1, 7), (3, 1)]
    # a name used before the lexer's error and declared after it is not known to be wrong
    assert where('print(f(1))\nlet s be "abc\ntask f(x)\n    give x\n') == [(2, 10)]


def test_python_assignment_line_declares_nothing_but_is_not_blamed_twice():
    assert where("x = 1\nprint(x)\nprint(y)\n") == [(1, 3), (3, 7)]


def test_errors_stop_at_a_limit():
    src = "".join(f"print({i} {i})\n" for i in range(MAX_ERRORS + 50))
    assert len(errors(src)) == MAX_ERRORS


def test_many_errors_take_linear_work():
    # Recovery replays the parser's states from the last error: the work per error is the
    # distance since the one before, not the whole file. Counted, not timed.
    from synsema.compiler import parser
    calls = []
    real = parser._replay

    def counting(toks, checkpoint, first, tables):
        calls.append(first + 1 - checkpoint[0])
        return real(toks, checkpoint, first, tables)
    parser._replay = counting
    try:
        filler = "let ok be 1\n" + "set ok to ok + 1\n" * 200
        src = filler + "".join(f"print({i} {i})\n" + "set ok to ok + 1\n" * 200
                               for i in range(50))
        assert len(errors(src)) == 50
    finally:
        parser._replay = real
    assert len(calls) == 50
    assert sum(calls) < 2 * len(src.split("\n")) * 8      # tokens, about 8 a line


def test_analyse_source_gives_the_tree_of_a_broken_document():
    tree, found = analyse_source("let a be 1\nlet b be a +\nprint(a)\n", "t.syn")
    assert [(e.line, e.col) for e in found] == [(2, 12)]
    assert [i.kind for i in tree.items] == ["let", "broken", "expr"]
    assert tree.items[2].value.args[0].ref is not None        # resolved
    assert analyse_source("print(1)\n", "t.syn")[1] == []


# ---- as the commands and the API show them ----------------------------------------------

TWO = "let count be 1\nprint(cuont)\nlet x be (1 +) * 2\nprint(nope)\n"


def test_check_compile_and_run_print_every_error_with_its_caret(syn, write):
    path = write("two.syn", TWO)
    for command in ("check", "compile", "run"):
        p = syn(command, path)
        assert p.returncode == 1, command
        assert p.stdout == ""
        assert p.stderr == (
            f"{path}:2:7: error: 'cuont' is not declared; did you mean 'count'?\n"
            "    print(cuont)\n          ^\n"
            f"{path}:3:14: error: unexpected ')'; expected an expression or statement\n"
            "    let x be (1 +) * 2\n                 ^\n"
            f"{path}:4:7: error: 'nope' is not declared\n"
            "    print(nope)\n          ^\n"), command


def test_check_json_lists_every_error(syn, write):
    path = write("two.syn", TWO)
    p = syn("check", "--json", path)
    assert p.returncode == 1
    assert [(d["line"], d["column"], d["message"], d["suggestion"])
            for d in json.loads(p.stdout)] == [
        (2, 7, "'cuont' is not declared", "did you mean 'count'?"),
        (3, 14, "unexpected ')'", "expected an expression or statement"),
        (4, 7, "'nope' is not declared", None)]


def test_the_api_compile_error_lists_every_error():
    with pytest.raises(synsema.CompileError) as info:
        synsema.compile_source(TWO, "two.syn")
    e = info.value
    assert e.line == 2
    assert [(x.line, x.col, x.message) for x in e.errors] == [
        (2, 7, "'cuont' is not declared; did you mean 'count'?"),
        (3, 14, "unexpected ')'; expected an expression or statement"),
        (4, 7, "'nope' is not declared")]
    assert e.errors[0].suggestion == "did you mean 'count'?"
    assert e.message.count("error:") == 3 and e.message.count("^") == 3
