"""The dispatch loop, labels off: the hot path.

Decoded instructions are (opcode, argument) pairs (vm.decode). Dispatch is an `if`
chain on small ints, hottest first; every opcode test is written `op == N:  # NAME` and
a test checks each number against the opcode table. State lives in locals; Synsema
calls push a (code, pc, locals) tuple on `frames` instead of recursing in Python; all
frames share one value stack and one list of open tries (a function leaves neither behind
when it returns: the verifier checks it), and the running function is known from its code
list (vm.owner) only when an error or a builtin needs it. Step and time limits are
checked only when a backward jump or a call spends the step budget; so is the call depth,
as the budget never exceeds the calls the depth limit still allows.
"""

import sys

from synsema.vm import ops
from synsema.vm.errors import SynError
from synsema.vm.values import UNSET, Closure, HostFn


def run_plain(vm, closure, args):
    func = closure.func
    code = vm.decoded[func]
    if func.kind == "main":
        locals_ = vm.globals    # the top level's variables are the program's globals
    else:
        locals_ = args + vm.pads[func][len(args)]
        if closure.captures:
            locals_ += closure.captures
    stack = []
    frames = []
    handlers = []            # (target, stack depth, frame depth) of open tries
    pc = 0
    glob = vm.globals
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
    try:
        while True:
            try:
                while True:
                    op, arg = code[pc]
                    pc += 1
                    if op == 37:  # CALL_TASK
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
                        frames.append((code, pc, locals_))
                        code = fcode
                        locals_ = new + pad if pad else new
                        pc = 0
                    elif op == 3:  # LOAD_LOCAL
                        push(locals_[arg])
                    elif op == 117:  # CALL1_SUB_LC
                        slot, c, _, pad, fcode = arg
                        v = locals_[slot]
                        if type(v) is int:
                            new = [v - c]
                        else:
                            new = [sub(v, c)]
                        budget -= 1
                        if budget <= 0:
                            budget = vm.tick_call(budget, room - len(frames))
                        frames.append((code, pc, locals_))
                        code = fcode
                        locals_ = new + pad if pad else new
                        pc = 0
                    elif op == 119:  # MUL_LC
                        a = locals_[arg[0]]
                        if type(a) is int and type(arg[1]) is int:
                            push(a * arg[1])
                        else:
                            push(mul(a, arg[1]))
                    elif op == 120:  # SUB_LL_ST
                        a = locals_[arg[0]]
                        b = locals_[arg[1]]
                        if type(a) is int and type(b) is int:
                            locals_[arg[2]] = a - b
                        else:
                            locals_[arg[2]] = sub(a, b)
                    elif op == 121:  # ADD_ST
                        b = pop()
                        a = pop()
                        if type(a) is int and type(b) is int:
                            locals_[arg] = a + b
                        else:
                            locals_[arg] = add(a, b)
                    elif op == 122:  # SUB_ST
                        b = pop()
                        a = pop()
                        if type(a) is int and type(b) is int:
                            locals_[arg] = a - b
                        else:
                            locals_[arg] = sub(a, b)
                    elif op == 118:  # ADD_RETURN
                        b = pop()
                        a = pop()
                        if type(a) is int and type(b) is int:
                            val = a + b
                        else:
                            val = add(a, b)
                        if not frames:
                            return val
                        code, pc, locals_ = frames.pop()
                        push(val)
                    elif op == 114:  # RETURN_LOCAL
                        val = locals_[arg]
                        if not frames:
                            return val
                        code, pc, locals_ = frames.pop()
                        push(val)
                    elif op == 111:  # LT_LC_JF
                        a = locals_[arg[0]]
                        if type(a) is int:
                            if not a < arg[1]:
                                pc = arg[2]
                        elif lt(a, arg[1]) is False:
                            pc = arg[2]
                    elif op == 124:  # LT_LC_RET_LOCAL
                        a = locals_[arg[0]]
                        if type(a) is int:
                            done = a < arg[1]
                        else:
                            done = lt(a, arg[1]) is not False
                        if done:
                            val = locals_[arg[2]]
                            if not frames:
                                return val
                            code, pc, locals_ = frames.pop()
                            push(val)
                    elif op == 105:  # SUB_LC
                        a = locals_[arg[0]]
                        if type(a) is int:
                            push(a - arg[1])
                        else:
                            push(sub(a, arg[1]))
                    elif op == 39:  # RETURN
                        val = pop()
                        if not frames:
                            return val
                        code, pc, locals_ = frames.pop()
                        push(val)
                    elif op == 11:  # ADD
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a + b
                        else:
                            stack[-1] = add(a, b)
                    elif op == 1:  # CONST
                        push(arg)
                    elif op == 102:  # LOAD_LOCAL2
                        push(locals_[arg[0]])
                        push(locals_[arg[1]])
                    elif op == 101:  # CALL_VM_BUILTIN
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
                    elif op == 38:  # CALL_BUILTIN
                        fn, n = arg
                        if n:
                            a = stack[-n:]
                            del stack[-n:]
                            push(fn(*a))
                        else:
                            push(fn())
                    elif op == 100:  # JUMP_BACK
                        budget -= pc - arg
                        if budget <= 0:
                            budget = vm.tick(budget, room - len(frames))
                        pc = arg
                    elif op == 108:  # ADD_LC_ST
                        a = locals_[arg[0]]
                        if type(a) is int:
                            locals_[arg[2]] = a + arg[1]
                        else:
                            locals_[arg[2]] = add(a, arg[1])
                    elif op == 110:  # LT_LL_JF
                        a = locals_[arg[0]]
                        b = locals_[arg[1]]
                        if type(a) is int and type(b) is int:
                            if not a < b:
                                pc = arg[2]
                        elif lt(a, b) is False:
                            pc = arg[2]
                    elif op == 30:  # JUMP_IF_FALSE
                        v = pop()
                        if v is False:
                            pc = arg
                        elif v is not True:
                            raise vm.cond_error(code, pc - 1, v)
                    elif op == 4 or op == 5:  # STORE_LOCAL, DECLARE_LOCAL
                        locals_[arg] = pop()
                    elif op == 107:  # ADD_LL_ST
                        a = locals_[arg[0]]
                        b = locals_[arg[1]]
                        if type(a) is int and type(b) is int:
                            locals_[arg[2]] = a + b
                        else:
                            locals_[arg[2]] = add(a, b)
                    elif op == 29:  # JUMP
                        pc = arg
                    elif op == 109:  # SUB_LC_ST
                        a = locals_[arg[0]]
                        if type(a) is int:
                            locals_[arg[2]] = a - arg[1]
                        else:
                            locals_[arg[2]] = sub(a, arg[1])
                    elif op == 113:  # EQ_C_JF
                        a = pop()
                        c = arg[0]
                        if type(a) is type(c):
                            if a != c:
                                pc = arg[1]
                        elif not eq(a, c):
                            pc = arg[1]
                    elif op == 123:  # MOD_LC_EQ_C_JF
                        a = locals_[arg[0]]
                        if type(a) is int:
                            a = a % arg[1]
                        else:
                            a = mod(a, arg[1])
                        c = arg[2]
                        if type(a) is type(c):
                            if a != c:
                                pc = arg[3]
                        elif not eq(a, c):
                            pc = arg[3]
                    elif op == 106:  # MOD_LC
                        a = locals_[arg[0]]
                        if type(a) is int and type(arg[1]) is int:
                            push(a % arg[1])
                        else:
                            push(mod(a, arg[1]))
                    elif op == 103:  # ADD_LL
                        a = locals_[arg[0]]
                        b = locals_[arg[1]]
                        if type(a) is int and type(b) is int:
                            push(a + b)
                        else:
                            push(add(a, b))
                    elif op == 104:  # ADD_LC
                        a = locals_[arg[0]]
                        if type(a) is int:
                            push(a + arg[1])
                        else:
                            push(add(a, arg[1]))
                    elif op == 2:  # POP
                        pop()
                    elif op == 115:  # FOR_ITER_DECL
                        v = next(stack[-1], UNSET)
                        if v is UNSET:
                            pop()
                            pc = arg[0]
                        else:
                            locals_[arg[1]] = v
                    elif op == 112:  # CMP_LC_JF
                        if not compare(arg[0], locals_[arg[1]], arg[2]):
                            pc = arg[3]
                    elif op == 116:  # CMP_LL_JF
                        if not compare(arg[0], locals_[arg[1]], locals_[arg[2]]):
                            pc = arg[3]
                    elif op == 44:  # APPEND_LOCAL
                        v = pop()
                        x = locals_[arg]
                        if type(x) is list and refcount(x) <= 3:
                            x.append(v)
                        else:
                            locals_[arg] = ops.append(x, v)
                    elif op == 46:  # SET_ITEM_LOCAL
                        v = pop()
                        k = pop()
                        x = locals_[arg]
                        if refcount(x) <= 3 and ops.set_in_place(x, k, v):
                            pass
                        else:
                            locals_[arg] = ops.set_item(x, k, v)
                    elif op == 24:  # INDEX
                        i = pop()
                        x = stack[-1]
                        if type(x) is list and type(i) is int and -len(x) <= i < len(x):
                            stack[-1] = x[i]
                        else:
                            stack[-1] = index(x, i)
                    elif op == 25:  # FIELD
                        x = stack[-1]
                        if type(x) is dict:
                            stack[-1] = x.get(arg)
                        else:
                            stack[-1] = ops.field(x, arg)
                    elif op == 6:  # LOAD_GLOBAL
                        v = glob[arg]
                        if v is UNSET:
                            raise vm.unset_error(arg)
                        push(v)
                    elif op == 12:  # SUB
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a - b
                        else:
                            stack[-1] = sub(a, b)
                    elif op == 18:  # LT
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a < b
                        else:
                            stack[-1] = lt(a, b)
                    elif op == 16:  # EQ
                        b = pop()
                        a = stack[-1]
                        if type(a) is type(b) and (type(a) is int or type(a) is str):
                            stack[-1] = a == b
                        else:
                            stack[-1] = eq(a, b)
                    elif op == 13:  # MUL
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a * b
                        else:
                            stack[-1] = mul(a, b)
                    elif op == 45:  # APPEND_GLOBAL
                        v = pop()
                        x = glob[arg]
                        if type(x) is list and refcount(x) <= 3:
                            x.append(v)
                        else:
                            if x is UNSET:
                                raise vm.unset_error(arg)
                            glob[arg] = ops.append(x, v)
                    elif op == 47:  # SET_ITEM_GLOBAL
                        v = pop()
                        k = pop()
                        x = glob[arg]
                        if x is UNSET:
                            raise vm.unset_error(arg)
                        if refcount(x) <= 3 and ops.set_in_place(x, k, v):
                            pass
                        else:
                            glob[arg] = ops.set_item(x, k, v)
                    elif op == 14:  # DIV
                        b = pop()
                        stack[-1] = div(stack[-1], b)
                    elif op == 15:  # MOD
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int and b:
                            stack[-1] = a % b
                        else:
                            stack[-1] = mod(a, b)
                    elif op == 17:  # NE
                        b = pop()
                        a = stack[-1]
                        if type(a) is type(b) and (type(a) is int or type(a) is str):
                            stack[-1] = a != b
                        else:
                            stack[-1] = not eq(a, b)
                    elif op == 19:  # LE
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a <= b
                        else:
                            stack[-1] = le(a, b)
                    elif op == 20:  # GT
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a > b
                        else:
                            stack[-1] = gt(a, b)
                    elif op == 21:  # GE
                        b = pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a >= b
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
                        stack[-1] = ops.iterate(stack[-1])
                    elif op == 7 or op == 8:  # STORE_GLOBAL, DECLARE_GLOBAL
                        glob[arg] = pop()
                    elif op == 27:  # BUILD_LIST
                        if arg:
                            items = stack[-arg:]
                            del stack[-arg:]
                            push(items)
                        else:
                            push([])
                    elif op == 28:  # BUILD_MAP
                        if arg:
                            items = stack[-2 * arg:]
                            del stack[-2 * arg:]
                            push(ops.build_map(items))
                        else:
                            push({})
                    elif op == 31:  # AND_JUMP
                        v = stack[-1]
                        if v is False:
                            pc = arg
                        elif v is True:
                            pop()
                        else:
                            raise SynError(f"and needs a bool, got {ops.type_name(v)}")
                    elif op == 32:  # OR_JUMP
                        v = stack[-1]
                        if v is True:
                            pc = arg
                        elif v is False:
                            pop()
                        else:
                            raise SynError(f"or needs a bool, got {ops.type_name(v)}")
                    elif op == 33:  # CHECK_BOOL
                        v = stack[-1]
                        if v is not True and v is not False:
                            ops.check_bool(v, arg)
                    elif op == 23:  # NOT
                        stack[-1] = ops.not_(stack[-1])
                    elif op == 22:  # NEG
                        stack[-1] = ops.neg(stack[-1])
                    elif op == 26:  # SET_PATH
                        v = pop()
                        if not arg:     # verified files never have 0 keys; never eat the stack
                            raise vm.bad_opcode(op)
                        keys = stack[-arg:]
                        del stack[-arg:]
                        stack[-1] = ops.set_path(stack[-1], keys, v)
                    elif op == 36:  # CALL
                        callee = stack[-arg - 1]
                        if arg:
                            new = stack[-arg:]
                        else:
                            new = []
                        del stack[-arg - 1:]
                        if type(callee) is not Closure:
                            if type(callee) is HostFn:
                                vm.site = (code, pc - 1)
                                push(vm.call_host(callee, new))
                                continue
                            ops.not_callable(callee)
                        f = callee.func
                        if not f.nrequired <= arg <= len(f.params):
                            ops.arity_error(f, arg)
                        budget -= 1
                        if budget <= 0:
                            budget = vm.tick_call(budget, room - len(frames))
                        frames.append((code, pc, locals_))
                        code = vm.decoded[f]
                        locals_ = new + vm.pads[f][arg]
                        if callee.captures:
                            locals_ += callee.captures
                        pc = 0
                    elif op == 10:  # MAKE_LAMBDA
                        f, n = arg
                        if n:
                            caps = tuple(stack[-n:])
                            del stack[-n:]
                        else:
                            caps = ()
                        push(Closure(f, caps))
                    elif op == 43:  # JUMP_IF_SET
                        slot, target = arg
                        if locals_[slot] is not UNSET:
                            pc = target
                    elif op == 40:  # TRY_BEGIN
                        handlers.append((arg, len(stack), len(frames)))
                    elif op == 48:  # DROP_UNDER
                        v = pop()
                        del stack[-arg:]
                        push(v)
                    elif op == 41:  # TRY_END
                        handlers.pop()
                    else:
                        raise vm.bad_opcode(op)
            except Exception as exc:  # noqa: BLE001 - every error is turned into a SynError
                err = vm.as_error(exc)
                vm.trace_frame(err, code, pc - 1)
                if not err.catchable or not handlers:
                    for fr in reversed(frames):
                        vm.trace_frame(err, fr[0], fr[1] - 1)
                    raise err from None
                # The innermost open try, in this frame or one below: unwind to it.
                target, depth, frame_depth = handlers.pop()
                while len(frames) > frame_depth:
                    code, pc, locals_ = frames.pop()
                del stack[depth:]
                err.trace.clear()
                push(err.message)
                pc = target
    finally:
        vm.return_budget(budget)
