"""GENERATED from vm/instructions.py by tools/gen_dispatch.py: do not edit.

The opcode data vm.opcodes, vm.decode, vm.verify, vm.flow, vm.dis and
vm.machine (its tier 2 gate) read.
"""

FIRST_INTERNAL = 100

# name, code, file operand kinds, pops, pushes, flow, what it does
TABLE = [
    ('CONST', 1, ('const',), 0, 1, 'next', '.. -> .. consts[k]'),
    ('POP', 2, (), 1, 0, 'next', '.. x -> ..'),
    ('LOAD_LOCAL', 3, ('local',), 0, 1, 'next', '.. -> .. locals[s]'),
    ('STORE_LOCAL', 4, ('local',), 1, 0, 'next', 'set: .. x -> ..; locals[s] = x (labels: no sensitive upgrade)'),
    ('DECLARE_LOCAL', 5, ('local',), 1, 0, 'next', "let: .. x -> ..; locals[s] = x (labels: stamps the declaration; of a parameter's slot, a crafted file's, the decoder makes it a STORE_LOCAL)"),
    ('LOAD_GLOBAL', 6, ('global',), 0, 1, 'next', '.. -> .. globals[g]; error if its let has not run yet'),
    ('STORE_GLOBAL', 7, ('global',), 1, 0, 'next', 'set: .. x -> ..; globals[g] = x'),
    ('DECLARE_GLOBAL', 8, ('global',), 1, 0, 'next', 'let: .. x -> ..; globals[g] = x'),
    ('LOAD_TASK', 9, ('func',), 0, 1, 'next', '.. -> .. task f'),
    ('MAKE_LAMBDA', 10, ('func', 'count'), lambda a: a[1], 1, 'next', '.. c1..cn -> .. lambda f capturing c1..cn'),
    ('ADD', 11, (), 2, 1, 'next', '.. a b -> .. a+b (numbers, texts, lists)'),
    ('SUB', 12, (), 2, 1, 'next', '.. a b -> .. a-b'),
    ('MUL', 13, (), 2, 1, 'next', '.. a b -> .. a*b'),
    ('DIV', 14, (), 2, 1, 'next', '.. a b -> .. a/b (exact int when it divides)'),
    ('MOD', 15, (), 2, 1, 'next', '.. a b -> .. a%b (sign of b)'),
    ('EQ', 16, (), 2, 1, 'next', '.. a b -> .. a==b (structural)'),
    ('NE', 17, (), 2, 1, 'next', '.. a b -> .. a!=b'),
    ('LT', 18, (), 2, 1, 'next', '.. a b -> .. a<b (numbers or texts)'),
    ('LE', 19, (), 2, 1, 'next', '.. a b -> .. a<=b'),
    ('GT', 20, (), 2, 1, 'next', '.. a b -> .. a>b'),
    ('GE', 21, (), 2, 1, 'next', '.. a b -> .. a>=b'),
    ('NEG', 22, (), 1, 1, 'next', '.. a -> .. -a'),
    ('NOT', 23, (), 1, 1, 'next', '.. b -> .. not b (b must be bool)'),
    ('INDEX', 24, (), 2, 1, 'next', '.. x i -> .. x[i]'),
    ('FIELD', 25, ('const',), 1, 1, 'next', '.. m -> .. m[consts[k]] (nothing when absent)'),
    ('SET_PATH', 26, ('count',), lambda a: a[0] + 2, 1, 'next', '.. x k1..kn v -> .. copy of x with x[k1]..[kn] = v'),
    ('BUILD_LIST', 27, ('count',), lambda a: a[0], 1, 'next', '.. x1..xn -> .. [x1..xn]'),
    ('BUILD_MAP', 28, ('count',), lambda a: 2 * a[0], 1, 'next', '.. k1 v1..kn vn -> .. {k1: v1, ..}'),
    ('JUMP', 29, ('jump',), 0, 0, 'jump', 'pc = t'),
    ('JUMP_IF_FALSE', 30, ('jump', 'rid'), 1, 0, 'branch', '.. c -> ..; if c is false: pc = t (c must be bool)'),
    ('AND_JUMP', 31, ('jump', 'rid'), 1, 0, 'keep_or_pop', '`and`: .. c -> .. c and pc = t if c is false; else .. (c must be bool)'),
    ('OR_JUMP', 32, ('jump', 'rid'), 1, 0, 'keep_or_pop', '`or`: .. c -> .. c and pc = t if c is true; else ..'),
    ('CHECK_BOOL', 33, ('const',), 1, 1, 'next', '.. c -> .. c; error `WORD needs a bool` unless c is bool'),
    ('ITER_START', 34, ('rid',), 1, 1, 'next', ".. coll -> .. iterator over a list's items, a map's keys or a text's characters"),
    ('FOR_ITER', 35, ('jump',), 1, 0, 'for_iter', '.. it -> .. it item; when exhausted: .. and pc = t'),
    ('CALL', 36, ('count',), lambda a: a[0] + 1, 1, 'next', '.. f a1..an -> .. f(a1..an)'),
    ('CALL_TASK', 37, ('func', 'count'), lambda a: a[1], 1, 'next', '.. a1..an -> .. task f(a1..an)'),
    ('CALL_BUILTIN', 38, ('builtin', 'count'), lambda a: a[1], 1, 'next', '.. a1..an -> .. builtin b(a1..an)'),
    ('RETURN', 39, (), 1, 0, 'return', '.. x -> return x to the caller'),
    ('TRY_BEGIN', 40, ('jump', 'rid'), 0, 0, 'try', 'push a handler: a catchable error resets the stack to here, pushes its message, pc = t'),
    ('TRY_END', 41, (), 0, 0, 'next', 'pop the innermost handler of this function'),
    ('PC_RELEASE', 42, ('rid',), 0, 0, 'next', 'labels: drop the pc labels raised with this release id'),
    ('JUMP_IF_SET', 43, ('local', 'jump'), 0, 0, 'branch', 'if parameter s was passed: pc = t (skips its default)'),
    ('APPEND_LOCAL', 44, ('local',), 1, 0, 'next', '`set x to append(x, v)`: .. v -> ..; locals[s] = locals[s] + [v] (in place when no one else holds the list)'),
    ('APPEND_GLOBAL', 45, ('global',), 1, 0, 'next', 'the same for a top-level variable'),
    ('SET_ITEM_LOCAL', 46, ('local',), 2, 0, 'next', '`set x[k] to v`: .. k v -> ..; locals[s] = copy of it with [k] = v (in place when no one else holds it)'),
    ('SET_ITEM_GLOBAL', 47, ('global',), 2, 0, 'next', 'the same for a top-level variable'),
    ('DROP_UNDER', 48, ('count',), lambda a: a[0] + 1, 1, 'next', '.. x1..xn v -> .. v (a `give` leaving `for each` loops drops their iterators)'),
    ('ADD_TO_LOCAL', 49, ('local',), 1, 0, 'next', '`set s to s + b`: .. b -> ..; locals[s] = locals[s] + b (labels: as STORE_LOCAL)'),
    ('INDEX_LOCAL', 50, ('local',), 1, 1, 'next', '`xs[E]` of a local xs: .. i -> .. locals[s][i]'),
    ('BUILD_MAP_KEYS', 51, ('const', 'count'), lambda a: a[1], 1, 'next', '.. v1..vn -> .. {consts[k]: v1, .., consts[k+n-1]: vn} (the keys are texts)'),
]

