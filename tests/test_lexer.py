"""The lexer (compiler.lexer.tokenize): tokens, INDENT/DEDENT, implicit line joining,
comments, text escapes, and the compile errors it raises with their positions (SPEC 1)."""

import pytest

from synsema.compiler.lexer import COL, KEYWORDS, LINE, TYPE, VALUE, tokenize
from synsema.vm.errors import CompileError


def kinds(src):
    return [t[TYPE] for t in tokenize(src, "t.syn")]


def values(src, kind):
    return [t[VALUE] for t in tokenize(src, "t.syn") if t[TYPE] == kind]


def lex_error(src):
    with pytest.raises(CompileError) as info:
        tokenize(src, "t.syn")
    e = info.value
    assert e.source_name == "t.syn"
    return e


# ---- tokens ----------------------------------------------------------------------------

def test_simple_statement_tokens():
    assert kinds("let x be 1 + 2\n") == ["LET", "NAME", "BE", "NUMBER", "PLUS", "NUMBER",
                                         "NEWLINE"]


def test_every_keyword_is_its_own_token_type():
    for k in KEYWORDS:
        assert kinds(k + "\n")[0] == k.upper(), k
    # a keyword inside a longer identifier is a plain name
    assert kinds("tasks letter given\n") == ["NAME", "NAME", "NAME", "NEWLINE"]


def test_identifier_forms():
    assert values("_a a_1 Z9 __\n", "NAME") == ["_a", "a_1", "Z9", "__"]


def test_operators():
    src = "a == b != c <= d >= e < f > g = h => i + j - k * l / m % n . o , p : q\n"
    assert [t for t in kinds(src) if t != "NAME"] == [
        "EQ", "NE", "LE", "GE", "LT", "GT", "ASSIGN", "ARROW", "PLUS", "MINUS", "TIMES",
        "DIVIDE", "MOD", "DOT", "COMMA", "COLON", "NEWLINE"]


def test_numbers_int_float_exponent():
    vals = values("42 3.14 1e3 2E-2 0 12345678901234567890123\n", "NUMBER")
    assert vals == [42, 3.14, 1000.0, 0.02, 0, 12345678901234567890123]
    assert type(vals[0]) is int and type(vals[2]) is float and type(vals[5]) is int


def test_token_positions_are_line_and_column_from_one():
    toks = tokenize("let x be 1\nprint(x)\n", "t.syn")
    named = [(t[TYPE], t[LINE], t[COL]) for t in toks if t[TYPE] != "NEWLINE"]
    assert named == [("LET", 1, 1), ("NAME", 1, 5), ("BE", 1, 7), ("NUMBER", 1, 10),
                     ("NAME", 2, 1), ("LPAREN", 2, 6), ("NAME", 2, 7), ("RPAREN", 2, 8)]


def test_newline_token_belongs_to_the_line_it_ends():
    toks = tokenize("let x be 1\nprint(x)\n", "t.syn")
    nl = [(t[LINE], t[COL]) for t in toks if t[TYPE] == "NEWLINE"]
    assert nl == [(1, 11), (2, 9)]


# ---- comments --------------------------------------------------------------------------

def test_comment_runs_to_end_of_line():
    assert kinds("let x be 1 -- a comment with \"quotes\" and ( brackets\n") == \
        ["LET", "NAME", "BE", "NUMBER", "NEWLINE"]


def test_comment_only_lines_make_no_tokens_and_no_indent():
    src = "-- header\nwhen true\n    -- inside, at another indent\n        -- deeper\n    print(1)\n"
    assert kinds(src) == ["WHEN", "TRUE", "NEWLINE", "INDENT", "NAME", "LPAREN", "NUMBER",
                          "RPAREN", "NEWLINE", "DEDENT"]


def test_double_dash_inside_text_is_not_a_comment():
    assert values('print("a -- b")\n', "TEXT") == ["a -- b"]


