"""Verified bytecode -> the instruction list the loop runs, decoded once per run.

Each instruction becomes an (opcode, argument) pair: constants are resolved to their
values, tasks to closures, builtins to callables, jump targets to instruction indexes.
Without labels, the label-only instructions (PC_RELEASE) are dropped and release ids
are left out, so the plain loop does no label work at all.
"""

from synsema.vm import opcodes as O
from synsema.vm import optable as T
from synsema.vm import ops
from synsema.vm.flow import release_points
from synsema.vm.opcodes import iter_instructions
from synsema.vm.values import UNSET, Closure


def decode_function(func, program, tasks, builtins, pads, labels, superinstructions=True):
    """Returns (instructions, positions, cond_words) for one function.

    tasks: function index -> Closure; builtins: builtin index -> (callable, needs_vm, *more):
    the instruction's operand is (callable, argument count, *more); pads: Function ->
    FramePads (a direct call carries its callee's pad).
    """
    raw = list(iter_instructions(func.code))
    # Position of every raw instruction, from the run-length table.
    pos_by_off = {}
    changes = sorted(func.positions)
    ci = 0
    cur = (func.line, func.col)
    for off, _, _ in raw:
        while ci < len(changes) and changes[ci][0] <= off:
            cur = (changes[ci][1], changes[ci][2])
            ci += 1
        pos_by_off[off] = cur
    # `when` or `while`, for the message of a condition that is not a bool, from the file's
    # own code: the instruction just before a `while`'s exit is its jump back to the top.
    prev_of = {}
    for k in range(1, len(raw)):
        prev_of[raw[k][0]] = raw[k - 1]
    prev_of[len(func.code)] = raw[-1] if raw else None
    word_at = {}
    for off, op, a in raw:
        if op.code == O.JUMP_IF_FALSE:
            prev = prev_of.get(a[0])
            back = prev is not None and prev[1].code == O.JUMP and prev[2][0] <= prev[0]
            word_at[off] = "while" if back else "when"
    # Dropped: PC_RELEASE (labels recompute their release points, below) and a JUMP to
    # the very next instruction (the end of a `when` without `otherwise`), which does
    # nothing. Offsets -> decoded indexes (a dropped instruction maps to the next kept one).
    index_of = {}
    n = 0
    dropped = set()
    for k, (off, op, a) in enumerate(raw):
        index_of[off] = n
        nxt = raw[k + 1][0] if k + 1 < len(raw) else len(func.code)
        if op.code == O.PC_RELEASE or (op.code == O.JUMP and a[0] == nxt):
            dropped.add(off)
        else:
            n += 1
    index_of[len(func.code)] = n

    ctx = Context(program, tasks, builtins, pads, labels, index_of, func.fixed)
    decoders = T.DECODE
    out = []
    positions = []
    words = {}
    for off, op, a in raw:
        if off in dropped:
            continue
        here = ctx.here = len(out)
        if off in word_at:
            words[here] = word_at[off]
        ins = decoders[op.code](a, ctx)
        out.append(ins)
        positions.append(pos_by_off[off])
    if labels:
        out, positions, words = _with_release_points(out, positions, words)
    if superinstructions:
        return fuse(out, positions, words, labels)
    return out, Positions(positions), words


class Context:
    """What a file instruction's decoding reads (vm/instructions.py `decode`, made into
    optable.DECODE): the program's tables, the run's, where each file offset lands among
    the decoded instructions (`at`) and the index of the one being decoded (`here`)."""

    __slots__ = ("consts", "functions", "tasks", "builtins", "pads", "labels", "at",
                 "fixed", "here")

    def __init__(self, program, tasks, builtins, pads, labels, at, fixed):
        self.consts, self.functions = program.consts, program.functions
        self.tasks, self.builtins, self.pads, self.labels = tasks, builtins, pads, labels
        self.at, self.fixed, self.here = at, fixed, 0


def _with_release_points(code, positions, words):
    """Labels mode: release ids and PC_RELEASE instructions from the VM's own analysis of
    the code (vm.flow.release_points), not from the file."""
    new, m, own = release_points(code)
    out = _relinked(new, m)
    new_pos = [None] * len(out)
    for old, pos in enumerate(positions):
        new_pos[own[old]] = pos
    for i in range(len(new_pos) - 1, -1, -1):      # a PC_RELEASE: its instruction's place
        if new_pos[i] is None:
            new_pos[i] = new_pos[i + 1] if i + 1 < len(new_pos) else positions[-1]
    new_words = {own[old]: w for old, w in words.items()}
    return out, new_pos, new_words


