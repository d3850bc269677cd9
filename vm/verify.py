"""The load-time verifier: refuses any Program the VM could not run safely.

Runs on every load (the .synb decoder calls it last), so it is one pass over each
function's code to decode and range-check every instruction, then one worklist pass over
the control flow that tracks, per instruction, the stack depth and the stack of open
`try` handlers. Both must agree wherever paths join; that is what lets the loop pop
without checking and a handler truncate the stack to a depth known at TRY_BEGIN.

Everything is checked on the Program's own fields with exact types (a bool is not an
int here), because a hand-made or corrupted file can put anything anywhere. A problem
raises InvalidProgram(reason); the reason names the function and the code offset.
"""

from itertools import accumulate

from synsema.stdlib.registry import load_all
from synsema.vm import opcodes as O
from synsema.vm import optable as T
from synsema.vm.caps import is_cap
from synsema.vm.errors import InvalidProgram
from synsema.vm.flow import EXIT, dominator_tree, post_dominators
from synsema.vm.program import Function, Param, is_name

MAX_COUNT = 10_000          # count operands: arguments, items, keys, captures
MAX_STACK = 100_000         # operand stack depth of one frame
MAX_LOCALS = 65_536         # slots of one function (each call allocates them)
MAX_PARAMS = 255
MAX_RID = 2 ** 31 - 1
# Frame pads (vm.decode.FramePads): a VM may make one per function and argument count,
# each as long as the function's locals. A file may ask for this many slots in all, or
# 4 per int of its code, whichever is more, so memory stays proportional to its size.
MAX_PAD_SLOTS = 1 << 20
# A source position: no source has lines or columns this far out (a caret printed at a
# crafted column of 2**40 would be a terabyte of spaces).
MAX_LINE = 10_000_000
MAX_COL = 1_000_000
# A crafted file's names are shown by syn inspect/outline/dis and matched by --call, so
# they are held to the compiler's rule (vm.program.is_name: no keyword either).
_FUNC_NAMES = {"main": "<top level>", "lambda": "<lambda>"}     # as the compiler names them

KINDS = ("main", "task", "lambda", "test")
PARAM_TYPES = frozenset({"number", "text", "bool", "list", "map", "task", "any"})
DEFAULTS = (Param.NO_DEFAULT, Param.DEFAULT_NOTHING, Param.DEFAULT_EXPR)
CONST_TYPES = (int, float, str, bool, type(None))

# From each instruction's definition (vm/instructions.py `slot`, `check`, `min_count`):
# instructions that name a local slot as their first operand (JUMP_IF_SET only tests
# whether a parameter was passed: handled apart), and those of them that only write it.
_READS_LOCAL = frozenset(c for c, (kind, use) in T.SLOT.items()
                         if kind == "local" and use != "test")
_WRITES_LOCAL = frozenset(c for c, (kind, use) in T.SLOT.items()
                          if kind == "local" and use in ("set", "declare"))

# Instructions with a check beyond their operands' ranges: code -> the check's name.
_CHECKS = T.CHECKS

# Count operands that must be at least 1: no key to set, or no value to drop (the loops
# slice the stack with -n, and -0 is all of it).
_MIN_COUNT = T.MIN_COUNT

# Instructions naming a top-level variable, and those of them that set it.
_GLOBAL_OPS = frozenset(op.code for op in O.OPS if "global" in op.operands)
_SETS_GLOBAL = frozenset(c for c, (kind, use) in T.SLOT.items()
                         if kind == "global" and use in ("set", "declare"))

# Which operand of each opcode is its jump target (None when it has none).
_JUMP_AT = {op.code: (op.operands.index("jump") if "jump" in op.operands else None)
            for op in O.OPS}


def verify(program):
    """Check a whole Program; raise InvalidProgram(reason) or set every func.max_stack."""
    _check_program(program)
    top = None                  # the globals main declares outside every block
    # texts[i]: how many of the first i constants are texts (BUILD_MAP_KEYS checks its n
    # keys in one step, not n).
    texts = list(accumulate((type(c) is str for c in program.consts), initial=0))
    for index, func in enumerate(program.functions):
        func.max_stack = _check_code(program, func, index, top, texts)
        decoded, declared = _check_declarations(func, index)
        if index == 0:
            top = _top_level_globals(decoded, declared)


