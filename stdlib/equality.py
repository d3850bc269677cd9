"""Structural equality and ordering (SPEC section 4).

`equal` never raises for a type mismatch: values of different types are simply unequal
(`true != 1`, `1 != "1"`), except that ints and floats compare by value (`1 == 1.0`).
`compare` orders two numbers or two texts and refuses everything else.
"""
from synsema.vm.errors import SynError
from synsema.vm.values import type_name


def _eq(a, b):
    ta = type(a)
    tb = type(b)
    if ta is tb:
        if ta is list:
            if len(a) != len(b):
                return False
            for x, y in zip(a, b):
                if x is not y and not _eq(x, y):
                    return False
            return True
        if ta is dict:
            if len(a) != len(b):
                return False
            # Keys are normalised (bools are BoolKey, 1 and 1.0 hash alike), so dict
            # lookup is exactly Synsema key equality.
            for k, x in a.items():
                if k not in b:
                    return False
                y = b[k]
                if x is not y and not _eq(x, y):
                    return False
            return True
        return a == b           # str, int, float, bool, None, Closure
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a == b
    return False


def equal(a, b):
    """Synsema `==`: structural, map order ignored, 1 == 1.0, no error across types."""
    ta = type(a)
    if ta is not list and ta is not dict:
        tb = type(b)
        if ta is tb:
            return a == b
        if (ta is int or ta is float) and (tb is int or tb is float):
            return a == b
        return False
    try:
        return _eq(a, b)
    except RecursionError:
        raise SynError("values nested too deeply to compare with ==") from None


def compare(a, b, op_name):
    """-1, 0 or 1 as a is below, equal to or above b; two numbers or two texts only."""
    ta = type(a)
    tb = type(b)
    if ta is str:
        if tb is str:
            return (a > b) - (a < b)
    elif ta is int or ta is float:
        if tb is int or tb is float:
            return (a > b) - (a < b)
    raise SynError(f"cannot compare {type_name(a)} and {type_name(b)} with {op_name}")