# Made by the decoder, never in a file: name, code, what it does
INTERNAL = [
    ('JUMP_BACK', 100, 'a backward JUMP: also where step and time limits are checked'),
    ('CALL_VM_BUILTIN', 101, 'CALL_BUILTIN of a builtin that needs the VM (capabilities, calls)'),
    ('CALL_BUILTIN_1', 150, 'CALL_BUILTIN b 1'),
    ('CALL_BUILTIN_2', 151, 'CALL_BUILTIN b 2'),
    ('CALL_BUILTIN_3', 152, 'CALL_BUILTIN b 3'),
    ('LOAD_LOCAL2', 102, 'LOAD_LOCAL a; LOAD_LOCAL b'),
    ('ADD_LL', 103, 'LOAD_LOCAL a; LOAD_LOCAL b; ADD'),
    ('ADD_LC', 104, 'LOAD_LOCAL a; CONST c; ADD'),
    ('SUB_LC', 105, 'LOAD_LOCAL a; CONST c; SUB'),
    ('MOD_LC', 106, 'LOAD_LOCAL a; CONST c; MOD'),
    ('ADD_LL_ST', 107, 'LOAD_LOCAL a; LOAD_LOCAL b; ADD; STORE_LOCAL s'),
    ('ADD_LC_ST', 108, 'LOAD_LOCAL a; CONST c; ADD; STORE_LOCAL s'),
    ('SUB_LC_ST', 109, 'LOAD_LOCAL a; CONST c; SUB; STORE_LOCAL s'),
    ('LT_LL_JF', 110, 'LOAD_LOCAL a; LOAD_LOCAL b; LT; JUMP_IF_FALSE t'),
    ('LT_LC_JF', 111, 'LOAD_LOCAL a; CONST c; LT; JUMP_IF_FALSE t'),
    ('CMP_LC_JF', 112, 'LOAD_LOCAL a; CONST c; LE|GT|GE|EQ|NE; JUMP_IF_FALSE t'),
    ('EQ_C_JF', 113, 'CONST c; EQ; JUMP_IF_FALSE t'),
    ('RETURN_LOCAL', 114, 'LOAD_LOCAL a; RETURN'),
    ('RETURN_CONST', 174, 'CONST c; RETURN'),
    ('FOR_ITER_DECL', 115, 'FOR_ITER t; DECLARE_LOCAL s'),
    ('CMP_LL_JF', 116, 'LOAD_LOCAL a; LOAD_LOCAL b; LE|GT|GE|EQ|NE; JUMP_IF_FALSE t'),
    ('CALL1_SUB_LC', 117, 'LOAD_LOCAL a; CONST c; SUB; CALL_TASK f 1 (recursion on n - 1)'),
    ('ADD_RETURN', 118, 'ADD; RETURN'),
    ('MUL_LC', 119, 'LOAD_LOCAL a; CONST c; MUL'),
    ('SUB_LL_ST', 120, 'LOAD_LOCAL a; LOAD_LOCAL b; SUB; STORE_LOCAL s'),
    ('ADD_ST', 121, 'ADD; STORE_LOCAL s'),
    ('SUB_ST', 122, 'SUB; STORE_LOCAL s'),
    ('MOD_LC_EQ_C_JF', 123, 'LOAD_LOCAL a; CONST m; MOD; CONST c; EQ; JUMP_IF_FALSE t'),
    ('INDEX_L', 125, 'LOAD_LOCAL i; INDEX'),
    ('INDEX_LL', 126, 'LOAD_LOCAL x; LOAD_LOCAL i; INDEX'),
    ('FIELD_L', 127, 'LOAD_LOCAL m; FIELD k'),
    ('INDEX_LLL', 131, 'LOAD_LOCAL x; LOAD_LOCAL i; INDEX; LOAD_LOCAL k; INDEX (x[i][k])'),
    ('CALL1_LL', 136, 'LOAD_LOCAL f; LOAD_LOCAL x; CALL 1'),
    ('CALL_BUILTIN1_L', 133, 'LOAD_LOCAL a; CALL_BUILTIN b 1'),
    ('ADD_C', 134, 'CONST c; ADD'),
    ('CMP_C', 137, 'CONST c; LE|GT|GE|EQ|NE (x >= 30 of any x)'),
    ('LT_C', 138, 'CONST c; LT'),
    ('CALL_BUILTIN2_C', 139, 'CONST c; CALL_BUILTIN b 2 (split(t, " "))'),
    ('CALL_BUILTIN3_C', 145, 'CONST c; CALL_BUILTIN b 3'),
    ('CALL_BUILTIN3_LLC', 146, 'LOAD_LOCAL m; LOAD_LOCAL k; CONST c; CALL_BUILTIN b 3 (get(m, k, 0))'),
    ('MUL_ADD_TO', 135, 'MUL; ADD_TO_LOCAL s'),
    ('INDEX_DECL', 140, 'INDEX; DECLARE_LOCAL s'),
    ('ADD_C_SET_ITEM', 141, 'CONST c; ADD; SET_ITEM_LOCAL s'),
    ('ADD_LC_RET', 142, 'LOAD_LOCAL a; CONST c; ADD; RETURN'),
    ('SUB_LC_RET', 143, 'LOAD_LOCAL a; CONST c; SUB; RETURN'),
    ('MUL_LC_RET', 144, 'LOAD_LOCAL a; CONST c; MUL; RETURN'),
    ('INDEX_LOCAL_DECL', 170, 'INDEX_LOCAL xs; DECLARE_LOCAL s'),
    ('INDEX_LOCAL_CALL1', 171, 'INDEX_LOCAL xs; CALL_BUILTIN b 1'),
    ('INDEX_CALL1', 148, 'INDEX; CALL_BUILTIN b 1'),
    ('FIELD_CALL1', 149, 'FIELD k; CALL_BUILTIN b 1'),
    ('CHECK_BOOL_JF', 147, 'CHECK_BOOL k; JUMP_IF_FALSE t'),
    ('FOR_BACK', 132, "JUMP_BACK t to FOR_ITER_DECL: its step charge, then the head's next item"),
    ('STORE_LOCAL_BACK', 154, 'STORE_LOCAL; FOR_BACK'),
    ('ADD_TO_LOCAL_BACK', 155, 'ADD_TO_LOCAL; FOR_BACK'),
    ('ADD_LL_ST_BACK', 156, 'ADD_LL_ST; FOR_BACK'),
    ('ADD_LC_ST_BACK', 157, 'ADD_LC_ST; FOR_BACK'),
    ('APPEND_LOCAL_BACK', 158, 'APPEND_LOCAL; FOR_BACK'),
    ('SET_ITEM_LOCAL_BACK', 159, 'SET_ITEM_LOCAL; FOR_BACK'),
    ('ADD_C_SET_ITEM_BACK', 160, 'ADD_C_SET_ITEM; FOR_BACK'),
    ('MUL_ADD_TO_BACK', 161, 'MUL_ADD_TO; FOR_BACK'),
    ('RELEASE_BACK', 169, 'PC_RELEASE; FOR_BACK'),
    ('ADD_LC_ST_REL', 172, 'ADD_LC_ST; PC_RELEASE'),
    ('STORE_LOCAL_REL', 173, 'STORE_LOCAL; PC_RELEASE'),
    ('LT_LC_BACK', 162, 'JUMP_BACK t to LT_LC_JF: its step charge, then the test'),
    ('LT_LL_BACK', 163, 'JUMP_BACK t to LT_LL_JF: its step charge, then the test'),
    ('CMP_LC_BACK', 164, 'JUMP_BACK t to CMP_LC_JF: its step charge, then the test'),
    ('CMP_LL_BACK', 165, 'JUMP_BACK t to CMP_LL_JF: its step charge, then the test'),
    ('ADD_LC_ST_LT_LC_BACK', 166, 'ADD_LC_ST; LT_LC_BACK'),
    ('ADD_LC_ST_LT_LL_BACK', 167, 'ADD_LC_ST; LT_LL_BACK'),
    ('SUB_LC_ST_CMP_LC_BACK', 168, 'SUB_LC_ST; CMP_LC_BACK'),
    ('JUMP_RELEASE', 153, 'JUMP t to PC_RELEASE r: the release, then on'),
    ('CALL_VM_BUILTIN_POP', 128, 'CALL_VM_BUILTIN b n; POP'),
    ('CONST2', 129, 'CONST a; CONST b'),
    ('DECLARE_LOCAL_LOAD', 130, 'DECLARE_LOCAL s; LOAD_LOCAL t'),
    ('LT_LC_RET_LOCAL', 124, 'LOAD_LOCAL a; CONST c; LT; JUMP_IF_FALSE past; LOAD_LOCAL b; RETURN (a base case: `when n < c` then `give b`)'),
]

