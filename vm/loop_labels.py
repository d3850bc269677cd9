"""The dispatch loop with --labels: the plain loop (vm.loop) plus information flow.

Every value may be a Labeled wrapper (vm.values). Operations join their inputs' labels;
a labelled condition raises the pc label (vm.pc_stack entries: [labels, depth, rid,
stamp]) until the release point the compiler chose (SPEC section 10, 'Sticky pc');
stores and returns join the pc; a `set` under a raised pc checks no-sensitive-upgrade
against the entries pushed after the variable was declared; sinks live in the builtins.

Unlabelled values take the same fast paths as in the plain loop, so labels on costs a
type test per operand, not a second interpreter's worth of work.
"""

from synsema.vm import ops
from synsema.vm.errors import EMPTY, SynError
from synsema.vm.values import UNSET, Closure, Labeled


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
        t = vm.try_entries[-1]
        t[0] = t[0] | labels
    vm.pc = vm.pc | labels


def taint_try(vm, labels):
    """Inside a try block, labels that decide whether an operation raises stay raised
    until the end of the try (SPEC section 10)."""
    if vm.try_entries and labels:
        t = vm.try_entries[-1]
        if not labels <= t[0]:
            vm.stamp += 1
            t[0] = t[0] | labels
            t[3] = vm.stamp
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
        if labels <= v.l:
            return v
        return Labeled(v.v, v.l | labels)
    return Labeled(v, labels)


def _binary(vm, fn, a, b, can_raise=True):
    la = a.l if type(a) is Labeled else EMPTY
    lb = b.l if type(b) is Labeled else EMPTY
    labels = la | lb
    if can_raise and labels and vm.try_entries:
        taint_try(vm, labels)
    try:
        r = fn(a.v if la else a, b.v if lb else b)
    except SynError as e:
        e.labels = e.labels | labels
        raise
    return Labeled(r, labels) if labels else r


def _unary(vm, fn, a, *extra):
    labels = a.l
    if vm.try_entries:
        taint_try(vm, labels)
    try:
        r = fn(a.v, *extra)
    except SynError as e:
        e.labels = e.labels | labels
        raise
    return Labeled(r, labels)


def _upgrade_check(vm, value, stamp, name):
    """No sensitive upgrade: entries pushed after the variable's declaration must be
    covered by the label the variable already has."""
    have = value.l if type(value) is Labeled else EMPTY
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


# ---- the loop ------------------------------------------------------------------------------

