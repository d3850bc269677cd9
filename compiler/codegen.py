"""Resolved tree -> bytecode (see vm.opcodes for every instruction's meaning)."""

from synsema.vm import opcodes as O
from synsema.vm import verify as V
from synsema.vm.errors import CompileError

_BINOPS = {"PLUS": O.ADD, "MINUS": O.SUB, "TIMES": O.MUL, "DIVIDE": O.DIV, "MOD": O.MOD,
           "EQ": O.EQ, "NE": O.NE, "LT": O.LT, "LE": O.LE, "GT": O.GT, "GE": O.GE}

_LOADS = {"local": O.LOAD_LOCAL, "global": O.LOAD_GLOBAL, "task": O.LOAD_TASK}


def _adds_to(v, ref):
    """Is `v` `s + E` for the variable `ref`, with E more than a name or a constant (those
    have their superinstructions)? Nothing E does can change s: only the statements of the
    function that owns a variable set it (a task cannot set a top-level variable)."""
    return (v.kind == "binop" and v.op == "PLUS" and v.left.kind == "name"
            and v.left.ref == ref
            and v.right.kind not in ("name", "num", "text", "bool", "nothing"))


class _Label:
    __slots__ = ("offset", "uses")

    def __init__(self):
        self.offset = None
        self.uses = []      # positions in code that hold this label's offset


class _Emitter:
    def __init__(self, gen, func):
        self.gen = gen
        self.func = func
        self.code = func.code
        self.pos = (0, 0)
        self.last = None    # the position of the last entry in the position table
        self.flow = []      # ("loop", continue_label, break_label, is for each) | ("try",)

    def at(self, node):
        self.pos = (node.line, node.col)

    def emit(self, op, *operands):
        """Append an instruction whose operands are plain numbers."""
        code = self.code
        pos = self.pos
        if pos != self.last:
            self.func.positions.append((len(code), pos[0], pos[1]))
            self.last = pos
        code.append(op)
        code += operands

    def emit_at(self, node, op, *operands):
        """at(node), then emit(op, *operands): most instructions are made this way."""
        code = self.code
        pos = self.pos = (node.line, node.col)
        if pos != self.last:
            self.func.positions.append((len(code), pos[0], pos[1]))
            self.last = pos
        code.append(op)
        code += operands

    def jump(self, op, *operands):
        """Append an instruction with a _Label among its operands (placed now or later)."""
        code = self.code
        self.emit(op)
        for x in operands:
            if type(x) is _Label:
                x.uses.append(len(code))
                code.append(x.offset if x.offset is not None else -1)
            else:
                code.append(x)

    def place(self, label):
        label.offset = len(self.code)
        for u in label.uses:
            self.code[u] = label.offset


