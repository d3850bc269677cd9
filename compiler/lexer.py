"""Source -> tokens: a PLY lexer, then a filter that turns indentation into INDENT/DEDENT.

Newlines inside ( ) [ ] { } are not tokens (implicit line joining). Comments run from
`--` to the end of the line. A `(` whose matching `)` is followed by `=>` becomes
LPAREN_LAMBDA, so the grammar tells a lambda's parameter list from a parenthesised
expression without backtracking.
"""

import re

import ply.lex as lex

from synsema.vm.errors import CompileError

KEYWORDS = (
    "task give let be set to when otherwise while for each in break continue try recover "
    "test require intent and or not true false nothing"
).split()

tokens = tuple(k.upper() for k in KEYWORDS) + (
    "NAME", "NUMBER", "TEXT",
    "PLUS", "MINUS", "TIMES", "DIVIDE", "MOD",
    "EQ", "NE", "LT", "LE", "GT", "GE", "ASSIGN", "ARROW",
    "LPAREN", "RPAREN", "LBRACKET", "RBRACKET", "LBRACE", "RBRACE",
    "COMMA", "COLON", "DOT",
    "NEWLINE", "INDENT", "DEDENT", "LPAREN_LAMBDA",
)

_KEYWORD_TYPES = {k: k.upper() for k in KEYWORDS}

# What a token is called in an error message.
TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "TEXT": "a text", "NEWLINE": "end of line",
    "INDENT": "an indented block", "DEDENT": "the end of the block", "PLUS": "'+'",
    "MINUS": "'-'", "TIMES": "'*'", "DIVIDE": "'/'", "MOD": "'%'", "EQ": "'=='", "NE": "'!='",
    "LT": "'<'", "LE": "'<='", "GT": "'>'", "GE": "'>='", "ASSIGN": "'='", "ARROW": "'=>'",
    "LPAREN": "'('", "LPAREN_LAMBDA": "'('", "RPAREN": "')'", "LBRACKET": "'['",
    "RBRACKET": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','", "COLON": "':'",
    "DOT": "'.'",
}
TOKEN_WORDS.update({k.upper(): f"'{k}'" for k in KEYWORDS})

t_ignore = " \t\r"

t_PLUS = r"\+"
t_TIMES = r"\*"
t_DIVIDE = r"/"
t_MOD = r"%"
t_ARROW = r"=>"
t_EQ = r"=="
t_NE = r"!="
t_LE = r"<="
t_GE = r">="
t_LT = r"<"
t_GT = r">"
t_ASSIGN = r"="
t_COMMA = r","
t_COLON = r":"
t_DOT = r"\."

_OPENERS = {"(": ")", "[": "]", "{": "}"}


def t_COMMENT(t):
    r"--[^\n]*"
    return None


def t_MINUS(t):
    r"-"
    return t


def t_open(t):
    r"[\(\[\{]"
    t.type = {"(": "LPAREN", "[": "LBRACKET", "{": "LBRACE"}[t.value]
    t.lexer.brackets.append(t)
    return t


def t_close(t):
    r"[\)\]\}]"
    t.type = {")": "RPAREN", "]": "RBRACKET", "}": "RBRACE"}[t.value]
    stack = t.lexer.brackets
    if not stack:
        _fail(t.lexer, f"'{t.value}' has no matching opening bracket", t.lexpos)
    opener = stack.pop()
    if _OPENERS[opener.value] != t.value:
        line, col = _position(t.lexer, opener.lexpos)
        _fail(t.lexer, f"'{t.value}' does not close '{opener.value}' opened at line {line}, "
                       f"column {col}; expected '{_OPENERS[opener.value]}'", t.lexpos)
    return t


def t_NUMBER(t):
    r"(\d+\.\d+|\d+)([eE][+-]?\d+)?"
    text = t.value
    if "." in text or "e" in text or "E" in text:
        t.value = float(text)
    else:
        t.value = int(text)
    return t


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


def t_TEXT(t):
    r'"([^"\\\n]|\\.)*"'
    raw = t.value[1:-1]
    out = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == "u":
            end = raw.find("}", i)
            digits = raw[i + 3:end] if raw.startswith("{", i + 2) and end > 0 else ""
            try:
                out.append(chr(int(digits, 16)))
            except (ValueError, OverflowError):
                _fail(t.lexer, "bad \\u escape; write \\u{HEX} with 1 to 6 hex digits, "
                               "like \\u{1F600}", t.lexpos + 1 + i)
            i = end + 1
        else:
            _fail(t.lexer, f"unknown escape '\\{e}' in text; the escapes are "
                           '\\" \\\\ \\n \\t \\r \\u{HEX}', t.lexpos + 1 + i)
    t.value = "".join(out)
    return t


def t_NAME(t):
    r"[A-Za-z_][A-Za-z0-9_]*"
    t.type = _KEYWORD_TYPES.get(t.value, "NAME")
    return t


def t_newline(t):
    r"\n+"
    t.lexer.lineno += len(t.value)
    if not t.lexer.brackets:
        t.type = "NEWLINE"
        return t
    return None


