"""The VM's loops and opcode data are generated from vm/instructions.py
(tools/gen_dispatch.py): they must be current, and the superinstructions (compositions of
instructions) must behave exactly like the instructions they are made of."""

import functools
import io
import re

import pytest

from synsema.compiler import compile_source
from synsema.vm import decode, machine
from synsema.vm.errors import SynError
from synsema.vm.machine import VM, Options

from conftest import load_script


def _gen():
    return load_script("tools/gen_dispatch.py")


_REGEN = load_script("tools/regen.py")


@pytest.mark.parametrize("step", [s for s in _REGEN.STEPS if s.stale], ids=lambda s: s.what)
def test_generated_files_are_current(step):
    # Every generator of the repository is a step of tools/regen.py (make regen).
    stale = step.stale()
    assert stale == [], f"{', '.join(stale)} out of date: run `make regen` ({step.what})"


def test_every_instruction_and_superinstruction_is_in_both_loops():
    gen = _gen()
    ns = gen.load()
    for path, labels in gen.OUTPUTS.items():
        text = open(f"{gen.ROOT}/{path}").read()
        for ins in ns["INSTRUCTIONS"]:
            if ins["code"] is None or ins.get("decoded_as") or (ins.get("labels_only")
                                                                and not labels):
                continue
            assert f"# {ins['name']} ({ins['code']})" in text, f"{path} lacks {ins['name']}"
        for f in ns["FUSED"]:
            if f.get("labels_only") and not labels:
                assert f"# {f['name']} (" not in text, f"{path} has labels-only {f['name']}"
                continue
            assert f"# {f['name']} ({f['code']}) = {' '.join(f['parts'])}" in text


@pytest.mark.parametrize("module,fn", [("loop_fast", "run_plain"),
                                       ("loop_labels_fast", "run_labels")])
def test_every_dispatch_test_reads_a_table_not_a_comparison(module, fn):
    # tools/gen_dispatch.py _emit: a comparison before a long jump stays generic for good
    # on CPython 3.11 (and a short one costs more than the table read): no dispatch test
    # may be compiled to a COMPARE_OP.
    import dis
    import importlib
    mod = importlib.import_module(f"synsema.vm.{module}")
    lines = open(mod.__file__).read().split("\n")
    tree = [n for n, l in enumerate(lines, 1) if re.match(r"\s*if below_\d+\[op\]:", l)]
    assert len(tree) > 50
    assert not [l for l in lines if re.match(r"\s*if op [<>]", l)]
    ops_at = {}
    for a in dis.get_instructions(getattr(mod, fn)):
        if a.positions.lineno:
            ops_at.setdefault(a.positions.lineno, []).append(a.opname)
    for n in tree:
        assert "COMPARE_OP" not in ops_at[n] and "BINARY_SUBSCR" in ops_at[n], (n, ops_at[n])


def test_the_tables_of_the_tests_say_op_below_k():
    from synsema.vm import loop_fast, loop_labels_fast
    for mod in (loop_fast, loop_labels_fast):
        for k, table in mod._BELOW.items():
            assert [op for op in range(256) if table[op]] == list(range(k))


def test_label_parts_are_folded_away_from_the_plain_loop():
    gen = _gen()
    plain = gen.generate()["vm/loop_fast.py"]
    for word in ("LABELS", "OP.", "FRAGMENT", "Labeled", "pcs", "stamps", "push_pc"):
        assert word not in plain, f"the plain loop still mentions {word!r}"


