"""The operators of SPEC section 4 on plain values, for the cases the VM loop does not
handle inline (the loop tries `int op int` itself first). Each raises SynError with a
message that names the operator and, where one exists, the fix."""

from synsema.vm.display import display, quote
from synsema.vm.equality import equal
from synsema.vm.errors import SynError
from synsema.vm.values import denorm_key, norm_key, type_name

_NUM = (int, float)


def _is_num(v):
    t = type(v)
    return t is int or t is float


# The language's own error for arithmetic whose result no number can hold (SPEC 4: integers
# are unbounded, but an integer meeting a float must fit in one).
TOO_LARGE = "number too large: the result does not fit in a number"


def add(a, b):
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        try:
            return a + b
        except OverflowError:       # an integer too large for a float beside it
            return _fail(TOO_LARGE)
    if ta is str and tb is str:
        return a + b
    if ta is list and tb is list:
        return a + b
    if ta is str or tb is str:
        other = type_name(b if ta is str else a)
        first, second = type_name(a), type_name(b)
        return _fail(f"cannot add {first} and {second}; use text(x) to join "
                     f"a {other} to a text")
    return _fail(f"cannot add {type_name(a)} and {type_name(b)}; + adds two numbers, "
                 "joins two texts or joins two lists" + _nothing_hint(a, b))


# A value that is nothing in arithmetic is most often a map's missing key (m["k"] reads
# as nothing when k is not there).
def _nothing_hint(a, b):
    if a is None or b is None:
        return ("; a map key that is not there reads as nothing: use get(m, k, default) "
                "for a default")
    return ""


def _arith(a, b, word, sym):
    if not (_is_num(a) and _is_num(b)):
        _fail(f"cannot {word} {type_name(a)} and {type_name(b)} with {sym}; it needs "
              "two numbers" + _nothing_hint(a, b))


def sub(a, b):
    _arith(a, b, "subtract", "-")
    try:
        return a - b
    except OverflowError:
        return _fail(TOO_LARGE)


# Integers are unbounded, but one `*`, `/` or `%` of two huge ones is a single step of
# Python's that can take minutes, and nothing (--timeout included) interrupts it: past
# these sizes it is refused. A product of two numbers past 64 bits is at most 4,194,304
# bits (1,262,612 digits), at most half a second here; a division's work (the divisor's
# bits times the quotient's) at most 2**40, about a second.
MAX_PRODUCT_BITS = 1 << 22
MAX_DIVISION_WORK = 1 << 40


def _too_big(what):
    _fail(f"number too large: {what} of two integers this long would take too long to "
          "compute (a product of two numbers of more than 20 digits may have at most "
          "1,262,612 digits)")


def mul(a, b):
    _arith(a, b, "multiply", "*")
    if type(a) is int and type(b) is int:
        la, lb = a.bit_length(), b.bit_length()
        # By a small number a product is quick (the loop's inline * does those itself,
        # whichever side the small one is on here).
        if min(la, lb) > 64 and la + lb > MAX_PRODUCT_BITS:
            _too_big("the product")
    try:
        return a * b
    except OverflowError:
        return _fail(TOO_LARGE)


def _check_division(a, b):
    if type(a) is int and type(b) is int:
        la, lb = a.bit_length(), b.bit_length()
        if la > lb and lb * (la - lb) > MAX_DIVISION_WORK:
            _too_big("the division")


def div(a, b):
    _arith(a, b, "divide", "/")
    if b == 0:
        _fail("division by zero")
    if type(a) is int and type(b) is int:
        _check_division(a, b)
        q, r = divmod(a, b)
        if r == 0:
            return q
    try:
        return a / b
    except OverflowError:
        return _fail(TOO_LARGE)


def mod(a, b):
    _arith(a, b, "take the remainder of", "%")
    if b == 0:
        _fail("division by zero (in %)")
    _check_division(a, b)
    try:
        return a % b
    except OverflowError:
        return _fail(TOO_LARGE)


def neg(a):
    if not _is_num(a):
        _fail(f"cannot negate {type_name(a)}; unary - needs a number")
    return -a


