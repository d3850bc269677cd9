"""`syn fmt`: the one canonical layout of a Synsema program, printed from its tokens.

The lexer's formatter mode (lexer.tokenize_layout) gives the tokens as spelled, with the
comments, and the lines, blocks and brackets the compiler sees. Each logical line is laid
out on its own:

* 4 spaces per block level; one space around binary operators, `=`, `=>` and after `,`
  and `:`; none inside brackets, before `,` `:` `.` `(`-of-a-call `[`-of-an-index, or
  after a unary `-`.
* A line longer than WIDTH breaks inside its brackets, outermost first: the opening
  bracket ends the line, each item of the comma list gets its own line, one level deeper,
  with a trailing comma, and the closing bracket comes back on a line of its own. A list
  that ends in a comma in the source stays broken (so a table written one item per line
  stays that way). Lines are never broken outside brackets: there a newline ends the
  statement.
* Comments stay where they were: at the end of their line (two spaces before `--`) or
  on their own line at the indentation of the code around them. Blank lines are kept,
  at most one in a row, none at the start of a file or of a block; a top-level task or
  test (with the comments right above it) has exactly one blank line before and after it.

The result compiles to the same program: format_source checks that the token stream is
unchanged (a trailing comma aside) before it returns.
"""

from synsema.compiler.lexer import COL, LINE, POS, TYPE, VALUE, tokenize_layout
from synsema.vm.errors import CompileError

WIDTH = 96
STEP = 4                # spaces per block level and per bracket level
SMALL = 24              # a bracket holding one item this short does not break

OPENERS = {"LPAREN": "RPAREN", "LPAREN_LAMBDA": "RPAREN", "LBRACKET": "RBRACKET",
            "LBRACE": "RBRACE"}
CLOSERS = frozenset(OPENERS.values())
# Tokens that end an expression: a `-` after one is binary, a `(` or `[` after one is a
# call or an index (no space before it).
_VALUE_END = frozenset({"NAME", "NUMBER", "TEXT", "TRUE", "FALSE", "NOTHING", "RPAREN",
                        "RBRACKET", "RBRACE"})
_STRUCTURE = frozenset({"NEWLINE", "INDENT", "DEDENT"})


def format_source(source, source_name="<source>"):
    """The canonical layout of `source` (which must at least tokenize: CompileError
    otherwise)."""
    source = source.removeprefix("\ufeff")
    toks = tokenize_layout(source, source_name)
    before = _signature(toks)       # taken first: the layout's passes may consume toks
    try:
        out = _layout(_items(toks), source)
    except RecursionError:
        raise CompileError("the program nests brackets too deeply to format", 1, 1,
                           source_name) from None
    if _signature(tokenize_layout(out, source_name)) != before:
        raise AssertionError(f"the formatter would change the tokens of {source_name}")
    return out


def _signature(layout_tokens):
    """What the compiler reads of a layout (its tokenize_layout tokens): the tokens (a
    comma before a closing bracket aside, INDENT/DEDENT by type), and the comments, in
    order."""
    toks, comments = [], []
    for t in layout_tokens:
        typ = t[TYPE]
        if typ == "COMMENT":
            comments.append(t[VALUE])
            continue
        if typ in CLOSERS and toks[-1][0] == "COMMA":
            toks.pop()
        toks.append((typ, None if typ in _STRUCTURE else t[VALUE]))
    return toks, comments


# ---- logical lines and own-line comments ---------------------------------------------------

class _Item:
    """A logical line (tokens) or an own-line comment (text) at a block depth."""
    __slots__ = ("depth", "toks", "comment", "first", "last", "opens", "is_def")

    def __init__(self, depth, first, last, toks=None, comment=None):
        self.depth = depth
        self.toks = toks
        self.comment = comment
        self.first, self.last = first, last
        self.opens = False      # a header whose block follows
        self.is_def = depth == 0 and toks is not None and toks[0][TYPE] in ("TASK", "TEST")


def _items(toks):
    items = []
    cols = [1]                  # source column of each open block
    line = []
    pending = []                # own-line comments before the next line's INDENT/DEDENTs
    before = None               # `cols` when the first pending comment was read
    for tok in toks:
        typ = tok[TYPE]
        if typ == "INDENT":
            cols.append(tok[VALUE])
            for it in reversed(items):
                if it.toks is not None:
                    it.opens = True
                    break
        elif typ == "DEDENT":
            cols.pop()
        elif typ == "COMMENT" and not line:
            if not pending:
                before = list(cols)
            pending.append(tok)
        else:
            if pending:
                _place(pending, before, cols, items)
                pending = []
            if typ == "NEWLINE":
                items.append(_Item(len(cols) - 1, line[0][LINE], tok[LINE], toks=line))
                line = []
            else:
                line.append(tok)
    if pending:
        _place(pending, before, cols, items)
    return items


