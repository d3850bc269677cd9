"""Hostile .synb files (in the manner of Lua's test suite): every truncation, every byte
flip, wrong headers, garbage, deep nesting, huge lengths, wrong shapes and correctly
hashed but bad code must all be refused with InvalidProgram, and nothing else."""
import hashlib
import os
import random
import subprocess
from pathlib import Path

import msgpack
import pytest

from conftest import syn_command
from synsema.vm import opcodes as O
from synsema.vm.errors import InvalidProgram
from synsema.vm.program import Param


HERE = os.path.dirname(os.path.abspath(__file__))
SEED = str(Path(__file__).resolve().parent.parent.parent / "shared" / "seeds" / "tool-calling.syn")

FALLBACK_SOURCE = '''intent: "hostile-file tests"
require stdout

task get_weather(city, units = "celsius")
    give "weather in " + city + ": sunny (" + units + ")"

task safe(f)
    try
        give f()
    recover err
        give err

let total be 0
for each x in [1, 2, 3]
    when x == 2
        continue
    set total to total + x
print(get_weather("Lima"))
print(safe(() => fail("no")))

test "weather"
    assert_eq(get_weather("Paris", "c"), "weather in Paris: sunny (c)")
'''


def _codec():
    from synsema.vm import codec
    return codec


@pytest.fixture(scope="module")
def compiled():
    from synsema.compiler import compile_source
    if os.path.exists(SEED):
        with open(SEED, encoding="utf-8") as fh:
            return compile_source(fh.read(), "tool-calling.syn")
    return compile_source(FALLBACK_SOURCE, "hostile.syn")


@pytest.fixture(scope="module")
def good(compiled):
    return _codec().encode(compiled)


def refused(data):
    """decode(data) must raise InvalidProgram, with a reason, and nothing else."""
    try:
        _codec().decode(data)
    except InvalidProgram as e:
        assert isinstance(e.reason, str) and e.reason
        return e.reason
    except BaseException as e:  # noqa: BLE001 - anything else is the failure we look for
        raise AssertionError(f"decode raised {type(e).__name__}: {e}") from e
    raise AssertionError("decode accepted a hostile file")


def test_the_good_file_loads(good, compiled):
    codec = _codec()
    prog = codec.decode(good)
    assert codec.encode(prog) == good
    assert len(prog.functions) == len(compiled.functions)
    assert all(f.max_stack >= 1 for f in prog.functions)


def test_every_truncated_prefix(good):
    for n in range(len(good)):
        refused(good[:n])


def _positions(size, limit=2000):
    if size <= limit:
        return range(size)
    rng = random.Random(1234)
    picked = set(range(64)) | set(range(size - 64, size))
    picked.update(rng.sample(range(size), limit - len(picked)))
    return sorted(picked)


@pytest.mark.parametrize("mask", [0xFF, 0x01, 0x80])
def test_every_byte_flip(good, mask):
    for i in _positions(len(good)):
        b = bytearray(good)
        b[i] ^= mask
        refused(bytes(b))


def test_empty_file():
    assert "empty" in refused(b"")


def test_garbage():
    refused(b"\x00garbage, not msgpack at all")
    refused(b"SYNB\r\n\x1a\n")
    refused(b"#!/usr/bin/env syn\nprint(1)\n")
    rng = random.Random(7)
    for _ in range(200):
        refused(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))))


def test_wrong_magic(good):
    codec = _codec()
    outer = msgpack.unpackb(good, raw=False)
    for magic in (b"SYNB\n\x1a\n", b"SYNX\r\n\x1a\n", "SYNB\r\n\x1a\n", None, 0):
        outer[0] = magic
        assert "magic" in refused(msgpack.packb(outer, use_bin_type=True))
    # A copy that went through a text-mode newline conversion.
    assert codec.MAGIC in good
    mangled = good.replace(b"\r\n", b"\n", 1)
    refused(mangled)


