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

from collections import namedtuple

Op = namedtuple("Op", "name code operands pops pushes flow doc")
# pops/pushes: int, or a function of the operand tuple.
# flow: "next" | "jump" (unconditional) | "branch" (may jump, else next) |
#       "return" | "try" | "for_iter" | "keep_or_pop" (see the verifier)

_TABLE = [
    # name            code operands             pops                    pushes  flow     what it does
    ("CONST",           1, ("const",),          0,                      1, "next",   ".. -> .. consts[k]"),
    ("POP",             2, (),                  1,                      0, "next",   ".. x -> .."),
    ("LOAD_LOCAL",      3, ("local",),          0,                      1, "next",   ".. -> .. locals[s]"),
    ("STORE_LOCAL",     4, ("local",),          1,                      0, "next",   "set: .. x -> ..; locals[s] = x (labels: no sensitive upgrade)"),
    ("DECLARE_LOCAL",   5, ("local",),          1,                      0, "next",   "let: .. x -> ..; locals[s] = x (labels: stamps the declaration)"),
    ("LOAD_GLOBAL",     6, ("global",),         0,                      1, "next",   ".. -> .. globals[g]; error if its let has not run yet"),
    ("STORE_GLOBAL",    7, ("global",),         1,                      0, "next",   "set: .. x -> ..; globals[g] = x"),
    ("DECLARE_GLOBAL",  8, ("global",),         1,                      0, "next",   "let: .. x -> ..; globals[g] = x"),
    ("LOAD_TASK",       9, ("func",),           0,                      1, "next",   ".. -> .. task f"),
    ("MAKE_LAMBDA",    10, ("func", "count"),   lambda a: a[1],         1, "next",   ".. c1..cn -> .. lambda f capturing c1..cn"),
    ("ADD",            11, (),                  2,                      1, "next",   ".. a b -> .. a+b (numbers, texts, lists)"),
    ("SUB",            12, (),                  2,                      1, "next",   ".. a b -> .. a-b"),
    ("MUL",            13, (),                  2,                      1, "next",   ".. a b -> .. a*b"),
    ("DIV",            14, (),                  2,                      1, "next",   ".. a b -> .. a/b (exact int when it divides)"),
    ("MOD",            15, (),                  2,                      1, "next",   ".. a b -> .. a%b (sign of b)"),
    ("EQ",             16, (),                  2,                      1, "next",   ".. a b -> .. a==b (structural)"),
    ("NE",             17, (),                  2,                      1, "next",   ".. a b -> .. a!=b"),
    ("LT",             18, (),                  2,                      1, "next",   ".. a b -> .. a<b (numbers or texts)"),
    ("LE",             19, (),                  2,                      1, "next",   ".. a b -> .. a<=b"),
    ("GT",             20, (),                  2,                      1, "next",   ".. a b -> .. a>b"),
    ("GE",             21, (),                  2,                      1, "next",   ".. a b -> .. a>=b"),
    ("NEG",            22, (),                  1,                      1, "next",   ".. a -> .. -a"),
    ("NOT",            23, (),                  1,                      1, "next",   ".. b -> .. not b (b must be bool)"),
    ("INDEX",          24, (),                  2,                      1, "next",   ".. x i -> .. x[i]"),
    ("FIELD",          25, ("const",),          1,                      1, "next",   ".. m -> .. m[consts[k]] (nothing when absent)"),
    ("SET_PATH",       26, ("count",),          lambda a: a[0] + 2,     1, "next",   ".. x k1..kn v -> .. copy of x with x[k1]..[kn] = v"),
    ("BUILD_LIST",     27, ("count",),          lambda a: a[0],         1, "next",   ".. x1..xn -> .. [x1..xn]"),
    ("BUILD_MAP",      28, ("count",),          lambda a: 2 * a[0],     1, "next",   ".. k1 v1..kn vn -> .. {k1: v1, ..}"),
    ("JUMP",           29, ("jump",),           0,                      0, "jump",   "pc = t"),
    ("JUMP_IF_FALSE",  30, ("jump", "rid"),     1,                      0, "branch", ".. c -> ..; if c is false: pc = t (c must be bool)"),
    ("AND_JUMP",       31, ("jump", "rid"),     1,                      0, "keep_or_pop", "`and`: .. c -> .. c and pc = t if c is false; else .. (c must be bool)"),
    ("OR_JUMP",        32, ("jump", "rid"),     1,                      0, "keep_or_pop", "`or`: .. c -> .. c and pc = t if c is true; else .."),
    ("CHECK_BOOL",     33, ("const",),          1,                      1, "next",   ".. c -> .. c; error `WORD needs a bool` unless c is bool"),
    ("ITER_START",     34, ("rid",),            1,                      1, "next",   ".. coll -> .. iterator over a list's items, a map's keys or a text's characters"),
    ("FOR_ITER",       35, ("jump",),           1,                      0, "for_iter", ".. it -> .. it item; when exhausted: .. and pc = t"),
    ("CALL",           36, ("count",),          lambda a: a[0] + 1,     1, "next",   ".. f a1..an -> .. f(a1..an)"),
    ("CALL_TASK",      37, ("func", "count"),   lambda a: a[1],         1, "next",   ".. a1..an -> .. task f(a1..an)"),
    ("CALL_BUILTIN",   38, ("builtin", "count"), lambda a: a[1],        1, "next",   ".. a1..an -> .. builtin b(a1..an)"),
    ("RETURN",         39, (),                  1,                      0, "return", ".. x -> return x to the caller"),
    ("TRY_BEGIN",      40, ("jump", "rid"),     0,                      0, "try",    "push a handler: a catchable error resets the stack to here, pushes its message, pc = t"),
    ("TRY_END",        41, (),                  0,                      0, "next",   "pop the innermost handler of this function"),
    ("PC_RELEASE",     42, ("rid",),            0,                      0, "next",   "labels: drop the pc labels raised with this release id"),
    ("JUMP_IF_SET",    43, ("local", "jump"),   0,                      0, "branch", "if parameter s was passed: pc = t (skips its default)"),
    ("APPEND_LOCAL",   44, ("local",),          1,                      0, "next",   "`set x to append(x, v)`: .. v -> ..; locals[s] = locals[s] + [v] (in place when no one else holds the list)"),
    ("APPEND_GLOBAL",  45, ("global",),         1,                      0, "next",   "the same for a top-level variable"),
    ("SET_ITEM_LOCAL", 46, ("local",),          2,                      0, "next",   "`set x[k] to v`: .. k v -> ..; locals[s] = copy of it with [k] = v (in place when no one else holds it)"),
    ("SET_ITEM_GLOBAL", 47, ("global",),        2,                      0, "next",   "the same for a top-level variable"),
    ("DROP_UNDER",     48, ("count",),          lambda a: a[0] + 1,     1, "next",   ".. x1..xn v -> .. v (a `give` leaving `for each` loops drops their iterators)"),
]