def _place(comments, before, after, items):
    """Own-line comments between two lines go to the depth of the block that follows
    when it opens one; where blocks close, to the deepest of the blocks around them
    whose column the comment reaches."""
    lo, hi = len(after) - 1, len(before) - 1
    for c in comments:
        depth = lo
        for d in range(lo + 1, hi + 1):
            if before[d] <= c[COL]:
                depth = d
        items.append(_Item(depth, c[LINE], c[LINE], comment=c[VALUE]))


def _layout(items, source):
    out = []
    run = []                    # out indexes of one-line statements in a row with comments
    in_def = False              # the last top-level item was a task or test
    leads = _leading_comments(items)
    for i, it in enumerate(items):
        prev = items[i - 1] if i else None
        if prev is None or prev.opens:
            blank = False
        elif it.depth == 0 and (in_def or ((it.is_def or leads[i]) and not leads[i - 1])):
            blank = True
        else:
            blank = it.first - prev.last > 1
        if blank:
            out.append("")
        if it.depth == 0:
            in_def = it.is_def
        if it.comment is not None:
            out.append(" " * (STEP * it.depth) + it.comment)
            continue
        lines, comment = _line(it.toks, it.depth, source)
        if run and (blank or run[-1] != len(out) - 1 or comment is None or len(lines) > 1):
            _align(out, run)
        out.extend(lines)
        if comment is not None:
            out[-1] = (out[-1], comment)
            if len(lines) == 1:
                run.append(len(out) - 1)
    _align(out, run)
    return "".join((ln if type(ln) is str else f"{ln[0]}  {ln[1]}") + "\n" for ln in out)


def _align(out, run):
    """End-of-line comments of consecutive one-line statements line up, two spaces after
    the longest (as gofmt does); `run` is emptied."""
    if len(run) > 1:
        col = max(len(out[i][0]) for i in run) + 2
        for i in run:
            code, comment = out[i]
            out[i] = code.ljust(col) + comment
    run.clear()


def _leading_comments(items):
    """For each item: is it a top-level comment that runs, line after line, into a task
    or test (and so belongs to it)?"""
    leads = [False] * len(items)
    for i in range(len(items) - 2, -1, -1):
        it, nxt = items[i], items[i + 1]
        leads[i] = (it.comment is not None and it.depth == 0 and nxt.depth == 0
                    and nxt.first == it.last + 1 and (nxt.is_def or leads[i + 1]))
    return leads


# ---- one logical line: tokens -> groups -> document -> text --------------------------------

class _Group:
    """A bracket pair: its comma list split into items, the comments around them."""
    __slots__ = ("open", "close", "items", "trailing_ok", "magic", "open_comments",
                 "dangling", "space", "hard", "verbatim")


class _Elem:
    """One item of a comma list (or the whole content of a non-list bracket)."""
    __slots__ = ("elems", "leading", "trailing")

    def __init__(self):
        self.elems, self.leading, self.trailing = [], [], []


def _line(toks, depth, source):
    """The physical lines of a logical line, and the comment at its end (outside brackets
    a comment can only end the line) or None."""
    comment = None
    if toks[-1][TYPE] == "COMMENT":
        comment = toks[-1][VALUE]
        toks = toks[:-1]
    text = _print(_sequence(_elements(toks, source)), STEP * depth)
    return [ln.rstrip() for ln in text.split("\n")], comment


def _elements(toks, source):
    """Tokens as a list of elements: (token, space-before) pairs, ("COMMENT", text,
    own-line) and _Group, brackets nested."""
    stack = [[]]
    groups = []
    prev = prev2 = None         # the two previous tokens that are not comments
    prev_line = toks[0][LINE]
    ncomments = 0
    for tok in toks:
        typ = tok[TYPE]
        if typ == "COMMENT":
            stack[-1].append(("COMMENT", tok[VALUE], tok[LINE] != prev_line))
            prev_line = tok[LINE]
            ncomments += 1
            continue
        prev_line = tok[LINE]
        space = _space(prev, tok)
        if typ in OPENERS:
            g = _Group()
            g.open, g.space = tok, space
            g.trailing_ok = _takes_trailing_comma(tok, prev, prev2)
            # assert(...) is compiled with the text of its argument, as written (spaces
            # aside): keep it as it is
            g.verbatim = ncomments if typ == "LPAREN" and prev is not None and \
                prev[VALUE] == "assert" and (prev2 is None or prev2[TYPE] != "DOT") else None
            groups.append(g)
            stack.append([])
        elif typ in CLOSERS:
            g = groups.pop()
            g.close = tok
            content = stack.pop()
            if g.verbatim is None:
                _split(g, content)
            else:
                g.hard = ncomments > g.verbatim
                g.verbatim = source[g.open[POS] + 1:tok[POS]]
            stack[-1].append(g)
        else:
            stack[-1].append((tok, space))
        prev2, prev = prev, tok
    return stack[0]


