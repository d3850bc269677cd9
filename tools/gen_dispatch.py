"""Generate the VM's loops and opcode data from vm/instructions.py (each instruction once).

Output (committed; a test checks they are current):
    vm/loop_fast.py          the plain loop (labels off)
    vm/loop_labels_fast.py   the labels loop: the same bodies with their LABELS parts
    vm/optable.py            the opcode table, decoded operand fields, jump positions,
                             the superinstruction patterns the decoder fuses, and the
                             opcodes the tier 2 gate looks for (gen_tier2.py)
    vm/tier2_defs.py         the bodies (labels off and on) tier 2 translates from (gen_tier2.py)
    docs/bytecode.md         its opcode table (by docs/gen_opcodes.py, run after them)

Each loop dispatches with a tree of range tests (op < K, each read from a table of bools:
`below_K[op]`) balanced by how often each instruction runs (WEIGHT below, from profiles
of the bench/ programs), so every instruction is reached in a handful of tests and the
hottest in three or four.
Run after changing vm/instructions.py: python tools/gen_dispatch.py [--check]
"""

import ast
import copy
import functools
import hashlib
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOURCE = "vm/instructions.py"
OUTPUTS = {"vm/loop_fast.py": False, "vm/loop_labels_fast.py": True}
TABLE = "vm/optable.py"

# How often each instruction runs: measured by `tools/profile_pairs.py --weights
# --per-second` (and `--labels`) over the bench/twins.py programs: each program's
# instruction counts per second of its CPython twin, in per mille of the total, so the
# tree has the least sum of the programs' ratios to CPython (a program that runs many
# dispatches for little work weighs more). One missing here (a new one) has DEFAULT_WEIGHT
# until measured.
WEIGHT = {
    'INDEX_LLL': 83, 'MOD_LC_EQ_C_JF': 76, 'LOAD_LOCAL': 56, 'CALL1_SUB_LC': 55,
    'LT_LC_RET_LOCAL': 48, 'MUL_ADD_TO_BACK': 42, 'MOD_LC': 38, 'MUL_LC': 34, 'CONST':
    30, 'ADD_LC_ST_LT_LC_BACK': 29, 'ADD': 28, 'ADD_RETURN': 27, 'FIELD_L': 25,
    'CALL_BUILTIN1_L': 22, 'MOD': 21, 'RETURN': 21, 'CONST2': 21, 'CALL_BUILTIN_1': 20,
    'FOR_BACK': 18, 'INDEX_LOCAL_DECL': 18, 'ADD_LL_ST_BACK': 18, 'CALL_TASK': 17,
    'ADD_C': 15, 'DECLARE_LOCAL_LOAD': 15, 'CALL_BUILTIN3_LLC': 14, 'BUILD_MAP': 14,
    'ADD_LC_ST': 12, 'ADD_TO_LOCAL_BACK': 11, 'CALL1_LL': 11, 'CALL': 11, 'APPEND_LOCAL':
    10, 'SET_ITEM_LOCAL': 10, 'JUMP_IF_FALSE': 10, 'JUMP': 9, 'ADD_C_SET_ITEM': 7,
    'INDEX_LOCAL_CALL1': 7, 'ADD_C_SET_ITEM_BACK': 7, 'ADD_LC_RET': 7, 'MUL_LC_RET': 7,
    'SUB_LC_RET': 7, 'CALL_BUILTIN2_C': 7, 'CMP_LC_JF': 7, 'APPEND_LOCAL_BACK': 7,
    'CMP_C': 6, 'ADD_TO_LOCAL': 5, 'SUB_LL_ST': 5, 'ADD_ST': 5, 'LOAD_LOCAL2': 4,
    'FIELD': 4, 'BUILD_LIST': 3, 'INDEX': 3, 'AND_JUMP': 3, 'CHECK_BOOL': 3, 'MUL': 2,
    'CALL_BUILTIN_3': 2, 'SET_ITEM_LOCAL_BACK': 2, 'ITER_START': 1, 'FOR_ITER_DECL': 1,
    'STORE_LOCAL': 1, 'INDEX_LL': 1, 'GT': 1, 'DECLARE_LOCAL': 1, 'CALL_VM_BUILTIN_POP':
    1, 'RETURN_CONST': 1, 'FIELD_CALL1': 1, 'ADD_LC': 1, 'STORE_LOCAL_BACK': 1,
    'CALL_BUILTIN_2': 1, 'RETURN_LOCAL': 1, 'MAKE_LAMBDA': 1, 'LT_LC_JF': 1,
    'INDEX_LOCAL': 1, 'CALL_VM_BUILTIN': 1, 'EQ_C_JF': 1, 'TRY_BEGIN': 1, 'ADD_LL': 1,
    'TRY_END': 1, 'JUMP_IF_SET': 1,
}
LABELS_WEIGHT = {
    'MOD_LC_EQ_C_JF': 71, 'INDEX_LLL': 70, 'LOAD_LOCAL': 55, 'CALL1_SUB_LC': 51,
    'LT_LC_RET_LOCAL': 44, 'MOD_LC': 39, 'RELEASE_BACK': 37, 'MUL_ADD_TO_BACK': 35,
    'MUL_LC': 30, 'FIELD_L': 29, 'CONST': 27, 'ADD': 26, 'ADD_RETURN': 26, 'CONST2': 25,
    'ADD_LC_ST_LT_LC_BACK': 24, 'CALL_BUILTIN1_L': 23, 'RETURN': 22, 'MOD': 21,
    'INDEX_LOCAL_DECL': 20, 'CALL_TASK': 19, 'ADD_LL_ST': 16, 'BUILD_MAP': 16,
    'CALL_BUILTIN3_LLC': 16, 'PC_RELEASE': 15, 'CALL_BUILTIN_1': 15,
    'DECLARE_LOCAL_LOAD': 14, 'ADD_C': 12, 'ADD_TO_LOCAL_BACK': 12, 'CALL1_LL': 12,
    'CALL': 12, 'JUMP_IF_FALSE': 11, 'ADD_LC_ST_REL': 11, 'SET_ITEM_LOCAL': 10,
    'JUMP_RELEASE': 9, 'ADD_LC_RET': 8, 'MUL_LC_RET': 8, 'SUB_LC_RET': 8, 'CMP_C': 8,
    'ADD_C_SET_ITEM': 8, 'INDEX_LOCAL_CALL1': 8, 'ADD_C_SET_ITEM_BACK': 8,
    'APPEND_LOCAL': 7, 'APPEND_LOCAL_BACK': 7, 'CALL_BUILTIN2_C': 7, 'CMP_LC_JF': 7,
    'FIELD': 5, 'ADD_TO_LOCAL': 4, 'SUB_LL_ST': 4, 'BUILD_LIST': 4, 'INDEX': 4,
    'AND_JUMP': 4, 'LOAD_LOCAL2': 4, 'CHECK_BOOL': 3, 'ADD_ST': 3, 'CALL_BUILTIN_3': 2,
    'MUL': 2, 'ITER_START': 1, 'FOR_ITER_DECL': 1, 'ADD_LL_ST_BACK': 1,
    'STORE_LOCAL_REL': 1, 'INDEX_LL': 1, 'GT': 1, 'DECLARE_LOCAL': 1,
    'CALL_VM_BUILTIN_POP': 1, 'RETURN_CONST': 1, 'FIELD_CALL1': 1, 'ADD_LC': 1,
    'STORE_LOCAL': 1, 'FOR_BACK': 1, 'CALL_BUILTIN_2': 1, 'RETURN_LOCAL': 1,
    'MAKE_LAMBDA': 1, 'LT_LC_JF': 1, 'INDEX_LOCAL': 1, 'CALL_VM_BUILTIN': 1, 'EQ_C_JF':
    1, 'TRY_BEGIN': 1, 'ADD_LL': 1, 'TRY_END': 1, 'JUMP_IF_SET': 1,
}
DEFAULT_WEIGHT = 1

