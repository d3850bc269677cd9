"""The .synb file: a compiled program, serialized with msgpack.

Grammar (every array is a msgpack array; `int` is a non-negative integer unless noted):

    file      := [MAGIC, FORMAT, HASH, PAYLOAD]
    MAGIC     := bin "SYNB\\r\\n\\x1a\\n"   (the \\r\\n and \\x1a catch newline-mangled copies)
    FORMAT    := int                       (FORMAT_VERSION below)
    HASH      := bin(32)                   sha256 of PAYLOAD's bytes
    PAYLOAD   := bin, itself the msgpack of
                 [LEVEL, SOURCE, INTENT, REQUIRES, CONSTS, BUILTINS, GLOBALS, FUNCTIONS, TESTS]
    LEVEL     := str                       language level compiled for ("0.6.46")
    SOURCE    := str                       the source file's base name
    INTENT    := str | nil
    REQUIRES  := [CAP...]      CAP := ["stdout"] | ["llm"] | ["llm", str] | ["net", str]
                                      | ["net", str host, str label] | ["tool", str]
    CONSTS    := [CONST...]    CONST := nil | bool | int (64-bit) | float | str
                                        | ext(1, decimal digits of a larger int)
    BUILTINS  := [str...]                  builtin names, by CALL_BUILTIN index
    GLOBALS   := [[str, int]...]           top-level variable name, line of its `let`
    FUNCTIONS := [FUNC...]                 FUNCTIONS[0] is the top level
    FUNC      := [str name, int kind, int line, int col, [PARAM...], int ncaptures,
                  int nlocals, REQUIRES, bin code, [int...] positions, [str...] local names]
    kind      := 0 main | 1 task | 2 lambda | 3 test
    PARAM     := [str name, str | nil type, int default]   (vm.program.Param)
    code      := the function's instructions as unsigned LEB128 integers (vm.opcodes)
    positions := flat triples (offset delta, line delta (zig-zag), col) where the
                 position changes
    TESTS     := [[str name, int function]...]

Rule for FORMAT_VERSION: bump it whenever a reader of the previous version could
misread a new file (a new or renumbered opcode, a changed operand, a new field). The
loader refuses every other version, naming both.

The same program always encodes to the same bytes.
"""

try:                        # the C module alone: hashlib's OpenSSL start-up costs more
    from _sha256 import sha256  # than the rest of `syn exec` of a small program
except ImportError:         # pragma: no cover
    from hashlib import sha256

import sys

from synsema import LANGUAGE_LEVEL
from synsema.vm.signatures import SIGNATURES
from synsema.vm.caps import is_cap
from synsema.vm.digits import int_of_digits, int_text
from synsema.vm.errors import InvalidProgram, SynError
from synsema.vm.program import Function, Param, Program
from synsema.vm.verify import _show, verify


def _import_msgpack():
    """msgpack, imported with CPython's C module `_datetime` standing in for `datetime`.
    msgpack's `ext` module imports `datetime` for its Timestamp, and Lib/datetime.py runs
    its whole pure-Python implementation before replacing it by `from _datetime import *`:
    6 M instructions imported alone, 4 M of the 81.5 M of `syn exec` of a small program
    (issue 31). The classes are the same objects either way (`datetime.datetime is
    _datetime.datetime`); the stand-in is taken out of sys.modules as soon as msgpack is
    imported, so a later `import datetime` gets the real module. Where `datetime` is
    already imported, or the interpreter has no `_datetime`, msgpack is imported as usual."""
    if "datetime" in sys.modules or "msgpack" in sys.modules:
        import msgpack
        return msgpack
    try:
        import _datetime
    except ImportError:         # pragma: no cover  (an interpreter without the C module)
        import msgpack
        return msgpack
    sys.modules["datetime"] = _datetime
    try:
        import msgpack
    finally:
        if sys.modules.get("datetime") is _datetime:
            del sys.modules["datetime"]
    return msgpack


msgpack = _import_msgpack()

MAGIC = b"SYNB\r\n\x1a\n"
FORMAT_VERSION = 4
KINDS = ("main", "task", "lambda", "test")
_BIGINT = 1
_INT64 = 2 ** 63


# ---- writing ----------------------------------------------------------------------------

def _leb(ints):
    out = bytearray()
    for v in ints:
        if v < 0:
            raise ValueError("negative code operand")
        while True:
            b = v & 0x7F
            v >>= 7
            if v:
                out.append(b | 0x80)
            else:
                out.append(b)
                break
    return bytes(out)


