"""What a program decodes to (each function's instruction list, superinstructions made) is
made once per program and mode and shared by every VM that runs it: a second run, or a
second Program.call, decodes nothing. Sharing is safe only while nothing that runs
changes it: these tests hold that."""

import copy
import threading

import synsema
from synsema.compiler import compile_source
from synsema.stdlib import registry
from synsema.stdlib.host import load_all
from synsema.vm import decode
from synsema.runtime.machine import VM
from synsema.vm.machine import Options

SOURCE = """\
task fib(n)
    when n < 2
        give n
    give fib(n - 1) + fib(n - 2)
let xs be []
for each i in range(8)
    set xs to append(xs, fib(i))
let m be {"a": 1}
set m["b"] to len(xs)
let f be (v) => v * 2
try
    print(f(xs[7]) + m.b + number("x"))
recover e
    print(upper(e))
print(xs)
"""


def vm_of(program, labels=False):
    out = []
    return VM(program, Options(out=out.append, labels=labels, timeout=10)), out


def run(program, labels=False):
    vm, out = vm_of(program, labels)
    vm.run_main()
    return "".join(out)


def counting_decodes(monkeypatch):
    calls = []
    real = decode.decode_function

    def counted(func, *args, **kw):
        calls.append(func)
        return real(func, *args, **kw)
    monkeypatch.setattr("synsema.vm.machine.decode_function", counted)
    return calls


def test_a_second_vm_decodes_nothing_and_runs_alike(monkeypatch):
    program = compile_source(SOURCE, "app.syn")
    calls = counting_decodes(monkeypatch)
    first = run(program)
    assert len(calls) == len(program.functions)
    assert run(program) == first
    assert len(calls) == len(program.functions)
    # The other mode is decoded once too, apart (the labels loop's code differs).
    assert run(program, labels=True) == first
    assert run(program, labels=True) == first
    assert len(calls) == 2 * len(program.functions)
    a, b = vm_of(program)[0], vm_of(program)[0]
    c = vm_of(program, labels=True)[0]
    for f in program.functions:
        assert a.decoded[f] is b.decoded[f] and a.decoded[f] is not c.decoded[f]


def test_what_a_program_decoded_goes_with_it():
    # vm.machine keeps it by id beside a weak reference (a WeakKeyDictionary's work,
    # without the weakref module): a later program given the same id decodes its own.
    import gc
    from synsema.vm import machine
    # The loop (tier 1): tier 2's own cache (vm.tier2._CACHE) keeps a program it translated.
    program = compile_source('let m be {"a": [1, 2]}\nprint(m)\n', "app.syn")
    before = dict(machine._DECODED)
    for labels in (False, True):
        VM(program, Options(out=[].append, labels=labels, tier=1)).run_main()
    assert set(machine._DECODED) - set(before) == {id(program)}
    assert set(machine._DECODED[id(program)][1]) == {False, True}
    del program
    gc.collect()
    assert set(machine._DECODED) <= set(before)
    for _ in range(20):             # ids of dead programs come back: never their code
        other, out = compile_source(f"print({_})\n", "b.syn"), []
        VM(other, Options(out=out.append, tier=1)).run_main()
        assert out == [f"{_}\n"]


def test_running_changes_nothing_decoded():
    program = compile_source(SOURCE, "app.syn")
    for labels in (False, True):
        vm, _ = vm_of(program, labels)
        before = {f: list(code) for f, code in vm.decoded.items()}
        pads = {f: dict(p) for f, p in vm.pads.items()}
        vm.run_main()
        run(program, labels)
        for f, code in vm.decoded.items():
            assert len(code) == len(before[f])
            assert all(x is y for x, y in zip(code, before[f])), f.name
        for f, p in vm.pads.items():        # a pad is only ever added, never changed
            assert all(p[n] is pad for n, pad in pads[f].items())


def test_each_vm_has_its_own_tables_for_the_plans_it_adopts():
    program = compile_source(SOURCE, "app.syn")
    a, b = vm_of(program)[0], vm_of(program)[0]
    other = compile_source("task g(x)\n    give x + 1\n", "plan.syn")
    a.adopt(other)
    assert other.functions[1] in a.decoded and other.functions[1] not in b.decoded
    assert all(f not in b.decoded for f in other.functions)


def test_a_changed_builtin_is_decoded_again(monkeypatch):
    program = compile_source('print(upper("a"))\n', "app.syn")
    assert run(program) == "A\n"
    entry = copy.copy(load_all()["upper"])
    entry.fn = lambda s: s.lower() + "!"
    monkeypatch.setitem(registry.BUILTINS, "upper", entry)
    assert run(program) == "a!\n"


def test_threads_share_one_program():
    program = compile_source(SOURCE, "app.syn")
    want = run(program)
    got, errors = [], []

    def worker(labels):
        try:
            for _ in range(5):
                got.append(run(program, labels))
        except Exception as e:      # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k % 2 == 1,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and got == [want] * 20


def test_program_call_again_decodes_nothing(monkeypatch, tmp_path):
    from synsema.vm.codec import encode
    path = tmp_path / "add.synb"
    path.write_bytes(encode(compile_source("task add(a: number, b: number)\n"
                                           "    give a + b\n", "add.syn")))
    prog = synsema.load(str(path))
    calls = counting_decodes(monkeypatch)
    assert prog.call("add", {"a": 2, "b": 3}).value == 5
    n = len(calls)
    assert n > 0
    assert prog.call("add", {"a": 4, "b": 3}).value == 7
    assert len(calls) == n