# The loop's own variables, live after a handler: never folded away.
LIVE = {"pc", "code", "locals_", "stamps", "budget"}


def load():
    ns = {}
    path = os.path.join(ROOT, SOURCE)
    exec(compile(open(path).read(), path, "exec"), ns)
    return ns


# ---- bodies as trees (vm/instructions.py: each body is valid Python) ----------------------

def parse(text):
    """A body's statements."""
    return ast.parse(textwrap.dedent(text)).body if text else []


def unparse(stmts):
    return ast.unparse(ast.Module(body=list(stmts), type_ignores=[])).split("\n") \
        if stmts else []


def _is(node, name):
    return isinstance(node, ast.Name) and node.id == name


class Fragments(ast.NodeTransformer):
    """`FRAGMENT.name()` statements replaced by the statements of FRAGMENTS[name]."""

    def __init__(self, fragments):
        self.fragments = fragments

    def visit_Expr(self, node):
        c = node.value
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and \
                _is(c.func.value, "FRAGMENT"):
            out = []
            for s in parse(self.fragments[c.func.attr]):
                r = self.visit(s)
                out += r if isinstance(r, list) else [r]
            return out
        return node


def _pure(node):
    """No effects when evaluated (so a decided test may skip it): no call but type()."""
    return all(not isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield)) or
               (isinstance(n, ast.Call) and _is(n.func, "type")) for n in ast.walk(node))


class Fold(ast.NodeTransformer):
    """Decide what is known and drop what it decides: LABELS (when `labels` is not None),
    expressions known `equal` to a constant (ast.dump -> value), expressions known `truthy`
    where they are operands of an `and` (a fused constant never 0, never large); then
    and/or/not/if-else of constants, and the branches of an `if` that cannot run."""

    def __init__(self, labels=None, equal=None, truthy=()):
        self.labels = labels
        self.equal = equal or {}
        self.truthy = set(truthy)

    def visit(self, node):
        if isinstance(node, ast.expr) and self.equal:
            d = ast.dump(node)
            if d in self.equal:
                return ast.Constant(self.equal[d])
        return super().visit(node)

    def visit_Name(self, node):
        if node.id == "LABELS" and self.labels is not None:
            return ast.Constant(self.labels)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.Constant(not node.operand.value)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        is_and = isinstance(node.op, ast.And)
        flat = []
        for v in node.values:
            flat += v.values if isinstance(v, ast.BoolOp) and type(v.op) is type(node.op) \
                else [v]
        out = []
        for v in flat:
            if isinstance(v, ast.Constant) and v.value in (True, False):
                if v.value is is_and:           # True in an and, False in an or: nothing
                    continue
                if all(_pure(x) for x in out):  # decides the whole
                    return ast.Constant(not is_and)
                out.append(v)
                break
            if is_and and ast.dump(v) in self.truthy:
                continue
            out.append(v)
        if not out:
            return ast.Constant(is_and)
        if len(out) == 1:
            return out[0]
        node.values = out
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_If(self, node):
        node.test = self.visit(node.test)
        if isinstance(node.test, ast.Constant):
            taken = node.body if node.test.value else node.orelse
            return self.block(taken)
        node.body = self.block(node.body) or [ast.Pass()]
        node.orelse = self.block(node.orelse)
        return node

    def block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out += r if isinstance(r, list) else [r] if r is not None else []
        return out

    def generic_visit(self, node):
        for field, old in ast.iter_fields(node):
            if isinstance(old, list) and old and isinstance(old[0], ast.stmt):
                setattr(node, field, self.block(old) or
                        ([ast.Pass()] if field in ("body", "finalbody") else []))
            elif isinstance(old, list):
                setattr(node, field, [self.visit(x) if isinstance(x, ast.AST) else x
                                      for x in old])
            elif isinstance(old, ast.AST):
                setattr(node, field, self.visit(old))
        return node


def fold_tree(stmts, labels=None, equal=None, truthy=()):
    return Fold(labels, equal, truthy).block(stmts)


class Operands(ast.NodeTransformer):
    """`OP.name` -> the decoded operand tuple's field: `arg[offset + i]`, or `arg` itself
    when the instruction (alone) has one field."""

    def __init__(self, names, offset, bare):
        self.names, self.offset, self.bare = names, offset, bare

    def visit_Attribute(self, node):
        if _is(node.value, "OP"):
            if node.attr not in self.names:
                raise ValueError(f"OP.{node.attr}: no such decoded field (fields: "
                                 f"{' '.join(self.names)})")
            if self.bare:
                return ast.Name("arg", ast.Load())
            return ast.Subscript(ast.Name("arg", ast.Load()),
                                 ast.Constant(self.offset + self.names.index(node.attr)),
                                 ast.Load())
        self.generic_visit(node)
        return node


class Threaded(ast.NodeTransformer):
    """`JUMP(t)` statements -> `head = t` (a threaded superinstruction does not take its
    first jump: the rest runs in its place)."""

    def visit_Expr(self, node):
        c = node.value
        if isinstance(c, ast.Call) and _is(c.func, "JUMP"):
            return ast.Assign([ast.Name("head", ast.Store())], c.args[0], lineno=0)
        return node


class Rename(ast.NodeTransformer):
    """Variables renamed (a Name only: never an attribute or a keyword)."""

    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], node.ctx), node)
        return node


def rename_tree(stmts, mapping):
    mapping = {k: v for k, v in mapping.items() if k != v}
    if not mapping:
        return stmts
    r = Rename(mapping)
    return [r.visit(s) for s in stmts]


def names_in(stmts):
    """Every variable name the statements read or set (their own, not attributes')."""
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name):
                out.add(n.id)
            elif isinstance(n, ast.arg):
                out.add(n.arg)
    return out


def body_of(ins, fragments, labels):
    """An instruction's body for one loop: its fragments in place, LABELS decided."""
    stmts = Fragments(fragments).visit(ast.Module(body=parse(ins["body"]),
                                                  type_ignores=[])).body
    return fold_tree(stmts, labels)


# ---- what a composition knows, operand fields, stack pictures ------------------------------

def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def _expr(text):
    return ast.dump(ast.parse(text, mode="eval").body)


def _conjuncts(text):
    """The dumps of the operands of a condition's top-level `and`s."""
    node = ast.parse(text, mode="eval").body
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return {ast.dump(v) for v in node.values}
    return {ast.dump(node)}