def run_labels(vm, closure, args):
    clabels = EMPTY
    if type(closure) is Labeled:   # never from the loop itself; defensive for builtins
        clabels, closure = closure.l, closure.v
    func = closure.func
    code = func.plain
    locals_ = args + func.pads[len(args)]
    if closure.captures:
        locals_ += closure.captures
    stamps = [vm.stamp] * len(locals_)
    stack = []
    frames = []
    handlers = None
    pc = 0
    glob = vm.globals
    gstamps = vm.global_stamps
    base_depth = vm.depth
    room = vm.max_depth - base_depth
    budget = vm.take_budget()
    push = stack.append
    pop = stack.pop
    add, sub, mul, div, mod = ops.add, ops.sub, ops.mul, ops.div, ops.mod
    lt, le, gt, ge, eq = ops.lt, ops.le, ops.gt, ops.ge, ops.eq
    index = ops.index
    if clabels:
        push_pc(vm, clabels, base_depth, 0)
    try:
        while True:
            try:
                while True:
                    op, arg = code[pc]
                    pc += 1
                    if op == 3:  # LOAD_LOCAL
                        push(locals_[arg])
                    elif op == 1:  # CONST
                        push(arg)
                    elif op == 37:  # CALL_TASK
                        f, n = arg
                        if n:
                            new = stack[-n:]
                            del stack[-n:]
                        else:
                            new = []
                        if len(frames) >= room:
                            raise vm.depth_limit()
                        budget -= 1
                        if budget <= 0:
                            budget = vm.tick(budget)
                        frames.append((code, pc, stack, locals_, handlers, func, stamps))
                        func = f
                        code = f.plain
                        locals_ = new + f.pads[n]
                        stamps = [vm.stamp] * len(locals_)
                        stack = []
                        push = stack.append
                        pop = stack.pop
                        handlers = None
                        pc = 0
                    elif op == 39:  # RETURN
                        val = pop()
                        if vm.pc:
                            val = _join(val, vm.pc)
                        if vm.pc_stack:
                            drop_frames(vm, base_depth + len(frames))
                        if not frames:
                            return val
                        code, pc, stack, locals_, handlers, func, stamps = frames.pop()
                        push = stack.append
                        pop = stack.pop
                        push(val)
                    elif op == 30:  # JUMP_IF_FALSE
                        v = pop()
                        if type(v) is Labeled:
                            push_pc(vm, v.l, base_depth + len(frames), arg[1])
                            v = v.v
                        if v is False:
                            pc = arg[0]
                        elif v is not True:
                            raise vm.cond_error(func, pc - 1, v)
                    elif op == 5:  # DECLARE_LOCAL
                        v = pop()
                        if vm.pc:
                            v = _join(v, vm.pc)
                        locals_[arg] = v
                        stamps[arg] = vm.stamp
                    elif op == 4:  # STORE_LOCAL
                        v = pop()
                        if vm.pc:
                            _upgrade_check(vm, locals_[arg], stamps[arg], func.local_names[arg]
                                           if arg < len(func.local_names) else f"local {arg}")
                            v = _join(v, vm.pc)
                        locals_[arg] = v
                    elif op == 11:  # ADD
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a + b
                        elif type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, add, a, b)
                        else:
                            stack[-1] = add(a, b)
                    elif op == 12:  # SUB
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a - b
                        elif type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, sub, a, b)
                        else:
                            stack[-1] = sub(a, b)
                    elif op == 18:  # LT
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a < b
                        elif type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, lt, a, b)
                        else:
                            stack[-1] = lt(a, b)
                    elif op == 16:  # EQ
                        b = pop()
                        a = stack[-1]
                        if type(a) is type(b) and (type(a) is int or type(a) is str):
                            stack[-1] = a == b
                        elif type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, eq, a, b, False)
                        else:
                            stack[-1] = eq(a, b)
                    elif op == 29:  # JUMP
                        pc = arg
                    elif op == 100:  # JUMP_BACK
                        budget -= pc - arg
                        if budget <= 0:
                            budget = vm.tick(budget)
                        pc = arg
                    elif op == 6:  # LOAD_GLOBAL
                        v = glob[arg]
                        if v is UNSET:
                            raise vm.unset_error(arg)
                        push(v)
                    elif op == 101 or op == 38:  # CALL_VM_BUILTIN, CALL_BUILTIN
                        fn, n = arg
                        if n:
                            a = stack[-n:]
                            del stack[-n:]
                        else:
                            a = ()
                        vm.depth = base_depth + len(frames) + 1
                        vm.site = (func, pc - 1)
                        try:
                            push(fn(vm, *a))
                        finally:
                            vm.depth = base_depth
                    elif op == 2:  # POP
                        pop()
                    elif op == 24:  # INDEX
                        i = pop()
                        x = stack[-1]
                        if type(x) is list and type(i) is int and -len(x) <= i < len(x):
                            stack[-1] = x[i]
                        elif type(x) is Labeled or type(i) is Labeled:
                            stack[-1] = _binary(vm, index, x, i)
                        else:
                            stack[-1] = index(x, i)
                    elif op == 13:  # MUL
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a * b
                        elif type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, mul, a, b)
                        else:
                            stack[-1] = mul(a, b)
                    elif op == 14:  # DIV
                        b = pop()
                        a = stack[-1]
                        if type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, div, a, b)
                        else:
                            stack[-1] = div(a, b)
                    elif op == 15:  # MOD
                        b = pop()
                        a = stack[-1]
                        if type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, mod, a, b)
                        else:
                            stack[-1] = mod(a, b)
                    elif op == 17:  # NE
                        b = pop()
                        a = stack[-1]
                        if type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, ops.ne, a, b, False)
                        else:
                            stack[-1] = not eq(a, b)
                    elif op == 19:  # LE
                        b = pop()
                        a = stack[-1]
                        if type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, le, a, b)
                        else:
                            stack[-1] = le(a, b)
                    elif op == 20:  # GT
                        b = pop()
                        a = stack[-1]
                        if type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, gt, a, b)
                        else:
                            stack[-1] = gt(a, b)
                    elif op == 21:  # GE
                        b = pop()
                        a = stack[-1]
                        if type(a) is Labeled or type(b) is Labeled:
                            stack[-1] = _binary(vm, ge, a, b)
                        else:
                            stack[-1] = ge(a, b)
                    elif op == 35:  # FOR_ITER
                        v = next(stack[-1], UNSET)
                        if v is UNSET:
                            pop()
                            pc = arg
                        else:
                            push(v)
                    elif op == 34:  # ITER_START
                        c = stack[-1]
                        if type(c) is Labeled:
                            if vm.try_entries:
                                taint_try(vm, c.l)
                            push_pc(vm, c.l, base_depth + len(frames), arg)
                            try:
                                stack[-1] = ops.iterate(c.v)
                            except SynError as e:
                                e.labels = e.labels | c.l
                                raise
                        else:
                            stack[-1] = ops.iterate(c)
                    elif op == 8:  # DECLARE_GLOBAL
                        v = pop()
                        if vm.pc:
                            v = _join(v, vm.pc)
                        glob[arg] = v
                        gstamps[arg] = vm.stamp
                    elif op == 7:  # STORE_GLOBAL
                        v = pop()
                        if vm.pc:
                            _upgrade_check(vm, glob[arg], gstamps[arg], vm.program.globals[arg])
                            v = _join(v, vm.pc)
                        glob[arg] = v
                    elif op == 25:  # FIELD
                        x = stack[-1]
                        if type(x) is dict:
                            stack[-1] = x.get(arg)
                        elif type(x) is Labeled:
                            stack[-1] = _unary(vm, ops.field, x, arg)
                        else:
                            stack[-1] = ops.field(x, arg)
                    elif op == 27:  # BUILD_LIST
                        if arg:
                            items, labels = _plain_seq(stack[-arg:])
                            del stack[-arg:]
                            push(Labeled(items, labels) if labels else items)
                        else:
                            push([])
                    elif op == 28:  # BUILD_MAP
                        if arg:
                            items, labels = _plain_seq(stack[-2 * arg:])
                            del stack[-2 * arg:]
                            if labels and vm.try_entries:
                                taint_try(vm, labels)
                            try:
                                m = ops.build_map(items)
                            except SynError as e:
                                e.labels = e.labels | labels
                                raise
                            push(Labeled(m, labels) if labels else m)
                        else:
                            push({})
                    elif op == 31:  # AND_JUMP
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
                    elif op == 32:  # OR_JUMP
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
                    elif op == 33:  # CHECK_BOOL
                        v = stack[-1]
                        raw = v.v if type(v) is Labeled else v
                        if raw is not True and raw is not False:
                            ops.check_bool(raw, arg)
                        if vm.pc:
                            stack[-1] = _join(v, vm.pc)
                    elif op == 42:  # PC_RELEASE
                        if vm.pc_stack:
                            release(vm, base_depth + len(frames), arg)
                    elif op == 23:  # NOT
                        v = stack[-1]
                        if type(v) is Labeled:
                            stack[-1] = _unary(vm, ops.not_, v)
                        else:
                            stack[-1] = ops.not_(v)
                    elif op == 22:  # NEG
                        v = stack[-1]
                        if type(v) is Labeled:
                            stack[-1] = _unary(vm, ops.neg, v)
                        else:
                            stack[-1] = ops.neg(v)
                    elif op == 26:  # SET_PATH
                        v = pop()
                        keys = stack[-arg:]
                        del stack[-arg:]
                        items, labels = _plain_seq([stack[-1], v] + keys)
                        if labels and vm.try_entries:
                            taint_try(vm, labels)
                        try:
                            r = ops.set_path(items[0], items[2:], items[1])
                        except SynError as e:
                            e.labels = e.labels | labels
                            raise
                        stack[-1] = Labeled(r, labels) if labels else r
                    elif op == 36:  # CALL
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
                            try:
                                ops.not_callable(callee)
                            except SynError as e:
                                e.labels = e.labels | clab
                                raise
                        f = callee.func
                        if not f.nrequired <= arg <= len(f.params):
                            try:
                                ops.arity_error(f, arg)
                            except SynError as e:
                                e.labels = e.labels | clab
                                raise
                        if len(frames) >= room:
                            raise vm.depth_limit()
                        budget -= 1
                        if budget <= 0:
                            budget = vm.tick(budget)
                        frames.append((code, pc, stack, locals_, handlers, func, stamps))
                        func = f
                        code = f.plain
                        locals_ = new + f.pads[arg]
                        if callee.captures:
                            locals_ += callee.captures
                        stamps = [vm.stamp] * len(locals_)
                        stack = []
                        push = stack.append
                        pop = stack.pop
                        handlers = None
                        pc = 0
                        if clab:
                            push_pc(vm, clab, base_depth + len(frames), 0)
                    elif op == 10:  # MAKE_LAMBDA
                        f, n = arg
                        if n:
                            caps, labels = _plain_seq(stack[-n:])
                            del stack[-n:]
                            caps = tuple(caps)
                        else:
                            caps, labels = (), EMPTY
                        c = Closure(f, caps)
                        push(Labeled(c, labels) if labels else c)
                    elif op == 43:  # JUMP_IF_SET
                        slot, target = arg
                        if locals_[slot] is not UNSET:
                            pc = target
                    elif op == 40:  # TRY_BEGIN
                        if handlers is None:
                            handlers = []
                        depth = base_depth + len(frames)
                        vm.stamp += 1
                        entry = [EMPTY, depth, arg[1], vm.stamp, True]
                        vm.pc_stack.append(entry)
                        vm.try_entries.append(entry)
                        handlers.append((arg[0], len(stack), entry))
                    elif op == 41:  # TRY_END
                        entry = handlers.pop()[2]
                        if entry in vm.try_entries:
                            vm.try_entries.remove(entry)
                    else:
                        raise vm.bad_opcode(op)
            except Exception as exc:  # noqa: BLE001 - every error is turned into a SynError
                err = vm.as_error(exc)
                if vm.pc:
                    err.labels = err.labels | vm.pc
                vm.trace_frame(err, func, pc - 1)
                if not err.catchable:
                    for fr in reversed(frames):
                        vm.trace_frame(err, fr[5], fr[1] - 1)
                    raise err from None
                while not handlers:
                    if not frames:
                        raise err from None
                    code, pc, stack, locals_, handlers, func, stamps = frames.pop()
                    vm.trace_frame(err, func, pc - 1)
                target, depth, entry = handlers.pop()
                del stack[depth:]
                push = stack.append
                pop = stack.pop
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
                _recompute(vm)
                err.trace.clear()
                push(Labeled(err.message, err.labels) if err.labels else err.message)
                pc = target
    finally:
        vm.return_budget(budget)
        if vm.pc_stack:
            drop_frames(vm, base_depth)
