"""What a syntax error means: the message, position and fix for a token the parser's
tables cannot take (compiler.parser asks), from the tokens around it -- a Python habit, a
call without parentheses, a missing bracket or colon, a text prefix, ..."""

import re

from synsema.compiler.lexer import COL, LINE, POS, TOKEN_WORDS, TYPE, VALUE
from synsema.compiler.resolve import TYPES, key_fix, type_fix
from synsema.vm.errors import CompileError
from synsema.vm.program import KEYWORDS
from synsema.vm.signatures import SIGNATURES

__all__ = ["Parse", "syntax_error", "expected_tokens", "line_start"]

_COMPARISONS = {"EQ", "NE", "LT", "LE", "GT", "GE"}


class Parse:
    """One parse in progress: what the error messages read (its tokens, its state stack,
    the tables' action rows), made per call, so parses in several threads never see each
    other's."""
    __slots__ = ("source_name", "toks", "states", "tasks", "action")

    def __init__(self, toks, source_name, action):
        self.source_name = source_name
        self.toks = toks
        self.states = [0]
        self.tasks = None           # the names of the file's tasks, when a message wants them
        self.action = action        # state -> {token type: action} (compiler.parser)


def syntax_error(ps, i):
    """The CompileError for the token toks[i] (i == len(toks): the end of the file), which
    the parser in state ps.states[-1] cannot take."""
    name = ps.source_name
    toks = ps.toks
    expected = expected_tokens(ps)
    if i >= len(toks):
        if expected == ["RECOVER"]:
            at = _try_of(ps, len(toks))
            return CompileError(f"the file ends before 'recover': {_no_recover(ps, len(toks))}",
                                at[LINE], at[COL], name)
        last = toks[-1] if toks else None
        msg = "the file ends where an indented block should follow this line" \
            if "INDENT" in expected else "unexpected end of file"
        return CompileError(msg, last[LINE] if last else 1, last[COL] if last else 1, name)
    tok = toks[i]
    got = _describe(tok)
    typ, line, col = tok[TYPE], tok[LINE], tok[COL]
    habit = _python_habit(ps, i)
    if habit is not None:
        msg, at = habit
        line, col = at[LINE], at[COL]       # the caret goes on the Python word
    elif typ in _COMPARISONS and _previous_is_comparison(toks, i):
        msg = "comparisons do not chain; write `a < b and b < c`"
    elif _continues_above(toks, i) is not None:
        op = _continues_above(toks, i)
        line, col = op[LINE], op[COL]
        msg = f"a line cannot continue the one above by starting with {_describe(op)}; to " \
              "split an expression across lines, wrap it in ( ): newlines inside ( ), [ ] " \
              "and { } are ignored"
    elif typ == "INDENT":
        msg = "unexpected indent; only a line that opens a block (task, when, while, ...) " \
              "is followed by a more indented block"
    elif typ == "ASSIGN" and "BE" not in expected:
        msg = "unexpected '='; declare with `let x be 1`, assign with `set x to 2`, " \
              "compare with '=='"
    elif "BE" in expected and typ == "ASSIGN":
        msg = "write `let x be VALUE`, not `let x = VALUE`"
    elif typ in _KEYWORD_TYPES and set(expected) == {"NAME", "TASK"}:
        # a parameter's type (`task f(a: nothing)`): a keyword is no type either
        msg = f"unknown type '{tok[VALUE]}'{type_fix(tok[VALUE])} (the types are " \
              f"{', '.join(TYPES)})"
    elif typ in _KEYWORD_TYPES and ("NAME" in expected and set(expected) <= _NAME_SLOT or
                                    i > 0 and toks[i - 1][TYPE] == "DOT" or
                                    _map_key(toks, i)):
        # where a name must be (let, set, for each, task, parameter, lambda parameter,
        # recover, a field), every reserved word is refused the same way
        msg = f"'{tok[VALUE]}' is a keyword and cannot be used as a name"
        if _map_key(toks, i):
            msg += "; " + key_fix(tok[VALUE])
        elif i > 0 and toks[i - 1][TYPE] == "DOT":
            # a map key named like a keyword (mail records have `to`, JSON has `in`)
            key = f"[\"{tok[VALUE]}\"]"
            owner = _owner(toks, i - 1)
            msg += "; for a key named like that, use brackets: " + \
                (f"{owner}{key}" if owner else f"{key} in place of .{tok[VALUE]}")
    elif typ == "OTHERWISE":
        msg = "'otherwise' must follow a `when` block at the same indentation"
    elif typ == "RECOVER":
        msg = "'recover' must follow a `try` block at the same indentation"
    elif expected == ["RECOVER"]:
        msg = f"expected 'recover' here: {_no_recover(ps, i)}"
    elif expected == ["NAME"] and i > 0 and toks[i - 1][TYPE] == "RECOVER":
        msg = "`recover` needs a name for the error's message after it: `recover err`"
    elif typ == "COLON" and _header(toks, i) and toks[i + 1][TYPE] == "NEWLINE":
        kw = _header(toks, i)
        msg = f"Synsema headers have no ':'; remove it after `{kw}` (the indented block " \
              "below is its body)"
    elif typ == "NEWLINE" and "INDENT" in expected:
        msg = "expected an indented block after this line"
    elif typ == "NEWLINE" and "NAME" in expected and "NUMBER" in expected and i > 0:
        msg, at = _line_ends_early(toks[i - 1])
        line, col = at[LINE], at[COL]
    elif "PLUS" in expected:
        msg = _after_complete_expression(toks, i, got)
    elif typ == "DEDENT" or (typ == "NEWLINE" and expected):
        msg = f"unexpected {got}; expected {_list(expected)}"
    else:
        msg = f"unexpected {got}" + (f"; expected {_list(expected)}" if expected else "")
    return CompileError(msg, line, col, name)


