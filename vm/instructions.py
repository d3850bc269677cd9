"""Every instruction of the VM, written once.

Read only by tools/gen_dispatch.py, which emits from it (committed; a test checks they are
current): the plain loop (vm/loop_fast.py), the labels loop (vm/loop_labels_fast.py), the
opcode table and decoder data (vm/optable.py: names, numbers, operands, stack effects,
flow kinds, decoded operand fields, jump positions, superinstruction patterns) and so the
verifier's, the flow analysis', the disassembler's and the docs' facts.

An instruction (`inst`): name, number, file operands as `kind name` pairs (the kinds of
vm.opcodes), its stack picture `(inputs -- outputs)`, a flow kind, a one-line meaning,
and one body; `quiet` when it cannot raise (True: never; "plain": never without labels;
"bool": never when its input is a bool), so that a superinstruction need not record
whether it was the part that raised. The generator binds the picture for the body:
inputs are popped into the named variables (the deepest one peeked and overwritten by the first output), outputs
are pushed from theirs; an input repeated at the same place in the outputs (`it -- it v`)
stays on the stack. `raw=True` bodies move the stack themselves (variable counts); then
the picture is only for the verifier. `x[n]` in a picture is n values.

What the loader and the verifier know of a file instruction is here too (generated into
vm/optable.py DECODE, SLOT, CHECKS, MIN_COUNT):
    decode     its decoded (opcode, argument) as an expression over `a` (the file
               operands) and `c` (vm.decode.Context: consts, functions, tasks, builtins,
               pads, at (file offset -> instruction index), here, fixed, labels);
               instruction names stand for their numbers. Default: from the operand
               kinds (const -> c.consts[x], func -> c.functions[x], jump -> c.at[x],
               others as they are; a rid only with labels), one field bare, none None
    slot       of a `local`/`global` first operand: "read" (default), "set" (written,
               not read), "declare" (a `let`), "test" (only whether it is set)
    check      the verifier's check beyond the operand ranges (vm/verify.py names them)
    min_count  a count operand that must be at least 1: what it needs

Each body is valid Python (tools/gen_dispatch.py parses it with `ast`); in a body:
    OP.name      the decoded operand field `name` (decoded fields: `fields=`, default the
                 file operands' names; a `rid` is only there with labels)
    JUMP(t)      go to t: the rest of this instruction (and of a superinstruction) is
                 skipped
    LABELS       True in the labels loop, False in the plain one, folded away by the
                 generator wherever it decides a test: `if LABELS ...:` / `elif LABELS and
                 ...:` branches, `(not LABELS or c)` (c only with labels), `x if LABELS
                 else y`
    FRAGMENT.name()   a statement standing for the statements of FRAGMENTS[name]

A superinstruction (`fused`) is a sequence of instructions the decoder replaces with one:
its body is the composition of theirs, with the values passed between them held in
variables instead of on the stack. `when` is the decoder's condition on the components'
decoded operands A[0], A[1], ...; `at` is the component whose source position it takes. Where each instruction sits in the
dispatch tree follows how often it runs (tools/gen_dispatch.py WEIGHT, measured by
tools/profile_pairs.py --weights).
A `threaded` superinstruction replaces a jump (its first part) whose target is the
superinstruction made of its other parts: it runs them in the jump's place, then goes on
past the target.
Internal instructions (number >= FIRST_INTERNAL) are made by the decoder, never in a file.
"""

import re

FIRST_INTERNAL = 100

INSTRUCTIONS = []
FUSED = []


def inst(name, code, operands, picture, flow, doc, body, **more):
    INSTRUCTIONS.append(dict(name=name, code=code, operands=operands, picture=picture,
                             flow=flow, doc=doc, body=body, **more))


def fused(name, code, parts, doc, when="True", at=None, **more):
    FUSED.append(dict(name=name, code=code, parts=parts.split(), doc=doc, when=when, at=at,
                      **more))


# ---- shared pieces ----------------------------------------------------------------------

FRAGMENTS = {
    # A Synsema call: charge a step (the budget never exceeds the calls the depth limit
    # still allows, so the depth is checked only when it ticks), then save the frame.
    "charge_call": """\
budget -= 1
if budget <= 0:
    budget = vm.tick_call(budget, room - len(frames))
frames.append((code, pc, locals_, stamps) if LABELS else (code, pc, locals_))""",
    # The callee's locals are new: stamped as declared now (labels).
    "stamp_new": """\
if LABELS:
    stamps = [vm.stamp] * len(locals_) if pcs else None""",
    "enter_task": """\
FRAGMENT.charge_call()
code = OP.fcode
locals_ = new + OP.pad if OP.pad else new
FRAGMENT.stamp_new()
pc = 0""",
}

# The name of local slot OP.s / global slot OP.s, for a no-sensitive-upgrade message.
LOCAL_NAME = "_local_name(vm.owner[id(code)], OP.s)"
GLOBAL_NAME = "vm.gprogram.globals[OP.s]"


def _arith_body(sym, fn, guard=""):
    # `+` of two texts inline too: building text is most of what `+` does in agents.
    texts = "\nelif type(a) is str and type(b) is str:\n    r = a + b" if sym == "+" else ""
    return f"""\
if type(a) is int and type(b) is int{guard}:
    r = a {sym} b{texts}
elif LABELS and (type(a) is Labeled or type(b) is Labeled):
    r = _binary(vm, {fn}, a, b)
else:
    r = {fn}(a, b)"""


# `*` and `%` inline only when the right operand is small: of two big integers Python's
# product or remainder can take minutes in one step, which no limit could interrupt
# (vm.ops refuses those past a size: "number too large"). Small is under 2**64, tested
# first against one CPython digit (2**30 - 1): comparisons of such ints are the ones 3.11
# specializes (COMPARE_OP_INT_JUMP), while against 2**64 they stay generic; the wider test
# runs only for an operand past the first (a hash's or a generator's 2**31 modulus).
SMALL = ("(-0x3fffffff <= b and b <= 0x3fffffff or "
         "-0x10000000000000000 < b < 0x10000000000000000)")
# A constant the decoder fuses is tested once, at load, and the handler then needs no test
# (tools/gen_dispatch.py facts).
SMALL_CONST = "-0x10000000000000000 < b < 0x10000000000000000"


def _arith(name, code, sym, fn, doc, zero_check=False):
    order = sym in ("<", "<=", ">", ">=")
    # A comparison's int fast path is right for an int against a float too (ops.lt is
    # `a < b` for two numbers): a fused number constant needs no type test.
    inst(name, code, (), "(a b -- r)", "next", doc, gives="bool" if order else None,
         int_path_takes_floats=order, body=_arith_body(
             sym, fn, (" and " + SMALL if sym in "*%" else "") + (" and b" if zero_check else "")))


