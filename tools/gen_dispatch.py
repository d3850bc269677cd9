"""Generate the VM's loops and opcode data from vm/instructions.py (each instruction once).

Output (committed; a test checks they are current):
    vm/loop_fast.py          the plain loop (labels off)
    vm/loop_labels_fast.py   the labels loop: the same bodies with their LABELS parts
    vm/optable.py            the opcode table, decoded operand fields, jump positions and
                             the superinstruction patterns the decoder fuses
    vm/tier2_defs.py         the bodies (labels off) tier 2 translates from (gen_tier2.py)
    docs/bytecode.md         its opcode table (by docs/gen_opcodes.py, run after them)

Each loop dispatches with a tree of range tests (op < K, each read from a table of bools:
`below_K[op]`) balanced by how often each instruction runs (WEIGHT below, from profiles
of the bench/ programs), so every instruction is reached in a handful of tests and the
hottest in three or four.
Run after changing vm/instructions.py: python tools/gen_dispatch.py [--check]
"""

import ast
import functools
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
IDENT = re.compile(r"(?<![.\w])[A-Za-z_]\w*")
HEADER = re.compile(r"^(if|elif) (.*):(\s*#.*)?$")


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


# ---- text helpers -------------------------------------------------------------------------

def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def dedent(lines):
    base = min((indent_of(l) for l in lines if l.strip()), default=0)
    return [l[base:] if l.strip() else "" for l in lines]


def inline(text, labels):
    """(The loop template) [[L: x]] is x with labels, nothing without; [[P: x]] the other
    way round."""
    keep, drop = ("L", "P") if labels else ("P", "L")
    text = re.sub(r"\[\[" + drop + r": .*?\]\]", "", text)
    return re.sub(r"\[\[" + keep + r": (.*?)\]\]", r"\1", text)


def _statements(lines):
    """Split a block (lines at one base indent) into (header line, child lines)."""
    out, base = [], None
    for line in lines:
        if not line.strip():
            continue
        ind = indent_of(line)
        if base is None:
            base = ind
        if ind <= base:
            out.append((line, []))
        else:
            out[-1][1].append(line)
    return out


def _truth(cond, labels):
    """True/False when the condition is decided (by LABELS, or by what is known of a
    value: see facts()), else the condition to keep."""
    if cond == "LABELS":
        return labels
    if cond == "not LABELS":
        return not labels
    if cond.startswith("LABELS and "):
        cond = cond[len("LABELS and "):] if labels else "False"
    cond = simplify(cond)
    return {"True": True, "False": False}.get(cond, cond)


def simplify(cond):
    """Drop the parts of a condition decided to True or False."""
    prev = None
    while prev != cond:
        prev = cond
        cond = re.sub(r"(?<![\w)\]])\((True|False|[\w.]+)\)", r"\1", cond)
        cond = re.sub(r"^True and | and True(?=$|\)| and | or )", "", cond)
        cond = re.sub(r"(?<=\()True and ", "", cond)
        cond = re.sub(r"^False or | or False(?=$|\)| and | or )", "", cond)
        cond = re.sub(r"(?<=\()False or ", "", cond)
        cond = {"not True": "False", "not False": "True"}.get(cond, cond)
        if re.match(r"^False and ", cond) or re.search(r" and False$", cond):
            cond = "False"
    return cond


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


def fold(lines, labels):
    """The block with its LABELS tests decided."""
    stmts = _statements(lines)
    out = []
    k = 0
    while k < len(stmts):
        line, child = stmts[k]
        pad = " " * indent_of(line)
        m = HEADER.match(line.strip())
        if m and m.group(1) == "if":
            chain = [(m.group(2), m.group(3) or "", child)]
            k += 1
            while k < len(stmts):
                nxt, nchild = stmts[k]
                s = nxt.strip()
                if indent_of(nxt) != len(pad):
                    break
                em = HEADER.match(s)
                if em and em.group(1) == "elif":
                    chain.append((em.group(2), em.group(3) or "", nchild))
                elif s == "else:" or s.startswith("else:  #"):
                    chain.append((True, "", nchild))
                else:
                    break
                k += 1
            kept = []
            for cond, comment, body in chain:
                t = cond if cond is True else _truth(cond, labels)
                if t is False:
                    continue
                kept.append((t, comment, body))
                if t is True:
                    break
            for n, (t, comment, body) in enumerate(kept):
                inner = fold(body, labels)
                if n == 0 and t is True:
                    delta = indent_of(body[0]) - len(pad)
                    out += [l[delta:] if l.strip() else "" for l in inner]
                    break
                word = "else:" if t is True else ("if " if n == 0 else "elif ") + t + ":"
                out.append(pad + word + comment)
                out += inner or [pad + "    pass"]
            continue
        out.append(line)
        if child:
            out += fold(child, labels)
        k += 1
    return out


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


