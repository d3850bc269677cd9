"""The pure builtins: conversion, collections, text and numbers (SPEC section 8).

Each takes and returns plain values (never Labeled), checks its argument types, and
raises a SynError that names itself, what it got and, where there is one, the fix.
None mutates its inputs: every changed list or map is a new one (value semantics).
"""
from synsema.vm import ops
from synsema.vm import precise as P
from synsema.vm.digits import int_of_digits
from synsema.vm.errors import SynError
from synsema.vm.values import UNSET, denorm_key, norm_key, type_name
from synsema.stdlib.registry import builtin
from synsema.vm.display import display, format_number, quote
from synsema.vm.equality import equal

RANGE_LIMIT = 10_000_000     # most items range() will make
VARIADIC = 255               # max_args of min/max, which take "any number" of values


# ---- helpers -------------------------------------------------------------------------

def _got(v):
    """What an error says it got: the type name, plus the value for a non-integer number."""
    t = type(v)
    if t is float:
        return f"number {format_number(v)}"
    return type_name(v)


def _int(name, v, what):
    """v as an int; an integral float is accepted, anything else is an error."""
    t = type(v)
    if t is int:
        return v
    if t is float and v.is_integer():
        return int(v)
    raise SynError(f"{name} needs an integer {what}, got {_got(v)}")


def _text(name, v, what="a text"):
    if type(v) is not str:
        raise SynError(f"{name} needs {what}, got {type_name(v)}")
    return v


def _items(n):
    return "a list of 1 item" if n == 1 else f"a list of {n} items"


def _is_num(v):
    t = type(v)
    return t is int or t is float


def _num(name, v):
    t = type(v)
    if t is not int and t is not float:
        raise SynError(f"{name} needs a number, got {type_name(v)}")
    return v


def _lookup_key(name, k):
    """The stored form of k, or None for nan (a number, but equal to no key, so never
    found). A value that cannot be a key (a list, a map, nothing) is an error, as storing
    it is: a lookup by it is a mistake, not a miss."""
    t = type(k)
    if t is str or t is int or t is bool:
        return norm_key(k)
    if t is float:
        return None if k != k else k
    raise SynError(f"{name} needs a text, number or bool as a map key, got {type_name(k)}")


def _store_key(name, k):
    t = type(k)
    if t is str or t is int:
        return k
    if t is bool:
        return norm_key(k)
    if t is float:
        if k != k:
            raise SynError(f"{name} cannot use nan as a map key")
        return k
    raise SynError(f"{name} needs a text, number or bool as a map key, got {type_name(k)}")


# ---- output and conversion -----------------------------------------------------------

@builtin("text", 1, never_raises=True)
def b_text(x):
    """The printed form of any value, as a text."""
    if type(x) is int:
        # display's int case without its two calls (text(i) is common); past CPython's
        # digit limit str() refuses and display converts it itself
        try:
            return str(x)
        except ValueError:
            pass
    return display(x)


_INF = float("inf")     # math.inf: math is a C module to load, off start-up (issue 31)

# Compiled at the first number(text) (_number_forms): `re` is not on the start-up path of
# `syn exec` (issue 31).
_INT_RE = _FLOAT_RE = None


def _number_forms():
    global _INT_RE, _FLOAT_RE
    import re
    _FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
    _INT_RE = re.compile(r"[+-]?[0-9]+")
    return _INT_RE


@builtin("number", 1)
def b_number(x):
    """The number written in a text (a number is returned as it is)."""
    t = type(x)
    if t is int or t is float:
        return x
    if t is not str:
        raise SynError(f"number needs a text or number, got {type_name(x)}")
    s = x.strip()
    if (_INT_RE or _number_forms()).fullmatch(s):
        return int_of_digits(s)         # any number of digits
    if _FLOAT_RE.fullmatch(s):
        f = float(s)
        if f in (_INF, -_INF):
            shown = quote(s) if len(s) <= 60 else quote(s[:60]) + "..."
            raise SynError(f"number: {shown} is out of range")
        return f
    shown = quote(x) if len(x) <= 60 else quote(x[:60]) + "..."
    raise SynError(f"number cannot read {shown} as a number; "
                   "write digits like 42, -3.5 or 1e3")