def _equality(name, code, sym, doc):
    plain = "eq(a, b)" if sym == "==" else "not eq(a, b)"
    fn = "eq" if sym == "==" else "ops.ne"
    inst(name, code, (), "(a b -- r)", "next", doc, gives="bool", body=f"""\
if type(a) is type(b) and (type(b) is int or type(b) is str):
    r = a {sym} b
elif LABELS and (type(a) is Labeled or type(b) is Labeled):
    r = _binary(vm, {fn}, a, b, False)
else:
    r = {plain}""")


def _unary_op(name, code, fn, doc):
    inst(name, code, (), "(a -- r)", "next", doc, f"""\
if LABELS and type(a) is Labeled:
    r = _unary(vm, {fn}, a)
else:
    r = {fn}(a)""")


def _store_body(where, stamps, slot_name):
    check = "pcs and vm.pc" if where == "local" else "vm.pc"
    return f"""\
if LABELS and {check}:
    vm.site = (code, pc - 1)    # where a violation is, for its audit line (vm.where)
    _upgrade_check(vm, {_SLOTS[where]}[OP.s], {stamps}, {slot_name})
    v = _join(v, vm.pc)
{_SLOTS[where]}[OP.s] = v"""


def _store_op(name, code, where, stamps, slot_name, doc):
    inst(name, code, (f"{where} s",), "(v -- )", "next", doc, quiet="plain", slot="set",
         body=_store_body(where, stamps, slot_name))


_SLOTS = {"local": "locals_", "global": "glob"}


def _append(name, code, where, doc):
    slots = _SLOTS[where]
    unset = "" if where == "local" else """
    if x is UNSET:
        raise vm.unset_error(OP.s)"""
    stamps = "stamps" if where == "local" else "gstamps"
    slot_name = LOCAL_NAME if where == "local" else GLOBAL_NAME
    inst(name, code, (f"{where} s",), "(v -- )", "next", doc, f"""\
x = {slots}[OP.s]
if type(x) is list and (not LABELS or type(v) is not Labeled and not vm.pc) and \
        refcount(x) <= 3:
    x.append(v)
else:{unset}
    if LABELS:
        if type(x) is Labeled or type(v) is Labeled:
            r = _append_precise(vm, x, v)
        else:
            r = ops.append(x, v)
        vm.site = (code, pc - 1)
        _store(vm, {slots}, {stamps}, OP.s, r, {slot_name})
    else:
        {slots}[OP.s] = ops.append(x, v)""")


def _set_item(name, code, where, doc):
    slots = _SLOTS[where]
    unset = "" if where == "local" else """
if x is UNSET:
    raise vm.unset_error(OP.s)"""
    stamps = "stamps" if where == "local" else "gstamps"
    slot_name = LOCAL_NAME if where == "local" else GLOBAL_NAME
    inst(name, code, (f"{where} s",), "(k v -- )", "next", doc, f"""\
x = {slots}[OP.s]{unset}
if type(x) is dict and type(k) is str and refcount(x) <= 3 and (
        not LABELS or type(v) is not Labeled and not vm.pc):
    x[k] = v        # the usual case, inline: a text key into a map nothing else holds
elif (not LABELS or type(v) is not Labeled and type(k) is not Labeled and not vm.pc) and \
        refcount(x) <= 3 and ops.set_in_place(x, k, v):
    pass
elif LABELS:
    vm.site = (code, pc - 1)
    _store(vm, {slots}, {stamps}, OP.s, _set_item_precise(vm, x, k, v), {slot_name})
else:
    {slots}[OP.s] = ops.set_item(x, k, v)""")


# ---- the instructions of a file ---------------------------------------------------------

inst("CONST", 1, ("const k",), "( -- v)", "next", ".. -> .. consts[k]", "v = OP.k",
     quiet=True)
inst("POP", 2, (), "(x -- )", "next", ".. x -> ..", "", quiet=True)
inst("LOAD_LOCAL", 3, ("local s",), "( -- v)", "next", ".. -> .. locals[s]",
     "v = locals_[OP.s]", quiet=True)
_store_op("STORE_LOCAL", 4, "local", "stamps[OP.s] if stamps else 0", LOCAL_NAME,
       "set: .. x -> ..; locals[s] = x (labels: no sensitive upgrade)")
inst("DECLARE_LOCAL", 5, ("local s",), "(v -- )", "next",
     "let: .. x -> ..; locals[s] = x (labels: stamps the declaration; of a parameter's "
     "slot, a crafted file's, the decoder makes it a STORE_LOCAL)", """\
if LABELS and pcs:
    if vm.pc:
        v = _join(v, vm.pc)
    if stamps is None:
        stamps = [0] * len(locals_)
    stamps[OP.s] = vm.stamp
locals_[OP.s] = v""", quiet="plain", slot="declare",
     # A parameter's slot was declared by the call: a `let` of it (only a crafted file has
     # one) is a `set`, checked as one (no sensitive upgrade).
     decode="(STORE_LOCAL if c.labels and a[0] < c.fixed else DECLARE_LOCAL, a[0])")
inst("LOAD_GLOBAL", 6, ("global s",), "( -- v)", "next",
     ".. -> .. globals[g]; error if its let has not run yet", """\
v = glob[OP.s]
if v is UNSET:
    raise vm.unset_error(OP.s)""")
_store_op("STORE_GLOBAL", 7, "global", "gstamps[OP.s]", GLOBAL_NAME, "set: .. x -> ..; globals[g] = x")
inst("DECLARE_GLOBAL", 8, ("global s",), "(v -- )", "next", "let: .. x -> ..; globals[g] = x",
     f"""\
if LABELS and glob[OP.s] is not UNSET:
    # Each top-level `let` runs once; a second one (only in a crafted file) is a `set`,
    # checked as one.
    vm.site = (code, pc - 1)
    _store(vm, glob, gstamps, OP.s, v, {GLOBAL_NAME})
else:
    if LABELS:
        if vm.pc:
            v = _join(v, vm.pc)
        gstamps[OP.s] = vm.stamp
    glob[OP.s] = v""", slot="declare")
inst("LOAD_TASK", 9, ("func f",), "( -- t)", "next", ".. -> .. task f", None,
     decoded_as="CONST", decode="(CONST, c.tasks[a[0]])", check="task")
