"""vm.unpack, the .synb loader's msgpack reader, against the msgpack package: every value
of the kinds a .synb holds reads the same, and any bytes either reader refuses (or reads
to something else than a .synb holds) the other refuses too."""

import math
import random

import msgpack
import pytest

from synsema.vm import unpack as U


class Ext:
    def __init__(self, code, data):
        self.code, self.data = code, data

    def __eq__(self, other):
        return type(other) is Ext and (self.code, self.data) == (other.code, other.data)

    def __repr__(self):
        return f"Ext({self.code}, {self.data!r})"


def _ours(data):
    return U.unpack(data, Ext)


def _theirs(data):
    return msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True, ext_hook=Ext)


def _value(rng, depth=0):
    kind = rng.randrange(10 if depth < 3 else 8)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randrange(-2 ** 63, 2 ** 64) >> rng.randrange(64)
    if kind == 2:
        return -rng.randrange(2 ** rng.randrange(1, 64))
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, 1e30, -2.5e-30, math.inf, rng.random()])
    if kind == 4:
        return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0xa0, 0xd7ff),
                                       rng.randrange(0x10000, 0x10ffff)]))
                       for _ in range(rng.choice([0, 1, 5, 31, 32, 300])))
    if kind == 5:
        return rng.randbytes(rng.choice([0, 1, 255, 256, 65536]))
    if kind == 6:
        return msgpack.ExtType(rng.choice([1, 5, 127]),
                               rng.randbytes(rng.choice([1, 2, 4, 8, 16, 3, 300])))
    if kind == 7:
        return rng.randrange(128)
    return [_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 2, 15, 16]))]


def _plain(v):
    if type(v) is msgpack.ExtType:
        return Ext(v.code, v.data)
    if type(v) is list:
        return [_plain(x) for x in v]
    return v


def test_values_read_as_msgpack_reads_them():
    rng = random.Random(31)
    for _ in range(600):
        v = _value(rng)
        for single_float in (False, True):
            data = msgpack.packb(v, use_bin_type=True, use_single_float=single_float)
            got = _ours(data)
            assert repr(got) == repr(_theirs(data)) and got == _plain(_theirs(data))


def _outcome(read, data):
    try:
        return "ok", read(data)
    except U.Malformed:
        return "refused", None
    except Exception:  # noqa: BLE001 - msgpack raises many kinds
        return "refused", None


def _holds_only_synb_kinds(v, depth=0):
    """What a .synb may hold: no map, no msgpack Timestamp, nesting within MAX_DEPTH."""
    if type(v) is list:
        return depth < U.MAX_DEPTH and all(_holds_only_synb_kinds(x, depth + 1) for x in v)
    return type(v) in (type(None), bool, int, float, str, bytes, Ext)


@pytest.mark.parametrize("seed", range(4))
def test_damaged_and_random_bytes_are_refused_as_msgpack_refuses_them(seed):
    rng = random.Random(seed)
    good = [msgpack.packb(_value(rng), use_bin_type=True) for _ in range(40)]
    for _ in range(3000):
        pick = rng.randrange(4)
        if pick == 0:
            data = rng.randbytes(rng.randrange(1, 40))
        else:
            data = bytearray(rng.choice(good))
            if pick == 1 and data:
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif pick == 2:
                data = data[:rng.randrange(len(data) + 1)]
            else:
                data += bytes([rng.randrange(256)])
            data = bytes(data)
        ours, theirs = _outcome(_ours, data), _outcome(_theirs, data)
        if theirs[0] == "ok" and _holds_only_synb_kinds(theirs[1]):
            assert repr(ours) == repr(theirs), data     # repr: nan is nan
        else:
            assert ours[0] == "refused", data


def test_what_a_synb_never_holds_is_refused():
    for data, kind in ((msgpack.packb({"a": 1}), U.Malformed),
                       (b"\xc1", U.Malformed),
                       (b"\x91" * (U.MAX_DEPTH + 1) + b"\xc0", U.TooDeep),
                       (b"\x92\x01", U.Truncated),
                       (b"\xdd\xff\xff\xff\xff" + b"\x00" * 16, U.Truncated),
                       (b"\xc6\xff\xff\xff\xff", U.Truncated),
                       (b"\x01\x02", U.ExtraData),
                       (b"\xa2\xff\xfe", U.Malformed),
                       (b"", U.Truncated)):
        with pytest.raises(kind):
            _ours(data)
    assert _ours(b"\x91" * U.MAX_DEPTH + b"\xc0") is not None