@builtin("type_of", 1, never_raises=True, labelled=P.labels_of_kind)
def b_type_of(x):
    """The type name of a value: number, text, bool, nothing, list, map or task."""
    return type_name(x)


@builtin("json_encode", 1)
def b_json_encode(x):
    """The JSON text of a value (map keys must be texts; no tasks)."""
    from synsema.vm.jsonvalues import json_encode      # json and re: off start-up
    return json_encode(x)


@builtin("json_decode", 1)
def b_json_decode(t):
    """The value written as JSON in a text."""
    from synsema.vm.jsonvalues import json_decode
    return json_decode(t)


# ---- collections ---------------------------------------------------------------------

@builtin("len", 1, labelled=P.labels_by_shape)
def b_len(x):
    """The number of characters of a text, items of a list or keys of a map."""
    t = type(x)
    if t is str or t is list or t is dict:
        return len(x)
    raise SynError(f"len needs a text, list or map, got {type_name(x)}")


@builtin("contains", 2, labelled=P.labels_contains)
def b_contains(coll, x):
    """Whether a map has the key, a list the element, or a text the substring."""
    t = type(coll)
    if t is dict:
        k = _lookup_key("contains", x)
        return k is not None and k in coll
    if t is list:
        tx = type(x)
        if tx is str:                    # common case: allow-list of names
            for e in coll:
                if type(e) is str and e == x:
                    return True
            return False
        for e in coll:
            if equal(e, x):
                return True
        return False
    if t is str:
        if type(x) is not str:
            raise SynError(f"contains needs a text to look for in a text, got {type_name(x)}; "
                           "use text(x) to make one")
        return x in coll
    raise SynError(f"contains needs a map, list or text, got {type_name(coll)}")


@builtin("keys", 1, labelled=P.labels_by_shape)
def b_keys(m):
    """The keys of a map, in insertion order."""
    if type(m) is not dict:
        raise SynError(f"keys needs a map, got {type_name(m)}")
    return [denorm_key(k) for k in m]


@builtin("values", 1, labelled=P.labels_values)
def b_values(m):
    """The values of a map, in insertion order."""
    if type(m) is not dict:
        raise SynError(f"values needs a map, got {type_name(m)}")
    return list(m.values())


@builtin("get", 2, 3, labelled=P.labels_get)
def b_get(coll, k, default=None):
    """m[k] or the default when absent; for a list or text, the item at index k."""
    t = type(coll)
    if t is dict:
        if type(k) is str:      # stored as itself: the usual case, without the calls
            return coll.get(k, default)
        sk = _lookup_key("get", k)
        if sk is None:
            return default
        return coll.get(sk, default)
    if t is list or t is str:
        i = _int("get", k, "index for a " + type_name(coll))
        n = len(coll)
        if i < 0:
            i += n
        if 0 <= i < n:
            return coll[i]
        return default
    raise SynError(f"get needs a map, list or text, got {type_name(coll)}")


b_append = builtin("append", 2, gives_copy="list", labelled=P.labels_append)(ops.append)


@builtin("put", 3, gives_copy="map", labelled=P.labels_put)
def b_put(coll, k, v):
    """A new map with key k set to v (an existing key keeps its place); or a new list
    with the item at index k replaced."""
    t = type(coll)
    if t is dict:
        sk = _store_key("put", k)
        r = coll.copy()
        r[sk] = v
        return r
    if t is list:
        i = _int("put", k, "index for a list")
        n = len(coll)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise SynError(f"put: index {format_number(i)} is out of range for {_items(n)}")
        r = coll.copy()
        r[j] = v
        return r
    raise SynError(f"put needs a map or list, got {type_name(coll)}")


