"""Tier 2: each function of a program translated into one Python function.

The loop (vm.loop_fast) is tier 1. Tier 2 translates a function's decoded code (verified,
superinstructions made: the same list the loop runs) into a Python function whose
Synsema locals are Python locals, whose stack is Python variables (`_s0`, `_s1`, ... by
depth; loads of locals and constants stay expressions), whose jumps are a dispatch over
basic blocks and whose calls are Python calls. Each instruction is the body of its one
definition in vm/instructions.py (vm/tier2_defs.py, generated with the loops), as a syntax
tree: its operands are substituted as tree nodes (integers of the structure: slots,
counts, jump targets; every other value through the constants tuple `K`, never its repr),
its stack operations become assignments of the depth variables, the loop's frame switch
of a call becomes a Python call. Every check of a body stays (int fast paths with `ops`
fallbacks, the size tests of `*` and `%`, index rules, the in-place append's aliasing
rule, the step budget at back edges and calls, depth, arity, host tools).

Then passes over the blocks' trees (each says what it keeps): _specialize (an instruction
testing an arithmetic result's type on both paths of its int test), _self_loop with
_hoist_type_tests (a loop's repeated type tests in variables), _forward (the top level's
store then load), _next_as_for (FOR_ITER as a Python `for`), _drop_dead_copies; and while
translating: _compare (a comparison of a known kind inline, in _Operands' walk), _absorb
(a call value's host path falls through), callee_cache (a call value's translated callee
from a table of the functions already called with that many arguments: the arity checked
once per function and count), _room_in_budget (a call makes no test of the Python stack's
room while the step budget proves it). Translation.source() is the generated Python as
text.

The translator's own cost (bench/translation_cost.py): a body is parsed once and copied
(_body, _copy), the transforming passes are _Transformer's (ast.NodeTransformer's results,
cheaper), _walk is ast.walk's, and the cyclic garbage collector is off while translating.

What the loop does around the bodies is done here the same way: an error gets this
frame's position (from the Python line of the statement that raised: each instruction
part has its own line, so a superinstruction's part shows its own position, as the loop's
vm.part does), the innermost open `try` catches it, a run's step budget is one chunk
taken and returned as the loop takes and returns it, and a call past the Python stack a
run can use continues in the loop (the budget handed over), so deep recursion is never a
RecursionError the loop would not have.

Labels on: the same translation of the labels bodies (vm/tier2_defs.py L_*: the labels
loop's), with what the loop keeps per frame kept per function: its declaration stamps
(`_st`, as the loop makes them at a call), its depth `_d` (the pc stack's entries are by
depth: a labelled condition's entry ends at its release or the function's return, as
there), a `try`'s pc entry beside its handler (vm.labels.caught), and an uncaught error's
frame withheld when it ran under a labelled pc (vm.labels.withhold_frame). _LabelledIn
and the `Labeled` entry of _TYPES decide a constant's labels tests; _specialize knows an
int path's result is plain, and an index's usual path's (_plain_index); in a loop of the
top level, _hoist_globals_of_loops keeps the Labeled tests of the top level's variables
in flags.

Declined (the loop runs them): a function whose code the translator cannot express (a
stack it cannot follow, a body shape it does not know): calls of it go to the loop,
budget handed over.

Translated on a VM's first run; the generated code object is cached on the Program per
mode, so another VM of the same program (Program.call, `syn batch`) only binds the
constants of its own run.
"""

import ast
import copy
import gc
import os
import sys
import threading
import weakref

from synsema.vm import ops
from synsema.vm import tier2_defs as D
from synsema.vm import labels as L
from synsema.vm import precise as P
from synsema.vm.errors import EMPTY, SynError
from synsema.vm.values import UNSET, Closure, HostFn, Labeled

# The Python stack a run leaves free for builtins and hosts, in frames, below the limit.
_PY_MARGIN = 200

# Program -> Translation, one per labels mode
_CACHE = {False: weakref.WeakKeyDictionary(), True: weakref.WeakKeyDictionary()}


class Declined(Exception):
    """The translator cannot express this function: the loop runs it."""


# ---- instruction definitions ---------------------------------------------------------------

def _label_only(name):
    return name.startswith("+") or name == "rid"


def _parts_of(op, labels=False):
    """(instruction names, threaded, tail) of a decoded opcode, in the tables of a mode."""
    _, fused, codes = D.TABLES[labels]
    f = fused.get(op)
    if f is not None:
        return f[1], f[2], f[3]
    name = codes.get(op)
    if name is None:
        raise Declined(f"opcode {op}")
    return (name,), False, False


_STRUCT = {"s", "t", "n", "kind", "rid"}     # int fields: the code's shape, release ids


def _is_call(node, name):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == name


def _name(n, ctx=None):
    return ast.Name(n, ctx or ast.Load())


# ---- tree helpers: ast.walk and copy.deepcopy of syntax trees, cheaper ---------------------

_AST = ast.AST


def _walk(node):
    """ast.walk(node), cheaper: every node of the tree in the same order (breadth first),
    each node's fields read directly."""
    todo = [node]
    for n in todo:          # the list grows while it is read: breadth first, as ast.walk
        yield n
        d = n.__dict__
        for f in n._fields:
            v = d.get(f)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, _AST):
                        todo.append(x)
            elif isinstance(v, _AST):
                todo.append(v)


class _Transformer:
    """ast.NodeTransformer, cheaper: the same visits in the same order and the same
    results (a visitor's None deletes the node from its list, a list is spliced in its
    place, a node replaces it), with each class's visitor of a node type looked up once
    (not a getattr of a formatted name per node), lists edited in place, and a node that
    holds no node (a context, an operator, a constant) not visited when the class has no
    visitor of its own for it (visiting it would change nothing)."""

    _visitors = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._visitors = {}          # node type -> this class's visitor (unbound), or None

    @classmethod
    def _visitor(cls, t):
        fn = getattr(cls, "visit_" + t.__name__, None)
        if fn is None:
            fn = None if not t._fields or t is ast.Constant else cls.generic_visit
        cls._visitors[t] = fn
        return fn

    def visit(self, node):
        t = node.__class__
        try:
            fn = self._visitors[t]
        except KeyError:
            fn = self._visitor(t)
        return node if fn is None else fn(self, node)

    def generic_visit(self, node):
        visitors = self._visitors
        d = node.__dict__
        for f in node._fields:
            v = d.get(f)
            if v.__class__ is list:
                i = 0
                while i < len(v):
                    x = v[i]
                    if isinstance(x, _AST):
                        t = x.__class__
                        try:
                            fn = visitors[t]
                        except KeyError:
                            fn = self._visitor(t)
                        if fn is None:
                            i += 1
                            continue
                        new = fn(self, x)
                        if new is None:
                            del v[i]
                            continue
                        if not isinstance(new, _AST):
                            new = list(new)
                            v[i:i + 1] = new
                            i += len(new)
                            continue
                        if new is not x:
                            v[i] = new
                    i += 1
            elif isinstance(v, _AST):
                t = v.__class__
                try:
                    fn = visitors[t]
                except KeyError:
                    fn = self._visitor(t)
                if fn is None:
                    continue
                new = fn(self, v)
                if new is None:
                    delattr(node, f)
                elif new is not v:
                    setattr(node, f, new)
        return node


def _copy(x):
    """copy.deepcopy of a syntax tree (a node or a list of them), cheaper: new nodes and
    lists, everything else shared (constants' values, names, positions: immutable, or
    never changed in place; and a node with no fields and nothing set on it, a context or
    an operator, as the parser shares them). A node's whole __dict__ is copied: its fields,
    its position and whatever marker a pass set on it (`_value`, `_type`, ...). A node or
    list reached twice is copied once, as deepcopy does (its memo), so the copy shares what
    the tree shared."""
    return _cp_list(x, {}) if x.__class__ is list else _cp(x, {})


def _cp(x, memo):
    """A copy of node x; memo: id of each node and list copied -> its copy."""
    c = x.__class__
    new = memo[id(x)] = c.__new__(c)
    d = new.__dict__
    for k, v in x.__dict__.items():
        if v.__class__ is list:
            v = _cp_list(v, memo)
        elif isinstance(v, _AST) and (v.__class__._fields or v.__dict__):
            v = memo.get(id(v)) or _cp(v, memo)
        d[k] = v
    return new


def _cp_list(x, memo):
    new = memo.get(id(x))
    if new is None:
        new = memo[id(x)] = []
        for v in x:
            if v.__class__ is list:
                v = _cp_list(v, memo)
            elif isinstance(v, _AST) and (v.__class__._fields or v.__dict__):
                v = memo.get(id(v)) or _cp(v, memo)
            new.append(v)
    return new


# Parsed once: an instruction body's statements per (text, labels mode, top level or not:
# with labels, _StoreLocal's form, which depends on it), scaffolding's per text. Each use
# gets a copy (_copy), so the passes, which change trees in place, never touch these.
# They serve one translation (_drop_parse_caches after it): most of what they save is an
# instruction's body recurring within a program; kept for the next program they saved it
# only 2-4% more, and were 0.2 MiB of the memory benchmark's peak (issue 31: the loop's
# peak + 20% at most).
_BODIES = {}
_PARSED = {}


def _drop_parse_caches():
    _BODIES.clear()
    _PARSED.clear()


def _parsed(text):
    """ast.parse(text).body, a copy of the one parse of it."""
    tree = _PARSED.get(text)
    if tree is None:
        tree = _PARSED[text] = ast.parse(text).body
    return _copy(tree)


def _body(text, labels, main):
    """An instruction body's statements: parsed, and with labels their `_store` of a local
    as _StoreLocal makes it (for the top level or a function)."""
    key = (text, labels, main)
    tree = _BODIES.get(key)
    if tree is None:
        tree = ast.parse(text).body
        if labels:
            tree = [_StoreLocal(main).visit(s) for s in tree]
        _BODIES[key] = tree
    return _copy(tree)


def _const_eval(node):
    """The value of an expression of constants (ints, unary minus, + - *, comparisons),
    or raise ValueError."""
    if isinstance(node, ast.Constant):
        return node.value
    if type(getattr(node, "_value", None)) in (int, float):     # a program constant
        return node._value
    if hasattr(node, "_type"):
        return node._type
    if isinstance(node, ast.Name) and node.id in _TYPES:
        return _TYPES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_const_eval(node.operand)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _const_eval(node.operand)
    if isinstance(node, ast.BinOp):
        a, b = _const_eval(node.left), _const_eval(node.right)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
    if isinstance(node, ast.Compare):
        a = _const_eval(node.left)
        for op, c in zip(node.ops, node.comparators):
            b = _const_eval(c)
            fn = _CMP.get(type(op))
            if fn is None or not fn(a, b):
                if fn is None:
                    raise ValueError
                return False
            a = b
        return True
    raise ValueError


_CMP = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
        ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
        ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
        ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}
_PLAIN = (int, float, str, bool, type(None))
# `Labeled` too: a program constant never carries labels, so `type(K) is Labeled` is False
_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
          "Labeled": Labeled}