class FramePads(dict):
    """pads[n]: what to append to n arguments to make the locals list of a call (the
    unpassed parameters, then the `let` slots), made the first time a call with n
    arguments needs it: one per argument count used, not one per count allowed."""

    def __init__(self, func):
        super().__init__()
        self.func = func

    def __missing__(self, n):
        f = self.func
        nparams = len(f.params)
        if not f.nrequired <= n <= nparams:
            ops.arity_error(f, n)       # a builtin calling it wrongly: a Synsema error
        pad = self[n] = [UNSET] * (nparams - n) + [None] * (f.nlocals - f.fixed)
        return pad


def make_task_closures(program):
    return {i: Closure(f) for i, f in enumerate(program.functions) if f.kind == "task"}


# ---- superinstructions ----------------------------------------------------------------------
# Which sequences fuse, and into what, is data generated from vm/instructions.py (optable).

def _label_only(name):
    return name.startswith("+") or name == "rid"


def _full(op, arg, labels):
    """All decoded fields of an instruction, as a tuple (a label-only one is 0 without
    labels): the operand a superinstruction gets from this part."""
    spec = T.FIELDS[op]
    mine = [n for n in spec if labels or not _label_only(n)]
    if not mine:
        return (0,) * len(spec)
    vals = iter((arg,) if len(mine) == 1 else arg)
    return tuple(next(vals) if labels or not _label_only(n) else 0 for n in spec)


_FUSED_BY_FIRST = {}
for _sup in T.FUSED:
    for _op in _sup[1][0]:
        _FUSED_BY_FIRST.setdefault(_op, []).append(_sup)
# Those of 3 or more parts: what _better_later looks for. The generated table lists the
# longest first (tools/gen_dispatch.py), so the first of a position's candidates to match
# has 3 or more parts exactly when one of these matches there.
_LONG_BY_FIRST = {op: [s for s in sups if len(s[1]) >= 3]
                  for op, sups in _FUSED_BY_FIRST.items()}
assert all(len(a[1]) >= len(b[1]) for sups in _FUSED_BY_FIRST.values()
           for a, b in zip(sups, sups[1:])), "optable.FUSED must list the longest first"


def _match(code, i, n, targets, labels, by_first=_FUSED_BY_FIRST, later=None):
    """The superinstruction starting at i: (length, opcode, arg, index of the instruction
    whose position it takes) or None. No instruction after the first may be a jump target.
    by_first: the candidates, by the opcode at i; later: what their `when` calls as
    better_later (by default _better_later)."""
    if later is None:
        later = _LATER[labels]
    for sup, parts, at, when in by_first.get(code[i][0], ()):
        k = len(parts)
        if i + k > n or any(j in targets for j in range(i + 1, i + k)):
            continue
        fields = []
        for j, part in enumerate(parts):
            op, arg = code[i + j]
            if op not in part:
                break
            fields.append(_full(op, arg, labels) if part[op] is None else (part[op],))
        else:
            if when(fields, i, code, n, targets, later):
                return k, sup, tuple(x for f in fields for x in f), i + at
    return None


def _better_later(code, i, n, targets, labels):
    """Is a superinstruction of 3 or more parts starting at i + 1 better than one
    starting at i? `a + b * 2`: LOAD_LOCAL a, then `b * 2` as one instruction, is one
    dispatch fewer than LOAD_LOCAL2 a b, CONST 2, MUL (and `s + x[i][k]`: LOAD_LOCAL s,
    then x[i][k] as one).

    Only the candidates of 3 or more parts are tried at i + 1: the first to match there
    is one of them if any matches (the longest come first). None of them asks
    better_later (only LOAD_LOCAL2 does); were one to, it would get False: the lookahead
    is one instruction deep, never a recursion. Trying every candidate at i + 1, as
    before, recursed once per instruction of a run of LOAD_LOCALs (a list of 250
    variables was a RecursionError at load)."""
    if i + 1 >= n:
        return False
    return _match(code, i + 1, n, targets, labels, _LONG_BY_FIRST, _no_later) is not None


