"""Loading stays linear-ish and never raises past InvalidProgram (SPEC 12, SPEC 6), whatever
the shape of the code: long runs of variable reads (the superinstruction choice once
recursed per instruction), thousands of branches to one place (the dominators were
quadratic), long straight code reading one variable (so was the dominance check), a
DROP_UNDER under thousands of loop iterators on each of thousands of paths, and constants
or operands too large to print."""

import functools
import glob
import io
import random
import subprocess
import time
from array import array
from pathlib import Path

import pytest

from conftest import ROOT, SHARED, syn_command
from synsema.compiler import compile_source
from synsema.vm import codec, decode, flow, machine
from synsema.vm import opcodes as O
from synsema.vm.errors import InvalidProgram
from synsema.runtime.machine import VM, Options
from synsema.vm.program import Function, Param, Program
from synsema.vm.verify import _show, verify

# Generous: each of these took from 10 s to minutes before, and takes well under a second
# now; the bound only has to tell quadratic from linear on a loaded machine.
SLOW = 15.0


def _run(source, labels=False):
    out = io.StringIO()
    vm = VM(compile_source(source, "t.syn"), Options(labels=labels, out=out.write))
    vm.run_main()
    return out.getvalue()


def _loaded(data):
    t = time.perf_counter()
    prog = codec.decode(data)
    return prog, time.perf_counter() - t


# ---- 1. superinstructions: no recursion over the code ----------------------------------------

@pytest.mark.parametrize("count", [250, 2000])
@pytest.mark.parametrize("labels", [False, True])
def test_a_long_run_of_variable_reads_loads(count, labels):
    names = [f"v{i}" for i in range(count)]
    top = "".join(f"let {v} be {i}\n" for i, v in enumerate(names))
    source = top + f"print(len([{', '.join(names)}]))\n"
    assert _run(source, labels) == f"{count}\n"
    task = ("task f(x)\n    give [" + ", ".join(["x"] * count) + "]\n"
            "print(len(f(1)))\n")
    assert _run(task, labels) == f"{count}\n"


def test_syn_run_of_a_long_run_of_variable_reads(tmp_path):
    path = tmp_path / "reads.syn"
    path.write_text("".join(f"let v{i} be {i}\n" for i in range(300))
                    + "print(len([" + ", ".join(f"v{i}" for i in range(300)) + "]))\n")
    r = subprocess.run(syn_command() + ["run", str(path)], capture_output=True, text=True,
                       timeout=120)
    assert (r.returncode, r.stdout) == (0, "300\n"), r.stderr
    assert "Traceback" not in r.stderr


def _recursive_match(code, i, n, targets, labels):
    """The superinstruction choice as it was defined before: LOAD_LOCAL2's better_later
    tries every candidate at i + 1, its own better_later included (one level of Python
    recursion per LOAD_LOCAL of a run)."""
    def later(code, i, n, targets):
        hit = decode._match(code, i + 1, n, targets, labels, decode._FUSED_BY_FIRST, later)
        return hit is not None and hit[0] >= 3
    return decode._match(code, i, n, targets, labels, decode._FUSED_BY_FIRST, later)


def _unfused(source, labels):
    """The decoded code of each function of source before fusion: fuse's arguments."""
    got = []
    real_fuse = decode.fuse
    real_decode = machine.decode_function

    def capture(code, positions, words, labels):
        got.append((code, positions, words, labels))
        return code, decode.Positions(positions), words

    decode.fuse = capture
    machine.decode_function = functools.partial(decode.decode_function,
                                                superinstructions=True)
    try:
        VM(compile_source(source, "t.syn"), Options(labels=labels, out=io.StringIO().write))
    finally:
        decode.fuse = real_fuse
        machine.decode_function = real_decode
    return got


def _expression(rng, depth=0):
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(["a", "b", "c", "xs", "1", "2", "7", "2.5", "n"])
    op = rng.choice(["+", "-", "*", "%", "<", "<=", "==", "!=", ">", "index", "len"])
    left, right = _expression(rng, depth + 1), _expression(rng, depth + 1)
    if op == "index":
        return f"xs[{left}]"
    if op == "len":
        return f"len({left})"
    return f"({left} {op} {right})"