# The decoded operand fields of each instruction (+: labels only; a rid too)
FIELDS = {
    1: ('k',),  # CONST
    2: (),  # POP
    3: ('s',),  # LOAD_LOCAL
    4: ('s',),  # STORE_LOCAL
    5: ('s',),  # DECLARE_LOCAL
    6: ('s',),  # LOAD_GLOBAL
    7: ('s',),  # STORE_GLOBAL
    8: ('s',),  # DECLARE_GLOBAL
    9: ('f',),  # LOAD_TASK
    10: ('f', 'n'),  # MAKE_LAMBDA
    11: (),  # ADD
    12: (),  # SUB
    13: (),  # MUL
    14: (),  # DIV
    15: (),  # MOD
    16: (),  # EQ
    17: (),  # NE
    18: (),  # LT
    19: (),  # LE
    20: (),  # GT
    21: (),  # GE
    22: (),  # NEG
    23: (),  # NOT
    24: (),  # INDEX
    25: ('k',),  # FIELD
    26: ('n',),  # SET_PATH
    27: ('n',),  # BUILD_LIST
    28: ('n',),  # BUILD_MAP
    29: ('t',),  # JUMP
    30: ('t', 'rid'),  # JUMP_IF_FALSE
    31: ('t', 'rid'),  # AND_JUMP
    32: ('t', 'rid'),  # OR_JUMP
    33: ('k',),  # CHECK_BOOL
    34: ('rid',),  # ITER_START
    35: ('t',),  # FOR_ITER
    36: ('n',),  # CALL
    37: ('callee', 'n', 'pad', 'fcode'),  # CALL_TASK
    38: ('fn', 'n', '+labelled'),  # CALL_BUILTIN
    39: (),  # RETURN
    40: ('t', 'rid'),  # TRY_BEGIN
    41: (),  # TRY_END
    42: ('rid',),  # PC_RELEASE
    43: ('s', 't'),  # JUMP_IF_SET
    44: ('s',),  # APPEND_LOCAL
    45: ('s',),  # APPEND_GLOBAL
    46: ('s',),  # SET_ITEM_LOCAL
    47: ('s',),  # SET_ITEM_GLOBAL
    48: ('n',),  # DROP_UNDER
    49: ('s',),  # ADD_TO_LOCAL
    50: ('s',),  # INDEX_LOCAL
    51: ('keys', 'n'),  # BUILD_MAP_KEYS
    100: ('t',),  # JUMP_BACK
    101: ('fn', 'n'),  # CALL_VM_BUILTIN
    150: ('fn', 'n', 'labelled'),  # CALL_BUILTIN_1
    151: ('fn', 'n', 'labelled'),  # CALL_BUILTIN_2
    152: ('fn', 'n', 'labelled'),  # CALL_BUILTIN_3
    102: ('s', 's'),  # LOAD_LOCAL2
    103: ('s', 's'),  # ADD_LL
    104: ('s', 'k'),  # ADD_LC
    105: ('s', 'k'),  # SUB_LC
    106: ('s', 'k'),  # MOD_LC
    107: ('s', 's', 's'),  # ADD_LL_ST
    108: ('s', 'k', 's'),  # ADD_LC_ST
    109: ('s', 'k', 's'),  # SUB_LC_ST
    110: ('s', 's', 't', 'rid'),  # LT_LL_JF
    111: ('s', 'k', 't', 'rid'),  # LT_LC_JF
    112: ('s', 'k', 'kind', 't', 'rid'),  # CMP_LC_JF
    113: ('k', 't', 'rid'),  # EQ_C_JF
    114: ('s',),  # RETURN_LOCAL
    174: ('k',),  # RETURN_CONST
    115: ('t', 's'),  # FOR_ITER_DECL
    116: ('s', 's', 'kind', 't', 'rid'),  # CMP_LL_JF
    117: ('s', 'k', 'callee', 'n', 'pad', 'fcode'),  # CALL1_SUB_LC
    118: (),  # ADD_RETURN
    119: ('s', 'k'),  # MUL_LC
    120: ('s', 's', 's'),  # SUB_LL_ST
    121: ('s',),  # ADD_ST
    122: ('s',),  # SUB_ST
    123: ('s', 'k', 'k', 't', 'rid'),  # MOD_LC_EQ_C_JF
    125: ('s',),  # INDEX_L
    126: ('s', 's'),  # INDEX_LL
    127: ('s', 'k'),  # FIELD_L
    131: ('s', 's', 's'),  # INDEX_LLL
    136: ('s', 's', 'n'),  # CALL1_LL
    133: ('s', 'fn', 'n', 'labelled'),  # CALL_BUILTIN1_L
    134: ('k',),  # ADD_C
    137: ('k', 'kind'),  # CMP_C
    138: ('k',),  # LT_C
    139: ('k', 'fn', 'n', 'labelled'),  # CALL_BUILTIN2_C
    145: ('k', 'fn', 'n', 'labelled'),  # CALL_BUILTIN3_C
    146: ('s', 's', 'k', 'fn', 'n', 'labelled'),  # CALL_BUILTIN3_LLC
    135: ('s',),  # MUL_ADD_TO
    140: ('s',),  # INDEX_DECL
    141: ('k', 's'),  # ADD_C_SET_ITEM
    142: ('s', 'k'),  # ADD_LC_RET
    143: ('s', 'k'),  # SUB_LC_RET
    144: ('s', 'k'),  # MUL_LC_RET
    170: ('s', 's'),  # INDEX_LOCAL_DECL
    171: ('s', 'fn', 'n', 'labelled'),  # INDEX_LOCAL_CALL1
    148: ('fn', 'n', 'labelled'),  # INDEX_CALL1
    149: ('k', 'fn', 'n', 'labelled'),  # FIELD_CALL1
    147: ('k', 't', 'rid'),  # CHECK_BOOL_JF
    132: ('t', 't', 's'),  # FOR_BACK
    154: ('s', 't', 't', 's'),  # STORE_LOCAL_BACK
    155: ('s', 't', 't', 's'),  # ADD_TO_LOCAL_BACK
    156: ('s', 's', 's', 't', 't', 's'),  # ADD_LL_ST_BACK
    157: ('s', 'k', 's', 't', 't', 's'),  # ADD_LC_ST_BACK
    158: ('s', 't', 't', 's'),  # APPEND_LOCAL_BACK
    159: ('s', 't', 't', 's'),  # SET_ITEM_LOCAL_BACK
    160: ('k', 's', 't', 't', 's'),  # ADD_C_SET_ITEM_BACK
    161: ('s', 't', 't', 's'),  # MUL_ADD_TO_BACK
    169: ('rid', 't', 't', 's'),  # RELEASE_BACK
    172: ('s', 'k', 's', 'rid'),  # ADD_LC_ST_REL
    173: ('s', 'rid'),  # STORE_LOCAL_REL
    162: ('t', 's', 'k', 't', 'rid'),  # LT_LC_BACK
    163: ('t', 's', 's', 't', 'rid'),  # LT_LL_BACK
    164: ('t', 's', 'k', 'kind', 't', 'rid'),  # CMP_LC_BACK
    165: ('t', 's', 's', 'kind', 't', 'rid'),  # CMP_LL_BACK
    166: ('s', 'k', 's', 't', 's', 'k', 't', 'rid'),  # ADD_LC_ST_LT_LC_BACK
    167: ('s', 'k', 's', 't', 's', 's', 't', 'rid'),  # ADD_LC_ST_LT_LL_BACK
    168: ('s', 'k', 's', 't', 's', 'k', 'kind', 't', 'rid'),  # SUB_LC_ST_CMP_LC_BACK
    153: ('t', 'rid'),  # JUMP_RELEASE
    128: ('fn', 'n'),  # CALL_VM_BUILTIN_POP
    129: ('k', 'k'),  # CONST2
    130: ('s', 's'),  # DECLARE_LOCAL_LOAD
    124: ('s', 'k', 't', 'rid', 's'),  # LT_LC_RET_LOCAL
}

