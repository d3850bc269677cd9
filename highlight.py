"""Syntax highlighting for Synsema: a Pygments lexer (registered as the `synsema` lexer by
the entry point in pyproject.toml, so `pygmentize -l synsema`, Sphinx, MkDocs and every
Pygments-based tool highlight `.syn` files) and the TextMate grammar of the VS Code
extension in editors/vscode/, both built from one list of words: the compiler's keywords
and the standard library's builtins.

    python -m synsema.highlight --textmate > editors/vscode/syntaxes/synsema.tmLanguage.json
"""

import json
import sys

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (Comment, Error, Keyword, Name, Number, Operator, Punctuation,
                            String, Whitespace)

from synsema.compiler.lexer import KEYWORDS
from synsema.stdlib.host import load_all

CONSTANTS = ("true", "false", "nothing")
WORD_OPERATORS = ("and", "or", "not")
DECLARATIONS = ("task", "test", "let", "require", "intent")
CONTROL = tuple(k for k in KEYWORDS if k not in CONSTANTS + WORD_OPERATORS + DECLARATIONS)
TYPES = ("number", "text", "bool", "list", "map", "task", "any")
BUILTINS = tuple(sorted(load_all()))

# The regular expressions both highlighters use (Python `re` and Oniguruma agree on them).
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
NUMBER = r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
ESCAPE = r'\\(?:["\\ntr]|u\{[0-9A-Fa-f]{1,6}\})'
OPERATOR = r"=>|==|!=|<=|>=|[-+*/%<>=]"
TYPE_AFTER_COLON = r"(:)(\s*)(" + "|".join(TYPES) + r")\b(?!\s*\()"


def _word_re(items):
    return r"\b(?:" + "|".join(items) + r")\b"


class SynsemaLexer(RegexLexer):
    """Synsema source (.syn)."""
    name = "Synsema"
    aliases = ["synsema", "syn"]
    filenames = ["*.syn"]
    mimetypes = ["text/x-synsema"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"--.*?$", Comment.Single),
            (r'"', String.Double, "text"),
            (r"(task)(\s+)(" + IDENT + ")", bygroups(Keyword.Declaration, Whitespace,
                                                     Name.Function)),
            (TYPE_AFTER_COLON, bygroups(Punctuation, Whitespace, Keyword.Type)),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(WORD_OPERATORS, suffix=r"\b"), Operator.Word),
            (words(DECLARATIONS, suffix=r"\b"), Keyword.Declaration),
            (words(CONTROL, suffix=r"\b"), Keyword),
            (words(BUILTINS, prefix=r"\b", suffix=r"\b(?=\s*\()"), Name.Builtin),
            (IDENT, Name),
            (NUMBER, Number),
            (OPERATOR, Operator),
            (r"[()\[\]{},:.]", Punctuation),
        ],
        "text": [
            (r'"', String.Double, "#pop"),
            (ESCAPE, String.Escape),
            (r"\\.", Error),                   # an unknown escape: a compile error too
            (r'[^"\\\n]+', String.Double),
            (r"\n", Error),                    # a text ends on its line
        ],
    }


def textmate_grammar():
    """The TextMate grammar (as a dict) of editors/vscode/syntaxes/synsema.tmLanguage.json."""
    def scope(name):
        return f"{name}.synsema"
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/"
                   "tmlanguage.json",
        "name": "Synsema",
        "scopeName": "source.synsema",
        "fileTypes": ["syn"],
        "patterns": [{"include": f"#{k}"} for k in (
            "comment", "text", "task", "type", "constant", "word-operator", "declaration",
            "control", "builtin", "number", "operator", "punctuation")],
        "repository": {
            "comment": {"name": scope("comment.line.double-dash"), "match": "--.*$"},
            "text": {
                "name": scope("string.quoted.double"), "begin": '"', "end": '"|$',
                "patterns": [{"name": scope("constant.character.escape"), "match": ESCAPE},
                             {"name": scope("invalid.illegal.escape"), "match": r"\\."}]},
            "task": {"match": r"\b(task)\s+(" + IDENT + ")",
                     "captures": {"1": {"name": scope("storage.type.function")},
                                  "2": {"name": scope("entity.name.function")}}},
            "type": {"match": TYPE_AFTER_COLON,
                     "captures": {"3": {"name": scope("support.type")}}},
            "constant": {"name": scope("constant.language"), "match": _word_re(CONSTANTS)},
            "word-operator": {"name": scope("keyword.operator.logical"),
                              "match": _word_re(WORD_OPERATORS)},
            "declaration": {"name": scope("keyword.other"), "match": _word_re(DECLARATIONS)},
            "control": {"name": scope("keyword.control"), "match": _word_re(CONTROL)},
            "builtin": {"name": scope("support.function.builtin"),
                        "match": _word_re(BUILTINS) + r"(?=\s*\()"},
            "number": {"name": scope("constant.numeric"), "match": r"\b" + NUMBER},
            "operator": {"name": scope("keyword.operator"), "match": OPERATOR},
            "punctuation": {"name": scope("punctuation"), "match": r"[()\[\]{},:.]"},
        },
    }


if __name__ == "__main__":
    if sys.argv[1:] != ["--textmate"]:
        sys.exit("usage: python -m synsema.highlight --textmate > synsema.tmLanguage.json")
    print(json.dumps(textmate_grammar(), indent=2))