class _Fold(_Transformer):
    """Names known constant replaced, expressions of constants computed, and the branches
    an `if`/`x if c else y` of a constant test cannot take dropped."""

    def __init__(self, known):
        self.known = known

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.known:
            return ast.Constant(self.known[node.id])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        # type() of a program constant (a number, a text...): known when translating
        if _is_call(node, "type") and len(node.args) == 1 and \
                hasattr(node.args[0], "_value") and type(node.args[0]._value) in _PLAIN:
            node._type = type(node.args[0]._value)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        is_and = isinstance(node.op, ast.And)
        out = []
        for v in node.values:
            if hasattr(v, "_value") and type(v._value) in (int, bool):
                v = ast.Constant(bool(v._value))     # a program constant's truth
            if isinstance(v, ast.Constant) and type(v.value) is bool:
                if v.value is is_and:
                    continue
                if all(_pure(x) for x in out):      # decides the whole
                    return ast.Constant(not is_and)
                out.append(v)
                break
            out.append(v)
        if not out:
            return ast.Constant(is_and)
        if len(out) == 1:
            return out[0]
        node.values = out
        return node

    def _try(self, node):
        try:
            v = _const_eval(node)
        except (ValueError, TypeError):
            return node
        return ast.Constant(v) if type(v) in (int, bool) else node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return self._try(node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        return self._try(node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        return self._try(node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node


_CMP_OPS = (("<=", "le"), (">", "gt"), (">=", "ge"), ("==", "eq"), ("!=", "ne"))


def _compare(node):
    """`compare(kind, a, b)` (ops.compare_kind) of a kind known when translating, inline:
    the comparison itself for two ints, and for EQ/NE of two texts (what compare_kind and
    equality.equal answer for them), else the kind's own function (le, gt, ge, eq, ne) as
    compare_kind calls it. Any other call: itself. (A part of _Operands' walk.)"""
    if not (_is_call(node, "compare") and len(node.args) == 3 and
            isinstance(node.args[0], ast.Constant) and
            type(node.args[0].value) is int and 0 <= node.args[0].value < 5 and
            all(isinstance(x, (ast.Name, ast.Constant)) for x in node.args[1:])):
        return node
    sym, fn = _CMP_OPS[node.args[0].value]
    test = "type(a) is int and type(b) is int"
    if sym in ("==", "!="):
        test = f"({test} or type(a) is str and type(b) is str)"
    e = _parsed(f"(a {sym} b) if {test} else {fn}(a, b)\n")[0].value
    return _Subst({"a": node.args[1], "b": node.args[2]}).visit(e)


def _pure(node):
    """No effect when evaluated (a decided test may skip it): no call but type()."""
    return all(not isinstance(n, ast.Call) or _is_call(n, "type") for n in _walk(node))


def _fold_block(stmts, known=None):
    """Constant propagation of `x = <constant>` down a block, then folding. What is known
    at a statement holds where it runs: an `if`'s branches start from what held at the
    test; a `try`'s handlers, `else` and `finally` may start after any part of its body
    (and the `finally` after a handler), so what those stored is not known there; a
    loop's body (or any other statement with a body) may run again after its own stores.
    The branch an `if` of a constant test takes is put in its place and read on, as
    statements of this block."""
    known = dict(known or {})
    out = []
    todo = stmts[::-1]          # a stack: the next statement last
    while todo:
        s = todo.pop()
        t = type(s)
        if t is ast.If:
            s.test = _Fold(known).visit(s.test)
            if isinstance(s.test, ast.Constant):
                todo += (s.body if s.test.value else s.orelse)[::-1]
                continue
            s.body = _fold_block(s.body, known) or [ast.Pass()]
            s.orelse = _fold_block(s.orelse, known)
        elif t is ast.Try:
            after = _unknown(known, s.body)
            s.body = _fold_block(s.body, known) or [ast.Pass()]
            for h in s.handlers:
                h.body = _fold_block(h.body, after) or [ast.Pass()]
            s.orelse = _fold_block(s.orelse, after)
            s.finalbody = _fold_block(s.finalbody, _unknown(after, s.handlers + s.orelse))
        elif hasattr(s, "body"):
            s = _Fold(_unknown(known, [s])).visit(s)
        else:
            s = _Fold(known).visit(s)
        if known:
            for name in _stored([s]):
                known.pop(name, None)
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Constant) and \
                type(s.value.value) is int:
            known[s.targets[0].id] = s.value.value
        out.append(s)
    return out


def _stored(stmts):
    """The names stored anywhere in `stmts` (an `except E as e` stores e too)."""
    out = set()
    for s in stmts:
        for n in _walk(s):
            if type(n) is ast.Name and type(n.ctx) is ast.Store:
                out.add(n.id)
            elif type(n) is ast.ExceptHandler and n.name:
                out.add(n.name)
    return out


def _unknown(known, stmts):
    """`known` without the names stored anywhere in `stmts`."""
    if not known:
        return known
    stored = _stored(stmts)
    return {k: v for k, v in known.items() if k not in stored}


def _reads_after_write(stmts, written_name, read_name):
    """May a read of `read_name` follow a write of `written_name` on some path?"""
    def reads(node):
        return any(isinstance(n, ast.Name) and n.id == read_name and
                   isinstance(n.ctx, ast.Load) for n in _walk(node))

    def writes(node):
        return any(isinstance(n, ast.Name) and n.id == written_name and
                   isinstance(n.ctx, ast.Store) for n in _walk(node))

    def block(ss, w):
        for s in ss:
            if isinstance(s, ast.If):
                if w and reads(s.test):
                    raise StopIteration
                w = block(s.body, w) | block(s.orelse, w)
            elif isinstance(s, ast.Try):
                wb = block(s.body, w)
                wh = w or writes(ast.Module(body=s.body, type_ignores=[]))
                for h in s.handlers:
                    wb |= block(h.body, wh)
                w = block(s.finalbody, wb or wh)
            elif isinstance(s, ast.Assign):
                if w and reads(s.value):
                    raise StopIteration
                w = w or writes(s)
            else:
                if w and reads(s):
                    raise StopIteration
                w = w or writes(s)
        return w
    try:
        block(stmts, False)
    except StopIteration:
        return True
    return False


def _set_line(node, line):
    """Every node of a statement on Python line `line` (which says, when it raises, which
    instruction part it is); the loop's own names must not be left in it."""
    for n in _walk(node):
        if "lineno" in n._attributes:
            n.lineno = n.end_lineno = line
            n.col_offset = n.end_col_offset = 0
            if type(n) is ast.Name and n.id.startswith("_LOOP_"):
                raise Declined(f"the loop's {n.id[6:]}")
    return node


def _has_continue(node):
    return any(isinstance(n, ast.Continue) for n in _walk(node))


def _raises(s):
    """A statement that always raises: ops.not_callable(...), or with labels
    _raise_labelled(vm, labels, ops.not_callable, ...)."""
    def not_callable(f):
        return isinstance(f, ast.Attribute) and f.attr == "not_callable" and \
            isinstance(f.value, ast.Name) and f.value.id == "ops"
    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)):
        return False
    c = s.value
    return not_callable(c.func) or (_is_call(c, "_raise_labelled") and len(c.args) >= 3 and
                                    not_callable(c.args[2]))