PROGRAMS = [
    "task fib(n)\n    when n < 2\n        give n\n    give fib(n - 1) + fib(n - 2)\nprint(fib(12))\n",
    "let xs be []\nlet i be 0\nwhile i < 50\n    set xs to append(xs, i * i)\n    set i to i + 1\n"
    "let m be {}\nfor each x in xs\n    when x % 3 == 0\n        set m[text(x)] to x\nprint(len(m))\n"
    "print(xs[-1])\n",
    "task f(a, b = a + 1)\n    give [a, b]\nprint(f(1))\nprint(call(f, {\"b\": 5, \"a\": 2}))\n"
    "let g be (x) => x + 1\nprint(g(2))\n",
    "let total be 0\nlet i be 10\nwhile i > 0\n    when i >= 5 and i != 7\n        set total to total + i\n"
    "    otherwise when i <= 2 or i == 7\n        set total to total - 1\n    set i to i - 1\n"
    "print(total)\n",
    "task risky(n)\n    when n > 2\n        fail(\"big \" + text(n))\n    give n\nlet out be \"\"\n"
    "for each n in range(5)\n    try\n        set out to out + text(risky(n))\n    recover e\n"
    "        set out to out + \"[\" + e + \"]\"\nprint(out)\n",
    "let s be private(\"abc\", \"s\")\nprint(labels_of([s, 1]))\nprint(declassify(len(s), \"ok\"))\n",
    # `give` from inside a try inside a for each: the try's handler and the loop's
    # iterator must be gone when the task returns, and still there when it does not.
    "task risky(x)\n    when x > 1\n        fail(\"big\")\n    give x\ntask f(xs)\n"
    "    for each x in xs\n        try\n            give risky(x)\n        recover e\n"
    "            print(e)\n    give \"none\"\nprint(f([5, 7, 1]))\nprint(f([9]))\n"
    "for each y in [1, 2]\n    print(f([y]))\n",
    # Fields and elements of locals, nested indexing, constants in a row, a `let` used at
    # once, a builtin called for its effect; then their errors, with their positions.
    "let m be [[1, 2], [3]]\nlet r be {\"a\": 1, \"b\": [m[0][1], m[1][0]]}\nlet i be 1\n"
    "let k be \"a\"\nprint(r.a + r[k])\nprint(r.b[i])\nprint(m[i][0] * 2)\n"
    "let s be r.b\nprint(s)\nprint(r.c)\nprint(m[i][1])\n",
    "let s be private(7, \"s\")\nlet xs be [s, 2]\nlet m be {\"a\": s, \"b\": 1}\n"
    "let t be 0\nlet i be 0\nwhile i < 3\n    when i % 2 == 0\n        let u be xs[0] + m.b\n"
    "    set t to t + i\n    set i to i + 1\nprint(declassify([labels_of(xs[1]), "
    "labels_of(m.a), labels_of(s % 2 == 1), t], \"ok\"))\nwhen s > 5\n    set t to 1\n",
]
# An error in each part of a superinstruction that can raise: x[i][k] failing at its
# first or its second index (in a task and at the top level), `s + a * b` failing at the
# product or the sum, a builtin of a local, `x + 1`, a `for each` over a non-list.
_ERRORS = [
    "task f(a, i, k)\n    give a[i][k]\nprint(f([[1, 2]], 0, 1))\nprint(f([[1, 2]], {i}, {k}))\n",
    "let a be [[1, 2]]\nlet i be {i}\nlet k be {k}\nprint(a[i][k] + 1)\n",
    "task f(s, a, b)\n    set s to s + a * b\n    give s\nprint(f(1, 2, 3))\nprint(f({i}, {k}, 2))\n",
    "task f(x)\n    give len(x) + 1\nprint(f([1]))\nprint(f({i}))\n",
    "task f(xs)\n    let t be 0\n    for each x in xs\n        set t to t + x\n    give t\n"
    "print(f([1, 2]))\nprint(f([1, {k}]))\n",
    "task g(f, x)\n    give f(x)\nprint(g((y) => y * 2, 1))\nprint(g({i}, {k}))\n",
    "task c(m, k)\n    give get(m, k, 0) + 1\nprint(c({{\"a\": 1}}, \"a\"))\nprint(c({i}, {k}))\n",
    "task w(t, n)\n    when n > 0 and t\n        give split(t, \" \")\n    give t + \"!\"\n"
    "print(w(\"a b\", 1))\nprint(w({i}, {k}))\n",
    "task h(x)\n    give (x) => x + 1\nprint(h(1)(2))\nprint(h(0)({k}))\n",
    "task u(xs, i)\n    give upper(xs[i])\nprint(u([\"a\"], 0))\nprint(u([{i}], {k}))\n",
    "task t(m)\n    give upper(m.s) + text(m.n)\nprint(t({{\"s\": \"a\", \"n\": 1}}))\n"
    "print(t({{\"s\": {i}, \"n\": {k}}}))\nprint(t({k}))\n",
]
PROGRAMS += [e.format(i=i, k=k) for e in _ERRORS
             for i, k in (("0", "5"), ("3", "0"), ("\"x\"", "0"), ("0", "\"y\""))]
