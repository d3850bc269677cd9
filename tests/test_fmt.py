"""`syn fmt` (compiler.format): the canonical layout never changes what a program does, a
second run changes nothing, and the layout rules, comments, wrapping and the command's
--check/--diff/in-place modes behave as docs/guide.md ("Formatting and checking") says."""

import os
import random
import stat
from pathlib import Path

import pytest

import ni_gen
from conftest import ROOT, SHARED, needs_shared
from synsema.compiler import compile_source
from synsema.compiler.format import WIDTH, format_source
from synsema.compiler.lexer import tokenize_layout
from synsema.vm.errors import CompileError

# What a compiled program has that is about where things are, not what they do.
POSITIONS = {"line", "col", "positions", "global_lines", "sha256", "max_stack"}


def shape(program):
    """Everything of a compiled program but its positions and line tables."""
    def fields(obj):
        return {k: v for k, v in vars(obj).items() if k not in POSITIONS}
    out = fields(program)
    out["functions"] = [fields(f) for f in program.functions]      # Param has __eq__
    return out


def syn_files(top):
    """The .syn files below `top` that `syn fmt DIR` formats (hidden folders skipped)."""
    from synsema.cli.testing import find_files
    return [Path(p) for p in find_files([str(top)])]


def check_same_program(source, name="x.syn"):
    """format_source keeps the compiled program and is idempotent; the formatted text."""
    before = compile_source(source, name)
    out = format_source(source, name)
    assert shape(compile_source(out, name)) == shape(before)
    assert format_source(out, name) == out, "a second run changed the layout"
    return out


def compiles(source):
    try:
        compile_source(source, "x.syn")
        return True
    except CompileError:
        return False


# ---- every program we have -------------------------------------------------------------

def test_every_program_of_the_repository_keeps_its_bytecode():
    files = syn_files(ROOT)
    assert any(p.parent.name == "examples" for p in files)
    for path in files:
        source = path.read_text(encoding="utf-8")
        assert compiles(source), f"{path} does not compile"
        check_same_program(source, path.name)


def test_the_repository_is_formatted():
    """What CI checks with `syn fmt --check`: every .syn here is in the canonical layout."""
    unformatted = [str(p.relative_to(ROOT)) for p in syn_files(ROOT)
                   if format_source(p.read_text(encoding="utf-8"), p.name) != p.read_text()]
    assert not unformatted, f"run: syn fmt {' '.join(unformatted)}"


@needs_shared
def test_every_program_of_shared_keeps_its_bytecode():
    files = syn_files(SHARED)
    assert len(files) > 30
    formatted = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        if compiles(source):
            check_same_program(source, path.name)
            formatted += 1
        else:
            # a conformance case that must not compile: formatting it (when it even
            # tokenizes) gives the same compile error, since the tokens are kept
            try:
                out = format_source(source, path.name)
            except CompileError:
                continue
            with pytest.raises(CompileError) as a:
                compile_source(source, path.name)
            with pytest.raises(CompileError) as b:
                compile_source(out, path.name)
            assert a.value.message == b.value.message
    assert formatted > 30


# ---- the same program in any layout ------------------------------------------------------

_WORDY = {"NAME", "NUMBER"} | {k.upper() for k in (
    "task give let be set to when otherwise while for each in break continue try recover "
    "test require intent and or not true false nothing").split()}
_OPEN = {"LPAREN", "LPAREN_LAMBDA", "LBRACKET", "LBRACE"}
_CLOSE = {"RPAREN", "RBRACKET", "RBRACE"}