class CodeGen:
    def __init__(self, program, source_name):
        self.program = program
        self.name = source_name
        self.const_index = {}
        self.block_index = {}

    def const(self, value):
        # The type keeps 1, 1.0 and true apart; repr keeps 0.0 and -0.0 apart.
        key = (type(value), repr(value) if type(value) is float else value)
        i = self.const_index.get(key)
        if i is None:
            i = len(self.program.consts)
            self.program.consts.append(value)
            self.const_index[key] = i
        return i

    def const_block(self, values):
        """The index of len(values) constants in a row equal to values (a map literal's
        keys, BUILD_MAP_KEYS): one block for every literal with the same keys."""
        key = tuple(values)
        i = self.block_index.get(key)
        if i is None:
            i = len(self.program.consts)
            self.program.consts.extend(values)
            self.block_index[key] = i
        return i

    def error(self, msg, node):
        raise CompileError(msg, node.line, node.col, self.name)

    # ---- functions --------------------------------------------------------------------

    def generate(self, tree):
        prog = self.program
        main_items = []
        for item in tree.items:
            if item.kind in ("task", "test"):
                self.function(prog.functions[item.func], item)
            elif item.kind not in ("intent", "require"):
                main_items.append(item)
        e = _Emitter(self, prog.main)
        for s in main_items:
            self.stmt(s, e)
        self.finish(e, tree)
        self.check_limits(prog)
        return prog

    def check_limits(self, prog):
        """The loader's bounds (vm.verify) that have a place in the source are compile
        errors here, at that place, so that a program `syn run` and `syn check` accept
        runs from its .synb too; `syn compile` checks the rest (the stack depth of deeply
        nested literals) by loading the file before it writes it."""
        for f in [prog.main, *prog.functions]:
            # A task, test or lambda at its own place; the top level at the file's start.
            line, col = (f.line or 1, f.col or 1) if f.kind != "main" else (1, 1)
            if len(f.params) > V.MAX_PARAMS:
                raise CompileError(f"{f.describe()} has {len(f.params)} parameters; at most "
                                   f"{V.MAX_PARAMS} (pass a map or a list instead)", line,
                                   col, self.name)
            if f.nlocals > V.MAX_LOCALS:
                raise CompileError(
                    f"{'the top level' if f.kind == 'main' else f.describe()} has "
                    f"{f.nlocals:,} variables; at most {V.MAX_LOCALS:,} (keep values in lists "
                    "or maps)", line, col, self.name)
            for _, line, col in f.positions:
                if line > V.MAX_LINE:
                    raise CompileError(f"the file has more than {V.MAX_LINE:,} lines",
                                       V.MAX_LINE, 1, self.name)
                if col > V.MAX_COL:
                    raise CompileError(f"line {line} has code past column {V.MAX_COL:,}; "
                                       "split it into shorter lines", line, 1, self.name)

    def count(self, n, what, node):
        """A count operand (keys, arguments, captures): at most vm.verify's bound."""
        if n > V.MAX_COUNT:
            self.error(f"{what}: {n:,}, at most {V.MAX_COUNT:,}", node)

    def function(self, func, item):
        e = _Emitter(self, func)
        e.at(item)
        if item.kind == "task":
            for slot, p in enumerate(item.params):
                if p.default is not None:
                    skip = _Label()
                    e.at(p)
                    e.jump(O.JUMP_IF_SET, slot, skip)
                    self.expr(p.default, e)
                    e.emit(O.DECLARE_LOCAL, slot)
                    e.place(skip)
        for s in item.body:
            self.stmt(s, e)
        self.finish(e, item)

    def finish(self, e, node):
        # Falling off the end gives nothing (unreachable after a final `give`: harmless).
        e.emit(O.CONST, self.const(None))
        e.emit(O.RETURN)

    # ---- statements -------------------------------------------------------------------

    def stmt(self, s, e):
        e.at(s)
        k = s.kind
        if k == "expr":
            self.expr(s.value, e)
            e.emit(O.POP)
        elif k == "let":
            self.expr(s.value, e)
            e.at(s)
            kind, slot = s.ref
            e.emit(O.DECLARE_GLOBAL if kind == "global" else O.DECLARE_LOCAL, slot)
        elif k == "set":
            kind, slot = s.ref
            v = s.value
            if (not s.path and v.kind == "call" and v.callee.kind == "name"
                    and v.callee.ref == ("builtin", "append") and len(v.args) == 2
                    and v.args[0].kind == "name" and v.args[0].ref == s.ref):
                # `set xs to append(xs, x)`: one instruction that can append in place
                # when nothing else holds the list, so building a list is linear.
                self.expr(v.args[1], e)
                e.emit_at(v, O.APPEND_GLOBAL if kind == "global" else O.APPEND_LOCAL, slot)
                return
            if not s.path and kind == "local" and _adds_to(v, s.ref):
                # `set s to s + E`: E, then ADD_TO_LOCAL s (see vm/instructions.py).
                self.expr(v.right, e)
                e.emit_at(v, O.ADD_TO_LOCAL, slot)
                return
            if len(s.path) == 1:
                self.expr(s.path[0], e)
                self.expr(s.value, e)
                e.emit_at(s, O.SET_ITEM_GLOBAL if kind == "global" else O.SET_ITEM_LOCAL, slot)
                return
            if s.path:
                e.emit(O.LOAD_GLOBAL if kind == "global" else O.LOAD_LOCAL, slot)
                for key in s.path:
                    self.expr(key, e)
                self.expr(s.value, e)
                e.emit_at(s, O.SET_PATH, len(s.path))
            else:
                self.expr(s.value, e)
                e.at(s)
            e.emit(O.STORE_GLOBAL if kind == "global" else O.STORE_LOCAL, slot)
        elif k == "give":
            if s.value is None:
                e.emit(O.CONST, self.const(None))
            else:
                self.expr(s.value, e)   # still inside every enclosing try: errors are caught
                e.at(s)
            # A function leaves nothing behind when it returns (frames share one value
            # stack and one handler list): close the enclosing tries, drop the iterators
            # of the enclosing `for each` loops.
            for entry in reversed(e.flow):
                if entry[0] == "try":
                    e.emit(O.TRY_END)
            iterators = sum(1 for entry in e.flow if entry[0] == "loop" and entry[3])
            if iterators:
                e.emit(O.DROP_UNDER, iterators)
            e.emit(O.RETURN)
        elif k in ("break", "continue"):
            for entry in reversed(e.flow):
                if entry[0] == "try":
                    e.emit(O.TRY_END)
                    continue
                _, cont, brk, _ = entry
                e.jump(O.JUMP, cont if k == "continue" else brk)
                break
        elif k == "when":
            end = _Label()
            for cond, body in s.branches:
                nxt = _Label()
                self.expr(cond, e)
                e.at(cond)
                e.jump(O.JUMP_IF_FALSE, nxt, s.release)
                self.body(body, e)
                e.jump(O.JUMP, end)
                e.place(nxt)
            if s.otherwise is not None:
                self.body(s.otherwise, e)
            e.place(end)
            if s.release == s.rid:
                e.emit(O.PC_RELEASE, s.rid)
        elif k == "while":
            top, exit_ = _Label(), _Label()
            e.place(top)
            self.expr(s.cond, e)
            e.at(s.cond)
            e.jump(O.JUMP_IF_FALSE, exit_, s.release)
            e.flow.append(("loop", top, exit_, False))
            self.body(s.body, e)
            e.flow.pop()
            e.jump(O.JUMP, top)
            e.place(exit_)
            e.emit(O.PC_RELEASE, s.rid)
        elif k == "foreach":
            top, brk, done = _Label(), _Label(), _Label()
            self.expr(s.iterable, e)
            e.emit_at(s, O.ITER_START, s.release)
            e.place(top)
            e.jump(O.FOR_ITER, done)
            e.emit(O.DECLARE_LOCAL, s.ref[1])
            e.flow.append(("loop", top, brk, True))
            self.body(s.body, e)
            e.flow.pop()
            e.jump(O.JUMP, top)
            e.place(brk)
            e.emit(O.POP)
            e.place(done)
            e.emit(O.PC_RELEASE, s.rid)
        elif k == "try":
            handler, end = _Label(), _Label()
            e.jump(O.TRY_BEGIN, handler, s.release)
            e.flow.append(("try",))
            self.body(s.body, e)
            e.flow.pop()
            e.emit(O.TRY_END)
            e.jump(O.JUMP, end)
            e.place(handler)
            e.pos = (s.name_line, s.name_col)
            e.emit(O.DECLARE_LOCAL, s.ref[1])
            self.body(s.recover, e)
            e.place(end)
            if s.release == s.rid:
                e.emit(O.PC_RELEASE, s.rid)
        else:  # pragma: no cover
            self.error(f"cannot compile {k}", s)

    def body(self, stmts, e):
        for s in stmts:
            self.stmt(s, e)

    # ---- expressions ------------------------------------------------------------------

    def expr(self, x, e):
        k = x.kind
        if k in ("num", "text", "bool", "nothing"):
            e.emit_at(x, O.CONST, self.const(x.value))
        elif k == "name":
            kind, slot = x.ref
            e.emit_at(x, _LOADS[kind], slot)
        elif k == "binop":
            if x.left.kind == "num" and x.right.kind == "num":
                folded = _fold(x)
                if folded is not None:
                    e.emit_at(x, O.CONST, self.const(folded))
                    return
            self.expr(x.left, e)
            self.expr(x.right, e)
            e.emit_at(x, _BINOPS[x.op])
        elif k in ("and", "or"):
            end = _Label()
            self.expr(x.left, e)
            e.at(x)
            e.jump(O.AND_JUMP if k == "and" else O.OR_JUMP, end, x.rid)
            self.expr(x.right, e)
            e.emit_at(x, O.CHECK_BOOL, self.const(k))
            e.place(end)
            e.emit(O.PC_RELEASE, x.rid)
        elif k == "not":
            self.expr(x.operand, e)
            e.emit_at(x, O.NOT)
        elif k == "neg":
            if x.operand.kind == "num":
                e.emit_at(x, O.CONST, self.const(-x.operand.value))
                return
            self.expr(x.operand, e)
            e.emit_at(x, O.NEG)
        elif k == "index":
            if x.target.kind == "name" and x.target.ref[0] == "local" and \
                    x.key.kind not in ("name", "num", "text", "bool", "nothing"):
                # `xs[E]`: E, then INDEX_LOCAL xs (vm/instructions.py); a name or a
                # constant as the key has its superinstructions.
                self.expr(x.key, e)
                e.emit_at(x, O.INDEX_LOCAL, x.target.ref[1])
                return
            self.expr(x.target, e)
            self.expr(x.key, e)
            e.emit_at(x, O.INDEX)
        elif k == "field":
            self.expr(x.target, e)
            e.emit_at(x, O.FIELD, self.const(x.name))
        elif k == "list":
            # A list longer than one BUILD_LIST may count (a file's bound) is built in
            # parts joined by `+`, which keeps the order and the items.
            step = V.MAX_COUNT
            for start in range(0, max(len(x.items), 1), step):
                for item in x.items[start:start + step]:
                    self.expr(item, e)
                e.emit_at(x, O.BUILD_LIST, len(x.items[start:start + step]))
                if start:
                    e.emit_at(x, O.ADD)
        elif k == "map":
            self.count(len(x.pairs), "too many keys in one map literal (build it in parts "
                       "with put, or read it with json_decode)", x)
            if x.pairs and all(a.kind == "text" for a, _ in x.pairs):
                # Text keys only: the values are pushed, the keys are constants in a row.
                for _, b in x.pairs:
                    self.expr(b, e)
                e.emit_at(x, O.BUILD_MAP_KEYS, self.const_block([a.value for a, _ in x.pairs]),
                          len(x.pairs))
                return
            for a, b in x.pairs:
                self.expr(a, e)
                self.expr(b, e)
            e.emit_at(x, O.BUILD_MAP, len(x.pairs))
        elif k == "lambda":
            self.count(len(x.captures), "a lambda captures too many variables", x)
            for kind, slot in x.captures:
                e.emit(O.LOAD_GLOBAL if kind == "global" else O.LOAD_LOCAL, slot)
            e.emit_at(x, O.MAKE_LAMBDA, x.func, len(x.captures))
            f = self.program.functions[x.func]
            le = _Emitter(self, f)
            self.expr(x.body, le)
            le.emit_at(x.body, O.RETURN)
        elif k == "call":
            self.call(x, e)
        else:  # pragma: no cover
            self.error(f"cannot compile {k}", x)

    def call(self, x, e):
        self.count(len(x.args), "too many arguments in one call", x)
        callee = x.callee
        ref = callee.ref if callee.kind == "name" else None
        if ref and ref[0] == "builtin":
            for a in x.args:
                self.expr(a, e)
            n = len(x.args)
            if callee.name == "assert":
                lo, hi = x.span
                e.emit(O.CONST, self.const(" ".join(self.source[lo:hi].split())))
                n += 1
            e.emit_at(x, O.CALL_BUILTIN, self.program.builtins.index(callee.name), n)
        elif ref and ref[0] == "task":
            f = self.program.functions[ref[1]]
            n = len(x.args)
            if not f.nrequired <= n <= len(f.params):
                self.error(f"task '{f.name}' takes {f.arity_text()}, got {n}", x)
            for a in x.args:
                self.expr(a, e)
            e.emit_at(x, O.CALL_TASK, ref[1], n)
        else:
            self.expr(callee, e)
            for a in x.args:
                self.expr(a, e)
            e.emit_at(x, O.CALL, len(x.args))


def _fold(x):
    """Fold `number OP number` at compile time when it cannot fail."""
    av, bv, op = x.left.value, x.right.value, x.op
    try:
        if op == "PLUS":
            return av + bv
        if op == "MINUS":
            return av - bv
        if op == "TIMES":
            if isinstance(av, int) and isinstance(bv, int) and abs(av) < 2 ** 64 and abs(bv) < 2 ** 64:
                return av * bv
            if isinstance(av, float) or isinstance(bv, float):
                return av * bv
    except OverflowError:
        return None
    return None


def generate(program, tree, source, source_name):
    g = CodeGen(program, source_name)
    g.source = source
    return g.generate(tree)