# The statement that ends a `for each` body, fused with the jump back (vm.decode._tails):
# each kind, when it works, when it fails, and when a `when` jumps past it to the same
# jump back. {x} is the list looped over: numbers, then a text among them.
_TAILS = [
    "let t be 0\nfor each x in {x}\n    set t to x * 2\nprint(t)\n",
    "let t be 0\nfor each x in {x}\n    set t to t + abs(x)\nprint(t)\n",
    "let t be 0\nfor each x in {x}\n    set t to t + x\nprint(t)\n",
    "let n be 0\nfor each x in {x}\n    when x == 3\n        set n to text(n)\n    set n to n + 1\n"
    "print(n)\n",
    "let ys be []\nfor each x in {x}\n    when x != 2\n        set ys to append(ys, x * 3)\n"
    "print(ys)\n",
    "let m be {{}}\nfor each x in {x}\n    set m[x] to 1\nprint(m)\n",
    "let m be {{}}\nfor each x in {x}\n    when x == 3\n        set m[\"k\"] to \"three\"\n"
    "    set m[\"k\"] to get(m, \"k\", 0) + 1\nprint(m)\n",
    "task dot(a, b)\n    let s be 0\n    for each i in range(len(a))\n        set s to s + a[i] * b[i]\n"
    "    give s\nprint(dot({x}, [1, 2, 3]))\n",
    "let s be private(3, \"s\")\nlet t be 0\nfor each x in {x}\n    when s > 2\n"
    "        set t to t + x\nprint(declassify(t, \"ok\"))\n",
]
PROGRAMS += [e.format(x=x) for e in _TAILS for x in ("[1, 2, 3]", "[1, 2, \"a\"]", "[[1], 2]")]
# A `while` loop's jump back running its test in place, and with the counter step before
# it; {n} is the bound: a number, then one the test or the step cannot compare or add.
_WHILES = [
    "let i be 0\nlet t be 0\nwhile i < {n}\n    set t to t + i\n    set i to i + 1\nprint(t)\n",
    "let n be {n}\nlet i be 0\nwhile i < n\n    set i to i + 1\nprint(i)\n",
    "let i be {n}\nwhile i > 0\n    set i to i - 1\nprint(i)\n",
    "let i be 0\nlet n be {n}\nwhile i <= n\n    set i to i + 2\nprint(i)\n",
    "let i be 0\nlet n be {n}\nwhile n >= i\n    set i to i + 1\n    when i == 3\n        set i to \"x\"\n"
    "print(i)\n",
]
PROGRAMS += [e.format(n=n) for e in _WHILES for n in ("5", "2.5", "\"a\"", "[1]")]
# Labels: the store that ends a `when` branch, fused with the release after it, and the
# release kept for the branch not taken; under a labelled condition the store is refused
# at its own position.
PROGRAMS += [
    "let n be 0\nlet i be 0\nwhile i < 5\n    when i % 2 == 0\n        set n to n + 1\n"
    "    set i to i + 1\n    when i > 2\n        set n to n\n    print(n)\n",
    "let s be private(2, \"s\")\nlet n be 0\nlet i be 0\nwhile i < 3\n    set i to i + 1\n"
    "    when s > i\n        set n to n + 1\n    print(i)\n",
]
# `*` and `%` inline for a right operand under 2**64 (tested against one CPython digit
# first, then 2**64); past it ops.mul/ops.mod answer: the same numbers either way, on both
# sides of each bound, negative ones too, a local or a constant, in a loop's tail or alone.
_BOUNDS = ["1073741823", "1073741824", "-1073741823", "-1073741824", "1099511627776",
           "18446744073709551615", "18446744073709551616", "-18446744073709551616", "7.5"]
PROGRAMS += [
    f"let b be {b}\nlet a be 123456789\nprint(a * b)\nprint(a % b)\nprint(a * {b})\n"
    f"print(a % {b})\nlet s be 0\nfor each x in [a, -a]\n    set s to s + x * b\nprint(s)\n"
    for b in _BOUNDS]