_KEYWORD_TYPES = frozenset(k.upper() for k in KEYWORDS)
# What the parser expects where only a name may come: after `let`, `set`, `for each`,
# `task`, `recover` (a name), in a parameter list (a name or the closing ')').
_NAME_SLOT = frozenset({"NAME", "RPAREN"})


def _map_key(toks, i):
    """Is toks[i] written as a map literal's key (`{to: 1}`: after '{' or ',' in a map,
    before ':')?"""
    return 0 < i < len(toks) - 1 and toks[i - 1][TYPE] in ("LBRACE", "COMMA") and \
        toks[i + 1][TYPE] == "COLON" and (o := _open_bracket(toks, i)) is not None and \
        o[TYPE] == "LBRACE"


def _try_of(ps, i):
    """The TRY token whose block toks[i - 1] (a DEDENT) ends."""
    toks = ps.toks
    depth = 0
    j = i - 1
    while j > 0:
        typ = toks[j][TYPE]
        depth += typ == "DEDENT"
        depth -= typ == "INDENT"
        if depth == 0:
            break
        j -= 1
    return toks[j - 2] if j >= 2 else toks[i - 1]       # TRY NEWLINE INDENT


def _no_recover(ps, i):
    """What a `try` whose block ended at toks[i - 1] without a `recover` needs."""
    return (f"the `try` at line {_try_of(ps, i)[LINE]} needs a `recover NAME` block after its "
            "block, at the same indentation as `try`: `recover err`, then an indented block "
            "that handles the error (`err` holds its message)")


# The keyword that starts each kind of block header, as messages name the header.
_HEADERS = {"TASK": "task", "TEST": "test", "WHEN": "when", "OTHERWISE": "otherwise",
            "WHILE": "while", "FOR": "for each", "TRY": "try", "RECOVER": "recover"}