def _takes_trailing_comma(tok, prev, prev2):
    """Calls, lists, maps, parameter lists: comma lists. A parenthesised expression, an
    index and `require NAME(...)` take no trailing comma."""
    typ = tok[TYPE]
    if typ in ("LPAREN_LAMBDA", "LBRACE"):
        return True
    after_value = prev is not None and prev[TYPE] in _VALUE_END
    if typ == "LBRACKET":
        return not after_value
    return after_value and not (prev2 is not None and prev2[TYPE] == "REQUIRE")


def _space(prev, tok):
    """Whether one space separates prev and tok on a line (brackets' own insides aside)."""
    if prev is None:
        return False
    p, t = prev[TYPE], tok[TYPE]
    if t in ("COMMA", "COLON", "DOT") or t in CLOSERS or p == "DOT" or p in OPENERS:
        return False
    if t in ("LPAREN", "LBRACKET") and p in _VALUE_END:
        return False
    return True


def _split(g, content):
    """A bracket's content into items at its top-level commas, each comment attached to
    what it is written beside."""
    items = []
    cur = _Elem()
    g.open_comments, g.dangling = [], []
    after = "open"              # what came before: open, comma, or elem
    for k, e in enumerate(content):
        if type(e) is tuple and e[0] == "COMMENT":
            _, text, own_line = e
            nxt = next((x for x in content[k + 1:]
                        if not (type(x) is tuple and x[0] == "COMMENT")), None)
            if not cur.elems:
                if not own_line and after == "open":
                    g.open_comments.append(text)
                elif not own_line and after == "comma":
                    items[-1].trailing.append(text)
                else:
                    cur.leading.append(text)
            elif nxt is None and own_line:
                g.dangling.append(text)
            elif nxt is None or _is_comma(nxt):
                cur.trailing.append(text)
            else:
                cur.elems.append(e)
            continue
        if _is_comma(e):
            items.append(cur)
            cur = _Elem()
            after = "comma"
        else:
            cur.elems.append(e)
            after = "elem"
    g.magic = bool(items) and not cur.elems     # the list ends with a comma
    if cur.elems:
        items.append(cur)
    else:
        g.dangling = cur.leading
    g.items = items
    g.hard = g.magic or bool(g.open_comments or g.dangling) or any(
        it.leading or it.trailing for it in items)


def _is_comma(e):
    return type(e) is tuple and type(e[0]) is tuple and e[0][TYPE] == "COMMA"


# The document: text (str), breaks (_SOFT: nothing or a newline, _SPACE: a space or a newline,
# _HARD: always a newline), and these nodes.

class _Break:
    __slots__ = ("flat",)

    def __init__(self, flat):
        self.flat = flat        # what it prints where its group is flat (None: cannot be)


_SOFT, _SPACE, _HARD = _Break(""), _Break(" "), _Break(None)


class _Doc:
    __slots__ = ("parts", "hard")

    def __init__(self, parts, hard=False):
        self.parts, self.hard = parts, hard


class _GroupDoc(_Doc):
    """Printed on one line if it fits, else with every line of its own broken. A small
    group (one short item, no brackets in it: `text(n)`, `xs[i]`) breaks only for a
    comment: three lines for a word would not make the line readable."""
    __slots__ = ("small",)

    def __init__(self, parts, hard, small):
        super().__init__(parts, hard)
        self.small = small


class _Indent(_Doc):
    """Its parts one level deeper where they break."""