def t_error(t):
    c = t.value[0]
    if c == '"':
        _fail(t.lexer, "text is not closed; add a '\"' before the end of the line", t.lexpos)
    if c == "!":
        _fail(t.lexer, "unexpected '!'; write 'not' for negation and '!=' for inequality",
              t.lexpos)
    _fail(t.lexer, f"unexpected character {c!r}", t.lexpos)


def _position(lexer, pos):
    src = lexer.lexdata
    line = src.count("\n", 0, pos) + 1
    col = pos - (src.rfind("\n", 0, pos) + 1) + 1
    return line, col


def _fail(lexer, message, pos):
    line, col = _position(lexer, pos)
    raise CompileError(message, line, col, lexer.source_name)


_master = lex.lex(optimize=False, debug=False, errorlog=lex.NullLogger())


class Tok:
    """A token after filtering: PLY's LexToken shape (type, value, lineno, lexpos) + col."""
    __slots__ = ("type", "value", "lineno", "lexpos", "col", "lexer")  # PLY sets .lexer

    def __init__(self, type_, value, lineno, lexpos, col):
        self.type = type_
        self.value = value
        self.lineno = lineno
        self.lexpos = lexpos
        self.col = col

    def __repr__(self):
        return f"{self.type}({self.value!r})@{self.lineno}:{self.col}"


_BLANKS = re.compile("[" + re.escape(t_ignore) + "]+")


class _Scan:
    """What the token rules see as `t.lexer`: the bracket stack, line and source."""
    __slots__ = ("brackets", "lineno", "lexdata", "source_name")

    def __init__(self, source, source_name):
        self.brackets = []
        self.lineno = 1
        self.lexdata = source
        self.source_name = source_name


def tokenize(source, source_name="<source>"):
    """The complete token list of `source`, indentation resolved, ready for the parser.

    The token rules above are PLY's; PLY compiles them into one master regex. This scans
    with that regex directly (PLY's own `token()` loop makes and re-makes an object per
    token, which was most of the compile time) and calls the same rule functions."""
    (master, index), = _master.lexre
    ignore = _master.lexignore
    scan = _Scan(source, source_name)
    raw = []
    append = raw.append
    pos, n = 0, len(source)
    line, line_start = 1, 0
    match = master.match
    newline_rule = t_newline
    skip = _BLANKS.match
    while pos < n:
        if source[pos] in ignore:
            pos = skip(source, pos).end()
            if pos >= n:
                break
        m = match(source, pos)
        if m is None:
            bad = Tok("error", source[pos:], line, pos, pos - line_start + 1)
            bad.lexer = scan
            t_error(bad)
        end = m.end()
        func, typ = index[m.lastindex]
        tok = Tok(typ, m.group(), line, pos, pos - line_start + 1)
        if func is None:
            append(tok)
        else:
            tok.lexer = scan
            scan.lineno = line
            result = func(tok)
            if func is newline_rule:
                line = scan.lineno
                line_start = end
            if result is not None:
                append(result)
        pos = end
    if scan.brackets:
        opener = scan.brackets[-1]
        _fail(scan, f"'{opener.value}' is never closed; add '{_OPENERS[opener.value]}'",
              opener.lexpos)
    line_starts = [0]
    find = source.find
    i = find("\n")
    while i >= 0:
        line_starts.append(i + 1)
        i = find("\n", i + 1)
    _mark_lambdas(raw)
    return _indent(raw, source, line_starts, scan)


def _mark_lambdas(toks):
    depth_stack = []
    for i, t in enumerate(toks):
        if t.type == "LPAREN":
            depth_stack.append(i)
        elif t.type == "RPAREN" and depth_stack:
            j = depth_stack.pop()
            if i + 1 < len(toks) and toks[i + 1].type == "ARROW":
                toks[j].type = "LPAREN_LAMBDA"


def _indent(raw, source, line_starts, lexer):
    out = []
    stack = [1]
    at_line_start = True
    last_line = 1
    for t in raw:
        if t.type == "NEWLINE":
            if not at_line_start:
                out.append(t)
                at_line_start = True
            continue
        if at_line_start:
            start = line_starts[t.lineno - 1]
            if "\t" in source[start:t.lexpos]:
                raise CompileError("tab in indentation; use spaces", t.lineno,
                                   source.index("\t", start) - start + 1, lexer.source_name)
            col = t.col
            if col > stack[-1]:
                stack.append(col)
                out.append(Tok("INDENT", col, t.lineno, t.lexpos, col))
            elif col < stack[-1]:
                while col < stack[-1]:
                    stack.pop()
                    out.append(Tok("DEDENT", col, t.lineno, t.lexpos, col))
                if col != stack[-1]:
                    raise CompileError(
                        f"this line is indented to column {col}, which matches no enclosing "
                        f"block (they start at columns {', '.join(map(str, stack))}); "
                        "line it up with the block it belongs to",
                        t.lineno, col, lexer.source_name)
            at_line_start = False
        out.append(t)
        last_line = t.lineno
    end = len(source)
    if not at_line_start:
        out.append(Tok("NEWLINE", "\n", last_line, end, 0))
    while len(stack) > 1:
        stack.pop()
        out.append(Tok("DEDENT", 1, last_line + 1, end, 1))
    return out