def test_wrong_format_version(good):
    codec = _codec()
    outer = msgpack.unpackb(good, raw=False)
    payload = outer[3]
    for version in (codec.FORMAT_VERSION + 1, 0, 999):
        reason = refused(codec.wrap(payload, version))
        assert str(version) in reason and str(codec.FORMAT_VERSION) in reason, reason
    outer[1] = "1"
    refused(msgpack.packb(outer, use_bin_type=True))


def test_bad_hash(good):
    outer = msgpack.unpackb(good, raw=False)
    outer[2] = hashlib.sha256(b"something else").digest()
    assert "sha256" in refused(msgpack.packb(outer, use_bin_type=True))
    outer[2] = b"short"
    refused(msgpack.packb(outer, use_bin_type=True))


def test_deeply_nested_msgpack():
    codec = _codec()
    deep = b"\x91" * 100_000 + b"\xc0"       # 100,000 nested one-item arrays
    refused(deep)
    refused(codec.wrap(deep))                 # correctly hashed, nested payload
    refused(b"\x81\xa1k" * 50_000 + b"\xc0")  # nested maps


def test_huge_declared_lengths():
    codec = _codec()
    for head in (b"\xdd\xff\xff\xff\xff",        # array32 of 4 billion items
                 b"\xdf\xff\xff\xff\xff",        # map32
                 b"\xc6\xff\xff\xff\xff",        # bin32 of 4 GB
                 b"\xdb\xff\xff\xff\xff"):       # str32
        refused(head)
        refused(head + b"\x00" * 16)
        refused(codec.wrap(head))


def test_valid_msgpack_of_the_wrong_shape(good):
    codec = _codec()
    for obj in ({"magic": "SYNB"}, [], [1, 2, 3], [codec.MAGIC], "text", 42, None, 1.5,
                [codec.MAGIC, codec.FORMAT_VERSION, b"x" * 32, b"", b"extra"]):
        refused(msgpack.packb(obj, use_bin_type=True))
    # Correctly hashed payloads of the wrong shape.
    body = msgpack.unpackb(msgpack.unpackb(good, raw=False)[3], raw=False)
    for payload in ([], [1] * 9, body[:8], body + [None], {"a": 1}, "x",
                    [body[0], body[1], body[2], body[3], body[4], body[5], body[6], [], []],
                    [body[0], body[1], 7] + body[3:],
                    body[:7] + [[["x"] * 11]] + body[8:],
                    body[:7] + [[body[7][0][:10]]] + body[8:]):
        refused(codec.wrap(msgpack.packb(payload, use_bin_type=True)))


def _rewrapped(compiled, change):
    """A correctly hashed file of a copy of `compiled` after change(copy)."""
    codec = _codec()
    import copy
    prog = copy.deepcopy(compiled)
    change(prog)
    return codec.wrap(codec.payload_of(prog))


def test_correctly_hashed_but_bad_code(compiled):
    def bad_jump(p):
        f = next(f for f in p.functions if f.kind == "task")
        f.code[:0] = [O.JUMP, len(f.code) + 50]  # jump past the end
    assert "past the end" in refused(_rewrapped(compiled, bad_jump))

    def mid_jump(p):
        p.functions[0].code[:0] = [O.JUMP, 3]
        p.functions[0].code[2:2] = [O.CONST, 0]
    assert "inside an instruction" in refused(_rewrapped(compiled, mid_jump))

    def underflow(p):
        # A whole new top level (inserting into the old one would also misalign its jumps,
        # which the verifier reports first).
        p.functions[0].code = [O.POP, O.CONST, 0, O.RETURN]
        p.functions[0].positions = [(0, 1, 1)]
    assert "underflow" in refused(_rewrapped(compiled, underflow))

    def internal(p):
        p.functions[0].code[:0] = [O.JUMP_BACK, 0]
    assert "internal opcode" in refused(_rewrapped(compiled, internal))

    def const_range(p):
        p.functions[0].code[:0] = [O.CONST, len(p.consts) + 5, O.POP]
    assert "out of range" in refused(_rewrapped(compiled, const_range))

    def no_return(p):
        p.functions[-1].code[-1:] = [O.POP]
    assert "falls off the end" in refused(_rewrapped(compiled, no_return))

    def unknown_builtin(p):
        p.builtins.append("rm_rf")
    assert "rm_rf" in refused(_rewrapped(compiled, unknown_builtin))

    def bad_test(p):
        p.tests.append(("nope", 0))
    assert "not a test" in refused(_rewrapped(compiled, bad_test))