inst("MAKE_LAMBDA", 10, ("func f", "count n"), "(caps[n] -- fn)", "next",
     ".. c1..cn -> .. lambda f capturing c1..cn", """\
n = OP.n
if n:
    if LABELS:
        caps, labels = _plain_seq(stack[-n:])
        caps = tuple(caps)
    else:
        caps = tuple(stack[-n:])
    del stack[-n:]
else:
    caps = ()
    if LABELS:
        labels = EMPTY
# With this run's code and pads (call_value reads them).
c = Closure(OP.f, caps, decoded[OP.f], pads[OP.f])
if LABELS and labels:
    c = Labeled(c, labels)
push(c)""", raw=True, check="lambda")
_arith("ADD", 11, "+", "add", ".. a b -> .. a+b (numbers, texts, lists)")
_arith("SUB", 12, "-", "sub", ".. a b -> .. a-b")
_arith("MUL", 13, "*", "mul", ".. a b -> .. a*b")
inst("DIV", 14, (), "(a b -- r)", "next", ".. a b -> .. a/b (exact int when it divides)", """\
if LABELS and (type(a) is Labeled or type(b) is Labeled):
    r = _binary(vm, div, a, b)
else:
    r = div(a, b)""")
_arith("MOD", 15, "%", "mod", ".. a b -> .. a%b (sign of b)", zero_check=True)
_equality("EQ", 16, "==", ".. a b -> .. a==b (structural)")
_equality("NE", 17, "!=", ".. a b -> .. a!=b")
_arith("LT", 18, "<", "lt", ".. a b -> .. a<b (numbers or texts)")
_arith("LE", 19, "<=", "le", ".. a b -> .. a<=b")
_arith("GT", 20, ">", "gt", ".. a b -> .. a>b")
_arith("GE", 21, ">=", "ge", ".. a b -> .. a>=b")
_unary_op("NEG", 22, "ops.neg", ".. a -> .. -a")
_unary_op("NOT", 23, "ops.not_", ".. b -> .. not b (b must be bool)")
_INDEX_BODY = """\
if type(i) is int and (not LABELS or type(x) is not Labeled):
    # Python's x[i] answers as Synsema does for a list or a text (an index past either end
    # raises; negative ones count from the end) and for a map with the number key i; it
    # raises for everything else (a map without the key, a number, nothing...), and
    # ops.index then answers the Synsema way or says why. One type test, not two.
    try:
        r = x[i]
    except Exception:
        r = index(x, i)
elif type(x) is dict and type(i) is str:
    r = x.get(i)        # a text key is stored as itself (vm.values.norm_key)
elif LABELS and type(x) is Labeled and x.t is not None:
    r = _index_precise(vm, x, i)
elif LABELS and (type(x) is Labeled or type(i) is Labeled):
    r = _binary(vm, index, x, i)
else:
    r = index(x, i)"""
inst("INDEX", 24, (), "(x i -- r)", "next", ".. x i -> .. x[i]", _INDEX_BODY)
inst("FIELD", 25, ("const k",), "(x -- r)", "next",
     ".. m -> .. m[consts[k]] (nothing when absent)", """\
if type(x) is dict:
    r = x.get(OP.k)
elif LABELS and type(x) is Labeled and type(x.v) is dict and x.t is not None:
    r = P.element(x, x.v.get(OP.k), OP.k, EMPTY)
elif LABELS and type(x) is Labeled:
    r = _unary(vm, ops.field, x, OP.k)
else:
    r = ops.field(x, OP.k)""", check="text_const")
inst("SET_PATH", 26, ("count n",), "(x keys[n] v -- r)", "next",
     ".. x k1..kn v -> .. copy of x with x[k1]..[kn] = v", """\
n = OP.n
v = pop()
if not n:     # verified files never have 0 keys; never eat the stack
    raise vm.bad_opcode(op)
keys = stack[-n:]
del stack[-n:]
if LABELS:
    items, labels = _plain_seq([stack[-1], v] + keys)
    if labels and vm.try_entries:
        taint_try(vm, _plain_seq([stack[-1]] + keys)[1])
    r = _raise_labelled(vm, labels, ops.set_path, items[0], items[2:], items[1])
    stack[-1] = Labeled(r, labels) if labels else r
else:
    stack[-1] = ops.set_path(stack[-1], keys, v)""", raw=True, min_count="at least one key")
inst("BUILD_LIST", 27, ("count n",), "(items[n] -- xs)", "next", ".. x1..xn -> .. [x1..xn]", """\
n = OP.n
if n:
    items = stack[-n:]
    del stack[-n:]
    # Labels: unlabelled items under an empty pc make a plain list (the test runs in C).
    if LABELS and (vm.pc or Labeled in map(type, items)):
        items = P.build_list(items, vm.pc)
    push(items)
else:
    push([])""", raw=True)
inst("BUILD_MAP", 28, ("count n",), "(pairs[2*n] -- m)", "next",
     ".. k1 v1..kn vn -> .. {k1: v1, ..}", """\
n = OP.n
if not n:
    push({})
elif LABELS and (vm.pc or Labeled in map(type, stack[-2 * n:])):
    raw = stack[-2 * n:]
    items, labels = _plain_seq(raw)
    del stack[-2 * n:]
    klabels = EMPTY
    if labels:
        # Building raises only for a key of the wrong type, so the keys' labels (never
        # the values') decide whether it does.
        klabels = _plain_seq(raw[0::2])[1]
        if klabels and vm.try_entries:
            taint_try(vm, klabels)
    m = _raise_labelled(vm, klabels, ops.build_map, items)
    push(P.build_map(raw, m, vm.pc | klabels) if labels or vm.pc else m)
else:
    items = stack[-2 * n:]
    del stack[-2 * n:]
    push(ops.build_map(items))""", raw=True)
inst("JUMP", 29, ("jump t",), "( -- )", "jump", "pc = t", "JUMP(OP.t)",
     decode="(JUMP_BACK if c.at[a[0]] <= c.here else JUMP, c.at[a[0]])")
inst("JUMP_IF_FALSE", 30, ("jump t", "rid rid"), "(c -- )", "branch",
     ".. c -> ..; if c is false: pc = t (c must be bool)", """\
if LABELS and type(c) is Labeled:
    push_pc(vm, c.l, base_depth + len(frames), OP.rid)
    c = c.v
if c is False:
    JUMP(OP.t)
elif c is not True:
    raise vm.cond_error(code, pc - 1, c)""", quiet="bool")
for _name, _code, _jumps, _word, _doc in (
        ("AND_JUMP", 31, "False", "and",
         "`and`: .. c -> .. c and pc = t if c is false; else .. (c must be bool)"),
        ("OR_JUMP", 32, "True", "or", "`or`: .. c -> .. c and pc = t if c is true; else ..")):
    inst(_name, _code, ("jump t", "rid rid"), "(c -- )", "keep_or_pop", _doc, f"""\
c = stack[-1]
if LABELS and type(c) is Labeled:
    push_pc(vm, c.l, base_depth + len(frames), OP.rid)
    c = c.v
if c is {_jumps}:
    JUMP(OP.t)
elif c is {"True" if _jumps == "False" else "False"}:
    pop()
else:
    raise SynError(f"{_word} needs a bool, got {{ops.type_name(c)}}")""", raw=True)
