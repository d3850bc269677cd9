"""Verified bytecode -> the instruction list the loop runs, decoded once per run.

Each instruction becomes an (opcode, argument) pair: constants are resolved to their
values, tasks to closures, builtins to callables, jump targets to instruction indexes.
Without labels, the label-only instructions (PC_RELEASE) are dropped and release ids
are left out, so the plain loop does no label work at all.
"""

from synsema.vm import opcodes as O
from synsema.vm.opcodes import iter_instructions
from synsema.vm.values import UNSET, Closure


def decode_function(func, program, tasks, builtins, labels):
    """Returns (instructions, positions, cond_words) for one function.

    tasks: function index -> Closure; builtins: builtin index -> (callable, needs_vm).
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
    # Offsets -> decoded indexes (a dropped instruction maps to the next kept one).
    index_of = {}
    n = 0
    for off, op, _ in raw:
        index_of[off] = n
        if labels or op.code != O.PC_RELEASE:
            n += 1
    index_of[len(func.code)] = n

    consts = program.consts
    out = []
    positions = []
    words = {}
    for off, op, a in raw:
        code = op.code
        if code == O.PC_RELEASE and not labels:
            continue
        here = len(out)
        if code == O.CONST:
            ins = (O.CONST, consts[a[0]])
        elif code == O.LOAD_TASK:
            ins = (O.CONST, tasks[a[0]])
        elif code == O.MAKE_LAMBDA:
            ins = (O.MAKE_LAMBDA, (program.functions[a[0]], a[1]))
        elif code == O.CALL_TASK:
            ins = (O.CALL_TASK, (program.functions[a[0]], a[1]))
        elif code == O.CALL_BUILTIN:
            fn, needs_vm = builtins[a[0]]
            ins = (O.CALL_VM_BUILTIN if needs_vm else O.CALL_BUILTIN, (fn, a[1]))
        elif code in (O.FIELD, O.CHECK_BOOL):
            ins = (code, consts[a[0]])
        elif code == O.JUMP:
            t = index_of[a[0]]
            ins = (O.JUMP_BACK if t <= here else O.JUMP, t)
        elif code in (O.JUMP_IF_FALSE, O.AND_JUMP, O.OR_JUMP, O.TRY_BEGIN):
            t = index_of[a[0]]
            ins = (code, (t, a[1]) if labels else t)
        elif code == O.FOR_ITER:
            ins = (code, index_of[a[0]])
        elif code == O.JUMP_IF_SET:
            ins = (code, (a[0], index_of[a[1]]))
        elif code in (O.ITER_START, O.PC_RELEASE):
            ins = (code, a[0] if labels else None)
        elif len(a) == 1:
            ins = (code, a[0])
        else:
            ins = (code, None)
        out.append(ins)
        positions.append(pos_by_off[off])
    # `when` or `while`, for the message of a condition that is not a bool: a while's
    # exit is just after its backward jump.
    for i, (code, arg) in enumerate(out):
        if code == O.JUMP_IF_FALSE:
            t = arg[0] if labels else arg
            prev = out[t - 1] if 0 < t <= len(out) else None
            if labels and prev and prev[0] == O.PC_RELEASE and t >= 2:
                prev = out[t - 2]
            words[i] = "while" if prev and prev[0] == O.JUMP_BACK else "when"
    return out, positions, words


def frame_pads(func):
    """pads[n]: what to append to n arguments to make the locals list of a call."""
    nparams = len(func.params)
    rest = func.nlocals - nparams - func.ncaptures
    pads = {}
    for n in range(func.nrequired, nparams + 1):
        pads[n] = [UNSET] * (nparams - n) + [None] * max(rest, 0)
    return pads


def make_task_closures(program):
    return {i: Closure(f) for i, f in enumerate(program.functions) if f.kind == "task"}
