"""Information flow for the labels loop (vm/loop_labels_fast.py, generated from
vm/instructions.py): the pc stack and the operations on labelled values.

Every value may be a Labeled wrapper (vm.values). Operations join their inputs' labels;
a labelled condition raises the pc label (vm.pc_stack entries: [labels, depth, rid,
stamp]) until the release point the compiler chose (SPEC section 10, 'Sticky pc');
stores and returns join the pc; a `set` under a raised pc checks no-sensitive-upgrade
against the entries pushed after the variable was declared; sinks live in the builtins.

Unlabelled values take the same fast paths as in the plain loop, so labels on costs a
type test per operand, not a second interpreter's worth of work.
"""

from synsema.vm import ops
from synsema.vm import precise as P
from synsema.vm.errors import EMPTY
from synsema.vm.values import Labeled, norm_key


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


def _withhold_frames(err, pcs, base_depth, nframes):
    """An uncaught error leaves this run (`nframes` callers below the frame that raised,
    the outermost at base_depth): mark its trace entries that ran under a labelled pc.
    Where such a frame was (which line, how deep the recursion) depends on the labels,
    so a report must not show it. A pc entry taints its own frame and every frame it
    called, so the secret entries are the innermost ones: a prefix of the trace."""
    low = min((e[1] for e in pcs if e[0]), default=None)
    if low is None:
        return
    mine = base_depth + nframes - max(low, base_depth) + 1
    before = len(err.trace) - (nframes + 1)      # entries from runs this one called
    if mine > 0 and err.secret_frames == before:
        err.secret_frames = before + mine
        # Which labels: a report shows those frames to a reader the ceiling lets see them.
        for e in pcs:
            if e[0]:
                err.secret_pc = err.secret_pc | e[0]


def withhold_frame(err, pcs, depth):
    """_withhold_frames one frame at a time (tier 2: each translated function adds its own
    frame to an error's trace as the error passes through it, innermost first): the frame
    at `depth` ran under a labelled pc when an entry at or below its depth holds labels;
    it is withheld when every entry before it in the trace is (the secret ones are a
    prefix, as there)."""
    low = min((e[1] for e in pcs if e[0]), default=None)
    if low is None or low > depth:
        return
    if err.secret_frames == len(err.trace) - 1:
        err.secret_frames += 1
        for e in pcs:
            if e[0]:
                err.secret_pc = err.secret_pc | e[0]


def caught(vm, entry, labels):
    """An error labelled `labels` is caught by the try whose pc entry is `entry`: the
    entries above it (from the block and the tasks it called) end, merged into it; the
    try's entry and every enclosing try's take the error's labels (SPEC 10); the pc is
    recomputed."""
    st = vm.pc_stack
    if entry in st:
        del st[st.index(entry) + 1:]
    else:
        st.append(entry)
    if entry in vm.try_entries:
        del vm.try_entries[vm.try_entries.index(entry):]
    entry[0] = entry[0] | labels
    vm.stamp += 1
    entry[3] = vm.stamp
    for t in vm.try_entries:      # the enclosing tries (SPEC 10)
        t[0] = t[0] | labels
    _recompute(vm)


def _caught_message(err):
    """What a `recover` binds: the message, labelled as the error is."""
    return Labeled(err.message, err.labels) if err.labels else err.message


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


_join = P.join          # a value joined with the pc: one rule, vm.precise's


def _append_precise(vm, x, v):
    return P.append_to(vm, ops.append, x, v)


def _set_item_precise(vm, x, k, v):
    return P.set_at(vm, ops.set_item, x, k, v)


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
    # (ops.index refused a key that cannot be one: a list, a map, nothing)
    where = ops.list_index(x.v, iv) if type(x.v) is list else norm_key(iv)
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
    if type(r) is list and fn is ops.add:
        return P.concat(a, b, r)        # xs + ys moves elements without looking at them
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


def _raise_labelled(vm, labels, fn, *args):
    """fn(*args), whose error (if it raises) carries `labels`."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001
        raise _labelled_error(vm, e, labels) from None


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
            names = sorted(e[0] - have)
            missing, first = ", ".join(names), names[0]
            if e[4] and any(t is e for t in vm.try_entries):
                # a try still running its block: nothing was caught, but from the first
                # labelled operation on, whether the rest runs depends on that data
                vm.violation(
                    f"set of '{name}' inside a `try` whose block has touched data labelled "
                    f"{missing} would leak whether that data made the block raise (no "
                    "sensitive upgrade): from the first operation on labelled data, the "
                    "rest of the block runs only if it did not raise, so under those "
                    f"labels; label the variable when you declare it (`let {name} be "
                    f"private(..., \"{first}\")`), declare it inside the `try`, or do the "
                    "labelled work outside the `try`")
            if e[4]:        # a try's entry: its block (or a task it called) raised it
                vm.violation(
                    f"set of '{name}' after an error labelled {missing} was caught would "
                    "leak whether it happened (no sensitive upgrade): a `try` whose block "
                    "raised or touched labelled data runs its `recover`, and what follows "
                    "in the block, under those labels; label the variable when you declare "
                    f"it (`let {name} be private(..., \"{first}\")`), or declare what the "
                    "`recover` sets inside it")
            vm.violation(f"set of '{name}' under a branch on data labelled {missing} would "
                         "leak which way the branch went (no sensitive upgrade); declare the "
                         "variable inside the branch, or label it with private(...) first "
                         f"(`let {name} be private(..., \"{first}\")`)")


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


_CMP = (ops.le, ops.gt, ops.ge, ops.eq, ops.ne)     # by kind: CMP in vm/instructions.py


def _local_name(func, slot):
    return func.local_names[slot] if slot < len(func.local_names) else f"local {slot}"


def _store_value(vm, old, stamps, slot, v, name):
    """The new value of a `set` of a variable whose old value is `old` (tier 2 holds a
    local in a Python variable; _store, a slot of a list)."""
    if vm.pc:
        _upgrade_check(vm, old, stamps[slot] if stamps else 0, name)
        v = _join(v, vm.pc)
    return v


def _store(vm, where, stamps, slot, v, name):
    """`set` of a variable: no sensitive upgrade, then the value joined with the pc."""
    where[slot] = _store_value(vm, where[slot], stamps, slot, v, name)