inst("CHECK_BOOL", 33, ("const k",), "(c -- c)", "next",
     ".. c -> .. c; error `WORD needs a bool` unless c is bool", """\
v = stack[-1]
if LABELS and type(v) is Labeled:
    # `and`/`or`'s right operand: whether it raises tells its type.
    if vm.try_entries:
        taint_try(vm, v.l)
    if v.v is not True and v.v is not False:
        _unary(vm, ops.check_bool, v, OP.k)
elif v is not True and v is not False:
    ops.check_bool(v, OP.k)
if LABELS and vm.pc:
    stack[-1] = _join(v, vm.pc)""", raw=True, check="text_const")
inst("ITER_START", 34, ("rid rid",), "(coll -- it)", "next",
     ".. coll -> .. iterator over a list's items, a map's keys or a text's characters", """\
if LABELS and type(coll) is Labeled:
    # The shape decides how many rounds (and a map's keys are in it); each list item
    # brings its own label (vm.precise).
    shape = coll.t[0] if coll.t is not None else coll.l
    if vm.try_entries:
        taint_try(vm, shape)
    push_pc(vm, shape, base_depth + len(frames), OP.rid)
    it = _raise_labelled(vm, shape, ops.iterate, coll.v)
    if coll.t is not None and type(coll.v) is list:
        it = P.iterate(coll, it)
else:
    it = ops.iterate(coll)""")
inst("FOR_ITER", 35, ("jump t",), "(it -- it v)", "for_iter",
     ".. it -> .. it item; when exhausted: .. and pc = t", quiet=True, body="""\
v = next(it, UNSET)
if v is UNSET:
    pop()
    JUMP(OP.t)""", effect=(1, 0))
inst("CALL", 36, ("count n",), "(f args[n] -- r)", "next", ".. f a1..an -> .. f(a1..an)", """\
n = OP.n
if n == 1:          # a lambda's usual call: no slices
    new = [pop()]
    callee = pop()
elif n == 2:
    b = pop()
    new = [pop(), b]
    callee = pop()
else:
    callee = stack[-n - 1]
    new = stack[-n:] if n else []
    del stack[-n - 1:]
FRAGMENT.call_value()""", raw=True)
FRAGMENTS["call_value"] = """\
if LABELS:
    clab = EMPTY
    if type(callee) is Labeled:
        clab = callee.l
        callee = callee.v
        if vm.try_entries:
            taint_try(vm, clab)
if type(callee) is not Closure:
    if type(callee) is HostFn:
        vm.site = (code, pc - 1)
        push(vm.call_host(callee, new, clab) if LABELS else vm.call_host(callee, new))
        continue
    if LABELS:
        _raise_labelled(vm, clab, ops.not_callable, callee)
    else:
        ops.not_callable(callee)
# The callee's decoded code and frame pads: on the closure when this run made it (a
# lambda, a task value), else the run's tables (two dictionary reads a call fewer).
fcode = callee.code
if fcode is None:
    f = callee.func
    fcode, fpads = decoded[f], pads[f]
else:
    fpads = callee.pads
# The frame pad for this many arguments; FramePads raises the arity error for a count f
# does not take (with the callee's labels: the call depends on them).
if LABELS and clab:
    pad = _raise_labelled(vm, clab, fpads.__getitem__, n)
else:
    pad = fpads[n]
FRAGMENT.charge_call()
if LABELS and clab:    # before the parameters are stamped: they are the call's
    push_pc(vm, clab, base_depth + len(frames), 0)
code = fcode
locals_ = new + pad if pad else new     # a lambda seldom has `let` slots
if callee.captures:
    locals_ += callee.captures
FRAGMENT.stamp_new()
pc = 0"""
inst("CALL_TASK", 37, ("func f", "count n"), "(args[n] -- r)", "next",
     ".. a1..an -> .. task f(a1..an)", """\
n = OP.n
if n == 1:
    new = [pop()]
elif n == 2:        # two pops cost about half a slice and its deletion
    b = pop()
    new = [pop(), b]
elif n:
    new = stack[-n:]
    del stack[-n:]
else:
    new = []
FRAGMENT.enter_task()""", raw=True, fields="callee n pad fcode", check="task_call",
     decode="(CALL_TASK, (c.functions[a[0]], a[1], c.pads[c.functions[a[0]]][a[1]], None))")
inst("CALL_BUILTIN", 38, ("builtin b", "count n"), "(args[n] -- r)", "next",
     ".. a1..an -> .. builtin b(a1..an)", """\
fn = OP.fn
n = OP.n
# A pure builtin. Labels: called as the plain loop calls it when no label is involved (no
# labelled argument, an empty pc); otherwise its wrapper joins and attaches the labels.
# One to three arguments: the decoder makes it CALL_BUILTIN_1..3 (no slices).
if n:
    a = stack[-n:]
    del stack[-n:]
    if LABELS and (vm.pc or Labeled in map(type, a)):
        push(OP.labelled(vm, *a))
    else:
        push(fn(*a))
elif LABELS and vm.pc:
    push(OP.labelled(vm))
else:
    push(fn())""", raw=True, fields="fn n +labelled", check="builtin_arity",
     decode="(CALL_VM_BUILTIN if c.builtins[a[0]][1] else CALL_BUILTIN, "
            "(c.builtins[a[0]][0], a[1], *c.builtins[a[0]][2:]))")
inst("RETURN", 39, (), "(val -- )", "return", ".. x -> return x to the caller", """\
if LABELS and pcs:
    if vm.pc:
        val = _join(val, vm.pc)
    drop_frames(vm, base_depth + len(frames))
if not frames:
    return val
if LABELS:
    code, pc, locals_, stamps = frames.pop()
else:
    code, pc, locals_ = frames.pop()
push(val)""", quiet=True)
inst("TRY_BEGIN", 40, ("jump t", "rid rid"), "( -- )", "try",
     "push a handler: a catchable error resets the stack to here, pushes its message, pc = t",
     """\
if LABELS:
    vm.stamp += 1
    entry = [EMPTY, base_depth + len(frames), OP.rid, vm.stamp, True]
    vm.pc_stack.append(entry)
    vm.try_entries.append(entry)
    handlers.append((OP.t, len(stack), len(frames), entry))
else:
    handlers.append((OP.t, len(stack), len(frames)))""")
inst("TRY_END", 41, (), "( -- )", "next", "pop the innermost handler of this function", """\
if LABELS:
    entry = handlers.pop()[3]
    if entry in vm.try_entries:
        vm.try_entries.remove(entry)
else:
    handlers.pop()""")