def facts(name, producer, part, fused, consumer):
    """What the composition knows of a value passed from `producer` (the instruction
    making it, part number `part` of `fused`) to `consumer`: (expressions equal to a
    constant, expressions true in a test), as Fold takes them."""
    equal, truthy = {}, set()
    if producer["name"] == "CONST":
        equal[_expr(f"type({name}) is Labeled")] = False    # constants never carry labels
        # The decoder's condition on this composition, and those of the superinstructions
        # it is made of (vm/instructions.py _known).
        when = set()
        for k in ("when", "known"):
            when |= _conjuncts((fused or {}).get(k, "True"))
        here = f"A[{part}][0]"
        if _expr(f"type({here}) is int") in when or (
                consumer.get("int_path_takes_floats") and
                _expr(f"type({here}) in (int, float)") in when):
            equal[_expr(f"type({name}) is int")] = True
        if _expr(f"type({here}) in (int, str)") in when:
            equal[_expr(f"type({name}) is int or type({name}) is str")] = True
        if _expr(here) in when:                                     # never 0
            truthy.add(_expr(name))
        small, small_const = ns_small()
        if _expr(small_const.replace("b", here)) in when:          # a small int
            truthy.add(_expr(small.replace("b", name)))
    if producer.get("gives") == "bool":
        equal[_expr(f"{name} is not True")] = False      # a bool: False or True
    return equal, truthy


@functools.lru_cache(maxsize=1)
def ns_small():
    """vm/instructions.py SMALL, SMALL_CONST: the tests that the right operand of * or % is
    small, at run time and (a fused constant) at load."""
    ns = load()
    return ns["SMALL"], ns["SMALL_CONST"]


def _fields(spec, labels, full):
    """Names of the decoded fields: with labels (or full) every one, else not the label-only
    ones (a rid, or a name marked +)."""
    names = []
    for name in spec:
        only = name.startswith("+") or name == "rid"
        if full or labels or not only:
            names.append(name.lstrip("+"))
    return names


def field_spec(ins):
    if ins.get("fields"):
        return ins["fields"].split()
    return [o.split()[1] if o.split()[0] != "rid" else "rid" for o in ins["operands"]]


def picture(ins):
    m = re.match(r"^\((.*)--(.*)\)$", ins["picture"])
    return m.group(1).split(), m.group(2).split()


# ---- one handler --------------------------------------------------------------------------

def handler(parts, by_name, fragments, labels, fused=None):
    """The body of one handler: the composition of `parts` (instruction names; `fused`,
    the superinstruction they make)."""
    alone = len(parts) == 1
    comps = []
    offset = 0
    for name in parts:
        ins = by_name[name]
        spec = field_spec(ins)
        names = _fields(spec, labels, full=not alone)
        body = body_of(ins, fragments, labels)
        if fused and fused.get("threaded") and ins["flow"] == "jump" and not any(
                c[0]["flow"] == "jump" for c in comps):
            # A threaded superinstruction: its first jump (its first part, or the one after
            # a tail's statement) goes to the rest. The jump is not taken; the rest runs
            # here, then control goes on past it (head + 1).
            body = [Threaded().visit(st) for st in body]
        ops = Operands(names, offset, alone and len(names) == 1)
        body = [ops.visit(st) for st in body]
        offset += len(names)
        comps.append((ins, body))
    # Pass 1: which value each input takes (symbolic stack of value ids).
    values = []                       # [producer, out name, consumer, in name]
    sym = []
    plan = []                         # per component: (inputs binding, outputs, raw)
    for ci, (ins, body) in enumerate(comps):
        if ins.get("raw"):
            plan.append(("raw", list(sym)))
            for v in sym:           # pushed for the raw part: consumed there
                values[v][2:] = [ci, None]
            sym = []
            continue
        ins_, outs = picture(ins)
        kept = 0
        while kept < min(len(ins_), len(outs)) and ins_[kept] == outs[kept]:
            kept += 1
        bind = {}
        for j in reversed(range(kept, len(ins_))):
            if sym:
                v = sym.pop()
                values[v][2:] = [ci, ins_[j]]
                bind[ins_[j]] = ("value", v)
            else:
                bind[ins_[j]] = ("stack", None)
        for j in range(kept):
            bind[ins_[j]] = ("kept", None)
        out_ids = []
        for o in outs[kept:]:
            values.append([ci, o, None, None])
            out_ids.append(len(values) - 1)
            sym.append(len(values) - 1)
        plan.append((bind, out_ids, kept))
    # Pass 2: a variable name per value (the consumer's name when nothing else uses it).
    names = {}
    for v, (p, oname, c, iname) in enumerate(values):
        end = c if c is not None else len(comps)
        busy = set()
        for k in list(range(p)) + list(range(p + 1, end)):
            busy |= names_in(comps[k][1])
        busy |= names_in(comps[p][1]) - {oname}
        if c is not None:
            busy |= names_in(comps[c][1]) - {iname}
        busy |= {names[w] for w in names if values[w][0] <= end and
                 (values[w][2] if values[w][2] is not None else len(comps)) >= p}
        for cand in ([iname] if iname else []) + [oname, f"{oname}{v}"]:
            if cand not in busy:
                names[v] = cand
                break
    # Pass 3: emit.
    at = position_part(fused) if fused else None
    out = []
    last_real = None
    for ci, ((ins, body), step) in enumerate(zip(comps, plan)):
        quiet = ins.get("quiet")
        if quiet == "bool":     # raises only for an input that is not a bool
            quiet = step[0] != "raw" and all(
                b[0] == "value" and comps[values[b[1]][0]][0].get("gives") == "bool"
                for b in step[0].values() if b[0] != "kept")
        if fused and ci != at and not (quiet is True or (quiet == "plain" and not labels)):
            body = guarded(body, ci)
        if step[0] == "raw":
            out += parse("".join(f"push({names[v]})\n" for v in step[1]))
            out += body
            continue
        bind, out_ids, kept = step
        ins_, outs = picture(ins)
        mapping = {}
        stack_inputs = [n for n in ins_[kept:] if bind[n][0] == "stack"]
        # The deepest input taken from the stack is overwritten by the first output, when
        # this part makes every value left at the end.
        final = [v for v in range(len(values)) if values[v][2] is None]
        peek = stack_inputs and len(outs) > kept and ci == len(comps) - 1 and \
            all(values[v][0] == ci for v in final)
        for j, n in enumerate(reversed(stack_inputs)):
            deepest = j == len(stack_inputs) - 1
            out += parse(f"{n} = stack[-1]" if peek and deepest else f"{n} = pop()")
        for n in ins_[:kept]:
            out += parse(f"{n} = stack[-1]")
        for n in ins_[kept:]:
            if bind[n][0] == "value":
                mapping[n] = names[bind[n][1]]
        for o, v in zip(outs[kept:], out_ids):
            mapping[o] = names[v]
        body = rename_tree(body, mapping)
        equal, truthy = {}, set()
        for n in ins_[kept:]:
            if bind[n][0] == "value":
                v = bind[n][1]
                e, t = facts(names[v], comps[values[v][0]][0], values[v][0], fused, ins)
                equal.update(e)
                truthy |= t
        out += fold_tree(body, equal=equal, truthy=truthy)
        last_real = peek
    final = [v for v in range(len(values)) if values[v][2] is None]
    for k, v in enumerate(final):
        out += parse(f"stack[-1] = {names[v]}" if last_real and k == 0 else
                     f"push({names[v]})")
    if fused and fused.get("threaded"):
        out += parse("JUMP(head + 1)")
    elif fused and fused.get("tail"):
        # A tail whose second instruction is not a jump: that instruction stays in place
        # for the paths that jump to it, and this one goes on past it.
        out += parse("pc += 1")
    bools = {names[v] for v in range(len(values))
             if comps[values[v][0]][0].get("gives") == "bool"}
    stmts = fold_tree(out)
    if labels:
        stmts = split_fast(stmts, bools)
    stmts = peephole(jumps(sink_test(stmts, bools)))
    return peephole(aliases(unpack(stmts, names_of_fields(comps, labels, alone))))


