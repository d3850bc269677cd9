"""Highlighting: the Pygments lexer (found by its entry point, as pygmentize finds it) and
the VS Code extension's TextMate grammar (run here with a small TextMate matcher over
Python's `re`, which agrees with Oniguruma on the grammar's simple patterns)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String

from synsema.compiler.lexer import KEYWORDS
from synsema.highlight import SynsemaLexer, textmate_grammar
from synsema.stdlib.registry import load_all

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"
SAMPLE = '''task add(a: number, b = 1)   -- adds
    give a + b * 2.5e3
when not contains(keys(m), "k\\n") and true
    print(text(nothing))
'''


def test_the_entry_point_finds_the_lexer():
    assert type(get_lexer_by_name("synsema")) is SynsemaLexer
    assert type(get_lexer_for_filename("app.syn")) is SynsemaLexer
    out = subprocess.run([str(Path(sys.executable).with_name("pygmentize")), "-l", "synsema",
                          "-f", "html"], input="let x be 1 -- one\n", capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and 'class="c1">-- one' in out.stdout


def test_pygments_tokens():
    toks = [(t, v) for t, v in get_lexer_by_name("synsema").get_tokens(SAMPLE)
            if v.strip()]
    expected = [
        (Keyword.Declaration, "task"), (Name.Function, "add"), (Keyword.Type, "number"),
        (Number, "1"), (Comment.Single, "-- adds"), (Keyword, "give"), (Operator, "+"),
        (Number, "2.5e3"), (Keyword, "when"), (Operator.Word, "not"),
        (Name.Builtin, "contains"), (Name.Builtin, "keys"), (Name, "m"),
        (String.Escape, "\\n"), (Operator.Word, "and"), (Keyword.Constant, "true"),
        (Name.Builtin, "print"), (Name.Builtin, "text"), (Keyword.Constant, "nothing"),
    ]
    for tok in expected:
        assert tok in toks, tok
    assert not any(t in Error for t, _ in toks)
    bad = dict((v, t) for t, v in get_lexer_by_name("synsema").get_tokens('"a\\q"'))
    assert bad["\\q"] in Error                  # an unknown escape, as the compiler says


def doc_blocks():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for i, m in enumerate(re.finditer(r"```synsema\n(.*?)```", path.read_text(), re.S)):
            yield pytest.param(m.group(1), id=f"{path.name}-{i}")
    for path in sorted((ROOT / "examples").rglob("*.syn")):
        yield pytest.param(path.read_text(), id=path.name)


@pytest.mark.parametrize("code", list(doc_blocks()))
def test_every_docs_block_and_example_highlights_without_error(code):
    errors = [v for t, v in get_lexer_by_name("synsema").get_tokens(code) if t in Error]
    assert errors == []


# ---- the TextMate grammar -----------------------------------------------------------------

def tm_tokens(grammar, line):
    """[(text, scope)] of one line: at each position the pattern matching earliest wins
    (the first listed on a tie); inside a begin/end rule its end and inner patterns."""
    repo = grammar["repository"]
    top = [repo[p["include"][1:]] for p in grammar["patterns"]]
    out, pos, inside = [], 0, None
    while pos < len(line):
        rules = [{"match": inside["end"], "close": True}] + inside.get("patterns", []) \
            if inside else top
        best = None
        for rule in rules:
            m = re.compile(rule.get("match") or rule.get("begin")).search(line, pos)
            if m and (best is None or m.start() < best[1].start()):
                best = (rule, m)
        if best is None:
            break
        rule, m = best
        if m.end() == m.start() and rule.get("close"):
            inside = None
            continue
        if "begin" in rule:
            inside = rule
            out.append((m.group(), rule["name"]))
        elif rule.get("close"):
            out.append((m.group(), inside["name"]))
            inside = None
        elif "captures" in rule:
            out += [(m.group(int(k)), c["name"]) for k, c in rule["captures"].items()]
        else:
            out.append((m.group(), rule["name"]))
        pos = max(m.end(), pos + 1)
    return out


def test_textmate_scopes_of_a_sample():
    grammar = json.loads((VSCODE / "syntaxes" / "synsema.tmLanguage.json").read_text())
    toks = [t for line in SAMPLE.splitlines() for t in tm_tokens(grammar, line)]
    for tok in [("task", "storage.type.function.synsema"),
                ("add", "entity.name.function.synsema"), ("number", "support.type.synsema"),
                ("1", "constant.numeric.synsema"),
                ("-- adds", "comment.line.double-dash.synsema"),
                ("give", "keyword.control.synsema"), ("2.5e3", "constant.numeric.synsema"),
                ("not", "keyword.operator.logical.synsema"),
                ("contains", "support.function.builtin.synsema"),
                ('"', "string.quoted.double.synsema"),
                ("\\n", "constant.character.escape.synsema"),
                ("true", "constant.language.synsema"), ("+", "keyword.operator.synsema")]:
        assert tok in toks, tok
    assert ("m", "support.function.builtin.synsema") not in toks
    assert ("\\q", "invalid.illegal.escape.synsema") in tm_tokens(grammar, 'x("a\\q")')
    # a comment marker inside a text is text
    assert tm_tokens(grammar, '"a -- b"')[0] == ('"', "string.quoted.double.synsema")
    assert not any(s.startswith("comment") for _, s in tm_tokens(grammar, '"a -- b"'))


def test_the_grammar_file_is_generated_from_the_word_lists():
    on_disk = json.loads((VSCODE / "syntaxes" / "synsema.tmLanguage.json").read_text())
    assert on_disk == textmate_grammar(), \
        "regenerate: make regen (python -m synsema.highlight --textmate > " \
        "editors/vscode/syntaxes/synsema.tmLanguage.json)"
    text = json.dumps(on_disk)
    for word in list(load_all()) + KEYWORDS:
        assert re.search(rf"\b{word}\b", text), word


def test_the_extension_manifest():
    manifest = json.loads((VSCODE / "package.json").read_text())
    (lang,) = manifest["contributes"]["languages"]
    (gram,) = manifest["contributes"]["grammars"]
    assert lang["extensions"] == [".syn"] and gram["scopeName"] == "source.synsema"
    assert (VSCODE / gram["path"]).is_file()
    config = json.loads((VSCODE / lang["configuration"]).read_text())
    assert config["comments"] == {"lineComment": "--"}
    rules = config["indentationRules"]
    assert re.match(rules["increaseIndentPattern"], "    for each x in xs")
    assert not re.match(rules["increaseIndentPattern"], "task_count(1)")
    assert re.match(rules["decreaseIndentPattern"], "otherwise")
