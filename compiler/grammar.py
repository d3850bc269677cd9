"""Tokens -> tree: the PLY yacc grammar of SPEC sections 1-5.

The LALR tables are generated once into _parsetab.py beside this file (run
`python -m synsema.compiler.grammar` after changing a rule; a test checks they are
current) and only read at run time, so PLY never writes parser.out or table files into
the user's working directory.
"""

import os
import re
import threading
from itertools import chain, islice

import ply.yacc as yacc

from synsema.compiler.lexer import COL, LINE, POS, TOKEN_WORDS, TYPE, VALUE
from synsema.vm.program import KEYWORDS
from synsema.compiler.lexer import tokens as _lexed
# PLY reads `tokens`. BROKEN is no token of the source: error recovery (_recover) puts it
# in place of a line that does not parse.
tokens = _lexed + ("BROKEN",)
from synsema.compiler import tree as T
from synsema.compiler.resolve import TYPES, key_fix, type_fix
from synsema.compiler.tree import Binop, Name, Num, Text
from synsema.vm.errors import CompileError
from synsema.vm.signatures import SIGNATURES

precedence = (
    ("left", "OR"),
    ("left", "AND"),
    ("right", "NOT"),
    ("nonassoc", "EQ", "NE", "LT", "LE", "GT", "GE"),
    ("left", "PLUS", "MINUS"),
    ("left", "TIMES", "DIVIDE", "MOD"),
    ("right", "UMINUS"),
)


def _pos(p, i):
    """(line, col) of the i-th symbol of the rule: where a node made by the rule is."""
    tok = p.slice[i]
    return tok[LINE], tok[COL]


def _grow(p, i):
    """`list : list SEP item`: the list is this rule's own until the parse ends, so it
    grows in place (a copy per item would make long lists and blocks quadratic)."""
    p[1].append(p[i])
    return p[1]


# ---- program and top-level items -------------------------------------------------------

def p_program(p):
    """program : items"""
    p[0] = T.Program(1, 1, p[1])


def p_items(p):
    """items : items item
             | empty"""
    if len(p) == 2:
        p[0] = []
    else:
        p[0] = _grow(p, 2) if p[2] is not None else p[1]


def p_item(p):
    """item : task_def
            | test_def
            | statement"""
    p[0] = p[1]


def p_item_intent(p):
    """item : INTENT COLON TEXT NEWLINE"""
    p[0] = T.Intent(*_pos(p, 1), p[3])


def p_task_def(p):
    """task_def : TASK NAME LPAREN params RPAREN NEWLINE block"""
    p[0] = T.Task(*_pos(p, 1), p[2], p[4], p[7], _pos(p, 2)[1])


def p_params(p):
    """params : param_list
              | param_list COMMA
              | empty"""
    p[0] = p[1] or []


def p_param_list(p):
    """param_list : param_list COMMA param
                  | param"""
    p[0] = _grow(p, 3) if len(p) == 4 else [p[1]]


def p_param(p):
    """param : NAME
             | NAME COLON NAME
             | NAME COLON TASK
             | NAME ASSIGN expr
             | NAME COLON NAME ASSIGN expr
             | NAME COLON TASK ASSIGN expr"""
    n = len(p)
    type_ = p[3] if n >= 4 and p.slice[2][TYPE] == "COLON" else None
    default = p[n - 1] if n >= 4 and p.slice[n - 2][TYPE] == "ASSIGN" else None
    type_col = _pos(p, 3)[1] if type_ else 0
    p[0] = T.Param(*_pos(p, 1), p[1], type_, default, type_col)


def p_test_def(p):
    """test_def : TEST TEXT NEWLINE block"""
    p[0] = T.Test(*_pos(p, 1), p[2], p[4])


def p_block(p):
    """block : INDENT statements DEDENT"""
    p[0] = p[2]


def p_statements(p):
    """statements : statements statement
                  | statement"""
    p[0] = _grow(p, 2) if len(p) == 3 else [p[1]]


# ---- statements ------------------------------------------------------------------------

def p_statement_simple(p):
    """statement : simple NEWLINE"""
    p[0] = p[1]


def p_statement_compound(p):
    """statement : when_stmt
                 | while_stmt
                 | foreach_stmt
                 | try_stmt"""
    p[0] = p[1]


def p_statement_broken(p):
    """statement : BROKEN NEWLINE
                 | BROKEN NEWLINE block"""
    p[0] = T.Broken(*_pos(p, 1), p[3] if len(p) == 4 else [])


def p_simple_let(p):
    """simple : LET NAME BE expr"""
    tok = p.slice[1]
    p[0] = T.Let(tok[LINE], tok[COL], p[2], p[4], p.slice[2][COL])


def p_simple_set(p):
    """simple : SET target TO expr"""
    name, line, col, path = p[2]
    tok = p.slice[1]
    p[0] = T.Set(tok[LINE], tok[COL], name, path, p[4], col)