def _const(v):
    if type(v) is int and not -_INT64 <= v < _INT64:
        return msgpack.ExtType(_BIGINT, int_text(v).encode("ascii"))
    return v


def _positions(func):
    flat = []
    last_off, last_line = 0, 0
    for off, line, col in func.positions:
        dl = line - last_line
        flat += [off - last_off, (dl << 1) ^ (dl >> 63) if dl < 0 else dl << 1, col]
        last_off, last_line = off, line
    return flat


def _caps(caps):
    return [list(c) for c in caps]


def payload_of(program):
    funcs = []
    for f in program.functions:
        funcs.append([f.name, KINDS.index(f.kind), f.line, f.col,
                      [[p.name, p.type, p.default] for p in f.params],
                      f.ncaptures, f.nlocals, _caps(f.requires), _leb(f.code),
                      _positions(f), list(f.local_names)])
    body = [LANGUAGE_LEVEL, program.source_name, program.intent, _caps(program.requires),
            [_const(c) for c in program.consts], list(program.builtins),
            [[n, l] for n, l in zip(program.globals, program.global_lines)],
            funcs, [[n, i] for n, i in program.tests]]
    return msgpack.packb(body, use_bin_type=True)


def wrap(payload, version=FORMAT_VERSION):
    """The file bytes around a payload (also used by tests to craft files)."""
    return msgpack.packb([MAGIC, version, sha256(payload).digest(), payload],
                         use_bin_type=True)


def encode(program):
    """The .synb bytes of a compiled program."""
    payload = payload_of(program)
    program.sha256 = sha256(payload).hexdigest()
    return wrap(payload)


# ---- reading ----------------------------------------------------------------------------

def _bad(reason):
    raise InvalidProgram(reason)


def _unpack(data, what):
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True,
                               ext_hook=_ext)
    except InvalidProgram:
        raise
    except RecursionError:
        _bad(f"{what} is nested too deeply")
    except msgpack.ExtraData:
        _bad(f"{what} has bytes after its end (two files joined, or not a .synb)")
    except Exception as e:  # noqa: BLE001 - msgpack raises many kinds; all mean the same
        if "incomplete input" in str(e):
            _bad(f"{what} ends too early (it was cut short)")
        _bad(f"{what} is not readable msgpack: {e}"[:200])


def _ext(code, data):
    if code != _BIGINT:
        _bad(f"unknown msgpack extension type {code}")
    text = data.decode("ascii", errors="replace")
    # ASCII digits only (isdigit() would take '²'); at most digits.MAX_DIGITS of them, as
    # a literal (reading more would take longer than any limit could stop).
    if not is_digits(text):
        _bad("a large integer constant is malformed")
    try:
        return int_of_digits(text)
    except SynError as e:
        _bad(f"a large integer constant: {e.message}")


def is_digits(text):
    """Whether `text` is `-?[0-9]+` (tested without `re`, off the start-up path)."""
    digits = text[1:] if text[:1] == "-" else text
    return digits.isascii() and digits.isdigit()


def _is(v, *types):
    return type(v) in types


def _int(v, what):
    if type(v) is not int or v < 0:
        _bad(f"{what} must be a non-negative integer")
    return v


def _str(v, what):
    if type(v) is not str:
        _bad(f"{what} must be a text")
    return v


def _list(v, what, n=None):
    if type(v) is not list:
        _bad(f"{what} must be an array")
    if n is not None and len(v) != n:
        _bad(f"{what} must have {n} items, has {len(v)}")
    return v


def _caps_in(v, what):
    caps = []
    for c in _list(v, what):
        _list(c, what)
        if not c or not all(type(x) is str for x in c):
            _bad(f"{what}: a capability must be an array of texts")
        t = tuple(c)
        if not is_cap(t):
            _bad(f"{what}: unknown capability {_show(list(t))}")
        caps.append(t)
    return caps


def _unleb(data, what):
    out = []
    v = shift = 0
    for b in data:
        v |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
            if shift > 63:
                _bad(f"{what}: an operand is too large")
        else:
            out.append(v)
            v = shift = 0
    if shift:
        _bad(f"{what}: the code ends inside an operand")
    return out


