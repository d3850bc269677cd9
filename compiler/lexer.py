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
    t.lexer.last_opener = opener
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
    __slots__ = ("brackets", "lineno", "lexdata", "source_name", "last_opener")

    def __init__(self, source, source_name):
        self.brackets = []
        self.last_opener = None
        self.lineno = 1
        self.lexdata = source
        self.source_name = source_name


def tokenize(source, source_name="<source>"):
    """The complete token list of `source`, indentation resolved, ready for the parser.

    The token rules above are PLY's; PLY compiles them into one master regex. This scans
    with that regex directly (PLY's own `token()` loop makes and re-makes an object per
    token, which was most of the compile time), calls the same rule functions, and in
    the same pass turns the indentation of each line's first token into INDENT/DEDENT
    and marks lambda parentheses."""
    (master, index), = _master.lexre
    ignore = _master.lexignore
    scan = _Scan(source, source_name)
    out = []
    append = out.append
    pos, n = 0, len(source)
    line, line_start = 1, 0
    match = master.match
    newline_rule = t_newline
    name_rule = t_NAME
    keyword = _KEYWORD_TYPES.get
    skip = _BLANKS.match
    indents = [1]               # columns of the open blocks
    at_line_start = True
    last_line = 1
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
        if func is name_rule:
            tok.type = keyword(tok.value, "NAME")     # t_NAME, inline: a third of all tokens
        elif func is not None:
            tok.lexer = scan
            scan.lineno = line
            tok = func(tok)
            if func is newline_rule:
                line = scan.lineno
                line_start = end
            if tok is None:
                pos = end
                continue
            typ = tok.type
            if typ == "NEWLINE":
                if not at_line_start:      # blank and comment-only lines make no NEWLINE
                    append(tok)
                    at_line_start = True
                pos = end
                continue
            if typ == "RPAREN":
                # `(a, b) => ...`: the parenthesis that opened this one starts a lambda.
                j = end
                while j < n and source[j] in ignore:
                    j += 1
                if source.startswith("=>", j):
                    scan.last_opener.type = "LPAREN_LAMBDA"
        if at_line_start:
            _indentation(tok, indents, source, scan, line_start, append)
            at_line_start = False
        append(tok)
        last_line = tok.lineno
        pos = end
    if scan.brackets:
        opener = scan.brackets[-1]
        _fail(scan, f"'{opener.value}' is never closed; add '{_OPENERS[opener.value]}'",
              opener.lexpos)
    if not at_line_start:
        append(Tok("NEWLINE", "\n", last_line, n, 0))
    while len(indents) > 1:
        indents.pop()
        append(Tok("DEDENT", 1, last_line + 1, n, 1))
    return out


def _indentation(tok, indents, source, scan, line_start, append):
    """INDENT or DEDENTs before the first token of a line, from its column."""
    if "\t" in source[line_start:tok.lexpos]:
        raise CompileError("tab in indentation; use spaces", tok.lineno,
                           source.index("\t", line_start) - line_start + 1, scan.source_name)
    col = tok.col
    if col > indents[-1]:
        indents.append(col)
        append(Tok("INDENT", col, tok.lineno, tok.lexpos, col))
    elif col < indents[-1]:
        open_blocks = ", ".join(map(str, indents))
        while col < indents[-1]:
            indents.pop()
            append(Tok("DEDENT", col, tok.lineno, tok.lexpos, col))
        if col != indents[-1]:
            raise CompileError(
                f"this line is indented to column {col}, which matches no enclosing block "
                f"(the open blocks start at columns {open_blocks}); line it up with the "
                "block it belongs to", tok.lineno, col, scan.source_name)
