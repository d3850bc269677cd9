"""Source -> tokens: a PLY lexer, then a filter that turns indentation into INDENT/DEDENT.

Newlines inside ( ) [ ] { } are not tokens (implicit line joining). Comments run from
`--` to the end of the line. A `(` whose matching `)` is followed by `=>` becomes
LPAREN_LAMBDA, so the grammar tells a lambda's parameter list from a parenthesised
expression without backtracking.
"""

import re
import sys

import ply.lex as lex

from synsema.vm.digits import int_of_digits
from synsema.vm.errors import CompileError, SynError
from synsema.vm.program import KEYWORDS     # SPEC 1: the reserved words


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

# Not \r: a carriage return ends a line only as part of \r\n (t_NEWLINE); a lone one is
# an error, since editors show it as a line break the line count would not see.
t_ignore = " \t"

# The token rules (PLY's: it compiles them into one master regex, the functions first in
# the order written here, commonest first: the regex tries them in turn at every token).
# They only classify and convert; what depends on context -- brackets, lines,
# indentation, lambda parentheses -- is tokenize()'s job below.

t_PLUS = r"\+"
t_MINUS = r"-"
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
t_LPAREN = r"\("
t_RPAREN = r"\)"
t_LBRACKET = r"\["
t_RBRACKET = r"\]"
t_LBRACE = r"\{"
t_RBRACE = r"\}"


def t_NAME(t):
    r"[A-Za-z_][A-Za-z0-9_]*"
    t.type = _KEYWORD_TYPES.get(t.value, "NAME")
    return t


def t_NEWLINE(t):
    r"(?:\r?\n)+"
    return t


def t_NUMBER(t):
    r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    t.value = _number(t.value, t.lexpos, t.lexer)
    return t


# A text literal, "unrolled": runs of plain characters between escapes. No group repeats
# per character (`"([^"\\\n]|\\.)*"` kept a backtracking point for each one, some 350
# bytes a character); no capturing group (PLY numbers the master regex's groups).
# Possessive where Python has it (3.11+): not even an escape leaves a backtracking point.
_TEXT = (r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"' if sys.version_info >= (3, 11)
         else r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')


@lex.TOKEN(_TEXT)
def t_TEXT(t):
    t.value = _unescape(t.value, t.lexpos, t.lexer)
    return t


def t_COMMENT(t):
    r"--[^\r\n]*"
    return None


def t_error(t):
    _bad_character(t.lexer, t.lexpos)


_INF = float("inf")


def _number(text, pos, scan):
    """The value of a number token (its digits are ASCII: `[0-9]`, not `\\d`, which
    would take any script's digits). Integers are unbounded; a float must be finite."""
    if "." in text or "e" in text or "E" in text:
        f = float(text)
        if f == _INF:
            _fail(scan, f"the number {text} is too large for a float (the largest is about "
                        "1.8e308)", pos)
        return f
    try:
        return int_of_digits(text)
    except SynError as e:
        _fail(scan, e.message, pos)


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_UNICODE_ESCAPE = re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}")


def _unescape(quoted, pos, scan):
    """The value of a text token: the quotes removed and the escapes applied."""
    raw = quoted[1:-1]
    if "\\" not in raw:
        return raw
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
            # Exactly \u{ + 1 to 6 hex digits + }: int(x, 16) alone would also take
            # "0x41", "+41", " 41" and "4_1".
            m = _UNICODE_ESCAPE.match(raw, i)
            code = int(m[1], 16) if m else -1
            if not 0 <= code <= 0x10FFFF:
                _fail(scan, "bad \\u escape; write \\u{HEX} with 1 to 6 hex digits, "
                            "at most \\u{10FFFF}, like \\u{1F600}", pos + 1 + i)
            if 0xD800 <= code <= 0xDFFF:
                _fail(scan, f"\\u{{{m[1]}}} is a surrogate (D800 to DFFF), which is not a "
                            "character; write the character's own code point, like "
                            "\\u{1F600}", pos + 1 + i)
            out.append(chr(code))
            i = m.end()
        elif _raw_prefix(scan.lexdata, pos):
            # r"\d+": Python's raw text, written for its backslashes
            _fail(scan, f"unknown escape '\\{e}' in text; Synsema texts take no "
                        f"'{_raw_prefix(scan.lexdata, pos)}' prefix: remove it and write each "
                        "backslash as \\\\ (the escapes are "
                        '\\" \\\\ \\n \\t \\r \\u{HEX})', pos + 1 + i)
        else:
            _fail(scan, f"unknown escape '\\{e}' in text; the escapes are "
                        '\\" \\\\ \\n \\t \\r \\u{HEX}', pos + 1 + i)
    return "".join(out)


_RAW_PREFIX = re.compile(r"(?<![A-Za-z0-9_])(?:[rR][bBfF]?|[bBfF][rR])\Z")


def _raw_prefix(source, quote):
    """The Python raw-text prefix (r, rb, fr, ...) written against the text whose '"' is
    at `quote`, or None."""
    m = _RAW_PREFIX.search(source, max(0, quote - 3), quote)
    return m[0] if m else None


