"""The opcode table (vm/opcodes.py) is consistent, and every opcode has a handler in the loop.

The dispatch loops (generated from vm/instructions.py) are trees of `if op < K:` tests
with the numbers written out for speed, so these tests check that each `# NAME (code)`
leaf is reached by exactly its opcode.
"""
import os
import re

import pytest

from synsema.vm import opcodes as O

VM_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vm")
OPERAND_KINDS = {"const", "local", "global", "func", "builtin", "count", "jump", "rid"}
FLOWS = {"next", "jump", "branch", "return", "try", "for_iter", "keep_or_pop"}


def test_codes_and_names_unique():
    codes = [op.code for op in O.OPS]
    names = [op.name for op in O.OPS]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    assert set(O.BY_CODE) == set(codes) and set(O.BY_NAME) == set(names)
    assert O.MAX_CODE == max(codes)


def test_codes_fit_below_the_internal_range():
    for op in O.OPS:
        assert type(op.code) is int and 0 < op.code < O.FIRST_INTERNAL, op.name


def test_internal_opcodes_distinct_from_the_table():
    assert O.INTERNAL
    for name, code in O.INTERNAL.items():
        assert code >= O.FIRST_INTERNAL, name
        assert code not in O.BY_CODE and name not in O.BY_NAME
        assert code in O.INTERNAL_DOCS and O.INTERNAL_DOCS[code]
    assert len(set(O.INTERNAL.values())) == len(O.INTERNAL)


def test_module_constants_match_the_table():
    for op in O.OPS:
        assert getattr(O, op.name) == op.code
    for name, code in O.INTERNAL.items():
        assert getattr(O, name) == code


@pytest.mark.parametrize("op", O.OPS, ids=lambda op: op.name)
def test_row_is_well_formed(op):
    assert re.fullmatch(r"[A-Z][A-Z_]*", op.name)
    assert type(op.operands) is tuple
    assert set(op.operands) <= OPERAND_KINDS, op.operands
    assert op.operands.count("jump") <= 1
    assert op.flow in FLOWS
    assert op.doc.strip()
    # Control flow other than plain `next` needs a target, except RETURN.
    if op.flow in ("jump", "branch", "try", "for_iter", "keep_or_pop"):
        assert "jump" in op.operands
    elif op.flow == "return":
        assert "jump" not in op.operands
    else:
        assert "jump" not in op.operands
    for sample in (0, 1, 7):
        pops, pushes = O.stack_effect(op, (sample,) * len(op.operands))
        assert type(pops) is int and pops >= 0
        assert type(pushes) is int and pushes >= 0
    if op.flow in ("keep_or_pop", "for_iter", "return"):
        assert O.stack_effect(op, (0,) * len(op.operands))[0] == 1


def test_stack_effects_of_counted_ops():
    assert O.stack_effect(O.BY_NAME["BUILD_MAP"], (3,)) == (6, 1)
    assert O.stack_effect(O.BY_NAME["BUILD_LIST"], (0,)) == (0, 1)
    assert O.stack_effect(O.BY_NAME["CALL"], (2,)) == (3, 1)
    assert O.stack_effect(O.BY_NAME["CALL_TASK"], (5, 2)) == (2, 1)
    assert O.stack_effect(O.BY_NAME["MAKE_LAMBDA"], (5, 3)) == (3, 1)
    assert O.stack_effect(O.BY_NAME["SET_PATH"], (2,)) == (4, 1)


def test_iter_instructions():
    code = [O.CONST, 0, O.JUMP_IF_FALSE, 7, 0, O.POP, O.CONST, 0, O.RETURN]
    got = [(off, op.name, a) for off, op, a in O.iter_instructions(code)]
    assert got == [(0, "CONST", (0,)), (2, "JUMP_IF_FALSE", (7, 0)), (5, "POP", ()),
                   (6, "CONST", (0,)), (8, "RETURN", ())]
    with pytest.raises(ValueError, match="unknown opcode"):
        list(O.iter_instructions([0]))
    with pytest.raises(ValueError, match="cut short"):
        list(O.iter_instructions([O.CONST]))


# ---- every opcode has a handler in the dispatch loops ------------------------------------

def _leaves(path):
    """{code: (name, lo, hi)} from the generated tree of `if op < K:` (or `below_K[op]`)
    / `else:` tests and its `# NAME (code)` leaf comments: [lo, hi) is the range of op
    values reaching it."""
    found, tests = {}, []       # tests: [indent, lo, hi] of the enclosing branches
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            ind = len(line) - len(line.lstrip())
            s = line.strip()
            if s == "else:":
                while tests and tests[-1][0] > ind:
                    tests.pop()
            if s == "else:" and tests and tests[-1][0] == ind:
                top = tests[-1]
                top[1], top[2] = top[2], top[3]     # the else side: [K, hi)
                continue
            while tests and tests[-1][0] >= ind and s:
                tests.pop()
            lo, hi = (tests[-1][1], tests[-1][2]) if tests else (0, 1 << 30)
            # A long test reads a table (below_K[op] is op < K; tests/test_generated.py
            # checks the tables).
            m = re.match(r"^if op < (\d+):$", s) or re.match(r"^if below_(\d+)\[op\]:", s)
            if m:
                tests.append([ind, lo, int(m.group(1)), hi])
                continue
            m = re.match(r"^# ([A-Z_0-9]+) \((\d+)\)", s)
            if m and tests:
                code = int(m.group(2))
                assert code not in found, f"{path}: opcode {code} handled twice"
                found[code] = (m.group(1), lo, hi)
    return found


def _check_loop(name, missing_ok):
    found = _leaves(os.path.join(VM_DIR, name))
    assert found, f"no `# NAME (code)` leaves in {name}"
    expected = {op.name: op.code for op in O.OPS}
    expected.update(O.INTERNAL)
    codes = set(found)
    for code, (opname, lo, hi) in found.items():
        assert expected.get(opname) == code, f"{name}: {opname} at {code}, the table says " \
            f"{expected.get(opname)}"
        assert lo <= code < hi and not {c for c in codes if lo <= c < hi} - {code}, \
            f"{name}: the tests leading to {opname} do not select op == {code} alone"
    missing = set(expected) - {n for n, _, _ in found.values()} - set(missing_ok)
    assert not missing, f"{name}: no handler for {sorted(missing)}"


def test_plain_loop_handles_every_opcode():
    # PC_RELEASE is dropped by the decoder when labels are off (and so the labels-only
    # superinstructions that hold one are never made); LOAD_TASK becomes CONST.
    _check_loop("loop_fast.py", missing_ok={"PC_RELEASE", "JUMP_RELEASE", "RELEASE_BACK",
                                            "ADD_LC_ST_REL", "STORE_LOCAL_REL", "LOAD_TASK"})


def test_labels_loop_handles_every_opcode():
    _check_loop("loop_labels_fast.py", missing_ok={"LOAD_TASK"})
