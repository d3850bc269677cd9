"""Print the opcode table of synsema.vm.opcodes as markdown (pasted into docs/bytecode.md).

    .venv/bin/python docs/gen_opcodes.py

Generated from the one table the compiler, VM, verifier and disassembler use, so the
document cannot drift from the code: re-run it after changing vm/opcodes.py.
"""
import inspect

from synsema.vm import opcodes as O


def effect(n, operands):
    """A stack count as text: an int, or the lambda's expression over operand names."""
    if not callable(n):
        return str(n)
    src = inspect.getsource(n).strip()
    expr = src[src.index("lambda a:") + len("lambda a:"):].split(",")[0].strip()
    for i, kind in enumerate(operands):
        expr = expr.replace(f"a[{i}]", kind)
    return expr


def cell(text):
    return text.replace("|", "\\|")


def main():
    print("| code | name | operands | pops | pushes | flow | what it does |")
    print("|---:|---|---|---|---|---|---|")
    for op in O.OPS:
        print(f"| {op.code} | `{op.name}` | {', '.join(op.operands) or '—'} | "
              f"{effect(op.pops, op.operands)} | {effect(op.pushes, op.operands)} | "
              f"{op.flow} | {cell(op.doc)} |")
    print()
    print(f"Internal opcodes (code ≥ {O.FIRST_INTERNAL}; made by the loader, never in a file):")
    print()
    print("| code | name | what it does |")
    print("|---:|---|---|")
    for name, code in O.INTERNAL.items():
        print(f"| {code} | `{name}` | {cell(O.INTERNAL_DOCS[code])} |")


if __name__ == "__main__":
    main()