def not_(v):
    if v is True:
        return False
    if v is False:
        return True
    return _fail(f"not needs a bool, got {type_name(v)}")


_SYMS = {"LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def order(a, b, sym):
    """Check that a and b can be ordered (two numbers or two texts)."""
    if _is_num(a) and _is_num(b):
        return
    if type(a) is str and type(b) is str:
        return
    _fail(f"cannot compare {type_name(a)} and {type_name(b)} with {sym}; "
          "< <= > >= compare two numbers or two texts")


def lt(a, b):
    order(a, b, "<")
    return a < b


def le(a, b):
    order(a, b, "<=")
    return a <= b


def gt(a, b):
    order(a, b, ">")
    return a > b


def ge(a, b):
    order(a, b, ">=")
    return a >= b


def eq(a, b):
    return equal(a, b)


def ne(a, b):
    return not equal(a, b)


def _int_index(i, what):
    t = type(i)
    if t is int:
        return i
    if t is float and i.is_integer():
        return int(i)
    shown = quote(i) if t is str else display(i)     # got text "b", not got text b
    _fail(f"{what} index must be a whole number, got {type_name(i)} {shown}")


def index(x, i):
    t = type(x)
    if t is list:
        k = _int_index(i, "list")
        n = len(x)
        if -n <= k < n:
            return x[k]
        _fail(f"index {display(k)} is out of range for a list of {n} item" + ("" if n == 1 else "s")
              + (f" (valid: 0 to {n - 1}, or -{n} to -1)" if n else ""))
    if t is dict:
        if type(i) is float and i != i:
            return None                     # nan equals no key: never found
        # A list, map or nothing cannot be a key: refused as storing one is, not a miss.
        return x.get(_check_key(i))
    if t is str:
        k = _int_index(i, "text")
        n = len(x)
        if -n <= k < n:
            return x[k]
        _fail(f"index {display(k)} is out of range for a text of {n} character" + ("" if n == 1 else "s"))
    _fail(f"cannot index {type_name(x)}; only lists, maps and texts have items")


def list_index(xs, i):
    """The position in range that a valid index i of list xs names (after index())."""
    k = _int_index(i, "list")
    return k + len(xs) if k < 0 else k


# What a Python programmer reaches for as a method, and the builtin that does it.
_METHODS = {"append": "set xs to append(xs, x)", "extend": "set xs to xs + ys",
            "insert": "set xs to append(xs, x)", "pop": "set xs to remove(xs, i)",
            "remove": "set xs to remove(xs, i)", "update": "set m to put(m, k, v)",
            "get": "get(m, k, default)", "keys": "keys(m)", "values": "values(m)",
            "items": "for each k in m", "upper": "upper(t)", "lower": "lower(t)",
            "split": "split(t, sep)", "join": "join(xs, sep)", "strip": "trim(t)",
            "replace": "replace(t, old, new)", "startswith": "starts_with(t, p)",
            "endswith": "ends_with(t, s)", "sort": "set xs to sort(xs)",
            "reverse": "set xs to reverse(xs)", "count": "len(...)", "format": "text(x)"}


def field(x, name):
    if type(x) is dict:
        return x.get(name)
    hint = _METHODS.get(name)
    if hint is not None:
        # xs.append(1): values have no methods, and lists and maps are values.
        _fail(f"a {type_name(x)} has no methods (.{name}); builtins take the value first, "
              f"and lists and maps are values: write `{hint}`")
    _fail(f"cannot read .{name} of {type_name(x)}; fields are map keys (m.{name} is "
          f"m[\"{name}\"])")


def _check_key(k):
    t = type(k)
    if t is str or t is int or t is bool:
        return norm_key(k)
    if t is float:
        if k != k:      # nan equals no key, not even itself: it could never be found
            _fail("a map key cannot be nan")
        return k
    _fail(f"a map key must be a text, number or bool, got {type_name(k)}")


def set_item(x, k, v):
    """A copy of list/map x with item k replaced by v (value semantics)."""
    t = type(x)
    if t is list:
        if type(k) is str:      # `set xs.name to v`: reading it says the same of fields
            _fail(f"cannot set {quote(k)} in a list: a list's items are set by a whole-number "
                  "index, and fields (m.name is m[\"name\"]) are map keys")
        i = _int_index(k, "list")
        n = len(x)
        if not -n <= i < n:
            _fail(f"cannot set index {display(i)}: out of range for a list of {n} item"
                  + ("" if n == 1 else "s") + "; use append(xs, x) to add an item")
        y = x.copy()
        y[i] = v
        return y
    if t is dict:
        y = x.copy()
        y[_check_key(k)] = v
        return y
    _fail(f"cannot set an item of {type_name(x)}; only lists and maps have items to set")


def set_path(x, keys, v):
    """x with x[k1][k2]..[kn] = v, copying every container along the path."""
    if len(keys) == 1:
        return set_item(x, keys[0], v)
    inner = index(x, keys[0])
    if type(inner) is not list and type(inner) is not dict:
        # `set m.x.y to v` with no m.x: say which step of the path has no items
        _fail(f"cannot set {_step(keys[1])} in the item at {_step(keys[0])}, which is "
              f"{type_name(inner)}; only lists and maps have items to set")
    return set_item(x, keys[0], set_path(inner, keys[1:], v))


def _step(k):
    return quote(k) if type(k) is str else display(k)


def set_in_place(x, k, v):
    """x[k] = v in place when that is a plain replacement or a new map key; False when
    the slow path (a copy, or an error message) must decide."""
    t = type(x)
    if t is dict:
        tk = type(k)
        if tk is str or tk is int:
            x[k] = v
            return True
        return False
    if t is list and type(k) is int and -len(x) <= k < len(x):
        x[k] = v
        return True
    return False


def append(xs, x):
    """A new list: xs with x added at the end."""
    # The builtin append itself (stdlib.core registers it): the in-place append of
    # vm/instructions.py falls back to it, with its error messages.
    if type(xs) is not list:
        hint = "; use + to join texts" if type(xs) is str else ""
        raise SynError(f"append needs a list, got {type_name(xs)}{hint}")
    r = xs.copy()
    r.append(x)
    return r


def compare_kind(kind, a, b):
    """LE/GT/GE/EQ/NE by kind number (CMP in vm/instructions.py), for fused instructions."""
    if type(a) is int and type(b) is int:
        if kind == 0:
            return a <= b
        if kind == 1:
            return a > b
        if kind == 2:
            return a >= b
        if kind == 3:
            return a == b
        return a != b
    return (le, gt, ge, eq, ne)[kind](a, b)


def build_map(items):
    m = {}
    for i in range(0, len(items), 2):
        k = items[i]
        if type(k) is not str:      # a text key is stored as itself: no call for it
            k = _check_key(k)
        m[k] = items[i + 1]
    return m


def iterate(coll):
    t = type(coll)
    if t is list:
        return iter(coll)
    if t is dict:
        return iter([denorm_key(k) for k in coll])
    if t is str:
        return iter(coll)
    _fail(f"for each needs a list, map or text, got {type_name(coll)}")


def check_bool(v, word):
    if v is True or v is False:
        return v
    _fail(f"{word} needs a bool, got {type_name(v)}")


def not_callable(v):
    if v is None:
        # m.get(k): a map's missing key reads as nothing, so the Python habit lands here.
        hint = ("; if it is a method of a map, like m.get(k): maps have no methods (m.get "
                "reads the key \"get\", which is not there), builtins take the value "
                "first: get(m, k), keys(m)")
    else:
        # task f(text) ... text(x): the parameter hides the builtin of that name.
        hint = ("; if its name is a builtin's (a parameter named text, say), it hides the "
                "builtin there: rename it")
    _fail(f"cannot call a {type_name(v)}; only tasks and lambdas can be called{hint}")


def arity_error(func, n):
    what = f"task '{func.name}'" if func.kind == "task" else func.describe()
    _fail(f"{what} takes {func.arity_text()}, got {n}")


def _fail(msg):
    raise SynError(msg)