def _absorb(stmts):
    """A last part's `continue` (this instruction is done: a host tool's call of a call
    instruction) as a path that falls through to the part's end: the statements after the
    `if` holding it are moved into its other paths. Both paths then end at the instruction's
    end with the same stack, and the next instruction is reached by one goto instead of
    two (the block merging puts it in place: no dispatch after a call)."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Continue):
            return out
        if _raises(s):
            # it raises itself: `raise` of it ends the path for the translator too
            out.append(ast.Raise(exc=s.value, cause=None))
            return out
        out.append(s)
        if isinstance(s, ast.If) and _has_continue(s):
            rest = stmts[i + 1:]
            s.body = _absorb(s.body + _copy(rest)) or [ast.Pass()]
            s.orelse = _absorb(s.orelse + rest)
            return out
    return out


def _terminates(stmts):
    return bool(stmts) and isinstance(stmts[-1], (ast.Return, ast.Raise, ast.Continue))


# ---- one function ----------------------------------------------------------------------------

class FunctionTranslator:
    """The Python function of one Synsema function (its fused decoded code)."""

    def __init__(self, tr, fi, func, code):
        self.tr, self.fi, self.func, self.code = tr, fi, func, code
        self.labels = tr.labels
        self.defs, self.fused, _ = D.TABLES[tr.labels]
        self.main = func.kind == "main"
        self.has_try = any(
            "TRY_BEGIN" in _parts_of(op, self.labels)[0] for op, _ in code)
        self.depth_at = {}          # block leader -> stack depth on entry
        self.try_depth = {}         # handler target -> stack depth below the message
        self.uses_budget = False
        self.cached_fn = False      # this instruction's call value found its callee

    # -- operands
    def fields(self, idx):
        """[(name, {field: value node})] of the parts of instruction idx."""
        op, arg = self.code[idx]
        names, threaded, tail = _parts_of(op, self.labels)
        out = []
        if len(names) == 1 and op not in self.fused:
            # labels off, an instruction decoded alone has no label-only fields
            spec = [n.lstrip("+") for n in self.defs[names[0]][4]
                    if self.labels or not _label_only(n)]
            vals = [] if not spec else [arg] if len(spec) == 1 else list(arg)
            out.append((names[0], dict(zip(spec, self._values(idx, spec, vals,
                                                                len(spec) == 1)))))
            return out, threaded, tail
        off = 0
        for name in names:
            spec = list(self.defs[name][4])
            vals = list(arg[off:off + len(spec)])
            f = {}
            for j, (n, v) in enumerate(zip(spec, vals)):
                f[n.lstrip("+")] = self._value(idx, off + j, n.lstrip("+"), v)
            out.append((name, f))
            off += len(spec)
        return out, threaded, tail

    def _values(self, idx, spec, vals, bare):
        return [self._value(idx, None if bare else j, n, v)
                for j, (n, v) in enumerate(zip(spec, vals))]

    def _value(self, idx, j, name, v):
        if name in _STRUCT:
            if type(v) is not int:
                raise Declined(f"field {name}")
            return ast.Constant(v)
        return self.tr.kref(self.fi, idx, j, v)

    # -- leaders
    def leaders(self):
        n = len(self.code)
        lead = {0}
        for idx in range(n):
            parts, threaded, tail = self.fields(idx)
            exits = False
            for name, f in parts:
                flow = self.defs[name][5]
                if "t" in f and not (threaded and flow == "jump"):
                    lead.add(f["t"].value)
                    exits = True
                if flow in ("return", "jump", "branch", "for_iter", "keep_or_pop", "try") or \
                        name in ("CALL", "CALL1"):
                    exits = True
            if threaded:
                t = next(f["t"].value for name, f in parts if self.defs[name][5] == "jump")
                lead.add(t + 1)
                exits = True
            if exits and idx + 1 < n:
                lead.add(idx + 1)
        return sorted(x for x in lead if x < n)

    # -- the function
    def translate(self):
        code = self.code
        lead = self.leaders()
        lead_set = set(lead)
        self.lead_set = lead_set
        blocks = {}
        self.depth_at = {0: 0}
        work = [0]
        while work:
            b = work.pop()
            if b in blocks:
                continue
            stmts, succ = self.block(b)
            blocks[b] = stmts
            for t, d in succ:
                if t >= len(code):
                    raise Declined("jump past the end")
                if self.depth_at.setdefault(t, d) != d:
                    raise Declined("stack depths differ at a join")
                if t not in blocks:
                    work.append(t)
        _merge_blocks(blocks, set(self.try_depth))
        for b in blocks:
            blocks[b] = _specialize(blocks[b])
        for b, stmts in blocks.items():
            if _jumps_to(stmts, b):
                blocks[b] = _self_loop(stmts, b)
            _forward(blocks[b])
            _next_as_for(blocks[b])
            if self.main and self.labels:
                _hoist_globals_of_loops(blocks[b])
        return self.function(blocks)

    def block(self, start):
        """(statements, [(successor, depth)]) of the block at `start`."""
        stack = [_name(f"_s{i}") for i in range(self.depth_at[start])]
        out = []
        succ = []
        idx = start
        while True:
            line = self.tr.line(self.fi, idx, 0)
            res = self.instruction(idx, stack, succ)
            out += res[0]
            stack = res[1]
            if stack is None:
                return out, succ
            idx = res[2]
            if idx in self.lead_set or idx >= len(self.code):
                out += [_set_line(x, line) for x in self.goto(idx, stack, succ, line)]
                return out, succ

    def materialize(self, stack, line, below=None):
        """Statements assigning each stack entry to its depth variable; the new stack."""
        targets, values, new = [], [], []
        for d, e in enumerate(stack):
            nm = f"_s{d}"
            if not (isinstance(e, ast.Name) and e.id == nm):
                targets.append(_name(nm, ast.Store()))
                values.append(e)
            new.append(_name(nm))
        if not targets:
            return [], new
        if len(targets) == 1:
            st = ast.Assign(targets, values[0])
        else:
            st = ast.Assign([ast.Tuple(targets, ast.Store())], ast.Tuple(values, ast.Load()))
        return [st], new

    def goto(self, target, stack, succ, line):
        out, new = self.materialize(stack, line)
        succ.append((target, len(new)))
        out += [ast.Assign([_name("_b", ast.Store())], ast.Constant(target)),
                ast.Continue()]
        return out

    # -- one instruction
    def instruction(self, idx, stack, succ):
        """(statements, stack after or None, next index) of instruction idx."""
        parts, threaded, tail = self.fields(idx)
        out = []
        stack = list(stack)
        nxt = idx + 1
        jump_dropped = False
        for k, (name, f) in enumerate(parts):
            line = self.tr.line(self.fi, idx, k)
            body, ins_, outs, raw, _, flow = self.defs[name]
            stmts = _body(body, self.labels, self.main)
            drop_jump = threaded and flow == "jump" and not jump_dropped
            if drop_jump:
                jump_dropped = True
                nxt = f["t"].value + 1
            self.cached_fn = False
            stmts = self.prepare(stmts, f, idx, drop_jump)
            if k == len(parts) - 1 and not threaded and not tail:
                stmts = _absorb(stmts)
            self.new_list = None
            self.new_used = False
            stmts, stack = self.part(stmts, ins_, outs, raw, stack, idx, line, succ)
            out += [_set_line(x, line) for x in stmts]
            if stack is None:
                return out, None, None
        if tail and not threaded:
            nxt = idx + 2
        return out, stack, nxt

    def prepare(self, stmts, f, idx, drop_jump):
        """A part's body with its operands, the loop's names and its call in place."""
        stmts = self.calls(stmts, f)
        stmts = [_TryMarks().visit(s) for s in stmts]
        if drop_jump:
            stmts = [s for s in stmts if not (isinstance(s, ast.Expr) and
                                                _is_call(s.value, "JUMP"))]
        operands = _Operands(self, f, idx)
        stmts = [operands.visit(s) for s in stmts]
        if operands.uses_budget:
            self.uses_budget = True
        stmts = _fold_block(stmts)
        if self.call_kind == "value":
            stmts = self.callee_cache(stmts)
        if self.call_kind is not None:
            stmts = _room_in_budget(stmts)
        return stmts

    def callee_cache(self, stmts):
        """A call value's callee: its translated function from the run's table of the
        functions already called with this many arguments (`_A<n>`, keyed by the
        closure's function), one dict read; only a function not in it yet takes the
        instruction's path (its code and frame pads, the pad for n arguments: the arity
        check, which raises for a count it does not take) and is entered in it
        (`_look`). Whether n arguments fit depends on the function alone, so a function
        in `_A<n>` has passed that check; nothing else on the path can raise."""
        def assigns(st, name):
            return isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                isinstance(st.targets[0], ast.Name) and st.targets[0].id == name
        def pad_of(st):
            # `pad = fpads[n]`; with labels `if clab: pad = _raise_labelled(.., fpads
            # .__getitem__, n)` (a labelled callee's arity error carries its labels)
            # `else: pad = fpads[n]`: the same check, which a cached function has passed
            if assigns(st, "pad"):
                return st.value
            if isinstance(st, ast.If) and len(st.orelse) == 1 and assigns(st.orelse[0], "pad"):
                return st.orelse[0].value
            return None
        start = next((i for i, st in enumerate(stmts) if assigns(st, "fcode")), None)
        end = next((i for i, st in enumerate(stmts) if pad_of(st) is not None), None)
        if start is None or end is None or end < start:
            return stmts
        v = pad_of(stmts[end])
        if not (isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and
                v.value.id == "fpads" and isinstance(v.slice, ast.Constant) and
                type(v.slice.value) is int):
            return stmts
        n = v.slice.value
        self.tr.arities.add(n)
        hit = _template(f"_fn = _A{n}[callee.func]\n")
        miss = stmts[start:end + 1] + _template(f"_fn = _look(_A{n}, callee.func)\n")
        node = ast.Try(hit, [ast.ExceptHandler(_name("KeyError"), None, miss)], [], [])
        self.cached_fn = True
        return stmts[:start] + [node] + stmts[end + 1:]

    def calls(self, stmts, f):
        """The loop's frame switch (save the frame; code, locals and pc of the callee)
        replaced by a Python call whose value is pushed."""
        at = next((i for i, s in enumerate(stmts) if isinstance(s, ast.Expr) and
                   isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
                   and isinstance(s.value.func.value, ast.Name) and
                   s.value.func.value.id == "frames" and s.value.func.attr == "append"), None)
        if at is None:
            self.task_call = False
            self.call_kind = None
            return stmts
        end = next(i for i in range(at, len(stmts)) if isinstance(stmts[i], ast.Assign) and
                   isinstance(stmts[i].targets[0], ast.Name) and
                   stmts[i].targets[0].id == "pc")
        if "callee" in f and "fcode" in f:         # a task called by name
            callee = f["callee"]
            fn = self.tr.fn_name(self.tr.kval(callee))
            call = ("task", fn)
        else:
            call = ("value", None)
        self.task_call = call[0] == "task"
        self.call_kind = call[0]
        marker = ast.Expr(ast.Call(_name("_CALL_"), [ast.Constant(call[0]),
                                                     ast.Constant(call[1])], []))
        # Labels: a labelled callee raises the pc for its call, at its own depth (the
        # loop pushes after saving the frame: `base_depth + len(frames)` is the callee's)
        # and the callee's return (or the run's end, or the catching try) drops it.
        keep = []
        for st in stmts[at + 1:end]:
            if any(_is_call(n, "push_pc") for n in _walk(st)):
                keep.append(_Deeper().visit(st))
        return stmts[:at] + keep + [marker] + stmts[end + 1:]

    # -- the stack
    def part(self, stmts, ins_, outs, raw, stack, idx, line, succ):
        """Bind a part's picture and run its statements over the symbolic stack."""
        out = []
        env = {}
        if not raw:
            kept = 0
            while kept < min(len(ins_), len(outs)) and ins_[kept] == outs[kept]:
                kept += 1
            popped = {}
            for n in reversed(ins_[kept:]):
                if not stack:
                    raise Declined("stack underflow")
                popped[n] = stack.pop()
            for n in ins_[:kept]:
                popped[n] = stack[-1]
            stores = {x.id for s in stmts for x in _walk(s)
                      if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)}
            for n, e in popped.items():
                stored = n in stores
                clash = isinstance(e, ast.Name) and _reads_after_write(stmts, e.id, n)
                if stored or clash or not isinstance(e, (ast.Name, ast.Constant)):
                    out.append(ast.Assign([_name(n, ast.Store())], e))
                else:
                    env[n] = e
            stmts = [_Subst(env).visit(s) for s in stmts]
            if any(hasattr(e, "_value") for e in env.values()):
                stmts = _fold_block(stmts)      # the tests a constant input decides
            self.env = env
            # The outputs: a lone `v = <local or constant>` stays an expression; else each
            # output is assigned to its depth variable (in the body when nothing after the
            # assignment reads what that variable held).
            self.pending = []
            base = len(stack)
            for j, o in enumerate(outs[kept:]):
                d = base + j
                nm = f"_s{d}"
                if len(stmts) == 1 and isinstance(stmts[0], ast.Assign) and \
                        isinstance(stmts[0].targets[0], ast.Name) and \
                        stmts[0].targets[0].id == o and self.pure(stmts[0].value) and \
                        len(outs) - kept == 1:
                    self.pending.append(stmts[0].value)
                    stmts = []
                    continue
                # Renamed o -> nm, a read of nm after a write of o would see the new value
                if _reads_after_write(stmts, o, nm):
                    self.pending.append(_name(o))
                else:
                    stmts = [_Rename(o, nm).visit(s) for s in stmts]
                    self.pending.append(_name(nm))
        else:
            self.pending = []
            self.env = {}
        res = self.run(stmts, stack, idx, line, succ)
        if res[1] is None:
            return out + res[0], None
        out += res[0]
        stack = res[1]
        for e in self.pending:
            out += self.push(e, stack, line)
        return out, stack

    def pure(self, e):
        if self.has_try:
            return False
        if isinstance(e, ast.Constant):
            return True
        if isinstance(e, ast.Name) and (e.id.startswith("_k") or e.id.startswith("_l")):
            return True
        return False

    def push(self, e, stack, line):
        d = len(stack)
        nm = f"_s{d}"
        if self.pure(e) or (isinstance(e, ast.Name) and e.id == nm):
            stack.append(e)
            return []
        stack.append(_name(nm))
        return [ast.Assign([_name(nm, ast.Store())], e)]

    def run(self, stmts, stack, idx, line, succ):
        """Run statements over the stack: (statements, stack after, or None when every
        path left: a jump, a return, a raise)."""
        out = []
        for s in stmts:
            if stack is None:
                break
            r = self.stmt(s, stack, idx, line, succ)
            out += r[0]
            stack = r[1]
        return out, stack

    def expr(self, e, stack):
        """An expression with its stack reads (pop(), stack[-k], stack[-k:]) resolved."""
        e = _StackExpr(stack).visit(e)
        if self.labels:
            e = _LabelledIn().visit(e)
        return e

    def stmt(self, s, stack, idx, line, succ):
        stack = list(stack)
        pre = []
        reads_new = (self.new_list is not None or self.new_used) and any(
            isinstance(n, ast.Name) and n.id == "new" and isinstance(n.ctx, ast.Load)
            for n in _walk(s))
        if self.new_list is None and reads_new and self.new_used:
            raise Declined("a call's argument list read twice")
        if self.new_list is not None:
            v = self.new_list
            if reads_new:
                s = _Subst({"new": v}).visit(s)
                self.new_list = None
                self.new_used = True
            else:
                names = {n.id for n in _walk(v) if isinstance(n, ast.Name)} | {"new"}
                if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and
                       n.id in names or _is_call(n, "push") or isinstance(n, ast.Delete)
                       for n in _walk(s)):
                    # its elements may change: the list is built here
                    self.new_list = None
                    pre = [ast.Assign([_name("new", ast.Store())], v)]
        if pre:
            out, st = self.stmt(s, stack, idx, line, succ)
            return pre + out, st
        if isinstance(s, ast.Expr) and _is_call(s.value, "JUMP"):
            t = s.value.args[0]
            if not isinstance(t, ast.Constant):
                raise Declined("a computed jump")
            return self.goto(t.value, stack, succ, line), None
        if isinstance(s, ast.Expr) and _is_call(s.value, "_CALL_"):
            return self.call(s.value, stack, idx, line)
        if isinstance(s, ast.Expr) and _is_call(s.value, "_TRY_"):
            # The handler's stack: this one, then the error's message; every entry in its
            # depth variable (has_try: no entry stays an expression in such a function).
            t = s.value.args[0].value
            out, stack = self.materialize(stack, line)
            d = len(stack)
            if self.try_depth.setdefault(t, d) != d:
                raise Declined("a handler reached at two depths")
            succ.append((t, d + 1))
            entry = [ast.Constant(t)]
            if len(s.value.args) > 1:           # labels: the try's pc entry with it
                entry = [ast.Tuple([ast.Constant(t), s.value.args[1]], ast.Load())]
            out.append(ast.Expr(ast.Call(ast.Attribute(
                _name("_h"), "append", ast.Load()), entry, [])))
            return out, stack
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and s.targets[0].id == "new":
            v = self.expr(s.value, stack)
            if not isinstance(v, ast.List):
                raise Declined("call arguments")
            self.new_args = list(v.elts)
            if self.task_call:
                return [], stack
            # A call value's argument list: only a host tool's call reads it (vm.call_host),
            # built there (a translated callee takes the arguments themselves).
            self.new_list = v
            self.new_used = False
            return [], stack
        if isinstance(s, ast.Continue):     # this instruction is done: on to the next
            return self.goto(idx + 1, stack, succ, line), None
        if isinstance(s, ast.Expr) and _is_call(s.value, "push"):
            e = self.expr(s.value.args[0], stack)
            return self.push(e, stack, line), stack
        if isinstance(s, ast.Expr) and _is_call(s.value, "pop") and not s.value.args:
            stack.pop()
            return [], stack
        if isinstance(s, ast.Delete):
            t = s.targets[0]
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                    t.value.id == "stack" and isinstance(t.slice, ast.Slice) and \
                    t.slice.upper is None and t.slice.step is None:
                k = _const_eval(t.slice.lower)
                if not (k < 0 and -k <= len(stack)):
                    raise Declined("stack slice")
                del stack[k:]
                return [], stack
            raise Declined("del")
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Subscript) and \
                isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == "stack":
            k = _const_eval(s.targets[0].slice)
            e = self.expr(s.value, stack)
            if k != -1:
                raise Declined("stack store")
            stack.pop()
            return self.push(e, stack, line), stack
        if isinstance(s, ast.If):
            test = self.expr(s.test, stack)
            if isinstance(test, ast.Constant):      # decided now (_LabelledIn)
                return self.run(s.body if test.value else s.orelse, stack, idx, line, succ)
            pre = self.invalidate(test, stack, line)
            b_out, b_st = self.run(s.body, list(stack), idx, line, succ)
            o_out, o_st = self.run(s.orelse, list(stack), idx, line, succ)
            if b_st is not None and o_st is not None and \
                    [ast.dump(x) for x in b_st] != [ast.dump(x) for x in o_st]:
                if len(b_st) != len(o_st):
                    raise Declined("branches leave different stacks")
                m1, b_st = self.materialize(b_st, line)
                m2, o_st = self.materialize(o_st, line)
                b_out += m1
                o_out += m2
            node = ast.If(test, b_out or [ast.Pass()], o_out)
            after = b_st if b_st is not None else o_st
            return pre + [node], after
        if isinstance(s, ast.Try):
            if s.orelse:
                raise Declined("try/else")
            b_out, b_st = self.run(s.body, list(stack), idx, line, succ)
            handlers = []
            for h in s.handlers:
                h_out, h_st = self.run(h.body, list(stack), idx, line, succ)
                if h_st is not None and b_st is not None and \
                        [ast.dump(x) for x in h_st] != [ast.dump(x) for x in b_st]:
                    raise Declined("a handler's stack")
                if b_st is None:
                    b_st = h_st
                handlers.append(ast.ExceptHandler(h.type, h.name, h_out or [ast.Pass()]))
            f_out, f_st = self.run(s.finalbody, list(b_st if b_st is not None else stack),
                                   idx, line, succ)
            if s.finalbody and (f_st is None or len(f_st) != len(b_st or stack)):
                raise Declined("finally")
            node = ast.Try(b_out or [ast.Pass()], handlers, [], f_out)
            return [node], b_st
        if isinstance(s, (ast.Return, ast.Raise)):
            s = self.expr(s, stack)
            return [s], None
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr, ast.Pass)):
            s = self.expr(s, stack)
            pre = self.invalidate(s, stack, line)
            return pre + [s], stack
        raise Declined(type(s).__name__)

    def invalidate(self, s, stack, line):
        """Before a statement storing into a local: the stack entries that are that local
        get their depth variables (they hold the value from before the store)."""
        stored = {n.id for n in _walk(s) if isinstance(n, ast.Name) and
                  isinstance(n.ctx, ast.Store) and n.id.startswith("_l")}
        out = []
        for d, e in enumerate(stack):
            if isinstance(e, ast.Name) and e.id in stored:
                nm = f"_s{d}"
                out.append(ast.Assign([_name(nm, ast.Store())], e))
                stack[d] = _name(nm)
        return out

    def call(self, marker, stack, idx, line):
        """A Synsema call as a Python call: the translated callee at depth _d + 1 while the
        run's Python stack has room (else the loop runs it, _deep); its value pushed."""
        kind, fn = marker.args[0].value, marker.args[1].value
        # _room_in_budget: False on the path where the budget proves the Python stack has
        # room for this call (no test of _dlim)
        test_room = len(marker.args) < 3 or marker.args[2].value
        args = self.new_args
        if kind == "task":
            direct = ast.Call(_name(fn), [ast.BinOp(_name("_d"), ast.Add(), ast.Constant(1)),
                                          ast.Tuple([], ast.Load()), *args], [])
            deep = ast.Call(_name("_deep"), [_name(fn + "_func"), ast.Tuple([], ast.Load()),
                                             ast.List(list(args), ast.Load()),
                                             ast.BinOp(_name("_d"), ast.Add(),
                                                       ast.Constant(1))], [])
        else:
            # The callee's translated function: _T (or callee_cache's _A<n>) is an exact
            # dict (a subscript of it is the interpreter's fast one); a function of another
            # program (a plan's task value) is not in it, and runs in the loop (_miss).
            fnx = _name("_fn")
            if self.cached_fn:      # callee_cache has set _fn
                look = []
            else:
                look = _template("try:\n    _fn = _T[callee.func]\n"
                                 "except KeyError:\n    _fn = _miss(callee.func)\n")
                look = [_Subst(self.env).visit(x) for x in look]
            caps = ast.Attribute(_name("callee"), "captures", ast.Load())
            direct = ast.Call(fnx, [ast.BinOp(_name("_d"), ast.Add(), ast.Constant(1)), caps,
                                    *args], [])
            deep = ast.Call(_name("_deep"), [ast.Attribute(_name("callee"), "func",
                                                           ast.Load()), caps,
                                             ast.List(list(args), ast.Load()),
                                             ast.BinOp(_name("_d"), ast.Add(),
                                                       ast.Constant(1))], [])
        if test_room:
            e = ast.IfExp(ast.Compare(_name("_d"), [ast.Lt()], [_name("_dlim")]), direct, deep)
        else:
            e = direct
        e = _Subst(self.env).visit(e)
        if kind == "task":
            return self.push(e, stack, line), stack
        return look + self.push(e, stack, line), stack

    # -- the Python function
    def function(self, blocks):
        func = self.func
        fi = self.fi
        nparams = len(func.params)
        nlets = func.nlocals - func.fixed
        body = []
        if self.uses_budget:
            body.append(ast.Nonlocal(["_budget"]))
        if not self.main:
            lets = [_name(f"_l{nparams + i}", ast.Store()) for i in range(nlets)]
            if lets:
                body.append(ast.Assign(lets, ast.Constant(None)))
            if func.ncaptures:
                caps = [_name(f"_l{nparams + nlets + i}", ast.Store())
                        for i in range(func.ncaptures)]
                body.append(ast.Assign([ast.Tuple(caps, ast.Store())], _name("_caps")))
        if self.labels:
            # the frame's declaration stamps, as the labels loop makes them for a call
            size = ast.Call(_name("len"), [_name("glob")], []) if self.main else \
                ast.Constant(func.nlocals + func.ncaptures)
            body += _template("_st = [vm.stamp] * _N_ if pcs else None\n", _N_=0)
            body[-1].value.body.right = size
        if self.has_try:
            body.append(ast.Assign([_name("_h", ast.Store())], ast.List([], ast.Load())))
        body.append(ast.Assign([_name("_b", ast.Store())], ast.Constant(0)))
        dispatch = _tree(sorted(blocks), blocks)
        handler = _template((_L_CATCH if self.has_try else _L_RERAISE) if self.labels else
                            (_CATCH if self.has_try else _RERAISE), _FI_=fi)
        message = ast.Attribute(_name("_err"), "message", ast.Load())
        if self.labels:
            message = _template("_M_ = _caught_message(_err)\n")[0].value
        for t, d in sorted(self.try_depth.items()):
            handler.append(ast.If(ast.Compare(_name("_b"), [ast.Eq()], [ast.Constant(t)]),
                                  [ast.Assign([_name(f"_s{d}", ast.Store())],
                                              _copy(message))], []))
        only = list(blocks.values())[0] if len(blocks) == 1 else None
        if only is not None and not self.has_try and not any(
                isinstance(n, (ast.Continue, ast.Break, ast.While))
                for st in only for n in _walk(st)):
            # One block that never jumps (a small task or lambda: `give x + 1`): no
            # dispatch, no loop around it.
            body = [st for st in body if not (isinstance(st, ast.Assign) and
                                              isinstance(st.targets[0], ast.Name) and
                                              st.targets[0].id == "_b")]
            body.append(ast.Try(only, [ast.ExceptHandler(_name("Exception"), "_e", handler)],
                                [], []))
        else:
            inner = ast.While(ast.Constant(True), dispatch, [])
            tr = ast.Try([inner], [ast.ExceptHandler(_name("Exception"), "_e", handler)],
                         [], [])
            body.append(ast.While(ast.Constant(True), [tr], []))
        args = [ast.arg("_d"), ast.arg("_caps")] + [ast.arg(f"_l{i}") for i in range(nparams)]
        defaults = [_name("UNSET") for _ in range(nparams)]
        fdef = ast.FunctionDef(self.tr.fn_name(func), ast.arguments(
            [], args, None, [], [], None, defaults), body, [], None)
        _drop_dead_copies(fdef)
        return fdef


