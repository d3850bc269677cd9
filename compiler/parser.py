"""The parser: a plain LR driver over PLY's tables of compiler.grammar, which does per
token only what this grammar needs, with error recovery after a line that does not parse."""

import threading
from itertools import chain, islice

from synsema.compiler import grammar
from synsema.compiler import tree as T
from synsema.compiler.grammar import p_expr_postfix, p_item, p_statement_compound
from synsema.compiler.lexer import COL, LINE, POS, TYPE, VALUE
from synsema.compiler.syntax_errors import Parse as _Parse, expected_tokens, line_start
from synsema.compiler.syntax_errors import syntax_error as _syntax_error

_parser = None


class _Production(list):
    """What a p_ rule sees: PLY's YaccProduction interface over the symbols being
    reduced: p[i] (the values, a list, so reading them is plain indexing), len(p),
    p.slice (the symbols: token tuples, and a marker tuple for each nonterminal) and
    p.lexpos(i). p[0] is the rule's result; p.slice[0] is not the rule's own symbol
    (no rule reads it)."""
    __slots__ = ("slice",)

    def lexpos(self, i):
        return self.slice[i][POS]


_TABLES = None

# Rules that only hand their single child's value up (p[0] = p[1]).
_UNIT = frozenset({p_item, p_statement_compound, p_expr_postfix})


def _tables():
    """PLY's tables in the shapes the driver reads fastest: a list of action rows and
    goto rows by state, and productions as (name, length, function, marker, unit)
    tuples. A nonterminal on the stack is only asked its type: one shared marker tuple
    per name, so a reduction allocates no symbol."""
    global _TABLES
    if _TABLES is None:
        n = max(_parser.action) + 1
        action = [_parser.action.get(i, {}) for i in range(n)]
        goto = [_parser.goto.get(i, {}) for i in range(n)]
        markers = {p.name: (p.name, None, 0, 0, 0) for p in _parser.productions}
        prods = [(p.name, p.len, p.callable, markers[p.name],
                  p.len == 1 and p.callable in _UNIT) for p in _parser.productions]
        # A state entered by shifting a token and left, whatever comes next, by reducing
        # that one token (`postfix : NAME`, `target : NAME`, ...) is never put on the
        # stack: the driver shifts and reduces at once.
        leaves = [None] * n
        for s, row in enumerate(action):
            if len(set(row.values())) == 1:
                (t,) = set(row.values())
                if t is not None and t < 0:
                    name, length, fn, marker, unit = prods[-t]
                    if length == 1 and not unit:
                        leaves[s] = (name, fn, marker, getattr(fn, "from_token", None))
        _TABLES = (action, goto, prods, leaves)
    return _TABLES


_END = ("$end", None, 0, 0, 0)
_LINE_BREAKS = frozenset({"NEWLINE", "INDENT", "DEDENT"})
_lock = threading.Lock()


def _ready():
    """The tables, built on first use (once, whichever thread comes first)."""
    global _parser
    if _TABLES is None:
        with _lock:
            if _parser is None:
                _parser = grammar.build()
            return _tables()
    return _TABLES


def parse(toks, source_name="<source>", problems=None):
    """Parse a filtered token list (compiler.lexer.tokenize) into a `program` node.

    The LALR tables are PLY's (built from the rules above); this is a plain LR driver
    over them, which does per token only what this grammar needs. Without `problems`, the
    first syntax error is raised. With a compiler.problems.Problems, each is recorded
    there and the parse goes on after the line it is on (see _recover), so the tree may
    hold `broken` statements."""
    tables = _ready()
    ps = _Parse(toks, source_name, tables[0])
    stacks = ([_END], [None], ps.states)
    stream = chain(toks, (_END,))
    checkpoint = (0, [0])       # (token index, states before it): where _recover replays
    while True:
        bad = _drive(stream, stacks, tables)
        if bad is None:
            return stacks[1][-1]
        i = _index(toks, bad, checkpoint[0])
        error = _syntax_error(ps, i)
        if problems is None:
            raise error
        if not _after_broken(toks, i, stacks):
            problems.add(error)
        resumed = None if problems.full else _recover(ps, i, stacks, tables, checkpoint,
                                                      problems)
        if resumed is None:
            return _what_parsed(toks, stacks[1], problems)
        checkpoint, stream = resumed


def _what_parsed(toks, vals, problems):
    """The program of the top-level items complete when recovery stopped; the names
    written after them are not known to be undeclared."""
    items = vals[1] if len(vals) > 1 and type(vals[1]) is list else []
    after = items[-1].line if items else 0
    problems.unsure.update(t[VALUE] for t in toks if t[TYPE] == "NAME" and t[LINE] > after)
    problems.partial = True
    return T.Program(1, 1, items)


def _after_broken(toks, i, stacks):
    """Is the error at toks[i] an `otherwise` or `recover` right after a broken line (and
    its block), whose header was maybe the `when` or `try` it continues? Then it is no
    error of its own."""
    if i >= len(toks) or toks[i][TYPE] not in ("OTHERWISE", "RECOVER"):
        return False
    syms, vals, _ = stacks
    if any(s[0] == "BROKEN" for s in syms[-3:]):         # BROKEN NEWLINE [block]
        return True
    top = vals[-1]
    return type(top) is list and bool(top) and getattr(top[-1], "kind", None) == "broken"


