"""GENERATED from vm/loop_labels.py by tools/gen_dispatch.py: do not edit.

The same loop with its `if op == N` chain rewritten as a tree of range tests
balanced by instruction frequency (see tools/gen_dispatch.py)."""
import sys

from synsema.vm import ops
from synsema.vm.errors import EMPTY, SynError
from synsema.vm import precise as P
from synsema.vm.values import UNSET, Closure, HostFn, Labeled, norm_key


# ---- the pc stack --------------------------------------------------------------------------

def _recompute(vm):
    pc = EMPTY
    for e in vm.pc_stack:
        if e[0]:
            pc = pc | e[0]
    vm.pc = pc


def push_pc(vm, labels, depth, rid):
    """Raise the pc by `labels` until (depth, rid) is released."""
    st = vm.pc_stack
    vm.stamp += 1
    if st and st[-1][1] == depth and st[-1][2] == rid and not st[-1][4]:
        top = st[-1]
        top[0] = top[0] | labels
        top[3] = vm.stamp
    else:
        st.append([labels, depth, rid, vm.stamp, False])
    if vm.try_entries:
        for t in vm.try_entries:
            t[0] = t[0] | labels
    vm.pc = vm.pc | labels


def taint_try(vm, labels):
    """Inside a try block, labels that decide whether an operation raises stay raised
    until the end of the try (SPEC section 10) -- of every open try, in this task and its
    callers: an inner try's recover can re-raise, and whether it does is as secret."""
    if vm.try_entries and labels:
        stamp = 0
        for t in vm.try_entries:
            if not labels <= t[0]:
                if not stamp:
                    vm.stamp += 1
                    stamp = vm.stamp
                t[0] = t[0] | labels
                t[3] = stamp
        if stamp:
            vm.pc = vm.pc | labels


def release(vm, depth, rid):
    st = vm.pc_stack
    if st:
        kept = [e for e in st if not (e[1] == depth and e[2] == rid)]
        if len(kept) != len(st):
            st[:] = kept
            vm.try_entries[:] = [t for t in vm.try_entries if t in kept]
            _recompute(vm)


def drop_frames(vm, depth):
    """A function at `depth` returns (or is unwound): its pc entries end."""
    st = vm.pc_stack
    if st and st[-1][1] >= depth or any(e[1] >= depth for e in st):
        st[:] = [e for e in st if e[1] < depth]
        vm.try_entries[:] = [t for t in vm.try_entries if t[1] < depth]
        _recompute(vm)


def call_under(vm, labels, thunk):
    """Run a call of a labelled task value from a builtin: pc raised, result labelled."""
    depth = vm.depth
    push_pc(vm, labels, depth, 0)
    try:
        result = thunk()
    finally:
        drop_frames(vm, depth)
    return _join(result, labels | vm.pc)


def _join(v, labels):
    if not labels:
        return v
    if type(v) is Labeled:
        if v.t is not None:
            return P.join(v, labels)
        if labels <= v.l:
            return v
        return Labeled(v.v, v.l | labels)
    return Labeled(v, labels)


def _append_precise(vm, x, v):
    """append(xs, v) under labels: each element keeps its label (vm.precise); whether it
    raises depends on xs's type, so on its shape's labels only."""
    shape = P.shape_of(x)
    if vm.try_entries and shape:
        taint_try(vm, shape)
    try:
        r = ops.append(x.v if type(x) is Labeled else x, v.v if type(v) is Labeled else v)
    except Exception as e:  # noqa: BLE001
        raise _labelled_error(vm, e, shape) from None
    return P.appended(x, r, v, EMPTY)


def _set_item_precise(vm, x, k, v):
    """`set x[k] to v` under labels: the element at k takes v's label, the shape the key's
    (the new value never decides whether setting raises)."""
    kl = k.l if type(k) is Labeled else EMPTY
    kv = k.v if kl else k
    xv = x.v if type(x) is Labeled else x
    shape = P.shape_of(x) | kl
    if vm.try_entries and shape:
        taint_try(vm, shape)
    try:
        r = ops.set_item(xv, kv, v.v if type(v) is Labeled else v)
    except Exception as e:  # noqa: BLE001
        raise _labelled_error(vm, e, shape) from None
    where = ops.list_index(xv, kv) if type(xv) is list else norm_key(kv)
    return P.set_element(x, r, where, v, kl)


def _index_precise(vm, x, i):
    """x[i] or x.name of a precise container: the element's own label, the shape's and
    the index's -- not its siblings' (SPEC 10)."""
    il = i.l if type(i) is Labeled else EMPTY
    iv = i.v if il else i
    # Whether reading raises (out of range, a wrong type) depends on the shape and index.
    if vm.try_entries and (x.t[0] or il):
        taint_try(vm, x.t[0] | il)
    try:
        r = ops.index(x.v, iv)
    except Exception as e:  # noqa: BLE001
        raise _labelled_error(vm, e, x.t[0] | il) from None
    if type(x.v) is list:
        where = ops.list_index(x.v, iv)
    else:
        try:
            where = norm_key(iv)
            hash(where)
        except TypeError:       # an unhashable key is never present: nothing
            return Labeled(r, x.t[0] | il) if x.t[0] | il else r
    return P.element(x, r, where, il)


