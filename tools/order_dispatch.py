"""Reorder the `if op == N:  # NAME` chain of a dispatch loop by a priority list.

The chain is tested top to bottom, so the order is a measured performance decision:
run this after profiling, never by hand. Usage: python tools/order_dispatch.py vm/loop.py
"""
import re
import sys

PRIORITY = """CALL_TASK LOAD_LOCAL RETURN_LOCAL LT_LC_JF SUB_LC RETURN ADD CONST LOAD_LOCAL2
CALL_VM_BUILTIN CALL_BUILTIN JUMP_BACK ADD_LC_ST LT_LL_JF JUMP_IF_FALSE STORE_LOCAL
DECLARE_LOCAL ADD_LL_ST JUMP SUB_LC_ST EQ_C_JF MOD_LC ADD_LL ADD_LC POP FOR_ITER_DECL
CMP_LC_JF CMP_LL_JF APPEND_LOCAL SET_ITEM_LOCAL INDEX FIELD LOAD_GLOBAL PC_RELEASE SUB LT EQ
MUL""".split()

HEAD = re.compile(r"^(\s*)(?:el)?if op == \d+(?: or op == \d+)*:  # (.+)$")


def main(path):
    lines = open(path).read().split("\n")
    start = next(i for i, l in enumerate(lines) if HEAD.match(l) and "if op ==" in l)
    indent = HEAD.match(lines[start]).group(1)
    blocks, cur, end = [], None, None
    for i in range(start, len(lines)):
        line = lines[i]
        m = HEAD.match(line)
        if m and m.group(1) == indent:
            cur = [line]
            blocks.append(cur)
        elif line.startswith(indent + "else:"):
            end = i
            break
        else:
            cur.append(line)
    names = [HEAD.match(b[0]).group(2).split(", ")[0] for b in blocks]
    rank = {n: i for i, n in enumerate(PRIORITY)}
    order = sorted(range(len(blocks)), key=lambda k: (rank.get(names[k], len(rank)), k))
    out = []
    for pos, k in enumerate(order):
        b = list(blocks[k])
        b[0] = re.sub(r"^(\s*)(?:el)?if ", r"\1" + ("if " if pos == 0 else "elif "), b[0])
        out += b
    lines[start:end] = out
    open(path, "w").write("\n".join(lines))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