def test_minus_minus_is_a_comment_but_single_minus_is_an_operator():
    assert kinds("1 - 2--3\n") == ["NUMBER", "MINUS", "NUMBER", "NEWLINE"]


# ---- indentation -----------------------------------------------------------------------

def test_indent_and_dedent_around_a_block():
    src = "when a\n    b()\nc()\n"
    assert kinds(src) == ["WHEN", "NAME", "NEWLINE", "INDENT", "NAME", "LPAREN", "RPAREN",
                          "NEWLINE", "DEDENT", "NAME", "LPAREN", "RPAREN", "NEWLINE"]


def test_multiple_dedents_at_once_and_at_end_of_file():
    src = "task f()\n    when a\n        b()\nc()\nwhen x\n    when y\n        z()"
    ks = kinds(src)
    i = ks.index("NAME", ks.index("DEDENT"))
    assert ks[ks.index("DEDENT"):i] == ["DEDENT", "DEDENT"]
    assert ks[-3:] == ["NEWLINE", "DEDENT", "DEDENT"]
    assert ks.count("INDENT") == ks.count("DEDENT") == 4


def test_blank_lines_do_not_close_blocks():
    src = "when a\n    b()\n\n\n    c()\n"
    assert kinds(src).count("DEDENT") == 1
    assert kinds(src).count("INDENT") == 1


def test_tab_in_indentation_is_an_error():
    e = lex_error("when true\n\tprint(1)\n")
    assert e.message == "tab in indentation; use spaces"
    assert (e.line, e.col) == (2, 1)


def test_tab_after_spaces_in_indentation_is_an_error_at_the_tab():
    e = lex_error("when true\n  \tprint(1)\n")
    assert e.message == "tab in indentation; use spaces"
    assert (e.line, e.col) == (2, 3)


def test_tab_between_tokens_is_fine():
    assert kinds("let x\tbe 1\n") == ["LET", "NAME", "BE", "NUMBER", "NEWLINE"]


def test_dedent_to_an_unknown_column_is_an_error():
    e = lex_error("when a\n        b()\n    c()\n")
    assert (e.line, e.col) == (3, 5)
    assert "matches no enclosing block" in e.message
    assert "column 5" in e.message


# ---- implicit joining ------------------------------------------------------------------

def test_newlines_and_indentation_inside_brackets_are_ignored():
    src = "let m be {\n    \"a\": [1,\n           2],\n        \"b\": f(\n  3)\n}\nprint(m)\n"
    ks = kinds(src)
    assert "INDENT" not in ks and "DEDENT" not in ks
    assert ks.count("NEWLINE") == 2


def test_joined_lines_keep_real_line_numbers():
    toks = tokenize("f(1,\n  2)\n", "t.syn")
    two = [t for t in toks if t[TYPE] == "NUMBER"][1]
    assert (two[LINE], two[COL]) == (2, 3)


# ---- text and escapes ------------------------------------------------------------------

def test_escapes():
    assert values(r'"a\"b\\c\nd\te\rf"' + "\n", "TEXT") == ['a"b\\c\nd\te\rf']


def test_unicode_escape():
    assert values(r'"x\u{1F600}y\u{41}\u{e9}"' + "\n", "TEXT") == ["x\U0001F600yA\u00e9"]


def test_raw_unicode_in_text_is_kept():
    assert values('"héllo 😀"\n', "TEXT") == ["héllo 😀"]


@pytest.mark.parametrize("bad", [r'"\u{}"', r'"\u{110000}"', r'"\u0041"', r'"\u{zz}"'])
def test_bad_unicode_escape_is_an_error(bad):
    e = lex_error("print(" + bad + ")\n")
    assert e.line == 1 and e.col == 8       # at the backslash
    assert "\\u{HEX}" in e.message


@pytest.mark.parametrize("bad", [r'"\u{0x41}"', r'"\u{+41}"', r'"\u{ 41}"', r'"\u{41 }"',
                                 r'"\u{4_1}"', r'"\u{0000041}"', r'"\u{-1}"', r'"\u{41"',
                                 r'"\u{١}"'])