def position_part(f):
    """The part of superinstruction f whose source position it has: `at`, else the first
    part that is not a load."""
    if f["at"] is not None:
        return f["at"]
    return next((i for i, p in enumerate(f["parts"]) if p not in ("LOAD_LOCAL", "CONST")), 0)


def guarded(body, part):
    """A part of a superinstruction other than the one whose position it has, when it may
    raise: vm.part says which part did, so the error shows that part's own position (its
    column in a nested x[i][k]; vm.machine.trace_frame)."""
    t = parse(f"try:\n    pass\nexcept Exception:\n    vm.part = {part}\n    raise")[0]
    t.body = body or [ast.Pass()]
    return [t]


def names_of_fields(comps, labels, alone):
    names = []
    for ins, _ in comps:
        names += _fields(field_spec(ins), labels, full=not alone)
    return names


# ---- passes over a handler's statements -----------------------------------------------------
# Each takes and returns a list of statements (ast.stmt); each is one rewrite applied where
# it can be, the handler searched again from the top after each change, until none applies.

def _blocks_of(s):
    """The statement lists directly inside a statement."""
    for field in ("body", "orelse", "finalbody"):
        sub = getattr(s, field, None)
        if sub:
            yield sub
    for h in getattr(s, "handlers", ()):
        yield h.body


def sites(stmts):
    """(block, index) of every statement, in source order."""
    for i, s in enumerate(stmts):
        yield stmts, i
        for sub in _blocks_of(s):
            yield from sites(sub)


def uses(stmts, var):
    """How many times a variable is named (read or set) in the statements."""
    return sum(isinstance(n, ast.Name) and n.id == var for s in stmts for n in ast.walk(s))


def stores(stmts, var):
    return sum(isinstance(n, ast.Name) and n.id == var and isinstance(n.ctx, ast.Store)
               for s in stmts for n in ast.walk(s))


def calls(node, name=None):
    """Does evaluating the node call anything (or `name`)?"""
    return any(isinstance(n, ast.Call) and (name is None or _is(n.func, name))
               for n in ast.walk(node))


def _assign(s):
    """`var = value` (one plain name set): (var, value), else (None, None)."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return s.targets[0].id, s.value
    return None, None


class Substitute(ast.NodeTransformer):
    """Reads of a variable replaced by an expression (a copy each time), at most `count`."""

    def __init__(self, var, expr, count=None):
        self.var, self.expr, self.count = var, expr, count

    def visit_Name(self, node):
        if node.id == self.var and isinstance(node.ctx, ast.Load) and self.count != 0:
            if self.count is not None:
                self.count -= 1
            return copy.deepcopy(self.expr)
        return node


def substitute(stmts, var, expr, count=None):
    t = Substitute(var, expr, count)
    return [t.visit(s) for s in stmts]


def _pushed(s):
    """The value of a `push(value)` statement, else None."""
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
            _is(s.value.func, "push") and len(s.value.args) == 1:
        return s.value.args[0]
    return None


def _simple(s):
    """A statement that is not compound (no block of its own)."""
    return not any(True for _ in _blocks_of(s)) and not isinstance(
        s, (ast.If, ast.For, ast.While, ast.Try, ast.With))


def jumps(stmts):
    """`JUMP(t)` -> `pc = t` and `continue` (the next instruction, from the loop's top)."""
    class Jumps(ast.NodeTransformer):
        def visit_Expr(self, node):
            c = node.value
            if isinstance(c, ast.Call) and _is(c.func, "JUMP"):
                return parse(f"pc = {ast.unparse(c.args[0])}\ncontinue")
            return node
    t = Jumps()
    out = []
    for s in stmts:
        r = t.visit(s)
        out += r if isinstance(r, list) else [r]
    return out


def _drop_tail_continue(stmts, tail=True):
    """A `continue` after which control leaves the handler anyway: gone. True if one was."""
    if not stmts:
        return False
    last = stmts[-1]
    if tail and isinstance(last, ast.Continue):
        del stmts[-1]
        if not stmts:
            stmts.append(ast.Pass())
        return True
    if tail and isinstance(last, ast.If):
        return _drop_tail_continue(last.body) or _drop_tail_continue(last.orelse)
    if tail and isinstance(last, ast.Try) and not last.orelse and not last.finalbody:
        return _drop_tail_continue(last.body) or any(
            _drop_tail_continue(h.body) for h in last.handlers)
    return False


def _slot_read(e):
    """A read of a local or global slot or of an operand field: locals_[s], arg[0]..."""
    return e is not None and isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and \
        e.value.id in ("locals_", "glob", "arg") and _plain_index(e.slice)


def _plain_index(e):
    return isinstance(e, ast.Name) or (isinstance(e, ast.Constant) and
                                       isinstance(e.value, int) and e.value >= 0) or \
        (isinstance(e, ast.Subscript) and _plain_index(e.value) and _plain_index(e.slice))


def _arg(e):
    """The operand tuple or one of its fields: `arg`, `arg[N]`."""
    return _is(e, "arg") or (isinstance(e, ast.Subscript) and _is(e.value, "arg") and
                             isinstance(e.slice, ast.Constant))


def peephole_once(stmts):
    """One variable fewer (or a `continue` that ends the handler): the rewritten statements,
    or None when nothing applies."""
    if _drop_tail_continue(stmts):
        return stmts
    for block, p in sites(stmts):
        var, value = _assign(block[p])
        if var is None or var in LIVE:
            continue
        n = uses(stmts, var) - 1
        if _arg(value) and n <= 3 and stores(stmts, var) == 1:
            # An operand field is as cheap to read again as a variable.
            del block[p]
            return substitute(stmts, var, value)
        if n == 0 and ast.unparse(value) in ("pop()", "stack[-1]"):
            if ast.unparse(value) == "pop()":
                block[p] = ast.Expr(value)
            else:
                del block[p]
            return stmts
        if n != 1:
            continue
        if _slot_read(value):
            # A read of a slot or operand moves to its one use past other such reads: no
            # variable is left holding the value (a container's reference count decides
            # whether it may be changed in place).
            q = p + 1
            while q < len(block) and _slot_read(_assign(block[q])[1] or _pushed(block[q])):
                q += 1
            if p + 1 < q < len(block) and _simple(block[q]) and uses([block[q]], var) == 1:
                block[q] = substitute([block[q]], var, value)[0]
                del block[p]
                return stmts
        if p + 1 < len(block):
            # Into the next statement, when that keeps the order of evaluation: a value
            # with effects (a call) only as the whole of what the next one computes.
            nxt = block[p + 1]
            whole = _is(_pushed(nxt), var) or (
                isinstance(nxt, (ast.Assign, ast.Return)) and _is(nxt.value, var) and
                len(getattr(nxt, "targets", [0])) == 1)
            pure = not calls(value) and not calls(nxt, "pop")
            if _simple(nxt) and (whole or pure) and uses([nxt], var) == 1:
                block[p + 1] = substitute([nxt], var, value)[0]
                del block[p]
                return stmts
    return None


def peephole(stmts):
    while True:
        out = peephole_once(stmts)
        if out is None:
            return stmts
        stmts = out


def _chain_ends(node, var):
    """The `if`/`elif`/`else` chain `node`, each branch ending with `var = ...` and the last
    an `else`: the blocks of its branches; else None."""
    ends = []
    while True:
        if not node.body or _assign(node.body[-1])[0] != var:
            return None
        ends.append(node.body)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        if not node.orelse or _assign(node.orelse[-1])[0] != var:
            return None
        ends.append(node.orelse)
        return ends


def _assigning_chain(stmts, block, q, var):
    """The chain just before block[q] whose branches all end by setting var, var named
    nowhere else but once in block[q]: the blocks of its branches, else None."""
    if q == 0 or not isinstance(block[q - 1], ast.If):
        return None
    ends = _chain_ends(block[q - 1], var)
    if ends is None or uses(stmts, var) != len(ends) + 1:
        return None
    return ends


def sink_all(stmts):
    """`if ..: r = A` / `else: r = B`, then a statement that only uses r once (`push(r)`,
    `x = [r]`): that statement moves into each branch (one variable store and load
    fewer)."""
    for block, q in sites(stmts):
        s = block[q]
        v = _pushed(s) or (s.value if isinstance(s, ast.Assign) and len(s.targets) == 1
                           else None)
        if isinstance(v, ast.List) and len(v.elts) == 1:
            v = v.elts[0]
        if not isinstance(v, ast.Name):
            continue
        var = v.id
        ends = _assigning_chain(stmts, block, q, var)
        if ends is None:
            continue
        for end in ends:
            end[-1] = substitute([copy.deepcopy(s)], var, end[-1].value, 1)[0]
        del block[q]
        return sink_all(stmts)
    return stmts


def _is_false_test(s, bools):
    """`if v is False:` of a bool v: v, else None."""
    t = s.test if isinstance(s, ast.If) else None
    if isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and len(t.ops) == 1 and \
            isinstance(t.ops[0], ast.Is) and isinstance(t.comparators[0], ast.Constant) and \
            t.comparators[0].value is False and t.left.id in bools:
        return t.left.id
    return None


def _not(e):
    return ast.UnaryOp(ast.Not(), e)


def sink_test(stmts, bools):
    """`if ..: c = A` / `else: c = B` then `if c is False: X`, c a bool used nowhere else:
    `if ..: if not A: X` / `else: if not B: X` (the test where the value is made); and
    `c = A` then `if c is False:` -> `if not A:`."""
    for block, p in sites(stmts):
        var = _is_false_test(block[p], bools)
        if var is None:
            continue
        test = block[p]
        if p and _assign(block[p - 1])[0] == var:
            # `v = A` right before: `if not A:`, when nothing after the test reads v
            if not uses(test.body, var) and not uses(block[p + 1:], var):
                test.test = _not(block[p - 1].value)
                del block[p - 1]
                return sink_test(stmts, bools)
        if test.orelse:
            continue
        ends = _assigning_chain(stmts, block, p, var)
        if ends is None:
            continue
        for end in ends:
            end[-1] = ast.If(_not(end[-1].value), copy.deepcopy(test.body), [])
        del block[p]
        return sink_test(stmts, bools)
    return stmts


_FAST_OPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.Add, ast.Sub,
             ast.Mult, ast.Mod)