# A task without a `give` ends with `give nothing` (RETURN_CONST): called in a loop, at
# the top level, and returning under a labelled condition (its nothing carries the label).
PROGRAMS += [
    "task note(x)\n    when x > 1\n        print(x)\nlet r be 1\nfor each i in range(4)\n"
    "    set r to note(i)\nprint(r)\n",
    "let s be private(2, \"s\")\ntask f(x)\n    when s > x\n        give 1\n"
    "print(declassify([labels_of(f(1)), labels_of(f(5))], \"ok\"))\n",
]
# Calls of task values and lambdas (their code and pads ride on the closure): right and
# wrong argument counts, through a task, a capture, a labelled callee.
PROGRAMS += [
    "task add(a, b = 10)\n    give a + b\nlet f be add\nprint(f(1, 2))\nprint(f(1))\n"
    "task twice(g, x)\n    give g(g(x))\nlet k be 3\nprint(twice((x) => x + k, 1))\n"
    "print(twice(f, 5))\nprint(f(1, 2, 3))\n",
    "let g be (x) => x\nprint(g(1))\nprint(g())\n",
    "let s be private(1, \"s\")\nlet fs be [(x) => x + 1, (x) => x * 2]\n"
    "let f be fs[s]\nprint(declassify(labels_of(f(3)), \"ok\"))\n",
]
# A bound with a label: the test raises the pc in the loop (and a `set` under it is refused).
PROGRAMS += ["let n be private(3, \"s\")\n" + e.format(n="n") for e in _WHILES
             if "let n" not in e]


def _run(source, labels, fuse=True):
    prog = compile_source(source, "t.syn")
    out = io.StringIO()
    real = machine.decode_function
    if not fuse:
        machine.decode_function = functools.partial(decode.decode_function,
                                                    superinstructions=False)
    try:
        vm = VM(prog, Options(labels=labels, out=out.write))
    finally:
        machine.decode_function = real
    try:
        vm.run_main()
    except SynError as e:
        # Where it says the error is: each part of a superinstruction has its own place.
        return out.getvalue(), e.message, sorted(e.labels), [t[1:] for t in e.trace]
    return out.getvalue(), None, [], []


@pytest.mark.parametrize("source", PROGRAMS)
def test_superinstructions_agree_with_their_parts(source):
    for labels in (False, True):
        assert _run(source, labels) == _run(source, labels, fuse=False)
    # Labels on or off, a program without private data prints the same.
    if "private" not in source:
        assert _run(source, False) == _run(source, True)


@pytest.mark.parametrize("source", [_TAILS[i].format(x="range(100)") for i in (0, 1, 2, 4, 5, 8)]
                         + [_TAILS[7].replace("[1, 2, 3]", "{x}").format(x="range(100)")]
                         + [e.format(n="100") for e in _WHILES[:4]])
def test_a_step_limit_in_a_fused_loop_end_is_where_the_loop_jumps_back(source):
    # The limit is met at the jump back, fused or not (the count of steps differs).
    def limit(fuse):
        prog = compile_source(source, "t.syn")
        real = machine.decode_function
        if not fuse:
            machine.decode_function = functools.partial(decode.decode_function,
                                                        superinstructions=False)
        try:
            vm = VM(prog, Options(out=io.StringIO().write, max_steps=60))
        finally:
            machine.decode_function = real
        with pytest.raises(SynError) as e:
            vm.run_main()
        return e.value.message, [t[1:] for t in e.value.trace]
    assert limit(True) == limit(False)
    assert "step limit" in limit(True)[0]


def test_one_program_runs_in_plain_and_labels_vms_side_by_side():
    prog = compile_source(PROGRAMS[0] + PROGRAMS[4].replace("task risky", "task risky2")
                          .replace("risky(", "risky2("), "t.syn")
    outs = []
    for labels in (False, True, False, True):
        out = io.StringIO()
        VM(prog, Options(labels=labels, out=out.write)).run_main()
        outs.append(out.getvalue())
    assert outs[0] == outs[1] == outs[2] == outs[3] == "144\n012[big 3][big 4]\n"