inst("PC_RELEASE", 42, ("rid rid",), "( -- )", "next",
     "labels: drop the pc labels raised with this release id", """\
if pcs:     # vm.pc_stack, mutated in place only
    release(vm, base_depth + len(frames), OP.rid)""", labels_only=True, quiet=True)
inst("JUMP_IF_SET", 43, ("local s", "jump t"), "( -- )", "branch",
     "if parameter s was passed: pc = t (skips its default)", """\
if locals_[OP.s] is not UNSET:
    JUMP(OP.t)""", slot="test", check="param_default")
_append("APPEND_LOCAL", 44, "local",
        "`set x to append(x, v)`: .. v -> ..; locals[s] = locals[s] + [v] (in place when no "
        "one else holds the list)")
_append("APPEND_GLOBAL", 45, "global", "the same for a top-level variable")
_set_item("SET_ITEM_LOCAL", 46, "local",
          "`set x[k] to v`: .. k v -> ..; locals[s] = copy of it with [k] = v (in place when "
          "no one else holds it)")
_set_item("SET_ITEM_GLOBAL", 47, "global", "the same for a top-level variable")
inst("DROP_UNDER", 48, ("count n",), "(drop[n] v -- v)", "next",
     ".. x1..xn v -> .. v (a `give` leaving `for each` loops drops their iterators)", """\
v = pop()
del stack[-OP.n:]
push(v)""", raw=True, min_count="at least one value to drop")

# `set s to s + E` of a local (compiler/codegen.py): E, then this. Nothing E does can
# change s (only the statements of the function that owns a variable set it; a task
# cannot set a top-level one), so reading s after E is reading it before: one
# instruction instead of a load, an ADD and a store. Its position is the `+`'s (an
# addition's error carets the operator); a label violation of the store, on the same
# line, says that line as the store's would.
inst("ADD_TO_LOCAL", 49, ("local s",), "(b -- )", "next",
     "`set s to s + b`: .. b -> ..; locals[s] = locals[s] + b (labels: as STORE_LOCAL)",
     "a = locals_[OP.s]\n" + _arith_body("+", "add") + "\nv = r\n" +
     _store_body("local", "stamps[OP.s] if stamps else 0", LOCAL_NAME))

# `xs[E]` of a local xs (compiler/codegen.py): E, then this, one dispatch fewer than a load
# before E and an INDEX after it. Reading xs after E is reading it before, for the reason
# ADD_TO_LOCAL gives: nothing E does can set xs.
inst("INDEX_LOCAL", 50, ("local s",), "(i -- r)", "next",
     "`xs[E]` of a local xs: .. i -> .. locals[s][i]", "x = locals_[OP.s]\n" + _INDEX_BODY)
# A map literal whose keys are all texts (records, a tool's arguments, JSON): the keys are
# n constants in a row from k, so only the values are pushed (one dispatch fewer a key
# after the first, and no key tests). The decoder makes the keys a tuple.
inst("BUILD_MAP_KEYS", 51, ("const k", "count n"), "(values[n] -- m)", "next",
     ".. v1..vn -> .. {consts[k]: v1, .., consts[k+n-1]: vn} (the keys are texts)", """\
keys = OP.keys
n = OP.n
if LABELS and (vm.pc or Labeled in map(type, stack[-n:])):
    raw = [x for kv in zip(keys, stack[-n:]) for x in kv]
    del stack[-n:]
    items, labels = _plain_seq(raw)
    m = ops.build_map(items)
    push(P.build_map(raw, m, vm.pc) if labels or vm.pc else m)
else:
    m = dict(zip(keys, stack[-n:]))
    del stack[-n:]
    push(m)""", raw=True, fields="keys n", check="map_keys", min_count="at least one key",
     decode="(BUILD_MAP_KEYS, (tuple(c.consts[a[0]:a[0] + a[1]]), a[1]))")

# ---- internal instructions: made by the decoder ---------------------------------------

inst("JUMP_BACK", 100, ("jump t",), "( -- )", "jump",
     "a backward JUMP: also where step and time limits are checked", """\
budget -= pc - OP.t
if budget <= 0:
    budget = vm.tick(budget, room - len(frames))
JUMP(OP.t)""")
inst("CALL_VM_BUILTIN", 101, ("builtin b", "count n"), "(args[n] -- r)", "next",
     "CALL_BUILTIN of a builtin that needs the VM (capabilities, calls)", """\
fn = OP.fn
n = OP.n
if n:
    a = stack[-n:]
    del stack[-n:]
else:
    a = ()
vm.depth = base_depth + len(frames) + 1
vm.site = (code, pc - 1)
try:
    push(fn(vm, *a))
finally:
    vm.depth = base_depth""", raw=True, fields="fn n")
# Parts of superinstructions only (no number: never decoded on their own).
inst("CMP", None, (), "(a b -- r)", "next", "LE|GT|GE|EQ|NE by kind", """\
if LABELS and (type(a) is Labeled or type(b) is Labeled):
    r = _binary(vm, _CMP[OP.kind], a, b, OP.kind < 3)
else:
    r = compare(OP.kind, a, b)""", gives="bool", fields="kind", matches={"LE": 0, "GT": 1, "GE": 2, "EQ": 3,
                                                         "NE": 4})
inst("CALL_TASK1", None, (), "(x -- )", "call", "CALL_TASK with one argument", """\
new = [x]
FRAGMENT.enter_task()""", fields="callee n pad fcode", matches={"CALL_TASK": None},
     match_when="A[{i}][1] == 1")
inst("CALL1", None, (), "(callee x -- )", "next", "CALL with one argument", """\
new = [x]
n = 1
FRAGMENT.call_value()""", fields="n", matches={"CALL": None}, match_when="A[{i}][0] == 1")


def _call_builtin_part(n):
    args = ", ".join("abc"[:n])
    labelled = " or ".join(f"type({x}) is Labeled" for x in "abc"[:n])
    inst(f"CALL_BUILTIN{n}", None, (), f"({' '.join('abc'[:n])} -- r)", "next",
         f"CALL_BUILTIN with {n} argument{'s' if n > 1 else ''}", f"""\
if LABELS and ({labelled} or vm.pc):
    r = OP.labelled(vm, {args})
else:
    r = OP.fn({args})""", fields="fn n +labelled", matches={"CALL_BUILTIN": None},
         match_when=f"A[{{i}}][1] == {n}")


for _n in (1, 2, 3):
    _call_builtin_part(_n)

# ---- superinstructions -------------------------------------------------------------------
# A builtin call of one to three arguments, the parts above alone: their values are popped
# into variables, not sliced off the stack.
for _n in (1, 2, 3):
    fused(f"CALL_BUILTIN_{_n}", 149 + _n, f"CALL_BUILTIN{_n}", f"CALL_BUILTIN b {_n}")