def _top_level_globals(decoded, declared):
    """The top level's variables whose `let` runs on every path through the top level
    (its DECLARE_LOCAL post-dominates the entry): outside every `when`, loop and `try`.
    Only these may tasks and tests read (SPEC 2): whether a `let` inside a block has run
    depends on the branch taken, and a task reading it long after the branch (its
    `'x' is not set yet` error or not) would tell which way a labelled branch went."""
    ipdom = post_dominators(decoded)
    slot_at = {k: slot for slot, k in declared.items()}
    top = set()
    k = 0
    while k != EXIT:            # up the post-dominator tree, from the entry to the exit
        if k in slot_at:
            top.add(slot_at[k])
        k = ipdom[k]
    return top


def _check_declarations(func, index):
    """Each local a `let` declares (every slot past the parameters and captures) has one
    DECLARE_LOCAL (at most one in the top level, whose slots are the globals), and it
    comes before every use on every path (it dominates them). The labels loop relies on
    this: a declaration is where no-sensitive-upgrade starts counting, so a crafted file
    must not be able to `let` an outer variable again inside a labelled branch.
    Returns the decoded code and {slot: index of its DECLARE_LOCAL}."""
    fixed = func.fixed
    decoded, offsets = [], {}
    insts = list(O.iter_instructions(func.code))
    for k, (off, _, _) in enumerate(insts):
        offsets[off] = k
    for off, op, a in insts:
        j = _JUMP_AT[op.code]       # jump targets as instruction indexes, as vm.flow reads
        if j is not None:
            a = a[:j] + (offsets[a[j]],) + a[j + 1:]
        decoded.append((op.code, a[0] if len(a) == 1 else a))
    dom = dominator_tree(decoded)
    idom = dom.idom
    declared = {}
    for k, (c, arg) in enumerate(decoded):
        if c == O.DECLARE_LOCAL and arg >= fixed:
            if arg in declared:
                raise InvalidProgram(f"in {_where(func, index)}, offset {insts[k][0]}: local "
                                     f"{arg} is declared twice (each `let` has its own slot)")
            declared[arg] = k
    if func.kind != "main" and len(declared) != func.nlocals - fixed:
        # So a function's locals are bounded by its code: each call allocates them all.
        raise InvalidProgram(f"in {_where(func, index)}: {func.nlocals - fixed} `let` slots "
                             f"(locals past the parameters and captures), but "
                             f"{len(declared)} DECLARE_LOCAL of them")
    for k, (c, arg) in enumerate(decoded):
        if c in _READS_LOCAL and c != O.DECLARE_LOCAL and arg >= fixed and idom[k] >= 0:
            d = declared.get(arg)
            if d is None or not dom.dominates(d, k):     # (False if d is unreachable)
                raise InvalidProgram(f"in {_where(func, index)}, offset {insts[k][0]}: local "
                                     f"{arg} is used where its declaration does not come "
                                     "first on every path")
    return decoded, declared


# ---- program shape -------------------------------------------------------------------

def _is_nat(x):
    return type(x) is int and x >= 0


def _where(func, index):
    try:
        text = func.describe()
    except Exception:  # noqa: BLE001 - a malformed function still gets a message
        return f"function {index}"
    return text if len(text) <= 100 else f"{text[:80]}... (function {index})"


_LOG10_2 = 0.30102999566398120


def _digits(x):
    """How many decimal digits the int x has, without str(x) (past 4300 digits CPython
    refuses it with a ValueError): (the exact count, True), or (an estimate, False) past a
    million bits, where even 10 ** n takes a while."""
    x = abs(x)
    bits = x.bit_length()
    low, high = int((bits - 1) * _LOG10_2) + 1, int(bits * _LOG10_2) + 1
    if low == high:
        return low, True
    if bits > 1 << 20:
        return high, False
    return (low if x < 10 ** low else high), True