_BINARY = _COMPARISONS | {"PLUS", "MINUS", "TIMES", "DIVIDE", "MOD", "AND", "OR", "NOT"}
# Tokens that begin a statement, or an expression: after a complete statement on the
# same line, a second statement (or a missing operator).
_STATEMENT_WORDS = {"LET", "SET", "GIVE", "WHEN", "WHILE", "FOR", "TRY", "BREAK", "CONTINUE",
                    "REQUIRE", "TASK", "TEST"}
_STARTERS = {"NAME", "NUMBER", "TEXT", "TRUE", "FALSE", "NOTHING", "LBRACE", "LPAREN_LAMBDA"}


def _continues_above(toks, i):
    """The binary operator that starts toks[i]'s line (maybe after an INDENT), as if to
    continue the expression of the line above, or None."""
    if toks[i][TYPE] == "INDENT":
        i += 1
    if 0 < i < len(toks) and toks[i - 1][TYPE] in ("NEWLINE", "INDENT") and \
            toks[i][TYPE] in _BINARY - {"NOT", "MINUS"}:
        return toks[i]
    return None


def line_start(toks, i):
    """The index of the first token of the line toks[i] is on."""
    while i > 0 and toks[i - 1][TYPE] not in ("NEWLINE", "INDENT", "DEDENT"):
        i -= 1
    return i


def _header(toks, i):
    """The header keyword (`when`, `for each`, ...) starting toks[i]'s line, or None."""
    return _HEADERS.get(toks[line_start(toks, i)][TYPE])


def _line_ends_early(prev):
    """(message, token to point at) for a line that ends where an expression must follow
    `prev`. Lines join only inside brackets (SPEC section 1)."""
    if prev[TYPE] == "ARROW":
        return ("a lambda holds one expression, on the same line as '=>': `(x) => x + 1` "
                "(wrap a long one in ( ) to continue it on the next line)", prev)
    word = TOKEN_WORDS.get(prev[TYPE], _describe(prev))
    if prev[TYPE] in _BINARY:
        return (f"the line ends after {word}, so the expression is incomplete; to continue "
                "an expression on the next line, wrap it in ( ): newlines inside ( ), [ ] "
                "and { } are ignored", prev)
    return (f"expected an expression after {word}, on the same line", prev)


def _after_complete_expression(toks, i, got):
    """The message for toks[i] after an expression that was complete: what may follow it
    there (a separator, a closing bracket, the end of the line)."""
    tok = toks[i]
    opener = _open_bracket(toks, i)
    if opener is None:
        kw = _header(toks, i)
        if kw in ("when", "otherwise", "while", "for each"):
            what = "what it loops over" if kw == "for each" else "its condition"
            word = f"'{tok[VALUE]}'" if isinstance(tok[VALUE], str) and tok[TYPE] != "TEXT" \
                else got
            return f"unexpected {got}; a `{kw}` line ends with {what}: remove {word}"
        if tok[TYPE] in _STATEMENT_WORDS:
            return f"unexpected {got} after a complete statement; write one statement per " \
                   "line"
        if tok[TYPE] in _STARTERS:
            return f"unexpected {got} after a complete expression; write one statement per " \
                   "line, or join the two with an operator"
        return f"unexpected {got}; expected end of line"
    close = _CLOSERS[opener[TYPE]]
    if opener[TYPE] == "LBRACE" and not _after_colon(toks, opener, i):
        return f"unexpected {got}; expected ':' between a key and its value"
    if opener[TYPE] == "LPAREN" and not _ends_value(toks, opener):
        return f"unexpected {got}; expected '{close}'"
    what = {"LBRACKET": "items", "LBRACE": "entries"}.get(opener[TYPE], "arguments")
    return f"unexpected {got}; expected ',' or '{close}' (separate the {what} with ',')"


_CLOSERS = {"LPAREN": ")", "LPAREN_LAMBDA": ")", "LBRACKET": "]", "LBRACE": "}"}


