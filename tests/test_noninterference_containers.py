"""Non-interference with precise containers (SPEC 10): generated programs build lists and
maps that mix secret and public elements, move elements around with the operations that
keep each element's own label (indexing, fields, get, put, append, set of an element,
for each, len, keys, type_of, contains of a map's key, slice, reverse, +, remove, values,
call/call_tool argument maps), under branches on the secrets and
inside try blocks, then print every public read they can. Run in pairs that differ only in
the secrets (tests/ni_gen.py's judge): whenever both runs finish, their output must be the
same."""

import os
import random

import pytest

import ni_gen

PROGRAMS = int(os.environ.get("SYN_NI_CONTAINER_PROGRAMS", "160"))
SEED = int(os.environ.get("SYN_NI_SEED", "0"))

SECRET_VALUES = [("1", "2"), ("0", "5"), ('"p"', '"q"'), ("true", "false"), ("[1]", "[1, 2]"),
                 ('{"k": 1}', '{"k": 1, "j": 2}')]


def _program(rng):
    lines = ['task note(v = "d")', "    require stdout", '    print("default ran")', "    give v",
             "task pair(a, b = 0)", "    give [a, b]",
             'let sa be private(@A@, "a")', 'let sb be private(@B@, "b")',
             'let xs be [1, sa, "t"]', 'let m be {"p": 0, "s": sa, "q": sb}',
             'let ys be [m, [sb, 2]]', "let n be 0"]
    body = []
    idx = ["0", "1", "2", "-1", "len(xs) - 1"]
    keys = ['"p"', '"s"', '"q"', '"zz"']

    def op():
        c = rng.randrange(18)
        if c == 0:
            return f"set xs to append(xs, {rng.choice(['sa', '7', 'sb'])})"
        if c == 1:
            return f"set m to put(m, {rng.choice(keys)}, {rng.choice(['sa', '3', 'sb'])})"
        if c == 2:
            return f"set xs[{rng.choice(idx[:3])}] to {rng.choice(['sb', '9'])}"
        if c == 3:
            return f"set m[{rng.choice(keys)}] to {rng.choice(['sa', '4'])}"
        if c == 4:
            return f"set n to n + len({rng.choice(['xs', 'm', 'keys(m)'])})"
        if c == 5:
            return f"let r{len(body)} be get(m, {rng.choice(keys)}, 0)"
        if c == 6:
            return f"let c{len(body)} be call(pair, {{\"a\": m.p, \"b\": {rng.choice(['sa', '1'])}}})"
        if c == 7:
            arg = rng.choice(["m", "{}", 'private({}, "a")'])
            return f"let d{len(body)} be call_tool(note, {arg})"
        if c == 8:
            return "set ys to [m, xs]"
        if c == 9:
            return f"set xs to [ys[1][1], {rng.choice(['sa', '5'])}, m.p]"
        if c == 10:
            return "for each x in xs\n    set n to n + 1"
        if c == 11:
            cond = rng.choice(["sa == 1", "sb == 2", "len(xs) > 3", 'contains(m, "zz")',
                               'type_of(m.s) == "list"', 'contains(xs, 1)'])
            return f"when {cond}\n    set xs to [0]"
        if c == 12:
            return f"try\n    let z{len(body)} be xs[{rng.choice(['sa', '5', '1'])}]\nrecover e\n    set n to n + 1"
        if c == 14:     # slice, reverse, +, remove and values keep each element's label
            bound = rng.choice(["1", "0", "-1", "sa", "len(xs) - 2"])
            moved = ["slice(xs, " + bound + ")", "reverse(xs)", "xs + [sb, 3]", "[sa] + xs",
                     "xs + slice(xs, " + bound + ")"]
            return f"set xs to {rng.choice(moved)}"
        if c == 15:
            return f"try\n    set xs to remove(xs, {rng.choice(['0', '1', 'sa', '-1'])})\n" \
                   "recover e\n    set n to n + 1"
        if c == 16:
            return f"set m to remove(m, {rng.choice(keys + ['sb'])})"
        if c == 17:
            return "set xs to values(m)"
        return "when sa == 1\n    let inner be [1, 2]\n    print(len(inner))"

    for _ in range(rng.randrange(3, 9)):
        body.extend(op().split("\n"))
    reads = ["xs[0]", "xs[-1]", "m.p", 'm["zz"]', 'get(m, "p", 0)', "len(xs)", "len(m)",
             "keys(m)", "n", "ys[1][1]", "ys[0].p", 'contains(m, "p")', 'contains(m, "zz")',
             "type_of(m)", "type_of(ys[0])", "type_of(xs[1])", "contains(xs, 1)"]
    for r in rng.sample(reads, 6):
        body.append(f"try\n    print({r})\nrecover e\n    print(\"no\")")
    return "\n".join(lines + "\n".join(body).split("\n")) + "\n"


@pytest.mark.parametrize("chunk", range(4))
def test_container_programs_show_the_same_public_output(chunk):
    per = PROGRAMS // 4
    compared = 0
    for s in range(SEED + chunk * per, SEED + (chunk + 1) * per):
        rng = random.Random(s)
        template = _program(rng)
        pair = (rng.choice(SECRET_VALUES), rng.choice(SECRET_VALUES))
        why, r1, r2, final = ni_gen.check(template, pair)
        assert r1 is not None and r2 is not None, f"seed {s} does not compile:\n{template}"
        assert r1.code != 70 and r2.code != 70, f"seed {s}: internal error {r1} {r2}"
        assert why is None, f"seed {s}: {why}\n{ni_gen.fill(final, pair[0][0], pair[1][0])}\n{r1}\n{r2}"
        compared += r1.completed and r2.completed
    assert compared >= per // 4, f"only {compared} of {per} pairs were compared in full"


def test_the_programs_do_depend_on_the_secrets():
    """Without labels, some of the same programs print differently (the test is not vacuous)."""
    leaks = 0
    for s in range(SEED, SEED + 40):
        rng = random.Random(s)
        template = _program(rng)
        pair = (rng.choice(SECRET_VALUES), rng.choice(SECRET_VALUES))
        if ni_gen.check(template, pair, prune=0, labels=False)[0]:
            leaks += 1
    assert leaks >= 5
