"""Structural equality and ordering (SPEC section 4).

`equal` never raises for a type mismatch: values of different types are simply unequal
(`true != 1`, `1 != "1"`), except that ints and floats compare by value (`1 == 1.0`).
`compare` orders two numbers or two texts and refuses everything else.
"""
from synsema.vm.errors import SynError
from synsema.vm.values import Closure, plain, type_name


def _eq(a, b):
    """Containers and tasks, compared pair by pair with a worklist rather than by
    recursion, so no nesting is too deep. There is no `x is y` shortcut (nor Python's
    list ==, which takes one): nan != nan wherever it sits, so a program cannot tell
    whether two values share storage."""
    pairs = [(a, b)]
    pop = pairs.pop
    push = pairs.append
    while pairs:
        a, b = pop()
        ta = type(a)
        tb = type(b)
        if ta is not tb:
            if (ta is int or ta is float) and (tb is int or tb is float) and a == b:
                continue
            return False
        if ta is list:
            if len(a) != len(b):
                return False
            for x, y in zip(a, b):
                tx = type(x)
                if tx is type(y) and (tx is str or tx is int):     # the common items
                    if x != y:
                        return False
                else:
                    push((x, y))
        elif ta is dict:
            if len(a) != len(b):
                return False
            # Keys are normalised (bools are BoolKey, 1 and 1.0 hash alike) and never nan,
            # so dict lookup is exactly Synsema key equality.
            for k, x in a.items():
                if k not in b:
                    return False
                y = b[k]
                tx = type(x)
                if tx is type(y) and (tx is str or tx is int):
                    if x != y:
                        return False
                else:
                    push((x, y))
        elif ta is Closure:
            # The same code with equal captured values (Closure.__eq__ would compare the
            # captures with Python's ==, where true == 1 and a shared nan equals itself).
            if a.func is not b.func or len(a.captures) != len(b.captures):
                return False
            pairs.extend(zip(map(plain, a.captures), map(plain, b.captures)))
        elif a != b:            # str, int, float, bool, None, a host tool
            return False
    return True


def equal(a, b):
    """Synsema `==`: structural, map order ignored, 1 == 1.0, no error across types, and
    never an error at all."""
    ta = type(a)
    if ta is list or ta is dict or ta is Closure:
        return _eq(a, b)
    tb = type(b)
    if ta is tb:
        return a == b
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a == b
    return False


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