class _Operands(_Transformer):
    """A part's body with its operands (`OP.x`: their nodes) and the loop's names (pc,
    code, the budget, locals as Python variables, ...) in place; in the same walk, each
    call through _compare and _tick. (One walk: these were three passes.)"""

    def __init__(self, ft, f, idx):
        self.f = f
        self.idx = idx
        self.fi = ft.fi
        self.main = ft.main
        self.nslots = ft.func.nlocals + ft.func.ncaptures
        self.op = ft.code[idx][0]
        self.uses_budget = False    # a `_budget` in the result (the function's nonlocal)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "OP":
            if node.attr not in self.f:
                raise Declined(f"OP.{node.attr}")
            return self.f[node.attr]
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "locals_":
            node.slice = self.visit(node.slice)
            if not isinstance(node.slice, ast.Constant):
                raise Declined("a computed local slot")
            if self.main:
                return ast.Subscript(_name("glob"), node.slice, node.ctx)
            return _name(f"_l{node.slice.value}", node.ctx)
        self.generic_visit(node)
        return node

    def visit_BinOp(self, node):
        # `room - len(frames)`: the calls the depth limit allows from here;
        # `base_depth + len(frames)`: this frame's depth.
        if isinstance(node.op, (ast.Sub, ast.Add)) and isinstance(node.left, ast.Name) \
                and _is_call(node.right, "len") and \
                isinstance(node.right.args[0], ast.Name) and \
                node.right.args[0].id == "frames":
            if node.left.id == "room" and isinstance(node.op, ast.Sub):
                return ast.BinOp(_name("_maxd"), ast.Sub(), _name("_d"))
            if node.left.id == "base_depth" and isinstance(node.op, ast.Add):
                return _name("_d")
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        # `len(locals_)`: the frame's size (labels: a new stamps list)
        if _is_call(node, "len") and isinstance(node.args[0], ast.Name) and \
                node.args[0].id == "locals_":
            return ast.Call(_name("len"), [_name("glob")], []) if self.main else \
                ast.Constant(self.nslots)
        # An operand called (`OP.fn(a)`, `OP.labelled(vm, a)`): only the parts of
        # CALL_BUILTIN do, whose builtin is a pure one (the decoder makes a builtin given
        # the VM CALL_VM_BUILTIN): it runs no Synsema code (_keeps_globals).
        direct = type(node.func) is ast.Attribute and type(node.func.value) is ast.Name \
            and node.func.value.id == "OP"
        self.generic_visit(node)
        if direct:
            node._pure = True
        return _compare(_tick(node))

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Name) and \
                node.operand.id == "frames":
            return ast.Constant(True)     # a Python call returns to its caller
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        n = node.id
        if n == "pc":
            if isinstance(node.ctx, ast.Load):
                return ast.Constant(self.idx + 1)
            return node
        if n == "code" and isinstance(node.ctx, ast.Load):
            return _name(f"_code{self.fi}")
        if n == "budget":
            self.uses_budget = True
            return _name("_budget", node.ctx)
        if n == "stamps":           # labels: this frame's declaration stamps
            return _name("_st", node.ctx)
        if n == "base_depth":
            return _name("_base", node.ctx)
        if n == "op":
            return ast.Constant(self.op)
        if n in ("decoded", "pads"):
            return _name("_" + n, node.ctx)
        if n in ("locals_", "frames", "handlers", "room", "arg"):
            # Declined if it is in what is emitted (dead code after a return is not)
            return _name("_LOOP_" + n, node.ctx)
        return node