def _bad_character(scan, pos):
    c = scan.lexdata[pos]
    if c == '"':
        _fail(scan, "text is not closed; add a '\"' before the end of the line", pos)
    if c == "!":
        _fail(scan, "unexpected '!'; write 'not' for negation and '!=' for inequality", pos)
    if c in "&|":
        # `&&`, `||` (and `&`, `|`): the logical operators are words in Synsema.
        word = "and" if c == "&" else "or"
        op = c * 2 if scan.lexdata.startswith(c * 2, pos) else c
        _fail(scan, f"unexpected '{op}'; Synsema writes `{word}`: `a {word} b`", pos)
    if c == "\r":
        _fail(scan, "a carriage return not followed by a newline; save the file with LF "
                    "or CRLF line endings", pos)
    if c == "#":
        _fail(scan, "unexpected '#'; comments start with `--` in Synsema", pos)
    if c == "'":
        _fail(scan, "unexpected \"'\"; texts are written in double quotes: \"...\"", pos)
    _fail(scan, f"unexpected character {c!r}", pos)


def _position(lexer, pos):
    src = lexer.lexdata
    line = src.count("\n", 0, pos) + 1
    col = pos - (src.rfind("\n", 0, pos) + 1) + 1
    return line, col


def _fail(lexer, message, pos):
    line, col = _position(lexer, pos)
    raise CompileError(message, line, col, lexer.source_name)


_master = lex.lex(optimize=False, debug=False, errorlog=lex.NullLogger())


# A token is a plain tuple (type, value, line, col, pos): the compiler makes one for every
# word and sign of a program, and a tuple costs a sixth of an object with attributes.
# `col` counts from 1; `pos` is the offset in the source.
TYPE, VALUE, LINE, COL, POS = range(5)


class _Scan:
    """What error reporting needs of the scan: the source and its name (PLY's rules see
    it as `t.lexer`)."""
    __slots__ = ("lexdata", "source_name")

    def __init__(self, source, source_name):
        self.lexdata = source
        self.source_name = source_name


_OPEN = {"LPAREN": ")", "LBRACKET": "]", "LBRACE": "}"}
_CHAR = {"LPAREN": "(", "LBRACKET": "[", "LBRACE": "{", "RPAREN": ")", "RBRACKET": "]",
         "RBRACE": "}"}


def _scanner():
    """PLY's master regex, preceded by the characters it ignores, and the token type of
    each of its groups: one match per token, nothing in between."""
    (master, index), = _master.lexre
    pattern = re.compile("[" + re.escape(t_ignore) + "]*(?:" + master.pattern + ")",
                         master.flags)
    types = [None] * (pattern.groups + 1)
    for i, entry in enumerate(index):
        if entry is not None:
            types[i] = entry[1]
    return pattern, types


_PATTERN, _GROUP_TYPES = _scanner()
_LAYOUT = frozenset({"NEWLINE", "COMMENT"})
# The types tokenize() converts or keeps track of; the others pass through as they are.
_SPECIAL = frozenset({"NAME", "NUMBER", "TEXT", "LPAREN", "RPAREN", "LBRACKET", "RBRACKET",
                      "LBRACE", "RBRACE"})


def tokenize(source, source_name="<source>", problems=None):
    """The complete token list of `source`, indentation resolved, ready for the parser.

    One pass over PLY's master regex (PLY's own `token()` loop makes an object per token
    and calls a function per rule, which was most of the compile time). The same pass
    joins lines inside brackets, turns the indentation of each line's first token into
    INDENT/DEDENT, and marks the `(` of a lambda's parameters as LPAREN_LAMBDA.

    Without `problems`, an error raises. With a compiler.problems.Problems, it is
    recorded there and the tokens of the lines before the one it is on are returned (its
    open blocks closed), so the stages after it can still report what they find there."""
    out = []
    try:
        return _tokenize(source, source_name, out)
    except CompileError as e:
        if problems is None:
            raise
        problems.add(e)
        return _lines_before(source, out, problems)