def _show(x, depth=0):
    """x as a message shows it: its repr, but an int too long to print is "an integer of
    N digits", a long text is cut short, and a list or tuple shows only its first levels.
    Whatever a crafted or hand-made Program holds, this raises nothing."""
    t = type(x)
    if t is int and x.bit_length() > 200:
        n, exact = _digits(x)
        sign = "a negative integer" if x < 0 else "an integer"
        return f"{sign} of {'' if exact else 'about '}{n} digits"
    if t is str and len(x) > 80:
        return f"{x[:60]!r}... ({len(x)} characters)"
    if t is tuple or t is list:
        if depth >= 2 or len(x) > 10:
            return f"a {t.__name__} of {len(x)} items"
        inner = ", ".join(_show(v, depth + 1) for v in x)
        if t is list:
            return f"[{inner}]"
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 - an object a hand-made Program holds
        return f"a {t.__name__}"
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


def _check_cap(cap, where):
    if not is_cap(cap):
        raise InvalidProgram(f"{where}: bad require {_show(cap)} (expected stdout, llm, "
                             "llm(LABEL), net(HOST), net(HOST, LABEL) or tool(NAME))")


def _check_program(program):
    for field, kind in (("consts", list), ("builtins", list), ("globals", list),
                        ("global_lines", list), ("functions", list), ("tests", list),
                        ("requires", list)):
        if type(getattr(program, field, None)) is not kind:
            raise InvalidProgram(f"program {field} is not a list")
    if type(getattr(program, "source_name", None)) is not str:
        raise InvalidProgram("program source name is not a text")
    intent = getattr(program, "intent", None)
    if intent is not None and type(intent) is not str:
        raise InvalidProgram("program intent is not a text")
    for cap in program.requires:
        _check_cap(cap, "program")
    for i, c in enumerate(program.consts):
        if type(c) not in CONST_TYPES:
            raise InvalidProgram(f"constant {i} is a {type(c).__name__}, not a number, "
                                 f"text, bool or nothing")
    registry = load_all()
    for i, name in enumerate(program.builtins):
        if type(name) is not str or name not in registry:
            raise InvalidProgram(f"builtin {i} is {_show(name)}, not a known builtin")
    for i, name in enumerate(program.globals):
        if not is_name(name):
            raise InvalidProgram(f"global {i} has a name that is not a name: {_show(name)}")
    if len(program.global_lines) != len(program.globals):
        raise InvalidProgram(f"{len(program.globals)} globals but "
                             f"{len(program.global_lines)} lines of their `let`s")
    for i, line in enumerate(program.global_lines):
        if not _is_nat(line):
            raise InvalidProgram(f"global line {i} is {_show(line)}, not a non-negative int")

    funcs = program.functions
    if not funcs:
        raise InvalidProgram("program has no functions (functions[0] must be the top level)")
    tasks = set()
    for index, func in enumerate(funcs):
        _check_function(func, index)
        if func.kind == "task":
            if func.name in tasks:
                raise InvalidProgram(f"{_where(func, index)}: a second task named "
                                     f"{_show(func.name)}")
            tasks.add(func.name)
    main = funcs[0]
    if main.kind != "main" or main.params or main.ncaptures:
        raise InvalidProgram("functions[0] must be the top level (kind main, no parameters)")
    if main.nlocals != len(program.globals):
        raise InvalidProgram(f"the top level has {main.nlocals} locals, but its locals are "
                             f"the program's {len(program.globals)} globals")
    slots = sum((len(f.params) - f.nrequired + 1) * f.nlocals for f in funcs[1:])
    room = max(MAX_PAD_SLOTS, 4 * sum(len(f.code) for f in funcs))
    if slots > room:
        raise InvalidProgram(f"calls of its functions, one per argument count, would need "
                             f"{slots} local slots (at most {room} for a file this size)")

    for i, entry in enumerate(program.tests):
        if (type(entry) not in (tuple, list) or len(entry) != 2 or type(entry[0]) is not str
                or not _is_nat(entry[1])):
            raise InvalidProgram(f"test entry {i} is not (name, function index): {_show(entry)}")
        fi = entry[1]
        if fi >= len(funcs) or funcs[fi].kind != "test":
            raise InvalidProgram(f"test entry {i} ({_show(entry[0])}) refers to function "
                                 f"{_show(fi)}, which is not a test")


