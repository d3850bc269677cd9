"""The opcode table (vm/opcodes.py) is consistent, and every opcode has a handler in the loop.

The dispatch loops are `if op == N:  # NAME` chains; the numbers are written out for
speed, so these tests check each one against the table by its comment.
"""
import os
import re

import pytest

from synsema.vm import opcodes as O

VM_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vm")
OPERAND_KINDS = {"const", "local", "global", "func", "builtin", "count", "jump", "rid"}
FLOWS = {"next", "jump", "branch", "return", "try", "for_iter", "keep_or_pop"}

# `if op == 3:  # LOAD_LOCAL` / `elif op == 4 or op == 5:  # STORE_LOCAL, DECLARE_LOCAL`
_TEST = re.compile(r"^\s*(?:if|elif)\s+(op\s*==\s*\d+(?:\s+or\s+op\s*==\s*\d+)*)\s*:\s*"
                   r"(?:#\s*(.*?))?\s*$")


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

def _handlers(path):
    """{code: name} from the `op == N:  # NAME` lines; asserts every such line is commented
    and names as many opcodes as it tests."""
    found = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            m = _TEST.match(line)
            if not m:
                assert not re.match(r"^\s*(?:if|elif)\s+op\s*==\s*\d+", line), \
                    f"{path}:{lineno}: opcode test not in the `op == N:  # NAME` form"
                continue
            codes = [int(x) for x in re.findall(r"\d+", m.group(1))]
            assert m.group(2), f"{path}:{lineno}: opcode test without a `# NAME` comment"
            names = [n.strip() for n in m.group(2).split(",")]
            assert len(codes) == len(names), f"{path}:{lineno}: {codes} vs {names}"
            for code, name in zip(codes, names):
                assert code not in found, f"{path}:{lineno}: opcode {code} handled twice"
                found[code] = (name, lineno)
    return found


def _check_loop(path, missing_ok):
    found = _handlers(path)
    assert found, f"no `op == N:  # NAME` lines in {path}"
    expected = {op.name: op.code for op in O.OPS}
    expected.update(O.INTERNAL)
    for code, (name, lineno) in found.items():
        assert name in expected, f"{path}:{lineno}: {name} is not an opcode"
        assert expected[name] == code, \
            f"{path}:{lineno}: handler for {name} tests op == {code}, the table says {expected[name]}"
    handled = {name for name, _ in found.values()}
    missing = set(expected) - handled - set(missing_ok)
    assert not missing, f"{path}: no handler for {sorted(missing)}"


def test_plain_loop_handles_every_opcode():
    # PC_RELEASE is dropped by the decoder when labels are off; LOAD_TASK becomes CONST.
    _check_loop(os.path.join(VM_DIR, "loop.py"), missing_ok={"PC_RELEASE", "LOAD_TASK"})


def test_labels_loop_handles_every_opcode():
    _check_loop(os.path.join(VM_DIR, "loop_labels.py"), missing_ok={"LOAD_TASK"})


def test_handler_parser_reads_both_forms():
    assert _TEST.match("        if op == 3:  # LOAD_LOCAL").groups() == ("op == 3", "LOAD_LOCAL")
    m = _TEST.match("    elif op == 4 or op == 5:  # STORE_LOCAL, DECLARE_LOCAL")
    assert re.findall(r"\d+", m.group(1)) == ["4", "5"]
    assert m.group(2) == "STORE_LOCAL, DECLARE_LOCAL"