def p_target(p):
    """target : NAME
              | target LBRACKET expr RBRACKET
              | target DOT NAME"""
    if len(p) == 2:
        line, col = _pos(p, 1)
        p[0] = (p[1], line, col, [])
    elif p.slice[2][TYPE] == "DOT":
        p[1][3].append(T.Text(*_pos(p, 3), p[3]))
        p[0] = p[1]
    else:
        p[1][3].append(p[3])
        p[0] = p[1]


def p_simple_give(p):
    """simple : GIVE expr
              | GIVE"""
    p[0] = T.Give(*_pos(p, 1), p[2] if len(p) == 3 else None)


def p_simple_break(p):
    """simple : BREAK
              | CONTINUE"""
    p[0] = (T.Break if p[1] == "break" else T.Continue)(*_pos(p, 1))


def p_simple_require(p):
    """simple : REQUIRE NAME
              | REQUIRE NAME LPAREN TEXT RPAREN
              | REQUIRE NAME LPAREN TEXT COMMA TEXT RPAREN"""
    arg = p[4] if len(p) >= 6 else None
    arg2 = p[6] if len(p) == 8 else None
    p[0] = T.Require(*_pos(p, 1), p[2], arg, arg2)


def p_simple_expr(p):
    """simple : expr"""
    p[0] = T.Expr(p[1].line, p[1].col, p[1])


def p_when(p):
    """when_stmt : WHEN expr NEWLINE block otherwise_part"""
    branches, other = p[5]
    p[0] = T.When(*_pos(p, 1), [(p[2], p[4])] + branches, other)


def p_otherwise_part(p):
    """otherwise_part : OTHERWISE WHEN expr NEWLINE block otherwise_part
                      | OTHERWISE NEWLINE block
                      | empty"""
    if len(p) == 2:
        p[0] = ([], None)
    elif len(p) == 4:
        p[0] = ([], p[3])
    else:
        branches, other = p[6]
        p[0] = ([(p[3], p[5])] + branches, other)


def p_while(p):
    """while_stmt : WHILE expr NEWLINE block"""
    p[0] = T.While(*_pos(p, 1), p[2], p[4])


def p_foreach(p):
    """foreach_stmt : FOR EACH NAME IN expr NEWLINE block"""
    p[0] = T.Foreach(*_pos(p, 1), p[3], p[5], p[7], _pos(p, 3)[1])


def p_try(p):
    """try_stmt : TRY NEWLINE block RECOVER NAME NEWLINE block"""
    p[0] = T.Try(*_pos(p, 1), p[3], p[5], p[7], *_pos(p, 5))


# ---- expressions -----------------------------------------------------------------------

def p_expr_lambda(p):
    """expr : LPAREN_LAMBDA names RPAREN ARROW expr"""
    p[0] = T.Lambda(*_pos(p, 1), p[2], p[5])


def p_names(p):
    """names : name_list
             | name_list COMMA
             | empty"""
    p[0] = p[1] or []


def p_name_list(p):
    """name_list : name_list COMMA NAME
                 | NAME"""
    if len(p) == 2:
        p[0] = [(p[1], *_pos(p, 1))]
    else:
        p[1].append((p[3], *_pos(p, 3)))
        p[0] = p[1]


def p_expr_binop(p):
    """expr : expr PLUS expr
            | expr MINUS expr
            | expr TIMES expr
            | expr DIVIDE expr
            | expr MOD expr
            | expr EQ expr
            | expr NE expr
            | expr LT expr
            | expr LE expr
            | expr GT expr
            | expr GE expr"""
    tok = p.slice[2]
    p[0] = Binop(tok[LINE], tok[COL], tok[TYPE], p[1], p[3])


def p_expr_logic(p):
    """expr : expr AND expr
            | expr OR expr"""
    p[0] = (T.And if p.slice[2][TYPE] == "AND" else T.Or)(*_pos(p, 2), p[1], p[3])


def p_expr_not(p):
    """expr : NOT expr"""
    p[0] = T.Not(*_pos(p, 1), p[2])


def p_expr_neg(p):
    """expr : MINUS expr %prec UMINUS"""
    p[0] = T.Neg(*_pos(p, 1), p[2])


def p_expr_postfix(p):
    """expr : postfix"""
    p[0] = p[1]


def p_postfix_call(p):
    """postfix : postfix LPAREN args RPAREN"""
    lo, hi = p.lexpos(2), p.lexpos(4)
    p[0] = T.Call(*_pos(p, 2), p[1], p[3], (lo + 1, hi))


def p_postfix_index(p):
    """postfix : postfix LBRACKET expr RBRACKET"""
    p[0] = T.Index(*_pos(p, 2), p[1], p[3])


def p_postfix_field(p):
    """postfix : postfix DOT NAME"""
    p[0] = T.Field(*_pos(p, 2), p[1], p[3])


def p_args(p):
    """args : expr_list
            | expr_list COMMA
            | empty"""
    p[0] = p[1] or []


def p_expr_list(p):
    """expr_list : expr_list COMMA expr
                 | expr"""
    p[0] = _grow(p, 3) if len(p) == 4 else [p[1]]