def _no_later(code, i, n, targets):
    return False


# What a `when` calls as better_later(code, i, n, targets), per mode.
_LATER = {labels: (lambda code, i, n, targets, labels=labels:
                   _better_later(code, i, n, targets, labels)) for labels in (False, True)}


def _targets(code):
    out = set()
    for op, arg in code:
        where = T.JUMP_AT.get(op)
        if where is not None:
            out.add(arg[where] if type(arg) is tuple else arg)
    return out


def _retarget(op, arg, m):
    where = T.JUMP_AT.get(op)
    if where is None:
        return arg
    if type(arg) is not tuple:
        return m[arg]
    return arg[:where] + (m[arg[where]],) + arg[where + 1:]


class Positions(list):
    """The source position of each decoded instruction. `parts[i]`, for a superinstruction
    at i: the position of each of its parts, for the part that raised (vm.part)."""

    def __init__(self, items=()):
        super().__init__(items)
        self.parts = {}


def fuse(code, positions, words, labels):
    """Replace the hottest instruction sequences with superinstructions; returns the new
    (code, positions, words). Jump targets are remapped; no sequence spans a target."""
    n = len(code)
    targets = _targets(code)
    new_code, new_pos, m = [], Positions(), {}
    new_words = {}
    i = 0
    while i < n:
        hit = _match(code, i, n, targets, labels)
        m[i] = len(new_code)
        if hit is None:
            if i in words:
                new_words[len(new_code)] = words[i]
            new_code.append(code[i])
            new_pos.append(positions[i])
            i += 1
            continue
        length, op, arg, at = hit
        for j in range(i + 1, i + length):
            m[j] = len(new_code)
        new_pos.parts[len(new_code)] = tuple(positions[i:i + length])
        new_code.append((op, arg))
        new_pos.append(positions[at])
        i += length
    m[n] = len(new_code)
    new_code = _relinked(new_code, m)
    _thread(new_code, new_pos)
    _tails(new_code, new_pos, labels)
    return new_code, new_pos, new_words


_THREADED = {(jump, target): sup for jump, target, sup in T.THREADED}
_THREADED_JUMPS = {jump for jump, _, _ in T.THREADED}


def _thread(code, positions):
    """A jump whose target is a superinstruction a THREADED one continues becomes that
    one (its fields: the jump's, then the target's). It keeps the jump's position (a step
    or time limit it reaches is where the jump was), its other parts the target's."""
    for idx, (op, arg) in enumerate(code):
        if op in _THREADED_JUMPS:
            target_op, target_arg = code[arg]
            sup = _THREADED.get((op, target_op))
            if sup is not None:
                code[idx] = (sup, (arg,) + (target_arg if type(target_arg) is tuple
                                            else (target_arg,)))
                positions.parts[idx] = (positions[idx],) + positions.parts.get(
                    arg, (positions[arg],))


_TAILS = {(head, back): sup for head, back, sup in T.TAILS}
_FUSED_OPS = {f[0] for f in T.FUSED}        # their argument: every part's fields, a tuple


def _tails(code, positions, labels):
    """A statement followed by the threaded jump that ends a loop body becomes one
    instruction running both (T.TAILS). The jump stays where it is, for the paths that
    jump to it; the statement's path no longer reaches it."""
    for idx in range(len(code) - 1):
        op, arg = code[idx]
        nop, narg = code[idx + 1]
        sup = _TAILS.get((op, nop))
        if sup is not None:
            mine = arg if op in _FUSED_OPS else _full(op, arg, labels)
            code[idx] = (sup, mine + (narg if nop in _FUSED_OPS else _full(nop, narg, labels)))
            positions.parts[idx] = positions.parts.get(idx, (positions[idx],)) + \
                positions.parts.get(idx + 1, (positions[idx + 1],))


def _relinked(code, m):
    """Jump targets mapped through m (old index -> new); a JUMP is JUMP_BACK when it goes
    backward (where the loop checks its limits)."""
    out = []
    for idx, (op, arg) in enumerate(code):
        arg = _retarget(op, arg, m)
        if op in (O.JUMP, O.JUMP_BACK):
            op = O.JUMP_BACK if arg <= idx else O.JUMP
        out.append((op, arg))
    return out
