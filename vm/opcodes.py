"""The opcode table: the single source of truth for compiler, VM, verifier and disassembler.

Instruction format in a .synb (a flat list of integers):

    OPCODE [OPERAND ...]      the number of operands is fixed per opcode (`operands` below)

Operand kinds:
    const    index into the program's constant pool
    local    slot in the running function's locals (parameters first, then captures,
             then every `let` of the body, each its own slot)
    global   slot in the program's top-level variables
    func     index into the program's function table
    builtin  index into the program's builtin-name table
    count    a small non-negative integer (arguments, items, keys)
    jump     absolute offset of an instruction in the same function's code
    rid      release id for information-flow labels: the construct at whose end a pc
             label raised by this instruction is dropped (0 = when the function returns).
             Advisory: with --labels the VM recomputes every release point from the
             code's post-dominators (vm.flow), so a crafted file cannot move one

Stack pictures use `..` for what lies below; `n` is the count operand.
The VM decodes each function once at load time into (opcode, operand) pairs; opcodes at
or above FIRST_INTERNAL are superinstructions made by that decoder and never appear in a
file.
"""

from synsema.vm import optable as T
# The opcodes by name, generated (CONST = 1, ...), so the compiler and VM say `O.ADD`, not
# 11, and editors and type checkers see them.
from synsema.vm.optable import *  # noqa: F401,F403


class Op:
    """One row of the table, read by its fields' names. (A plain class rather than a
    namedtuple: making the namedtuple class was a quarter of a millisecond of every
    `syn exec`, issue 31.)"""
    __slots__ = ("name", "code", "operands", "pops", "pushes", "flow", "doc")

    def __init__(self, name, code, operands, pops, pushes, flow, doc):
        self.name, self.code, self.operands = name, code, operands
        self.pops, self.pushes, self.flow, self.doc = pops, pushes, flow, doc

    def __repr__(self):
        return f"Op({self.name}, {self.code})"


# pops/pushes: int, or a function of the operand tuple.
# flow: "next" | "jump" (unconditional) | "branch" (may jump, else next) | "call" |
#       "return" | "try" | "for_iter" | "keep_or_pop" (see the verifier)
# Every instruction is defined once, in vm/instructions.py; tools/gen_dispatch.py makes
# vm/optable.py (this table's rows) and the loops from it.
_TABLE = T.TABLE

OPS = [Op(*row) for row in _TABLE]
BY_NAME = {op.name: op for op in OPS}
BY_CODE = {op.code: op for op in OPS}
MAX_CODE = max(BY_CODE)


def stack_effect(op, operands):
    """(pops, pushes) of one instruction with its operand tuple."""
    pops = op.pops(operands) if callable(op.pops) else op.pops
    pushes = op.pushes(operands) if callable(op.pushes) else op.pushes
    return pops, pushes


def iter_instructions(code):
    """Yield (offset, Op, operands) over a flat code list; raises ValueError on a bad
    opcode or a truncated instruction (the verifier turns that into its message)."""
    i, n = 0, len(code)
    while i < n:
        op = BY_CODE.get(code[i])
        if op is None:
            raise ValueError(f"unknown opcode {code[i]!r} at offset {i}")
        width = len(op.operands)
        if i + 1 + width > n:
            raise ValueError(f"instruction {op.name} at offset {i} is cut short")
        yield i, op, tuple(code[i + 1:i + 1 + width])
        i += 1 + width


# ---- internal opcodes: made by the loader's decoder (vm.decode), never in a file -------
FIRST_INTERNAL = T.FIRST_INTERNAL
INTERNAL = {name: code for name, code, _ in T.INTERNAL}
INTERNAL_DOCS = {code: doc for _, code, doc in T.INTERNAL}
# A direct call's operand holds its callee and, filled in by the VM, the callee's decoded
# code: op -> (index of the callee, index of the code) among its fields.
CALLEE_AT = {op: (f.index("callee"), f.index("fcode")) for op, f in T.FIELDS.items()
             if "fcode" in f}