# Chosen by profiling instruction sequences over a corpus (tools/profile_pairs.py):
# L = a local slot, C = a constant. Arithmetic fuses with integer constants only (the int
# fast path adds an int local to the constant inline; a float could overflow past ops').

_INT_C = "type(A[1][0]) is int and " + SMALL_CONST.replace("b", "A[1][0]")
_NUM_C = "type(A[1][0]) in (int, float)"
fused("LOAD_LOCAL2", 102, "LOAD_LOCAL LOAD_LOCAL", "LOAD_LOCAL a; LOAD_LOCAL b",
      when="not better_later(code, i, n, targets)", at=0)
fused("ADD_LL", 103, "LOAD_LOCAL LOAD_LOCAL ADD", "LOAD_LOCAL a; LOAD_LOCAL b; ADD")
fused("ADD_LC", 104, "LOAD_LOCAL CONST ADD", "LOAD_LOCAL a; CONST c; ADD",
      when="type(A[1][0]) in (int, str)")
fused("SUB_LC", 105, "LOAD_LOCAL CONST SUB", "LOAD_LOCAL a; CONST c; SUB", when=_INT_C)
fused("MOD_LC", 106, "LOAD_LOCAL CONST MOD", "LOAD_LOCAL a; CONST c; MOD",
      when=_INT_C + " and A[1][0]")
fused("ADD_LL_ST", 107, "LOAD_LOCAL LOAD_LOCAL ADD STORE_LOCAL",
      "LOAD_LOCAL a; LOAD_LOCAL b; ADD; STORE_LOCAL s")
fused("ADD_LC_ST", 108, "LOAD_LOCAL CONST ADD STORE_LOCAL",
      "LOAD_LOCAL a; CONST c; ADD; STORE_LOCAL s", when=_INT_C)
fused("SUB_LC_ST", 109, "LOAD_LOCAL CONST SUB STORE_LOCAL",
      "LOAD_LOCAL a; CONST c; SUB; STORE_LOCAL s", when=_INT_C)
fused("LT_LL_JF", 110, "LOAD_LOCAL LOAD_LOCAL LT JUMP_IF_FALSE",
      "LOAD_LOCAL a; LOAD_LOCAL b; LT; JUMP_IF_FALSE t")
fused("LT_LC_JF", 111, "LOAD_LOCAL CONST LT JUMP_IF_FALSE",
      "LOAD_LOCAL a; CONST c; LT; JUMP_IF_FALSE t", when=_NUM_C)
fused("CMP_LC_JF", 112, "LOAD_LOCAL CONST CMP JUMP_IF_FALSE",
      "LOAD_LOCAL a; CONST c; LE|GT|GE|EQ|NE; JUMP_IF_FALSE t", when=_NUM_C)
fused("EQ_C_JF", 113, "CONST EQ JUMP_IF_FALSE", "CONST c; EQ; JUMP_IF_FALSE t",
      when="type(A[0][0]) in (int, str)", at=1)
fused("RETURN_LOCAL", 114, "LOAD_LOCAL RETURN", "LOAD_LOCAL a; RETURN")
# The most frequent pair left across the corpus (5.5%): the `give nothing` that ends every
# task without a `give` (and the top level).
fused("RETURN_CONST", 174, "CONST RETURN", "CONST c; RETURN")
fused("FOR_ITER_DECL", 115, "FOR_ITER DECLARE_LOCAL", "FOR_ITER t; DECLARE_LOCAL s", at=0)
fused("CMP_LL_JF", 116, "LOAD_LOCAL LOAD_LOCAL CMP JUMP_IF_FALSE",
      "LOAD_LOCAL a; LOAD_LOCAL b; LE|GT|GE|EQ|NE; JUMP_IF_FALSE t")
fused("CALL1_SUB_LC", 117, "LOAD_LOCAL CONST SUB CALL_TASK1",
      "LOAD_LOCAL a; CONST c; SUB; CALL_TASK f 1 (recursion on n - 1)", when=_INT_C, at=3)
fused("ADD_RETURN", 118, "ADD RETURN", "ADD; RETURN", at=0)
fused("MUL_LC", 119, "LOAD_LOCAL CONST MUL", "LOAD_LOCAL a; CONST c; MUL", when=_INT_C)
fused("SUB_LL_ST", 120, "LOAD_LOCAL LOAD_LOCAL SUB STORE_LOCAL",
      "LOAD_LOCAL a; LOAD_LOCAL b; SUB; STORE_LOCAL s")
fused("ADD_ST", 121, "ADD STORE_LOCAL", "ADD; STORE_LOCAL s", at=0)
fused("SUB_ST", 122, "SUB STORE_LOCAL", "SUB; STORE_LOCAL s", at=0)
fused("MOD_LC_EQ_C_JF", 123, "LOAD_LOCAL CONST MOD CONST EQ JUMP_IF_FALSE",
      "LOAD_LOCAL a; CONST m; MOD; CONST c; EQ; JUMP_IF_FALSE t",
      when=_INT_C + " and A[1][0] and type(A[3][0]) in (int, str)")
# Reading an element or a field of a local (xs[i], m[k], m.name): chosen by
# tools/profile_pairs.py --general (about 4% of the general programs' instructions each).
fused("INDEX_L", 125, "LOAD_LOCAL INDEX", "LOAD_LOCAL i; INDEX")
fused("INDEX_LL", 126, "LOAD_LOCAL LOAD_LOCAL INDEX", "LOAD_LOCAL x; LOAD_LOCAL i; INDEX")
fused("FIELD_L", 127, "LOAD_LOCAL FIELD", "LOAD_LOCAL m; FIELD k")
# Nested lists (a matrix, a grid, a table of rows): x[i][k] of locals.
fused("INDEX_LLL", 131, "LOAD_LOCAL LOAD_LOCAL INDEX LOAD_LOCAL INDEX",
      "LOAD_LOCAL x; LOAD_LOCAL i; INDEX; LOAD_LOCAL k; INDEX (x[i][k])")
# A builtin of a local (len(xs), text(n), upper(w)); `x + 1` and `s + "text"` of any
# x and s; a product summed into a local (`set s to s + a * b`, a dot product).
# A task value or lambda in a local called on a local (`f(x)`).
fused("CALL1_LL", 136, "LOAD_LOCAL LOAD_LOCAL CALL1", "LOAD_LOCAL f; LOAD_LOCAL x; CALL 1")
fused("CALL_BUILTIN1_L", 133, "LOAD_LOCAL CALL_BUILTIN1", "LOAD_LOCAL a; CALL_BUILTIN b 1")
fused("ADD_C", 134, "CONST ADD", "CONST c; ADD", when="type(A[0][0]) in (int, str)", at=1)
fused("CMP_C", 137, "CONST CMP", "CONST c; LE|GT|GE|EQ|NE (x >= 30 of any x)",
      when="type(A[0][0]) in (int, float, str)", at=1)