def _index(toks, tok, lo):
    """The index of `tok` (that very token: DEDENTs of one line are equal) at or after lo;
    len(toks) for the end."""
    if tok is _END:
        return len(toks)
    i = toks.index(tok, lo)
    while toks[i] is not tok:
        i += 1
    return i


def _recover(ps, i, stacks, tables, checkpoint, problems):
    """Go on after the syntax error at toks[i]: the stacks as they were at the start of
    its line, the line replaced by a BROKEN token (`statement : BROKEN NEWLINE [block]`,
    so an indented block under it is still parsed). Returns (checkpoint, the tokens to go
    on with), or None when it is not sure where to go on (the error is at the end of a
    block or of the file, or no statement may start where the line does)."""
    toks = ps.toks
    n = len(toks)
    syms, vals, states = stacks
    if i >= n:
        return None
    typ = toks[i][TYPE]
    if expected_tokens(ps) == ["INDENT"] and i > 0 and toks[i - 1][TYPE] == "NEWLINE":
        # a header without its block: the header's line is the broken one
        end, resume = i - 1, i
        first = line_start(toks, end)
    elif typ == "INDENT":
        # an indented block no header opens: a broken line of nothing holds it
        first = end = resume = i
    elif typ == "DEDENT":
        return None
    else:
        first = line_start(toks, i)
        end = i
        while end < n and toks[end][TYPE] != "NEWLINE":
            end += 1
        if end == n:
            return None
        resume = end + 1
    if first < i:
        # The parse of the line so far is undone: replay the states from the checkpoint
        # to the line's first token (reduced as it was, not yet shifted). No rule that
        # began before the line ends inside it, so the stack below is as it was then.
        at = _replay(toks, checkpoint, first, tables)
        if at is None or states[:len(at)] != at:
            return None
        h = len(at)
        del syms[h:], vals[h:], states[h:]
    for tok in toks[first:end]:
        if tok[TYPE] == "NAME":
            problems.unsure.add(tok[VALUE])
    at = toks[first]
    broken = ("BROKEN", None, at[LINE], at[COL], at[POS])
    newline = toks[end] if end < resume else ("NEWLINE", "\n", at[LINE], at[COL], at[POS])
    if _drive(iter((broken, newline)), stacks, tables) is not None:
        return None             # no statement may start here
    return (resume, list(states)), chain(islice(toks, resume, None), (_END,))


def _replay(toks, checkpoint, first, tables):
    """The state stack from `checkpoint` (index, states) over toks up to `first`, with the
    reductions toks[first] makes before it is shifted: the table walk of _drive, without
    building anything. None if the walk fails."""
    action, goto, prods, leaves = tables
    k, states = checkpoint
    states = list(states)
    for j in range(k, first + 1):
        typ = toks[j][TYPE]
        while True:
            t = action[states[-1]].get(typ)
            if t is None:
                return None
            if t > 0:
                if j == first:
                    return states
                leaf = leaves[t]
                states.append(t if leaf is None else goto[states[-1]][leaf[0]])
                break
            if t == 0:
                return None
            name, length = prods[-t][:2]
            if length:
                del states[len(states) - length:]
            states.append(goto[states[-1]][name])
    return None


def _drive(stream, stacks, tables):
    """The LR loop over `stream`: shift, reduce, accept. Returns None when the stream
    is used up (accepted, at its end), or the token the parser cannot take."""
    action, goto, prods, leaves = tables
    # Symbols (token tuples and nonterminal markers) and their values, each with one
    # entry below the first symbol, so `[-n - 1:]` always gives the rule a p[0] slot.
    syms, vals, states = stacks
    production = _Production()         # one view, re-pointed at each reduction
    state = states[-1]
    for tok in stream:
        typ = tok[0]
        while True:
            t = action[state].get(typ)
            if t is None:
                return tok
            if t > 0:
                leaf = leaves[t]
                if leaf is None:
                    states.append(t)
                    state = t
                    syms.append(tok)
                    vals.append(tok[1])
                    break
                name, fn, marker, make = leaf
                if make is not None:
                    vals.append(make(tok))
                else:
                    production.slice = [None, tok]
                    production[:] = (None, tok[1])
                    fn(production)
                    vals.append(production[0])
                syms.append(marker)
                state = goto[state][name]
                states.append(state)
                break
            if t == 0:
                return None
            name, n, fn, marker, unit = prods[-t]
            if unit:
                # `x : y` that hands its value up: relabel the symbol, call nothing.
                syms[-1] = marker
                state = goto[states[-2]][name]
                states[-1] = state
                continue
            production.slice = syms[-n - 1:]
            production[:] = vals[-n - 1:]
            fn(production)
            if n:
                # the rule's symbol takes the place of its first child on the stacks
                if n > 1:
                    del syms[1 - n:]
                    del vals[1 - n:]
                    del states[1 - n:]
                syms[-1] = marker
                vals[-1] = production[0]
                state = goto[states[-2]][name]
                states[-1] = state
            else:
                syms.append(marker)
                vals.append(production[0])
                state = goto[state][name]
                states.append(state)
    return None