# Where the jump target is among an instruction's fields (all of them)
JUMP_AT = {29: 0, 30: 0, 31: 0, 32: 0, 35: 0, 40: 0, 43: 1, 100: 0, 110: 2, 111: 2, 112:
    3, 113: 1, 115: 0, 116: 3, 123: 3, 147: 1, 124: 2}

# How control leaves each instruction (a superinstruction: 'branch' when it
# may jump)
FLOW = {1: 'next', 2: 'next', 3: 'next', 4: 'next', 5: 'next', 6: 'next', 7: 'next', 8:
    'next', 9: 'next', 10: 'next', 11: 'next', 12: 'next', 13: 'next', 14: 'next', 15:
    'next', 16: 'next', 17: 'next', 18: 'next', 19: 'next', 20: 'next', 21: 'next', 22:
    'next', 23: 'next', 24: 'next', 25: 'next', 26: 'next', 27: 'next', 28: 'next', 29:
    'jump', 30: 'branch', 31: 'keep_or_pop', 32: 'keep_or_pop', 33: 'next', 34: 'next',
    35: 'for_iter', 36: 'next', 37: 'next', 38: 'next', 39: 'return', 40: 'try', 41:
    'next', 42: 'next', 43: 'branch', 44: 'next', 45: 'next', 46: 'next', 47: 'next', 48:
    'next', 49: 'next', 50: 'next', 51: 'next', 100: 'jump', 101: 'next', 150: 'next',
    151: 'next', 152: 'next', 102: 'next', 103: 'next', 104: 'next', 105: 'next', 106:
    'next', 107: 'next', 108: 'next', 109: 'next', 110: 'branch', 111: 'branch', 112:
    'branch', 113: 'branch', 114: 'next', 174: 'next', 115: 'branch', 116: 'branch', 117:
    'next', 118: 'next', 119: 'next', 120: 'next', 121: 'next', 122: 'next', 123:
    'branch', 125: 'next', 126: 'next', 127: 'next', 131: 'next', 136: 'next', 133:
    'next', 134: 'next', 137: 'next', 138: 'next', 139: 'next', 145: 'next', 146: 'next',
    135: 'next', 140: 'next', 141: 'next', 142: 'next', 143: 'next', 144: 'next', 170:
    'next', 171: 'next', 148: 'next', 149: 'next', 147: 'branch', 132: 'branch', 154:
    'branch', 155: 'branch', 156: 'branch', 157: 'branch', 158: 'branch', 159: 'branch',
    160: 'branch', 161: 'branch', 169: 'branch', 172: 'next', 173: 'next', 162: 'branch',
    163: 'branch', 164: 'branch', 165: 'branch', 166: 'branch', 167: 'branch', 168:
    'branch', 153: 'branch', 128: 'next', 129: 'next', 130: 'next', 124: 'branch'}