def _fusion_corpus():
    sources = []
    for pattern in ("examples/**/*.syn", "bench/**/*.syn"):
        sources += [Path(p).read_text(encoding="utf-8")
                    for p in glob.glob(str(ROOT / pattern), recursive=True)]
    sources += [Path(p).read_text(encoding="utf-8")
                for p in sorted(glob.glob(str(SHARED / "conformance" / "**" / "*.syn"),
                                          recursive=True))]
    rng = random.Random(7)
    head = "let a be 1\nlet b be 2\nlet c be 3\nlet n be 4\nlet xs be [1, 2, 3]\n"
    for _ in range(60):
        lines = []
        for _ in range(rng.randrange(1, 8)):
            kind = rng.random()
            e = _expression(rng)
            if kind < 0.3:
                lines.append(f"set a to {e}")
            elif kind < 0.5:
                lines.append(f"when {e}\n    set b to b + {_expression(rng)}")
            elif kind < 0.6:
                lines.append(f"set xs[0] to {e}")
            else:
                lines.append(f"print([{e}, a, b, c, a, b, {_expression(rng)}])")
        sources.append(head + "\n".join(lines) + "\n")
        body = "\n".join("    " + line.replace("\n", "\n    ") for line in lines)
        sources.append(head + "task f(a, b, c, n, xs)\n" + body + "\n    give a + b * 2\n"
                       "print(f(1, 2, 3, 4, [5, 6, 7]))\n")
    # Runs of reads, with arithmetic at either end of them.
    for k in (2, 3, 4, 5, 9):
        reads = ", ".join(["a", "b"] * k)
        sources.append(head + f"print([{reads}, a + b * 2, a + xs[b][c], b * 2])\n")
    return sources


def test_the_one_deep_lookahead_fuses_as_the_recursive_definition_did():
    checked = 0
    for source in _fusion_corpus():
        try:
            compile_source(source, "t.syn")
        except Exception:  # noqa: BLE001 - a random program may not compile: skip it
            continue
        for labels in (False, True):
            for code, positions, words, lab in _unfused(source, labels):
                n = len(code)
                targets = decode._targets(code)
                for i in range(n):
                    assert (decode._match(code, i, n, targets, lab)
                            == _recursive_match(code, i, n, targets, lab)), (source, i)
                checked += n
    assert checked > 10_000


def test_the_table_lists_the_longest_superinstructions_first():
    # What _better_later relies on (tools/gen_dispatch.py sorts them so).
    for sups in decode._FUSED_BY_FIRST.values():
        lengths = [len(s[1]) for s in sups]
        assert lengths == sorted(lengths, reverse=True)


# ---- 2. constants and operands too large to print -------------------------------------------

def _make(code, consts=(None,), nlocals=0, functions=()):
    p = Program("t.syn")
    p.consts = list(consts)
    p.globals = [f"v{i}" for i in range(nlocals)]
    p.global_lines = [1] * nlocals
    main = Function("<top level>", "main", 1)
    main.code = list(code)
    main.nlocals = nlocals
    p.functions = [main, *functions]
    return p


def _refused(prog):
    try:
        verify(prog)
    except InvalidProgram as e:
        return e.reason
    raise AssertionError("accepted")


BIG = 7 * 10 ** 5000


def test_a_huge_integer_constant_in_a_message():
    reason = _refused(_make([O.CONST, 1, O.FIELD, 0, O.RETURN], consts=[BIG, {}.get("x")]))
    assert "FIELD needs a text constant, constant 0 is an integer of 5001 digits" in reason


