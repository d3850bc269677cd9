"""Tokens -> tree: the PLY yacc grammar of SPEC sections 1-5 (the rules).

The LALR tables are generated once into _parsetab.py beside this file (run
`python -m synsema.compiler.grammar` after changing a rule; a test checks they are
current) and only read at run time, so PLY never writes parser.out or table files into
the user's working directory. compiler.parser drives them; compiler.syntax_errors says
what a token the tables cannot take means.
"""

import os

import ply.yacc as yacc

from synsema.compiler.lexer import COL, LINE, TYPE, VALUE
from synsema.compiler.lexer import tokens as _lexed
# PLY reads `tokens`. BROKEN is no token of the source: error recovery (compiler.parser)
# puts it in place of a line that does not parse.
tokens = _lexed + ("BROKEN",)
from synsema.compiler import tree as T  # noqa: E402
from synsema.compiler.tree import Binop, Name, Num, Text  # noqa: E402

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


def p_error(tok):       # PLY's hook; the driver below reports errors with _syntax_error
    raise AssertionError("the parser is driven by parse()")


# ---- the tables ------------------------------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))
_TABMODULE = "synsema.compiler._parsetab"


def build(write=False):
    """PLY's parser of these rules, its tables read from _parsetab.py."""
    import sys
    return yacc.yacc(module=sys.modules[__name__], debug=False, write_tables=write,
                     tabmodule=_TABMODULE, outputdir=HERE, errorlog=yacc.NullLogger())


if __name__ == "__main__":
    # Regenerate _parsetab.py after changing a grammar rule.
    import sys
    path = os.path.join(HERE, "_parsetab.py")
    if os.path.exists(path):
        os.remove(path)
    yacc.yacc(debug=False, write_tables=True, tabmodule="_parsetab", outputdir=HERE,
              errorlog=yacc.PlyLogger(sys.stderr))
    print(f"wrote {path}")