def _lines_before(source, out, problems):
    """The tokens of the complete lines in `out` (what tokenize made before an error), with
    the blocks open after them closed. The names written in the rest are not known to be
    undeclared (problems.unsure)."""
    cut = len(out)
    while cut and out[cut - 1][TYPE] != "NEWLINE":
        cut -= 1
    rest = out[cut][POS] if cut < len(out) else (out[-1][POS] if out else 0)
    problems.unsure.update(_IDENTIFIER.findall(source, rest))
    problems.partial = True
    del out[cut:]
    depth = sum(1 if t[TYPE] == "INDENT" else -1 for t in out if t[TYPE] in ("INDENT",
                                                                             "DEDENT"))
    last = out[-1] if out else None
    for _ in range(depth):
        out.append(("DEDENT", 1, last[LINE] + 1, 1, last[POS] + 1))
    return out


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _tokenize(source, source_name, out):
    scan = _Scan(source, source_name)
    append = out.append
    types = _GROUP_TYPES
    layout = _LAYOUT
    special = _SPECIAL
    keyword = _KEYWORD_TYPES.get
    brackets = []               # indexes in `out` of the open brackets
    indents = [1]               # columns of the open blocks
    line, line_start = 1, 0
    at_line_start = True
    end = 0
    for m in iter(_PATTERN.scanner(source).match, None):
        idx = m.lastindex
        typ = types[idx]
        value = m[idx]
        end = m.end()
        pos = end - len(value)
        if typ in layout:
            if typ == "NEWLINE":
                # Inside brackets lines join; blank and comment-only lines make no NEWLINE.
                if not (brackets or at_line_start):
                    append(("NEWLINE", value, line, pos - line_start + 1, pos))
                    at_line_start = True
                line += value.count("\n")
                line_start = end
            continue
        if at_line_start:
            at_line_start = False
            if pos - line_start + 1 != indents[-1] or "\t" in source[line_start:pos]:
                _indentation(source, line_start, pos, line, indents, scan, append)
        if typ in special:
            if typ == "NAME":
                typ = keyword(value, "NAME")
            elif typ == "NUMBER":
                value = _number(value, pos, scan)
            elif typ == "TEXT":
                value = _unescape(value, pos, scan)
            elif typ in _OPEN:
                brackets.append(len(out))
            else:
                _close(typ, pos, end, brackets, out, scan)
        append((typ, value, line, pos - line_start + 1, pos))
    n = len(source)
    end = _past_blanks(source, end)
    if end < n:
        _bad_character(scan, end)
    if brackets:
        typ = out[brackets[-1]][TYPE]
        _fail(scan, f"'{_CHAR[typ]}' is never closed; add '{_OPEN[typ]}'",
              out[brackets[-1]][POS])
    if out and not at_line_start:
        append(("NEWLINE", "\n", line, n - line_start + 1, n))
    last_line = out[-1][LINE] if out else 1
    while len(indents) > 1:
        indents.pop()
        append(("DEDENT", 1, last_line + 1, 1, n))
    return out


def _close(typ, pos, end, brackets, out, scan):
    """A closing bracket: it must match the last one opened; `(a, b) => ...` makes that
    one a lambda's parameter list."""
    char = _CHAR[typ]
    if not brackets:
        _fail(scan, f"'{char}' has no matching opening bracket", pos)
    i = brackets.pop()
    opener = out[i]
    if _OPEN[opener[TYPE]] != char:
        _fail(scan, f"'{char}' does not close '{_CHAR[opener[TYPE]]}' opened at line "
                    f"{opener[LINE]}, column {opener[COL]}; expected '{_OPEN[opener[TYPE]]}'",
              pos)
    if typ == "RPAREN" and scan.lexdata.startswith("=>", _past_blanks(scan.lexdata, end)):
        out[i] = ("LPAREN_LAMBDA",) + opener[1:]


def _past_blanks(source, i):
    """The offset of the first character at or after i that t_ignore does not skip."""
    n = len(source)
    while i < n and source[i] in t_ignore:
        i += 1
    return i


def _indentation(source, line_start, pos, line, indents, scan, append):
    """INDENT or DEDENTs before the first token of a line, from its column."""
    if "\t" in source[line_start:pos]:
        raise CompileError("tab in indentation; use spaces", line,
                           source.index("\t", line_start) - line_start + 1, scan.source_name)
    col = pos - line_start + 1
    if col > indents[-1]:
        indents.append(col)
        append(("INDENT", col, line, col, pos))
    elif col < indents[-1]:
        open_blocks = ", ".join(map(str, indents))
        while col < indents[-1]:
            indents.pop()
            append(("DEDENT", col, line, col, pos))
        if col != indents[-1]:
            raise CompileError(
                f"this line is indented to column {col}, which matches no enclosing block "
                f"(the open blocks start at columns {open_blocks}); line it up with the "
                "block it belongs to", line, col, scan.source_name)


def tokenize_layout(source, source_name="<source>"):
    """The formatter's token list: tokenize()'s (same errors, same NEWLINE/INDENT/DEDENT),
    each value replaced by its spelling in the source (`"a\\n"` stays escaped, `1e3` stays
    `1e3`), with ("COMMENT", text, line, col, pos) tokens merged in by position. A second
    scan with the same regex, so the compile path does not pay for it."""
    toks = tokenize(source, source_name)
    spelling = {}
    comments = []
    line, line_start = 1, 0
    for m in iter(_PATTERN.scanner(source).match, None):
        idx = m.lastindex
        value = m[idx]
        pos = m.end() - len(value)
        typ = _GROUP_TYPES[idx]
        if typ == "NEWLINE":
            line += value.count("\n")
            line_start = m.end()
        elif typ == "COMMENT":
            comments.append(("COMMENT", value.rstrip(), line, pos - line_start + 1, pos))
        else:
            spelling[pos] = value
    out = []
    c = 0
    for tok in toks:
        while c < len(comments) and comments[c][POS] < tok[POS]:
            out.append(comments[c])
            c += 1
        typ = tok[TYPE]
        if typ not in ("NEWLINE", "INDENT", "DEDENT"):
            tok = (typ, spelling[tok[POS]]) + tok[2:]
        out.append(tok)
    out.extend(comments[c:])
    return out
