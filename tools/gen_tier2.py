"""Generate vm/tier2_defs.py: the instruction bodies tier 2 (vm/tier2.py) translates from.

The same definitions the loops are generated from (vm/instructions.py), as tools/
gen_dispatch.py reads them (body_of: fragments expanded, LABELS decided), written as data
the VM can load without tools/: each body as Python source (valid Python, parsed again
with `ast` by the translator, which transforms the tree and never edits the text), with
its stack picture, its decoded fields and its flow kind; and each superinstruction's
parts. Two sets, as there are two loops: labels off (INSTRUCTIONS, FUSED, CODES) and
labels on (L_INSTRUCTIONS, L_FUSED, L_CODES: the LABELS parts kept, and the instructions
only the labels loop has). Run by tools/gen_dispatch.py (and its --check).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_dispatch as G  # noqa: E402

OUTPUT = "vm/tier2_defs.py"


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