def _check_function(func, index):
    if type(func) is not Function:
        raise InvalidProgram(f"function {index} is not a function")
    if func.kind not in KINDS:
        raise InvalidProgram(f"function {index} has unknown kind {_show(func.kind)}")
    if type(func.name) is not str:
        raise InvalidProgram(f"function {index} has a name that is not a text")
    if func.kind != "test" and not (is_name(func.name) or func.kind != "task"
                                     and func.name in _FUNC_NAMES.values()):
        raise InvalidProgram(f"function {index} ({func.kind}) has the name {_show(func.name)}")
    if not (_is_nat(func.line) and _is_nat(func.col) and func.line <= MAX_LINE
            and func.col <= MAX_COL):
        raise InvalidProgram(f"function {index} has a bad position")
    where = _where(func, index)
    if func.kind == "main" and index != 0:
        raise InvalidProgram(f"function {index}: only functions[0] may be the top level")
    for field in ("params", "requires", "code", "positions", "local_names"):
        if type(getattr(func, field, None)) is not list:
            raise InvalidProgram(f"{where}: {field} is not a list")
    if len(func.params) > MAX_PARAMS:
        raise InvalidProgram(f"{where}: {len(func.params)} parameters (at most {MAX_PARAMS})")
    seen_default = False
    names = set()
    for p in func.params:
        if type(p) is not Param or not is_name(p.name):
            raise InvalidProgram(f"{where}: a parameter is malformed")
        if p.name in names:
            raise InvalidProgram(f"{where}: two parameters named {_show(p.name)}")
        names.add(p.name)
        if p.type is not None and (type(p.type) is not str or p.type not in PARAM_TYPES):
            raise InvalidProgram(f"{where}: parameter {p.name!r} has unknown type "
                                 f"{_show(p.type)}")
        if type(p.default) is not int or p.default not in DEFAULTS:
            raise InvalidProgram(f"{where}: parameter {p.name!r} has bad default kind "
                                 f"{_show(p.default)} (expected 0, 1 or 2)")
        if p.default != Param.NO_DEFAULT:
            seen_default = True
        elif seen_default:
            raise InvalidProgram(f"{where}: parameter {p.name!r} without a default follows "
                                 f"one with a default")
    if not _is_nat(func.ncaptures) or func.ncaptures > MAX_COUNT:
        raise InvalidProgram(f"{where}: bad capture count {_show(func.ncaptures)}")
    if func.ncaptures and func.kind != "lambda":
        raise InvalidProgram(f"{where}: only a lambda may have captures")
    if not _is_nat(func.nlocals) or func.nlocals > MAX_LOCALS:
        raise InvalidProgram(f"{where}: bad local count {_show(func.nlocals)} "
                             f"(at most {MAX_LOCALS})")
    if func.nlocals < len(func.params) + func.ncaptures:
        raise InvalidProgram(f"{where}: {func.nlocals} locals cannot hold "
                             f"{len(func.params)} parameters and {func.ncaptures} captures")
    if func.kind == "lambda" and func.nlocals != func.fixed:
        # A call appends the captures after the `let` slots: a lambda has none.
        raise InvalidProgram(f"{where}: {func.nlocals} locals; a lambda's locals are its "
                             f"{len(func.params)} parameters and {func.ncaptures} captures")
    if func.kind == "test" and func.params:
        raise InvalidProgram(f"{where}: a test takes no parameters")
    for cap in func.requires:
        _check_cap(cap, where)
    for name in func.local_names:
        if not is_name(name):
            raise InvalidProgram(f"{where}: a local name is not a name: {_show(name)}")
    last = 0
    for pos in func.positions:
        if (type(pos) not in (tuple, list) or len(pos) != 3
                or not all(_is_nat(x) for x in pos) or pos[1] > MAX_LINE or pos[2] > MAX_COL):
            raise InvalidProgram(f"{where}: bad position entry {_show(pos)} (expected (offset, "
                                 f"line, col), non-negative ints, line at most {MAX_LINE}, "
                                 f"column at most {MAX_COL})")
        if pos[0] < last or pos[0] > len(func.code):
            raise InvalidProgram(f"{where}: position entry {_show(list(pos))} is out of order "
                                 f"or past the end of the code")
        last = pos[0]