# What the loop does with an error (vm/instructions.py LOOP), for this frame: its position
# added to the error's trace; caught by the innermost open try of this function (the
# message goes to the handler's depth variable), else passed to the caller's frame.
_CATCH = """
_err = _fail(_e, _FI_)
if not _err.catchable or not _h:
    raise _err from None
_b = _h.pop()
_err.trace.clear()
_err.secret_frames = 0
"""
_RERAISE = """
raise _fail(_e, _FI_) from None
"""
# The same with labels (vm.labels.caught: the loop's handler, for the try that catches;
# withhold_frame: a frame that ran under a labelled pc is not shown where the error is
# reported, as the loop's _withhold_frames says of its frames).
_L_CATCH = """
_err = _fail(_e, _FI_)
if vm.pc:
    _err.labels = _err.labels | vm.pc
if not _err.catchable or not _h:
    if vm.pc:
        withhold_frame(_err, pcs, _d)
    raise _err from None
_b, _entry = _h.pop()
caught(vm, _entry, _err.labels)
_err.trace.clear()
_err.secret_frames = 0
"""
_L_RERAISE = """
_err = _fail(_e, _FI_)
if vm.pc:
    _err.labels = _err.labels | vm.pc
    withhold_frame(_err, pcs, _d)
raise _err from None
"""


def _tick(node):
    """vm.tick / vm.tick_call (a call node, changed in place) as the run's _tick /
    _tick_call, whose chunks the Python stack's room bounds too (_room_in_budget). (A part
    of _Operands' walk.)"""
    f = node.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id == "vm" and f.attr in ("tick", "tick_call"):
        node.func = _name("_" + f.attr)
    return node


def _room_in_budget(stmts):
    """A call's step charge then its call: the call on two paths. The step budget of a
    run is taken in chunks no larger than the calls the depth limit allows from where it
    is taken (vm.take_budget), and here no larger than the calls the Python stack has room
    for either (_tick, _tick_call, _enter, _deep: below _dlim); each call spends a step
    and goes one deeper, so while the charge leaves the budget above 0, this frame is
    below _dlim: the call is made without testing it. Only the path that took a new chunk
    tests it (and goes to the loop, _deep, past it). The limits are unchanged: a chunk
    never runs past the step limit, its size only decides when it is checked."""
    for i, st in enumerate(stmts[:-1]):
        if not (isinstance(st, ast.If) and not st.orelse and len(st.body) == 1 and
                isinstance(st.body[0], ast.Assign) and
                _is_call(st.body[0].value, "_tick_call")):
            continue
        # labels: between them, a labelled callee's pc raised (no call, no depth)
        j = i + 1
        while j < len(stmts) and isinstance(stmts[j], ast.If) and \
                any(_is_call(n, "push_pc") for n in _walk(stmts[j])):
            j += 1
        nx = stmts[j] if j < len(stmts) else None
        if isinstance(nx, ast.Expr) and _is_call(nx.value, "_CALL_"):
            def marker(test):
                return ast.Expr(ast.Call(_name("_CALL_"), nx.value.args[:2] +
                                         [ast.Constant(test)], []))
            between = stmts[i + 1:j]
            node = ast.If(st.test, st.body + between + [marker(True)],
                          _copy(between) + [marker(False)])
            return stmts[:i] + [node] + stmts[j + 1:]
    return stmts


def _template(text, **consts):
    """Fixed scaffolding, parsed; its placeholder names replaced by constants."""
    env = {k: ast.Constant(v) for k, v in consts.items()}
    return [_Subst(env).visit(s) for s in _parsed(text)]


def _inner_lists(st):
    """(holder, field, list) of each statement list nested in `st`: its body, orelse and
    finalbody, then each handler's body -- what the passes below recurse into."""
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(st, field, None)
        if inner:
            yield st, field, inner
    for h in getattr(st, "handlers", ()):
        yield h, "body", h.body


def _gotos(stmts):
    """Each `_b = X; continue` (a goto) in a block's statements, as (list, index, X)."""
    for i, st in enumerate(stmts):
        if isinstance(st, ast.Continue) and i and isinstance(stmts[i - 1], ast.Assign) and \
                isinstance(stmts[i - 1].targets[0], ast.Name) and \
                stmts[i - 1].targets[0].id == "_b":
            yield stmts, i, stmts[i - 1].value.value
        for _, _, inner in _inner_lists(st):
            yield from _gotos(inner)


def _jumps_to(stmts, b):
    return any(x == b for _, _, x in _gotos(stmts))


_INLINE_NODES = 80        # a block reached from several places is copied there up to this size


def _larger(stmts, n):
    """Do the statements hold more than n nodes? (Counting stops there.)"""
    count = 0
    for st in stmts:
        for _ in _walk(st):
            count += 1
            if count > n:
                return True
    return False


def _merge_blocks(blocks, handlers):
    """A block reached by one goto is put in its place, and so is a small one reached by a
    few (the same statements run in the same order, without the dispatch between them);
    the entry block and a try's handler stay (they are reached from outside the gotos)."""
    changed = True
    while changed:
        changed = False
        sites = {}
        for a, stmts in blocks.items():
            for lst, i, x in _gotos(stmts):
                sites.setdefault(x, []).append((a, lst, i))
        for b, where in sorted(sites.items()):
            if b == 0 or b in handlers or b not in blocks:
                continue
            if any(a == b for a, _, _ in where):
                continue                    # a loop: the self-loop pass makes it one
            # (the size only of a block reached by two or three: counting every block's
            # nodes on every round made this pass quadratic in the function's size)
            if len(where) > 1 and (len(where) > 3 or _larger(blocks[b], _INLINE_NODES)):
                continue
            body = blocks.pop(b)
            for k, (a, lst, i) in enumerate(where):
                copy_ = body if k == len(where) - 1 else _copy(body)
                lst[i - 1:i + 1] = copy_
            changed = True
            break


def _self_loop(stmts, b):
    """A block that jumps to itself (a loop of one block: a `for each` whose body has no
    branch) as a Python `while` loop: its jumps to itself go round without the dispatch,
    its other jumps leave the loop for the dispatch."""
    for lst, i, x in list(_gotos(stmts)):
        if x == b:
            lst[i - 1] = ast.Pass(lineno=lst[i].lineno, end_lineno=lst[i].lineno,
                                  col_offset=0, end_col_offset=0)
        else:
            lst[i] = ast.Break(lineno=lst[i].lineno, end_lineno=lst[i].lineno, col_offset=0,
                               end_col_offset=0)
    pre = _hoist_type_tests(stmts)
    loop = ast.While(ast.Constant(True), stmts, [])
    loop._self = True           # for _hoist_globals_of_loops, after _forward
    return pre + [loop, ast.Continue()]


_TESTED = ("int", "str", "list", "dict", "float", "Labeled")


def _type_test(n):
    """(variable, type name) of `type(v) is T` (or `is not`) of a local or stack variable,
    T one of _TESTED, or None."""
    k = _type_test_op(n)
    if k is not None and k[0][:2] in ("_l", "_s") and k[1] in _TESTED:
        return k[:2]
    return None


def _hoist_type_tests(stmts):
    """In a loop of one block, `type(v) is T` tested more often than v is assigned (a
    local the loop never sets, an index used twice): the test's value kept in a variable,
    computed before the loop and again after each assignment of v. Returns the statements
    to run before the loop; the loop's statements are changed in place."""
    uses, simple, stores = {}, {}, {}

    def hot(node):
        # the tests on the usual path: not in an `else`/`elif` or an except handler
        if isinstance(node, ast.If):
            hot(node.test)
            for x in node.body:
                hot(x)
            return
        if isinstance(node, ast.Try):
            for x in node.body + node.finalbody:
                hot(x)
            return
        if isinstance(node, ast.While):
            for x in node.body:
                hot(x)
            return
        key = _type_test(node)
        if key is not None:
            uses[key] = uses.get(key, 0) + 1
        for x in ast.iter_child_nodes(node):
            hot(x)
    for st in stmts:
        hot(st)
        for n in _walk(st):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name):
                simple[n.targets[0].id] = simple.get(n.targets[0].id, 0) + 1
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
    keep = {(v, t) for (v, t), k in uses.items()
            if stores.get(v, 0) == simple.get(v, 0) and k > stores.get(v, 0)}
    if not keep:
        return []

    def flag(v, t):
        return f"_t{v}_{t}"

    def test(v, t):
        return ast.Assign([_name(flag(v, t), ast.Store())],
                          ast.Compare(ast.Call(_name("type"), [_name(v)], []), [ast.Is()],
                                      [_name(t)]))

    class Use(_Transformer):
        def visit_Compare(self, node):
            key = _type_test(node)
            if key in keep:
                if isinstance(node.ops[0], ast.IsNot):
                    return ast.UnaryOp(ast.Not(), _name(flag(*key)))
                return _name(flag(*key))
            self.generic_visit(node)
            return node

    def walk(lst):
        out = []
        for st in lst:
            st = Use().visit(st)
            for holder, field, inner in list(_inner_lists(st)):
                setattr(holder, field, walk(inner))
            out.append(st)
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                    isinstance(st.targets[0], ast.Name):
                out += [test(v, t) for v, t in sorted(keep) if v == st.targets[0].id]
        return out
    stmts[:] = walk(stmts)
    return [test(v, t) for v, t in sorted(keep)]


_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Mod)
_BETWEEN = 4
_MOVE_NODES = 400         # the most a statement put on both paths may hold (a labels
                          # index: about 200; one of an index: about 380)


def _int_result(st):
    """(Z, kind) of an instruction's fast path whose result's type is known when it ran:
    `if type(x) is int and type(y) is int ...: Z = x op y` (+ - * %, the int fast path of
    an arithmetic instruction; an operand may be an int constant): Z is an int; of
    `Z = x < y` (a comparison's), a bool; of an index's plain path (`_plain_index`),
    "plain": not Labeled."""
    if not isinstance(st, ast.If) or len(st.body) != 1:
        return None
    a = st.body[0]
    z = _plain_index(st)
    if z is not None:
        return z, "plain"
    if not (isinstance(a, ast.Assign) and len(a.targets) == 1 and
            isinstance(a.targets[0], ast.Name)):
        return None
    if isinstance(a.value, ast.BinOp) and isinstance(a.value.op, _INT_OPS):
        kind, operands = "int", (a.value.left, a.value.right)
    elif isinstance(a.value, ast.Compare) and len(a.value.ops) == 1 and \
            isinstance(a.value.ops[0], _ORDER_OPS):
        kind, operands = "bool", (a.value.left, a.value.comparators[0])
    else:
        return None
    ints = {k[0] for k in map(_type_test_op, _conjuncts(st.test))
            if k is not None and k[1] == "int" and k[2]}
    for x in operands:
        if isinstance(x, ast.Name) and x.id in ints:
            continue
        if type(getattr(x, "_value", None)) is int or \
                (isinstance(x, ast.Constant) and type(x.value) is int):
            continue
        return None
    return a.targets[0].id, kind


