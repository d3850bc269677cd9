"""The msgpack of a .synb file, read without the msgpack package.

Importing msgpack (with the datetime, struct and collections it loads) was about 3 ms of
the 20 that `syn exec` of a small program may take (issue 31); the writer, vm.codec.encode,
still uses it. This reader takes what msgpack.unpackb(data, raw=False, use_list=True,
ext_hook=...) gives for the kinds of value the .synb grammar (vm/codec.py) holds, and
refuses the rest, each refusal a Malformed with its reason:

    nil, false, true                      None, False, True
    positive and negative fixint, uint 8-64, int 8-64      int
    float 32, float 64                    float
    fixstr, str 8-32                      str (strict UTF-8)
    bin 8-32                              bytes
    fixarray, array 16-32                 list
    fixext 1-16, ext 8-32                 ext_hook(type, data)

A map (which no .synb holds), the never-used byte 0xc1, a length past the end of the data
(Truncated), bytes after the value (ExtraData) and arrays nested deeper than MAX_DEPTH
(TooDeep: a .synb nests five deep) are refused. It reads with a stack of its own, never
recursing, and allocates nothing for a length before the data for it is there.
"""

# Deeper than any .synb (five levels: file, payload, functions, a function, its parameters).
MAX_DEPTH = 32


class Malformed(Exception):
    """Not msgpack of the kinds a .synb holds; str(e) says why."""


class Truncated(Malformed):
    """The data ends inside a value."""


class ExtraData(Malformed):
    """Bytes follow the value."""


class TooDeep(Malformed):
    """Arrays nested deeper than MAX_DEPTH."""


# A head byte's value kind and how many bytes hold its length (or its value).
_UINT = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}
_INT = {0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}
_STR = {0xd9: 1, 0xda: 2, 0xdb: 4}
_BIN = {0xc4: 1, 0xc5: 2, 0xc6: 4}
_ARRAY = {0xdc: 2, 0xdd: 4}
_FIXEXT = {0xd4: 1, 0xd5: 2, 0xd6: 4, 0xd7: 8, 0xd8: 16}
_EXT = {0xc7: 1, 0xc8: 2, 0xc9: 4}
_CONST = {0xc0: None, 0xc2: False, 0xc3: True}


def unpack(data, ext_hook):
    """The value the msgpack bytes `data` hold (see the module's docstring)."""
    n = len(data)
    pos = 0
    stack = []          # [list being filled, items still to read], innermost last

    def take(count):
        nonlocal pos
        if count > n - pos:
            raise Truncated("the data ends inside a value")
        start = pos
        pos += count
        return data[start:pos]

    def length(size):
        return int.from_bytes(take(size), "big")

    while True:
        if pos >= n:
            raise Truncated("the data ends inside a value")
        b = data[pos]
        pos += 1
        items = None
        if b <= 0x7f:
            value = b
        elif b >= 0xe0:
            value = b - 0x100
        elif 0xa0 <= b <= 0xbf:
            value = _text(take(b & 0x1f))
        elif 0x90 <= b <= 0x9f:
            value, items = [], b & 0x0f
        elif b in _CONST:
            value = _CONST[b]
        elif b in _UINT:
            value = length(_UINT[b])
        elif b in _INT:
            value = int.from_bytes(take(_INT[b]), "big", signed=True)
        elif b in _STR:
            value = _text(take(length(_STR[b])))
        elif b in _BIN:
            value = take(length(_BIN[b]))
        elif b in _ARRAY:
            value, items = [], length(_ARRAY[b])
        elif b == 0xca or b == 0xcb:
            import struct           # only for a float: off the start-up of most programs
            value = struct.unpack(">f" if b == 0xca else ">d", take(4 if b == 0xca else 8))[0]
        elif b in _FIXEXT or b in _EXT:
            size = _FIXEXT[b] if b in _FIXEXT else length(_EXT[b])
            code = take(1)[0]
            value = ext_hook(code - 0x100 if code > 0x7f else code, take(size))
        elif 0x80 <= b <= 0x8f or b == 0xde or b == 0xdf:
            raise Malformed("a map, which a .synb never holds")
        else:
            raise Malformed(f"byte 0x{b:02x} starts no msgpack value")
        if stack:
            top = stack[-1]
            top[0].append(value)
            top[1] -= 1
        else:
            root = value
        if items:
            if len(stack) >= MAX_DEPTH:
                raise TooDeep(f"arrays nested more than {MAX_DEPTH} deep")
            if items > n - pos:         # every item takes a byte at least
                raise Truncated("the data ends inside an array")
            stack.append([value, items])
        while stack and stack[-1][1] == 0:
            stack.pop()
        if not stack:
            break
    if pos != n:
        raise ExtraData(f"{n - pos} bytes follow the value")
    return root


def _text(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Malformed(f"a text is not UTF-8: {e.reason} at byte {e.start}") from None
