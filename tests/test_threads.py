"""SPEC 16: a program object is immutable after loading, and runs of it never see each
other's state -- from any number of threads at once, with labels on in some and off in
others. Everything a run decodes lives on its VM (vm.machine), never on the Program."""

import copy
import sys
import threading

from synsema.compiler import compile_source
from synsema.vm import codec
from synsema.vm.machine import VM, Options
from synsema.vm.values import Labeled

SOURCE = """\
task collatz(n)
    let steps be 0
    let x be n
    while x != 1
        when x % 2 == 0
            set x to x / 2
        otherwise
            set x to 3 * x + 1
        set steps to steps + 1
    give steps

task fib(n)
    when n < 2
        give n
    give fib(n - 1) + fib(n - 2)

task safe_div(a, b)
    try
        give a / b
    recover e
        give "error: " + e

task cond(v)
    try
        when v
            give "yes"
        give "no"
    recover e
        give e

task compute(n, extra = 0)
    let f be (k) => fib(k) + n + extra
    let parts be []
    for each i in [1, 2, 3]
        set parts to append(parts, f(i))
    give [collatz(n), fib(n % 15), safe_div(n, n % 3), cond(n % 2 == 0), cond(n), parts]

task work(n, label)
    print(label + " " + text(n))
    give compute(n)

task mix(n)
    let f be (k) => k * n
    give [f(2), text(n) + "!", fib(10) + n, safe_div(n, 2)]
"""


def _expected(n):
    def collatz(x):
        steps = 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            steps += 1
        return steps

    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    div = "error: division by zero" if n % 3 == 0 else (n // (n % 3) if n % (n % 3) == 0
                                                      else n / (n % 3))
    return [collatz(n), fib(n % 15), div, "yes" if n % 2 == 0 else "no",
            "when needs a bool, got number", [fib(k) + n for k in (1, 2, 3)]]


def _expected_mix(n):
    return [2 * n, f"{n}!", 55 + n, n // 2 if n % 2 == 0 else n / 2]


def _snapshot(prog):
    """Everything on the Program and its Functions, to compare after running."""
    shape = {k: v for k, v in vars(prog).items() if k != "functions"}
    return copy.deepcopy((shape, [vars(f) for f in prog.functions]))


def test_one_program_runs_in_eight_threads_at_once():
    # Loaded from a .synb, as a host would: the verifier has run, nothing else has.
    prog = codec.decode(codec.encode(compile_source(SOURCE, "threads.syn")))
    before = _snapshot(prog)
    index = {f.name: i for i, f in enumerate(prog.functions) if f.kind == "task"}
    rounds = 25
    barrier = threading.Barrier(8)
    failures, checked = [], [0] * 8

    def worker(t):
        labels = t % 2 == 1
        try:
            barrier.wait()
            for r in range(rounds):
                n = 7 + t * 31 + r
                out = []
                vm = VM(prog, Options(labels=labels, out=out.append))   # while others run
                if labels and r % 2:
                    # Labelled data in, labelled result out, nothing printed.
                    got = vm.call(vm.tasks[index["mix"]], [Labeled(n, frozenset({"c"}))])
                    assert type(got) is Labeled and got.l == {"c"}, got
                    assert got.v == _expected_mix(n), (t, r, got.v)
                    assert out == []
                else:
                    got = vm.call(vm.tasks[index["work"]], [n, f"t{t}"])
                    assert got == _expected(n), (t, r, got)
                    assert out == [f"t{t} {n}\n"], out
                checked[t] += 1
        except BaseException as e:  # noqa: BLE001 - reported below, with its thread
            failures.append((t, repr(e)))
            barrier.abort()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)         # switch threads often, mid-instruction-sequence
    try:
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures
    assert checked == [rounds] * 8
    assert _snapshot(prog) == before        # running it left no trace on the Program


def test_frame_pads_are_made_for_the_argument_counts_used():
    prog = compile_source("task f(a, b = 1, c = 2, d = 3)\n    give a\nprint(f(1, 2))\n",
                          "pads.syn")
    f = next(f for f in prog.functions if f.name == "f")
    out = []
    vm = VM(prog, Options(out=out.append))
    assert set(vm.pads[f]) == {2}           # the one direct call's count, made at load
    vm.run_main()
    assert out == ["1\n"]
    two = vm.pads[f][2]
    assert vm.call(vm.tasks[prog.functions.index(f)], [5]) == 5
    assert set(vm.pads[f]) == {1, 2} and vm.pads[f][2] is two
    # Shared with the program's other VMs of the same mode (its decoded code holds them:
    # tests/test_decode_cache.py), never with the other mode's, never on the Program.
    assert VM(prog).pads[f] is vm.pads[f]
    assert VM(prog, Options(labels=True)).pads[f] is not vm.pads[f]
    assert not hasattr(f, "pads")


def test_a_builtin_calling_with_too_few_arguments_is_a_synsema_error(syn, write):
    # assert_error calls its task with no arguments: a lambda that needs one fails the
    # test with a Synsema error saying so (once a Python KeyError, an internal error; then
    # an arity error that counted as the error expected, so the test could not fail).
    path = write("t.syn", 'test "t"\n    assert_error((x) => x, "takes 1 argument, got 0")\n')
    r = syn("test", path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "this one needs 'x'; wrap the call in a lambda" in r.stdout
    assert "0 passed, 1 failed" in r.stdout and "Traceback" not in r.stdout + r.stderr


def _compile_outcome(source, name):
    """What compiling gives: the program's tasks and globals, or the errors' positions
    and messages."""
    from synsema.vm.errors import CompileError
    try:
        prog = compile_source(source, name)
    except CompileError as e:
        return ("error", e.source_name,
                [(x.line, x.col, x.message) for x in getattr(e, "errors", [e])])
    return ("ok", [f.name for f in prog.functions], list(prog.globals))


def _program(k):
    """A different program for each k: most compile, some have syntax errors (the parser's
    error path reads the tokens of its own parse), some name errors."""
    body = "".join(f"let v{k}_{j} be {j} + {k}\n" for j in range(k % 7 + 1))
    body += f"task t{k}(a, b = {k})\n    give a * b + v{k}_0\n"
    kind = k % 4
    if kind == 1:
        body += "\n" * (k % 5) + f"let w{k} be (1 +) * {k}\n"        # syntax error
    elif kind == 2:
        body += f"print(t{k}(1) t{k}(2))\n"                          # two expressions
    elif kind == 3:
        body += f"print(v{k}_{k % 7 + 5})\n"                           # not declared
    return body


def test_compiling_in_many_threads_at_once_gives_each_program_its_own_result():
    # The parser once kept its state in class attributes: a syntax error reported while
    # another thread parsed read that thread's tokens (wrong line, wrong message).
    sources = [_program(k) for k in range(120)]
    expected = [_compile_outcome(s, f"p{k}.syn") for k, s in enumerate(sources)]
    assert {e[0] for e in expected} == {"ok", "error"}
    failures = []
    barrier = threading.Barrier(8)

    def worker(t):
        try:
            barrier.wait()
            for rnd in range(6):
                for k in range(t, len(sources), 8):
                    k = (k + rnd * 13) % len(sources)
                    got = _compile_outcome(sources[k], f"p{k}.syn")
                    assert got == expected[k], (k, got, expected[k])
        except BaseException as e:  # noqa: BLE001 - reported below, with its thread
            failures.append((t, repr(e)))
            barrier.abort()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(300)
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:3]