def _conjuncts(test):
    return test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]


def _plain_index(st):
    """Z of an index's first path with labels on, `if ... type(X) is not Labeled ...:
    try: Z = X[Y] except Exception: Z = index(X, Y)`, or None. Z is not Labeled when that
    path ran: an unlabelled container holds no labelled value (a labelled item makes its
    container precise: vm.precise), and ops.index gives an item, a character or nothing."""
    t = st.body[0]
    if not (isinstance(t, ast.Try) and len(t.body) == 1 and len(t.handlers) == 1 and
            not t.orelse and not t.finalbody and len(t.handlers[0].body) == 1):
        return None
    a, b = t.body[0], t.handlers[0].body[0]
    if not (isinstance(a, ast.Assign) and len(a.targets) == 1 and
            isinstance(a.targets[0], ast.Name) and isinstance(a.value, ast.Subscript) and
            isinstance(a.value.value, ast.Name)):
        return None
    z, x = a.targets[0].id, a.value.value.id
    if not (isinstance(b, ast.Assign) and len(b.targets) == 1 and
            isinstance(b.targets[0], ast.Name) and b.targets[0].id == z and
            _is_call(b.value, "index") and len(b.value.args) == 2 and
            isinstance(b.value.args[0], ast.Name) and b.value.args[0].id == x):
        return None
    if (x, "Labeled", False) not in map(_type_test_op, _conjuncts(st.test)):
        return None
    return z


def _type_test_op(n):
    """(variable, type name, True for `is` / False for `is not`) of `type(v) is T` or
    `type(v) is not T` of any variable, or None."""
    if isinstance(n, ast.Compare) and len(n.ops) == 1 and \
            isinstance(n.ops[0], (ast.Is, ast.IsNot)) and \
            _is_call(n.left, "type") and len(n.left.args) == 1 and \
            isinstance(n.left.args[0], ast.Name) and isinstance(n.comparators[0], ast.Name) \
            and n.comparators[0].id in _TYPES_KNOWN:
        return n.left.args[0].id, n.comparators[0].id, isinstance(n.ops[0], ast.Is)
    return None


_TYPES_KNOWN = ("int", "str", "list", "dict", "float", "bool", "Labeled")
_ORDER_OPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class _KnownInt(ast.NodeTransformer):
    """Type tests of the names in `zs` (a result and its copies) decided: their type is
    `kind` (an int or a bool: never Labeled), or "plain" (some type, not Labeled: only
    the Labeled tests are decided)."""

    def __init__(self, zs, kind="int"):
        self.zs, self.kind = zs, kind

    def decided(self, node):
        """True or False for a type test of one of zs this knows the answer of, or None."""
        k = _type_test_op(node)
        if k is None or k[0] not in self.zs:
            return None
        v, t, is_ = k
        if self.kind == "plain":
            if t != "Labeled":
                return None
            same = False
        else:
            same = t == self.kind
        return same if is_ else not same

    def visit_Compare(self, node):
        d = self.decided(node)
        if d is not None:
            return ast.Constant(d)
        self.generic_visit(node)
        return node


def _leaves(node):
    return any(isinstance(n, (ast.Continue, ast.Break, ast.Return, ast.While))
               for n in ast.walk(node))


def _specialize(stmts):
    """An arithmetic instruction's int path followed by another instruction that tests
    the result's type (`s + a * b`, `(i * 3 + j) % 7`): the second one is put on both
    paths (with the copies between them), and on the int path its tests of that type are
    decided. The same statements run in the same order on each path."""
    out = list(stmts)
    for st in out:
        for holder, field, inner in list(_inner_lists(st)):
            setattr(holder, field, _specialize(inner))
    # from the last: an instruction put on both paths of the one before it may already
    # hold the one after it (`(i * 7) % n` then an index by it)
    for i in range(len(out) - 1, -1, -1):
        st = out[i]
        res = _int_result(st)
        if res is not None:
            z, kind = res
            zs = {z}            # the result and its copies (`c = _s0`: a branch's input)
            j = i + 1
            # statements between them: a few that set other variables (loads, builtin
            # calls; with labels, a builtin's call is an `if` of its labelled and plain
            # paths), none leaving the block
            while j < len(out) and j - i <= _BETWEEN and \
                    isinstance(out[j], (ast.Assign, ast.Expr)) and \
                    not any(isinstance(n, ast.Name) and n.id == z and
                            isinstance(n.ctx, ast.Store) for n in ast.walk(out[j])) and \
                    not _leaves(out[j]):
                a = out[j]
                stored = {n.id for n in ast.walk(a) if isinstance(n, ast.Name) and
                          isinstance(n.ctx, ast.Store)}
                zs -= stored
                if isinstance(a, ast.Assign) and len(a.targets) == 1 and \
                        isinstance(a.targets[0], ast.Name) and isinstance(a.value, ast.Name) \
                        and a.value.id in zs | {z}:
                    zs.add(a.targets[0].id)
                zs.add(z)
                j += 1
            nx = out[j] if j < len(out) else None
            if isinstance(nx, ast.If) and not _leaves(nx) and \
                    sum(1 for x in out[i + 1:j + 1] for _ in ast.walk(x)) <= _MOVE_NODES and any(
                    _KnownInt(zs, kind).decided(n) is not None for n in ast.walk(nx.test)):
                moved = out[i + 1:j + 1]
                known = copy.deepcopy(moved)
                test_if = known[-1]
                while True:         # the tests of the if/elif chain, not its bodies
                    test_if.test = _KnownInt(zs, kind).visit(test_if.test)
                    if len(test_if.orelse) == 1 and isinstance(test_if.orelse[0], ast.If):
                        test_if = test_if.orelse[0]
                    else:
                        break
                st.body = st.body + _fold_block(known)
                st.orelse = st.orelse + moved
                del out[i + 1:j + 1]
    return out


def _next_as_for(stmts):
    """`v = next(it, UNSET)` then `if v is UNSET: <exhausted>` (FOR_ITER) as
    `for v in it: break` with `else: v = UNSET; <exhausted>`: the interpreter's own step
    of an iterator instead of a call of next(). The `else` is outside the `for`, so a
    `break` or `continue` there is the enclosing loop's, as before. In every statement
    list, recursively."""
    i = 0
    while i < len(stmts):
        st = stmts[i]
        for _, _, inner in _inner_lists(st):
            _next_as_for(inner)
        if i + 1 < len(stmts) and isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                isinstance(st.targets[0], ast.Name) and _is_call(st.value, "next") and \
                len(st.value.args) == 2 and isinstance(st.value.args[1], ast.Name) and \
                st.value.args[1].id == "UNSET" and isinstance(st.value.args[0], ast.Name):
            v = st.targets[0].id
            nx = stmts[i + 1]
            if isinstance(nx, ast.If) and isinstance(nx.test, ast.Compare) and \
                    isinstance(nx.test.left, ast.Name) and nx.test.left.id == v and \
                    len(nx.test.ops) == 1 and isinstance(nx.test.ops[0], ast.Is) and \
                    isinstance(nx.test.comparators[0], ast.Name) and \
                    nx.test.comparators[0].id == "UNSET":
                at = dict(lineno=st.lineno, end_lineno=st.lineno, col_offset=0,
                          end_col_offset=0)
                reset = ast.Assign([ast.Name(v, ast.Store(), **at)],
                                   ast.Name("UNSET", ast.Load(), **at), **at)
                loop = ast.For(ast.Name(v, ast.Store(), **at), st.value.args[0],
                               [ast.Break(**at)], [reset] + nx.body, **at)
                stmts[i:i + 2] = [loop] + nx.orelse
        i += 1


def _drop_dead_copies(fdef):
    """`x = <constant or variable>` of a name the function never reads (a body's count
    `n` once its uses are decided, a copy made for a path the translation removed): not
    made. The function's nonlocal names (the step budget) are read elsewhere: kept; so is
    `x = UNSET` (an exhausted loop drops its last item: a reference the in-place append's
    aliasing rule would count). Labels on, a function that declares nothing makes no
    stamps (`_st`)."""
    read = set()
    lists = []
    for n in _walk(fdef):
        t = type(n)
        if t is ast.Name:
            if type(n.ctx) is not ast.Store:
                read.add(n.id)
        elif t is ast.Nonlocal:
            read.update(n.names)
        elif t is not ast.FunctionDef or n is fdef:
            for field in ("body", "orelse", "finalbody"):
                lst = getattr(n, field, None)
                if lst and type(lst) is list and any(type(x) is ast.Assign for x in lst):
                    lists.append((n, field, lst))

    def dead(st):
        return type(st) is ast.Assign and len(st.targets) == 1 and \
            type(st.targets[0]) is ast.Name and st.targets[0].id not in read and \
            (isinstance(st.value, (ast.Constant, ast.Name)) or st.targets[0].id == "_st") and \
            not (type(st.value) is ast.Name and st.value.id == "UNSET")

    for n, field, lst in lists:
        if any(dead(st) for st in lst):
            kept = [st for st in lst if not dead(st)]
            if not kept and field in ("body", "finalbody"):
                line = lst[0].lineno
                kept = [ast.Pass(lineno=line, end_lineno=line, col_offset=0,
                                 end_col_offset=0)]
            setattr(n, field, kept)


def _glob_slot(node):
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
            node.value.id == "glob" and isinstance(node.slice, ast.Constant):
        return node.slice.value
    return None


def _forward(stmts):
    """`glob[g] = x` then `y = glob[g]` (the top level's `let v be ..` and a read of v
    next, maybe after other reads of the top level's variables): y takes x, the list is
    not read again. In every statement list, recursively."""
    i = 0
    while i < len(stmts):
        st = stmts[i]
        for _, _, inner in _inner_lists(st):
            _forward(inner)
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                _glob_slot(st.targets[0]) is not None and isinstance(st.value, ast.Name):
            g, x = _glob_slot(st.targets[0]), st.value.id
            # the loads that follow it (of any slot, into variables other than x)
            j = i + 1
            while j < len(stmts):
                nx = stmts[j]
                if not (isinstance(nx, ast.Assign) and len(nx.targets) == 1 and
                        isinstance(nx.targets[0], ast.Name) and
                        _glob_slot(nx.value) is not None):
                    break
                if _glob_slot(nx.value) == g:
                    if nx.targets[0].id == x:
                        del stmts[j]
                        continue
                    nx.value = ast.Name(x, ast.Load(), lineno=nx.lineno,
                                        end_lineno=nx.lineno, col_offset=0, end_col_offset=0)
                if nx.targets[0].id == x:
                    break
                j += 1
        i += 1


# What a loop of the top level may call and still keep the top level's variables as they
# were (the list `glob`): the operations on values, the labels' helpers, the step budget.
# Nothing here runs Synsema code (a task, a lambda, a builtin given the VM): a task of a
# hostile .synb may store into the top level's variables, so a loop calling one is left
# alone. A pure builtin (CALL_BUILTIN: never given the VM) is marked `_pure` by prepare.
_KEEPS_GLOBALS = frozenset((
    "type", "len", "id", "refcount", "next", "index", "compare", "add", "sub", "mul", "div",
    "mod", "lt", "le", "gt", "ge", "eq", "ne",
    "_binary", "_join", "_index_precise", "_set_item_precise", "_append_precise", "_store",
    "_store_value", "_upgrade_check", "_local_name", "_tick", "push_pc", "release",
    "taint_try", "drop_frames"))