# ---- code ----------------------------------------------------------------------------

def _check_code(program, func, index, top, texts):
    """Decode and check every instruction, then walk the control flow; returns max depth.
    top: the globals tasks and tests may name (None while checking the top level); texts:
    the running count of text constants (verify)."""
    where = _where(func, index)
    code = func.code
    n = len(code)
    if n == 0:
        raise InvalidProgram(f"in {where}: the code is empty (it must end in RETURN)")
    nconsts, nglobals = len(program.consts), len(program.globals)
    nfuncs, nbuiltins = len(program.functions), len(program.builtins)
    funcs, consts = program.functions, program.consts
    registry = None
    ops = [None] * n            # offset -> (Op, operands) at instruction starts
    limit = {"const": nconsts, "local": func.nlocals, "global": nglobals, "func": nfuncs,
             "builtin": nbuiltins, "count": MAX_COUNT + 1, "jump": n, "rid": MAX_RID + 1}
    by_code = O.BY_CODE
    keys = 0                    # keys named by the function's BUILD_MAP_KEYS, all told

    pc = 0
    while pc < n:
        c = code[pc]
        if type(c) is not int:
            raise InvalidProgram(f"in {where}, offset {pc}: opcode {_show(c)} is not an int")
        op = by_code.get(c)
        if op is None:
            if c in O.INTERNAL_DOCS:
                name = next(k for k, v in O.INTERNAL.items() if v == c)
                raise InvalidProgram(f"in {where}, offset {pc}: internal opcode {c} ({name}) "
                                     f"may not appear in a file")
            raise InvalidProgram(f"in {where}, offset {pc}: unknown opcode {_show(c)}")
        kinds = op.operands
        end = pc + 1 + len(kinds)
        if end > n:
            raise InvalidProgram(f"in {where}, offset {pc}: instruction {op.name} is cut short "
                                 f"(needs {len(kinds)} operands, the code ends at {n})")
        a = tuple(code[pc + 1:end])
        for kind, x in zip(kinds, a):
            if type(x) is not int or not 0 <= x < limit[kind]:
                _bad_operand(where, pc, op, kind, x, limit[kind])
        code_ = op.code
        if code_ in _MIN_COUNT and a[-1] == 0:
            raise InvalidProgram(f"in {where}, offset {pc}: {op.name} needs "
                                 f"{_MIN_COUNT[code_]}")
        if code_ in _GLOBAL_OPS:
            _check_global(program, where, pc, op, a[0], top)
        check = _CHECKS.get(code_)
        if check is None:
            ops[pc] = (op, a)
            pc = end
            continue
        if check == "text_const":
            if type(consts[a[0]]) is not str:
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} needs a text "
                                     f"constant, constant {a[0]} is {_show(consts[a[0]])}")
        elif check == "map_keys":
            # Its keys are the n constants from k: all in the pool, all texts.
            if a[0] + a[1] > nconsts:
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} names constants "
                                     f"{a[0]} to {a[0] + a[1] - 1}, but there are {nconsts}")
            if texts[a[0] + a[1]] - texts[a[0]] != a[1]:
                c = next(c for c in range(a[0], a[0] + a[1]) if type(consts[c]) is not str)
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} needs text "
                                     f"keys, constant {c} is {_show(consts[c])}")
            # The loader makes each one's keys a tuple: a compiled function pushes a value
            # (two ints of code at least) for every key, so its keys never outnumber its
            # code, and neither may a file's (or a few bytes could fill gigabytes).
            keys += a[1]
            if keys > n:
                raise InvalidProgram(f"in {where}, offset {pc}: its map literals name "
                                     f"{keys} keys, more than the {n} ints of its code "
                                     f"could give values to")
        elif check == "task" or check == "task_call":
            callee = funcs[a[0]]
            if callee.kind != "task":
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} names function "
                                     f"{a[0]} ({_where(callee, a[0])}), which is not a task")
            if check == "task_call" and not callee.nrequired <= a[1] <= len(callee.params):
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} passes {a[1]} "
                                     f"arguments to {_where(callee, a[0])}, which takes "
                                     f"{callee.arity_text()}")
        elif check == "lambda":
            callee = funcs[a[0]]
            if callee.kind != "lambda":
                raise InvalidProgram(f"in {where}, offset {pc}: MAKE_LAMBDA names function "
                                     f"{a[0]} ({_where(callee, a[0])}), which is not a lambda")
            if callee.ncaptures != a[1]:
                raise InvalidProgram(f"in {where}, offset {pc}: MAKE_LAMBDA captures {a[1]} "
                                     f"values, the lambda at line {callee.line} has "
                                     f"{callee.ncaptures} captures")
        elif check == "param_default":
            # Whether any other slot is set is no parameter's default: in the top level it
            # would be whether a `let` has run, a branch on a branch the labels never see.
            if a[0] >= len(func.params) or func.params[a[0]].default == Param.NO_DEFAULT:
                raise InvalidProgram(f"in {where}, offset {pc}: JUMP_IF_SET tests local "
                                     f"{a[0]}, which is not a parameter with a default")
        elif check == "builtin_arity":
            if registry is None:
                registry = load_all()
            b = registry[program.builtins[a[0]]]
            if not b.min_args <= a[1] <= b.max_args:
                raise InvalidProgram(f"in {where}, offset {pc}: CALL_BUILTIN passes {a[1]} "
                                     f"arguments to {b.name}, which takes {b.arity_text()}")
        ops[pc] = (op, a)
        pc = end

    for pc, entry in enumerate(ops):
        if entry is not None:
            op, a = entry
            j = _JUMP_AT[op.code]
            if j is not None and ops[a[j]] is None:
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} jumps to offset "
                                     f"{a[j]}, which is inside an instruction")
    return _check_flow(where, func, ops)