# Stack pictures: (inputs -- outputs), deepest first; x[n] is n values
PICTURES = {
    1: '( -- v)',
    2: '(x -- )',
    3: '( -- v)',
    4: '(v -- )',
    5: '(v -- )',
    6: '( -- v)',
    7: '(v -- )',
    8: '(v -- )',
    9: '( -- t)',
    10: '(caps[n] -- fn)',
    11: '(a b -- r)',
    12: '(a b -- r)',
    13: '(a b -- r)',
    14: '(a b -- r)',
    15: '(a b -- r)',
    16: '(a b -- r)',
    17: '(a b -- r)',
    18: '(a b -- r)',
    19: '(a b -- r)',
    20: '(a b -- r)',
    21: '(a b -- r)',
    22: '(a -- r)',
    23: '(a -- r)',
    24: '(x i -- r)',
    25: '(x -- r)',
    26: '(x keys[n] v -- r)',
    27: '(items[n] -- xs)',
    28: '(pairs[2*n] -- m)',
    29: '( -- )',
    30: '(c -- )',
    31: '(c -- )',
    32: '(c -- )',
    33: '(c -- c)',
    34: '(coll -- it)',
    35: '(it -- it v)',
    36: '(f args[n] -- r)',
    37: '(args[n] -- r)',
    38: '(args[n] -- r)',
    39: '(val -- )',
    40: '( -- )',
    41: '( -- )',
    42: '( -- )',
    43: '( -- )',
    44: '(v -- )',
    45: '(v -- )',
    46: '(k v -- )',
    47: '(k v -- )',
    48: '(drop[n] v -- v)',
    49: '(b -- )',
    50: '(i -- r)',
    51: '(values[n] -- m)',
    100: '( -- )',
    101: '(args[n] -- r)',
}

# Superinstructions, longest first: (code, parts, the part whose position it
# takes, when). A part maps each opcode it matches to the field it adds (None:
# its own fields); A[k] is part k's fields (all of them). `when` is one
# function for all those that always apply (one code object, not one each).
def _always(A, i, code, n, targets, better_later):
    return True