_KEEPS_GLOBALS_OF = frozenset(("ops", "P"))


def _keeps_globals(stmts):
    """Whether statements leave the top level's variables alone but for their own
    `glob[k] = ..` and `_store(vm, glob, _st, k, ..)` (k a constant): each call one of
    _KEEPS_GLOBALS (or a pure builtin's, a value's .get/.append, ops' and precise's
    functions), `glob` read and written only at constant slots, and written only by a
    statement _glob_store recognises (the flags are computed again after those)."""
    for st in stmts:
        plain = {id(n.targets[0]) for n in _walk(st)
                 if type(n) is ast.Assign and len(n.targets) == 1}
        for n in _walk(st):
            t = type(n)
            if t is ast.Call:
                f = n.func
                if type(f) is ast.Name:
                    if f.id in _KEEPS_GLOBALS or getattr(n, "_pure", False):
                        if f.id == "_store" and _store_slot(n) is None:
                            return False
                        continue
                    return False
                if type(f) is ast.Attribute and type(f.value) is ast.Name and (
                        f.value.id in _KEEPS_GLOBALS_OF or f.attr in ("get", "append") or
                        (f.value.id == "vm" and f.attr in ("unset_error", "cond_error"))):
                    continue
                return False
            if t is ast.Subscript and _is_name(n.value, "glob") and (
                    type(n.slice) is not ast.Constant or
                    (type(n.ctx) is not ast.Load and id(n) not in plain)):
                return False
            if t in (ast.Lambda, ast.FunctionDef, ast.Yield, ast.Await):
                return False
    return True


def _is_name(node, name):
    return type(node) is ast.Name and node.id == name


def _glob_store(st):
    """k of a statement storing the top level's variable k (`glob[k] = ..`,
    `_store(vm, glob, _st, k, ..)`), or None."""
    if type(st) is ast.Assign and len(st.targets) == 1:
        return _glob_slot(st.targets[0])
    if type(st) is ast.Expr and _is_call(st.value, "_store"):
        return _store_slot(st.value)
    return None


def _store_slot(call):
    """k of a call `_store(vm, glob, _st, k, ..)` (k a constant), or None."""
    args = call.args
    if len(args) >= 4 and _is_name(args[1], "glob") and type(args[3]) is ast.Constant:
        return args[3].value
    return None


def _hoist_globals_of_loops(stmts):
    """Each loop of _self_loop in the statements (the top level's, labels on), its tests
    `type(x) is Labeled` of a variable x that holds the top level's variable k (read
    into it, `x = glob[k]`, or stored from it, `glob[k] = x`, and neither set since) as
    a flag `_tg<k>_Labeled`: computed before the loop and again after each store of k
    in it. Only a loop that calls nothing that could store into `glob` behind its back
    (_keeps_globals): there the flag is `type(glob[k]) is Labeled` wherever it is read.
    A loop left by an error or a jump is entered again from its block's start, where
    the flags are computed again."""
    i = 0
    while i < len(stmts):
        st = stmts[i]
        if type(st) is ast.While and getattr(st, "_self", False):
            pre = _hoist_global_tests(st.body)
            stmts[i:i] = pre
            i += len(pre)
        else:
            for _, _, inner in _inner_lists(st):
                _hoist_globals_of_loops(inner)
        i += 1


def _hoist_global_tests(body):
    """The flags' first computation (statements to run before the loop); `body` is
    changed in place."""
    if not _keeps_globals(body):
        return []
    used = set()

    def flag(k):
        return f"_tg{k}_Labeled"

    def decide(node, holds):
        # the Labeled tests of a variable holding glob[k] in an expression
        for n in _walk(node):
            for field, value in ast.iter_fields(n):
                vals = value if type(value) is list else [value]
                for j, x in enumerate(vals):
                    k = _type_test_op(x)
                    if k is None or k[1] != "Labeled" or k[0] not in holds:
                        continue
                    used.add(holds[k[0]])
                    new = _name(flag(holds[k[0]]))
                    if not k[2]:
                        new = ast.UnaryOp(ast.Not(), new)
                    if type(value) is list:
                        value[j] = new
                    else:
                        setattr(n, field, new)

    def stored_in(node):
        slots = {_glob_store(n) for n in _walk(node) if isinstance(n, ast.stmt)}
        slots.discard(None)
        return _stored([node]), slots

    def forget(holds, names, slots):
        for v in [v for v, k in holds.items() if v in names or k in slots]:
            del holds[v]

    def walk(lst, holds):
        for st in lst:
            t = type(st)
            if t is ast.Assign or t is ast.Expr or t is ast.AugAssign:
                value = st.value
                decide(value, holds)
                names, slots = stored_in(st)
                forget(holds, names, slots)
                k = _glob_store(st)
                if t is ast.Assign and len(st.targets) == 1 and \
                        type(st.targets[0]) is ast.Name:
                    src = value
                    if _glob_slot(src) is not None:
                        holds[st.targets[0].id] = _glob_slot(src)
                    elif type(src) is ast.Name and src.id in holds and \
                            src.id != st.targets[0].id:
                        holds[st.targets[0].id] = holds[src.id]
                elif k is not None and t is ast.Assign and type(value) is ast.Name:
                    holds[value.id] = k
                continue
            if t is ast.If:
                decide(st.test, holds)
            elif t is ast.While:
                decide(st.test, {})
            elif t is ast.For:
                decide(st.iter, holds)
            # An `if`'s branches start from what holds before it; a loop's body (gone
            # round), its `else` and a `try`'s parts (a handler runs after part of the
            # body) from what nothing in the statement sets. After it, what it sets
            # anywhere is forgotten.
            names, slots = stored_in(st)
            inside = dict(holds)
            if t is not ast.If:
                forget(inside, names, slots)
            for _, _, inner in _inner_lists(st):
                walk(inner, dict(inside))
            forget(holds, names, slots)

    walk(body, {})
    if not used:
        return []

    def recompute(k):
        return ast.Assign([_name(flag(k), ast.Store())],
                          ast.Compare(ast.Call(_name("type"),
                                               [ast.Subscript(_name("glob"), ast.Constant(k),
                                                              ast.Load())], []),
                                      [ast.Is()], [_name("Labeled")]))

    def after_stores(lst):
        out = []
        for st in lst:
            for holder, field, inner in list(_inner_lists(st)):
                setattr(holder, field, after_stores(inner))
            out.append(st)
            k = _glob_store(st)
            if k in used:
                out.append(recompute(k))
        return out

    body[:] = after_stores(body)
    return [recompute(k) for k in sorted(used)]


def _tree(keys, blocks):
    """The dispatch over blocks: `if _b < K` tests, halving, down to one block."""
    if len(keys) == 1:
        return blocks[keys[0]]
    mid = len(keys) // 2
    return [ast.If(ast.Compare(_name("_b"), [ast.Lt()], [ast.Constant(keys[mid])]),
                   _tree(keys[:mid], blocks), _tree(keys[mid:], blocks))]


class _TryMarks(_Transformer):
    """The loop's handler list: `handlers.append((t, ...))` is `_TRY_(t)` (the translator
    knows the stack depth), `handlers.pop()` this function's own list's."""

    def visit_Call(self, node):
        fn = node.func
        if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and \
                fn.value.id == "handlers":
            if fn.attr == "append":
                # (target, stack depth, frame depth[, the try's pc entry: labels])
                elts = node.args[0].elts
                return ast.Call(_name("_TRY_"), [elts[0]] + elts[3:], [])
            if fn.attr == "pop" and not node.args:
                return ast.Call(ast.Attribute(_name("_h"), "pop", ast.Load()), [], [])
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        # labels: `handlers.pop()[3]`, the try's entry: this function's (target, entry)
        self.generic_visit(node)
        if _is_call_attr(node.value, "_h", "pop") and isinstance(node.slice, ast.Constant):
            return ast.Subscript(node.value, ast.Constant(1), node.ctx)
        return node


def _is_call_attr(node, obj, attr):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        isinstance(node.func.value, ast.Name) and node.func.value.id == obj and \
        node.func.attr == attr


class _Deeper(_Transformer):
    """`base_depth + len(frames)` after the loop saved the frame: one deeper."""

    def visit_BinOp(self, node):
        if isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name) and \
                node.left.id == "base_depth" and _is_call(node.right, "len"):
            return ast.BinOp(node, ast.Add(), ast.Constant(1))
        self.generic_visit(node)
        return node


class _StoreLocal(_Transformer):
    """Labels: `_store(vm, locals_, stamps, s, v, name)` (a `set` of a local through the
    checked store: no sensitive upgrade, the pc joined) with locals as Python variables:
    `locals_[s] = _store_value(vm, locals_[s], stamps, s, v, name)`. The top level's
    locals are the globals' list: there `_store` stores into it."""

    def __init__(self, main):
        self.main = main

    def visit_Expr(self, node):
        c = node.value
        if _is_call(c, "_store") and isinstance(c.args[1], ast.Name) and \
                c.args[1].id == "locals_":
            if self.main:
                c.args[1] = _name("glob")
                return node
            slot = ast.Subscript(_name("locals_"), c.args[3], ast.Load())
            value = ast.Call(_name("_store_value"), [c.args[0], slot] + c.args[2:], [])
            return ast.Assign([ast.Subscript(_name("locals_"), _copy(c.args[3]),
                                             ast.Store())], value)
        return node


class _LabelledIn(_Transformer):
    """Labels: `Labeled in map(type, [a, b, ..])` (is any of these values labelled?) as
    `type(a) is Labeled or type(b) is Labeled ..`: no list, no map, no iteration; a
    program constant's test dropped (a constant never carries labels), and what that
    decides folded."""

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.In) and \
                isinstance(node.left, ast.Name) and node.left.id == "Labeled" and \
                _is_call(node.comparators[0], "map") and \
                isinstance(node.comparators[0].args[0], ast.Name) and \
                node.comparators[0].args[0].id == "type" and \
                isinstance(node.comparators[0].args[1], ast.List) and \
                all(isinstance(x, (ast.Name, ast.Constant))
                    for x in node.comparators[0].args[1].elts):
            tests = [ast.Compare(ast.Call(_name("type"), [x], []), [ast.Is()],
                                 [_name("Labeled")])
                     for x in node.comparators[0].args[1].elts
                     if not (isinstance(x, ast.Constant) or
                             hasattr(x, "_value") and type(x._value) in _PLAIN)]
            if not tests:
                return ast.Constant(False)
            return tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        return _Fold({}).visit(node)


class _Subst(_Transformer):
    def __init__(self, env):
        self.env = env

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.env:
            return self.env[node.id]
        return node