def subst_fields(lines, names, offset, bare):
    def repl(m):
        name = m.group(1)
        i = names.index(name)
        return "arg" if bare else f"arg[{offset + i}]"
    return [re.sub(r"\$(\w+)", repl, l) for l in lines]


def rename(lines, mapping):
    mapping = {k: v for k, v in mapping.items() if k != v}
    if not mapping:
        return lines
    pat = re.compile(r"(?<![.\w$])(" + "|".join(map(re.escape, mapping)) + r")(?!\w)")
    return [pat.sub(lambda m: mapping[m.group(1)], l) for l in lines]


def idents(lines):
    return set(IDENT.findall("\n".join(lines)))


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
    lines = unparse(fold_tree(out))
    if labels:
        lines = split_fast(lines, bools)
    lines = peephole(jumps(sink_test(lines, bools)))
    return peephole(aliases(unpack(lines, names_of_fields(comps, labels, alone))))


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


def aliases(lines):
    """`x = y` (y a name never set again): later reads of x read y, up to x's next
    assignment when that is at the same level."""
    for p, l in enumerate(lines):
        m = re.match(r"^(\s*)(\w+) = (\w+)$", l)
        if not m or m.group(3) in ("pop", "True", "False", "None") or m.group(2) in LIVE:
            continue
        x, y, d = m.group(2), m.group(3), len(m.group(1))
        sets = lambda n: re.compile(r"^\s*(?:\w+, )*" + n + r"(?:, \w+)* = |^\s*for " + n + r" ")
        if any(sets(y).match(z) for z in lines[p + 1:]):
            continue
        end = next((q for q in range(p + 1, len(lines)) if sets(x).match(lines[q])),
                   len(lines))
        if end < len(lines) and indent_of(lines[end]) != d:
            continue
        if any(indent_of(lines[q]) < d for q in range(p + 1, end) if lines[q].strip()):
            continue
        out = lines[:p] + rename(lines[p + 1:end], {x: y}) + lines[end:]
        return aliases(out)
    return lines


def names_of_fields(comps, labels, alone):
    names = []
    for ins, _ in comps:
        names += _fields(field_spec(ins), labels, full=not alone)
    return names


def unpack(lines, fields):
    """Read the operand tuple once into names when its fields are read four times or more,
    or twice or more with at most one field not read: one unpacking is cheaper than two subscripts
    (measured on 3.11: 14.4 against 17.8 ns for two fields, 22 against 27 ns for three)."""
    text = "\n".join(lines)
    reads = re.findall(r"(?<![.\w])arg\[(\d+)\]", text)
    unread = len(fields) - len(set(reads))
    if not (len(reads) >= 4 or (len(reads) >= 2 and unread <= 1)) or \
            len(fields) > 6 or len(fields) < 2:
        return lines
    busy = idents(lines)
    used = {int(i) for i in reads}
    names = []
    for i, f in enumerate(fields):
        if i not in used:
            names.append("_")
        else:
            own = f not in busy or re.search(r"^\s*" + f + r" = arg\[" + str(i) + r"\]$",
                                             text, re.M)
            names.append(f if own and f not in names else f"{f}{i}")
    lines = [re.sub(r"(?<![.\w])arg\[(\d+)\]", lambda m: names[int(m.group(1))], l)
             for l in lines]
    lines = [l for l in lines if not re.match(r"^\s*(\w+) = \1$", l)]
    return [f"{', '.join(names)} = arg"] + lines


