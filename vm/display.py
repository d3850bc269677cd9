"""The one printed form of every value (SPEC section 4), used by text(), print and join.

Top-level text shows as is; text inside a list or map is quoted with JSON escapes.
Numbers: an int as is; a float in Python's shortest round-trip form (`repr`), except
that an integral float below 1e16 in size drops its `.0` (3.0 -> "3", 1e16 -> "1e+16").
"""
from itertools import repeat

from synsema.vm.digits import int_text
from synsema.vm.values import BoolKey


def quote(s):
    """A text quoted with JSON escapes, non-ASCII kept as is."""
    return _encode_text(s)


def _encode_text(s):
    """What json.dumps(s, ensure_ascii=False) calls for a text, without json (and the `re`
    it imports), loaded at the first quote, for it is a C module, dear to load: off the
    start-up of `syn exec` (issue 31). It puts itself in place of this function."""
    global _encode_text
    try:
        from _json import encode_basestring as encode
    except ImportError:             # a Python without the C accelerator
        from json.encoder import py_encode_basestring as encode
    _encode_text = encode
    return encode(s)


def format_number(n):
    """The printed form of a number (int or float; never a bool)."""
    if type(n) is int:
        return int_text(n)      # str(n), or past CPython's digit limit our own conversion
    if n.is_integer() and -1e16 < n < 1e16:
        # int() drops the sign of -0.0; keep it so the form still reads back exactly.
        if n == 0 and str(n)[0] == "-":
            return "-0"
        return str(int(n))
    return repr(n)              # shortest round-trip form; also inf, -inf, nan


def _show(v):
    """The form of v inside a list or map (texts quoted). Nested containers are walked
    with a stack of iterators, not by recursion, so no nesting is too deep to show."""
    t = type(v)
    if t is not list and t is not dict:
        return _scalar(v)
    parts = []
    emit = parts.append
    todo = [iter((("", v),))]       # per open container: its (prefix, item) pairs to show
    closers = [""]
    while todo:
        for prefix, x in todo[-1]:
            t = type(x)
            if t is list:
                emit(prefix + "[")
                todo.append(zip(_separators(), x))
                closers.append("]")
                break
            if t is dict:
                emit(prefix + "{")
                todo.append((sep + show_key(k) + ": ", y)
                            for sep, (k, y) in zip(_separators(), x.items()))
                closers.append("}")
                break
            emit(prefix + _scalar(x))
        else:
            todo.pop()
            emit(closers.pop())
    return "".join(parts)


def _separators():
    yield ""
    yield from repeat(", ")


def _scalar(v):
    """The form of a value that is not a list or map, inside a list or map."""
    t = type(v)
    if t is str:
        return quote(v)
    if t is int:
        return int_text(v)
    if t is float:
        return format_number(v)
    if t is bool:
        return "true" if v else "false"
    if v is None:
        return "nothing"
    return str(v)               # Closure: <task add> / <lambda at line 12>


def show_key(k):
    """The printed form of a stored (normalised) map key."""
    t = type(k)
    if t is str:
        return quote(k)
    if t is BoolKey:
        return "true" if k.value else "false"
    if t is int or t is float:
        return format_number(k)
    return str(k)


def display(v):
    """The printed form of v: what text(v) gives and print(v) writes."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return int_text(v)      # _scalar's int case, one call fewer: text(i) is common
    if t is list or t is dict:
        return _show(v)
    return _scalar(v)           # the same form as inside a container, texts aside