def _operand(e):
    return isinstance(e, ast.Name) or (isinstance(e, ast.Constant) and
                                       not isinstance(e.value, str)) or (
        isinstance(e, ast.Subscript) and _operand(e.value) and _operand(e.slice))


def _fast_value(s):
    """`v = a OP b` of plain operands, an arithmetic or comparison OP: v, else None."""
    var, e = _assign(s)
    if isinstance(e, ast.BinOp) and isinstance(e.op, _FAST_OPS) and _operand(e.left) and \
            _operand(e.right):
        return var
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], _FAST_OPS) \
            and _operand(e.left) and _operand(e.comparators[0]):
        return var
    return None


def _type_test(test):
    """A test of a value's type (`type(a) is int`, `type(a) is type(b)`), not of labels."""
    named = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    return "Labeled" not in named and any(
        isinstance(n, ast.Compare) and any(
            isinstance(o, ast.Is) and (_is(c, "int") or _is(c, "str") or
                                       (isinstance(c, ast.Call) and _is(c.func, "type")))
            for o, c in zip(n.ops, n.comparators))
        for n in ast.walk(test))


def split_fast(stmts, bools):
    """The labels loop: `if <type test>: v = a < b` / `elif ..Labeled..` / `else: ..`, then
    a tail asking `type(v) is Labeled`: the first branch's value is plain, so it gets its
    own copy of the tail with that test decided (the fast path keeps the plain loop's
    shape)."""
    for block, p in sites(stmts):
        s = block[p]
        if not isinstance(s, ast.If) or not s.orelse or not _type_test(s.test):
            continue
        var = _fast_value(s.body[-1])
        if var is None:
            continue
        tail = block[p + 1:]
        labelled = _expr(f"type({var}) is Labeled")
        if not any(ast.dump(n) == labelled for t in tail for n in ast.walk(t)):
            continue
        s.body += fold_tree(copy.deepcopy(tail), equal={labelled: False})
        s.orelse += tail
        del block[p + 1:]
        return split_fast(stmts, bools)
    return stmts


def _own(s):
    """The nodes of a statement outside its blocks (a compound one's header)."""
    if isinstance(s, (ast.If, ast.While)):
        return list(ast.walk(s.test))
    if isinstance(s, ast.For):
        return list(ast.walk(s.target)) + list(ast.walk(s.iter))
    if isinstance(s, ast.Try):
        return [n for h in s.handlers for n in ast.walk(h.type)] if s.handlers else []
    if isinstance(s, ast.With):
        return [n for i in s.items for n in ast.walk(i)]
    return list(ast.walk(s))


def _sets(s, var):
    return any(isinstance(n, ast.Name) and n.id == var and not isinstance(n.ctx, ast.Load)
               for n in _own(s))