def split_fast(lines, bools):
    """The labels loop: `if <int test>: v = a < b` / `elif ..Labeled..` / `else: ..`, then
    a tail asking `type(v) is Labeled`: the first branch's value is plain, so it gets its
    own copy of the tail with that test decided (the fast path keeps the plain loop's
    shape)."""
    for p, l in enumerate(lines):
        m = re.match(r"^(\s*)if (.*):$", l)
        if not m or "Labeled" in m.group(2) or not re.search(r"is (int|str|type)\b", m.group(2)):
            continue
        d = len(m.group(1))
        q = p + 1
        while q < len(lines) and indent_of(lines[q]) > d:
            q += 1
        em = re.match(r"^\s*(\w+) = [\w\[\]]+ (<|<=|>|>=|==|!=|\+|-|\*|%) [\w\[\]]+$",
                      lines[q - 1])
        if not em or indent_of(lines[q - 1]) != d + 4 or q >= len(lines) or \
                not lines[q].strip().startswith(("elif ", "else:")):
            continue
        var = em.group(1)
        r = q
        while r < len(lines) and (indent_of(lines[r]) > d or (indent_of(lines[r]) == d and
                                  lines[r].strip().startswith(("elif ", "else:")))):
            r += 1
        end = next((k for k in range(r, len(lines)) if lines[k].strip() and
                    indent_of(lines[k]) < d), len(lines))
        tail = lines[r:end]
        if f"type({var}) is Labeled" not in "\n".join(tail):
            continue
        fast_tail = fold([x.replace(f"type({var}) is Labeled", "False") for x in tail], True)
        if lines[q].strip().startswith("else:"):
            others = lines[q + 1:r]                   # already one level in
        else:
            others = [re.sub(r"^(\s*)elif ", r"\1if ", lines[q])] + lines[q + 1:r]
            others = ["    " + x if x.strip() else "" for x in others]
        more = ["    " + x if x.strip() else "" for x in tail]
        return split_fast(lines[:q] + ["    " + x if x.strip() else "" for x in fast_tail] +
                          [" " * d + "else:"] + others + more + lines[end:], bools)
    return lines


def sink_test(lines, bools):
    """`if ..: c = A` / `else: c = B` then `if c is False: X`, c a bool used nowhere else:
    `if ..: if not A: X` / `else: if not B: X` (the test where the value is made)."""
    for p, l in enumerate(lines):
        m = re.match(r"^(\s*)if (\w+) is False:$", l)
        if not m or m.group(2) not in bools:
            continue
        d, var = len(m.group(1)), m.group(2)
        em = re.match(r"^(\s*)" + var + r" = (.+)$", lines[p - 1]) if p else None
        if em and len(em.group(1)) == d:
            # `v = A` right before: `if not A:`, when nothing after the test reads v
            end = p + 1
            while end < len(lines) and (indent_of(lines[end]) > d or not lines[end].strip()):
                end += 1
            after = lines[end:]
            stop = next((k for k, x in enumerate(after) if indent_of(x) < d), len(after))
            reads = re.compile(r"(?<![.\w])" + var + r"(?!\w)")
            if not any(reads.search(x) for x in lines[p + 1:end] + after[:stop]):
                out = lines[:p - 1] + [f"{em.group(1)}if not {em.group(2)}:"] + lines[p + 1:]
                return sink_test(out, bools)
        end = p + 1
        while end < len(lines) and indent_of(lines[end]) > d:
            end += 1
        if end < len(lines) and lines[end].strip().startswith(("elif", "else")):
            continue
        chain = _assigning_chain(lines, p, d, var)
        if chain is None:
            continue
        heads, ends, pat = chain
        block = lines[p + 1:end]
        out = list(lines[:heads[0]])
        for k in range(heads[0], p):
            if k in ends:
                em = pat.match(lines[k])
                out.append(f"{em.group(1)}if not {em.group(2)}:")
                out += ["    " + x if x.strip() else "" for x in block]
            else:
                out.append(lines[k])
        return sink_test(out + lines[end:], bools)
    return lines