class _Rename(_Transformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            return _name(self.new, node.ctx)
        return node


class _StackExpr(_Transformer):
    """pop(), stack[-k], stack[-k:] in an expression: the symbolic stack's entries."""

    def __init__(self, stack):
        self.stack = stack

    def visit_Call(self, node):
        if _is_call(node, "pop") and not node.args:
            if not self.stack:
                raise Declined("stack underflow")
            return self.stack.pop()
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "stack":
            if not isinstance(node.ctx, ast.Load):
                raise Declined("stack store")
            st = self.stack
            if isinstance(node.slice, ast.Slice):
                if node.slice.upper is not None or node.slice.step is not None:
                    raise Declined("stack slice")
                k = _const_eval(node.slice.lower)
                if not (k < 0 and -k <= len(st)):
                    raise Declined("stack slice")
                return ast.List(list(st[k:]), ast.Load())
            k = _const_eval(node.slice)
            if not (k < 0 and -k <= len(st)):
                raise Declined("stack index")
            return st[k]
        self.generic_visit(node)
        return node


# ---- a program -------------------------------------------------------------------------------

class Translation:
    """The generated code of a program (labels off or on: vm.labels): a factory that, given
    a run's constants, makes its functions."""

    def __init__(self, program, vm):
        # The cyclic garbage collector off while translating: the passes make many small
        # nodes, and the collections their count sets off (finding little: trees hold no
        # cycles) were about a tenth of the time. Back on only if it was on.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            self._translate(program, vm)
        finally:
            _drop_parse_caches()
            if gc_was_on:
                gc.enable()

    def _translate(self, program, vm):
        # Not the Program itself: _CACHE holds a translation while its Program lives (a
        # weak key), which a reference from the translation back to it would make forever.
        self.functions = tuple(program.functions)
        self.labels = vm.labels
        self.index = {id(f): i for i, f in enumerate(program.functions)}
        self.krefs = []             # (function index, instruction, field or None)
        self._kmap = {}
        # Python line -> (function index, instruction, part); line 1 is the scaffolding's
        self.lines = [None, (None, -1, 0)]
        self._lmap = {}
        self.declined = {}          # function index -> why
        self.fnames = {}
        self.arities = set()        # argument counts of call values (_A<n>)
        self.vm = vm
        defs = []
        for fi, f in enumerate(program.functions):
            try:
                ft = FunctionTranslator(self, fi, f, vm.decoded[f])
                defs.append(ft.translate())
                self.fnames[fi] = ft
            except Declined as e:
                self.declined[fi] = str(e)
            except (ValueError, KeyError, IndexError, AttributeError, StopIteration) as e:
                self.declined[fi] = f"{type(e).__name__}: {e}"
        self.translated = [fi for fi in range(len(program.functions)) if fi not in self.declined]
        self.tree = self.module(defs)
        mode = ", labels" if self.labels else ""
        self.code = compile(self.tree, f"<synsema tier 2{mode}: {program.source_name}>",
                            "exec")
        self.vm = None

    @classmethod
    def make(cls, program, vm):
        """The translation, or None when making it failed (a bug of the translator: the
        loop runs the program, as if nothing had been translated)."""
        try:
            return cls(program, vm)
        except Exception:  # noqa: BLE001 - never a reason for a run to fail
            if _STRICT:
                raise
            return None

    def source(self):
        """The generated Python, as text (for reading it: `translation(program, vm)
        .source()`; the code object is compiled from the tree, not from this text)."""
        return ast.unparse(self.tree)

    def line(self, fi, idx, part):
        key = (fi, idx, part)
        n = self._lmap.get(key)
        if n is None:
            n = self._lmap[key] = len(self.lines)
            self.lines.append(key)
        return n

    def kref(self, fi, idx, j, value):
        key = (fi, idx, j)
        n = self._kmap.get(key)
        if n is None:
            n = self._kmap[key] = len(self.krefs)
            self.krefs.append(key)
        node = _name(f"_k{n}")
        node._value = value
        return node

    def kval(self, node):
        return node._value

    def fn_name(self, func):
        return f"_f{self.index[id(func)]}"

    def module(self, defs):
        nk = len(self.krefs)
        nf = len(self.functions)
        head = _parsed(
            "def _factory(_K, _F, _C, vm, _fail, _T):\n"
            "    _budget = 0\n"
            "    _base = 0\n"
            "    _dlim = 0\n"
            "    _maxd = vm.max_depth\n"
            "    glob = vm.globals\n"
            "    _decoded, _pads = vm.decoded, vm.pads\n"
            "    add, sub, mul, div, mod = ops.add, ops.sub, ops.mul, ops.div, ops.mod\n"
            "    lt, le, gt, ge, eq, ne = ops.lt, ops.le, ops.gt, ops.ge, ops.eq, ops.ne\n"
            "    index = ops.index\n"
            "    compare = ops.compare_kind\n"
            "    refcount = sys.getrefcount\n"
            "    pcs = vm.pc_stack\n"          # labels: mutated in place only
            "    gstamps = vm.global_stamps\n")[0]
        body = head.body
        # The functions called as values with n arguments that took n (callee_cache)
        for n in sorted(self.arities):
            body.append(ast.Assign([_name(f"_A{n}", ast.Store())], ast.Dict([], [])))
        if nk:
            body.append(ast.Assign([ast.Tuple([_name(f"_k{i}", ast.Store()) for i in range(nk)],
                                              ast.Store())], _name("_K")))
        body.append(ast.Assign([ast.Tuple([_name(f"_code{i}", ast.Store()) for i in range(nf)]
                                          + [ast.Name("_", ast.Store())], ast.Store())],
                               ast.BinOp(_name("_C"), ast.Add(),
                                         ast.Tuple([ast.Constant(None)], ast.Load()))))
        body.append(ast.Assign([ast.Tuple([_name(f"_f{i}_func", ast.Store()) for i in range(nf)]
                                          + [ast.Name("_", ast.Store())], ast.Store())],
                               ast.BinOp(_name("_F"), ast.Add(),
                                         ast.Tuple([ast.Constant(None)], ast.Load()))))
        # A function the translator declined: the loop runs it (_deep).
        for fi in self.declined:
            stub = _template("def _STUB_(_d, _caps, *args):\n"
                             "    return _deep(_FUNC_, _caps, list(args), _d)\n")[0]
            stub.name = f"_f{fi}"
            stub = _Rename("_FUNC_", f"_f{fi}_func").visit(stub)
            body.append(stub)
        body += defs
        body += _parsed(_ENTRY)
        table = ast.Dict([_name(f"_f{fi}_func") for fi in range(nf)],
                         [_name(f"_f{fi}") for fi in range(nf)])
        body.append(ast.Return(ast.Tuple([table, _name("_enter"), _name("_deep")],
                                         ast.Load())))
        mod = ast.Module(body=[head], type_ignores=[])
        for n in _walk(mod):
            if "lineno" in n._attributes and not hasattr(n, "lineno"):
                n.lineno = n.end_lineno = 1
                n.col_offset = n.end_col_offset = 0
        return mod


# The entry of a run (vm.machine: VM._run): its budget chunk, as the loop takes and returns
# it. A run nested in a builtin (vm.call: `call`, a callback, call_tool) runs in the loop,
# as the loop itself would run it: a recursion through builtins nests the same Python
# frames per level in both tiers, so it stops where the loop's does.
_ENTRY = """
def _enter(fn, closure, args, dlim):
    nonlocal _budget, _base, _dlim
    saved = _budget, _base, _dlim, vm._run
    _base = base = vm.depth
    _dlim = dlim
    _budget = vm.take_budget(min(_maxd, dlim) - base)
    vm._run = _run1
    try:
        return fn(base, closure.captures, *args)
    finally:
        vm.return_budget(_budget)
        _budget, _base, _dlim, vm._run = saved
        if pcs:                 # labels: the run's pc entries end with it
            drop_frames(vm, base)


def _miss(func):
    return lambda d, caps, *args: _deep(func, caps, list(args), d)


# vm.tick_call and vm.tick, with a chunk the Python stack's room bounds too (its calls
# below _dlim: _room_in_budget); room is the calls the depth limit allows.
def _tick_call(budget, room):
    if room <= 0:
        raise vm.depth_limit()
    return vm.tick(budget, min(room, room + _dlim - _maxd))


def _tick(budget, room):
    return vm.tick(budget, min(room, room + _dlim - _maxd))


def _look(arity, func):
    try:
        fn = arity[func] = _T[func]
    except KeyError:                # another program's function: not kept
        fn = _miss(func)
    return fn


def _deep(func, caps, args, d):
    nonlocal _budget
    vm.return_budget(_budget)
    _budget = 0
    saved = vm.depth
    vm.depth = d
    try:
        return _run1(vm, Closure(func, caps, _decoded[func], _pads[func]), args)
    finally:
        vm.depth = saved
        _budget = vm.take_budget(min(_maxd, _dlim) - d + 1)
"""


def translation(program, vm):
    """The program's Translation (one per labels mode), made once per Program: under a lock, since
    VMs of one Program run in several threads (and CPython 3.11 cannot compile syntax trees
    in two threads at once: a SystemError)."""
    cache = _CACHE[bool(vm.labels)]
    with _LOCK:
        t = cache.get(program)
        # Made from the program's decoded code (vm.machine: one per program and mode,
        # shared by its VMs, made again if the program's functions change): the same code
        # lists, or translated again.
        codes = [vm.decoded[f] for f in program.functions]
        if t is None or len(t.codes) != len(codes) or \
                any(a is not b for a, b in zip(t.codes, codes)):
            t = Translation.make(program, vm) or _Nothing()
            t.codes = codes
            cache[program] = t
        return None if type(t) is _Nothing else t


class _Nothing:
    """A program the translator failed on (cached, so it is not tried again)."""
# Tests set SYN_TIER_STRICT=1: a failure to translate is an error there, not a fallback.
_STRICT = os.environ.get("SYN_TIER_STRICT") == "1"


_LOCK = threading.Lock()


class Bound:
    """A translation's functions for one VM."""

    def __init__(self, t, vm, run1):
        self.vm = vm
        funcs = t.functions
        K = tuple(_operand(vm.decoded[funcs[fi]], idx, j) for fi, idx, j in t.krefs)
        C = tuple(vm.decoded[f] for f in funcs)
        positions = [vm.positions[id(vm.decoded[f])] for f in funcs]
        lines = t.lines

        def fail(e, fi):
            err = vm.as_error(e)
            _, idx, part = lines[e.__traceback__.tb_lineno]
            func = funcs[fi]
            pos = positions[fi]
            parts = pos.parts.get(idx)
            if parts is not None:
                p = parts[part]
            elif 0 <= idx < len(pos):
                p = pos[idx]
            else:
                p = (func.line, func.col)
            vm.part = None
            err.trace.append((func, p[0], p[1]))
            return err

        table = {}
        ns = {"ops": ops, "sys": sys, "UNSET": UNSET, "Closure": Closure, "HostFn": HostFn,
              "SynError": SynError, "_run1": run1, **_LABELS_NS}
        exec(t.code, ns)
        fns, self.enter, _ = ns["_factory"](K, tuple(funcs), C, vm, fail, table)
        table.update(fns)
        self.table = table
        self.translated = {funcs[fi] for fi in t.translated}


# What the labels bodies name (the labels loop's globals), and the handlers' helpers.
_LABELS_NS = {n: getattr(L, n) for n in (
    "_CMP", "_append_precise", "_binary", "_index_precise", "_join", "_local_name",
    "_plain_seq", "_raise_labelled", "_set_item_precise", "_store", "_unary",
    "_upgrade_check", "drop_frames", "push_pc", "release", "taint_try", "caught",
    "withhold_frame", "_caught_message", "_store_value")}
_LABELS_NS.update(Labeled=Labeled, EMPTY=EMPTY, P=P)


def _operand(code, idx, j):
    arg = code[idx][1]
    return arg if j is None else arg[j]


def _py_depth():
    f = sys._getframe(1)
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


def make_runner(vm, run1):
    """The VM's run function (VM._run) with tier 2: a translated function where there is
    one, else the loop. (vm.machine.make_runner decided that the program is worth it, or
    SYN_TIER=2 that every program is.)"""
    state = {}

    def run(vm_, closure, args):
        b = state.get("b")
        if b is None:
            t = translation(vm.program, vm)
            b = Bound(t, vm, run1) if t is not None else False
            state["b"] = b
        if b is False:
            return run1(vm_, closure, args)
        func = closure.func if type(closure) is Closure else None
        if func is None or func not in b.translated:
            return run1(vm_, closure, args)
        if func.kind != "main":
            # The arity check of the loop's entry (a builtin calling a task value).
            vm.pads[func][len(args)]
        dlim = vm.depth + max(0, sys.getrecursionlimit() - _py_depth() - _PY_MARGIN)
        return b.enter(b.table[func], closure, args, dlim)
    return run