def test_a_huge_integer_constant_in_a_file(tmp_path):
    prog = compile_source('let m be {"a": 1}\nprint(m.a)\n', "big.syn")
    code = prog.functions[0].code
    prog.consts.append(-BIG)
    pc = 0
    while pc < len(code):
        op = O.BY_CODE[code[pc]]
        if op.code == O.FIELD:
            code[pc + 1] = len(prog.consts) - 1
        pc += 1 + len(op.operands)
    data = codec.encode(prog)
    with pytest.raises(InvalidProgram) as e:
        codec.decode(data)
    assert "is a negative integer of 5001 digits" in e.value.reason
    path = tmp_path / "big.synb"
    path.write_bytes(data)
    r = subprocess.run(syn_command() + ["exec", str(path)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and r.stderr.startswith("not a valid .synb: "), r.stderr
    assert "digits" in r.stderr and "Traceback" not in r.stderr


def _task(code=(O.CONST, 0, O.RETURN), **fields):
    f = Function("f", "task", 3)
    f.code = list(code)
    f.nlocals = 0
    for k, v in fields.items():
        setattr(f, k, v)
    return f


@pytest.mark.parametrize("edit", [
    lambda p: p.functions[0].code.__setitem__(slice(0, 0), [BIG]),          # opcode
    lambda p: p.functions[0].code.__setitem__(slice(0, 0), [O.CONST, BIG, O.POP]),
    lambda p: p.functions[0].code.__setitem__(slice(0, 0), [O.JUMP, BIG]),
    lambda p: p.functions[0].code.__setitem__(slice(0, 0), [O.CONST, -BIG, O.POP]),
    lambda p: p.functions[0].code.__setitem__(slice(0, 0), [O.BUILD_LIST, BIG]),
    lambda p: p.functions[0].code.__setitem__(slice(0, 0), [O.CONST, "x" * 10 ** 6]),
    lambda p: p.functions[0].positions.append((BIG, 1, 1)),
    lambda p: p.functions[0].positions.append((0, BIG, 1)),
    lambda p: p.functions[0].positions.append([[[[[[BIG]]]]]] * 3),
    lambda p: p.tests.append(("t", BIG)),
    lambda p: p.tests.append(("t" * 10 ** 6, BIG, 1)),
    lambda p: p.builtins.append("x" * 10 ** 6),
    lambda p: p.global_lines.__setitem__(slice(None), [-BIG]),
    lambda p: p.requires.append(("net", BIG)),
    lambda p: p.functions.append(_task(kind=BIG)),
    lambda p: p.functions.append(_task(name="é" * 10 ** 6)),
    lambda p: p.functions.append(_task(ncaptures=BIG)),
    lambda p: p.functions.append(_task(nlocals=-BIG)),
    lambda p: p.functions.append(_task(params=[Param("x", ["number"])])),
    lambda p: p.functions.append(_task(params=[Param("x", "x" * 10 ** 6)])),
    lambda p: p.functions.append(_task(params=[Param("x", None, BIG)])),
    lambda p: p.functions.append(_task(local_names=[BIG])),
])
def test_huge_or_strange_values_anywhere_get_a_short_reason(edit):
    prog = _make([O.CONST, 0, O.RETURN], nlocals=1)
    edit(prog)
    reason = _refused(prog)
    assert len(reason) < 400, reason


@pytest.mark.parametrize("digits", [1, 60, 61, 62, 299, 300, 301, 4300, 4301, 5000, 12345])
def test_show_counts_the_digits(digits):
    from synsema.vm.digits import int_text
    for x in (10 ** (digits - 1), 10 ** digits - 1, -(10 ** (digits - 1)) - 3):
        text = _show(x)
        assert f" of {digits} digits" in text or text == repr(x), (digits, text)
        if len(int_text(x)) > 100:
            assert f" of {digits} digits" in text, (digits, text)


def test_show_keeps_ordinary_values_as_repr():
    for x in (0, -3, 2.5, "ab'c", None, True, ("net", "example.com"), [0, 1, 2], (1,), []):
        assert _show(x) == repr(x)


# ---- 3. dominators: the same results, in near-linear time -----------------------------------

def _random_code(rng, n):
    """Decoded code (jump targets are instruction indexes) of random flow: anything goes,
    backward branches, unreachable code, endless loops, jumps to the end."""
    code = []
    for i in range(n):
        r = rng.random()
        t = rng.randrange(n + 1)
        if r < 0.1:
            code.append((O.RETURN, None))
        elif r < 0.25:
            code.append((O.JUMP, t))
        elif r < 0.5:
            code.append((O.JUMP_IF_FALSE, (t, 0)))
        elif r < 0.55:
            code.append((O.TRY_BEGIN, (t, 0)))
        else:
            code.append((O.POP, None))
    return code


def _edges(code):
    n = len(code)
    first, second = flow.successors(code)
    succ = [set() for _ in range(n + 1)]
    for i in range(n):
        for t in (first[i], second[i]):
            if t >= 0:
                succ[i].add(t)
    return succ


def _reference_idoms(succ, root):
    """Dominators the textbook way: Dom(v) = {v} + the meet of Dom(p) over v's
    predecessors p, iterated to the fixed point; idom(v): the strict dominator of v that
    every other strict dominator of v dominates. -1 where root cannot reach."""
    nodes = len(succ)
    reach, stack = {root}, [root]
    while stack:
        for w in succ[stack.pop()]:
            if w not in reach:
                reach.add(w)
                stack.append(w)
    preds = [[] for _ in range(nodes)]
    for v in reach:
        for w in succ[v]:
            preds[w].append(v)
    dom = {v: set(reach) for v in reach}
    dom[root] = {root}
    changed = True
    while changed:
        changed = False
        for v in reach:
            if v == root:
                continue
            new = set.intersection(*(dom[p] for p in preds[v])) | {v}
            if new != dom[v]:
                dom[v] = new
                changed = True
    idom = [-1] * nodes
    idom[root] = root
    for v in reach:
        if v != root:
            strict = dom[v] - {v}
            idom[v] = next(d for d in strict if dom[d] == strict)
    return idom, dom


def test_dominators_agree_with_the_textbook_definition():
    rng = random.Random(12)
    for trial in range(400):
        n = rng.randrange(1, 12 if trial % 2 else 60)
        code = _random_code(rng, n)
        succ = _edges(code)
        want, dom_sets = _reference_idoms(succ, 0)
        tree = flow.dominator_tree(code)
        assert list(tree.idom) == want[:n], (code, list(tree.idom), want)
        assert list(flow.dominators(code)) == want[:n]
        for a in range(n):
            for b in range(n):
                expected = b in dom_sets and a in dom_sets[b]
                assert tree.dominates(a, b) == expected, (code, a, b)
        # Post-dominators: dominators of the reversed graph from the exit (node n).
        back = [set() for _ in range(n + 1)]
        for v, ws in enumerate(succ):
            for w in ws:
                back[w].add(v)
        want_post, _ = _reference_idoms(back, n)
        got = list(flow.post_dominators(code))
        assert got == [flow.EXIT if p < 0 or p == n else p for p in want_post[:n]], code


def test_dominators_of_an_empty_function():
    assert list(flow.dominators([])) == []


# The shapes the review found quadratic (N = 20000 took about 40 s to load).

def _fan(n):
    """Top level: n times `CONST false; JUMP_IF_FALSE end`, then `end: CONST nothing;
    RETURN`: n branches to one place."""
    prog = compile_source("print(1)\n", "fan.syn")
    prog.consts += [False, None]
    false, nothing = len(prog.consts) - 2, len(prog.consts) - 1
    end = n * 5
    main = prog.functions[0]
    main.code = [O.CONST, false, O.JUMP_IF_FALSE, end, 0] * n + [O.CONST, nothing, O.RETURN]
    main.positions = [(0, 1, 1)]
    return codec.encode(prog)


def test_many_branches_to_one_place_load_in_near_linear_time():
    prog, took = _loaded(_fan(20_000))
    assert took < SLOW, took
    tree = flow.dominator_tree([(O.CONST, None), (O.JUMP_IF_FALSE, (4, 0))] * 3
                               + [(O.RETURN, None)])
    assert list(tree.idom) == [0, 0, 1, 2, 1, 4, 5]


def test_many_branches_to_one_place_run_with_labels():
    for labels in (False, True):
        vm = VM(codec.decode(_fan(20_000)), Options(labels=labels, out=io.StringIO().write))
        vm.run_main()


def test_long_straight_code_reading_one_variable_loads_in_near_linear_time():
    source = "let x be 1\n" + "print(x)\n" * 20_000
    data = codec.encode(compile_source(source, "straight.syn"))
    _, took = _loaded(data)
    assert took < SLOW, took


def test_ten_thousand_whens_and_tries_load_in_near_linear_time():
    whens = "let x be 0\n" + "when x == 1\n    set x to x + 1\n" * 10_000 + "print(x)\n"
    tries = ("let x be 0\n" + "try\n    set x to x + 1\nrecover e\n    set x to 0\n" * 10_000
             + "print(x)\n")
    for source in (whens, tries):
        _, took = _loaded(codec.encode(compile_source(source, "many.syn")))
        assert took < SLOW, took


def _iterators(depth, paths, keep=0):
    """`depth` loop iterators on the stack under one value, then `paths` branches each
    to its own `DROP_UNDER depth; RETURN`: the verifier finds the iterators left below
    each DROP_UNDER (once a walk down all of them per path)."""
    prog = compile_source('print("ab")\n', "it.syn")
    prog.consts += [False, None, "ab"]
    false, nothing, text = len(prog.consts) - 3, len(prog.consts) - 2, len(prog.consts) - 1
    code = [O.CONST, text, O.ITER_START, 0] * depth + [O.CONST, nothing]
    for _ in range(paths):
        skip = len(code) + 8
        code += [O.CONST, false, O.JUMP_IF_FALSE, skip, 0, O.DROP_UNDER, depth, O.RETURN]
    code += [O.DROP_UNDER, depth, O.RETURN]
    main = prog.functions[0]
    main.code = code
    main.positions = [(0, 1, 1)]
    return codec.encode(prog)


def test_drop_under_many_iterators_on_many_paths_loads_in_near_linear_time():
    _, took = _loaded(_iterators(10_000, 20_000))
    assert took < SLOW, took


@pytest.mark.parametrize("depth", [1, 2, 3, 7, 16, 33])
def test_drop_under_finds_the_iterators_it_leaves(depth):
    """DROP_UNDER k under `depth` iterators and a value: the value is a value (NOT may
    use it), and the iterator left on top after it is popped is the one FOR_ITER may use
    (the jump pointers that find it must stop exactly there)."""
    for k in range(1, depth + 1):
        left = depth - k
        code = [O.CONST, 1, O.ITER_START, 0] * depth + [O.CONST, 0, O.DROP_UNDER, k, O.NOT,
                                                         O.POP]
        if left:
            head = len(code)
            end = head + 5
            code += [O.FOR_ITER, end, O.POP, O.JUMP, head]
            assert len(code) == end
            left -= 1           # FOR_ITER pops its iterator when it is done
        code += [O.CONST, 0] + ([O.DROP_UNDER, left] if left else []) + [O.RETURN]
        verify(_make(code, consts=[None, "ab"]))
    # All of them dropped: no iterator is left for a FOR_ITER.
    bad = [O.CONST, 1, O.ITER_START, 0] * depth + [O.CONST, 0, O.DROP_UNDER, depth, O.POP,
                                                    O.CONST, 0]
    head = len(bad)
    bad += [O.FOR_ITER, head + 5, O.POP, O.JUMP, head, O.RETURN]
    assert "FOR_ITER needs an iterator" in _refused(_make(bad, consts=[None, "ab"]))


def test_the_fan_file_from_the_command_line(tmp_path):
    path = tmp_path / "fan.synb"
    path.write_bytes(_fan(20_000))
    t = time.perf_counter()
    r = subprocess.run(syn_command() + ["inspect", str(path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert time.perf_counter() - t < SLOW * 2


def test_idoms_of_a_deep_branching_graph():
    """The graph that makes Cooper, Harvey & Kennedy's intersection walk quadratic whatever
    the order of predecessors: a chain whose every node also branches to its own join,
    the join's other predecessor a leaf of a balanced tree of branches."""
    n = 2000
    # 0: the root; 1..n: the chain; n+1..2n: the joins; then the tree, from its root.
    succ = [[1, 2 * n + 1]] + [[k + 1 if k < n else n + 1, n + k] for k in range(1, n + 1)]
    succ += [[] for _ in range(n)]
    leaves = [len(succ)]
    succ.append([])
    while len(leaves) < n:
        grown = []
        for leaf in leaves:
            succ[leaf] = [len(succ), len(succ) + 1]
            grown += [len(succ), len(succ) + 1]
            succ += [[], []]
        leaves = grown
    for k, leaf in enumerate(leaves):
        succ[leaf] = [n + 1 + k % n]
    nodes = len(succ)
    first = array("q", (s[0] if s else -1 for s in succ))
    second = array("q", (s[1] if len(s) > 1 else -1 for s in succ))
    out = flow._adjacency(nodes, first, second, False)
    into = flow._adjacency(nodes, first, second, True)
    t = time.perf_counter()
    idom = flow._idoms(nodes, 0, out, into)
    assert time.perf_counter() - t < SLOW
    for k in range(1, n + 1):
        assert idom[n + k] == 0
    assert idom[1] == 0 and idom[2] == 1


def test_a_huge_integer_in_the_header_or_a_kind_is_refused_in_words():
    import msgpack
    from synsema.vm import codec
    from synsema.vm.errors import InvalidProgram
    big = msgpack.ExtType(1, b"9" * 5000)
    good = msgpack.unpackb(codec.encode(compile_source("print(1)\n", "t.syn")), raw=False,
                           strict_map_key=False)
    header = msgpack.packb([good[0], big, good[2], good[3]], use_bin_type=True)
    with pytest.raises(InvalidProgram, match="an integer of 5000 digits"):
        codec.decode(header)