FUSED = [
    (123, ({3: None}, {1: None}, {15: None}, {1: None}, {16: None}, {30: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000 and A[1][0] and type(A[3][0]) in (int, str)),  # MOD_LC_EQ_C_JF
    (124, ({3: None}, {1: None}, {18: None}, {30: None}, {3: None}, {39: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) in (int, float) and A[3][0] == i + 6),  # LT_LC_RET_LOCAL
    (131, ({3: None}, {3: None}, {24: None}, {3: None}, {24: None},), 2,
     _always),  # INDEX_LLL
    (107, ({3: None}, {3: None}, {11: None}, {4: None},), 2,
     _always),  # ADD_LL_ST
    (108, ({3: None}, {1: None}, {11: None}, {4: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # ADD_LC_ST
    (109, ({3: None}, {1: None}, {12: None}, {4: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # SUB_LC_ST
    (110, ({3: None}, {3: None}, {18: None}, {30: None},), 2,
     _always),  # LT_LL_JF
    (111, ({3: None}, {1: None}, {18: None}, {30: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) in (int, float)),  # LT_LC_JF
    (112, ({3: None}, {1: None}, {19: 0, 20: 1, 21: 2, 16: 3, 17: 4}, {30: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) in (int, float)),  # CMP_LC_JF
    (116, ({3: None}, {3: None}, {19: 0, 20: 1, 21: 2, 16: 3, 17: 4}, {30: None},), 2,
     _always),  # CMP_LL_JF
    (117, ({3: None}, {1: None}, {12: None}, {37: None},), 3,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000 and A[3][1] == 1),  # CALL1_SUB_LC
    (120, ({3: None}, {3: None}, {12: None}, {4: None},), 2,
     _always),  # SUB_LL_ST
    (146, ({3: None}, {3: None}, {1: None}, {38: None},), 3,
     lambda A, i, code, n, targets, better_later: A[3][1] == 3),  # CALL_BUILTIN3_LLC
    (142, ({3: None}, {1: None}, {11: None}, {39: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # ADD_LC_RET
    (143, ({3: None}, {1: None}, {12: None}, {39: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # SUB_LC_RET
    (144, ({3: None}, {1: None}, {13: None}, {39: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # MUL_LC_RET
    (103, ({3: None}, {3: None}, {11: None},), 2,
     _always),  # ADD_LL
    (104, ({3: None}, {1: None}, {11: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) in (int, str)),  # ADD_LC
    (105, ({3: None}, {1: None}, {12: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # SUB_LC
    (106, ({3: None}, {1: None}, {15: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000 and A[1][0]),  # MOD_LC
    (113, ({1: None}, {16: None}, {30: None},), 1,
     lambda A, i, code, n, targets, better_later: type(A[0][0]) in (int, str)),  # EQ_C_JF
    (119, ({3: None}, {1: None}, {13: None},), 2,
     lambda A, i, code, n, targets, better_later: type(A[1][0]) is int and -0x10000000000000000 < A[1][0] < 0x10000000000000000),  # MUL_LC
    (126, ({3: None}, {3: None}, {24: None},), 2,
     _always),  # INDEX_LL
    (136, ({3: None}, {3: None}, {36: None},), 2,
     lambda A, i, code, n, targets, better_later: A[2][0] == 1),  # CALL1_LL
    (141, ({1: None}, {11: None}, {46: None},), 1,
     lambda A, i, code, n, targets, better_later: type(A[0][0]) is int),  # ADD_C_SET_ITEM
    (102, ({3: None}, {3: None},), 0,
     lambda A, i, code, n, targets, better_later: not better_later(code, i, n, targets)),  # LOAD_LOCAL2
    (114, ({3: None}, {39: None},), 1,
     _always),  # RETURN_LOCAL
    (174, ({1: None}, {39: None},), 1,
     _always),  # RETURN_CONST
    (115, ({35: None}, {5: None},), 0,
     _always),  # FOR_ITER_DECL
    (118, ({11: None}, {39: None},), 0,
     _always),  # ADD_RETURN
    (121, ({11: None}, {4: None},), 0,
     _always),  # ADD_ST
    (122, ({12: None}, {4: None},), 0,
     _always),  # SUB_ST
    (125, ({3: None}, {24: None},), 1,
     _always),  # INDEX_L
    (127, ({3: None}, {25: None},), 1,
     _always),  # FIELD_L
    (133, ({3: None}, {38: None},), 1,
     lambda A, i, code, n, targets, better_later: A[1][1] == 1),  # CALL_BUILTIN1_L
    (134, ({1: None}, {11: None},), 1,
     lambda A, i, code, n, targets, better_later: type(A[0][0]) in (int, str)),  # ADD_C
    (137, ({1: None}, {19: 0, 20: 1, 21: 2, 16: 3, 17: 4},), 1,
     lambda A, i, code, n, targets, better_later: type(A[0][0]) in (int, float, str)),  # CMP_C
    (138, ({1: None}, {18: None},), 1,
     lambda A, i, code, n, targets, better_later: type(A[0][0]) in (int, float)),  # LT_C
    (139, ({1: None}, {38: None},), 1,
     lambda A, i, code, n, targets, better_later: A[1][1] == 2),  # CALL_BUILTIN2_C
    (145, ({1: None}, {38: None},), 1,
     lambda A, i, code, n, targets, better_later: A[1][1] == 3),  # CALL_BUILTIN3_C
    (135, ({13: None}, {49: None},), 1,
     _always),  # MUL_ADD_TO
    (140, ({24: None}, {5: None},), 0,
     _always),  # INDEX_DECL
    (170, ({50: None}, {5: None},), 0,
     _always),  # INDEX_LOCAL_DECL
    (171, ({50: None}, {38: None},), 1,
     lambda A, i, code, n, targets, better_later: A[1][1] == 1),  # INDEX_LOCAL_CALL1
    (148, ({24: None}, {38: None},), 1,
     lambda A, i, code, n, targets, better_later: A[1][1] == 1),  # INDEX_CALL1
    (149, ({25: None}, {38: None},), 1,
     lambda A, i, code, n, targets, better_later: A[1][1] == 1),  # FIELD_CALL1
    (147, ({33: None}, {30: None},), 0,
     _always),  # CHECK_BOOL_JF
    (128, ({101: None}, {2: None},), 0,
     _always),  # CALL_VM_BUILTIN_POP
    (129, ({1: None}, {1: None},), 0,
     _always),  # CONST2
    (130, ({5: None}, {3: None},), 0,
     _always),  # DECLARE_LOCAL_LOAD
    (150, ({38: None},), 0,
     lambda A, i, code, n, targets, better_later: A[0][1] == 1),  # CALL_BUILTIN_1
    (151, ({38: None},), 0,
     lambda A, i, code, n, targets, better_later: A[0][1] == 2),  # CALL_BUILTIN_2
    (152, ({38: None},), 0,
     lambda A, i, code, n, targets, better_later: A[0][1] == 3),  # CALL_BUILTIN_3
]

# Threaded superinstructions: (jump, the superinstruction at its target, the
# code that replaces the jump and runs the target's parts in its place)
THREADED = [
    (100, 115, 132),  # FOR_BACK
    (100, 111, 162),  # LT_LC_BACK
    (100, 110, 163),  # LT_LL_BACK
    (100, 112, 164),  # CMP_LC_BACK
    (100, 116, 165),  # CMP_LL_BACK
    (29, 42, 153),  # JUMP_RELEASE
]

# Tails: (a statement's instruction, the threaded jump after it, the code
# that runs both; the jump stays in place for the paths that jump to it)
TAILS = [
    (4, 132, 154),  # STORE_LOCAL_BACK
    (49, 132, 155),  # ADD_TO_LOCAL_BACK
    (107, 132, 156),  # ADD_LL_ST_BACK
    (108, 132, 157),  # ADD_LC_ST_BACK
    (44, 132, 158),  # APPEND_LOCAL_BACK
    (46, 132, 159),  # SET_ITEM_LOCAL_BACK
    (141, 132, 160),  # ADD_C_SET_ITEM_BACK
    (135, 132, 161),  # MUL_ADD_TO_BACK
    (42, 132, 169),  # RELEASE_BACK
    (108, 42, 172),  # ADD_LC_ST_REL
    (4, 42, 173),  # STORE_LOCAL_REL
    (108, 162, 166),  # ADD_LC_ST_LT_LC_BACK
    (108, 163, 167),  # ADD_LC_ST_LT_LL_BACK
    (109, 164, 168),  # SUB_LC_ST_CMP_LC_BACK
]

# The tier 2 gate (vm.machine.worth_translating; by tools/gen_tier2.py): labels mode -> (the
# decoded opcodes that loop, those that call a function)
TIER2_GATE = {
    False: (frozenset((100, 132, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164,
            165, 166, 167, 168)),
        frozenset((36, 37, 117, 136))),
    True: (frozenset((100, 132, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163,
            164, 165, 166, 167, 168, 169)),
        frozenset((36, 37, 117, 136))),
}

# Each file instruction's decoding: (file operands, vm.decode.Context) ->
# (opcode, argument); the ways several decode, for their opcode `op`:

def _shape_0(op):
    return lambda a, c: (op, c.consts[a[0]])


def _shape_1(op):
    return lambda a, c: (op, None)


def _shape_2(op):
    return lambda a, c: (op, a[0])


def _shape_3(op):
    return lambda a, c: (op, (c.at[a[0]], a[1]) if c.labels else c.at[a[0]])


def _shape_4(op):
    return lambda a, c: (op, a[0] if c.labels else None)


DECODE = {
    1: _shape_0(1),  # CONST
    2: _shape_1(2),  # POP
    3: _shape_2(3),  # LOAD_LOCAL
    4: _shape_2(4),  # STORE_LOCAL
    5: lambda a, c: (4 if c.labels and a[0] < c.fixed else 5, a[0]),  # DECLARE_LOCAL
    6: _shape_2(6),  # LOAD_GLOBAL
    7: _shape_2(7),  # STORE_GLOBAL
    8: _shape_2(8),  # DECLARE_GLOBAL
    9: lambda a, c: (1, c.tasks[a[0]]),  # LOAD_TASK
    10: lambda a, c: (10, (c.functions[a[0]], a[1])),  # MAKE_LAMBDA
    11: _shape_1(11),  # ADD
    12: _shape_1(12),  # SUB
    13: _shape_1(13),  # MUL
    14: _shape_1(14),  # DIV
    15: _shape_1(15),  # MOD
    16: _shape_1(16),  # EQ
    17: _shape_1(17),  # NE
    18: _shape_1(18),  # LT
    19: _shape_1(19),  # LE
    20: _shape_1(20),  # GT
    21: _shape_1(21),  # GE
    22: _shape_1(22),  # NEG
    23: _shape_1(23),  # NOT
    24: _shape_1(24),  # INDEX
    25: _shape_0(25),  # FIELD
    26: _shape_2(26),  # SET_PATH
    27: _shape_2(27),  # BUILD_LIST
    28: _shape_2(28),  # BUILD_MAP
    29: lambda a, c: (100 if c.at[a[0]] <= c.here else 29, c.at[a[0]]),  # JUMP
    30: _shape_3(30),  # JUMP_IF_FALSE
    31: _shape_3(31),  # AND_JUMP
    32: _shape_3(32),  # OR_JUMP
    33: _shape_0(33),  # CHECK_BOOL
    34: _shape_4(34),  # ITER_START
    35: lambda a, c: (35, c.at[a[0]]),  # FOR_ITER
    36: _shape_2(36),  # CALL
    37: lambda a, c: (37, (c.functions[a[0]], a[1], c.pads[c.functions[a[0]]][a[1]], None)),  # CALL_TASK
    38: lambda a, c: (101 if c.builtins[a[0]][1] else 38, (c.builtins[a[0]][0], a[1], *c.builtins[a[0]][2:])),  # CALL_BUILTIN
    39: _shape_1(39),  # RETURN
    40: _shape_3(40),  # TRY_BEGIN
    41: _shape_1(41),  # TRY_END
    42: _shape_4(42),  # PC_RELEASE
    43: lambda a, c: (43, (a[0], c.at[a[1]])),  # JUMP_IF_SET
    44: _shape_2(44),  # APPEND_LOCAL
    45: _shape_2(45),  # APPEND_GLOBAL
    46: _shape_2(46),  # SET_ITEM_LOCAL
    47: _shape_2(47),  # SET_ITEM_GLOBAL
    48: _shape_2(48),  # DROP_UNDER
    49: _shape_2(49),  # ADD_TO_LOCAL
    50: _shape_2(50),  # INDEX_LOCAL
    51: lambda a, c: (51, (tuple(c.consts[a[0]:a[0] + a[1]]), a[1])),  # BUILD_MAP_KEYS
}

# The slot a first operand names (local or global), and what the
# instruction does with it: read, set, declare, test
SLOT = {
    3: ('local', 'read'),  # LOAD_LOCAL
    4: ('local', 'set'),  # STORE_LOCAL
    5: ('local', 'declare'),  # DECLARE_LOCAL
    6: ('global', 'read'),  # LOAD_GLOBAL
    7: ('global', 'set'),  # STORE_GLOBAL
    8: ('global', 'declare'),  # DECLARE_GLOBAL
    43: ('local', 'test'),  # JUMP_IF_SET
    44: ('local', 'read'),  # APPEND_LOCAL
    45: ('global', 'read'),  # APPEND_GLOBAL
    46: ('local', 'read'),  # SET_ITEM_LOCAL
    47: ('global', 'read'),  # SET_ITEM_GLOBAL
    49: ('local', 'read'),  # ADD_TO_LOCAL
    50: ('local', 'read'),  # INDEX_LOCAL
}

# The verifier's checks beyond the operands' ranges (vm/verify.py)
CHECKS = {
    9: 'task',  # LOAD_TASK
    10: 'lambda',  # MAKE_LAMBDA
    25: 'text_const',  # FIELD
    33: 'text_const',  # CHECK_BOOL
    37: 'task_call',  # CALL_TASK
    38: 'builtin_arity',  # CALL_BUILTIN
    43: 'param_default',  # JUMP_IF_SET
    51: 'map_keys',  # BUILD_MAP_KEYS
}

# Count operands that must be at least 1: what they need
MIN_COUNT = {
    26: 'at least one key',  # SET_PATH
    48: 'at least one value to drop',  # DROP_UNDER
    51: 'at least one key',  # BUILD_MAP_KEYS
}

# Of the file opcodes (numbers, names, operand kinds): a test pins it to the .synb
# format version (tests/test_generated.py), so a change to them bumps it.
FILE_OPCODES_FINGERPRINT = 'bf87886039a8a927'

# The opcodes by name (vm.opcodes re-exports them: O.ADD)
CONST = 1
POP = 2
LOAD_LOCAL = 3
STORE_LOCAL = 4
DECLARE_LOCAL = 5
LOAD_GLOBAL = 6
STORE_GLOBAL = 7
DECLARE_GLOBAL = 8
LOAD_TASK = 9
MAKE_LAMBDA = 10
ADD = 11
SUB = 12
MUL = 13
DIV = 14
MOD = 15
EQ = 16
NE = 17
LT = 18
LE = 19
GT = 20
GE = 21
NEG = 22
NOT = 23
INDEX = 24
FIELD = 25
SET_PATH = 26
BUILD_LIST = 27
BUILD_MAP = 28
JUMP = 29
JUMP_IF_FALSE = 30
AND_JUMP = 31
OR_JUMP = 32
CHECK_BOOL = 33
ITER_START = 34
FOR_ITER = 35
CALL = 36
CALL_TASK = 37
CALL_BUILTIN = 38
RETURN = 39
TRY_BEGIN = 40
TRY_END = 41
PC_RELEASE = 42
JUMP_IF_SET = 43
APPEND_LOCAL = 44
APPEND_GLOBAL = 45
SET_ITEM_LOCAL = 46
SET_ITEM_GLOBAL = 47
DROP_UNDER = 48
ADD_TO_LOCAL = 49
INDEX_LOCAL = 50
BUILD_MAP_KEYS = 51
JUMP_BACK = 100
CALL_VM_BUILTIN = 101
LOAD_LOCAL2 = 102
ADD_LL = 103
ADD_LC = 104
SUB_LC = 105
MOD_LC = 106
ADD_LL_ST = 107
ADD_LC_ST = 108
SUB_LC_ST = 109
LT_LL_JF = 110
LT_LC_JF = 111
CMP_LC_JF = 112
EQ_C_JF = 113
RETURN_LOCAL = 114
FOR_ITER_DECL = 115
CMP_LL_JF = 116
CALL1_SUB_LC = 117
ADD_RETURN = 118
MUL_LC = 119
SUB_LL_ST = 120
ADD_ST = 121
SUB_ST = 122
MOD_LC_EQ_C_JF = 123
LT_LC_RET_LOCAL = 124
INDEX_L = 125
INDEX_LL = 126
FIELD_L = 127
CALL_VM_BUILTIN_POP = 128
CONST2 = 129
DECLARE_LOCAL_LOAD = 130
INDEX_LLL = 131
FOR_BACK = 132
CALL_BUILTIN1_L = 133
ADD_C = 134
MUL_ADD_TO = 135
CALL1_LL = 136
CMP_C = 137
LT_C = 138
CALL_BUILTIN2_C = 139
INDEX_DECL = 140
ADD_C_SET_ITEM = 141
ADD_LC_RET = 142
SUB_LC_RET = 143
MUL_LC_RET = 144
CALL_BUILTIN3_C = 145
CALL_BUILTIN3_LLC = 146
CHECK_BOOL_JF = 147
INDEX_CALL1 = 148
FIELD_CALL1 = 149
CALL_BUILTIN_1 = 150
CALL_BUILTIN_2 = 151
CALL_BUILTIN_3 = 152
JUMP_RELEASE = 153
STORE_LOCAL_BACK = 154
ADD_TO_LOCAL_BACK = 155
ADD_LL_ST_BACK = 156
ADD_LC_ST_BACK = 157
APPEND_LOCAL_BACK = 158
SET_ITEM_LOCAL_BACK = 159
ADD_C_SET_ITEM_BACK = 160
MUL_ADD_TO_BACK = 161
LT_LC_BACK = 162
LT_LL_BACK = 163
CMP_LC_BACK = 164
CMP_LL_BACK = 165
ADD_LC_ST_LT_LC_BACK = 166
ADD_LC_ST_LT_LL_BACK = 167
SUB_LC_ST_CMP_LC_BACK = 168
RELEASE_BACK = 169
INDEX_LOCAL_DECL = 170
INDEX_LOCAL_CALL1 = 171
ADD_LC_ST_REL = 172
STORE_LOCAL_REL = 173
RETURN_CONST = 174

__all__ = ['CONST', 'POP', 'LOAD_LOCAL', 'STORE_LOCAL', 'DECLARE_LOCAL', 'LOAD_GLOBAL',
    'STORE_GLOBAL', 'DECLARE_GLOBAL', 'LOAD_TASK', 'MAKE_LAMBDA', 'ADD', 'SUB', 'MUL',
    'DIV', 'MOD', 'EQ', 'NE', 'LT', 'LE', 'GT', 'GE', 'NEG', 'NOT', 'INDEX', 'FIELD',
    'SET_PATH', 'BUILD_LIST', 'BUILD_MAP', 'JUMP', 'JUMP_IF_FALSE', 'AND_JUMP', 'OR_JUMP',
    'CHECK_BOOL', 'ITER_START', 'FOR_ITER', 'CALL', 'CALL_TASK', 'CALL_BUILTIN', 'RETURN',
    'TRY_BEGIN', 'TRY_END', 'PC_RELEASE', 'JUMP_IF_SET', 'APPEND_LOCAL', 'APPEND_GLOBAL',
    'SET_ITEM_LOCAL', 'SET_ITEM_GLOBAL', 'DROP_UNDER', 'ADD_TO_LOCAL', 'INDEX_LOCAL',
    'BUILD_MAP_KEYS', 'JUMP_BACK', 'CALL_VM_BUILTIN', 'LOAD_LOCAL2', 'ADD_LL', 'ADD_LC',
    'SUB_LC', 'MOD_LC', 'ADD_LL_ST', 'ADD_LC_ST', 'SUB_LC_ST', 'LT_LL_JF', 'LT_LC_JF',
    'CMP_LC_JF', 'EQ_C_JF', 'RETURN_LOCAL', 'FOR_ITER_DECL', 'CMP_LL_JF', 'CALL1_SUB_LC',
    'ADD_RETURN', 'MUL_LC', 'SUB_LL_ST', 'ADD_ST', 'SUB_ST', 'MOD_LC_EQ_C_JF',
    'LT_LC_RET_LOCAL', 'INDEX_L', 'INDEX_LL', 'FIELD_L', 'CALL_VM_BUILTIN_POP', 'CONST2',
    'DECLARE_LOCAL_LOAD', 'INDEX_LLL', 'FOR_BACK', 'CALL_BUILTIN1_L', 'ADD_C',
    'MUL_ADD_TO', 'CALL1_LL', 'CMP_C', 'LT_C', 'CALL_BUILTIN2_C', 'INDEX_DECL',
    'ADD_C_SET_ITEM', 'ADD_LC_RET', 'SUB_LC_RET', 'MUL_LC_RET', 'CALL_BUILTIN3_C',
    'CALL_BUILTIN3_LLC', 'CHECK_BOOL_JF', 'INDEX_CALL1', 'FIELD_CALL1', 'CALL_BUILTIN_1',
    'CALL_BUILTIN_2', 'CALL_BUILTIN_3', 'JUMP_RELEASE', 'STORE_LOCAL_BACK',
    'ADD_TO_LOCAL_BACK', 'ADD_LL_ST_BACK', 'ADD_LC_ST_BACK', 'APPEND_LOCAL_BACK',
    'SET_ITEM_LOCAL_BACK', 'ADD_C_SET_ITEM_BACK', 'MUL_ADD_TO_BACK', 'LT_LC_BACK',
    'LT_LL_BACK', 'CMP_LC_BACK', 'CMP_LL_BACK', 'ADD_LC_ST_LT_LC_BACK',
    'ADD_LC_ST_LT_LL_BACK', 'SUB_LC_ST_CMP_LC_BACK', 'RELEASE_BACK', 'INDEX_LOCAL_DECL',
    'INDEX_LOCAL_CALL1', 'ADD_LC_ST_REL', 'STORE_LOCAL_REL', 'RETURN_CONST',
    'FIRST_INTERNAL']