def _open_bracket(toks, i):
    """The innermost bracket open at toks[i] (a token), or None (lines hold no newline
    tokens inside brackets, so the search ends at the line's start)."""
    depth = 0
    for j in range(i - 1, -1, -1):
        typ = toks[j][TYPE]
        if typ in ("NEWLINE", "INDENT", "DEDENT"):
            return None
        if typ in ("RPAREN", "RBRACKET", "RBRACE"):
            depth += 1
        elif typ in ("LPAREN", "LPAREN_LAMBDA", "LBRACKET", "LBRACE"):
            if depth == 0:
                return toks[j]
            depth -= 1
    return None


def _after_colon(toks, opener, i):
    """Inside the map opened by `opener`, is toks[i] in a value (after the key's ':')?"""
    depth = 0
    seen_colon = False
    for t in toks[toks.index(opener) + 1:i]:
        typ = t[TYPE]
        if typ in ("LPAREN", "LPAREN_LAMBDA", "LBRACKET", "LBRACE"):
            depth += 1
        elif typ in ("RPAREN", "RBRACKET", "RBRACE"):
            depth -= 1
        elif depth == 0 and typ == "COLON":
            seen_colon = True
        elif depth == 0 and typ == "COMMA":
            seen_colon = False
    return seen_colon


def _ends_value(toks, opener):
    """Does a value end just before `opener`, making that `(` a call's?"""
    k = toks.index(opener)
    return k > 0 and toks[k - 1][TYPE] in ("NAME", "RPAREN", "RBRACKET", "RBRACE", "TEXT")


# Words a Python programmer types first, and the Synsema that says the same.
_PYTHON_WORDS = {
    "if": "Synsema writes `when CONDITION` (then `otherwise when`, `otherwise`)",
    "elif": "Synsema writes `otherwise when CONDITION`",
    "else": "Synsema writes `otherwise`",
    "return": "Synsema writes `give VALUE` to return from a task",
    "def": "Synsema declares a task with `task NAME(PARAMS)`",
    "for": "Synsema loops with `for each NAME in LIST`",
    "import": "Synsema has no imports: builtins are always there, host tools come from "
              "the host (--tools)",
    "from": "Synsema has no imports: builtins are always there, host tools come from "
            "the host (--tools)",
    "pass": "Synsema needs no `pass`: give the block a statement, or `give`",
    "lambda": "Synsema writes a lambda as `(x) => EXPR`, like `(x) => x + 1`",
    "raise": "Synsema stops with an error with `fail(MESSAGE)`",
    "except": "Synsema catches errors with `try` and then `recover NAME`",
    "class": "Synsema has no classes: keep data in a map, and behaviour in tasks",
}


def _owner(toks, dot):
    """The source of the `a.b` path before the dot at toks[dot] (None when it is not a
    plain path of names: a call's result, an index)."""
    parts = []
    j = dot - 1
    while j >= 0 and toks[j][TYPE] == "NAME":
        parts.append(toks[j][VALUE])
        if j == 0 or toks[j - 1][TYPE] != "DOT":
            return ".".join(reversed(parts))
        j -= 2
    return None


# Python's operators that Synsema spells otherwise, by their two tokens.
_PYTHON_OPERATORS = {
    ("TIMES", "TIMES"): "Synsema has no `**`; multiply (x * x), or repeat it in a loop",
    ("DIVIDE", "DIVIDE"): "Synsema has no `//`; floor(a / b) divides and rounds down",
}