def scramble(source, seed, extras=False):
    """`source` (in the canonical layout) laid out at random: block indentation of 1 to 8
    spaces, any spacing between tokens, line breaks anywhere inside brackets; with
    `extras`, also comments at the end of lines, inside brackets and on lines of their
    own, and blank lines. Never inside assert(...), whose text the program keeps."""
    rng = random.Random(seed)
    width = rng.choice([1, 2, 3, 8])
    toks = tokenize_layout(source)
    out = []
    depth = brackets = 0
    prev = None
    line_start = True
    last_line = 1
    skip_to = -1
    for i, tok in enumerate(toks):
        typ, val, line, col, pos = tok
        if i <= skip_to or typ == "INDENT" or typ == "DEDENT":
            depth += (typ == "INDENT") - (typ == "DEDENT")
            continue
        if typ == "NEWLINE":
            if extras and rng.random() < 0.2 and prev[0] != "COMMENT":
                out.append("  -- eol note")
            out.append("\n")
            if extras:
                out.append("\n" * rng.choice([0, 0, 0, 1, 2]))
                if rng.random() < 0.1:
                    out.append(" " * rng.randrange(12) + "-- own line note\n")
            line_start, prev = True, tok
            continue
        if line_start and not extras:
            out.append("\n" * max(0, line - last_line - 1))       # the blank lines
        last_line = line
        if line_start and typ == "COMMENT":
            indent = rng.randrange(9) if extras else (col - 1) // 4 * width
            out.append(" " * indent + val + "\n")
            continue
        if line_start:
            out.append(" " * (width * depth))
            line_start = False
        elif typ == "COMMENT":
            out.append(rng.choice([" ", "   "]))
        elif prev[0] != "COMMENT":
            out.append(_separator(rng, prev, tok, brackets, extras))
        if typ == "LPAREN" and prev is not None and prev[1] == "assert":
            level = 0
            for j in range(i, len(toks)):
                level += (toks[j][0] in _OPEN) - (toks[j][0] in _CLOSE)
                if level == 0:
                    break
            out.append(source[pos:toks[j][4] + 1])
            skip_to, prev, last_line = j, toks[j], toks[j][2]
            continue
        out.append(val)
        if typ == "COMMENT" and brackets:
            out.append("\n" + " " * rng.randrange(9))
        brackets += (typ in _OPEN) - (typ in _CLOSE)
        prev = tok
    return "".join(out)


def _separator(rng, prev, tok, brackets, extras):
    p, t = prev[0], tok[0]
    choices = [" ", "  "]
    if not (p in _WORDY and t in _WORDY) and not (p == "MINUS" and t == "MINUS"):
        choices.append("")
    if brackets and not (p == "RPAREN" and t == "ARROW"):   # `) =>` stays on its line
        choices.append("\n" + " " * rng.randrange(13))
        if extras:
            choices.append("  -- inside note\n" + " " * rng.randrange(5))
    return rng.choice(choices)


def _programs():
    sources = [p.read_text(encoding="utf-8") for p in syn_files(ROOT / "examples")]
    sources += [ni_gen.fill(ni_gen.generate(seed)[0], "1", '"s"') for seed in range(40)]
    return [s for s in sources if compiles(s)]


def test_any_layout_of_a_program_formats_to_its_canonical_layout():
    for n, source in enumerate(_programs()):
        canonical = format_source(source, "x.syn")
        for k in range(2):
            scrambled = scramble(canonical, n * 7 + k)
            assert shape(compile_source(scrambled, "x.syn")) == \
                shape(compile_source(canonical, "x.syn")), "the scrambler changed the program"
            assert format_source(scrambled, "x.syn") == canonical, scrambled


def test_comments_and_blank_lines_anywhere_keep_the_program_and_are_stable():
    for n, source in enumerate(_programs()):
        for k in range(2):
            scrambled = scramble(format_source(source), n * 7 + k, extras=True)
            out = check_same_program(scrambled)
            comments = [t[1] for t in tokenize_layout(scrambled) if t[0] == "COMMENT"]
            assert [t[1] for t in tokenize_layout(out) if t[0] == "COMMENT"] == comments


# ---- the layout rules --------------------------------------------------------------------

def fmt(source):
    return check_same_program(source)


def test_spacing_and_indentation():
    src = ('intent:"x"\nrequire  net( "a.com" ,"L")\nlet x be   -1+ - -2*(3-4)%5\n'
           'task f(a,b : number=1)\n  when a>=b and not(a==b)\n        give -(a)\n'
           '  otherwise\n   give x [0] .foo\nprint([f(1,2), {"k" : [1,2]}, (y)=>y+1, [ ]])\n')
    assert fmt(src) == (
        'intent: "x"\n'
        'require net("a.com", "L")\n'
        'let x be -1 + - -2 * (3 - 4) % 5\n'
        '\n'
        'task f(a, b: number = 1)\n'
        '    when a >= b and not (a == b)\n'
        '        give -(a)\n'
        '    otherwise\n'
        '        give x[0].foo\n'
        '\n'
        'print([f(1, 2), {"k": [1, 2]}, (y) => y + 1, []])\n')


