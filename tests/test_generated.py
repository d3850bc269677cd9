"""The fast dispatch loops are generated from the readable ones (tools/gen_dispatch.py):
they must be current, and they must behave exactly like the loops they come from."""

import io

import pytest

from synsema.compiler import compile_source
from synsema.vm import loop, loop_fast, loop_labels, loop_labels_fast
from synsema.vm.errors import SynError
from synsema.vm.machine import VM, Options

from conftest import ROOT, load_script


def _gen():
    return load_script("tools/gen_dispatch.py")


def test_generated_loops_are_current():
    stale = _gen().main(check=True)
    assert stale == [], f"run `python tools/gen_dispatch.py`: {stale} are out of date"


def test_every_handler_of_the_readable_loop_is_in_the_fast_loop():
    gen = _gen()
    for src, dst in gen.PAIRS:
        _, blocks, _, _ = gen.parse((ROOT / src).read_text().split("\n"))
        names = {name.strip() for _, names, _ in blocks for name in names.split(",")}
        text = (ROOT / dst).read_text()
        for name in names:
            assert f"# {name} (" in text, f"{dst} lacks {name}"


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
]


def _run(source, runner, labels):
    prog = compile_source(source, "t.syn")
    out = io.StringIO()
    vm = VM(prog, Options(labels=labels, out=out.write))
    vm._run = runner
    try:
        runner(vm, vm.tasks.get(0) or _main(vm), [])
    except SynError as e:
        return out.getvalue(), e.message
    return out.getvalue(), None


def _main(vm):
    from synsema.vm.values import Closure
    return Closure(vm.program.main)


@pytest.mark.parametrize("source", PROGRAMS)
def test_fast_loops_agree_with_the_readable_loops(source):
    assert _run(source, loop_fast.run_plain, False) == _run(source, loop.run_plain, False)
    assert (_run(source, loop_labels_fast.run_labels, True)
            == _run(source, loop_labels.run_labels, True))
    # Labels on or off, a program without private data prints the same.
    if "private" not in source:
        assert _run(source, loop_fast.run_plain, False) == \
            _run(source, loop_labels_fast.run_labels, True)


def test_one_program_runs_in_plain_and_labels_vms_side_by_side():
    prog = compile_source(PROGRAMS[0] + PROGRAMS[4].replace("task risky", "task risky2")
                          .replace("risky(", "risky2("), "t.syn")
    outs = []
    for labels in (False, True, False, True):
        out = io.StringIO()
        VM(prog, Options(labels=labels, out=out.write)).run_main()
        outs.append(out.getvalue())
    assert outs[0] == outs[1] == outs[2] == outs[3] == "144\n012[big 3][big 4]\n"