def decode(data):
    """A verified Program from .synb bytes, or InvalidProgram(reason)."""
    if not isinstance(data, (bytes, bytearray)):
        _bad("not bytes")
    if len(data) == 0:
        _bad("the file is empty")
    outer = _unpack(bytes(data), "the file")
    if type(outer) is not list or len(outer) != 4:
        _bad("the file does not start with a Synsema header (is it a .synb file?)")
    magic, version, digest, payload = outer
    if magic != MAGIC:
        _bad("wrong magic: this is not a Synsema compiled program (or it was damaged by a "
             "text-mode copy)")
    if type(version) is not int:
        _bad("the format version is not a number")
    if version > FORMAT_VERSION:
        _bad(f"it was written by a newer syn (format version {_show(version)}; this syn reads "
             f"version {FORMAT_VERSION}): upgrade syn (pip install -U synsema)")
    if version != FORMAT_VERSION:
        _bad(f"format version {_show(version)} is not supported (this syn reads version "
             f"{FORMAT_VERSION}); recompile the source with `syn compile`")
    if type(digest) is not bytes or len(digest) != 32 or type(payload) is not bytes:
        _bad("the header is damaged")
    if sha256(payload).digest() != digest:
        _bad("the content does not match its sha256: the file is corrupted or was edited")
    body = _unpack(payload, "the content")
    _list(body, "the content", 9)
    level, source, intent, requires, consts, builtins, globals_, funcs, tests = body
    _str(level, "the language level")
    prog = Program(_str(source, "the source name"))
    if intent is not None:
        _str(intent, "the intent")
    prog.intent = intent
    prog.requires = _caps_in(requires, "the program's requires")
    for c in _list(consts, "the constants"):
        if not _is(c, type(None), bool, int, float, str):
            _bad(f"a constant of type {type(c).__name__} is not allowed")
    prog.consts = consts
    prog.builtins = [_str(b, "a builtin name") for b in _list(builtins, "the builtins")]
    for g in _list(globals_, "the globals"):
        _list(g, "a global", 2)
        prog.globals.append(_str(g[0], "a global's name"))
        prog.global_lines.append(_int(g[1], "a global's line"))
    for i, raw in enumerate(_list(funcs, "the functions")):
        prog.functions.append(_function(raw, f"function {i}"))
    if not prog.functions:
        _bad("there is no top-level code")
    for t in _list(tests, "the tests"):
        _list(t, "a test", 2)
        prog.tests.append((_str(t[0], "a test's name"), _int(t[1], "a test's function")))
    prog.sha256 = digest.hex()
    prog.level = level
    for b in prog.builtins:
        if b not in SIGNATURES:
            _bad(f"it calls a builtin {_show(b)} that this syn does not have")
    verify(prog)
    return prog


def _function(raw, what):
    _list(raw, what, 11)
    name, kind, line, col, params, ncap, nloc, reqs, code, pos, names = raw
    if type(kind) is not int or not 0 <= kind < len(KINDS):
        _bad(f"{what}: unknown kind {_show(kind)}")
    f = Function(_str(name, f"{what}'s name"), KINDS[kind], _int(line, f"{what}'s line"),
                 _int(col, f"{what}'s column"))
    for p in _list(params, f"{what}'s parameters"):
        _list(p, f"{what}: a parameter", 3)
        if p[1] is not None:
            _str(p[1], f"{what}: a parameter type")
        f.params.append(Param(_str(p[0], f"{what}: a parameter name"), p[1],
                              _int(p[2], f"{what}: a parameter default")))
    f.ncaptures = _int(ncap, f"{what}'s captures")
    f.nlocals = _int(nloc, f"{what}'s locals")
    f.requires = _caps_in(reqs, f"{what}'s requires")
    if type(code) is not bytes:
        _bad(f"{what}: the code must be bytes")
    f.code = _unleb(code, what)
    flat = _list(pos, f"{what}'s positions")
    if len(flat) % 3 or not all(type(x) is int and x >= 0 for x in flat):
        _bad(f"{what}: the position table is malformed")
    off = line_ = 0
    for i in range(0, len(flat), 3):
        off += flat[i]
        z = flat[i + 1]
        line_ += (z >> 1) ^ -(z & 1)
        f.positions.append((off, line_, flat[i + 2]))
    f.local_names = [_str(n, f"{what}: a local name") for n in _list(names, f"{what}'s names")]
    if f.nlocals > 1_000_000:
        _bad(f"{what}: too many locals")
    return f