class _IfBroken:
    """Text only where its group breaks (the trailing comma)."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def _sequence(elems):
    """The document of a run of elements (a line, or one item of a comma list); `hard`
    when it holds a comment, which a line break must follow."""
    parts = []
    hard = False
    unary = True                # a `-` here is unary (no value ends before it)
    after_sign = False          # the last part is a unary `-`
    for e in elems:
        start = not parts or parts[-1] is _HARD
        if type(e) is _Group:
            if e.space and not start and not after_sign:
                parts.append(" ")
            doc = _group_doc(e)
            hard = hard or doc.hard
            parts.append(doc)
            unary = after_sign = False
        elif e[0] == "COMMENT":
            _, text, own_line = e
            parts.extend([_HARD, text, _HARD] if own_line else ["  " + text, _HARD])
            hard = True
        else:
            tok, space = e
            typ = tok[TYPE]
            # `- -x` keeps its space: `--` would start a comment
            if space and not start and (not after_sign or typ == "MINUS"):
                parts.append(" ")
            parts.append(tok[VALUE])
            after_sign = typ == "MINUS" and unary
            unary = typ not in _VALUE_END
    return _Doc(parts, hard)


def _group_doc(g):
    o, c = g.open[VALUE], g.close[VALUE]
    if g.verbatim is not None:
        return _verbatim(g, o, c)
    if not g.items and not g.hard:
        return _Doc([o + c])
    inner = [_SOFT] if g.items or g.dangling else []
    hard = g.hard
    for i, it in enumerate(g.items):
        last = i == len(g.items) - 1
        for text in it.leading:
            inner += [text, _HARD]
        seq = _sequence(it.elems)
        hard = hard or seq.hard
        inner.append(seq)
        if not last:
            inner.append(",")
        elif g.trailing_ok:
            inner.append(_IfBroken(","))
        for j, text in enumerate(it.trailing):
            inner += ["  " + text] if j == 0 else [_HARD, text]
        if not last:
            inner.append(_SPACE)
    for text in g.dangling:
        if inner[-1] is not _SOFT:
            inner.append(_HARD)
        inner.append(text)
    head = [o, "  " + "  ".join(g.open_comments)] if g.open_comments else [o]
    small = len(g.items) == 1 and _small(g.items[0].elems)
    return _GroupDoc(head + [_Indent(inner), _SOFT, c], hard, small)


def _small(elems):
    """Whether an item is a few tokens (at most SMALL columns) with no bracket in it."""
    n = 0
    for e in elems:
        if type(e) is _Group or e[0] == "COMMENT":
            return False
        n += len(e[0][VALUE]) + 1
    return n <= SMALL


def _verbatim(g, o, c):
    """A bracket kept as written, but for the whitespace: on one line, or (when it holds
    comments) with its line breaks, each line stripped and indented one level."""
    if not g.hard:
        return _Doc([o + " ".join(g.verbatim.split()) + c])
    lines = [ln.strip() for ln in g.verbatim.split("\n")]
    inner = [] if lines[0] else [_HARD]
    for ln in filter(None, lines):
        if inner and inner[-1] is not _HARD:
            inner.append(_HARD)
        inner.append(ln)
    return _Doc([o, _Indent(inner)] + ([_HARD] if not lines[-1] else []) + [c], True)


def _print(doc, indent):
    """Wadler's pretty printer, as Prettier runs it: a group is flat when it and what
    follows it up to the next possible break fit in WIDTH."""
    out = [" " * indent]
    pos = indent
    stack = [(indent, True, doc)]          # (indent, broken, doc), last on top
    while stack:
        ind, broken, d = stack.pop()
        if type(d) is str:
            out.append(d)
            pos += len(d)
        elif type(d) is _Break:
            if broken or d.flat is None:
                out.append("\n" + " " * ind)
                pos = ind
            else:
                out.append(d.flat)
                pos += len(d.flat)
        elif type(d) is _IfBroken:
            if broken:
                out.append(d.text)
                pos += len(d.text)
        else:
            if type(d) is _Indent:
                ind += STEP
            elif type(d) is _GroupDoc:
                broken = d.hard or not (d.small or _fits(d, stack, WIDTH - pos))
            stack.extend((ind, broken, p) for p in reversed(d.parts))
    return "".join(out)


def _fits(group, rest, width):
    """Whether `group` flat, then `rest` (the printer's stack) up to its first line break,
    takes at most `width` columns."""
    todo = [(False, group)]
    r = len(rest)
    while width >= 0:
        if not todo:
            if r == 0:
                return True
            r -= 1
            _, broken, d = rest[r]
            todo.append((broken, d))
        broken, d = todo.pop()
        if type(d) is str:
            width -= len(d)
        elif type(d) is _Break:
            if broken or d.flat is None:
                return True
            width -= len(d.flat)
        elif type(d) is _IfBroken:
            width -= len(d.text) if broken else 0
        else:
            if type(d) is _GroupDoc:
                broken = d.hard or (broken and not d.small)
            todo.extend((broken, p) for p in reversed(d.parts))
    return False