@builtin("remove", 2, labelled=P.labels_rearranged)
def b_remove(coll, k):
    """A new map without key k (unchanged if absent), or a new list without item k."""
    t = type(coll)
    if t is dict:
        r = coll.copy()
        sk = _lookup_key("remove", k)
        if sk is not None:
            r.pop(sk, None)
        return r
    if t is list:
        i = _int("remove", k, "index for a list")
        n = len(coll)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise SynError(f"remove: index {format_number(i)} is out of range for {_items(n)}")
        return coll[:j] + coll[j + 1:]
    raise SynError(f"remove needs a map or list, got {type_name(coll)}")


@builtin("slice", 2, 3, labelled=P.labels_rearranged)
def b_slice(x, start, end=None):
    """The part of a list or text from start up to (not including) end; negative
    counts from the end; out-of-range bounds are clamped."""
    t = type(x)
    if t is not list and t is not str:
        raise SynError(f"slice needs a list or text, got {type_name(x)}")
    s = _int("slice", start, "start")
    if end is None:
        return x[s:]
    return x[s:_int("slice", end, "end")]


@builtin("range", 1, 3)
def b_range(a, b=UNSET, step=UNSET):
    """range(n): 0..n-1; range(a, b): a..b-1; range(a, b, step)."""
    if b is UNSET:
        r = range(_int("range", a, "count"))
    else:
        a = _int("range", a, "start")
        b = _int("range", b, "end")
        if step is UNSET:
            r = range(a, b)
        else:
            step = _int("range", step, "step")
            if step == 0:
                raise SynError("range step must not be 0")
            r = range(a, b, step)
    try:
        n = len(r)
    except OverflowError:       # more items than a C ssize_t can count
        n = None
    if n is None or n > RANGE_LIMIT:
        raise SynError(f"range would make {'too many' if n is None else n} items; "
                       f"the limit is {RANGE_LIMIT}; use a while loop to count further")
    return list(r)


def _kind_of_all(name, xs):
    """'number' or 'text' when every item of xs is one of them; else an error."""
    first = xs[0]
    if type(first) is str:
        for e in xs:
            if type(e) is not str:
                raise SynError(f"{name} needs all numbers or all texts, got text and {type_name(e)}")
        return "text"
    if _is_num(first):
        for e in xs:
            te = type(e)
            if te is not int and te is not float:
                raise SynError(f"{name} needs all numbers or all texts, got number and {type_name(e)}")
        return "number"
    raise SynError(f"{name} needs numbers or texts, got {type_name(first)}")


@builtin("sort", 1, labelled=P.labels_sorted)
def b_sort(xs):
    """A new list of the same numbers (or texts) in ascending order."""
    if type(xs) is not list:
        raise SynError(f"sort needs a list, got {type_name(xs)}")
    if not xs:
        return []
    _kind_of_all("sort", xs)
    return sorted(xs)


@builtin("reverse", 1, labelled=P.labels_rearranged)
def b_reverse(x):
    """A list or text in reverse order."""
    t = type(x)
    if t is list or t is str:
        return x[::-1]
    raise SynError(f"reverse needs a list or text, got {type_name(x)}")


@builtin("join", 2)
def b_join(xs, sep):
    """The items of a list shown as text (as text() does) with sep between them."""
    if type(xs) is not list:
        raise SynError(f"join needs a list, got {type_name(xs)}")
    if type(sep) is not str:
        raise SynError(f"join needs a text separator, got {type_name(sep)}")
    return sep.join([e if type(e) is str else display(e) for e in xs])


# ---- text ----------------------------------------------------------------------------

@builtin("split", 1, 2)
def b_split(t, sep=None):
    """The parts of a text between separators (by runs of whitespace when no sep)."""
    _text("split", t)
    if sep is None:
        return t.split()
    if type(sep) is not str:
        raise SynError(f"split needs a text separator, got {type_name(sep)}")
    if not sep:
        raise SynError("split separator must not be empty; "
                       "use split(t) for whitespace, or for each to get characters")
    return t.split(sep)


