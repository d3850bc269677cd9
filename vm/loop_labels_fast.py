"""GENERATED from vm/instructions.py by tools/gen_dispatch.py: do not edit.

The dispatch loop, labels on: every instruction's body from its one definition
(superinstructions as the composition of their parts), dispatched by a tree of
range tests balanced by instruction frequency (see tools/gen_dispatch.py)."""

import sys

from synsema.vm import ops
from synsema.vm.errors import SynError
from synsema.vm.values import UNSET, Closure, HostFn
from synsema.vm import precise as P
from synsema.vm.errors import EMPTY
from synsema.vm.labels import _CMP, _append_precise, _binary, _index_precise, _join, _local_name, _plain_seq, _raise_labelled, _set_item_precise, _store, _unary, _upgrade_check, _withhold_frames, caught, drop_frames, push_pc, release, taint_try
from synsema.vm.values import Labeled

# below_K[op] is op < K: the dispatch tests read these
# (tools/gen_dispatch.py _emit says why).
_BOOLS = (True,) * 256 + (False,) * 256
_BELOW = {k: _BOOLS[256 - k:512 - k] for k in (2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
    36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 100, 101, 102, 103,
    104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120,
    121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137,
    138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154,
    155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171,
    172, 173, 174)}

def run_labels(vm, closure, args,
               # locals by default parameters (HOISTED and _emit in tools/gen_dispatch.py)
               type=type, int=int, str=str, list=list, dict=dict, len=len, next=next,
               UNSET=UNSET, Closure=Closure, HostFn=HostFn, Labeled=Labeled,
               below_2=_BELOW[2], below_3=_BELOW[3], below_4=_BELOW[4], below_5=_BELOW[5],
               below_6=_BELOW[6], below_7=_BELOW[7], below_8=_BELOW[8],
               below_10=_BELOW[10], below_11=_BELOW[11], below_12=_BELOW[12],
               below_13=_BELOW[13], below_14=_BELOW[14], below_15=_BELOW[15],
               below_16=_BELOW[16], below_17=_BELOW[17], below_18=_BELOW[18],
               below_19=_BELOW[19], below_20=_BELOW[20], below_21=_BELOW[21],
               below_22=_BELOW[22], below_23=_BELOW[23], below_24=_BELOW[24],
               below_25=_BELOW[25], below_26=_BELOW[26], below_27=_BELOW[27],
               below_28=_BELOW[28], below_29=_BELOW[29], below_30=_BELOW[30],
               below_31=_BELOW[31], below_32=_BELOW[32], below_33=_BELOW[33],
               below_34=_BELOW[34], below_35=_BELOW[35], below_36=_BELOW[36],
               below_37=_BELOW[37], below_38=_BELOW[38], below_39=_BELOW[39],
               below_40=_BELOW[40], below_41=_BELOW[41], below_42=_BELOW[42],
               below_43=_BELOW[43], below_44=_BELOW[44], below_45=_BELOW[45],
               below_46=_BELOW[46], below_47=_BELOW[47], below_48=_BELOW[48],
               below_49=_BELOW[49], below_50=_BELOW[50], below_51=_BELOW[51],
               below_100=_BELOW[100], below_101=_BELOW[101], below_102=_BELOW[102],
               below_103=_BELOW[103], below_104=_BELOW[104], below_105=_BELOW[105],
               below_106=_BELOW[106], below_107=_BELOW[107], below_108=_BELOW[108],
               below_109=_BELOW[109], below_110=_BELOW[110], below_111=_BELOW[111],
               below_112=_BELOW[112], below_113=_BELOW[113], below_114=_BELOW[114],
               below_115=_BELOW[115], below_116=_BELOW[116], below_117=_BELOW[117],
               below_118=_BELOW[118], below_119=_BELOW[119], below_120=_BELOW[120],
               below_121=_BELOW[121], below_122=_BELOW[122], below_123=_BELOW[123],
               below_124=_BELOW[124], below_125=_BELOW[125], below_126=_BELOW[126],
               below_127=_BELOW[127], below_128=_BELOW[128], below_129=_BELOW[129],
               below_130=_BELOW[130], below_131=_BELOW[131], below_132=_BELOW[132],
               below_133=_BELOW[133], below_134=_BELOW[134], below_135=_BELOW[135],
               below_136=_BELOW[136], below_137=_BELOW[137], below_138=_BELOW[138],
               below_139=_BELOW[139], below_140=_BELOW[140], below_141=_BELOW[141],
               below_142=_BELOW[142], below_143=_BELOW[143], below_144=_BELOW[144],
               below_145=_BELOW[145], below_146=_BELOW[146], below_147=_BELOW[147],
               below_148=_BELOW[148], below_149=_BELOW[149], below_150=_BELOW[150],
               below_151=_BELOW[151], below_152=_BELOW[152], below_153=_BELOW[153],
               below_154=_BELOW[154], below_155=_BELOW[155], below_156=_BELOW[156],
               below_157=_BELOW[157], below_158=_BELOW[158], below_159=_BELOW[159],
               below_160=_BELOW[160], below_161=_BELOW[161], below_162=_BELOW[162],
               below_163=_BELOW[163], below_164=_BELOW[164], below_165=_BELOW[165],
               below_166=_BELOW[166], below_167=_BELOW[167], below_168=_BELOW[168],
               below_169=_BELOW[169], below_170=_BELOW[170], below_171=_BELOW[171],
               below_172=_BELOW[172], below_173=_BELOW[173], below_174=_BELOW[174]):
    clabels = EMPTY
    if type(closure) is Labeled:
        clabels, closure = (closure.l, closure.v)
    func = closure.func
    code = vm.decoded[func]
    if func.kind == 'main':
        locals_ = vm.globals
    else:
        locals_ = args + vm.pads[func][len(args)]
        if closure.captures:
            locals_ += closure.captures
    pcs = vm.pc_stack
    stamps = [vm.stamp] * len(locals_) if pcs else None
    gstamps = vm.global_stamps
    stack = []
    frames = []
    handlers = []
    pc = 0
    glob = vm.globals
    decoded, pads = (vm.decoded, vm.pads)
    base_depth = vm.depth
    room = vm.max_depth - base_depth
    budget = vm.take_budget(room)
    push = stack.append
    pop = stack.pop
    add, sub, mul, div, mod = (ops.add, ops.sub, ops.mul, ops.div, ops.mod)
    lt, le, gt, ge, eq = (ops.lt, ops.le, ops.gt, ops.ge, ops.eq)
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
                    if below_124[op]:     # op < 124
                        if below_106[op]:     # op < 106
                            if below_28[op]:     # op < 28
                                if below_4[op]:     # op < 4
                                    if below_3[op]:     # op < 3
                                        if below_2[op]:     # op < 2
                                            # CONST (1)
                                            push(arg)
                                        else:
                                            # POP (2)
                                            pop()
                                    else:
                                        # LOAD_LOCAL (3)
                                        push(locals_[arg])
                                else:
                                    if below_12[op]:     # op < 12
                                        if below_11[op]:     # op < 11
                                            if below_6[op]:     # op < 6
                                                if below_5[op]:     # op < 5
                                                    # STORE_LOCAL (4)
                                                    v = pop()
                                                    if pcs and vm.pc:
                                                        vm.site = (code, pc - 1)
                                                        _upgrade_check(vm, locals_[arg], stamps[arg] if stamps else 0, _local_name(vm.owner[id(code)], arg))
                                                        v = _join(v, vm.pc)
                                                    locals_[arg] = v
                                                else:
                                                    # DECLARE_LOCAL (5)
                                                    v = pop()
                                                    if pcs:
                                                        if vm.pc:
                                                            v = _join(v, vm.pc)
                                                        if stamps is None:
                                                            stamps = [0] * len(locals_)
                                                        stamps[arg] = vm.stamp
                                                    locals_[arg] = v
                                            else:
                                                if below_8[op]:     # op < 8
                                                    if below_7[op]:     # op < 7
                                                        # LOAD_GLOBAL (6)
                                                        v = glob[arg]
                                                        if v is UNSET:
                                                            raise vm.unset_error(arg)
                                                        push(v)
                                                    else:
                                                        # STORE_GLOBAL (7)
                                                        v = pop()
                                                        if vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, glob[arg], gstamps[arg], vm.gprogram.globals[arg])
                                                            v = _join(v, vm.pc)
                                                        glob[arg] = v
                                                else:
                                                    if below_10[op]:     # op < 10
                                                        # DECLARE_GLOBAL (8)
                                                        v = pop()
                                                        if glob[arg] is not UNSET:
                                                            vm.site = (code, pc - 1)
                                                            _store(vm, glob, gstamps, arg, v, vm.gprogram.globals[arg])
                                                        else:
                                                            if vm.pc:
                                                                v = _join(v, vm.pc)
                                                            gstamps[arg] = vm.stamp
                                                            glob[arg] = v
                                                    else:
                                                        # MAKE_LAMBDA (10)
                                                        f, n = arg
                                                        if n:
                                                            caps, labels = _plain_seq(stack[-n:])
                                                            caps = tuple(caps)
                                                            del stack[-n:]
                                                        else:
                                                            caps = ()
                                                            labels = EMPTY
                                                        c = Closure(f, caps, decoded[f], pads[f])
                                                        if labels:
                                                            c = Labeled(c, labels)
                                                        push(c)
                                        else:
                                            # ADD (11)
                                            b = pop()
                                            a = stack[-1]
                                            if type(a) is int and type(b) is int:
                                                stack[-1] = a + b
                                            elif type(a) is str and type(b) is str:
                                                stack[-1] = a + b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                stack[-1] = _binary(vm, add, a, b)
                                            else:
                                                stack[-1] = add(a, b)
                                    else:
                                        if below_16[op]:     # op < 16
                                            if below_15[op]:     # op < 15
                                                if below_13[op]:     # op < 13
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
                                                    if below_14[op]:     # op < 14
                                                        # MUL (13)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is int and type(b) is int and (-1073741823 <= b and b <= 1073741823 or -18446744073709551616 < b < 18446744073709551616):
                                                            stack[-1] = a * b
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, mul, a, b)
                                                        else:
                                                            stack[-1] = mul(a, b)
                                                    else:
                                                        # DIV (14)
                                                        b = pop()
                                                        a = stack[-1]
                                                        if type(a) is Labeled or type(b) is Labeled:
                                                            stack[-1] = _binary(vm, div, a, b)
                                                        else:
                                                            stack[-1] = div(a, b)
                                            else:
                                                # MOD (15)
                                                b = pop()
                                                a = stack[-1]
                                                if type(a) is int and type(b) is int and (-1073741823 <= b and b <= 1073741823 or -18446744073709551616 < b < 18446744073709551616) and b:
                                                    stack[-1] = a % b
                                                elif type(a) is Labeled or type(b) is Labeled:
                                                    stack[-1] = _binary(vm, mod, a, b)
                                                else:
                                                    stack[-1] = mod(a, b)
                                        else:
                                            if below_25[op]:     # op < 25
                                                if below_20[op]:     # op < 20
                                                    if below_18[op]:     # op < 18
                                                        if below_17[op]:     # op < 17
                                                            # EQ (16)
                                                            b = pop()
                                                            a = stack[-1]
                                                            if type(a) is type(b) and (type(b) is int or type(b) is str):
                                                                stack[-1] = a == b
                                                            elif type(a) is Labeled or type(b) is Labeled:
                                                                stack[-1] = _binary(vm, eq, a, b, False)
                                                            else:
                                                                stack[-1] = eq(a, b)
                                                        else:
                                                            # NE (17)
                                                            b = pop()
                                                            a = stack[-1]
                                                            if type(a) is type(b) and (type(b) is int or type(b) is str):
                                                                stack[-1] = a != b
                                                            elif type(a) is Labeled or type(b) is Labeled:
                                                                stack[-1] = _binary(vm, ops.ne, a, b, False)
                                                            else:
                                                                stack[-1] = not eq(a, b)
                                                    else:
                                                        if below_19[op]:     # op < 19
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
                                                            if type(a) is int and type(b) is int:
                                                                stack[-1] = a <= b
                                                            elif type(a) is Labeled or type(b) is Labeled:
                                                                stack[-1] = _binary(vm, le, a, b)
                                                            else:
                                                                stack[-1] = le(a, b)
                                                else:
                                                    if below_24[op]:     # op < 24
                                                        if below_22[op]:     # op < 22
                                                            if below_21[op]:     # op < 21
                                                                # GT (20)
                                                                b = pop()
                                                                a = stack[-1]
                                                                if type(a) is int and type(b) is int:
                                                                    stack[-1] = a > b
                                                                elif type(a) is Labeled or type(b) is Labeled:
                                                                    stack[-1] = _binary(vm, gt, a, b)
                                                                else:
                                                                    stack[-1] = gt(a, b)
                                                            else:
                                                                # GE (21)
                                                                b = pop()
                                                                a = stack[-1]
                                                                if type(a) is int and type(b) is int:
                                                                    stack[-1] = a >= b
                                                                elif type(a) is Labeled or type(b) is Labeled:
                                                                    stack[-1] = _binary(vm, ge, a, b)
                                                                else:
                                                                    stack[-1] = ge(a, b)
                                                        else:
                                                            if below_23[op]:     # op < 23
                                                                # NEG (22)
                                                                a = stack[-1]
                                                                if type(a) is Labeled:
                                                                    stack[-1] = _unary(vm, ops.neg, a)
                                                                else:
                                                                    stack[-1] = ops.neg(a)
                                                            else:
                                                                # NOT (23)
                                                                a = stack[-1]
                                                                if type(a) is Labeled:
                                                                    stack[-1] = _unary(vm, ops.not_, a)
                                                                else:
                                                                    stack[-1] = ops.not_(a)
                                                    else:
                                                        # INDEX (24)
                                                        i = pop()
                                                        x = stack[-1]
                                                        if type(i) is int and type(x) is not Labeled:
                                                            try:
                                                                r = x[i]
                                                            except Exception:
                                                                r = index(x, i)
                                                        elif type(x) is dict and type(i) is str:
                                                            r = x.get(i)
                                                        elif type(x) is Labeled and x.t is not None:
                                                            r = _index_precise(vm, x, i)
                                                        elif type(x) is Labeled or type(i) is Labeled:
                                                            r = _binary(vm, index, x, i)
                                                        else:
                                                            r = index(x, i)
                                                        stack[-1] = r
                                            else:
                                                if below_26[op]:     # op < 26
                                                    # FIELD (25)
                                                    x = stack[-1]
                                                    if type(x) is dict:
                                                        stack[-1] = x.get(arg)
                                                    elif type(x) is Labeled and type(x.v) is dict and (x.t is not None):
                                                        stack[-1] = P.element(x, x.v.get(arg), arg, EMPTY)
                                                    elif type(x) is Labeled:
                                                        stack[-1] = _unary(vm, ops.field, x, arg)
                                                    else:
                                                        stack[-1] = ops.field(x, arg)
                                                else:
                                                    if below_27[op]:     # op < 27
                                                        # SET_PATH (26)
                                                        v = pop()
                                                        if not arg:
                                                            raise vm.bad_opcode(op)
                                                        keys = stack[-arg:]
                                                        del stack[-arg:]
                                                        items, labels = _plain_seq([stack[-1], v] + keys)
                                                        if labels and vm.try_entries:
                                                            taint_try(vm, _plain_seq([stack[-1]] + keys)[1])
                                                        r = _raise_labelled(vm, labels, ops.set_path, items[0], items[2:], items[1])
                                                        stack[-1] = Labeled(r, labels) if labels else r
                                                    else:
                                                        # BUILD_LIST (27)
                                                        if arg:
                                                            items = stack[-arg:]
                                                            del stack[-arg:]
                                                            if vm.pc or Labeled in map(type, items):
                                                                items = P.build_list(items, vm.pc)
                                                            push(items)
                                                        else:
                                                            push([])
                            else:
                                if below_39[op]:     # op < 39
                                    if below_31[op]:     # op < 31
                                        if below_29[op]:     # op < 29
                                            # BUILD_MAP (28)
                                            if not arg:
                                                push({})
                                            elif vm.pc or Labeled in map(type, stack[-2 * arg:]):
                                                raw = stack[-2 * arg:]
                                                items, labels = _plain_seq(raw)
                                                del stack[-2 * arg:]
                                                klabels = EMPTY
                                                if labels:
                                                    klabels = _plain_seq(raw[0::2])[1]
                                                    if klabels and vm.try_entries:
                                                        taint_try(vm, klabels)
                                                m = _raise_labelled(vm, klabels, ops.build_map, items)
                                                push(P.build_map(raw, m, vm.pc | klabels) if labels or vm.pc else m)
                                            else:
                                                items = stack[-2 * arg:]
                                                del stack[-2 * arg:]
                                                push(ops.build_map(items))
                                        else:
                                            if below_30[op]:     # op < 30
                                                # JUMP (29)
                                                pc = arg
                                            else:
                                                # JUMP_IF_FALSE (30)
                                                t, rid = arg
                                                c = pop()
                                                if type(c) is Labeled:
                                                    push_pc(vm, c.l, base_depth + len(frames), rid)
                                                    c = c.v
                                                if c is False:
                                                    pc = t
                                                elif c is not True:
                                                    raise vm.cond_error(code, pc - 1, c)
                                    else:
                                        if below_37[op]:     # op < 37
                                            if below_36[op]:     # op < 36
                                                if below_32[op]:     # op < 32
                                                    # AND_JUMP (31)
                                                    t, rid = arg
                                                    c = stack[-1]
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), rid)
                                                        c = c.v
                                                    if c is False:
                                                        pc = t
                                                    elif c is True:
                                                        pop()
                                                    else:
                                                        raise SynError(f'and needs a bool, got {ops.type_name(c)}')
                                                else:
                                                    if below_34[op]:     # op < 34
                                                        if below_33[op]:     # op < 33
                                                            # OR_JUMP (32)
                                                            t, rid = arg
                                                            c = stack[-1]
                                                            if type(c) is Labeled:
                                                                push_pc(vm, c.l, base_depth + len(frames), rid)
                                                                c = c.v
                                                            if c is True:
                                                                pc = t
                                                            elif c is False:
                                                                pop()
                                                            else:
                                                                raise SynError(f'or needs a bool, got {ops.type_name(c)}')
                                                        else:
                                                            # CHECK_BOOL (33)
                                                            v = stack[-1]
                                                            if type(v) is Labeled:
                                                                if vm.try_entries:
                                                                    taint_try(vm, v.l)
                                                                if v.v is not True and v.v is not False:
                                                                    _unary(vm, ops.check_bool, v, arg)
                                                            elif v is not True and v is not False:
                                                                ops.check_bool(v, arg)
                                                            if vm.pc:
                                                                stack[-1] = _join(v, vm.pc)
                                                    else:
                                                        if below_35[op]:     # op < 35
                                                            # ITER_START (34)
                                                            coll = stack[-1]
                                                            if type(coll) is Labeled:
                                                                shape = coll.t[0] if coll.t is not None else coll.l
                                                                if vm.try_entries:
                                                                    taint_try(vm, shape)
                                                                push_pc(vm, shape, base_depth + len(frames), arg)
                                                                it = _raise_labelled(vm, shape, ops.iterate, coll.v)
                                                                if coll.t is not None and type(coll.v) is list:
                                                                    it = P.iterate(coll, it)
                                                            else:
                                                                it = ops.iterate(coll)
                                                            stack[-1] = it
                                                        else:
                                                            # FOR_ITER (35)
                                                            v = next(stack[-1], UNSET)
                                                            if v is UNSET:
                                                                pop()
                                                                pc = arg
                                                                continue
                                                            push(v)
                                            else:
                                                # CALL (36)
                                                if arg == 1:
                                                    new = [pop()]
                                                    callee = pop()
                                                elif arg == 2:
                                                    b = pop()
                                                    new = [pop(), b]
                                                    callee = pop()
                                                else:
                                                    callee = stack[-arg - 1]
                                                    new = stack[-arg:] if arg else []
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
                                                    _raise_labelled(vm, clab, ops.not_callable, callee)
                                                fcode = callee.code
                                                if fcode is None:
                                                    f = callee.func
                                                    fcode, fpads = (decoded[f], pads[f])
                                                else:
                                                    fpads = callee.pads
                                                if clab:
                                                    pad = _raise_labelled(vm, clab, fpads.__getitem__, arg)
                                                else:
                                                    pad = fpads[arg]
                                                budget -= 1
                                                if budget <= 0:
                                                    budget = vm.tick_call(budget, room - len(frames))
                                                frames.append((code, pc, locals_, stamps))
                                                if clab:
                                                    push_pc(vm, clab, base_depth + len(frames), 0)
                                                code = fcode
                                                locals_ = new + pad if pad else new
                                                if callee.captures:
                                                    locals_ += callee.captures
                                                stamps = [vm.stamp] * len(locals_) if pcs else None
                                                pc = 0
                                        else:
                                            if below_38[op]:     # op < 38
                                                # CALL_TASK (37)
                                                _, n, pad, fcode = arg
                                                if n == 1:
                                                    new = [pop()]
                                                elif n == 2:
                                                    b = pop()
                                                    new = [pop(), b]
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
                                                # CALL_BUILTIN (38)
                                                fn, n, labelled = arg
                                                if n:
                                                    a = stack[-n:]
                                                    del stack[-n:]
                                                    if vm.pc or Labeled in map(type, a):
                                                        push(labelled(vm, *a))
                                                    else:
                                                        push(fn(*a))
                                                elif vm.pc:
                                                    push(labelled(vm))
                                                else:
                                                    push(fn())
                                else:
                                    if below_43[op]:     # op < 43
                                        if below_40[op]:     # op < 40
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
                                            if below_42[op]:     # op < 42
                                                if below_41[op]:     # op < 41
                                                    # TRY_BEGIN (40)
                                                    t, rid = arg
                                                    vm.stamp += 1
                                                    entry = [EMPTY, base_depth + len(frames), rid, vm.stamp, True]
                                                    vm.pc_stack.append(entry)
                                                    vm.try_entries.append(entry)
                                                    handlers.append((t, len(stack), len(frames), entry))
                                                else:
                                                    # TRY_END (41)
                                                    entry = handlers.pop()[3]
                                                    if entry in vm.try_entries:
                                                        vm.try_entries.remove(entry)
                                            else:
                                                # PC_RELEASE (42)
                                                if pcs:
                                                    release(vm, base_depth + len(frames), arg)
                                    else:
                                        if below_47[op]:     # op < 47
                                            if below_46[op]:     # op < 46
                                                if below_44[op]:     # op < 44
                                                    # JUMP_IF_SET (43)
                                                    s, t = arg
                                                    if locals_[s] is not UNSET:
                                                        pc = t
                                                else:
                                                    if below_45[op]:     # op < 45
                                                        # APPEND_LOCAL (44)
                                                        v = pop()
                                                        x = locals_[arg]
                                                        if type(x) is list and type(v) is not Labeled and (not vm.pc) and (refcount(x) <= 3):
                                                            x.append(v)
                                                        else:
                                                            if type(x) is Labeled or type(v) is Labeled:
                                                                r = _append_precise(vm, x, v)
                                                            else:
                                                                r = ops.append(x, v)
                                                            vm.site = (code, pc - 1)
                                                            _store(vm, locals_, stamps, arg, r, _local_name(vm.owner[id(code)], arg))
                                                    else:
                                                        # APPEND_GLOBAL (45)
                                                        v = pop()
                                                        x = glob[arg]
                                                        if type(x) is list and type(v) is not Labeled and (not vm.pc) and (refcount(x) <= 3):
                                                            x.append(v)
                                                        else:
                                                            if x is UNSET:
                                                                raise vm.unset_error(arg)
                                                            if type(x) is Labeled or type(v) is Labeled:
                                                                r = _append_precise(vm, x, v)
                                                            else:
                                                                r = ops.append(x, v)
                                                            vm.site = (code, pc - 1)
                                                            _store(vm, glob, gstamps, arg, r, vm.gprogram.globals[arg])
                                            else:
                                                # SET_ITEM_LOCAL (46)
                                                v = pop()
                                                k = pop()
                                                x = locals_[arg]
                                                if type(x) is dict and type(k) is str and (refcount(x) <= 3) and (type(v) is not Labeled) and (not vm.pc):
                                                    x[k] = v
                                                elif type(v) is not Labeled and type(k) is not Labeled and (not vm.pc) and (refcount(x) <= 3) and ops.set_in_place(x, k, v):
                                                    pass
                                                else:
                                                    vm.site = (code, pc - 1)
                                                    _store(vm, locals_, stamps, arg, _set_item_precise(vm, x, k, v), _local_name(vm.owner[id(code)], arg))
                                        else:
                                            if below_102[op]:     # op < 102
                                                if below_50[op]:     # op < 50
                                                    if below_49[op]:     # op < 49
                                                        if below_48[op]:     # op < 48
                                                            # SET_ITEM_GLOBAL (47)
                                                            v = pop()
                                                            k = pop()
                                                            x = glob[arg]
                                                            if x is UNSET:
                                                                raise vm.unset_error(arg)
                                                            if type(x) is dict and type(k) is str and (refcount(x) <= 3) and (type(v) is not Labeled) and (not vm.pc):
                                                                x[k] = v
                                                            elif type(v) is not Labeled and type(k) is not Labeled and (not vm.pc) and (refcount(x) <= 3) and ops.set_in_place(x, k, v):
                                                                pass
                                                            else:
                                                                vm.site = (code, pc - 1)
                                                                _store(vm, glob, gstamps, arg, _set_item_precise(vm, x, k, v), vm.gprogram.globals[arg])
                                                        else:
                                                            # DROP_UNDER (48)
                                                            v = pop()
                                                            del stack[-arg:]
                                                            push(v)
                                                    else:
                                                        # ADD_TO_LOCAL (49)
                                                        b = pop()
                                                        a = locals_[arg]
                                                        if type(a) is int and type(b) is int:
                                                            v = a + b
                                                        elif type(a) is str and type(b) is str:
                                                            v = a + b
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            v = _binary(vm, add, a, b)
                                                        else:
                                                            v = add(a, b)
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[arg], stamps[arg] if stamps else 0, _local_name(vm.owner[id(code)], arg))
                                                            v = _join(v, vm.pc)
                                                        locals_[arg] = v
                                                else:
                                                    if below_100[op]:     # op < 100
                                                        if below_51[op]:     # op < 51
                                                            # INDEX_LOCAL (50)
                                                            i = stack[-1]
                                                            x = locals_[arg]
                                                            if type(i) is int and type(x) is not Labeled:
                                                                try:
                                                                    r = x[i]
                                                                except Exception:
                                                                    r = index(x, i)
                                                            elif type(x) is dict and type(i) is str:
                                                                r = x.get(i)
                                                            elif type(x) is Labeled and x.t is not None:
                                                                r = _index_precise(vm, x, i)
                                                            elif type(x) is Labeled or type(i) is Labeled:
                                                                r = _binary(vm, index, x, i)
                                                            else:
                                                                r = index(x, i)
                                                            stack[-1] = r
                                                        else:
                                                            # BUILD_MAP_KEYS (51)
                                                            keys, n = arg
                                                            if vm.pc or Labeled in map(type, stack[-n:]):
                                                                raw = [x for kv in zip(keys, stack[-n:]) for x in kv]
                                                                del stack[-n:]
                                                                items, labels = _plain_seq(raw)
                                                                m = ops.build_map(items)
                                                                push(P.build_map(raw, m, vm.pc) if labels or vm.pc else m)
                                                            else:
                                                                m = dict(zip(keys, stack[-n:]))
                                                                del stack[-n:]
                                                                push(m)
                                                    else:
                                                        if below_101[op]:     # op < 101
                                                            # JUMP_BACK (100)
                                                            budget -= pc - arg
                                                            if budget <= 0:
                                                                budget = vm.tick(budget, room - len(frames))
                                                            pc = arg
                                                        else:
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
                                                if below_103[op]:     # op < 103
                                                    # LOAD_LOCAL2 (102) = LOAD_LOCAL LOAD_LOCAL
                                                    s, s1 = arg
                                                    push(locals_[s])
                                                    push(locals_[s1])
                                                else:
                                                    if below_104[op]:     # op < 104
                                                        # ADD_LL (103) = LOAD_LOCAL LOAD_LOCAL ADD
                                                        s, s1 = arg
                                                        a = locals_[s]
                                                        b = locals_[s1]
                                                        if type(a) is int and type(b) is int:
                                                            push(a + b)
                                                        elif type(a) is str and type(b) is str:
                                                            push(a + b)
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            push(_binary(vm, add, a, b))
                                                        else:
                                                            push(add(a, b))
                                                    else:
                                                        if below_105[op]:     # op < 105
                                                            # ADD_LC (104) = LOAD_LOCAL CONST ADD
                                                            s, k = arg
                                                            a = locals_[s]
                                                            if type(a) is int and type(k) is int:
                                                                push(a + k)
                                                            elif type(a) is str and type(k) is str:
                                                                push(a + k)
                                                            elif type(a) is Labeled:
                                                                push(_binary(vm, add, a, k))
                                                            else:
                                                                push(add(a, k))
                                                        else:
                                                            # SUB_LC (105) = LOAD_LOCAL CONST SUB
                                                            s, k = arg
                                                            a = locals_[s]
                                                            if type(a) is int:
                                                                push(a - k)
                                                            elif type(a) is Labeled:
                                                                push(_binary(vm, sub, a, k))
                                                            else:
                                                                push(sub(a, k))
                        else:
                            if below_118[op]:     # op < 118
                                if below_117[op]:     # op < 117
                                    if below_107[op]:     # op < 107
                                        # MOD_LC (106) = LOAD_LOCAL CONST MOD
                                        s, k = arg
                                        a = locals_[s]
                                        if type(a) is int:
                                            push(a % k)
                                        elif type(a) is Labeled:
                                            push(_binary(vm, mod, a, k))
                                        else:
                                            push(mod(a, k))
                                    else:
                                        if below_108[op]:     # op < 108
                                            # ADD_LL_ST (107) = LOAD_LOCAL LOAD_LOCAL ADD STORE_LOCAL
                                            s, s1, s2 = arg
                                            a = locals_[s]
                                            b = locals_[s1]
                                            if type(a) is int and type(b) is int:
                                                r = a + b
                                            elif type(a) is str and type(b) is str:
                                                r = a + b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                r = _binary(vm, add, a, b)
                                            else:
                                                r = add(a, b)
                                            try:
                                                if pcs and vm.pc:
                                                    vm.site = (code, pc - 1)
                                                    _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                    r = _join(r, vm.pc)
                                                locals_[s2] = r
                                            except Exception:
                                                vm.part = 3
                                                raise
                                        else:
                                            if below_112[op]:     # op < 112
                                                if below_110[op]:     # op < 110
                                                    if below_109[op]:     # op < 109
                                                        # ADD_LC_ST (108) = LOAD_LOCAL CONST ADD STORE_LOCAL
                                                        s, k, s2 = arg
                                                        a = locals_[s]
                                                        if type(a) is int:
                                                            r = a + k
                                                        elif type(a) is str and type(k) is str:
                                                            r = a + k
                                                        elif type(a) is Labeled:
                                                            r = _binary(vm, add, a, k)
                                                        else:
                                                            r = add(a, k)
                                                        try:
                                                            if pcs and vm.pc:
                                                                vm.site = (code, pc - 1)
                                                                _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                                r = _join(r, vm.pc)
                                                            locals_[s2] = r
                                                        except Exception:
                                                            vm.part = 3
                                                            raise
                                                    else:
                                                        # SUB_LC_ST (109) = LOAD_LOCAL CONST SUB STORE_LOCAL
                                                        s, k, s2 = arg
                                                        a = locals_[s]
                                                        if type(a) is int:
                                                            r = a - k
                                                        elif type(a) is Labeled:
                                                            r = _binary(vm, sub, a, k)
                                                        else:
                                                            r = sub(a, k)
                                                        try:
                                                            if pcs and vm.pc:
                                                                vm.site = (code, pc - 1)
                                                                _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                                r = _join(r, vm.pc)
                                                            locals_[s2] = r
                                                        except Exception:
                                                            vm.part = 3
                                                            raise
                                                else:
                                                    if below_111[op]:     # op < 111
                                                        # LT_LL_JF (110) = LOAD_LOCAL LOAD_LOCAL LT JUMP_IF_FALSE
                                                        s, s1, t, rid = arg
                                                        a = locals_[s]
                                                        b = locals_[s1]
                                                        if type(a) is int and type(b) is int:
                                                            if not a < b:
                                                                pc = t
                                                        else:
                                                            if type(a) is Labeled or type(b) is Labeled:
                                                                c = _binary(vm, lt, a, b)
                                                            else:
                                                                c = lt(a, b)
                                                            if type(c) is Labeled:
                                                                push_pc(vm, c.l, base_depth + len(frames), rid)
                                                                c = c.v
                                                            if c is False:
                                                                pc = t
                                                    else:
                                                        # LT_LC_JF (111) = LOAD_LOCAL CONST LT JUMP_IF_FALSE
                                                        s, k, t, rid = arg
                                                        a = locals_[s]
                                                        if type(a) is int:
                                                            if not a < k:
                                                                pc = t
                                                        else:
                                                            if type(a) is Labeled:
                                                                c = _binary(vm, lt, a, k)
                                                            else:
                                                                c = lt(a, k)
                                                            if type(c) is Labeled:
                                                                push_pc(vm, c.l, base_depth + len(frames), rid)
                                                                c = c.v
                                                            if c is False:
                                                                pc = t
                                            else:
                                                if below_113[op]:     # op < 113
                                                    # CMP_LC_JF (112) = LOAD_LOCAL CONST CMP JUMP_IF_FALSE
                                                    s, k, kind, t, rid = arg
                                                    a = locals_[s]
                                                    if type(a) is Labeled:
                                                        c = _binary(vm, _CMP[kind], a, k, kind < 3)
                                                    else:
                                                        c = compare(kind, a, k)
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), rid)
                                                        c = c.v
                                                    if c is False:
                                                        pc = t
                                                else:
                                                    if below_115[op]:     # op < 115
                                                        if below_114[op]:     # op < 114
                                                            # EQ_C_JF (113) = CONST EQ JUMP_IF_FALSE
                                                            k, t, rid = arg
                                                            a = pop()
                                                            if type(a) is type(k):
                                                                if not a == k:
                                                                    pc = t
                                                            else:
                                                                if type(a) is Labeled:
                                                                    c = _binary(vm, eq, a, k, False)
                                                                else:
                                                                    c = eq(a, k)
                                                                if type(c) is Labeled:
                                                                    push_pc(vm, c.l, base_depth + len(frames), rid)
                                                                    c = c.v
                                                                if c is False:
                                                                    pc = t
                                                        else:
                                                            # RETURN_LOCAL (114) = LOAD_LOCAL RETURN
                                                            val = locals_[arg[0]]
                                                            if pcs:
                                                                if vm.pc:
                                                                    val = _join(val, vm.pc)
                                                                drop_frames(vm, base_depth + len(frames))
                                                            if not frames:
                                                                return val
                                                            code, pc, locals_, stamps = frames.pop()
                                                            push(val)
                                                    else:
                                                        if below_116[op]:     # op < 116
                                                            # FOR_ITER_DECL (115) = FOR_ITER DECLARE_LOCAL
                                                            t, s = arg
                                                            v = next(stack[-1], UNSET)
                                                            if v is UNSET:
                                                                pop()
                                                                pc = t
                                                                continue
                                                            try:
                                                                if pcs:
                                                                    if vm.pc:
                                                                        v = _join(v, vm.pc)
                                                                    if stamps is None:
                                                                        stamps = [0] * len(locals_)
                                                                    stamps[s] = vm.stamp
                                                                locals_[s] = v
                                                            except Exception:
                                                                vm.part = 1
                                                                raise
                                                        else:
                                                            # CMP_LL_JF (116) = LOAD_LOCAL LOAD_LOCAL CMP JUMP_IF_FALSE
                                                            s, s1, kind, t, rid = arg
                                                            a = locals_[s]
                                                            b = locals_[s1]
                                                            if type(a) is Labeled or type(b) is Labeled:
                                                                c = _binary(vm, _CMP[kind], a, b, kind < 3)
                                                            else:
                                                                c = compare(kind, a, b)
                                                            if type(c) is Labeled:
                                                                push_pc(vm, c.l, base_depth + len(frames), rid)
                                                                c = c.v
                                                            if c is False:
                                                                pc = t
                                else:
                                    # CALL1_SUB_LC (117) = LOAD_LOCAL CONST SUB CALL_TASK1
                                    s, k, _, _, pad, fcode = arg
                                    a = locals_[s]
                                    try:
                                        if type(a) is int:
                                            x = a - k
                                        elif type(a) is Labeled:
                                            x = _binary(vm, sub, a, k)
                                        else:
                                            x = sub(a, k)
                                    except Exception:
                                        vm.part = 2
                                        raise
                                    new = [x]
                                    budget -= 1
                                    if budget <= 0:
                                        budget = vm.tick_call(budget, room - len(frames))
                                    frames.append((code, pc, locals_, stamps))
                                    code = fcode
                                    locals_ = new + pad if pad else new
                                    stamps = [vm.stamp] * len(locals_) if pcs else None
                                    pc = 0
                            else:
                                if below_123[op]:     # op < 123
                                    if below_119[op]:     # op < 119
                                        # ADD_RETURN (118) = ADD RETURN
                                        b = pop()
                                        a = pop()
                                        if type(a) is int and type(b) is int:
                                            val = a + b
                                        elif type(a) is str and type(b) is str:
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
                                        if below_120[op]:     # op < 120
                                            # MUL_LC (119) = LOAD_LOCAL CONST MUL
                                            s, k = arg
                                            a = locals_[s]
                                            if type(a) is int:
                                                push(a * k)
                                            elif type(a) is Labeled:
                                                push(_binary(vm, mul, a, k))
                                            else:
                                                push(mul(a, k))
                                        else:
                                            if below_121[op]:     # op < 121
                                                # SUB_LL_ST (120) = LOAD_LOCAL LOAD_LOCAL SUB STORE_LOCAL
                                                s, s1, s2 = arg
                                                a = locals_[s]
                                                b = locals_[s1]
                                                if type(a) is int and type(b) is int:
                                                    r = a - b
                                                elif type(a) is Labeled or type(b) is Labeled:
                                                    r = _binary(vm, sub, a, b)
                                                else:
                                                    r = sub(a, b)
                                                try:
                                                    if pcs and vm.pc:
                                                        vm.site = (code, pc - 1)
                                                        _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                        r = _join(r, vm.pc)
                                                    locals_[s2] = r
                                                except Exception:
                                                    vm.part = 3
                                                    raise
                                            else:
                                                if below_122[op]:     # op < 122
                                                    # ADD_ST (121) = ADD STORE_LOCAL
                                                    b = pop()
                                                    a = pop()
                                                    if type(a) is int and type(b) is int:
                                                        v = a + b
                                                    elif type(a) is str and type(b) is str:
                                                        v = a + b
                                                    elif type(a) is Labeled or type(b) is Labeled:
                                                        v = _binary(vm, add, a, b)
                                                    else:
                                                        v = add(a, b)
                                                    try:
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[arg[0]], stamps[arg[0]] if stamps else 0, _local_name(vm.owner[id(code)], arg[0]))
                                                            v = _join(v, vm.pc)
                                                        locals_[arg[0]] = v
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                                else:
                                                    # SUB_ST (122) = SUB STORE_LOCAL
                                                    b = pop()
                                                    a = pop()
                                                    if type(a) is int and type(b) is int:
                                                        v = a - b
                                                    elif type(a) is Labeled or type(b) is Labeled:
                                                        v = _binary(vm, sub, a, b)
                                                    else:
                                                        v = sub(a, b)
                                                    try:
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[arg[0]], stamps[arg[0]] if stamps else 0, _local_name(vm.owner[id(code)], arg[0]))
                                                            v = _join(v, vm.pc)
                                                        locals_[arg[0]] = v
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                else:
                                    # MOD_LC_EQ_C_JF (123) = LOAD_LOCAL CONST MOD CONST EQ JUMP_IF_FALSE
                                    s, k, k2, t, rid = arg
                                    a = locals_[s]
                                    if type(a) is int:
                                        r2 = a % k
                                        v3 = k2
                                        try:
                                            if type(r2) is type(v3):
                                                c = r2 == v3
                                            else:
                                                c = eq(r2, v3)
                                        except Exception:
                                            vm.part = 4
                                            raise
                                        if type(c) is Labeled:
                                            push_pc(vm, c.l, base_depth + len(frames), rid)
                                            c = c.v
                                        if c is False:
                                            pc = t
                                    else:
                                        if type(a) is Labeled:
                                            r2 = _binary(vm, mod, a, k)
                                        else:
                                            r2 = mod(a, k)
                                        try:
                                            if type(r2) is type(k2):
                                                c = r2 == k2
                                            elif type(r2) is Labeled:
                                                c = _binary(vm, eq, r2, k2, False)
                                            else:
                                                c = eq(r2, k2)
                                        except Exception:
                                            vm.part = 4
                                            raise
                                        if type(c) is Labeled:
                                            push_pc(vm, c.l, base_depth + len(frames), rid)
                                            c = c.v
                                        if c is False:
                                            pc = t
                    else:
                        if below_137[op]:     # op < 137
                            if below_131[op]:     # op < 131
                                if below_125[op]:     # op < 125
                                    # LT_LC_RET_LOCAL (124) = LOAD_LOCAL CONST LT JUMP_IF_FALSE LOAD_LOCAL RETURN
                                    s, k, t, rid, s4 = arg
                                    a = locals_[s]
                                    if type(a) is int:
                                        if not a < k:
                                            pc = t
                                            continue
                                        val = locals_[s4]
                                        if pcs:
                                            if vm.pc:
                                                val = _join(val, vm.pc)
                                            drop_frames(vm, base_depth + len(frames))
                                        if not frames:
                                            return val
                                        code, pc, locals_, stamps = frames.pop()
                                        push(val)
                                    else:
                                        if type(a) is Labeled:
                                            c = _binary(vm, lt, a, k)
                                        else:
                                            c = lt(a, k)
                                        if type(c) is Labeled:
                                            push_pc(vm, c.l, base_depth + len(frames), rid)
                                            c = c.v
                                        if c is False:
                                            pc = t
                                            continue
                                        val = locals_[s4]
                                        if pcs:
                                            if vm.pc:
                                                val = _join(val, vm.pc)
                                            drop_frames(vm, base_depth + len(frames))
                                        if not frames:
                                            return val
                                        code, pc, locals_, stamps = frames.pop()
                                        push(val)
                                else:
                                    if below_128[op]:     # op < 128
                                        if below_127[op]:     # op < 127
                                            if below_126[op]:     # op < 126
                                                # INDEX_L (125) = LOAD_LOCAL INDEX
                                                i = locals_[arg[0]]
                                                x = stack[-1]
                                                if type(i) is int and type(x) is not Labeled:
                                                    try:
                                                        r = x[i]
                                                    except Exception:
                                                        r = index(x, i)
                                                elif type(x) is dict and type(i) is str:
                                                    r = x.get(i)
                                                elif type(x) is Labeled and x.t is not None:
                                                    r = _index_precise(vm, x, i)
                                                elif type(x) is Labeled or type(i) is Labeled:
                                                    r = _binary(vm, index, x, i)
                                                else:
                                                    r = index(x, i)
                                                stack[-1] = r
                                            else:
                                                # INDEX_LL (126) = LOAD_LOCAL LOAD_LOCAL INDEX
                                                s, s1 = arg
                                                x = locals_[s]
                                                i = locals_[s1]
                                                if type(i) is int and type(x) is not Labeled:
                                                    try:
                                                        r = x[i]
                                                    except Exception:
                                                        r = index(x, i)
                                                elif type(x) is dict and type(i) is str:
                                                    r = x.get(i)
                                                elif type(x) is Labeled and x.t is not None:
                                                    r = _index_precise(vm, x, i)
                                                elif type(x) is Labeled or type(i) is Labeled:
                                                    r = _binary(vm, index, x, i)
                                                else:
                                                    r = index(x, i)
                                                push(r)
                                        else:
                                            # FIELD_L (127) = LOAD_LOCAL FIELD
                                            s, k = arg
                                            x = locals_[s]
                                            if type(x) is dict:
                                                push(x.get(k))
                                            elif type(x) is Labeled and type(x.v) is dict and (x.t is not None):
                                                push(P.element(x, x.v.get(k), k, EMPTY))
                                            elif type(x) is Labeled:
                                                push(_unary(vm, ops.field, x, k))
                                            else:
                                                push(ops.field(x, k))
                                    else:
                                        if below_130[op]:     # op < 130
                                            if below_129[op]:     # op < 129
                                                # CALL_VM_BUILTIN_POP (128) = CALL_VM_BUILTIN POP
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
                                                pop()
                                            else:
                                                # CONST2 (129) = CONST CONST
                                                k, k1 = arg
                                                push(k)
                                                push(k1)
                                        else:
                                            # DECLARE_LOCAL_LOAD (130) = DECLARE_LOCAL LOAD_LOCAL
                                            s, s1 = arg
                                            v = pop()
                                            if pcs:
                                                if vm.pc:
                                                    v = _join(v, vm.pc)
                                                if stamps is None:
                                                    stamps = [0] * len(locals_)
                                                stamps[s] = vm.stamp
                                            locals_[s] = v
                                            push(locals_[s1])
                            else:
                                if below_132[op]:     # op < 132
                                    # INDEX_LLL (131) = LOAD_LOCAL LOAD_LOCAL INDEX LOAD_LOCAL INDEX
                                    s, s1, s2 = arg
                                    x = locals_[s]
                                    i = locals_[s1]
                                    if type(i) is int and type(x) is not Labeled:
                                        try:
                                            r2 = x[i]
                                        except Exception:
                                            r2 = index(x, i)
                                    elif type(x) is dict and type(i) is str:
                                        r2 = x.get(i)
                                    elif type(x) is Labeled and x.t is not None:
                                        r2 = _index_precise(vm, x, i)
                                    elif type(x) is Labeled or type(i) is Labeled:
                                        r2 = _binary(vm, index, x, i)
                                    else:
                                        r2 = index(x, i)
                                    v3 = locals_[s2]
                                    try:
                                        if type(v3) is int and type(r2) is not Labeled:
                                            try:
                                                r4 = r2[v3]
                                            except Exception:
                                                r4 = index(r2, v3)
                                        elif type(r2) is dict and type(v3) is str:
                                            r4 = r2.get(v3)
                                        elif type(r2) is Labeled and r2.t is not None:
                                            r4 = _index_precise(vm, r2, v3)
                                        elif type(r2) is Labeled or type(v3) is Labeled:
                                            r4 = _binary(vm, index, r2, v3)
                                        else:
                                            r4 = index(r2, v3)
                                    except Exception:
                                        vm.part = 4
                                        raise
                                    push(r4)
                                else:
                                    if below_134[op]:     # op < 134
                                        if below_133[op]:     # op < 133
                                            # FOR_BACK (132) = JUMP_BACK FOR_ITER DECLARE_LOCAL
                                            t, t1, s = arg
                                            budget -= pc - t
                                            if budget <= 0:
                                                budget = vm.tick(budget, room - len(frames))
                                            v = next(stack[-1], UNSET)
                                            if v is UNSET:
                                                pop()
                                                pc = t1
                                                continue
                                            try:
                                                if pcs:
                                                    if vm.pc:
                                                        v = _join(v, vm.pc)
                                                    if stamps is None:
                                                        stamps = [0] * len(locals_)
                                                    stamps[s] = vm.stamp
                                                locals_[s] = v
                                            except Exception:
                                                vm.part = 2
                                                raise
                                            pc = t + 1
                                        else:
                                            # CALL_BUILTIN1_L (133) = LOAD_LOCAL CALL_BUILTIN1
                                            s, fn, _, labelled = arg
                                            a = locals_[s]
                                            if type(a) is Labeled or vm.pc:
                                                push(labelled(vm, a))
                                            else:
                                                push(fn(a))
                                    else:
                                        if below_135[op]:     # op < 135
                                            # ADD_C (134) = CONST ADD
                                            b = arg[0]
                                            a = stack[-1]
                                            if type(a) is int and type(b) is int:
                                                stack[-1] = a + b
                                            elif type(a) is str and type(b) is str:
                                                stack[-1] = a + b
                                            elif type(a) is Labeled:
                                                stack[-1] = _binary(vm, add, a, b)
                                            else:
                                                stack[-1] = add(a, b)
                                        else:
                                            if below_136[op]:     # op < 136
                                                # MUL_ADD_TO (135) = MUL ADD_TO_LOCAL
                                                b = pop()
                                                a = pop()
                                                try:
                                                    if type(a) is int and type(b) is int and (-1073741823 <= b and b <= 1073741823 or -18446744073709551616 < b < 18446744073709551616):
                                                        r0 = a * b
                                                    elif type(a) is Labeled or type(b) is Labeled:
                                                        r0 = _binary(vm, mul, a, b)
                                                    else:
                                                        r0 = mul(a, b)
                                                except Exception:
                                                    vm.part = 0
                                                    raise
                                                a = locals_[arg[0]]
                                                if type(a) is int and type(r0) is int:
                                                    v = a + r0
                                                elif type(a) is str and type(r0) is str:
                                                    v = a + r0
                                                elif type(a) is Labeled or type(r0) is Labeled:
                                                    v = _binary(vm, add, a, r0)
                                                else:
                                                    v = add(a, r0)
                                                if pcs and vm.pc:
                                                    vm.site = (code, pc - 1)
                                                    _upgrade_check(vm, locals_[arg[0]], stamps[arg[0]] if stamps else 0, _local_name(vm.owner[id(code)], arg[0]))
                                                    v = _join(v, vm.pc)
                                                locals_[arg[0]] = v
                                            else:
                                                # CALL1_LL (136) = LOAD_LOCAL LOAD_LOCAL CALL1
                                                s, s1, _ = arg
                                                callee = locals_[s]
                                                new = [locals_[s1]]
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
                                                    _raise_labelled(vm, clab, ops.not_callable, callee)
                                                fcode = callee.code
                                                if fcode is None:
                                                    f = callee.func
                                                    fcode, fpads = (decoded[f], pads[f])
                                                else:
                                                    fpads = callee.pads
                                                if clab:
                                                    pad = _raise_labelled(vm, clab, fpads.__getitem__, 1)
                                                else:
                                                    pad = fpads[1]
                                                budget -= 1
                                                if budget <= 0:
                                                    budget = vm.tick_call(budget, room - len(frames))
                                                frames.append((code, pc, locals_, stamps))
                                                if clab:
                                                    push_pc(vm, clab, base_depth + len(frames), 0)
                                                code = fcode
                                                locals_ = new + pad if pad else new
                                                if callee.captures:
                                                    locals_ += callee.captures
                                                stamps = [vm.stamp] * len(locals_) if pcs else None
                                                pc = 0
                        else:
                            if below_161[op]:     # op < 161
                                if below_147[op]:     # op < 147
                                    if below_143[op]:     # op < 143
                                        if below_140[op]:     # op < 140
                                            if below_138[op]:     # op < 138
                                                # CMP_C (137) = CONST CMP
                                                k, kind = arg
                                                a = stack[-1]
                                                if type(a) is Labeled:
                                                    stack[-1] = _binary(vm, _CMP[kind], a, k, kind < 3)
                                                else:
                                                    stack[-1] = compare(kind, a, k)
                                            else:
                                                if below_139[op]:     # op < 139
                                                    # LT_C (138) = CONST LT
                                                    a = stack[-1]
                                                    if type(a) is int:
                                                        stack[-1] = a < arg[0]
                                                    elif type(a) is Labeled:
                                                        stack[-1] = _binary(vm, lt, a, arg[0])
                                                    else:
                                                        stack[-1] = lt(a, arg[0])
                                                else:
                                                    # CALL_BUILTIN2_C (139) = CONST CALL_BUILTIN2
                                                    k, fn, _, labelled = arg
                                                    a = stack[-1]
                                                    if type(a) is Labeled or vm.pc:
                                                        stack[-1] = labelled(vm, a, k)
                                                    else:
                                                        stack[-1] = fn(a, k)
                                        else:
                                            if below_142[op]:     # op < 142
                                                if below_141[op]:     # op < 141
                                                    # INDEX_DECL (140) = INDEX DECLARE_LOCAL
                                                    i = pop()
                                                    x = pop()
                                                    if type(i) is int and type(x) is not Labeled:
                                                        try:
                                                            v = x[i]
                                                        except Exception:
                                                            v = index(x, i)
                                                    elif type(x) is dict and type(i) is str:
                                                        v = x.get(i)
                                                    elif type(x) is Labeled and x.t is not None:
                                                        v = _index_precise(vm, x, i)
                                                    elif type(x) is Labeled or type(i) is Labeled:
                                                        v = _binary(vm, index, x, i)
                                                    else:
                                                        v = index(x, i)
                                                    try:
                                                        if pcs:
                                                            if vm.pc:
                                                                v = _join(v, vm.pc)
                                                            if stamps is None:
                                                                stamps = [0] * len(locals_)
                                                            stamps[arg[0]] = vm.stamp
                                                        locals_[arg[0]] = v
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                                else:
                                                    # ADD_C_SET_ITEM (141) = CONST ADD SET_ITEM_LOCAL
                                                    k0, s = arg
                                                    a = pop()
                                                    if type(a) is int:
                                                        r = a + k0
                                                    elif type(a) is str and type(k0) is str:
                                                        r = a + k0
                                                    elif type(a) is Labeled:
                                                        r = _binary(vm, add, a, k0)
                                                    else:
                                                        r = add(a, k0)
                                                    k = pop()
                                                    try:
                                                        x = locals_[s]
                                                        if type(x) is dict and type(k) is str and (refcount(x) <= 3) and (type(r) is not Labeled) and (not vm.pc):
                                                            x[k] = r
                                                        elif type(r) is not Labeled and type(k) is not Labeled and (not vm.pc) and (refcount(x) <= 3) and ops.set_in_place(x, k, r):
                                                            pass
                                                        else:
                                                            vm.site = (code, pc - 1)
                                                            _store(vm, locals_, stamps, s, _set_item_precise(vm, x, k, r), _local_name(vm.owner[id(code)], s))
                                                    except Exception:
                                                        vm.part = 2
                                                        raise
                                            else:
                                                # ADD_LC_RET (142) = LOAD_LOCAL CONST ADD RETURN
                                                s, k = arg
                                                a = locals_[s]
                                                if type(a) is int:
                                                    val = a + k
                                                elif type(a) is str and type(k) is str:
                                                    val = a + k
                                                elif type(a) is Labeled:
                                                    val = _binary(vm, add, a, k)
                                                else:
                                                    val = add(a, k)
                                                if pcs:
                                                    if vm.pc:
                                                        val = _join(val, vm.pc)
                                                    drop_frames(vm, base_depth + len(frames))
                                                if not frames:
                                                    return val
                                                code, pc, locals_, stamps = frames.pop()
                                                push(val)
                                    else:
                                        if below_146[op]:     # op < 146
                                            if below_144[op]:     # op < 144
                                                # SUB_LC_RET (143) = LOAD_LOCAL CONST SUB RETURN
                                                s, k = arg
                                                a = locals_[s]
                                                if type(a) is int:
                                                    val = a - k
                                                elif type(a) is Labeled:
                                                    val = _binary(vm, sub, a, k)
                                                else:
                                                    val = sub(a, k)
                                                if pcs:
                                                    if vm.pc:
                                                        val = _join(val, vm.pc)
                                                    drop_frames(vm, base_depth + len(frames))
                                                if not frames:
                                                    return val
                                                code, pc, locals_, stamps = frames.pop()
                                                push(val)
                                            else:
                                                if below_145[op]:     # op < 145
                                                    # MUL_LC_RET (144) = LOAD_LOCAL CONST MUL RETURN
                                                    s, k = arg
                                                    a = locals_[s]
                                                    if type(a) is int:
                                                        val = a * k
                                                    elif type(a) is Labeled:
                                                        val = _binary(vm, mul, a, k)
                                                    else:
                                                        val = mul(a, k)
                                                    if pcs:
                                                        if vm.pc:
                                                            val = _join(val, vm.pc)
                                                        drop_frames(vm, base_depth + len(frames))
                                                    if not frames:
                                                        return val
                                                    code, pc, locals_, stamps = frames.pop()
                                                    push(val)
                                                else:
                                                    # CALL_BUILTIN3_C (145) = CONST CALL_BUILTIN3
                                                    k, fn, _, labelled = arg
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is Labeled or type(b) is Labeled or vm.pc:
                                                        stack[-1] = labelled(vm, a, b, k)
                                                    else:
                                                        stack[-1] = fn(a, b, k)
                                        else:
                                            # CALL_BUILTIN3_LLC (146) = LOAD_LOCAL LOAD_LOCAL CONST CALL_BUILTIN3
                                            s, s1, k, fn, _, labelled = arg
                                            a = locals_[s]
                                            b = locals_[s1]
                                            if type(a) is Labeled or type(b) is Labeled or vm.pc:
                                                push(labelled(vm, a, b, k))
                                            else:
                                                push(fn(a, b, k))
                                else:
                                    if below_155[op]:     # op < 155
                                        if below_151[op]:     # op < 151
                                            if below_150[op]:     # op < 150
                                                if below_148[op]:     # op < 148
                                                    # CHECK_BOOL_JF (147) = CHECK_BOOL JUMP_IF_FALSE
                                                    k, t, rid = arg
                                                    v = stack[-1]
                                                    if type(v) is Labeled:
                                                        if vm.try_entries:
                                                            taint_try(vm, v.l)
                                                        if v.v is not True and v.v is not False:
                                                            _unary(vm, ops.check_bool, v, k)
                                                    elif v is not True and v is not False:
                                                        ops.check_bool(v, k)
                                                    if vm.pc:
                                                        stack[-1] = _join(v, vm.pc)
                                                    c = pop()
                                                    try:
                                                        if type(c) is Labeled:
                                                            push_pc(vm, c.l, base_depth + len(frames), rid)
                                                            c = c.v
                                                        if c is False:
                                                            pc = t
                                                        elif c is not True:
                                                            raise vm.cond_error(code, pc - 1, c)
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                                else:
                                                    if below_149[op]:     # op < 149
                                                        # INDEX_CALL1 (148) = INDEX CALL_BUILTIN1
                                                        fn, _, labelled = arg
                                                        i = pop()
                                                        x = pop()
                                                        try:
                                                            if type(i) is int and type(x) is not Labeled:
                                                                try:
                                                                    a = x[i]
                                                                except Exception:
                                                                    a = index(x, i)
                                                            elif type(x) is dict and type(i) is str:
                                                                a = x.get(i)
                                                            elif type(x) is Labeled and x.t is not None:
                                                                a = _index_precise(vm, x, i)
                                                            elif type(x) is Labeled or type(i) is Labeled:
                                                                a = _binary(vm, index, x, i)
                                                            else:
                                                                a = index(x, i)
                                                        except Exception:
                                                            vm.part = 0
                                                            raise
                                                        if type(a) is Labeled or vm.pc:
                                                            push(labelled(vm, a))
                                                        else:
                                                            push(fn(a))
                                                    else:
                                                        # FIELD_CALL1 (149) = FIELD CALL_BUILTIN1
                                                        k, fn, _, labelled = arg
                                                        x = pop()
                                                        try:
                                                            if type(x) is dict:
                                                                a = x.get(k)
                                                            elif type(x) is Labeled and type(x.v) is dict and (x.t is not None):
                                                                a = P.element(x, x.v.get(k), k, EMPTY)
                                                            elif type(x) is Labeled:
                                                                a = _unary(vm, ops.field, x, k)
                                                            else:
                                                                a = ops.field(x, k)
                                                        except Exception:
                                                            vm.part = 0
                                                            raise
                                                        if type(a) is Labeled or vm.pc:
                                                            push(labelled(vm, a))
                                                        else:
                                                            push(fn(a))
                                            else:
                                                # CALL_BUILTIN_1 (150) = CALL_BUILTIN1
                                                fn, _, labelled = arg
                                                a = stack[-1]
                                                if type(a) is Labeled or vm.pc:
                                                    stack[-1] = labelled(vm, a)
                                                else:
                                                    stack[-1] = fn(a)
                                        else:
                                            if below_153[op]:     # op < 153
                                                if below_152[op]:     # op < 152
                                                    # CALL_BUILTIN_2 (151) = CALL_BUILTIN2
                                                    fn, _, labelled = arg
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is Labeled or type(b) is Labeled or vm.pc:
                                                        stack[-1] = labelled(vm, a, b)
                                                    else:
                                                        stack[-1] = fn(a, b)
                                                else:
                                                    # CALL_BUILTIN_3 (152) = CALL_BUILTIN3
                                                    fn, _, labelled = arg
                                                    c = pop()
                                                    b = pop()
                                                    a = stack[-1]
                                                    if type(a) is Labeled or type(b) is Labeled or type(c) is Labeled or vm.pc:
                                                        stack[-1] = labelled(vm, a, b, c)
                                                    else:
                                                        stack[-1] = fn(a, b, c)
                                            else:
                                                if below_154[op]:     # op < 154
                                                    # JUMP_RELEASE (153) = JUMP PC_RELEASE
                                                    t, rid = arg
                                                    if pcs:
                                                        release(vm, base_depth + len(frames), rid)
                                                    pc = t + 1
                                                else:
                                                    # STORE_LOCAL_BACK (154) = STORE_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                                    s, t, t2, s3 = arg
                                                    v = pop()
                                                    if pcs and vm.pc:
                                                        vm.site = (code, pc - 1)
                                                        _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0, _local_name(vm.owner[id(code)], s))
                                                        v = _join(v, vm.pc)
                                                    locals_[s] = v
                                                    try:
                                                        budget -= pc - t
                                                        if budget <= 0:
                                                            budget = vm.tick(budget, room - len(frames))
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                                    v0 = next(stack[-1], UNSET)
                                                    if v0 is UNSET:
                                                        pop()
                                                        pc = t2
                                                        continue
                                                    try:
                                                        if pcs:
                                                            if vm.pc:
                                                                v0 = _join(v0, vm.pc)
                                                            if stamps is None:
                                                                stamps = [0] * len(locals_)
                                                            stamps[s3] = vm.stamp
                                                        locals_[s3] = v0
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    pc = t + 1
                                    else:
                                        if below_156[op]:     # op < 156
                                            # ADD_TO_LOCAL_BACK (155) = ADD_TO_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                            s, t, t2, s3 = arg
                                            b = pop()
                                            a = locals_[s]
                                            if type(a) is int and type(b) is int:
                                                v = a + b
                                            elif type(a) is str and type(b) is str:
                                                v = a + b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                v = _binary(vm, add, a, b)
                                            else:
                                                v = add(a, b)
                                            if pcs and vm.pc:
                                                vm.site = (code, pc - 1)
                                                _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0, _local_name(vm.owner[id(code)], s))
                                                v = _join(v, vm.pc)
                                            locals_[s] = v
                                            try:
                                                budget -= pc - t
                                                if budget <= 0:
                                                    budget = vm.tick(budget, room - len(frames))
                                            except Exception:
                                                vm.part = 1
                                                raise
                                            v0 = next(stack[-1], UNSET)
                                            if v0 is UNSET:
                                                pop()
                                                pc = t2
                                                continue
                                            try:
                                                if pcs:
                                                    if vm.pc:
                                                        v0 = _join(v0, vm.pc)
                                                    if stamps is None:
                                                        stamps = [0] * len(locals_)
                                                    stamps[s3] = vm.stamp
                                                locals_[s3] = v0
                                            except Exception:
                                                vm.part = 3
                                                raise
                                            pc = t + 1
                                        else:
                                            if below_159[op]:     # op < 159
                                                if below_158[op]:     # op < 158
                                                    if below_157[op]:     # op < 157
                                                        # ADD_LL_ST_BACK (156) = LOAD_LOCAL LOAD_LOCAL ADD STORE_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                                        s, s1, s2, t, t4, s5 = arg
                                                        a = locals_[s]
                                                        b = locals_[s1]
                                                        if type(a) is int and type(b) is int:
                                                            r = a + b
                                                        elif type(a) is str and type(b) is str:
                                                            r = a + b
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            r = _binary(vm, add, a, b)
                                                        else:
                                                            r = add(a, b)
                                                        try:
                                                            if pcs and vm.pc:
                                                                vm.site = (code, pc - 1)
                                                                _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                                r = _join(r, vm.pc)
                                                            locals_[s2] = r
                                                        except Exception:
                                                            vm.part = 3
                                                            raise
                                                        try:
                                                            budget -= pc - t
                                                            if budget <= 0:
                                                                budget = vm.tick(budget, room - len(frames))
                                                        except Exception:
                                                            vm.part = 4
                                                            raise
                                                        v3 = next(stack[-1], UNSET)
                                                        if v3 is UNSET:
                                                            pop()
                                                            pc = t4
                                                            continue
                                                        try:
                                                            if pcs:
                                                                if vm.pc:
                                                                    v3 = _join(v3, vm.pc)
                                                                if stamps is None:
                                                                    stamps = [0] * len(locals_)
                                                                stamps[s5] = vm.stamp
                                                            locals_[s5] = v3
                                                        except Exception:
                                                            vm.part = 6
                                                            raise
                                                        pc = t + 1
                                                    else:
                                                        # ADD_LC_ST_BACK (157) = LOAD_LOCAL CONST ADD STORE_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                                        s, k, s2, t, t4, s5 = arg
                                                        a = locals_[s]
                                                        if type(a) is int:
                                                            r = a + k
                                                        elif type(a) is str and type(k) is str:
                                                            r = a + k
                                                        elif type(a) is Labeled:
                                                            r = _binary(vm, add, a, k)
                                                        else:
                                                            r = add(a, k)
                                                        try:
                                                            if pcs and vm.pc:
                                                                vm.site = (code, pc - 1)
                                                                _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                                r = _join(r, vm.pc)
                                                            locals_[s2] = r
                                                        except Exception:
                                                            vm.part = 3
                                                            raise
                                                        try:
                                                            budget -= pc - t
                                                            if budget <= 0:
                                                                budget = vm.tick(budget, room - len(frames))
                                                        except Exception:
                                                            vm.part = 4
                                                            raise
                                                        v3 = next(stack[-1], UNSET)
                                                        if v3 is UNSET:
                                                            pop()
                                                            pc = t4
                                                            continue
                                                        try:
                                                            if pcs:
                                                                if vm.pc:
                                                                    v3 = _join(v3, vm.pc)
                                                                if stamps is None:
                                                                    stamps = [0] * len(locals_)
                                                                stamps[s5] = vm.stamp
                                                            locals_[s5] = v3
                                                        except Exception:
                                                            vm.part = 6
                                                            raise
                                                        pc = t + 1
                                                else:
                                                    # APPEND_LOCAL_BACK (158) = APPEND_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                                    s, t, t2, s3 = arg
                                                    v = pop()
                                                    x = locals_[s]
                                                    if type(x) is list and type(v) is not Labeled and (not vm.pc) and (refcount(x) <= 3):
                                                        x.append(v)
                                                    else:
                                                        if type(x) is Labeled or type(v) is Labeled:
                                                            r = _append_precise(vm, x, v)
                                                        else:
                                                            r = ops.append(x, v)
                                                        vm.site = (code, pc - 1)
                                                        _store(vm, locals_, stamps, s, r, _local_name(vm.owner[id(code)], s))
                                                    try:
                                                        budget -= pc - t
                                                        if budget <= 0:
                                                            budget = vm.tick(budget, room - len(frames))
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                                    v0 = next(stack[-1], UNSET)
                                                    if v0 is UNSET:
                                                        pop()
                                                        pc = t2
                                                        continue
                                                    try:
                                                        if pcs:
                                                            if vm.pc:
                                                                v0 = _join(v0, vm.pc)
                                                            if stamps is None:
                                                                stamps = [0] * len(locals_)
                                                            stamps[s3] = vm.stamp
                                                        locals_[s3] = v0
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    pc = t + 1
                                            else:
                                                if below_160[op]:     # op < 160
                                                    # SET_ITEM_LOCAL_BACK (159) = SET_ITEM_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                                    s, t, t2, s3 = arg
                                                    v = pop()
                                                    k = pop()
                                                    x = locals_[s]
                                                    if type(x) is dict and type(k) is str and (refcount(x) <= 3) and (type(v) is not Labeled) and (not vm.pc):
                                                        x[k] = v
                                                    elif type(v) is not Labeled and type(k) is not Labeled and (not vm.pc) and (refcount(x) <= 3) and ops.set_in_place(x, k, v):
                                                        pass
                                                    else:
                                                        vm.site = (code, pc - 1)
                                                        _store(vm, locals_, stamps, s, _set_item_precise(vm, x, k, v), _local_name(vm.owner[id(code)], s))
                                                    try:
                                                        budget -= pc - t
                                                        if budget <= 0:
                                                            budget = vm.tick(budget, room - len(frames))
                                                    except Exception:
                                                        vm.part = 1
                                                        raise
                                                    v0 = next(stack[-1], UNSET)
                                                    if v0 is UNSET:
                                                        pop()
                                                        pc = t2
                                                        continue
                                                    try:
                                                        if pcs:
                                                            if vm.pc:
                                                                v0 = _join(v0, vm.pc)
                                                            if stamps is None:
                                                                stamps = [0] * len(locals_)
                                                            stamps[s3] = vm.stamp
                                                        locals_[s3] = v0
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    pc = t + 1
                                                else:
                                                    # ADD_C_SET_ITEM_BACK (160) = CONST ADD SET_ITEM_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                                    k0, s, t, t3, s4 = arg
                                                    a = pop()
                                                    if type(a) is int:
                                                        r = a + k0
                                                    elif type(a) is str and type(k0) is str:
                                                        r = a + k0
                                                    elif type(a) is Labeled:
                                                        r = _binary(vm, add, a, k0)
                                                    else:
                                                        r = add(a, k0)
                                                    k = pop()
                                                    try:
                                                        x = locals_[s]
                                                        if type(x) is dict and type(k) is str and (refcount(x) <= 3) and (type(r) is not Labeled) and (not vm.pc):
                                                            x[k] = r
                                                        elif type(r) is not Labeled and type(k) is not Labeled and (not vm.pc) and (refcount(x) <= 3) and ops.set_in_place(x, k, r):
                                                            pass
                                                        else:
                                                            vm.site = (code, pc - 1)
                                                            _store(vm, locals_, stamps, s, _set_item_precise(vm, x, k, r), _local_name(vm.owner[id(code)], s))
                                                    except Exception:
                                                        vm.part = 2
                                                        raise
                                                    try:
                                                        budget -= pc - t
                                                        if budget <= 0:
                                                            budget = vm.tick(budget, room - len(frames))
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    v2 = next(stack[-1], UNSET)
                                                    if v2 is UNSET:
                                                        pop()
                                                        pc = t3
                                                        continue
                                                    try:
                                                        if pcs:
                                                            if vm.pc:
                                                                v2 = _join(v2, vm.pc)
                                                            if stamps is None:
                                                                stamps = [0] * len(locals_)
                                                            stamps[s4] = vm.stamp
                                                        locals_[s4] = v2
                                                    except Exception:
                                                        vm.part = 5
                                                        raise
                                                    pc = t + 1
                            else:
                                if below_169[op]:     # op < 169
                                    if below_162[op]:     # op < 162
                                        # MUL_ADD_TO_BACK (161) = MUL ADD_TO_LOCAL JUMP_BACK FOR_ITER DECLARE_LOCAL
                                        s, t, t2, s3 = arg
                                        b = pop()
                                        a = pop()
                                        try:
                                            if type(a) is int and type(b) is int and (-1073741823 <= b and b <= 1073741823 or -18446744073709551616 < b < 18446744073709551616):
                                                r0 = a * b
                                            elif type(a) is Labeled or type(b) is Labeled:
                                                r0 = _binary(vm, mul, a, b)
                                            else:
                                                r0 = mul(a, b)
                                        except Exception:
                                            vm.part = 0
                                            raise
                                        a = locals_[s]
                                        if type(a) is int and type(r0) is int:
                                            v = a + r0
                                        elif type(a) is str and type(r0) is str:
                                            v = a + r0
                                        elif type(a) is Labeled or type(r0) is Labeled:
                                            v = _binary(vm, add, a, r0)
                                        else:
                                            v = add(a, r0)
                                        if pcs and vm.pc:
                                            vm.site = (code, pc - 1)
                                            _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0, _local_name(vm.owner[id(code)], s))
                                            v = _join(v, vm.pc)
                                        locals_[s] = v
                                        try:
                                            budget -= pc - t
                                            if budget <= 0:
                                                budget = vm.tick(budget, room - len(frames))
                                        except Exception:
                                            vm.part = 2
                                            raise
                                        v1 = next(stack[-1], UNSET)
                                        if v1 is UNSET:
                                            pop()
                                            pc = t2
                                            continue
                                        try:
                                            if pcs:
                                                if vm.pc:
                                                    v1 = _join(v1, vm.pc)
                                                if stamps is None:
                                                    stamps = [0] * len(locals_)
                                                stamps[s3] = vm.stamp
                                            locals_[s3] = v1
                                        except Exception:
                                            vm.part = 4
                                            raise
                                        pc = t + 1
                                    else:
                                        if below_166[op]:     # op < 166
                                            if below_164[op]:     # op < 164
                                                if below_163[op]:     # op < 163
                                                    # LT_LC_BACK (162) = JUMP_BACK LOAD_LOCAL CONST LT JUMP_IF_FALSE
                                                    t, s, k, t3, rid = arg
                                                    budget -= pc - t
                                                    if budget <= 0:
                                                        budget = vm.tick(budget, room - len(frames))
                                                    a = locals_[s]
                                                    try:
                                                        if type(a) is int:
                                                            c = a < k
                                                        elif type(a) is Labeled:
                                                            c = _binary(vm, lt, a, k)
                                                        else:
                                                            c = lt(a, k)
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), rid)
                                                        c = c.v
                                                    if c is False:
                                                        pc = t3
                                                        continue
                                                    pc = t + 1
                                                else:
                                                    # LT_LL_BACK (163) = JUMP_BACK LOAD_LOCAL LOAD_LOCAL LT JUMP_IF_FALSE
                                                    t, s, s2, t3, rid = arg
                                                    budget -= pc - t
                                                    if budget <= 0:
                                                        budget = vm.tick(budget, room - len(frames))
                                                    a = locals_[s]
                                                    b = locals_[s2]
                                                    try:
                                                        if type(a) is int and type(b) is int:
                                                            c = a < b
                                                        elif type(a) is Labeled or type(b) is Labeled:
                                                            c = _binary(vm, lt, a, b)
                                                        else:
                                                            c = lt(a, b)
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), rid)
                                                        c = c.v
                                                    if c is False:
                                                        pc = t3
                                                        continue
                                                    pc = t + 1
                                            else:
                                                if below_165[op]:     # op < 165
                                                    # CMP_LC_BACK (164) = JUMP_BACK LOAD_LOCAL CONST CMP JUMP_IF_FALSE
                                                    t, s, k, kind, t4, rid = arg
                                                    budget -= pc - t
                                                    if budget <= 0:
                                                        budget = vm.tick(budget, room - len(frames))
                                                    a = locals_[s]
                                                    try:
                                                        if type(a) is Labeled:
                                                            c = _binary(vm, _CMP[kind], a, k, kind < 3)
                                                        else:
                                                            c = compare(kind, a, k)
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), rid)
                                                        c = c.v
                                                    if c is False:
                                                        pc = t4
                                                        continue
                                                    pc = t + 1
                                                else:
                                                    # CMP_LL_BACK (165) = JUMP_BACK LOAD_LOCAL LOAD_LOCAL CMP JUMP_IF_FALSE
                                                    t, s, s2, kind, t4, rid = arg
                                                    budget -= pc - t
                                                    if budget <= 0:
                                                        budget = vm.tick(budget, room - len(frames))
                                                    a = locals_[s]
                                                    b = locals_[s2]
                                                    try:
                                                        if type(a) is Labeled or type(b) is Labeled:
                                                            c = _binary(vm, _CMP[kind], a, b, kind < 3)
                                                        else:
                                                            c = compare(kind, a, b)
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), rid)
                                                        c = c.v
                                                    if c is False:
                                                        pc = t4
                                                        continue
                                                    pc = t + 1
                                        else:
                                            if below_167[op]:     # op < 167
                                                # ADD_LC_ST_LT_LC_BACK (166) = LOAD_LOCAL CONST ADD STORE_LOCAL JUMP_BACK LOAD_LOCAL CONST LT JUMP_IF_FALSE
                                                a = locals_[arg[0]]
                                                b = arg[1]
                                                if type(a) is int:
                                                    r = a + b
                                                elif type(a) is str and type(b) is str:
                                                    r = a + b
                                                elif type(a) is Labeled:
                                                    r = _binary(vm, add, a, b)
                                                else:
                                                    r = add(a, b)
                                                try:
                                                    if pcs and vm.pc:
                                                        vm.site = (code, pc - 1)
                                                        _upgrade_check(vm, locals_[arg[2]], stamps[arg[2]] if stamps else 0, _local_name(vm.owner[id(code)], arg[2]))
                                                        r = _join(r, vm.pc)
                                                    locals_[arg[2]] = r
                                                except Exception:
                                                    vm.part = 3
                                                    raise
                                                try:
                                                    budget -= pc - arg[3]
                                                    if budget <= 0:
                                                        budget = vm.tick(budget, room - len(frames))
                                                except Exception:
                                                    vm.part = 4
                                                    raise
                                                v3 = locals_[arg[4]]
                                                try:
                                                    if type(v3) is int:
                                                        c = v3 < arg[5]
                                                    elif type(v3) is Labeled:
                                                        c = _binary(vm, lt, v3, arg[5])
                                                    else:
                                                        c = lt(v3, arg[5])
                                                except Exception:
                                                    vm.part = 7
                                                    raise
                                                if type(c) is Labeled:
                                                    push_pc(vm, c.l, base_depth + len(frames), arg[7])
                                                    c = c.v
                                                if c is False:
                                                    pc = arg[6]
                                                    continue
                                                pc = arg[3] + 1
                                            else:
                                                if below_168[op]:     # op < 168
                                                    # ADD_LC_ST_LT_LL_BACK (167) = LOAD_LOCAL CONST ADD STORE_LOCAL JUMP_BACK LOAD_LOCAL LOAD_LOCAL LT JUMP_IF_FALSE
                                                    a = locals_[arg[0]]
                                                    b = arg[1]
                                                    if type(a) is int:
                                                        r = a + b
                                                    elif type(a) is str and type(b) is str:
                                                        r = a + b
                                                    elif type(a) is Labeled:
                                                        r = _binary(vm, add, a, b)
                                                    else:
                                                        r = add(a, b)
                                                    try:
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[arg[2]], stamps[arg[2]] if stamps else 0, _local_name(vm.owner[id(code)], arg[2]))
                                                            r = _join(r, vm.pc)
                                                        locals_[arg[2]] = r
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    try:
                                                        budget -= pc - arg[3]
                                                        if budget <= 0:
                                                            budget = vm.tick(budget, room - len(frames))
                                                    except Exception:
                                                        vm.part = 4
                                                        raise
                                                    v3 = locals_[arg[4]]
                                                    v4 = locals_[arg[5]]
                                                    try:
                                                        if type(v3) is int and type(v4) is int:
                                                            c = v3 < v4
                                                        elif type(v3) is Labeled or type(v4) is Labeled:
                                                            c = _binary(vm, lt, v3, v4)
                                                        else:
                                                            c = lt(v3, v4)
                                                    except Exception:
                                                        vm.part = 7
                                                        raise
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), arg[7])
                                                        c = c.v
                                                    if c is False:
                                                        pc = arg[6]
                                                        continue
                                                    pc = arg[3] + 1
                                                else:
                                                    # SUB_LC_ST_CMP_LC_BACK (168) = LOAD_LOCAL CONST SUB STORE_LOCAL JUMP_BACK LOAD_LOCAL CONST CMP JUMP_IF_FALSE
                                                    a = locals_[arg[0]]
                                                    if type(a) is int:
                                                        r = a - arg[1]
                                                    elif type(a) is Labeled:
                                                        r = _binary(vm, sub, a, arg[1])
                                                    else:
                                                        r = sub(a, arg[1])
                                                    try:
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[arg[2]], stamps[arg[2]] if stamps else 0, _local_name(vm.owner[id(code)], arg[2]))
                                                            r = _join(r, vm.pc)
                                                        locals_[arg[2]] = r
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    try:
                                                        budget -= pc - arg[3]
                                                        if budget <= 0:
                                                            budget = vm.tick(budget, room - len(frames))
                                                    except Exception:
                                                        vm.part = 4
                                                        raise
                                                    v3 = locals_[arg[4]]
                                                    try:
                                                        if type(v3) is Labeled:
                                                            c = _binary(vm, _CMP[arg[6]], v3, arg[5], arg[6] < 3)
                                                        else:
                                                            c = compare(arg[6], v3, arg[5])
                                                    except Exception:
                                                        vm.part = 7
                                                        raise
                                                    if type(c) is Labeled:
                                                        push_pc(vm, c.l, base_depth + len(frames), arg[8])
                                                        c = c.v
                                                    if c is False:
                                                        pc = arg[7]
                                                        continue
                                                    pc = arg[3] + 1
                                else:
                                    if below_170[op]:     # op < 170
                                        # RELEASE_BACK (169) = PC_RELEASE JUMP_BACK FOR_ITER DECLARE_LOCAL
                                        rid, t, t2, s = arg
                                        if pcs:
                                            release(vm, base_depth + len(frames), rid)
                                        try:
                                            budget -= pc - t
                                            if budget <= 0:
                                                budget = vm.tick(budget, room - len(frames))
                                        except Exception:
                                            vm.part = 1
                                            raise
                                        v = next(stack[-1], UNSET)
                                        if v is UNSET:
                                            pop()
                                            pc = t2
                                            continue
                                        try:
                                            if pcs:
                                                if vm.pc:
                                                    v = _join(v, vm.pc)
                                                if stamps is None:
                                                    stamps = [0] * len(locals_)
                                                stamps[s] = vm.stamp
                                            locals_[s] = v
                                        except Exception:
                                            vm.part = 3
                                            raise
                                        pc = t + 1
                                    else:
                                        if below_171[op]:     # op < 171
                                            # INDEX_LOCAL_DECL (170) = INDEX_LOCAL DECLARE_LOCAL
                                            s, s1 = arg
                                            i = pop()
                                            x = locals_[s]
                                            if type(i) is int and type(x) is not Labeled:
                                                try:
                                                    v = x[i]
                                                except Exception:
                                                    v = index(x, i)
                                            elif type(x) is dict and type(i) is str:
                                                v = x.get(i)
                                            elif type(x) is Labeled and x.t is not None:
                                                v = _index_precise(vm, x, i)
                                            elif type(x) is Labeled or type(i) is Labeled:
                                                v = _binary(vm, index, x, i)
                                            else:
                                                v = index(x, i)
                                            try:
                                                if pcs:
                                                    if vm.pc:
                                                        v = _join(v, vm.pc)
                                                    if stamps is None:
                                                        stamps = [0] * len(locals_)
                                                    stamps[s1] = vm.stamp
                                                locals_[s1] = v
                                            except Exception:
                                                vm.part = 1
                                                raise
                                        else:
                                            if below_172[op]:     # op < 172
                                                # INDEX_LOCAL_CALL1 (171) = INDEX_LOCAL CALL_BUILTIN1
                                                s, fn, _, labelled = arg
                                                i = pop()
                                                try:
                                                    x = locals_[s]
                                                    if type(i) is int and type(x) is not Labeled:
                                                        try:
                                                            a = x[i]
                                                        except Exception:
                                                            a = index(x, i)
                                                    elif type(x) is dict and type(i) is str:
                                                        a = x.get(i)
                                                    elif type(x) is Labeled and x.t is not None:
                                                        a = _index_precise(vm, x, i)
                                                    elif type(x) is Labeled or type(i) is Labeled:
                                                        a = _binary(vm, index, x, i)
                                                    else:
                                                        a = index(x, i)
                                                except Exception:
                                                    vm.part = 0
                                                    raise
                                                if type(a) is Labeled or vm.pc:
                                                    push(labelled(vm, a))
                                                else:
                                                    push(fn(a))
                                            else:
                                                if below_173[op]:     # op < 173
                                                    # ADD_LC_ST_REL (172) = LOAD_LOCAL CONST ADD STORE_LOCAL PC_RELEASE
                                                    s, k, s2, rid = arg
                                                    a = locals_[s]
                                                    if type(a) is int:
                                                        r = a + k
                                                    elif type(a) is str and type(k) is str:
                                                        r = a + k
                                                    elif type(a) is Labeled:
                                                        r = _binary(vm, add, a, k)
                                                    else:
                                                        r = add(a, k)
                                                    try:
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[s2], stamps[s2] if stamps else 0, _local_name(vm.owner[id(code)], s2))
                                                            r = _join(r, vm.pc)
                                                        locals_[s2] = r
                                                    except Exception:
                                                        vm.part = 3
                                                        raise
                                                    if pcs:
                                                        release(vm, base_depth + len(frames), rid)
                                                    pc += 1
                                                else:
                                                    if below_174[op]:     # op < 174
                                                        # STORE_LOCAL_REL (173) = STORE_LOCAL PC_RELEASE
                                                        s, rid = arg
                                                        v = pop()
                                                        if pcs and vm.pc:
                                                            vm.site = (code, pc - 1)
                                                            _upgrade_check(vm, locals_[s], stamps[s] if stamps else 0, _local_name(vm.owner[id(code)], s))
                                                            v = _join(v, vm.pc)
                                                        locals_[s] = v
                                                        if pcs:
                                                            release(vm, base_depth + len(frames), rid)
                                                        pc += 1
                                                    else:
                                                        # RETURN_CONST (174) = CONST RETURN
                                                        val = arg[0]
                                                        if pcs:
                                                            if vm.pc:
                                                                val = _join(val, vm.pc)
                                                            drop_frames(vm, base_depth + len(frames))
                                                        if not frames:
                                                            return val
                                                        code, pc, locals_, stamps = frames.pop()
                                                        push(val)
            except Exception as exc:
                err = vm.as_error(exc)
                if vm.pc:
                    err.labels = err.labels | vm.pc
                vm.trace_frame(err, code, pc - 1)
                if not err.catchable or not handlers:
                    for fr in reversed(frames):
                        vm.trace_frame(err, fr[0], fr[1] - 1)
                    if vm.pc:
                        _withhold_frames(err, pcs, base_depth, len(frames))
                    raise err from None
                target, depth, frame_depth, entry = handlers.pop()
                while len(frames) > frame_depth:
                    code, pc, locals_, stamps = frames.pop()
                del stack[depth:]
                caught(vm, entry, err.labels)
                err.trace.clear()
                err.secret_frames = 0
                if err.labels:
                    push(Labeled(err.message, err.labels))
                else:
                    push(err.message)
                pc = target
    finally:
        vm.return_budget(budget)
        if vm.pc_stack:
            drop_frames(vm, base_depth)