def _binary(vm, fn, a, b, can_raise=True):
    la = a.l if type(a) is Labeled else EMPTY
    lb = b.l if type(b) is Labeled else EMPTY
    labels = la | lb
    if can_raise and labels and vm.try_entries:
        taint_try(vm, labels)
    try:
        r = fn(a.v if la else a, b.v if lb else b)
    except Exception as e:      # noqa: BLE001 - the error, whatever it is, carries the labels
        raise _labelled_error(vm, e, labels) from None
    return Labeled(r, labels) if labels else r


def _unary(vm, fn, a, *extra):
    labels = a.l
    if vm.try_entries:
        taint_try(vm, labels)
    try:
        r = fn(a.v, *extra)
    except Exception as e:      # noqa: BLE001
        raise _labelled_error(vm, e, labels) from None
    return Labeled(r, labels)


def _labelled_error(vm, exc, labels):
    """The Synsema error for `exc` (vm.as_error), carrying the labels of the operands it
    was made from: its message, or that it happened at all, tells about them."""
    err = vm.as_error(exc)
    err.labels = err.labels | labels
    return err


def _upgrade_check(vm, value, stamp, name):
    """No sensitive upgrade: entries pushed after the variable's declaration must be
    covered by the label the variable already has."""
    # For a container, the label of its shape (SPEC 10): its elements' say nothing of
    # whether it was replaced.
    have = P.shape_of(value)
    for e in vm.pc_stack:
        if e[3] > stamp and e[0] and not e[0] <= have:
            missing = ", ".join(sorted(e[0] - have))
            vm.violation(f"set of '{name}' under a branch on data labelled {missing} would "
                         "leak which way the branch went (no sensitive upgrade); declare the "
                         "variable inside the branch, or label it with private(...) first")


def _plain_seq(items):
    labels = EMPTY
    out = items
    for i, x in enumerate(items):
        if type(x) is Labeled:
            if out is items:
                out = list(items)
            labels = labels | x.l
            out[i] = x.v
    return out, labels


_CMP = (ops.le, ops.gt, ops.ge, ops.eq, ops.ne)     # by vm.decode._CMP_KIND


def _local_name(func, slot):
    return func.local_names[slot] if slot < len(func.local_names) else f"local {slot}"


def _store(vm, where, stamps, slot, v, name):
    """`set` of a variable: no sensitive upgrade, then the value joined with the pc."""
    if vm.pc:
        _upgrade_check(vm, where[slot], stamps[slot] if stamps else 0, name)
        v = _join(v, vm.pc)
    where[slot] = v


# ---- the loop ------------------------------------------------------------------------------