def _assigning_chain(lines, q, ind, var):
    """The `if`/`elif`/`else` chain at indent `ind` just above line q, each branch ending
    with `var = ...`, var read nowhere else but once (at q): (the chain's head lines, its
    branches' last lines, the pattern of those assignments); else None."""
    heads = []
    k = q - 1
    while k >= 0 and indent_of(lines[k]) >= ind:
        if indent_of(lines[k]) == ind:
            heads.append(k)
            if not lines[k].strip().startswith(("elif ", "else:")):
                break
        k -= 1
    heads.reverse()
    if not heads or not lines[heads[0]].strip().startswith("if ") or \
            not lines[heads[-1]].strip().startswith("else:"):
        return None
    ends = [h - 1 for h in heads[1:]] + [q - 1]
    pat = re.compile(r"^(\s*)" + var + r" = (.+)$")
    if any(not pat.match(lines[e]) or indent_of(lines[e]) != ind + 4 for e in ends):
        return None
    uses = sum(len(re.findall(r"(?<![.\w])" + var + r"(?!\w)", x)) for x in lines)
    if uses != len(ends) + 1:
        return None
    return heads, ends, pat


def jumps(lines):
    out = []
    for l in lines:
        m = re.match(r"^(\s*)JUMP\((.*)\)$", l)
        if m:
            out += [f"{m.group(1)}pc = {m.group(2)}", f"{m.group(1)}continue"]
        else:
            out.append(l)
    return out


def _ends_handler(lines, p):
    """Does control fall off the end of the handler right after line p?"""
    level = indent_of(lines[p])
    for q in range(p + 1, len(lines)):
        ind = indent_of(lines[q])
        s = lines[q].strip()
        if ind > level:
            continue
        if s.startswith(("elif ", "else:", "except")):
            level = ind
            continue
        return False
    return True


def peephole(lines):
    changed = True
    while changed:
        changed = False
        text = "\n".join(lines)
        for p, l in enumerate(lines):
            s = l.strip()
            if s == "continue" and _ends_handler(lines, p):
                del lines[p]
                changed = True
                break
            m = re.match(r"^(\s*)(\w+) = (.+)$", l)
            if not m or m.group(2) in LIVE:
                continue
            var = m.group(2)
            uses = len(re.findall(r"(?<![.\w])" + var + r"(?!\w)", text)) - 1
            if re.match(r"^arg(\[\d+\])?$", m.group(3)) and uses <= 3 and \
                    len(re.findall(r"(?<![.\w])" + var + r" = ", text)) == 1:
                # An operand field is as cheap to read again as a variable.
                del lines[p]
                lines = rename(lines, {var: m.group(3)})
                changed = True
                break
            if uses == 0 and m.group(3) in ("pop()", "stack[-1]"):
                lines[p] = m.group(1) + "pop()" if m.group(3) == "pop()" else None
                lines = [x for x in lines if x is not None]
                changed = True
                break
            pure = re.compile(r"^(?:locals_|glob|arg)\[[\w\[\]]+\]$")
            if uses == 1 and pure.match(m.group(3)):
                # A read of a slot or operand moves to its one use past other such reads:
                # no variable is left holding the value (a container's reference count
                # decides whether it may be changed in place).
                ind = len(m.group(1))
                q = p + 1
                between = re.compile(r"^\s*(?:\w+ = (.+)|push\((.+)\))$")
                while q < len(lines) and indent_of(lines[q]) == ind and \
                        between.match(lines[q]) and \
                        pure.match([g for g in between.match(lines[q]).groups() if g][0]):
                    q += 1
                use = re.compile(r"(?<![.\w])" + var + r"(?!\w)")
                if q > p + 1 and q < len(lines) and indent_of(lines[q]) == ind and \
                        len(use.findall(lines[q])) == 1 and not lines[q].rstrip().endswith(":"):
                    lines[q] = use.sub(lambda _: m.group(3), lines[q])
                    del lines[p]
                    changed = True
                    break
            nxt = lines[p + 1] if p + 1 < len(lines) else None
            # Into the next line, when that keeps the order of evaluation: a value with
            # effects (a call) only as the whole of what the next line computes.
            whole = nxt is not None and re.match(
                r"^\s*(?:[\w\[\]\-.]+ = |push\(|return )" + var + r"\)?$", nxt)
            pure = "(" not in m.group(3) and nxt is not None and "pop()" not in nxt
            if (uses == 1 and nxt is not None and indent_of(nxt) == len(m.group(1))
                    and not nxt.rstrip().endswith(":") and (whole or pure)
                    and len(re.findall(r"(?<![.\w])" + var + r"(?!\w)", nxt)) == 1):
                lines[p + 1] = re.sub(r"(?<![.\w])" + var + r"(?!\w)",
                                      lambda _: m.group(3), nxt)
                del lines[p]
                changed = True
                break
    return lines


