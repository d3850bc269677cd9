"""The disassembler: a program's bytecode as text, one instruction per line.

`instructions(func, program)` yields the data (like CPython's dis.get_instructions());
`disassemble(program, source_lines)` formats it (like clox's debug.c and CPython's dis):

    task get_weather(city)
        -- 7: give "weather in " + city + ": sunny"
       7          0  CONST           0           "weather in "
       |          2  LOAD_LOCAL      0           city
       |          4  ADD
       ...
       9    >>   16  CONST           2           nothing

Columns: source line (`|` when unchanged), `>>` on jump targets, offset, opcode,
operands, and what the operands refer to.
"""

from collections import namedtuple

from synsema.vm import opcodes as O
from synsema.vm.display import _show
from synsema.vm.program import Param, cap_text

Instruction = namedtuple("Instruction", "offset line col opname operands meaning is_target")
Instruction.__doc__ = """One decoded instruction: `meaning` is a text saying what its
operands refer to ('' when nothing to say); `is_target` is True when some jump lands here."""


_KEYS_SHOWN = 50


def _meaning(kind, x, func, program):
    """What operand x of this kind refers to, or None when there is nothing to add."""
    if kind == "jump":
        return f"to {x}"
    if kind == "local":
        names = func.local_names
        return names[x] if 0 <= x < len(names) else f"slot {x}"
    if program is None:
        return None
    if kind == "const":
        return _show(program.consts[x]) if 0 <= x < len(program.consts) else "?"
    if kind == "global":
        return program.globals[x] if 0 <= x < len(program.globals) else "?"
    if kind == "func":
        fs = program.functions
        return fs[x].describe() if 0 <= x < len(fs) else "?"
    if kind == "builtin":
        return program.builtins[x] if 0 <= x < len(program.builtins) else "?"
    return None     # count, rid: the number says it all


def instructions(func, program=None):
    """Yield an Instruction for every instruction of func, in order.

    Without the program, only locals and jumps get a meaning. Stops quietly at an
    unknown or truncated opcode (a verified program has none)."""
    try:
        raw = list(O.iter_instructions(func.code))
    except ValueError:
        raw = []
        i, code = 0, func.code
        while i < len(code) and code[i] in O.BY_CODE:
            op = O.BY_CODE[code[i]]
            if i + 1 + len(op.operands) > len(code):
                break
            raw.append((i, op, tuple(code[i + 1:i + 1 + len(op.operands)])))
            i += 1 + len(op.operands)
    targets = set()
    for _, op, a in raw:
        for kind, x in zip(op.operands, a):
            if kind == "jump":
                targets.add(x)
    changes = sorted(tuple(p) for p in func.positions)
    ci = 0
    line, col = func.line, func.col
    for off, op, a in raw:
        while ci < len(changes) and changes[ci][0] <= off:
            _, line, col = changes[ci]
            ci += 1
        parts = [_meaning(kind, x, func, program) for kind, x in zip(op.operands, a)]
        if op.code == O.BUILD_MAP_KEYS and program is not None:
            # Its keys are the n constants from k: all of them, not only the first (at most
            # _KEYS_SHOWN: an unverified program's count can be anything).
            parts = [_meaning("const", k, func, program)
                     for k in range(a[0], a[0] + min(a[1], _KEYS_SHOWN))]
            if a[1] > _KEYS_SHOWN:
                parts.append(f"... {a[1] - _KEYS_SHOWN} more")
        meaning = ", ".join(p for p in parts if p is not None)
        yield Instruction(off, line, col, op.name, a, meaning, off in targets)


def _param_text(p):
    text = p.spec()
    if p.default == Param.DEFAULT_NOTHING:
        return text + " = nothing"
    if p.default == Param.DEFAULT_EXPR:
        return text + " = ..."
    return text


def header(func):
    """`task name(params)`, `lambda at line N`, `test "name"` or `top level`."""
    if func.kind == "task":
        head = f"task {func.name}({', '.join(_param_text(p) for p in func.params)})"
    elif func.kind == "lambda":
        params = ", ".join(_param_text(p) for p in func.params)
        head = f"lambda ({params}) at line {func.line}"
        if func.ncaptures:
            head += f", capturing {func.ncaptures}"
    elif func.kind == "test":
        head = f"test \"{func.name}\""
    else:
        head = "top level"
    if func.requires:
        head += "  requires " + ", ".join(cap_text(c) for c in func.requires)
    return head


_SHOWN = 120


def _clipped(line):
    """A source line as the listing shows it: at most _SHOWN characters (a long line is
    shown again for every function on it)."""
    line = line.strip()
    return line if len(line) <= _SHOWN else line[:_SHOWN - 3] + "..."


def disassemble(program, source_lines=None):
    """The whole program as text: a header per function, then its instructions."""
    out = [f"program {program.source_name}"]
    if program.intent is not None:
        out.append(f"  intent: {_show(program.intent)}")
    if program.requires:
        out.append("  requires " + ", ".join(cap_text(c) for c in program.requires))
    for index, func in enumerate(program.functions):
        out.append("")
        facts = f"function {index}, {func.nlocals} locals"
        if func.max_stack:      # known once verified
            facts += f", max stack {func.max_stack}"
        out.append(f"{header(func)}  [{facts}]")
        prev_line = None
        for ins in instructions(func, program):
            if ins.line != prev_line:
                if source_lines and 1 <= ins.line <= len(source_lines):
                    out.append(f"    -- {ins.line}: {_clipped(source_lines[ins.line - 1])}")
                shown = str(ins.line)
                prev_line = ins.line
            else:
                shown = "|"
            mark = ">>" if ins.is_target else ""
            operands = " ".join(str(x) for x in ins.operands)
            text = f"{shown:>5} {mark:>4} {ins.offset:>5}  {ins.opname:<15} {operands:<11} {ins.meaning}"
            out.append(text.rstrip())
    return "\n".join(out) + "\n"