@builtin("upper", 1)
def b_upper(t):
    """The text in upper case."""
    if type(t) is not str:
        raise SynError(f"upper needs a text, got {type_name(t)}")
    return t.upper()


@builtin("lower", 1)
def b_lower(t):
    """The text in lower case."""
    if type(t) is not str:
        raise SynError(f"lower needs a text, got {type_name(t)}")
    return t.lower()


@builtin("trim", 1)
def b_trim(t):
    """The text without whitespace at either end."""
    if type(t) is not str:
        raise SynError(f"trim needs a text, got {type_name(t)}")
    return t.strip()


@builtin("replace", 3)
def b_replace(t, old, new):
    """The text with every occurrence of old replaced by new."""
    _text("replace", t)
    _text("replace", old, "a text to look for")
    _text("replace", new, "a text to put in")
    if not old:
        raise SynError("replace needs a non-empty text to look for")
    return t.replace(old, new)


@builtin("starts_with", 2)
def b_starts_with(t, prefix):
    """Whether the text begins with prefix."""
    _text("starts_with", t)
    _text("starts_with", prefix, "a text prefix")
    return t.startswith(prefix)


@builtin("ends_with", 2)
def b_ends_with(t, suffix):
    """Whether the text ends with suffix."""
    _text("ends_with", t)
    _text("ends_with", suffix, "a text suffix")
    return t.endswith(suffix)


# ---- numbers -------------------------------------------------------------------------

def _extreme(name, args, pick_first):
    if len(args) == 1:
        xs = args[0]
        if type(xs) is not list:
            raise SynError(f"{name} needs a list, or two or more numbers or texts, "
                           f"got {type_name(xs)}")
        if not xs:
            raise SynError(f"{name} of an empty list; give it at least one item")
    else:
        xs = args
    _kind_of_all(name, xs)
    best = xs[0]
    for e in xs:
        if pick_first(e, best):
            best = e
    return best


@builtin("min", 1, VARIADIC)
def b_min(*args):
    """The smallest of a list, or of two or more numbers or texts."""
    return _extreme("min", args, lambda e, best: e < best)


@builtin("max", 1, VARIADIC)
def b_max(*args):
    """The largest of a list, or of two or more numbers or texts."""
    return _extreme("max", args, lambda e, best: e > best)


@builtin("abs", 1)
def b_abs(x):
    """The number without its sign."""
    return abs(_num("abs", x))


@builtin("round", 1, 2)
def b_round(x, digits=None):
    """The number rounded half to even; to an integer unless digits is given."""
    _num("round", x)
    d = 0 if digits is None else _int("round", digits, "number of digits")
    if type(x) is int:
        if d >= 0:
            return x
        # |x| < 10**-d / 2 rounds to 0; Python's round would build 10**-d first, which
        # for a huge -d never finishes.
        return 0 if -d > x.bit_length() + 1 else round(x, d)
    if x != x or x in (_INF, -_INF):
        if d == 0:
            raise SynError(f"round cannot make an integer of {format_number(x)}")
        return x
    if d == 0:
        return round(x)
    return round(x, d)


@builtin("floor", 1)
def b_floor(x):
    """The largest integer not above the number."""
    t = type(x)
    if t is int:
        return x
    if t is float:
        if x != x or x in (_INF, -_INF):
            raise SynError(f"floor cannot make an integer of {format_number(x)}")
        return x.__floor__()        # math.floor's own, without loading math
    raise SynError(f"floor needs a number, got {type_name(x)}")


# ---- errors --------------------------------------------------------------------------

@builtin("fail", 1)
def b_fail(message):
    """Raise a runtime error whose message is exactly the given text."""
    raise SynError(message if type(message) is str else display(message))