def aliases(stmts):
    """`x = y` (y a name never set again, or a number): later reads of x read y, up to x's
    next assignment when that is in the same block (else to the end, when the block goes
    on to the end of the handler)."""
    order = list(sites(stmts))
    for k, (block, p) in enumerate(order):
        x, y = _assign(block[p])
        if x is None or x in LIVE or not (isinstance(y, ast.Name) and y.id not in (
                "pop", "True", "False", "None") or isinstance(y, ast.Constant) and
                type(y.value) is int):
            continue
        after = [b[i] for b, i in order[k + 1:]]
        if isinstance(y, ast.Name) and any(_sets(s, y.id) for s in after):
            continue
        end = next((j for j, s in enumerate(after) if _sets(s, x)), None)
        inside = len(list(sites(block[p + 1:])))    # the statements after it in its block
        if end is None:
            if inside != len(after):
                continue
            stop = len(block)
        else:
            stop = next((i for i in range(p + 1, len(block)) if block[i] is after[end]), None)
            if stop is None or not isinstance(block[stop], ast.Assign) or \
                    uses([block[stop].value], x):
                continue
        rest = substitute(block[p + 1:stop], x, y)
        block[p:stop] = rest
        return aliases(stmts)
    return stmts


def _field_reads(stmts):
    """The operand fields read, `arg[N]`, in order: [N, ...]."""
    return [n.slice.value for s in stmts for n in ast.walk(s)
            if isinstance(n, ast.Subscript) and _is(n.value, "arg") and
            isinstance(n.slice, ast.Constant)]