def test_unicode_escape_takes_exactly_one_to_six_hex_digits(bad):
    # Python's int(x, 16) would take every one of these.
    e = lex_error("print(" + bad + ")\n")
    assert (e.line, e.col) == (1, 8)
    assert "1 to 6 hex digits" in e.message


def test_unicode_escape_of_six_digits_and_the_last_code_point():
    assert values(r'"\u{000041}\u{10FFFF}\u{0}"' + "\n", "TEXT") == ["A\U0010FFFF\x00"]


@pytest.mark.parametrize("code", ["D800", "dbff", "DC00", "DFFF", "00D800"])
def test_surrogate_escape_is_a_compile_error(code):
    e = lex_error(f'let t be "ab\\u{{{code}}}"\n')
    assert (e.line, e.col) == (1, 13)
    assert f"\\u{{{code}}} is a surrogate" in e.message


def test_escapes_beside_surrogates_are_fine():
    assert values(r'"\u{D7FF}\u{E000}"' + "\n", "TEXT") == ["\ud7ff\ue000"]


def test_integer_literal_of_any_length():
    # CPython's int() refuses more than 4300 digits; SPEC 4 integers are unbounded.
    digits = "12345678901234567890" * 1000
    expected = 0
    for i in range(0, len(digits), 1000):        # built from chunks int() accepts
        expected = expected * 10 ** 1000 + int(digits[i:i + 1000])
    assert values(f"let x be {digits}\n", "NUMBER") == [expected]
    assert values(f"let x be {'9' * 5000}\n", "NUMBER") == [10 ** 5000 - 1]


def test_float_literal_too_large_is_an_error():
    e = lex_error("let x be 2 * 1e400\n")
    assert (e.line, e.col) == (1, 14)
    assert "1e400 is too large for a float" in e.message
    assert values("let x be 1e308\n", "NUMBER") == [1e308]


def test_digits_of_other_scripts_are_not_numbers():
    e = lex_error("let x be \u0661\u0662\n")       # Arabic-Indic 12
    assert (e.line, e.col) == (1, 10)
    assert "unexpected character" in e.message


def test_unknown_escape_is_an_error_naming_it():
    e = lex_error('let t be "ab\\q"\n')
    assert (e.line, e.col) == (1, 13)
    assert "unknown escape '\\q'" in e.message


def test_unclosed_text_is_an_error():
    e = lex_error('let t be "abc\nprint(t)\n')
    assert (e.line, e.col) == (1, 10)
    assert "text is not closed" in e.message


# ---- brackets --------------------------------------------------------------------------

def test_unclosed_bracket_error_points_at_the_opener():
    e = lex_error("let x be 1\nprint(f(1,\n   2)\nlet y be 2\n")
    assert (e.line, e.col) == (2, 6)
    assert e.message == "'(' is never closed; add ')'"


@pytest.mark.parametrize("opener,closer", [("[", "]"), ("{", "}")])
def test_unclosed_list_and_map(opener, closer):
    e = lex_error(f"let x be {opener}1\n")
    assert (e.line, e.col) == (1, 10)
    assert e.message == f"'{opener}' is never closed; add '{closer}'"


def test_mismatched_closer_names_both():
    e = lex_error("print([1, 2)\n")
    assert (e.line, e.col) == (1, 12)
    assert "')' does not close '[' opened at line 1, column 7; expected ']'" == e.message


def test_closer_without_opener():
    e = lex_error("print(1))\n")
    assert (e.line, e.col) == (1, 9)
    assert "no matching opening bracket" in e.message


def test_unexpected_character_and_bang():
    e = lex_error("let x be 1 $ 2\n")
    assert (e.line, e.col) == (1, 12) and "'$'" in e.message
    e = lex_error("when !x\n")
    assert (e.line, e.col) == (1, 6) and "'not'" in e.message


