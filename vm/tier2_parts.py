"""GENERATED from vm/instructions.py by tools/gen_tier2.py: do not edit.

What the tier 2 gate (vm/tier2_gate.py) reads of a program's decoded opcodes,
without loading the instruction bodies (vm/tier2_defs.py): labels mode ->
(the opcodes that loop, the opcodes that call a function).
"""

TABLES = {
    False: (frozenset([100, 132, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168]),
            frozenset([36, 37, 117, 136])),
    True: (frozenset([100, 132, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169]),
           frozenset([36, 37, 117, 136])),
}