def _check_global(program, where, pc, op, g, top):
    """A top-level variable named by a task, test or lambda (the top level reaches its
    own as its locals): only read or updated, never set, and declared outside every block
    of the top level (_top_level_globals)."""
    at = f"in {where}, offset {pc}: {op.name}"
    if top is None:
        raise InvalidProgram(f"{at} in the top level, whose variables are its locals")
    if op.code in _SETS_GLOBAL:
        raise InvalidProgram(f"{at} sets top-level variable {program.globals[g]!r}; only "
                             f"the top level sets its variables")
    if g not in top:
        raise InvalidProgram(f"{at} names top-level variable {program.globals[g]!r}, which "
                             f"is not declared at the top level outside every block (tasks "
                             f"and tests see only those)")


def _bad_operand(where, pc, op, kind, x, limit):
    """The precise reason for an operand that failed the fast range test."""
    at = f"in {where}, offset {pc}: {op.name}"
    if type(x) is not int or x < 0:
        raise InvalidProgram(f"{at} operand {_show(x)} is not a non-negative int")
    if kind == "count":
        raise InvalidProgram(f"{at} count {_show(x)} is too large (at most {MAX_COUNT})")
    if kind == "jump":
        raise InvalidProgram(f"{at} jump target {_show(x)} is past the end of the code ({limit})")
    if kind == "rid":
        raise InvalidProgram(f"{at} release id {x} is too large")
    what = {"const": "constant", "func": "function"}.get(kind, kind)
    raise InvalidProgram(f"{at} {what} index {_show(x)} is out of range (the program has {limit})")