# ---- lambda paren marking --------------------------------------------------------------

def test_lambda_parens_are_marked():
    toks = tokenize("let f be (a, b) => a + b\n", "t.syn")
    assert toks[3][TYPE] == "LPAREN_LAMBDA"
    assert kinds("let f be () => 1\n")[3] == "LPAREN_LAMBDA"


def test_grouping_and_call_parens_are_not_marked():
    ks = kinds("let y be (a) + f(b)\n")
    assert "LPAREN_LAMBDA" not in ks
    assert ks.count("LPAREN") == 2


def test_only_the_paren_before_the_arrow_is_marked():
    ks = kinds("g(f(1), (x) => h(x))\n")
    assert ks.count("LPAREN_LAMBDA") == 1
    i = ks.index("LPAREN_LAMBDA")
    assert ks[i:i + 4] == ["LPAREN_LAMBDA", "NAME", "RPAREN", "ARROW"]
    assert ks.count("LPAREN") == 3


def test_nested_lambdas_across_lines():
    ks = kinds("let f be ((a) => (b) =>\n   a + b)\n")
    assert ks.count("LPAREN_LAMBDA") == 2 and ks.count("LPAREN") == 1
    assert "INDENT" not in ks and ks.count("NEWLINE") == 1


# ---- the rules are PLY's -----------------------------------------------------------------

def _ply_tokens(src):
    """What PLY's own token() loop makes of src with the same rules (a fresh clone of the
    lexer, so no state is shared): (type, value) pairs, before any context is applied."""
    from synsema.compiler import lexer as lx
    ply = lx._master.clone()
    ply.input(src)
    ply.lexer = lx._Scan(src, "t.syn")      # what the TEXT rule reports errors against
    out = []
    while True:
        t = ply.token()
        if t is None:
            return out
        out.append((t.type, t.value))


def test_tokenize_agrees_with_plys_own_loop():
    # tokenize() scans with PLY's master regex itself; outside brackets and indentation
    # (which PLY's loop knows nothing of) both must give the same tokens.
    src = ('let total be 3.5e2 + xs[0] * -2 % 7 / 1 -- a comment\n'
           'when a <= b and c >= d or e != f and not g == h\n'
           'set m.k to {"t": "a\\tb\\u{41}", "n": nothing, "b": true} => false < 1 > 0 = 2\n'
           'task f(x: number, y = 2): each for in to be give\n')
    ours = [(t[TYPE], t[VALUE]) for t in tokenize(src, "t.syn")
            if t[TYPE] not in ("NEWLINE", "INDENT", "DEDENT")]
    theirs = [(typ, v) for typ, v in _ply_tokens(src) if typ != "NEWLINE"]
    assert ours == theirs
    assert ("TEXT", "a\tbA") in ours and ("NUMBER", 350.0) in ours and ("BE", "be") in ours


def test_a_long_block_is_one_list_in_order():
    # the grammar grows statement lists in place: order and count must survive that
    from synsema.compiler.parser import parse
    n = 3000
    src = "task f()\n" + "".join(f"    let v{i} be {i}\n" for i in range(n)) + \
        "".join(f"print({i})\n" for i in range(n))
    tree = parse(tokenize(src, "t.syn"), "t.syn")
    body = tree.items[0].body
    assert [s.name for s in body] == [f"v{i}" for i in range(n)]
    assert [s.value.args[0].value for s in tree.items[1:]] == list(range(n))


def test_end_of_file_without_a_newline_ends_the_line_where_the_text_ends():
    toks = tokenize("let x be 1\nprint(x)", "t.syn")
    assert toks[-1][TYPE] == "NEWLINE" and (toks[-1][LINE], toks[-1][COL]) == (2, 9)
    # with the newline present, the same place
    toks = tokenize("let x be 1\nprint(x)\n", "t.syn")
    assert toks[-1][TYPE] == "NEWLINE" and (toks[-1][LINE], toks[-1][COL]) == (2, 9)