def run_labels(vm, closure, args):
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
    pcs = vm.pc_stack       # mutated in place only, so a local alias stays current
    stamps = [vm.stamp] * len(locals_) if pcs else None
    stack = []
    frames = []
    handlers = []            # (target, stack depth, frame depth, try entry)
    pc = 0
    glob = vm.globals
    gstamps = vm.global_stamps
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
    if clabels:
        push_pc(vm, clabels, base_depth, 0)
    try:
        while True:
            try:
                while True:
                    op, arg = code[pc]
                    pc += 1
                    if op < 44:
                        if op < 23:
                            if op < 4:
                                if op < 3:
                                    if op < 2:
                                        # CONST (1)
                                        push(arg)
                                    else:
                                        # POP (2)
                                        pop()
                                else:
                                    # LOAD_LOCAL (3)
                                    push(locals_[arg])
                            else:
                                if op < 7:
                                    if op < 5:
                                        # STORE_LOCAL (4)
                                        v = pop()
                                        if pcs and vm.pc:
                                            _upgrade_check(vm, locals_[arg], stamps[arg] if stamps else 0,
                                                           _local_name(vm.owner[id(code)], arg))
                                            v = _join(v, vm.pc)
                                        locals_[arg] = v
                                    else:
                                        if op < 6:
                                            # DECLARE_LOCAL (5)
                                            v = pop()
                                            if pcs and arg < vm.owner[id(code)].fixed:
                                                # A parameter's slot was declared by the call: a `let` of it in
                                                # a crafted file is a `set`, checked as one.
                                                _store(vm, locals_, stamps, arg, v, _local_name(vm.owner[id(code)], arg))
                                                continue
                                            if pcs:
                                                if vm.pc:
                                                    v = _join(v, vm.pc)
                                                if stamps is None:
                                                    stamps = [0] * len(locals_)
                                                stamps[arg] = vm.stamp
                                            locals_[arg] = v
                                        else:
                                            # LOAD_GLOBAL (6)
                                            v = glob[arg]
                                            if v is UNSET:
                                                raise vm.unset_error(arg)
                                            push(v)
                                else:
                                    if op < 12:
                                        if op < 11:
                                            if op < 8:
                                                # STORE_GLOBAL (7)
                                                v = pop()
                                                if vm.pc:
                                                    _upgrade_check(vm, glob[arg], gstamps[arg], vm.program.globals[arg])
                                                    v = _join(v, vm.pc)
                                                glob[arg] = v
                                            else:
                                                if op < 10:
                                                    # DECLARE_GLOBAL (8)
                                                    v = pop()
                                                    if glob[arg] is not UNSET:
                                                        # Each top-level `let` runs once; a second one (only in a crafted
                                                        # file) is a `set`, checked as one.
                                                        _store(vm, glob, gstamps, arg, v, vm.program.globals[arg])
                                                        continue
                                                    if vm.pc:
                                                        v = _join(v, vm.pc)
                                                    glob[arg] = v
                                                    gstamps[arg] = vm.stamp
                                                else:
                                                    # MAKE_LAMBDA (10)
                                                    f, n = arg
                                                    if n:
                                                        caps, labels = _plain_seq(stack[-n:])
                                                        del stack[-n:]
                                                        caps = tuple(caps)
                                                    else:
                                                        caps, labels = (), EMPTY
                                                    c = Closure(f, caps)
                                                    push(Labeled(c, labels) if labels else c)
                                        else:
                                            # ADD (11)
                                            b = pop()
                                            a = stack[-1]
                                            if type(a) is int and type(b) is int:
                                                stack[-1] = a + b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                stack[-1] = _binary(vm, add, a, b)
                                            else:
                                                stack[-1] = add(a, b)
                                    else:
                                        if op < 17:
                                            if op < 14:
                                                if op < 13:
                                                    # SUB (12)
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is int and type(b) is int:
                                                        stack[-1] = a - b
                                                    elif type(a) is Labeled or type(b) is Labeled:
                                                        stack[-1] = _binary(vm, sub, a, b)
                                                    else:
                                                        stack[-1] = sub(a, b)
                                                else:
                                                    # MUL (13)
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is int and type(b) is int:
                                                        stack[-1] = a * b
                                                    elif type(a) is Labeled or type(b) is Labeled:
                                                        stack[-1] = _binary(vm, mul, a, b)
                                                    else:
                                                        stack[-1] = mul(a, b)
                                            else:
                                                if op < 15:
                                                    # DIV (14)
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is Labeled or type(b) is Labeled:
                                                        stack[-1] = _binary(vm, div, a, b)
                                                    else:
                                                        stack[-1] = div(a, b)
                                                else:
                                                    if op < 16:
                                                        # MOD (15)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, mod, a, b)
                                                        else:
                                                            stack[-1] = mod(a, b)
                                                    else:
                                                        # EQ (16)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is type(b) and (type(a) is int or type(a) is str):
                                                            stack[-1] = a == b
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, eq, a, b, False)
                                                        else:
                                                            stack[-1] = eq(a, b)
                                        else:
                                            if op < 20:
                                                if op < 18:
                                                    # NE (17)
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is Labeled or type(b) is Labeled:
                                                        stack[-1] = _binary(vm, ops.ne, a, b, False)
                                                    else:
                                                        stack[-1] = not eq(a, b)
                                                else:
                                                    if op < 19:
                                                        # LT (18)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is int and type(b) is int:
                                                            stack[-1] = a < b
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, lt, a, b)
                                                        else:
                                                            stack[-1] = lt(a, b)
                                                    else:
                                                        # LE (19)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, le, a, b)
                                                        else:
                                                            stack[-1] = le(a, b)
                                            else:
                                                if op < 21:
                                                    # GT (20)
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is Labeled or type(b) is Labeled:
                                                        stack[-1] = _binary(vm, gt, a, b)
                                                    else:
                                                        stack[-1] = gt(a, b)
                                                else:
                                                    if op < 22:
                                                        # GE (21)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, ge, a, b)
                                                        else:
                                                            stack[-1] = ge(a, b)
                                                    else:
                                                        # NEG (22)
                                                        v = stack[-1]
                                                        if type(v) is Labeled:
                                                            stack[-1] = _unary(vm, ops.neg, v)
                                                        else:
                                                            stack[-1] = ops.neg(v)
                        else:
                            if op < 38:
                                if op < 31:
                                    if op < 29:
                                        if op < 26:
                                            if op < 25:
                                                if op < 24:
                                                    # NOT (23)
                                                    v = stack[-1]
                                                    if type(v) is Labeled:
                                                        stack[-1] = _unary(vm, ops.not_, v)
                                                    else:
                                                        stack[-1] = ops.not_(v)
                                                else:
                                                    # INDEX (24)
                                                    i = pop()
                                                    x = stack[-1]
                                                    if type(x) is list and type(i) is int and -len(x) <= i < len(x):
                                                        stack[-1] = x[i]
                                                    elif type(x) is Labeled and x.t is not None:
                                                        stack[-1] = _index_precise(vm, x, i)
                                                    elif type(x) is Labeled or type(i) is Labeled:
                                                        stack[-1] = _binary(vm, index, x, i)
                                                    else:
                                                        stack[-1] = index(x, i)
                                            else:
                                                # FIELD (25)
                                                x = stack[-1]
                                                if type(x) is dict:
                                                    stack[-1] = x.get(arg)
                                                elif type(x) is Labeled and type(x.v) is dict and x.t is not None:
                                                    stack[-1] = P.element(x, x.v.get(arg), arg, EMPTY)
                                                elif type(x) is Labeled:
                                                    stack[-1] = _unary(vm, ops.field, x, arg)
                                                else:
                                                    stack[-1] = ops.field(x, arg)
                                        else:
                                            if op < 28:
                                                if op < 27:
                                                    # SET_PATH (26)
                                                    v = pop()
                                                    if not arg:     # verified files never have 0 keys; never eat the stack
                                                        raise vm.bad_opcode(op)
                                                    keys = stack[-arg:]
                                                    del stack[-arg:]
                                                    items, labels = _plain_seq([stack[-1], v] + keys)
                                                    if labels and vm.try_entries:
                                                        taint_try(vm, _plain_seq([stack[-1]] + keys)[1])
                                                    try:
                                                        r = ops.set_path(items[0], items[2:], items[1])
                                                    except Exception as e:  # noqa: BLE001
                                                        raise _labelled_error(vm, e, labels) from None
                                                    stack[-1] = Labeled(r, labels) if labels else r
                                                else:
                                                    # BUILD_LIST (27)
                                                    if arg:
                                                        items = stack[-arg:]
                                                        del stack[-arg:]
                                                        push(P.build_list(items, vm.pc))
                                                    else:
                                                        push([])
                                            else:
                                                # BUILD_MAP (28)
                                                if arg:
                                                    raw = stack[-2 * arg:]
                                                    items, labels = _plain_seq(raw)
                                                    del stack[-2 * arg:]
                                                    klabels = EMPTY
                                                    if labels:
                                                        # Building raises only for a key of the wrong type, so the
                                                        # keys' labels (never the values') decide whether it does.
                                                        klabels = _plain_seq(raw[0::2])[1]
                                                        if klabels and vm.try_entries:
                                                            taint_try(vm, klabels)
                                                    try:
                                                        m = ops.build_map(items)
                                                    except SynError as e:
                                                        raise _labelled_error(vm, e, klabels) from None
                                                    push(P.build_map(raw, m, vm.pc | klabels) if labels or vm.pc
                                                         else m)
                                                else:
                                                    push({})
                                    else:
                                        if op < 30:
                                            # JUMP (29)
                                            pc = arg
                                        else:
                                            # JUMP_IF_FALSE (30)
                                            v = pop()
                                            if type(v) is Labeled:
                                                push_pc(vm, v.l, base_depth + len(frames), arg[1])
                                                v = v.v
                                            if v is False:
                                                pc = arg[0]
                                            elif v is not True:
                                                raise vm.cond_error(code, pc - 1, v)
                                else:
                                    if op < 37:
                                        if op < 34:
                                            if op < 32:
                                                # AND_JUMP (31)
                                                v = stack[-1]
                                                raw = v
                                                if type(v) is Labeled:
                                                    push_pc(vm, v.l, base_depth + len(frames), arg[1])
                                                    raw = v.v
                                                if raw is False:
                                                    pc = arg[0]
                                                elif raw is True:
                                                    pop()
                                                else:
                                                    raise SynError(f"and needs a bool, got {ops.type_name(raw)}")
                                            else:
                                                if op < 33:
                                                    # OR_JUMP (32)
                                                    v = stack[-1]
                                                    raw = v
                                                    if type(v) is Labeled:
                                                        push_pc(vm, v.l, base_depth + len(frames), arg[1])
                                                        raw = v.v
                                                    if raw is True:
                                                        pc = arg[0]
                                                    elif raw is False:
                                                        pop()
                                                    else:
                                                        raise SynError(f"or needs a bool, got {ops.type_name(raw)}")
                                                else:
                                                    # CHECK_BOOL (33)
                                                    v = stack[-1]
                                                    if type(v) is Labeled:
                                                        # `and`/`or`'s right operand: whether it raises tells its type.
                                                        if vm.try_entries:
                                                            taint_try(vm, v.l)
                                                        if v.v is not True and v.v is not False:
                                                            _unary(vm, ops.check_bool, v, arg)
                                                    elif v is not True and v is not False:
                                                        ops.check_bool(v, arg)
                                                    if vm.pc:
                                                        stack[-1] = _join(v, vm.pc)
                                        else:
                                            if op < 35:
                                                # ITER_START (34)
                                                c = stack[-1]
                                                if type(c) is Labeled:
                                                    # The shape decides how many rounds (and a map's keys are in
                                                    # it); each list item brings its own label (vm.precise).
                                                    shape = c.t[0] if c.t is not None else c.l
                                                    if vm.try_entries:
                                                        taint_try(vm, shape)
                                                    push_pc(vm, shape, base_depth + len(frames), arg)
                                                    try:
                                                        it = ops.iterate(c.v)
                                                    except Exception as e:  # noqa: BLE001
                                                        raise _labelled_error(vm, e, shape) from None
                                                    if c.t is not None and type(c.v) is list:
                                                        it = P.iterate(c, it)
                                                    stack[-1] = it
                                                else:
                                                    stack[-1] = ops.iterate(c)
                                            else:
                                                if op < 36:
                                                    # FOR_ITER (35)
                                                    v = next(stack[-1], UNSET)
                                                    if v is UNSET:
                                                        pop()
                                                        pc = arg
                                                    else:
                                                        push(v)
                                                else:
                                                    # CALL (36)
                                                    callee = stack[-arg - 1]
                                                    if arg:
                                                        new = stack[-arg:]
                                                    else:
                                                        new = []
                                                    del stack[-arg - 1:]
                                                    clab = EMPTY
                                                    if type(callee) is Labeled:
                                                        clab = callee.l
                                                        callee = callee.v
                                                        if vm.try_entries:
                                                            taint_try(vm, clab)
                                                    if type(callee) is not Closure:
                                                        if type(callee) is HostFn:
                                                            vm.site = (code, pc - 1)
                                                            push(vm.call_host(callee, new, clab))
                                                            continue
                                                        try:
                                                            ops.not_callable(callee)
                                                        except Exception as e:  # noqa: BLE001
                                                            raise _labelled_error(vm, e, clab) from None
                                                    f = callee.func
                                                    if not f.nrequired <= arg <= len(f.params):
                                                        try:
                                                            ops.arity_error(f, arg)
                                                        except Exception as e:  # noqa: BLE001
                                                            raise _labelled_error(vm, e, clab) from None
                                                    budget -= 1
                                                    if budget <= 0:
                                                        budget = vm.tick_call(budget, room - len(frames))
                                                    frames.append((code, pc, locals_, stamps))
                                                    if clab:    # before the parameters are stamped: they are the call's
                                                        push_pc(vm, clab, base_depth + len(frames), 0)
                                                    code = vm.decoded[f]
                                                    locals_ = new + vm.pads[f][arg]
                                                    if callee.captures:
                                                        locals_ += callee.captures
                                                    stamps = [vm.stamp] * len(locals_) if pcs else None
                                                    pc = 0
                                    else:
                                        # CALL_TASK (37)
                                        _, n, pad, fcode = arg
                                        if n == 1:
                                            new = [pop()]
                                        elif n:
                                            new = stack[-n:]
                                            del stack[-n:]
                                        else:
                                            new = []
                                        budget -= 1
                                        if budget <= 0:
                                            budget = vm.tick_call(budget, room - len(frames))
                                        frames.append((code, pc, locals_, stamps))
                                        code = fcode
                                        locals_ = new + pad if pad else new
                                        stamps = [vm.stamp] * len(locals_) if pcs else None
                                        pc = 0
                            else:
                                if op < 40:
                                    if op < 39:
                                        # CALL_BUILTIN (38)
                                        # A pure builtin: called as the plain loop calls it when no label
                                        # is involved; otherwise its wrapper joins and attaches the labels.
                                        fn, n, labelled = arg
                                        if n == 1:
                                            a = stack[-1]
                                            if type(a) is Labeled or vm.pc:
                                                stack[-1] = labelled(vm, a)
                                            else:
                                                stack[-1] = fn(a)
                                        else:
                                            if n:
                                                a = stack[-n:]
                                                del stack[-n:]
                                            else:
                                                a = ()
                                            for x in a:
                                                if type(x) is Labeled:
                                                    push(labelled(vm, *a))
                                                    break
                                            else:
                                                push(labelled(vm, *a) if vm.pc else fn(*a))
                                    else:
                                        # RETURN (39)
                                        val = pop()
                                        if pcs:
                                            if vm.pc:
                                                val = _join(val, vm.pc)
                                            drop_frames(vm, base_depth + len(frames))
                                        if not frames:
                                            return val
                                        code, pc, locals_, stamps = frames.pop()
                                        push(val)
                                else:
                                    if op < 42:
                                        if op < 41:
                                            # TRY_BEGIN (40)
                                            depth = base_depth + len(frames)
                                            vm.stamp += 1
                                            entry = [EMPTY, depth, arg[1], vm.stamp, True]
                                            vm.pc_stack.append(entry)
                                            vm.try_entries.append(entry)
                                            handlers.append((arg[0], len(stack), len(frames), entry))
                                        else:
                                            # TRY_END (41)
                                            entry = handlers.pop()[3]
                                            if entry in vm.try_entries:
                                                vm.try_entries.remove(entry)
                                    else:
                                        if op < 43:
                                            # PC_RELEASE (42)
                                            if vm.pc_stack:
                                                release(vm, base_depth + len(frames), arg)
                                        else:
                                            # JUMP_IF_SET (43)
                                            slot, target = arg
                                            if locals_[slot] is not UNSET:
                                                pc = target
                    else:
                        if op < 111:
                            if op < 104:
                                if op < 101:
                                    if op < 100:
                                        if op < 45:
                                            # APPEND_LOCAL (44)
                                            v = pop()
                                            where = locals_ if op == 44 else glob
                                            x = where[arg]
                                            if x is UNSET and op == 45:
                                                raise vm.unset_error(arg)
                                            if (type(x) is list and type(v) is not Labeled and not vm.pc
                                                    and refcount(x) <= 3):
                                                x.append(v)
                                            else:
                                                if type(x) is Labeled or type(v) is Labeled:
                                                    r = _append_precise(vm, x, v)
                                                else:
                                                    r = ops.append(x, v)
                                                _store(vm, where, stamps if op == 44 else gstamps, arg, r,
                                                       _local_name(vm.owner[id(code)], arg) if op == 44 else vm.program.globals[arg])
                                        else:
                                            if op < 47:
                                                if op < 46:
                                                    # APPEND_GLOBAL (45)
                                                    v = pop()
                                                    where = locals_ if op == 44 else glob
                                                    x = where[arg]
                                                    if x is UNSET and op == 45:
                                                        raise vm.unset_error(arg)
                                                    if (type(x) is list and type(v) is not Labeled and not vm.pc
                                                            and refcount(x) <= 3):
                                                        x.append(v)
                                                    else:
                                                        if type(x) is Labeled or type(v) is Labeled:
                                                            r = _append_precise(vm, x, v)
                                                        else:
                                                            r = ops.append(x, v)
                                                        _store(vm, where, stamps if op == 44 else gstamps, arg, r,
                                                               _local_name(vm.owner[id(code)], arg) if op == 44 else vm.program.globals[arg])
                                                else:
                                                    # SET_ITEM_LOCAL (46)
                                                    v = pop()
                                                    k = pop()
                                                    where = locals_ if op == 46 else glob
                                                    x = where[arg]
                                                    if x is UNSET and op == 47:
                                                        raise vm.unset_error(arg)
                                                    if (type(v) is not Labeled and type(k) is not Labeled and not vm.pc
                                                            and refcount(x) <= 3 and ops.set_in_place(x, k, v)):
                                                        pass
                                                    else:
                                                        _store(vm, where, stamps if op == 46 else gstamps, arg,
                                                               _set_item_precise(vm, x, k, v),
                                                               _local_name(vm.owner[id(code)], arg) if op == 46 else vm.program.globals[arg])
                                            else:
                                                if op < 48:
                                                    # SET_ITEM_GLOBAL (47)
                                                    v = pop()
                                                    k = pop()
                                                    where = locals_ if op == 46 else glob
                                                    x = where[arg]
                                                    if x is UNSET and op == 47:
                                                        raise vm.unset_error(arg)
                                                    if (type(v) is not Labeled and type(k) is not Labeled and not vm.pc
                                                            and refcount(x) <= 3 and ops.set_in_place(x, k, v)):
                                                        pass
                                                    else:
                                                        _store(vm, where, stamps if op == 46 else gstamps, arg,
                                                               _set_item_precise(vm, x, k, v),
                                                               _local_name(vm.owner[id(code)], arg) if op == 46 else vm.program.globals[arg])
                                                else:
                                                    # DROP_UNDER (48)
                                                    v = pop()
                                                    del stack[-arg:]
                                                    push(v)
                                    else:
                                        # JUMP_BACK (100)
                                        budget -= pc - arg
                                        if budget <= 0:
                                            budget = vm.tick(budget, room - len(frames))
                                        pc = arg
                                else:
                                    if op < 102:
                                        # CALL_VM_BUILTIN (101)
                                        fn, n = arg
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
                                            vm.depth = base_depth
                                    else:
                                        if op < 103:
                                            # LOAD_LOCAL2 (102)
                                            push(locals_[arg[0]])
                                            push(locals_[arg[1]])
                                        else:
                                            # ADD_LL (103)
                                            a = locals_[arg[0]]
                                            b = locals_[arg[1]]
                                            if type(a) is int and type(b) is int:
                                                push(a + b)
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                push(_binary(vm, add, a, b))
                                            else:
                                                push(add(a, b))
                            else:
                                if op < 108:
                                    if op < 106:
                                        if op < 105:
                                            # ADD_LC (104)
                                            a = locals_[arg[0]]
                                            if type(a) is int and type(arg[1]) is int:
                                                push(a + arg[1])
                                            elif type(a) is Labeled:
                                                push(_binary(vm, add, a, arg[1]))
                                            else:
                                                push(add(a, arg[1]))
                                        else:
                                            # SUB_LC (105)
                                            a = locals_[arg[0]]
                                            if type(a) is int and type(arg[1]) is int:
                                                push(a - arg[1])
                                            elif type(a) is Labeled:
                                                push(_binary(vm, sub, a, arg[1]))
                                            else:
                                                push(sub(a, arg[1]))
                                    else:
                                        if op < 107:
                                            # MOD_LC (106)
                                            a = locals_[arg[0]]
                                            if type(a) is int and type(arg[1]) is int:
                                                push(a % arg[1])
                                            elif type(a) is Labeled:
                                                push(_binary(vm, mod, a, arg[1]))
                                            else:
                                                push(mod(a, arg[1]))
                                        else:
                                            # ADD_LL_ST (107)
                                            a = locals_[arg[0]]
                                            b = locals_[arg[1]]
                                            if type(a) is int and type(b) is int:
                                                v = a + b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                v = _binary(vm, add, a, b)
                                            else:
                                                v = add(a, b)
                                            s = arg[2]
                                            if pcs and vm.pc:
                                                _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0,
                                                               _local_name(vm.owner[id(code)], s))
                                                v = _join(v, vm.pc)
                                            locals_[s] = v
                                else:
                                    if op < 109:
                                        # ADD_LC_ST (108)
                                        a = locals_[arg[0]]
                                        b = arg[1]
                                        if type(a) is int and type(b) is int:
                                            v = a + b
                                        elif type(a) is Labeled or type(b) is Labeled:
                                            v = _binary(vm, add, a, b)
                                        else:
                                            v = add(a, b)
                                        s = arg[2]
                                        if pcs and vm.pc:
                                            _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0,
                                                           _local_name(vm.owner[id(code)], s))
                                            v = _join(v, vm.pc)
                                        locals_[s] = v
                                    else:
                                        if op < 110:
                                            # SUB_LC_ST (109)
                                            a = locals_[arg[0]]
                                            b = arg[1]
                                            if type(a) is int and type(b) is int:
                                                v = a - b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                v = _binary(vm, sub, a, b)
                                            else:
                                                v = sub(a, b)
                                            s = arg[2]
                                            if pcs and vm.pc:
                                                _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0,
                                                               _local_name(vm.owner[id(code)], s))
                                                v = _join(v, vm.pc)
                                            locals_[s] = v
                                        else:
                                            # LT_LL_JF (110)
                                            a = locals_[arg[0]]
                                            b = locals_[arg[1]]
                                            if type(a) is int and type(b) is int:
                                                if not a < b:
                                                    pc = arg[2]
                                            else:
                                                if type(a) is Labeled or type(b) is Labeled:
                                                    c = _binary(vm, lt, a, b)
                                                    push_pc(vm, c.l, base_depth + len(frames), arg[3])
                                                    c = c.v
                                                else:
                                                    c = lt(a, b)
                                                if c is False:
                                                    pc = arg[2]
                        else:
                            if op < 117:
                                if op < 114:
                                    if op < 112:
                                        # LT_LC_JF (111)
                                        a = locals_[arg[0]]
                                        if type(a) is int:
                                            if not a < arg[1]:
                                                pc = arg[2]
                                        else:
                                            if type(a) is Labeled:
                                                c = _binary(vm, lt, a, arg[1])
                                                push_pc(vm, c.l, base_depth + len(frames), arg[3])
                                                c = c.v
                                            else:
                                                c = lt(a, arg[1])
                                            if c is False:
                                                pc = arg[2]
                                    else:
                                        if op < 113:
                                            # CMP_LC_JF (112)
                                            a = locals_[arg[1]]
                                            b = arg[2] if op == 112 else locals_[arg[2]]
                                            if type(a) is Labeled or type(b) is Labeled:
                                                c = _binary(vm, _CMP[arg[0]], a, b, arg[0] < 3)
                                                push_pc(vm, c.l, base_depth + len(frames), arg[4])
                                                c = c.v
                                            else:
                                                c = compare(arg[0], a, b)
                                            if c is False:
                                                pc = arg[3]
                                        else:
                                            # EQ_C_JF (113)
                                            a = pop()
                                            c = arg[0]
                                            if type(a) is Labeled:
                                                push_pc(vm, a.l, base_depth + len(frames), arg[2])
                                                a = a.v
                                            if type(a) is type(c):
                                                if a != c:
                                                    pc = arg[1]
                                            elif not eq(a, c):
                                                pc = arg[1]
                                else:
                                    if op < 115:
                                        # RETURN_LOCAL (114)
                                        val = locals_[arg]
                                        if pcs:
                                            if vm.pc:
                                                val = _join(val, vm.pc)
                                            drop_frames(vm, base_depth + len(frames))
                                        if not frames:
                                            return val
                                        code, pc, locals_, stamps = frames.pop()
                                        push(val)
                                    else:
                                        if op < 116:
                                            # FOR_ITER_DECL (115)
                                            v = next(stack[-1], UNSET)
                                            if v is UNSET:
                                                pop()
                                                pc = arg[0]
                                            elif pcs and arg[1] < vm.owner[id(code)].fixed:
                                                # As DECLARE_LOCAL: a crafted file's declaration of a parameter
                                                # slot is a `set` of it, checked as one.
                                                _store(vm, locals_, stamps, arg[1], v,
                                                       _local_name(vm.owner[id(code)], arg[1]))
                                            else:
                                                if pcs:
                                                    if vm.pc:
                                                        v = _join(v, vm.pc)
                                                    if stamps is None:
                                                        stamps = [0] * len(locals_)
                                                    stamps[arg[1]] = vm.stamp
                                                locals_[arg[1]] = v
                                        else:
                                            # CMP_LL_JF (116)
                                            a = locals_[arg[1]]
                                            b = arg[2] if op == 112 else locals_[arg[2]]
                                            if type(a) is Labeled or type(b) is Labeled:
                                                c = _binary(vm, _CMP[arg[0]], a, b, arg[0] < 3)
                                                push_pc(vm, c.l, base_depth + len(frames), arg[4])
                                                c = c.v
                                            else:
                                                c = compare(arg[0], a, b)
                                            if c is False:
                                                pc = arg[3]
                            else:
                                if op < 120:
                                    if op < 118:
                                        # CALL1_SUB_LC (117)
                                        slot, c, _, pad, fcode = arg
                                        v = locals_[slot]
                                        if type(v) is int:
                                            new = [v - c]
                                        elif type(v) is Labeled:
                                            new = [_binary(vm, sub, v, c)]
                                        else:
                                            new = [sub(v, c)]
                                        budget -= 1
                                        if budget <= 0:
                                            budget = vm.tick_call(budget, room - len(frames))
                                        frames.append((code, pc, locals_, stamps))
                                        code = fcode
                                        locals_ = new + pad if pad else new
                                        stamps = [vm.stamp] * len(locals_) if pcs else None
                                        pc = 0
                                    else:
                                        if op < 119:
                                            # ADD_RETURN (118)
                                            b = pop()
                                            a = pop()
                                            if type(a) is int and type(b) is int:
                                                val = a + b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                val = _binary(vm, add, a, b)
                                            else:
                                                val = add(a, b)
                                            if pcs:
                                                if vm.pc:
                                                    val = _join(val, vm.pc)
                                                drop_frames(vm, base_depth + len(frames))
                                            if not frames:
                                                return val
                                            code, pc, locals_, stamps = frames.pop()
                                            push(val)
                                        else:
                                            # MUL_LC (119)
                                            a = locals_[arg[0]]
                                            if type(a) is int and type(arg[1]) is int:
                                                push(a * arg[1])
                                            elif type(a) is Labeled:
                                                push(_binary(vm, mul, a, arg[1]))
                                            else:
                                                push(mul(a, arg[1]))
                                else:
                                    if op < 123:
                                        if op < 121:
                                            # SUB_LL_ST (120)
                                            a = locals_[arg[0]]
                                            b = locals_[arg[1]]
                                            if type(a) is int and type(b) is int:
                                                v = a - b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                v = _binary(vm, sub, a, b)
                                            else:
                                                v = sub(a, b)
                                            s = arg[2]
                                            if pcs and vm.pc:
                                                _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0,
                                                               _local_name(vm.owner[id(code)], s))
                                                v = _join(v, vm.pc)
                                            locals_[s] = v
                                        else:
                                            if op < 122:
                                                # ADD_ST (121)
                                                b = pop()
                                                a = pop()
                                                if type(a) is int and type(b) is int:
                                                    v = a + b
                                                elif type(a) is Labeled or type(b) is Labeled:
                                                    v = _binary(vm, add, a, b)
                                                else:
                                                    v = add(a, b)
                                                if pcs and vm.pc:
                                                    _upgrade_check(vm, locals_[arg], stamps[arg] if stamps else 0,
                                                                   _local_name(vm.owner[id(code)], arg))
                                                    v = _join(v, vm.pc)
                                                locals_[arg] = v
                                            else:
                                                # SUB_ST (122)
                                                b = pop()
                                                a = pop()
                                                if type(a) is int and type(b) is int:
                                                    v = a - b
                                                elif type(a) is Labeled or type(b) is Labeled:
                                                    v = _binary(vm, sub, a, b)
                                                else:
                                                    v = sub(a, b)
                                                if pcs and vm.pc:
                                                    _upgrade_check(vm, locals_[arg], stamps[arg] if stamps else 0,
                                                                   _local_name(vm.owner[id(code)], arg))
                                                    v = _join(v, vm.pc)
                                                locals_[arg] = v
                                    else:
                                        if op < 124:
                                            # MOD_LC_EQ_C_JF (123)
                                            a = locals_[arg[0]]
                                            if type(a) is int:
                                                a = a % arg[1]
                                            elif type(a) is Labeled:
                                                a = _binary(vm, mod, a, arg[1])
                                            else:
                                                a = mod(a, arg[1])
                                            c = arg[2]
                                            if type(a) is Labeled:
                                                push_pc(vm, a.l, base_depth + len(frames), arg[4])
                                                a = a.v
                                            if type(a) is type(c):
                                                if a != c:
                                                    pc = arg[3]
                                            elif not eq(a, c):
                                                pc = arg[3]
                                        else:
                                            # LT_LC_RET_LOCAL (124)
                                            a = locals_[arg[0]]
                                            if type(a) is int:
                                                done = a < arg[1]
                                            else:
                                                if type(a) is Labeled:
                                                    c = _binary(vm, lt, a, arg[1])
                                                    push_pc(vm, c.l, base_depth + len(frames), arg[3])
                                                    c = c.v
                                                else:
                                                    c = lt(a, arg[1])
                                                done = c is not False
                                            if done:
                                                val = locals_[arg[2]]
                                                if pcs:
                                                    if vm.pc:
                                                        val = _join(val, vm.pc)
                                                    drop_frames(vm, base_depth + len(frames))
                                                if not frames:
                                                    return val
                                                code, pc, locals_, stamps = frames.pop()
                                                push(val)
            except Exception as exc:  # noqa: BLE001 - every error is turned into a SynError
                err = vm.as_error(exc)
                if vm.pc:
                    err.labels = err.labels | vm.pc
                vm.trace_frame(err, code, pc - 1)
                if not err.catchable or not handlers:
                    for fr in reversed(frames):
                        vm.trace_frame(err, fr[0], fr[1] - 1)
                    raise err from None
                # The innermost open try, in this frame or one below: unwind to it.
                target, depth, frame_depth, entry = handlers.pop()
                while len(frames) > frame_depth:
                    code, pc, locals_, stamps = frames.pop()
                del stack[depth:]
                # The try entry holds every label raised inside the block; entries above it
                # (from the block and the tasks it called) have been merged into it.
                st = vm.pc_stack
                if entry in st:
                    del st[st.index(entry) + 1:]
                else:
                    st.append(entry)
                if entry in vm.try_entries:
                    del vm.try_entries[vm.try_entries.index(entry):]
                entry[0] = entry[0] | err.labels
                vm.stamp += 1
                entry[3] = vm.stamp
                for t in vm.try_entries:      # the enclosing tries (SPEC 10)
                    t[0] = t[0] | err.labels
                _recompute(vm)
                err.trace.clear()
                push(Labeled(err.message, err.labels) if err.labels else err.message)
                pc = target
    finally:
        vm.return_budget(budget)
        if vm.pc_stack:
            drop_frames(vm, base_depth)