fused("LT_C", 138, "CONST LT", "CONST c; LT", when="type(A[0][0]) in (int, float)", at=1)
fused("CALL_BUILTIN2_C", 139, "CONST CALL_BUILTIN2",
      "CONST c; CALL_BUILTIN b 2 (split(t, \" \"))", at=1)
fused("CALL_BUILTIN3_C", 145, "CONST CALL_BUILTIN3", "CONST c; CALL_BUILTIN b 3", at=1)
fused("CALL_BUILTIN3_LLC", 146, "LOAD_LOCAL LOAD_LOCAL CONST CALL_BUILTIN3",
      "LOAD_LOCAL m; LOAD_LOCAL k; CONST c; CALL_BUILTIN b 3 (get(m, k, 0))")
fused("MUL_ADD_TO", 135, "MUL ADD_TO_LOCAL", "MUL; ADD_TO_LOCAL s", at=1)
# `let x be xs[i]` of any xs and i; a count kept in a map (`set m[k] to get(m, k, 0) + 1`).
fused("INDEX_DECL", 140, "INDEX DECLARE_LOCAL", "INDEX; DECLARE_LOCAL s", at=0)
fused("ADD_C_SET_ITEM", 141, "CONST ADD SET_ITEM_LOCAL", "CONST c; ADD; SET_ITEM_LOCAL s",
      when="type(A[0][0]) is int", at=1)
# A small task or lambda's `give x + 1` / `x - 1` / `x * 2` ((x) => x * 2).
fused("ADD_LC_RET", 142, "LOAD_LOCAL CONST ADD RETURN", "LOAD_LOCAL a; CONST c; ADD; RETURN",
      when=_INT_C)
fused("SUB_LC_RET", 143, "LOAD_LOCAL CONST SUB RETURN", "LOAD_LOCAL a; CONST c; SUB; RETURN",
      when=_INT_C)
fused("MUL_LC_RET", 144, "LOAD_LOCAL CONST MUL RETURN", "LOAD_LOCAL a; CONST c; MUL; RETURN",
      when=_INT_C)
# `let w be xs[E]` and a builtin of it (`upper(xs[(i * 3) % n])`) of a local xs.
fused("INDEX_LOCAL_DECL", 170, "INDEX_LOCAL DECLARE_LOCAL", "INDEX_LOCAL xs; DECLARE_LOCAL s",
      at=0)
fused("INDEX_LOCAL_CALL1", 171, "INDEX_LOCAL CALL_BUILTIN1", "INDEX_LOCAL xs; CALL_BUILTIN b 1",
      at=1)
# A builtin of an element or a field (upper(words[i]), len(rows[i]), text(m.n)).
fused("INDEX_CALL1", 148, "INDEX CALL_BUILTIN1", "INDEX; CALL_BUILTIN b 1", at=1)
fused("FIELD_CALL1", 149, "FIELD CALL_BUILTIN1", "FIELD k; CALL_BUILTIN b 1", at=1)
# `when a and b`: the right operand's check, then the branch.
fused("CHECK_BOOL_JF", 147, "CHECK_BOOL JUMP_IF_FALSE", "CHECK_BOOL k; JUMP_IF_FALSE t", at=0)
# Every `for each` body ends with a jump back to the loop's head (FOR_ITER_DECL): the
# jump runs the head in its place and goes on into the body, one dispatch fewer a round.
fused("FOR_BACK", 132, "JUMP_BACK FOR_ITER DECLARE_LOCAL",
      "JUMP_BACK t to FOR_ITER_DECL: its step charge, then the head's next item", threaded=True)
# The statement that ends a `for each` body, and the jump back: the decoder makes a
# statement followed by FOR_BACK this (the FOR_BACK stays for the paths that jump to it,
# an `otherwise`'s end or a `when` not taken), one dispatch fewer a round. The statements
# are the stores that end loop bodies most (tools/profile_pairs.py: a sum, a count, an
# append, a map entry, a dot product).
def _fused(name):
    """The superinstruction of that name, or None (an instruction)."""
    return next((f for f in FUSED if f["name"] == name), None)


def _parts(name):
    f = _fused(name)
    return f["parts"] if f else [name]


def _known(name, off):
    """What the decoder checked before it made superinstruction `name` (its `when`, and
    what its own parts' makers checked), as a `when` over the fields of a composition in
    which its parts start at part `off`: a composition of superinstructions is made from
    them, so their conditions hold in it too (tools/gen_dispatch.py facts reads them)."""
    f = _fused(name)
    if f is None:
        return "True"
    conds = " and ".join(c for c in (f["when"], f.get("known", "True")) if c != "True")
    return re.sub(r"A\[(\d+)\]", lambda m: f"A[{int(m.group(1)) + off}]", conds) or "True"


def _tail(name, code, head, back="FOR_BACK", **more):
    f = _fused(head)
    parts = _parts(head)
    at = 0 if f is None else f["at"] if f["at"] is not None else next(
        i for i, p in enumerate(parts) if p not in ("LOAD_LOCAL", "CONST"))
    known = " and ".join(c for c in (_known(head, 0), _known(back, len(parts))) if c != "True")
    fused(name, code, " ".join(parts + _parts(back)), f"{head}; {back}", at=at,
          threaded=back != "PC_RELEASE", tail=(head, back), known=known or "True", **more)


_tail("STORE_LOCAL_BACK", 154, "STORE_LOCAL")
_tail("ADD_TO_LOCAL_BACK", 155, "ADD_TO_LOCAL")
_tail("ADD_LL_ST_BACK", 156, "ADD_LL_ST")
_tail("ADD_LC_ST_BACK", 157, "ADD_LC_ST")
_tail("APPEND_LOCAL_BACK", 158, "APPEND_LOCAL")
_tail("SET_ITEM_LOCAL_BACK", 159, "SET_ITEM_LOCAL")
_tail("ADD_C_SET_ITEM_BACK", 160, "ADD_C_SET_ITEM")
_tail("MUL_ADD_TO_BACK", 161, "MUL_ADD_TO")
# Labels: a `when` that ends a loop body releases its pc just before the jump back; the
# release runs in the jump's instruction (both paths, the branch's and the jump past it,
# reach it).
_tail("RELEASE_BACK", 169, "PC_RELEASE", labels_only=True)
# Labels: the store that ends a `when` branch, then the release of its pc (the release
# stays for the paths that jump to it: the condition false, an `otherwise`'s end).
_tail("ADD_LC_ST_REL", 172, "ADD_LC_ST", "PC_RELEASE", labels_only=True)
_tail("STORE_LOCAL_REL", 173, "STORE_LOCAL", "PC_RELEASE", labels_only=True)
# A `while` loop's jump back to its test, when the test is a comparison of a local (whose
# result is a bool, so the branch never raises): the test runs in the jump's place. And
# the counter step that ends most such loops (`set i to i + 1` before `while i < n`).
for _name, _code, _head in (("LT_LC_BACK", 162, "LT_LC_JF"), ("LT_LL_BACK", 163, "LT_LL_JF"),
                            ("CMP_LC_BACK", 164, "CMP_LC_JF"),
                            ("CMP_LL_BACK", 165, "CMP_LL_JF")):
    fused(_name, _code, "JUMP_BACK " + " ".join(_parts(_head)),
          f"JUMP_BACK t to {_head}: its step charge, then the test", threaded=True,
          known=_known(_head, 1))