def test_spellings_are_kept():
    src = 'let x be [1e3, 2.50, 007, "a\\n\\u{41}\\"", true, nothing]\n'
    assert fmt(src) == src


def test_blank_lines():
    src = ('\n\nlet a be 1\n\n\n\nlet b be 2\ntask t()\n\n    let c be 3\n\n\n    give c\n'
           'test "x"\n    assert(t() == 3)\nlet d be 4\n\n\n')
    assert fmt(src) == ('let a be 1\n\nlet b be 2\n\ntask t()\n    let c be 3\n\n    give c\n'
                        '\ntest "x"\n    assert(t() == 3)\n\nlet d be 4\n')


def test_comments_stay_where_they_were():
    src = ('-- head\n'
           'let x be 1   -- end of line\n'
           '-- about t, right above it\n'
           'task t(a)\n'
           '        -- first in the block\n'
           '        when a\n'
           '            give 1\n'
           '            -- still in the when\n'
           '        -- back in the task\n'
           '        give 2\n'
           '-- top level again\n')
    assert fmt(src) == ('-- head\n'
                        'let x be 1  -- end of line\n'
                        '\n'
                        '-- about t, right above it\n'
                        'task t(a)\n'
                        '    -- first in the block\n'
                        '    when a\n'
                        '        give 1\n'
                        '        -- still in the when\n'
                        '    -- back in the task\n'
                        '    give 2\n'
                        '\n'
                        '-- top level again\n')


def test_end_of_line_comments_of_consecutive_lines_line_up():
    src = 'let a be 1 -- one\nlet bbbb be 22      -- two\nlet c be 3\nlet d be 4 -- alone\n'
    assert fmt(src) == ('let a be 1      -- one\nlet bbbb be 22  -- two\nlet c be 3\n'
                        'let d be 4  -- alone\n')


def test_comments_inside_brackets():
    src = ('let m be {  -- the table\n'
           '  "a": 1,   -- one\n'
           '  -- b comes next\n'
           '  "b": 2\n'
           '  -- nothing after b\n'
           '}\n'
           'print(len(m  -- inside an item\n    ) + 1)\n')
    assert fmt(src) == ('let m be {  -- the table\n'
                        '    "a": 1,  -- one\n'
                        '    -- b comes next\n'
                        '    "b": 2,\n'
                        '    -- nothing after b\n'
                        '}\n'
                        'print(\n'
                        '    len(\n'
                        '        m,  -- inside an item\n'
                        '    ) + 1,\n'
                        ')\n')


def test_a_long_line_breaks_inside_its_brackets_one_item_per_line():
    long_text = '"' + "x" * 64 + '"'
    src = f'print([join([{long_text}, "b"], ", "), "c"])\nprint([[1, 2], 3])\n'
    out = fmt(src)
    assert out == ('print(\n'
                   '    [\n'
                   f'        join([{long_text}, "b"], ", "),\n'
                   '        "c",\n'
                   '    ],\n'
                   ')\n'
                   'print([[1, 2], 3])\n')
    assert max(map(len, out.splitlines())) <= WIDTH


def test_nested_brackets_break_outermost_first():
    item = '"' + "y" * 30 + '"'
    src = f'let m be {{"k": [{item}, {item}, {item}], "j": 1}}\n'
    assert fmt(src) == ('let m be {\n'
                        '    "k": [\n'
                        f'        {item},\n'
                        f'        {item},\n'
                        f'        {item},\n'
                        '    ],\n'
                        '    "j": 1,\n'
                        '}\n')


def test_a_trailing_comma_keeps_a_list_broken_and_a_short_one_joins():
    assert fmt('let xs be [\n    1,\n    2,\n]\n') == 'let xs be [\n    1,\n    2,\n]\n'
    assert fmt('let xs be [\n    1,\n    2\n]\n') == 'let xs be [1, 2]\n'
    assert fmt('task f(a,\n b,)\n    give a\n') == 'task f(\n    a,\n    b,\n)\n    give a\n'