# Atoms are postfix expressions themselves (no `postfix : atom` step: one reduction fewer
# for every name, number and text of a program). A rule that makes its value from its one
# token alone names the function that does it (`from_token`): the parser calls that
# directly when it shifts and reduces the token in one step (see _tables).

def _num(tok):
    return Num(tok[LINE], tok[COL], tok[VALUE])


def _text(tok):
    return Text(tok[LINE], tok[COL], tok[VALUE])


def _name(tok):
    return Name(tok[LINE], tok[COL], tok[VALUE])


def p_atom_number(p):
    """postfix : NUMBER"""
    p[0] = _num(p.slice[1])


def p_atom_text(p):
    """postfix : TEXT"""
    p[0] = _text(p.slice[1])


def p_atom_bool(p):
    """postfix : TRUE
               | FALSE"""
    p[0] = T.Bool(*_pos(p, 1), p[1] == "true")


def p_atom_nothing(p):
    """postfix : NOTHING"""
    p[0] = T.Nothing(*_pos(p, 1), None)


def p_atom_name(p):
    """postfix : NAME"""
    p[0] = _name(p.slice[1])


p_atom_number.from_token = _num
p_atom_text.from_token = _text
p_atom_name.from_token = _name


def p_atom_paren(p):
    """postfix : LPAREN expr RPAREN"""
    p[0] = p[2]


def p_atom_list(p):
    """postfix : LBRACKET args RBRACKET"""
    p[0] = T.List(*_pos(p, 1), p[2])


def p_atom_map(p):
    """postfix : LBRACE pairs RBRACE"""
    p[0] = T.Map(*_pos(p, 1), p[2])


def p_pairs(p):
    """pairs : pair_list
             | pair_list COMMA
             | empty"""
    p[0] = p[1] or []


def p_pair_list(p):
    """pair_list : pair_list COMMA expr COLON expr
                 | expr COLON expr"""
    if len(p) == 6:
        p[1].append((p[3], p[5]))
        p[0] = p[1]
    else:
        p[0] = [(p[1], p[3])]


def p_empty(p):
    """empty :"""
    p[0] = None


# ---- errors ----------------------------------------------------------------------------

_COMPARISONS = {"EQ", "NE", "LT", "LE", "GT", "GE"}


class _Parse:
    """One parse in progress: what the error messages read (its tokens, its state stack),
    made per call, so parses in several threads never see each other's."""
    __slots__ = ("source_name", "toks", "states", "tasks")

    def __init__(self, toks, source_name):
        self.source_name = source_name
        self.toks = toks
        self.states = [0]
        self.tasks = None           # the names of the file's tasks, when a message wants them


def p_error(tok):       # PLY's hook; the driver below reports errors with _syntax_error
    raise AssertionError("the parser is driven by parse()")


def _syntax_error(ps, i):
    """The CompileError for the token toks[i] (i == len(toks): the end of the file), which
    the parser in state ps.states[-1] cannot take."""
    name = ps.source_name
    toks = ps.toks
    expected = _expected(ps)
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


def _line_start(toks, i):
    """The index of the first token of the line toks[i] is on."""
    while i > 0 and toks[i - 1][TYPE] not in ("NEWLINE", "INDENT", "DEDENT"):
        i -= 1
    return i


def _header(toks, i):
    """The header keyword (`when`, `for each`, ...) starting toks[i]'s line, or None."""
    return _HEADERS.get(toks[_line_start(toks, i)][TYPE])


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
        first = toks[_line_start(toks, i - 1)]
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
    if tok[TYPE] not in _ARGUMENT_STARTS or "PLUS" not in _expected(ps):
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


def _expected(ps):
    try:
        state = ps.states[-1]
        names = [t for t in _parser.action[state] if t != "$end" and t != "error"]
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


# ---- the parser ------------------------------------------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))
_TABMODULE = "synsema.compiler._parsetab"


def _build(write=False):
    return yacc.yacc(debug=False, write_tables=write, tabmodule=_TABMODULE,
                     outputdir=_HERE, errorlog=yacc.NullLogger())


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
                _parser = _build()
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
    ps = _Parse(toks, source_name)
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
    if _expected(ps) == ["INDENT"] and i > 0 and toks[i - 1][TYPE] == "NEWLINE":
        # a header without its block: the header's line is the broken one
        end, resume = i - 1, i
        first = _line_start(toks, end)
    elif typ == "INDENT":
        # an indented block no header opens: a broken line of nothing holds it
        first = end = resume = i
    elif typ == "DEDENT":
        return None
    else:
        first = _line_start(toks, i)
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


if __name__ == "__main__":
    # Regenerate _parsetab.py after changing a grammar rule.
    import sys
    path = os.path.join(_HERE, "_parsetab.py")
    if os.path.exists(path):
        os.remove(path)
    yacc.yacc(debug=False, write_tables=True, tabmodule="_parsetab", outputdir=_HERE,
              errorlog=yacc.PlyLogger(sys.stderr))
    print(f"wrote {path}")