OPS = [Op(*row) for row in _TABLE]
BY_NAME = {op.name: op for op in OPS}
BY_CODE = {op.code: op for op in OPS}
MAX_CODE = max(BY_CODE)

# Module-level constants (CONST, ADD, ...) so the compiler and VM say `ADD`, not 11.
globals().update({op.name: op.code for op in OPS})


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
FIRST_INTERNAL = 100
_INTERNAL = [
    ("JUMP_BACK",       100, "a backward JUMP: also where step and time limits are checked"),
    ("CALL_VM_BUILTIN", 101, "CALL_BUILTIN of a builtin that needs the VM (capabilities, calls)"),
    # Superinstructions for the hottest sequences (L = local slot, C = constant value).
    ("LOAD_LOCAL2",     102, "LOAD_LOCAL a; LOAD_LOCAL b"),
    ("ADD_LL",          103, "LOAD_LOCAL a; LOAD_LOCAL b; ADD"),
    ("ADD_LC",          104, "LOAD_LOCAL a; CONST c; ADD"),
    ("SUB_LC",          105, "LOAD_LOCAL a; CONST c; SUB"),
    ("MOD_LC",          106, "LOAD_LOCAL a; CONST c; MOD"),
    ("ADD_LL_ST",       107, "LOAD_LOCAL a; LOAD_LOCAL b; ADD; STORE_LOCAL s"),
    ("ADD_LC_ST",       108, "LOAD_LOCAL a; CONST c; ADD; STORE_LOCAL s"),
    ("SUB_LC_ST",       109, "LOAD_LOCAL a; CONST c; SUB; STORE_LOCAL s"),
    ("LT_LL_JF",        110, "LOAD_LOCAL a; LOAD_LOCAL b; LT; JUMP_IF_FALSE t"),
    ("LT_LC_JF",        111, "LOAD_LOCAL a; CONST c; LT; JUMP_IF_FALSE t"),
    ("CMP_LC_JF",       112, "LOAD_LOCAL a; CONST c; LE|GT|GE|EQ|NE; JUMP_IF_FALSE t"),
    ("EQ_C_JF",         113, "CONST c; EQ; JUMP_IF_FALSE t"),
    ("RETURN_LOCAL",    114, "LOAD_LOCAL a; RETURN"),
    ("FOR_ITER_DECL",   115, "FOR_ITER t; DECLARE_LOCAL s"),
    ("CMP_LL_JF",       116, "LOAD_LOCAL a; LOAD_LOCAL b; LE|GT|GE|EQ|NE; JUMP_IF_FALSE t"),
    ("CALL1_SUB_LC",    117, "LOAD_LOCAL a; CONST c; SUB; CALL_TASK f 1 (recursion on n - 1)"),
    ("ADD_RETURN",      118, "ADD; RETURN"),
    ("MUL_LC",          119, "LOAD_LOCAL a; CONST c; MUL"),
    ("SUB_LL_ST",       120, "LOAD_LOCAL a; LOAD_LOCAL b; SUB; STORE_LOCAL s"),
    ("ADD_ST",          121, "ADD; STORE_LOCAL s"),
    ("SUB_ST",          122, "SUB; STORE_LOCAL s"),
    ("MOD_LC_EQ_C_JF",  123, "LOAD_LOCAL a; CONST m; MOD; CONST c; EQ; JUMP_IF_FALSE t"),
    ("LT_LC_RET_LOCAL", 124, "LOAD_LOCAL a; CONST c; LT; JUMP_IF_FALSE past; LOAD_LOCAL b; "
                             "RETURN (a base case: `when n < c` then `give b`)"),
]
INTERNAL = {name: code for name, code, _ in _INTERNAL}
INTERNAL_DOCS = {code: doc for _, code, doc in _INTERNAL}
globals().update(INTERNAL)