def test_small_brackets_and_brackets_without_a_comma_list_get_no_trailing_comma():
    tail = " + " + '"' + "z" * 70 + '"'
    # `text(n)` would take three lines for one word: it stays as it is
    src = f'let n be 1\nlet s be "a" + text(n){tail}\n'
    assert fmt(src) == src
    # a parenthesised expression breaks without a comma (one would not compile)
    inner = " + ".join(["n"] * 23)
    assert fmt(f"let n be 1\nlet sum be ({inner})\n") == \
        f"let n be 1\nlet sum be (\n    {inner}\n)\n"


def test_assert_keeps_its_text_because_its_message_shows_it():
    src = 'test "t"\n    assert(1+1==2)\n    assert_eq(1+1, 2)\n'
    assert fmt(src) == 'test "t"\n    assert(1+1==2)\n    assert_eq(1 + 1, 2)\n'


def test_crlf_tabs_and_a_missing_final_newline():
    assert fmt('let x be [1,\r\n  2]\r\nprint(x)\t-- tab\r\nprint(x)') == \
        'let x be [1, 2]\nprint(x)  -- tab\nprint(x)\n'


def test_empty_and_comment_only_files():
    assert format_source("") == ""
    assert format_source("\n\n-- only\n\n\n-- two") == "-- only\n\n-- two\n"


def test_a_file_that_does_not_tokenize_is_a_compile_error():
    with pytest.raises(CompileError) as e:
        format_source('print("open\n', "bad.syn")
    assert "text is not closed" in e.value.message


# ---- the command -------------------------------------------------------------------------

UGLY = 'task add(a,b)\n  give a+b\nprint(add(1,2))\n'
PRETTY = 'task add(a, b)\n    give a + b\n\nprint(add(1, 2))\n'


def test_check_lists_the_files_that_would_change_and_writes_nothing(syn, write, tmp_path):
    ugly = write("ugly.syn", UGLY)
    (tmp_path / "sub").mkdir()
    write("sub/pretty.syn", PRETTY)
    p = syn("fmt", "--check", tmp_path)
    assert p.returncode == 1
    assert p.stdout == f"would reformat {ugly}\n"
    assert ugly.read_text() == UGLY
    p = syn("fmt", "--check", tmp_path / "sub")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")


def test_diff_prints_a_unified_diff_and_writes_nothing(syn, write):
    ugly = write("ugly.syn", UGLY)
    p = syn("fmt", "--diff", ugly)
    assert p.returncode == 0
    assert f"--- {ugly}\n+++ {ugly} (formatted)\n" in p.stdout
    assert "\n-  give a+b\n" in p.stdout and "\n+    give a + b\n" in p.stdout
    assert ugly.read_text() == UGLY
    assert syn("fmt", "--diff", "--check", ugly).returncode == 1


def test_fmt_rewrites_in_place_keeping_the_permissions(syn, write, tmp_path):
    ugly = write("ugly.syn", UGLY)
    os.chmod(ugly, 0o640)
    p = syn("fmt", ugly)
    assert p.returncode == 0, p.stderr
    assert ugly.read_text() == PRETTY
    assert stat.S_IMODE(os.stat(ugly).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["ugly.syn"]      # no temporary file left
    assert syn("fmt", "--check", ugly).returncode == 0


def test_a_file_that_does_not_compile_is_reported_as_compile_reports_it(syn, write):
    bad = write("bad.syn", "let count be 1\nprint(cuont)\n")
    good = write("good.syn", UGLY)
    p = syn("fmt", bad, good)
    assert p.returncode == 1
    assert p.stderr.startswith(syn("compile", bad).stderr)
    assert "'cuont' is not declared; did you mean 'count'?" in p.stderr
    assert bad.read_text() == "let count be 1\nprint(cuont)\n"
    assert good.read_text() == PRETTY           # the other files are still formatted


def test_a_missing_path_is_a_usage_error(syn, tmp_path):
    p = syn("fmt", tmp_path / "nope.syn")
    assert p.returncode == 2
    assert "no such file or folder" in p.stderr


def test_a_failed_write_leaves_the_file_as_it_was(tmp_path, monkeypatch, capsys):
    from synsema.cli import fmt as cli_fmt
    path = tmp_path / "ugly.syn"
    path.write_text(UGLY)

    def refuse(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", refuse)
    assert cli_fmt.fmt([str(path)], check=False, diff=False) == 1
    assert path.read_text() == UGLY
    assert os.listdir(tmp_path) == ["ugly.syn"]
    assert f"error: cannot write {path}: No space left on device" in capsys.readouterr().err
