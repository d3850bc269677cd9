"""Generate vm/tier2_defs.py: the instruction bodies tier 2 (vm/tier2.py) translates from,
and the little of it the tier 2 gate (vm.machine.worth_translating) reads (vm/optable.py's TIER2_GATE).

The same definitions the loops are generated from (vm/instructions.py), as tools/
gen_dispatch.py reads them (body_of: fragments expanded, LABELS decided), written as data
the VM can load without tools/: each body as Python source (valid Python, parsed again
with `ast` by the translator, which transforms the tree and never edits the text), with
its stack picture, its decoded fields and its flow kind; and each superinstruction's
parts. Two sets, as there are two loops: labels off (INSTRUCTIONS, FUSED, CODES) and
labels on (L_INSTRUCTIONS, L_FUSED, L_CODES: the LABELS parts kept, and the instructions
only the labels loop has). Run by tools/gen_dispatch.py (and its --check).

The gate decides, at a run's start, whether tier 2 is worth it from which decoded opcodes
the program holds; it reads two sets of opcodes, written into vm/optable.py (which every
run loads anyway) by tools/gen_dispatch.py with gate_table below, so that `syn exec` of a
small program does not load the bodies (vm/tier2_defs.py, 30 kB of bytecode) to decide
that it needs none of them (issue 31).
"""

import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_dispatch as G  # noqa: E402

OUTPUT = "vm/tier2_defs.py"

# The instructions that call a function (a task calling a task is worth tier 2).
CALLS = {"CALL", "CALL1", "CALL_TASK", "CALL_TASK1"}


def _tables(ns, labels, prefix):
    what = "labels on" if labels else "labels off"
    out = [f"# name: (body, inputs, outputs, raw, decoded fields (+: labels only), flow); {what}",
           f"{prefix}INSTRUCTIONS = {{"]
    for ins in ns["INSTRUCTIONS"]:
        if ins.get("decoded_as") or (ins.get("labels_only") and not labels) or \
                ins["body"] is None:
            continue
        body = "\n".join(G.unparse(G.body_of(ins, ns["FRAGMENTS"], labels)))
        ins_, outs = G.picture(ins)
        out.append(f"    {ins['name']!r}: ({body!r}, {tuple(ins_)!r}, {tuple(outs)!r}, "
                   f"{bool(ins.get('raw'))!r}, {tuple(G.field_spec(ins))!r}, "
                   f"{ins['flow']!r}),")
    out.append("}")
    # Labels on, the superinstructions and codes are labels off's and the labels-only ones.
    out += ["", f"# code: (name, parts, threaded, tail) of every superinstruction ({what})",
            f"{prefix}FUSED = {{" + ("**FUSED," if labels else "")]
    for f in ns["FUSED"]:
        if bool(f.get("labels_only")) != labels:
            continue
        out.append(f"    {f['code']}: ({f['name']!r}, {tuple(f['parts'])!r}, "
                   f"{bool(f.get('threaded'))!r}, {bool(f.get('tail'))!r}),")
    out.append("}")
    out += ["", f"# code: name of every instruction decoded on its own ({what})",
            f"{prefix}CODES = {{" + ("**CODES," if labels else "")]
    for ins in ns["INSTRUCTIONS"]:
        if ins["code"] is not None and not ins.get("decoded_as") and \
                bool(ins.get("labels_only")) == labels:
            out.append(f"    {ins['code']}: {ins['name']!r},")
    out.append("}")
    return out


def _decoded(ns, labels):
    """{code: (parts, threaded)} of every opcode the labels-off (or -on) loop decodes."""
    out = {ins["code"]: ((ins["name"],), False) for ins in ns["INSTRUCTIONS"]
           if ins["code"] is not None and not ins.get("decoded_as") and
           (labels or not ins.get("labels_only"))}
    out.update({f["code"]: (tuple(f["parts"]), bool(f.get("threaded"))) for f in ns["FUSED"]
                if labels or not f.get("labels_only")})
    return out


def gate_table(ns):
    """vm/optable.py's TIER2_GATE (its lines): per labels mode, the opcodes that loop (a
    threaded superinstruction, or one holding JUMP_BACK) and those that call a function."""
    out = ["# The tier 2 gate (vm.machine.worth_translating; by tools/gen_tier2.py): labels mode -> (the",
           "# decoded opcodes that loop, those that call a function)", "TIER2_GATE = {"]
    for labels in (False, True):
        decoded = _decoded(ns, labels)
        loops = sorted(c for c, (p, threaded) in decoded.items()
                       if threaded or "JUMP_BACK" in p)
        calls = sorted(c for c, (p, _) in decoded.items() if CALLS & set(p))
        for head, codes, tail in ((f"    {labels}: (frozenset((", loops, ")),"),
                                  ("        frozenset((", calls, "))),")):
            out += textwrap.wrap(head + ", ".join(map(str, codes)) + tail, 90,
                                 subsequent_indent=" " * 12, break_on_hyphens=False)
    out.append("}")
    return out


def defs(ns):
    out = [f'"""GENERATED from {G.SOURCE} by tools/gen_tier2.py: do not edit.', "",
           "The instruction bodies that vm/tier2.py translates from: labels off, then labels on.",
           '"""', ""]
    out += _tables(ns, False, "") + [""]
    out += _tables(ns, True, "L_") + [""]
    out += ["# labels mode -> (INSTRUCTIONS, FUSED, CODES)",
            "TABLES = {False: (INSTRUCTIONS, FUSED, CODES), True: (L_INSTRUCTIONS, L_FUSED, L_CODES)}"]
    return OUTPUT, "\n".join(out) + "\n"


if __name__ == "__main__":
    path, text = defs(G.load())
    with open(os.path.join(G.ROOT, path), "w") as fh:
        fh.write(text)
    print(f"wrote {path}")