def _python_habit(ps, i):
    """(hint, the Python word) when the error at toks[i] is where a Python habit shows: a
    Python keyword at the start of a statement (`xs.append(1)` parses -- a map may hold a
    task -- and is explained when it runs)."""
    toks = ps.toks
    if i >= len(toks):
        return None
    tok = toks[i]
    prev = toks[i - 1] if i > 0 else None
    if prev is not None and prev[TYPE] == "NAME" and (i < 2 or toks[i - 2][TYPE] != "DOT"):
        hint = _prefixed_text(prev, tok) or _lambda(toks, i) or _call_without_parens(ps, i)
        if hint is not None:
            return hint
    if prev is not None and prev[TYPE] == "NAME" and prev[VALUE] in _PYTHON_WORDS and (
            i < 2 or toks[i - 2][TYPE] in ("NEWLINE", "INDENT", "DEDENT")):
        return f"'{prev[VALUE]}' is Python; {_PYTHON_WORDS[prev[VALUE]]}", prev
    if tok[TYPE] == "NAME" and tok[VALUE] in _PYTHON_WORDS and (
            prev is None or prev[TYPE] in ("NEWLINE", "INDENT", "DEDENT")):
        return f"'{tok[VALUE]}' is Python; {_PYTHON_WORDS[tok[VALUE]]}", tok
    if prev is not None and prev[TYPE] == "FOR" and tok[TYPE] != "EACH":
        return f"expected 'each' after 'for'; {_PYTHON_WORDS['for']}", tok
    if prev is not None and (prev[TYPE], tok[TYPE]) in _PYTHON_OPERATORS and \
            (prev[LINE], prev[COL] + 1) == (tok[LINE], tok[COL]):
        return _PYTHON_OPERATORS[prev[TYPE], tok[TYPE]], prev
    if tok[TYPE] == "ARROW" and prev is not None and prev[TYPE] == "NAME":
        return (f"a lambda's parameters are in parentheses, even one: ({prev[VALUE]}) => ...",
                prev)
    if tok[TYPE] == "INDENT" and i >= 2:
        # `else` alone on its line parses (it is a name); the block under it does not.
        first = toks[line_start(toks, i - 1)]
        if first[TYPE] == "NAME" and first[VALUE] in _PYTHON_WORDS:
            return f"'{first[VALUE]}' is Python; {_PYTHON_WORDS[first[VALUE]]}", first
    return None


# Python's text prefixes (f"...", r"...", b"...", and their mixes), in lower case.
_TEXT_PREFIXES = frozenset({"f", "r", "b", "u", "fr", "rf", "br", "rb"})
_FIELD = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}")


def _prefixed_text(prev, tok):
    """(hint, the prefix) for a text written with a Python prefix, no space between:
    `f"hello {name}"`, `r"a\b"`."""
    if tok[TYPE] != "TEXT" or prev[VALUE].lower() not in _TEXT_PREFIXES or \
            prev[POS] + len(prev[VALUE]) != tok[POS]:
        return None
    prefix = prev[VALUE]
    if "f" not in prefix.lower():
        return (f"Synsema texts take no prefix: remove the '{prefix}' before the '\"'" +
                (" (a backslash in a text is written \\\\)" if "r" in prefix.lower() else ""),
                prev)
    if _FIELD.search(tok[VALUE]) is None and "{" not in tok[VALUE]:
        return (f"Synsema has no f-strings: remove the '{prefix}' (to build a text from "
                'values, use + and text(x): "hello " + text(name))', prev)
    return ("Synsema has no f-strings; build the text with + and text(x): "
            f"{_joined(tok[VALUE])}", prev)


def _joined(value):
    """An f-string's text as Synsema writes it ("hello " + text(name)), when its fields
    are plain names; a generic example otherwise."""
    parts, at = [], 0
    for m in _FIELD.finditer(value):
        if m.start() > at:
            parts.append(_quote(value[at:m.start()]))
        parts.append(f"text({m[1]})")
        at = m.end()
    if at < len(value):
        parts.append(_quote(value[at:]))
    out = " + ".join(parts)
    if any(("{" in p or "}" in p) and not p.startswith("text(") for p in parts) or \
            len(out) > 72:
        return '"hello " + text(name)'         # {x:.2f}, {{, {a[0]}, or a long one
    return out