def sink_all(lines):
    """`if ..: r = A` / `else: r = B`, then a line that only uses r once (`push(r)`,
    `x = [r]`): that line moves into each branch (one variable store and load fewer)."""
    for q in range(1, len(lines)):
        last = lines[q]
        ind = indent_of(last)
        m = re.match(r"^\s*(?:push\((\w+)\)|([\w\[\]\-.]+) = \[?(\w+)\]?)$", last)
        if not m or last.rstrip().endswith(":"):
            continue
        var = m.group(1) or m.group(3)
        chain = _assigning_chain(lines, q, ind, var)
        if chain is None:
            continue
        _, ends, pat = chain
        out = list(lines)
        for e in ends:
            em = pat.match(out[e])
            out[e] = em.group(1) + re.sub(r"(?<![.\w])" + var + r"(?!\w)",
                                          lambda _: em.group(2), last.strip(), count=1)
        del out[q]
        return sink_all(out)
    return lines


# ---- the loops ----------------------------------------------------------------------------

def leaves(ns, labels):
    by_name = {i["name"]: i for i in ns["INSTRUCTIONS"]}
    out = []
    for ins in ns["INSTRUCTIONS"]:
        if ins["code"] is None or ins.get("decoded_as") or (ins.get("labels_only") and not labels):
            continue
        body = sink_all(handler([ins["name"]], by_name, ns["FRAGMENTS"], labels))
        out.append((ins["code"], ins["name"], "", body))
    for f in ns["FUSED"]:
        if f.get("labels_only") and not labels:
            continue
        body = sink_all(handler(f["parts"], by_name, ns["FRAGMENTS"], labels, f))
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
    text = inline(ns["LOOP"], labels)
    lines = [l for l, src in zip(text.split("\n"), ns["LOOP"].split("\n"))
             if l.strip() or not src.strip()]
    lines = fold(lines, labels)
    at = next(i for i, l in enumerate(lines) if l.strip() == "@dispatch")
    body, keys = [], set()
    items = leaves(ns, labels)
    assert max(c for c, _, _, _ in items) < 256
    tree(items, " " * indent_of(lines[at]), body, LABELS_WEIGHT if labels else WEIGHT, keys)
    lines[at:at + 1] = body
    d = next(i for i, l in enumerate(lines) if "@hoisted" in l)
    head, tail = lines[d].split("@hoisted")
    pad = " " * (head.index("(") + 1)
    params = _params(labels, keys, 90 - len(pad))
    params[-1] += tail
    lines[d:d + 1] = [head.rstrip(), pad + "# locals by default parameters (HOISTED and _emit "
                      "in tools/gen_dispatch.py)"] + [pad + p for p in params]
    # The tables the tests read, made once at import.
    imp = max(i for i, l in enumerate(lines[:d]) if l.startswith(("import ", "from ")) or
              l.startswith(" "))
    lines[imp + 1:imp + 1] = [
        "", "# below_K[op] is op < K: the dispatch tests read these",
        "# (tools/gen_dispatch.py _emit says why).",
        *_wrapped("_BELOW = {k: tuple(op < k for op in range(256)) for k in (",
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
             "The opcode data vm.opcodes, vm.decode, vm.verify, vm.flow and vm.dis read.",
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
        fused.append(f"    ({f['code']}, ({', '.join(parts)},), {at},\n"
                     f"     lambda A, i, code, n, targets, better_later: {cond}),  # {f['name']}")
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
              "# its own fields); A[k] is part k's fields (all of them).",
              "FUSED = ["] + sorted(fused, key=lambda s: -s.count("{")) + ["]", "",
              "# Threaded superinstructions: (jump, the superinstruction at its target, the",
              "# code that replaces the jump and runs the target's parts in its place)",
              "THREADED = ["] + threaded + ["]", "",
              "# Tails: (a statement's instruction, the threaded jump after it, the code",
              "# that runs both; the jump stays in place for the paths that jump to it)",
              "TAILS = ["] + tails + ["]"]
    return TABLE, "\n".join(lines) + "\n"


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