class _Fields(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Subscript(self, node):
        if _is(node.value, "arg") and isinstance(node.slice, ast.Constant):
            return ast.Name(self.names[node.slice.value], ast.Load())
        self.generic_visit(node)
        return node


def unpack(stmts, fields):
    """Read the operand tuple once into names when its fields are read four times or more,
    or twice or more with at most one field not read: one unpacking is cheaper than two
    subscripts (measured on 3.11: 14.4 against 17.8 ns for two fields, 22 against 27 ns for
    three)."""
    reads = _field_reads(stmts)
    unread = len(fields) - len(set(reads))
    if not (len(reads) >= 4 or (len(reads) >= 2 and unread <= 1)) or \
            len(fields) > 6 or len(fields) < 2:
        return stmts
    busy = names_in(stmts)
    used = set(reads)
    names = []
    for i, f in enumerate(fields):
        if i not in used:
            names.append("_")
        else:
            own = f not in busy or any(
                _assign(s)[0] == f and ast.dump(s.value) == ast.dump(
                    ast.parse(f"arg[{i}]", mode="eval").body) for b, p in sites(stmts)
                for s in [b[p]])
            names.append(f if own and f not in names else f"{f}{i}")
    t = _Fields(names)
    stmts = [t.visit(s) for s in stmts]
    for block, p in reversed(list(sites(stmts))):
        var, value = _assign(block[p])
        if var is not None and _is(value, var):
            del block[p]
    return parse(f"{', '.join(names)} = arg") + stmts


# ---- the loops ----------------------------------------------------------------------------

def leaves(ns, labels):
    by_name = {i["name"]: i for i in ns["INSTRUCTIONS"]}
    out = []
    for ins in ns["INSTRUCTIONS"]:
        if ins["code"] is None or ins.get("decoded_as") or (ins.get("labels_only") and not labels):
            continue
        body = unparse(sink_all(handler([ins["name"]], by_name, ns["FRAGMENTS"], labels)))
        out.append((ins["code"], ins["name"], "", body))
    for f in ns["FUSED"]:
        if f.get("labels_only") and not labels:
            continue
        body = unparse(sink_all(handler(f["parts"], by_name, ns["FRAGMENTS"], labels, f)))
        out.append((f["code"], f["name"], " ".join(f["parts"]), body))
    out.sort()
    return out


def tree(items, indent, out, weight, keys):
    """The dispatch: range tests (op < K) over the handlers in opcode order, shaped as the
    binary tree of least expected depth for these frequencies (an optimal alphabetic
    tree, by dynamic programming: cost[i][j] = weight(i..j) + min over the split). Each
    test reads a table (below); adds its K to `keys`."""
    w = [weight.get(name, DEFAULT_WEIGHT) for _, name, _, _ in items]
    n = len(items)
    pre = [0]
    for x in w:
        pre.append(pre[-1] + x)
    cost = [[0] * (n + 1) for _ in range(n + 1)]
    cut = [[0] * (n + 1) for _ in range(n + 1)]
    for size in range(2, n + 1):
        for i in range(0, n - size + 1):
            j = i + size
            best, at = None, i + 1
            for k in range(i + 1, j):
                c = cost[i][k] + cost[k][j]
                if best is None or c < best:
                    best, at = c, k
            cost[i][j] = best + pre[j] - pre[i]
            cut[i][j] = at
    _emit(items, 0, n, cut, indent, out, keys)


# Each test reads a tuple of bools (`below_K[op]`, op < K: a specialized tuple index and a
# plain jump), not a comparison: measured on 3.11, a comparison before a short jump
# (COMPARE_OP_INT_JUMP) costs about 10% more than the table read, and one before a long
# jump (the tests at the top of the tree, which every dispatch passes through) about twice
# as much, since CPython leaves it generic for good when an EXTENDED_ARG sits between it
# and its jump. Together they cost about 15% of the general programs' time (bench/).


def _emit(items, i, j, cut, indent, out, keys):
    if j - i == 1:
        code, name, parts, body = items[i]
        out.append(f"{indent}# {name} ({code})" + (f" = {parts}" if parts else ""))
        out += [indent + l if l.strip() else "" for l in body] or [indent + "pass"]
        return
    k = cut[i][j]
    K = items[k][0]
    keys.add(K)
    out.append(f"{indent}if below_{K}[op]:     # op < {K}")
    _emit(items, i, k, cut, indent + "    ", out, keys)
    out.append(f"{indent}else:")
    _emit(items, k, j, cut, indent + "    ", out, keys)


# Names the handlers read, made locals of the loop function by default parameters: a local
# is the cheapest load (LOAD_FAST; a builtin or module global costs a dictionary check
# each time), and the handlers read these on every instruction (`type(a) is int`).
HOISTED = ["type", "int", "str", "list", "dict", "len", "next", "UNSET", "Closure", "HostFn"]
LABELS_HOISTED = ["Labeled"]


def _params(labels, keys, width):
    names = HOISTED + (LABELS_HOISTED if labels else [])
    items = [f"{n}={n}" for n in names] + [f"below_{k}=_BELOW[{k}]" for k in sorted(keys)]
    import textwrap
    return textwrap.wrap(", ".join(items), width, break_long_words=False,
                         break_on_hyphens=False)


def loop(ns, labels):
    name = "vm/loop_labels_fast.py" if labels else "vm/loop_fast.py"
    what = "labels on" if labels else "labels off"
    module = fold_tree(parse(ns["LOOP"]), labels)
    for node in module:
        if isinstance(node, ast.FunctionDef) and node.name == "run":
            node.name = "run_labels" if labels else "run_plain"
    lines = unparse(module)
    at = next(i for i, l in enumerate(lines) if l.strip() == "DISPATCH()")
    body, keys = [], set()
    items = leaves(ns, labels)
    assert max(c for c, _, _, _ in items) < 256
    tree(items, " " * indent_of(lines[at]), body, LABELS_WEIGHT if labels else WEIGHT, keys)
    lines[at:at + 1] = body
    d = next(i for i, l in enumerate(lines) if l.startswith("def ") and "HOISTED" in l)
    head, tail = lines[d].split("HOISTED")
    pad = " " * (head.index("(") + 1)
    params = _params(labels, keys, 90 - len(pad))
    params[-1] += tail
    lines[d:d + 1] = [head.rstrip(), pad + "# locals by default parameters (HOISTED and _emit "
                      "in tools/gen_dispatch.py)"] + [pad + p for p in params]
    # The tables the tests read, made once at import: each a slice of one run of 256
    # Trues then 256 Falses, not a comparison per entry (a generator over 256 ops for each
    # of 140 K took a millisecond of start-up) nor (True,) * K + (False,) * (256 - K) (two
    # more tuples made and freed per K: 0.3 M instructions of `syn exec`'s start-up).
    imp = max(i for i, l in enumerate(lines[:d]) if l.startswith(("import ", "from ")) or
              l.startswith(" "))
    lines[imp + 1:imp + 1] = [
        "", "# below_K[op] is op < K: the dispatch tests read these",
        "# (tools/gen_dispatch.py _emit says why).",
        "_BOOLS = (True,) * 256 + (False,) * 256",
        *_wrapped("_BELOW = {k: _BOOLS[256 - k:512 - k] for k in (",
                  [str(k) for k in sorted(keys)], ")}")]
    head = [f'"""GENERATED from {SOURCE} by tools/gen_dispatch.py: do not edit.', "",
            f"The dispatch loop, {what}: every instruction's body from its one definition",
            "(superinstructions as the composition of their parts), dispatched by a tree of",
            'range tests balanced by instruction frequency (see tools/gen_dispatch.py)."""', ""]
    # Keep the blank lines of the template between top-level statements.
    return name, "\n".join(head + _blank_lines(lines)) + "\n"


def _blank_lines(lines):
    out = []
    for l in lines:
        if l.startswith("def ") and out and out[-1].strip():
            out += ["", ""]
        if l.startswith("from ") and out and out[-1].startswith("import "):
            out.append("")
        out.append(l)
    return out


# ---- the opcode table ---------------------------------------------------------------------

def _effect(tokens, operands):
    """Stack count of picture tokens: an int, or a lambda over the file operands."""
    names = [o.split()[1] for o in operands]
    const, exprs = 0, []
    for t in tokens:
        m = re.match(r"^\w+\[(.+)\]$", t)
        if m:
            e = m.group(1).replace("*", " * ")
            for i, n in enumerate(names):
                e = re.sub(r"\b" + n + r"\b", f"a[{i}]", e)
            exprs.append(e)
        else:
            const += 1
    if not exprs:
        return str(const)
    return "lambda a: " + " + ".join(exprs + ([str(const)] if const else []))


def table(ns):
    lines = [f'"""GENERATED from {SOURCE} by tools/gen_dispatch.py: do not edit.', "",
             "The opcode data vm.opcodes, vm.decode, vm.verify, vm.flow, vm.dis and",
             "vm.machine (its tier 2 gate) read.",
             '"""', "", f"FIRST_INTERNAL = {ns['FIRST_INTERNAL']}", "",
             "# name, code, file operand kinds, pops, pushes, flow, what it does",
             "TABLE = ["]
    internal, fields, jump_at, flows, pictures = [], [], [], [], []
    code_of = {i["name"]: i["code"] for i in ns["INSTRUCTIONS"]}
    for ins in ns["INSTRUCTIONS"]:
        if ins["code"] is None:
            continue
        kinds = tuple(o.split()[0] for o in ins["operands"])
        spec = field_spec(ins)
        fields.append(f"    {ins['code']}: {tuple(spec)!r},  # {ins['name']}")
        full = _fields(spec, True, True)
        if "t" in full and "jump" in kinds:
            jump_at.append(f"{ins['code']}: {full.index('t')}")
        flows.append(f"{ins['code']}: {ins['flow']!r}")
        pictures.append(f"    {ins['code']}: {ins['picture']!r},")
        if ins["code"] >= ns["FIRST_INTERNAL"]:
            internal.append(f"    ({ins['name']!r}, {ins['code']}, {ins['doc']!r}),")
            continue
        ins_, outs = picture(ins)
        pops, pushes = ins.get("effect") or (_effect(ins_, ins["operands"]),
                                              _effect(outs, ins["operands"]))
        lines.append(f"    ({ins['name']!r}, {ins['code']}, {kinds!r}, {pops}, {pushes}, "
                     f"{ins['flow']!r}, {ins['doc']!r}),")
    lines.append("]")
    by_name = {i["name"]: i for i in ns["INSTRUCTIONS"]}
    fused, threaded, tails = [], [], []
    fused_code = {tuple(f["parts"]): f["code"] for f in ns["FUSED"]}
    by_fused_name = {f["name"]: f["code"] for f in ns["FUSED"]}
    for f in ns["FUSED"]:
        internal.append(f"    ({f['name']!r}, {f['code']}, {f['doc']!r}),")
        parts, conds, off, names = [], [f["when"]], 0, []
        for i, p in enumerate(f["parts"]):
            ins = by_name[p]
            match = ins.get("matches") or {p: None}
            parts.append("{" + ", ".join(f"{code_of[k]}: {v!r}" for k, v in match.items()) + "}")
            if ins.get("match_when"):
                conds.append(ins["match_when"].format(i=i))
            full = _fields(field_spec(ins), True, True)
            if "t" in full and ins["flow"] != "call" and not f.get("threaded"):
                jump_at.append(f"{f['code']}: {off + full.index('t')}")
                flows.append(f"{f['code']}: 'branch'")
            off += len(full)
            names += full
        at = position_part(f)
        if not any(x.startswith(f"{f['code']}: ") for x in flows):
            # A threaded one jumps (past its target, or to the target's exit).
            flows.append(f"{f['code']}: {'branch' if f.get('threaded') else 'next'!r}")
        cond = " and ".join(c for c in conds if c != "True") or "True"
        fields.append(f"    {f['code']}: {tuple(names)!r},  # {f['name']}")
        if f.get("tail"):
            head, back = f["tail"]
            tails.append(f"    ({code_of.get(head) or by_fused_name[head]}, "
                         f"{code_of.get(back) or by_fused_name[back]}, {f['code']}),  "
                         f"# {f['name']}")
            continue
        if f.get("threaded"):
            rest = tuple(f["parts"][1:])       # a superinstruction, or one instruction
            target = fused_code[rest] if len(rest) > 1 else code_of[rest[0]]
            threaded.append(f"    ({code_of[f['parts'][0]]}, {target}, {f['code']}),  "
                            f"# {f['name']}")
            continue
        when = ("_always" if cond == "True" else
                f"lambda A, i, code, n, targets, better_later: {cond}")
        fused.append(f"    ({f['code']}, ({', '.join(parts)},), {at},\n"
                     f"     {when}),  # {f['name']}")
    lines += ["", "# Made by the decoder, never in a file: name, code, what it does",
              "INTERNAL = ["] + internal + ["]", "",
              "# The decoded operand fields of each instruction (+: labels only; a rid too)",
              "FIELDS = {"] + fields + ["}", "",
              "# Where the jump target is among an instruction's fields (all of them)",
              *_wrapped("JUMP_AT = {", jump_at, "}"), "",
              "# How control leaves each instruction (a superinstruction: 'branch' when it",
              "# may jump)", *_wrapped("FLOW = {", flows, "}"), "",
              "# Stack pictures: (inputs -- outputs), deepest first; x[n] is n values",
              "PICTURES = {"] + pictures + ["}", "",
              "# Superinstructions, longest first: (code, parts, the part whose position it",
              "# takes, when). A part maps each opcode it matches to the field it adds (None:",
              "# its own fields); A[k] is part k's fields (all of them). `when` is one",
              "# function for all those that always apply (one code object, not one each).",
              "def _always(A, i, code, n, targets, better_later):", "    return True", "", "",
              "FUSED = ["] + sorted(fused, key=lambda s: -s.count("{")) + ["]", "",
              "# Threaded superinstructions: (jump, the superinstruction at its target, the",
              "# code that replaces the jump and runs the target's parts in its place)",
              "THREADED = ["] + threaded + ["]", "",
              "# Tails: (a statement's instruction, the threaded jump after it, the code",
              "# that runs both; the jump stays in place for the paths that jump to it)",
              "TAILS = ["] + tails + ["]"]
    import gen_tier2
    lines += [""] + gen_tier2.gate_table(ns)
    lines += loader_facts(ns)
    return TABLE, "\n".join(lines) + "\n"


# What a file instruction decodes to, by the kind of each operand (vm.decode.Context).
DECODED_KIND = {"const": "c.consts[{}]", "func": "c.functions[{}]", "jump": "c.at[{}]"}


class Codes(ast.NodeTransformer):
    """Instruction names -> their numbers."""

    def __init__(self, codes):
        self.codes = codes

    def visit_Name(self, node):
        return ast.Constant(self.codes[node.id]) if node.id in self.codes else node


def decoder(ins, codes, shape=False):
    """`lambda a, c: (opcode, argument)` for a file instruction (see vm/instructions.py
    `decode`); shape: with its own opcode left as the name `op` (see decoders)."""
    text = ins.get("decode")
    if text is None:
        kinds = [o.split()[0] for o in ins["operands"]]
        every = [DECODED_KIND.get(k, "{}").format(f"a[{i}]") for i, k in enumerate(kinds)]
        plain = [v for v, k in zip(every, kinds) if k != "rid"]

        def arg(vs):
            return "None" if not vs else vs[0] if len(vs) == 1 else f"({', '.join(vs)})"
        text = f"({ins['name']}, {arg(every)})" if every == plain else \
            f"({ins['name']}, {arg(every)} if c.labels else {arg(plain)})"
    tree = ast.parse(text, mode="eval")
    if shape:                   # renamed first, so that Codes leaves it a name
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == ins["name"]:
                node.id = "op"
    return "lambda a, c: " + ast.unparse(Codes(codes).visit(tree))


def decoders(files, codes):
    """DECODE's entries, and the shapes they share: an instruction decoded the same way as
    another, but for its opcode, gets the shape made for its opcode (`_shape_k(op)`), so
    that the import makes two code objects per shape rather than one per instruction (19
    code objects, not 51): a third of a million instructions of `syn exec`'s start-up
    (issue 31)."""
    shapes = [decoder(i, codes, shape=True) for i in files]
    shared = [t for t in dict.fromkeys(shapes) if shapes.count(t) > 1]
    defs = [line for k, t in enumerate(shared)
            for line in (f"def _shape_{k}(op):", f"    return {t}", "", "")]
    entries = [f"    {i['code']}: " + (f"_shape_{shared.index(t)}({i['code']})" if t in shared
                                      else decoder(i, codes)) + f",  # {i['name']}"
               for i, t in zip(files, shapes)]
    return defs, entries


def fingerprint(ns):
    """Of what a reader of a .synb must agree on: each file opcode's number, name and
    operand kinds."""
    rows = sorted((i["code"], i["name"], tuple(o.split()[0] for o in i["operands"]))
                  for i in ns["INSTRUCTIONS"]
                  if i["code"] is not None and i["code"] < ns["FIRST_INTERNAL"])
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def loader_facts(ns):
    codes = {i["name"]: i["code"] for i in ns["INSTRUCTIONS"] if i["code"] is not None}
    codes.update({f["name"]: f["code"] for f in ns["FUSED"]})
    files = [i for i in ns["INSTRUCTIONS"]
             if i["code"] is not None and i["code"] < ns["FIRST_INTERNAL"]]
    slots = [f"    {i['code']}: ({i['operands'][0].split()[0]!r}, {i.get('slot', 'read')!r}),"
             f"  # {i['name']}" for i in files
             if i["operands"] and i["operands"][0].split()[0] in ("local", "global")]
    shapes, entries = decoders(files, codes)
    out = ["", "# Each file instruction's decoding: (file operands, vm.decode.Context) ->",
           "# (opcode, argument); the ways several decode, for their opcode `op`:", "",
           *shapes, "DECODE = {", *entries, "}", "", "# The slot a first operand names (local or global), and what the",
            "# instruction does with it: read, set, declare, test", "SLOT = {"] + slots + [
        "}", "", "# The verifier's checks beyond the operands' ranges (vm/verify.py)",
        "CHECKS = {", *[f"    {i['code']}: {i['check']!r},  # {i['name']}" for i in files
                        if i.get("check")], "}", "",
        "# Count operands that must be at least 1: what they need", "MIN_COUNT = {",
        *[f"    {i['code']}: {i['min_count']!r},  # {i['name']}" for i in files
          if i.get("min_count")], "}", "",
        "# Of the file opcodes (numbers, names, operand kinds): a test pins it to the .synb",
        "# format version (tests/test_generated.py), so a change to them bumps it.",
        f"FILE_OPCODES_FINGERPRINT = {fingerprint(ns)!r}", "",
        "# The opcodes by name (vm.opcodes re-exports them: O.ADD)"]
    out += [f"{name} = {code}" for name, code in sorted(codes.items(), key=lambda x: x[1])]
    out += ["", *_wrapped("__all__ = [", [repr(n) for n in sorted(codes, key=codes.get)] +
                          ["'FIRST_INTERNAL'"], "]")]
    return out


def _wrapped(head, items, tail):
    import textwrap
    return textwrap.wrap(head + ", ".join(items) + tail, 90, subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False)


def generate():
    ns = load()
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import gen_tier2         # tier 2's copy of the bodies (vm/tier2_defs.py)
    return dict([loop(ns, False), loop(ns, True), table(ns), gen_tier2.defs(ns)])


def main(check=False):
    stale = []
    for path, new in generate().items():
        full = os.path.join(ROOT, path)
        old = open(full).read() if os.path.exists(full) else None
        if old != new:
            stale.append(path)
            if not check:
                with open(full, "w") as fh:
                    fh.write(new)
    return stale


if __name__ == "__main__":
    if "--check" in sys.argv:
        s = main(check=True)
        print("stale: " + ", ".join(s) if s else "up to date")
        sys.exit(1 if s else 0)
    for f in main():
        print(f"wrote {f}")
    # The docs' opcode table reads the table just written: a fresh interpreter.
    import subprocess
    subprocess.run([sys.executable, os.path.join(ROOT, "docs", "gen_opcodes.py"), "--write"],
                   check=True)
