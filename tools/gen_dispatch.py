"""Generate the fast dispatch loops from the readable ones.

vm/loop.py and vm/loop_labels.py are written as one flat `if op == N:  # NAME` chain:
easy to read and review, and the reference a test compares the fast loops against. A
flat chain costs one comparison per handler tested, so a late handler pays twenty or
more. This script rewrites the chain as a tree of `if op < K:` tests, balanced by how
often each instruction runs (WEIGHT below, from profiles of the bench/ programs), so
every instruction is reached in a handful of comparisons and the hottest in two or
three. Output: vm/loop_fast.py and vm/loop_labels_fast.py (committed; a test checks
they are current). Run after changing a loop: python tools/gen_dispatch.py
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAIRS = [("vm/loop.py", "vm/loop_fast.py"), ("vm/loop_labels.py", "vm/loop_labels_fast.py")]

# Relative dynamic frequency (profiles of fib, loops, text/list building, agent loops).
WEIGHT = {
    "CALL_TASK": 60, "LOAD_LOCAL": 80, "RETURN_LOCAL": 40, "LT_LC_JF": 40, "SUB_LC": 40,
    "RETURN": 40, "ADD": 40, "CONST": 60, "LOAD_LOCAL2": 30, "CALL_VM_BUILTIN": 50,
    "CALL_BUILTIN": 40, "JUMP_BACK": 40, "ADD_LC_ST": 30, "LT_LL_JF": 30, "JUMP_IF_FALSE": 40,
    "STORE_LOCAL": 30, "DECLARE_LOCAL": 30, "ADD_LL_ST": 20, "JUMP": 25, "SUB_LC_ST": 10,
    "EQ_C_JF": 15, "MOD_LC": 10, "ADD_LL": 15, "ADD_LC": 15, "POP": 25, "FOR_ITER_DECL": 25,
    "CMP_LC_JF": 15, "CMP_LL_JF": 10, "APPEND_LOCAL": 15, "SET_ITEM_LOCAL": 10, "INDEX": 15,
    "FIELD": 10, "LOAD_GLOBAL": 20, "PC_RELEASE": 15, "BUILD_MAP": 8, "BUILD_LIST": 8,
    "CALL1_SUB_LC": 40, "ADD_RETURN": 30, "MUL_LC": 10, "SUB_LL_ST": 10, "ADD_ST": 20,
    "SUB_ST": 10, "MOD_LC_EQ_C_JF": 15, "LT_LC_RET_LOCAL": 30,
}
DEFAULT_WEIGHT = 2
# The labels loop also runs PC_RELEASE (one at the end of every labelled-capable `when`,
# loop or `try`; the plain loop never sees it: the decoder drops it).
LABELS_WEIGHT = dict(WEIGHT, PC_RELEASE=45)
WEIGHTS = {"vm/loop.py": WEIGHT, "vm/loop_labels.py": LABELS_WEIGHT}

HEAD = re.compile(r"^(\s*)(?:el)?if (op == \d+(?: or op == \d+)*):  # (.+)$")


def parse(lines):
    """(prefix lines, [(codes, names, body lines)], suffix lines, indent)."""
    start = next(i for i, l in enumerate(lines) if HEAD.match(l))
    indent = HEAD.match(lines[start]).group(1)
    blocks, end = [], None
    for i in range(start, len(lines)):
        line = lines[i]
        m = HEAD.match(line)
        if m and m.group(1) == indent:
            codes = [int(x) for x in re.findall(r"\d+", m.group(2))]
            blocks.append((codes, m.group(3), []))
        elif line.startswith(indent + "else:"):
            end = i
            break
        else:
            blocks[-1][2].append(line)
    # Skip the final `else:` and its body (the unknown-opcode error): the verifier and the
    # decoder guarantee only known opcodes reach the loop.
    j = end + 1
    while j < len(lines) and (lines[j].startswith(indent + " ") or not lines[j].strip()):
        j += 1
    return lines[:start], blocks, lines[j:], indent


def leaves(blocks):
    out = []
    for codes, names, body in blocks:
        parts = [n.strip() for n in names.split(",")]
        for k, code in enumerate(codes):
            name = parts[k] if k < len(parts) else parts[0]
            out.append((code, name, body))
    out.sort()
    return out


def tree(items, indent, step, out, weight=WEIGHT):
    if len(items) == 1:
        code, name, body = items[0]
        out.append(f"{indent}# {name} ({code})")
        base = len(re.match(r"\s*", next(l for l in body if l.strip())).group(0))
        for line in body:
            out.append(indent + line[base:] if line.strip() else "")
        return
    weights = [weight.get(name, DEFAULT_WEIGHT) for _, name, _ in items]
    total = sum(weights)
    best, best_k, acc = None, 1, 0
    for k in range(1, len(items)):
        acc += weights[k - 1]
        d = abs(total - 2 * acc)
        if best is None or d < best:
            best, best_k = d, k
    out.append(f"{indent}if op < {items[best_k][0]}:")
    tree(items[:best_k], indent + step, step, out, weight)
    out.append(f"{indent}else:")
    tree(items[best_k:], indent + step, step, out, weight)


def generate(src_path):
    with open(os.path.join(ROOT, src_path)) as fh:
        text = fh.read()
    lines = text.split("\n")
    prefix, blocks, suffix, indent = parse(lines)
    body = []
    tree(leaves(blocks), indent, "    ", body, WEIGHTS[src_path])
    module = os.path.splitext(os.path.basename(src_path))[0]
    header = [f'"""GENERATED from vm/{module}.py by tools/gen_dispatch.py: do not edit.', "",
              "The same loop with its `if op == N` chain rewritten as a tree of range tests",
              'balanced by instruction frequency (see tools/gen_dispatch.py)."""', ""]
    # Drop the source module's docstring; keep everything else as it is.
    doc_end = text.index('"""', 3) + 3
    prefix_text = "\n".join(prefix)[doc_end:].lstrip("\n")
    return "\n".join(header) + prefix_text + "\n" + "\n".join(body) + "\n" + "\n".join(suffix)


def main(check=False):
    stale = []
    for src, dst in PAIRS:
        if not os.path.exists(os.path.join(ROOT, src)):
            continue
        new = generate(src)
        path = os.path.join(ROOT, dst)
        old = open(path).read() if os.path.exists(path) else None
        if old != new:
            stale.append(dst)
            if not check:
                with open(path, "w") as fh:
                    fh.write(new)
    return stale


if __name__ == "__main__":
    if "--check" in sys.argv:
        s = main(check=True)
        print("stale: " + ", ".join(s) if s else "up to date")
        sys.exit(1 if s else 0)
    for f in main():
        print(f"wrote {f}")