_tail("ADD_LC_ST_LT_LC_BACK", 166, "ADD_LC_ST", "LT_LC_BACK")
_tail("ADD_LC_ST_LT_LL_BACK", 167, "ADD_LC_ST", "LT_LL_BACK")
_tail("SUB_LC_ST_CMP_LC_BACK", 168, "SUB_LC_ST", "CMP_LC_BACK")
# Labels: the end of a `when` branch jumps over its `otherwise` to where the condition's
# pc is released; the jump releases it in place, one dispatch fewer on that path.
fused("JUMP_RELEASE", 153, "JUMP PC_RELEASE", "JUMP t to PC_RELEASE r: the release, then on",
      threaded=True, labels_only=True)
# Across the whole corpus (tools/profile_pairs.py, each program weighing the same): a
# statement calling a builtin for its effect (print), constants in a row (map and list
# literals, arguments) and a variable used right after its `let`.
fused("CALL_VM_BUILTIN_POP", 128, "CALL_VM_BUILTIN POP", "CALL_VM_BUILTIN b n; POP", at=0)
fused("CONST2", 129, "CONST CONST", "CONST a; CONST b")
fused("DECLARE_LOCAL_LOAD", 130, "DECLARE_LOCAL LOAD_LOCAL", "DECLARE_LOCAL s; LOAD_LOCAL t",
      at=0)
fused("LT_LC_RET_LOCAL", 124, "LOAD_LOCAL CONST LT JUMP_IF_FALSE LOAD_LOCAL RETURN",
      "LOAD_LOCAL a; CONST c; LT; JUMP_IF_FALSE past; LOAD_LOCAL b; RETURN (a base case: "
      "`when n < c` then `give b`)", when=_NUM_C + " and A[3][0] == i + 6")

# ---- the loop around the instructions -----------------------------------------------------
# Valid Python, as the bodies are (LABELS folded the same way). `DISPATCH()` is where the
# generator puts the instructions, as a tree of range tests (op < K) balanced by how often
# each runs (tools/gen_dispatch.py WEIGHT); the parameter `HOISTED` where it puts the names
# the handlers read as locals (tools/gen_dispatch.py HOISTED); `run` is named run_labels or
# run_plain.

LOOP = '''\
import sys

from synsema.vm import ops
from synsema.vm.errors import SynError
from synsema.vm.values import UNSET, Closure, HostFn
if LABELS:
    from synsema.vm import precise as P
    from synsema.vm.errors import EMPTY
    from synsema.vm.labels import (_CMP, _append_precise, _binary, _index_precise, _join,
                                   _local_name, _plain_seq, _raise_labelled,
                                   _set_item_precise, _store, _unary, _upgrade_check,
                                   _withhold_frames, caught, drop_frames, push_pc, release,
                                   taint_try)
    from synsema.vm.values import Labeled


def run(vm, closure, args, HOISTED):
    if LABELS:
        clabels = EMPTY
        if type(closure) is Labeled:   # never from the loop itself; defensive for builtins
            clabels, closure = closure.l, closure.v
    func = closure.func
    code = vm.decoded[func]
    if func.kind == "main":
        locals_ = vm.globals    # the top level's variables are the program's globals
    else:
        locals_ = args + vm.pads[func][len(args)]
        if closure.captures:
            locals_ += closure.captures
    if LABELS:
        pcs = vm.pc_stack       # mutated in place only, so a local alias stays current
        stamps = [vm.stamp] * len(locals_) if pcs else None
        gstamps = vm.global_stamps
    stack = []
    frames = []              # (code, pc, locals, and with labels stamps) of the callers
    handlers = []            # (target, stack depth, frame depth, [try entry]) of open tries
    pc = 0
    glob = vm.globals
    decoded, pads = vm.decoded, vm.pads     # a called value's code and frame pads
    base_depth = vm.depth
    room = vm.max_depth - base_depth
    # Calls are charged a step each and the budget never exceeds the calls the depth
    # limit still allows (vm.take_budget): a call checks the depth only when it ticks.
    budget = vm.take_budget(room)
    push = stack.append
    pop = stack.pop
    add, sub, mul, div, mod = ops.add, ops.sub, ops.mul, ops.div, ops.mod
    lt, le, gt, ge, eq = ops.lt, ops.le, ops.gt, ops.ge, ops.eq
    index = ops.index
    compare = ops.compare_kind
    refcount = sys.getrefcount
    if LABELS and clabels:
        push_pc(vm, clabels, base_depth, 0)
    try:
        while True:
            try:
                while True:
                    op, arg = code[pc]
                    pc += 1
                    DISPATCH()
            except Exception as exc:  # noqa: BLE001 - every error is turned into a SynError
                err = vm.as_error(exc)
                if LABELS and vm.pc:
                    err.labels = err.labels | vm.pc
                vm.trace_frame(err, code, pc - 1)
                if not err.catchable or not handlers:
                    for fr in reversed(frames):
                        vm.trace_frame(err, fr[0], fr[1] - 1)
                    if LABELS and vm.pc:
                        _withhold_frames(err, pcs, base_depth, len(frames))
                    raise err from None
                # The innermost open try, in this frame or one below: unwind to it.
                if LABELS:
                    target, depth, frame_depth, entry = handlers.pop()
                    while len(frames) > frame_depth:
                        code, pc, locals_, stamps = frames.pop()
                else:
                    target, depth, frame_depth = handlers.pop()
                    while len(frames) > frame_depth:
                        code, pc, locals_ = frames.pop()
                del stack[depth:]
                if LABELS:
                    # The try entry holds every label raised inside the block; entries
                    # above it (from the block and the tasks it called) are merged into
                    # it (one rule for both tiers: vm.labels.caught).
                    caught(vm, entry, err.labels)
                err.trace.clear()
                err.secret_frames = 0
                if LABELS and err.labels:
                    push(Labeled(err.message, err.labels))
                else:
                    push(err.message)
                pc = target
    finally:
        vm.return_budget(budget)
        if LABELS and vm.pc_stack:
            drop_frames(vm, base_depth)
'''
