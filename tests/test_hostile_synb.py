"""Hostile .synb files (in the manner of Lua's test suite): every truncation, every byte
flip, wrong headers, garbage, deep nesting, huge lengths, wrong shapes and correctly
hashed but bad code must all be refused with InvalidProgram, and nothing else."""
import hashlib
import importlib.util
import os
import random
import subprocess
from pathlib import Path

import msgpack
import pytest

from synsema.vm import opcodes as O
from synsema.vm.errors import InvalidProgram

pytestmark = pytest.mark.skipif(importlib.util.find_spec("synsema.vm.codec") is None,
                                reason="vm/codec.py does not exist yet")

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = str(Path(__file__).resolve().parent.parent.parent / "shared" / "seeds" / "tool-calling.syn")
SYN = os.path.join(os.path.dirname(HERE), ".venv", "bin", "syn")

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

@pytest.mark.skipif(not os.path.exists(SYN), reason="the syn command is not installed yet")
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
    r = subprocess.run([SYN, "exec", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.startswith("not a valid .synb:"), r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