def _check_flow(where, func, ops):
    """Worklist over the control flow. The state at each instruction, equal wherever paths
    join, is:

      depth   the operand stack depth;
      hand    the open try handlers: a node in a tree shared by all paths (node 0: none
              open), interned so equal stacks have equal ids;
      iters   the stack slots holding an ITER_START iterator, as a node in a second
              interned tree (node 0: none; a node is its topmost iterator's slot and the
              node below it), so a state costs one int however deep the stack: only
              FOR_ITER may use one and only POP or DROP_UNDER drop one, so no iterator
              reaches a value use;
      unset   a bit mask of the optional parameters that may still be unpassed: reading
              one before JUMP_IF_SET or a store has settled it would see no value.
    """
    code = func.code
    n = len(code)
    depth = [-1] * n
    hand = [0] * n
    iters = [0] * n
    unset = [0] * n
    parent, base = [0], [0]  # handler tree: parent node, stack depth at its TRY_BEGIN
    intern = {}
    below, slot_of = [0], [-1]  # iterator tree: the node below, the iterator's stack slot
    # and, to find the first node below a slot in O(log depth) steps (a DROP_UNDER under
    # thousands of iterators, on each of thousands of paths, would be quadratic), a jump
    # pointer further down (Myers' skew-binary jumps) and each node's height in the tree.
    skip, height = [0], [0]
    iter_intern = {}
    optional = {}           # local slot -> its bit in `unset`
    for slot, p in enumerate(func.params):
        if p.default != Param.NO_DEFAULT:
            optional[slot] = 1 << len(optional)
    work = [0]
    depth[0] = 0
    unset[0] = (1 << len(optional)) - 1
    max_depth = 0

    def reach(t, d, h, it, un, src):
        if t >= n:
            raise InvalidProgram(f"in {where}, offset {src}: {ops[src][0].name} falls off the "
                                 f"end of the code (the last instruction must be RETURN "
                                 f"or JUMP)")
        old = depth[t]
        if old < 0:
            depth[t] = d
            hand[t] = h
            iters[t] = it
            unset[t] = un
            work.append(t)
        elif old != d:
            raise InvalidProgram(f"in {where}, offset {t}: stack depth is {old} on one path "
                                 f"and {d} on another (from offset {src})")
        elif hand[t] != h:
            raise InvalidProgram(f"in {where}, offset {t}: the open try handlers differ "
                                 f"between paths (one from offset {src})")
        elif iters[t] != it:
            raise InvalidProgram(f"in {where}, offset {t}: the loop iterators on the stack "
                                 f"differ between paths (one from offset {src})")
        elif unset[t] != un:
            raise InvalidProgram(f"in {where}, offset {t}: which optional parameters are "
                                 f"set differs between paths (one from offset {src})")

    while work:
        pc = work.pop()
        d, h, it, un = depth[pc], hand[pc], iters[pc], unset[pc]
        op, a = ops[pc]
        c = op.code
        pops, pushes = O.stack_effect(op, a)
        if d < pops:
            raise InvalidProgram(f"in {where}, offset {pc}: {op.name} pops {pops} values, "
                                 f"the stack holds {d} (stack underflow)")
        if h and d - pops < base[h]:
            raise InvalidProgram(f"in {where}, offset {pc}: {op.name} pops below the stack "
                                 f"depth {base[h]} of its enclosing try")
        if it and c == O.DROP_UNDER:
            if slot_of[it] == d - 1:
                raise InvalidProgram(f"in {where}, offset {pc}: DROP_UNDER keeps a loop "
                                     f"iterator as a value")
        elif it:
            if c == O.FOR_ITER or c == O.POP:
                if c == O.FOR_ITER and slot_of[it] != d - 1:
                    raise InvalidProgram(f"in {where}, offset {pc}: FOR_ITER needs an "
                                         f"iterator from ITER_START on top of the stack")
            elif pops and slot_of[it] >= d - pops:
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} uses a loop "
                                     f"iterator as a value")
        elif c == O.FOR_ITER:
            raise InvalidProgram(f"in {where}, offset {pc}: FOR_ITER needs an iterator from "
                                 f"ITER_START on top of the stack")
        if un and c in _READS_LOCAL:
            bit = optional.get(a[0], 0)
            if c not in _WRITES_LOCAL and un & bit:
                raise InvalidProgram(f"in {where}, offset {pc}: {op.name} reads optional "
                                     f"parameter {func.params[a[0]].name!r} before its "
                                     f"default is set")
            un &= ~bit
        nd = d - pops + pushes
        if nd > max_depth:
            max_depth = nd
            if nd > MAX_STACK:
                raise InvalidProgram(f"in {where}, offset {pc}: the stack grows past "
                                     f"{MAX_STACK} values")
        nxt = pc + 1 + len(a)
        flow = op.flow
        j = _JUMP_AT[c]
        if j is not None and flow != "jump" and a[j] <= pc:
            raise InvalidProgram(f"in {where}, offset {pc}: {op.name} jumps backward to "
                                 f"{a[j]} (only JUMP may: the step limit is checked there)")
        if flow == "next":
            if c == O.TRY_END:
                if h == 0:
                    raise InvalidProgram(f"in {where}, offset {pc}: TRY_END without an open "
                                         f"TRY_BEGIN on some path")
                reach(nxt, nd, parent[h], it, un, pc)
            elif c == O.ITER_START:
                key = (it, nd - 1)
                node = iter_intern.get(key)
                if node is None:
                    node = iter_intern[key] = len(below)
                    below.append(it)
                    slot_of.append(nd - 1)
                    j = skip[it]
                    jj = skip[j]
                    skip.append(jj if height[it] - height[j] == height[j] - height[jj]
                                else it)
                    height.append(height[it] + 1)
                reach(nxt, nd, h, node, un, pc)
            elif c == O.POP and it:
                reach(nxt, nd, h, below[it] if slot_of[it] == nd else it, un, pc)
            elif c == O.DROP_UNDER and it:
                top = nd - 1
                while slot_of[it] >= top:       # the dropped slots: all under the kept top
                    j = skip[it]                # (slots only fall going down the tree)
                    it = j if slot_of[j] >= top else below[it]
                reach(nxt, nd, h, it, un, pc)
            else:
                reach(nxt, nd, h, it, un, pc)
        elif flow == "return":
            # The frames of a run share one value stack; a function leaves nothing of its
            # own on it, so a return hands back just its value (no stack base to restore).
            if d != 1:
                raise InvalidProgram(f"in {where}, offset {pc}: RETURN with {d - 1} other "
                                     f"value(s) left on the stack")
            if h:
                raise InvalidProgram(f"in {where}, offset {pc}: RETURN inside an open try "
                                     f"(close it with TRY_END first)")
        elif flow == "jump":
            reach(a[0], nd, h, it, un, pc)
        elif flow == "branch":
            reach(nxt, nd, h, it, un, pc)
            if c == O.JUMP_IF_SET:
                reach(a[1], nd, h, it, un & ~optional.get(a[0], 0), pc)
            else:
                reach(a[j], nd, h, it, un, pc)
        elif flow == "keep_or_pop":
            reach(nxt, nd, h, it, un, pc)
            reach(a[0], d, h, it, un, pc)
        elif flow == "for_iter":
            if nd + 2 > max_depth:
                max_depth = nd + 2
            reach(nxt, d + 1, h, it, un, pc)
            reach(a[0], d - 1, h, below[it], un, pc)
        elif flow == "try":
            key = (h, d)
            child = intern.get(key)
            if child is None:
                child = intern[key] = len(parent)
                parent.append(h)
                base.append(d)
            if d + 1 > max_depth:
                max_depth = d + 1
            reach(nxt, d, child, it, un, pc)
            reach(a[0], d + 1, h, it, un, pc)
        else:  # pragma: no cover - the opcode table names only the flows above
            raise InvalidProgram(f"in {where}, offset {pc}: unknown flow kind {flow}")
    if max_depth > MAX_STACK:
        raise InvalidProgram(f"in {where}: the stack grows past {MAX_STACK} values")
    return max_depth