def test_rehashed_payload_flips_never_escape(good):
    """Flip bytes inside the payload and fix the hash: the reader and verifier must either
    refuse the file or return a program that verified; never another exception."""
    codec = _codec()
    payload = msgpack.unpackb(good, raw=False)[3]
    for i in _positions(len(payload), 600):
        for mask in (0xFF, 0x01):
            b = bytearray(payload)
            b[i] ^= mask
            try:
                prog = codec.decode(codec.wrap(bytes(b)))
            except InvalidProgram:
                continue
            assert all(f.max_stack >= 1 for f in prog.functions)


# ---- the command line ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["truncated", "flipped", "garbage", "bad_code", "empty"])
def test_syn_exec_refuses_cleanly(tmp_path, good, compiled, kind):
    if kind == "truncated":
        data = good[: len(good) // 2]
    elif kind == "flipped":
        b = bytearray(good)
        b[len(b) // 2] ^= 0xFF
        data = bytes(b)
    elif kind == "garbage":
        data = b"\x91" * 100_000 + b"\xc0"
    elif kind == "empty":
        data = b""
    else:
        data = _rewrapped(compiled, lambda p: p.functions[0].code.__setitem__(
            slice(0, 0), [O.JUMP, 1]))
    path = tmp_path / "bad.synb"
    path.write_bytes(data)
    r = subprocess.run(syn_command() + ["exec", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.startswith("not a valid .synb:"), r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout


# ---- crafted operands the verifier must refuse (SPEC 12) -----------------------------------
# Each file below is well formed and correctly hashed, and each passed an earlier verifier
# although the VM could not run it safely: it emptied the shared value stack, indexed past
# a list (exit 70), or let a task tell which way a labelled branch went. Each is now
# refused as `not a valid .synb: REASON`, exit 1.

def _crafted_program(src, edit):
    from synsema.compiler import compile_source
    prog = compile_source(src, "crafted.syn")
    edit(prog)
    return prog


def _task(p, name="f"):
    return next(f for f in p.functions if f.name == name and f.kind == "task")


def _set_code(func, code):
    func.code = code
    func.positions = [(0, func.line, 1)]


def _drop_under_zero(p):
    # `del stack[-0:]` empties the stack the caller's pending `1 +` is on.
    _set_code(_task(p), [O.CONST, p.consts.index(1), O.DROP_UNDER, 0, O.RETURN])


def _main_locals_past_the_globals(p):
    # The top level's locals are the globals: slot 1 of a 1-global program is past them.
    main = p.functions[0]
    main.nlocals = 2
    _set_code(main, [O.CONST, p.consts.index(1), O.DECLARE_LOCAL, 1,
                     O.CONST, p.consts.index(None), O.RETURN])


def _test_with_a_parameter(p):
    t = next(f for f in p.functions if f.kind == "test")
    t.params = [Param("x")]
    t.nlocals = 1


def _jump_if_set_on_a_global(p):
    # Branch on whether the `let` inside the labelled `when` ran: no pc label would see it.
    main = p.functions[0]
    end = len(main.code) - 3            # the closing CONST nothing; RETURN
    main.code[end:end] = [O.JUMP_IF_SET, p.globals.index("y"), end + 3]


def _task_reads_a_global_declared_in_a_block(p):
    _set_code(_task(p), [O.LOAD_GLOBAL, p.globals.index("y"), O.RETURN])


def _load_global_in_the_top_level(p):
    _set_code(p.functions[0], [O.LOAD_GLOBAL, p.globals.index("s"), O.RETURN])


def _task_sets_a_global(p):
    one = p.consts.index(1)
    _set_code(_task(p), [O.CONST, one, O.STORE_GLOBAL, p.globals.index("s"),
                         O.CONST, one, O.RETURN])


def _lambda_with_let_slots(p):
    lam = next(f for f in p.functions if f.kind == "lambda")
    lam.nlocals += 1
    _set_code(lam, [O.LOAD_LOCAL, 0, O.DECLARE_LOCAL, lam.nlocals - 1,
                    O.LOAD_LOCAL, lam.nlocals - 1, O.RETURN])


def _locals_nothing_declares(p):
    _task(p).nlocals = 60_000       # every call would allocate them


def _keyword_task_name(p):
    _task(p).name = "give"


def _keyword_parameter(p):
    _task(p, "g").params[0].name = "nothing"


def _keyword_global(p):
    p.globals[p.globals.index("s")] = "when"


BLOCK_SRC = ('let s be private(true, "c")\nwhen s\n    let y be 1\ntask f()\n    give 1\n'
             'print(1 + f())\n')

CRAFTED = {
    "drop_under_zero": (BLOCK_SRC, _drop_under_zero,
                        "DROP_UNDER needs at least one value to drop"),
    "main_locals": ("let x be 1\nprint(x)\n", _main_locals_past_the_globals,
                    "the top level has 2 locals, but its locals are the program's 1 globals"),
    "test_param": ('test "t"\n    assert(true)\n', _test_with_a_parameter,
                   "test 't': a test takes no parameters"),
    "jump_if_set_global": (BLOCK_SRC, _jump_if_set_on_a_global,
                           "JUMP_IF_SET tests local 1, which is not a parameter with a "
                           "default"),
    "block_global": (BLOCK_SRC, _task_reads_a_global_declared_in_a_block,
                     "in task f, offset 0: LOAD_GLOBAL names top-level variable 'y', which "
                     "is not declared at the top level outside every block"),
    "global_in_main": (BLOCK_SRC, _load_global_in_the_top_level,
                       "LOAD_GLOBAL in the top level, whose variables are its locals"),
    "task_sets_global": (BLOCK_SRC, _task_sets_a_global,
                         "STORE_GLOBAL sets top-level variable 's'; only the top level"),
    "lambda_lets": ("let g be (a) => a\nprint(g(1))\n", _lambda_with_let_slots,
                    "a lambda's locals are its 1 parameters and 0 captures"),
    # the compiler's names are never keywords: --call give would run a task no source has
    "keyword_task": (BLOCK_SRC, _keyword_task_name, "(task) has the name 'give'"),
    "keyword_param": ("task g(x)\n    give x\nprint(g(1))\n", _keyword_parameter,
                      "task g: a parameter is malformed"),
    "keyword_global": (BLOCK_SRC, _keyword_global,
                       "global 0 has a name that is not a name: 'when'"),
    "undeclared_locals": (BLOCK_SRC, _locals_nothing_declares,
                          "in task f: 60000 `let` slots (locals past the parameters and "
                          "captures), but 0 DECLARE_LOCAL of them"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_operands_are_refused(name):
    src, edit, reason = CRAFTED[name]
    data = _codec().encode(_crafted_program(src, edit))
    got = refused(data)
    assert reason in got, got


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_syn_exec_refuses_crafted_operands(tmp_path, name):
    src, edit, reason = CRAFTED[name]
    path = tmp_path / "crafted.synb"
    path.write_bytes(_codec().encode(_crafted_program(src, edit)))
    for labels in ([], ["--labels"]):
        r = subprocess.run(syn_command() + ["exec", str(path), *labels], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert r.stderr.startswith("not a valid .synb: ") and reason in r.stderr, r.stderr
        assert r.stdout == "" and "Traceback" not in r.stderr


def test_the_crafted_sources_run_as_compiled(tmp_path):
    """The unedited programs are fine: the refusals above are the edits'."""
    codec = _codec()
    for src, _, _ in CRAFTED.values():
        prog = _crafted_program(src, lambda p: None)
        codec.decode(codec.encode(prog))


# ---- what a small file can make the loader allocate ---------------------------------------

def _hand_made(functions, code=None):
    from synsema.vm.program import Function, Program
    p = Program("big.syn")
    p.consts = [None]
    main = Function("<top level>", "main", 1)
    main.code = code or [O.CONST, 0, O.RETURN]
    p.functions = [main, *functions]
    return p


def _wide_task(name, nlets, nparams=255):
    """A task of nparams optional parameters and nlets `let` slots."""
    from synsema.vm.program import Function
    f = Function(name, "task", 2)
    f.params = [Param(f"p{i}", None, Param.DEFAULT_NOTHING) for i in range(nparams)]
    f.nlocals = nparams + nlets
    code = []
    for slot in range(nparams, nparams + nlets):
        code += [O.CONST, 0, O.DECLARE_LOCAL, slot]
    f.code = code + [O.CONST, 0, O.RETURN]
    return f


def _load_measured(data):
    """(reason or None, peak bytes traced) of decoding data."""
    import tracemalloc

    from synsema.stdlib.host import load_all
    load_all()                  # imported once, not counted
    tracemalloc.start()
    try:
        try:
            _codec().decode(data)
            reason = None
        except InvalidProgram as e:
            reason = e.reason
        return reason, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_frames_no_code_declares_are_refused_in_small_memory():
    # Ten tasks of 255 optional parameters and 65,536 locals: one frame pad per argument
    # count made 10 x 256 x 65,536 slots (1.3 GB) at load time, from a 30 kB file.
    funcs = [_wide_task(f"t{i}", 0) for i in range(10)]
    for f in funcs:
        f.nlocals = 65_536
    data = _codec().encode(_hand_made(funcs))
    assert len(data) < 40_000
    reason, peak = _load_measured(data)
    assert reason is not None and "would need 167772160 local slots" in reason, reason
    assert peak < 5_000_000, peak
    # One such task without parameters: each call would allocate 65,536 slots for a
    # function that declares none of them.
    f = _wide_task("t", 0, nparams=0)
    f.nlocals = 65_536
    reason, peak = _load_measured(_codec().encode(_hand_made([f])))
    assert reason is not None and "65536 `let` slots" in reason, reason
    assert "0 DECLARE_LOCAL" in reason and peak < 5_000_000, peak


def test_frames_too_wide_for_the_file_are_refused_in_small_memory():
    # Declared locals (each a DECLARE_LOCAL in the code) times 256 argument counts.
    data = _codec().encode(_hand_made([_wide_task("t", 5_000)]))
    assert len(data) < 40_000
    reason, peak = _load_measured(data)
    assert reason is not None and "would need 1345280 local slots" in reason, reason
    assert peak < 5_000_000, peak
    # The same task with a tenth of the `let`s is a fine program, and loads.
    assert _load_measured(_codec().encode(_hand_made([_wide_task("t", 500)])))[0] is None


def test_iterators_deep_in_the_stack_cost_the_verifier_nothing_extra():
    # 4,000 iterators made and dropped above 10,000 values: the flow check once kept a
    # bit mask per instruction as wide as the stack (1.25 kB each, 10 MB in all). Now it
    # costs no more than the same code without iterators (NOT; NEG for ITER_START).
    # (The flow check alone: tracemalloc slows the rest of the verifier ten times.)
    import tracemalloc

    from synsema.vm.verify import _check_code
    depth, loops = 10_000, 4_000

    def peak(middle):
        code = ([O.CONST, 0] * depth + [O.BUILD_LIST, 0, *middle, O.POP] * loops
                + [O.POP] * (depth - 1) + [O.RETURN])
        p = _hand_made([], code)
        tracemalloc.start()
        try:
            texts = [0] * (len(p.consts) + 1)
            assert _check_code(p, p.functions[0], 0, None, texts) == depth + 1
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak([O.ITER_START, 0]) < 1.2 * peak([O.NOT, O.NEG])