def _quote(text):
    """A text as a Synsema literal."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + '"'


def _lambda(toks, i):
    """(hint, the word) for Python's `lambda x: EXPR` (`lambda` parses as a name, so the
    error comes at the parameter, or the ':')."""
    prev = toks[i - 1]
    if prev[VALUE] != "lambda" or toks[i][TYPE] not in ("NAME", "COLON"):
        return None
    names, j = [], i
    while j < len(toks) and toks[j][TYPE] == "NAME":
        names.append(toks[j][VALUE])
        j += 1
        if j < len(toks) and toks[j][TYPE] == "COMMA":
            j += 1
    params = ", ".join(names) if j < len(toks) and toks[j][TYPE] == "COLON" else "x"
    return (f"'lambda' is Python; Synsema writes a lambda as `({params}) => EXPR`, like "
            "`(x) => x + 1`", prev)


# Tokens that start an argument: after a builtin's or task's name, a call written without
# its parentheses (`print x`). ( [ and - would continue the expression.
_ARGUMENT_STARTS = {"NAME", "NUMBER", "TEXT", "TRUE", "FALSE", "NOTHING", "NOT", "LBRACE",
                    "LPAREN_LAMBDA"}


def _call_without_parens(ps, i):
    """(hint, the argument) for `print x`, `go 1`: a builtin or a task of the file called
    as in Python 2 or a shell."""
    toks = ps.toks
    tok, prev = toks[i], toks[i - 1]
    if tok[TYPE] not in _ARGUMENT_STARTS or "PLUS" not in expected_tokens(ps):
        return None             # not after a complete expression (`task print x`)
    name = prev[VALUE]
    if ps.tasks is None:        # once per parse: a file may have many such errors
        ps.tasks = {toks[k + 1][VALUE] for k in range(len(toks) - 1)
                    if toks[k][TYPE] == "TASK" and toks[k + 1][TYPE] == "NAME"}
    if name in ps.tasks:
        kind = "task"
    else:
        if name not in SIGNATURES:
            return None
        kind = "builtin"
    return (f"unexpected {_describe(tok)} after the {kind} '{name}'; call it with "
            f"parentheses: {name}({_argument(toks, i)})", tok)


def _argument(toks, i):
    """How the argument starting at toks[i] is written, if it is one word; '...'."""
    tok = toks[i]
    if i + 1 < len(toks) and toks[i + 1][TYPE] not in ("NEWLINE", "RPAREN", "RBRACKET",
                                                        "RBRACE", "COMMA"):
        return "..."
    if tok[TYPE] == "NAME" or tok[TYPE] in ("TRUE", "FALSE", "NOTHING"):
        return tok[VALUE]
    if tok[TYPE] == "NUMBER":
        return str(tok[VALUE])
    if tok[TYPE] == "TEXT" and len(tok[VALUE]) <= 40:
        return _quote(tok[VALUE])
    return "..."


def _describe(tok):
    typ = tok[TYPE]
    if typ == "NAME":
        return f"name '{tok[VALUE]}'"
    if typ == "NUMBER":
        return f"number {tok[VALUE]}"
    if typ == "TEXT":
        return "text"
    return TOKEN_WORDS.get(typ, typ)


def expected_tokens(ps):
    try:
        state = ps.states[-1]
        names = [t for t in ps.action[state] if t != "$end" and t != "error"]
    except (AttributeError, IndexError, KeyError, TypeError):
        return []
    return names


def _list(expected):
    words = sorted({TOKEN_WORDS.get(t, t) for t in expected})
    if len(words) > 6:
        return "an expression or statement"
    return " or ".join(words)


def _previous_is_comparison(toks, i):
    """Is there a comparison before toks[i] in the same operand chain (`a < b < c`)?"""
    depth = 0
    for j in range(i - 1, -1, -1):
        typ = toks[j][TYPE]
        if typ in ("RPAREN", "RBRACKET", "RBRACE"):
            depth += 1
        elif typ in ("LPAREN", "LPAREN_LAMBDA", "LBRACKET", "LBRACE"):
            if depth == 0:
                return False
            depth -= 1
        elif depth == 0 and typ in _COMPARISONS:
            return True
        elif typ in ("NEWLINE", "INDENT", "DEDENT") or \
                depth == 0 and typ in ("AND", "OR", "NOT", "COMMA"):
            return False
    return False