def _twins():
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parent.parent / "bench" / "twins.py"
    spec = importlib.util.spec_from_file_location("bench_twins", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.ALL


@pytest.mark.parametrize("twin", _twins(), ids=lambda t: t.name)
def test_superinstructions_agree_on_the_bench_programs(twin):
    # Ordinary code of every kind (bench/twins.py): what each superinstruction composes
    # must do what its parts do, in both loops, and print what the Python twin computes.
    got = _run(twin.source, False)
    assert got == _run(twin.source, False, fuse=False) == _run(twin.source, True)[:2] + ([], [])
    assert got[0] == twin.expected()


@pytest.mark.parametrize("b", _BOUNDS)
def test_inline_products_and_remainders_equal_the_ops_ones_at_every_bound(b):
    # The inline fast path and vm.ops must give the same number on both sides of its bound.
    from synsema.vm import ops
    from synsema.vm.display import display
    a, bv = 123456789, float(b) if "." in b else int(b)
    for labels in (False, True):
        out = _run(f"let b be {b}\nlet a be {a}\nprint(a * b)\nprint(a % b)\n"
                   f"print(a * {b})\nprint(a % {b})\n", labels)
        assert out[0] == "".join(f"{display(v)}\n" for v in
                              (ops.mul(a, bv), ops.mod(a, bv)) * 2), out


_XS = ['[10, 20, 30]', '"abc"', '{"a": 1, "b": 2}', 'json_decode("{\\"1\\": 5}")',
       'put({}, 2, "two")', 'put({}, true, "yes")', 'put({}, 1.0, "one")', 'nothing', '7',
       'true', '(x) => x']
_IS = ['0', '1', '-1', '2', '5', '-4', 'true', '1.0', '"a"', 'nothing', '[0]',
       '100000000000000000000000']


@pytest.mark.parametrize("x", _XS)
def test_every_index_path_answers_as_ops_index(x):
    # INDEX's fast path lets Python's x[i] answer for an int index and sends whatever it
    # refuses to ops.index: each kind of value and index, through a local (INDEX_LLL,
    # INDEX_LOCAL...) and a computed one (INDEX), must answer as ops.index does.
    from synsema.vm import ops
    from synsema.vm.display import display
    from synsema.vm.errors import SynError

    def reference(xv, iv):
        try:
            return display(ops.index(xv, iv))
        except SynError as e:
            return "error: " + e.message

    for i in _IS:
        # x[i] of locals (INDEX_LL), nested (INDEX_LLL), of a value (INDEX_L), xs[E] of
        # a local (INDEX_LOCAL), of a value by a computed index (INDEX).
        reads = ["x[i]", "m[z][i]", "[x][0][i]", "x[when_z(i)]", "[x][z][when_z(i)]"]
        src = (f"task when_z(v)\n    give v\nlet x be {x}\nlet i be {i}\nlet m be [x]\n"
               "let z be 0\n" + "".join(
                   f"try\n    print({r})\nrecover e\n    print(\"error: \" + e)\n"
                   for r in reads))
        want = reference(*_values(x, i))     # the value and index as the VM holds them
        for labels in (False, True):
            out, err, _, _ = _run(src, labels)
            assert err is None, (src, err)
            assert out.splitlines() == [want] * len(reads), (x, i, labels, out, want)


def _values(x, i):
    prog = compile_source(f"let x be {x}\nlet i be {i}\n", "v.syn")
    vm = VM(prog, Options(out=io.StringIO().write))
    vm.run_main()
    return vm.globals[0], vm.globals[1]


# ---- map literals: BUILD_MAP_KEYS (text keys) and BUILD_MAP (any other) ------------------

def _ops_of(source):
    from synsema.vm import opcodes as O
    prog = compile_source(source, "m.syn")
    return [op.name for f in prog.functions for _, op, _ in O.iter_instructions(f.code)]


def test_a_map_literal_of_text_keys_pushes_only_its_values():
    ops = _ops_of('let a be 1\nlet m be {"x": a, "y": [a], "x": 3}\n')
    assert "BUILD_MAP_KEYS" in ops and "BUILD_MAP" not in ops
    # Any other key (a number, a bool, a name, an expression): the keys are pushed.
    for lit in ('{1: 2}', '{"a": 1, 2: 3}', '{k: 1}', '{"a" + "b": 1}', '{true: 1}', '{}'):
        ops = _ops_of(f'let k be "a"\nlet m be {lit}\n')
        assert "BUILD_MAP" in ops and "BUILD_MAP_KEYS" not in ops, lit


@pytest.mark.parametrize("labels", [False, True])
def test_map_literals_of_text_keys_mean_what_they_meant(labels):
    # The same maps as BUILD_MAP builds: keys in order, a repeated key keeps its last
    # value in the first key's place, nested literals sharing a block of keys, values
    # evaluated left to right (the first failing one is the error, at its place).
    src = ('let m be {"b": 1, "a": 2, "b": 3}\n'
           'print([m, keys(m)])\nprint({"x": {"x": {"x": 1}}})\n'
           'print(json_encode({"q": [1, 2], "r": nothing}))\n'
           'let bad be {"a": 1,\n    "b": 1 + "x",\n    "c": [][5]}\n')
    out, err, _, trace = _run(src, labels)
    assert out == ('[{"b": 3, "a": 2}, ["b", "a"]]\n{"x": {"x": {"x": 1}}}\n'
                   '{"q": [1, 2], "r": null}\n'), out
    assert err is not None and "number and text" in err, err
    assert trace and trace[0][0] == 6, trace


def test_map_literals_of_text_keys_keep_each_values_label():
    src = ('let s be private(5, "s")\nlet m be {"p": s, "q": 1}\n'
           'print(declassify([labels_of(m.p), labels_of(m.q), labels_of(m)], "ok"))\n'
           'when s > 2\n    let n be {"in": 1}\n    print(declassify(labels_of(n), "ok"))\n')
    out, err, _, _ = _run(src, True)
    assert out == '[["s"], [], ["s"]]\n' and "print" in (err or ""), (out, err)


def test_a_task_value_made_outside_the_run_is_called_with_the_runs_code():
    # Closures made by a run carry its code and pads; one without them (made by a host)
    # is looked up in the run's tables: the same answers either way.
    src = "task add(a, b)\n    give a + b\nlet f be add\nprint(f(2, 3))\nprint(f(1))\n"
    prog = compile_source(src, "t.syn")
    for labels in (False, True):
        outs = []
        for strip in (False, True):
            out = io.StringIO()
            vm = VM(prog, Options(labels=labels, out=out.write))
            if strip:
                for c in vm.tasks.values():
                    c.code = c.pads = None
            try:
                vm.run_main()
            except SynError as e:
                outs.append((out.getvalue(), e.message))
        assert outs[0] == outs[1] and outs[0][0] == "5\n" and "argument" in outs[0][1], outs


# The file opcodes (numbers, names, operand kinds: vm/optable.py FILE_OPCODES_FINGERPRINT)
# each .synb format version was released with. A reader of one version misreads a file
# whose opcodes differ, so a change to them must come with a new version (vm/codec.py).
FORMAT_FINGERPRINTS = {4: "bf87886039a8a927"}


def test_the_format_version_changes_with_the_file_opcodes():
    from synsema.vm import codec, optable
    version, now = codec.FORMAT_VERSION, optable.FILE_OPCODES_FINGERPRINT
    pinned = FORMAT_FINGERPRINTS.get(version)
    assert pinned is not None, (
        f".synb format version {version} has no pinned opcode fingerprint: add "
        f"{{{version}: {now!r}}} to FORMAT_FINGERPRINTS in tests/test_generated.py")
    assert pinned == now, (
        f"the file opcodes (a number, name or operand of an inst() in vm/instructions.py "
        f"below FIRST_INTERNAL) changed since .synb format version {version} (fingerprint "
        f"{pinned!r}, now {now!r}): a reader of version {version} would misread the new "
        f"files. Bump FORMAT_VERSION in vm/codec.py to {version + 1} and add "
        f"{{{version + 1}: {now!r}}} to FORMAT_FINGERPRINTS in tests/test_generated.py")


def test_the_fingerprint_covers_numbers_names_and_operands_of_file_opcodes_only():
    import copy
    gen = _gen()
    ns = {k: v for k, v in gen.load().items() if k in ("INSTRUCTIONS", "FUSED",
                                                          "FIRST_INTERNAL")}
    base = gen.fingerprint(ns)
    assert gen.fingerprint(gen.load()) == base
    for change in (lambda i: i.update(code=99), lambda i: i.update(name="LOAD"),
                   lambda i: i.update(operands=("count k",)),
                   lambda i: i.update(operands=("const k", "rid rid"))):
        other = copy.deepcopy(ns)
        change(next(i for i in other["INSTRUCTIONS"] if i["name"] == "CONST"))
        assert gen.fingerprint(other) != base
    other = copy.deepcopy(ns)
    other["INSTRUCTIONS"].append(dict(name="NEW", code=52, operands=("local s",)))
    assert gen.fingerprint(other) != base
    # A body, a doc, an internal instruction or a superinstruction is no file format.
    other = copy.deepcopy(ns)
    for i in other["INSTRUCTIONS"]:
        i["body"], i["doc"] = "pass", "x"
    other["INSTRUCTIONS"].append(dict(name="NEW", code=199, operands=("local s",)))
    other["FUSED"].clear()
    assert gen.fingerprint(other) == base
