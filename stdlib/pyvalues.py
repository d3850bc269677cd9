"""Python values <-> Synsema values: the one set of rules for every value that crosses the
Python boundary -- Program.call's arguments and its result, a host tool's arguments and
its result, an MCP server's values both ways, and what `syn serve` answers
(docs/embedding.md, "Values across the boundary").

Into Synsema, `from_python(value)`:

* None, bool, int, float, str as they are (and subclasses of int, float and str as the
  plain value); a float that is NaN or infinite is refused, as `--args` (json_decode)
  refuses it; a text holding a lone surrogate (no character: it could not be printed or
  sent) is refused, in a map key too.
* list and tuple -> a list; dict -> a map whose keys are texts, numbers, bools (or Enums
  of them); a namedtuple or dataclass -> a map of its fields; an Enum -> its value;
  `datetime`/`date`/`time` -> ISO text; a pydantic model -> its `model_dump` (v2) or
  `dict()` (v1).
* Nested deeper than MAX_DEPTH, a container holding itself, any other type, or a value
  whose reading raises (a mapping whose items() raises, a property that fails) is refused.
* A `LabelledPart` (synsema.Labelled) is kept as its labels only where `keep` says so.

Out of Synsema, `to_python(value)`: lists and maps copied fresh, map keys plain. A task
value is refused, and so is a map that Python could not hold faithfully: Synsema's keys
`1` and `true` (or `0` and `false`) are two keys, Python's dict would merge them.

Both raise `Unholdable`, whose `render()` says what and where (`type set at ["k"]`); each
caller puts it in its own sentence.
"""

import enum
import math
import sys

from synsema.vm import precise as P
from synsema.vm.display import show_key
from synsema.vm.jsonvalues import lone_surrogate
from synsema.vm.values import EMPTY, BoolKey, Closure, Labeled, denorm_key, norm_key

MAX_DEPTH = 100


class Unholdable(Exception):
    """A value one side has no form for; `path` is filled innermost first as it unwinds."""

    def __init__(self, what):
        super().__init__(what)
        self.what = what
        self.path = []

    def render(self):
        where = "".join(reversed(self.path))
        return f"{self.what} at {where}" if where else self.what


class LabelledPart:
    """A part of a host tool's result with labels of its own (synsema.Labelled, which
    checks the label names): `value`, `labels` (a frozenset)."""
    __slots__ = ("value", "labels")


def one_line(e):
    """`Type: first line of the message` of an exception, never raising itself."""
    try:
        lines = str(e).strip().splitlines()
    except Exception:       # noqa: BLE001 - a __str__ that raises: the type alone
        lines = []
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


# ---- into Synsema --------------------------------------------------------------------------

def from_python(value, keep=None):
    """The Synsema value of a Python value (the rules above); raises Unholdable. `keep`:
    True (labels on: a LabelledPart becomes a labelled part, its container precise), False
    (labels off: its plain value) or None (no labelled part allowed: an argument, a
    default)."""
    return _syn(value, 0, set(), keep)


def _syn(v, depth, active, keep):
    t = type(v)
    if t is str:
        bad = lone_surrogate(v)
        if bad:                 # no character: a text holding it could not be printed or sent
            raise Unholdable(f"a lone surrogate \\u{ord(bad):04x} in a text")
        return v
    if t is float:
        if not math.isfinite(v):
            raise Unholdable(f"the number {v} (Synsema takes in no NaN or infinity)")
        return v
    if t is int or t is bool or v is None:
        return v
    if t is list or t is tuple:
        return _container(v, depth, active, keep, _items, v)
    if t is dict:
        return _container(v, depth, active, keep, _pairs, v, "[]")
    try:
        return _other(v, depth, active, keep)
    except (Unholdable, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 - the value's own code failed while read
        raise Unholdable(f"type {_type_name(v)} (reading it raised {one_line(e)})") from None


def _type_name(v):
    return getattr(type(v), "__name__", "?")


def _other(v, depth, active, keep):
    if isinstance(v, LabelledPart):
        if keep is None:
            raise Unholdable("a Labelled value (only a result can carry labels)")
        inner = _syn(v.value, depth + 1, active, keep)
        return P.join(inner, v.labels) if keep else inner
    if isinstance(v, enum.Enum):
        return _syn(v.value, depth + 1, active, keep)
    if isinstance(v, str):
        return _syn(str.__str__(v), depth, active, keep)
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int.__int__(v)
    if isinstance(v, float):
        return _syn(float.__float__(v), depth, active, keep)
    if isinstance(v, tuple) and hasattr(v, "_fields"):         # a namedtuple: a record
        return _container(v, depth, active, keep, _pairs, zip(v._fields, v), ".")
    if isinstance(v, (list, tuple)):
        return _container(v, depth, active, keep, _items, v)
    if isinstance(v, dict):
        return _container(v, depth, active, keep, _pairs, v, "[]")
    if not isinstance(v, type):
        if hasattr(type(v), "__dataclass_fields__"):
            import dataclasses      # loaded already: v's class was made with it
            return _container(v, depth, active, keep, _pairs,
                              ((f.name, getattr(v, f.name)) for f in dataclasses.fields(v)),
                              ".")
        dump = getattr(v, "model_dump", None)                   # pydantic v2
        if callable(dump):
            return _syn(_dumped(v, dump), depth + 1, active, keep)
        if callable(getattr(v, "dict", None)) and hasattr(type(v), "__fields__"):  # v1
            return _syn(_dumped(v, lambda mode: v.dict()), depth + 1, active, keep)
    # A value can be a date only once the classes are loaded: by `datetime`, or by the C
    # module `_datetime` alone (which holds them, and which msgpack imports: vm.codec).
    dt = sys.modules.get("datetime") or sys.modules.get("_datetime")
    if dt is not None and isinstance(v, (dt.date, dt.time)):
        return _syn(v.isoformat(), depth, active, keep)
    raise Unholdable(f"type {_type_name(v)}")


def _dumped(v, dump):
    """A pydantic model's fields: as JSON data, else (a field pydantic cannot serialise,
    a Labelled part) as Python values for this conversion to take apart."""
    try:
        return dump(mode="json")
    except Exception:           # noqa: BLE001 - pydantic's serialisation errors vary
        try:
            return dump(mode="python")
        except Exception as e:  # noqa: BLE001
            raise Unholdable(f"type {_type_name(v)} (its model_dump failed: "
                             f"{one_line(e)})") from None


def _container(v, depth, active, keep, convert, items, style=None):
    if depth >= MAX_DEPTH:
        raise Unholdable(f"nested deeper than {MAX_DEPTH} levels")
    if id(v) in active:
        raise Unholdable("a cycle: it contains itself")
    active.add(id(v))
    try:
        return convert(items, depth + 1, active, keep, style)
    except (Unholdable, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 - its iteration (items(), __iter__) failed
        raise Unholdable(f"type {_type_name(v)} (reading it raised {one_line(e)})") from None
    finally:
        active.discard(id(v))


def _items(items, depth, active, keep, _style):
    out = []
    labelled = False
    for i, x in enumerate(items):
        try:
            y = _syn(x, depth, active, keep)
        except Unholdable as e:
            e.path.append(f"[{i}]")
            raise
        labelled = labelled or type(y) is Labeled
        out.append(y)
    # Labelled parts inside: the list keeps each element's labels (its shape has none).
    return P.build_list(out, EMPTY) if labelled else out


def _pairs(items, depth, active, keep, style):
    if isinstance(items, dict):
        items = items.items()       # here, where what a subclass's items() raises is caught
    out = {}
    labelled = False
    for k, x in items:
        key = _key(k)
        if key in out:
            raise Unholdable(f"two keys that are one in Synsema ({show_key(key)})")
        try:
            y = _syn(x, depth, active, keep)
        except Unholdable as e:
            e.path.append(f".{key}" if style == "." else f"[{show_key(key)}]")
            raise
        labelled = labelled or type(y) is Labeled
        out[key] = y
    if not labelled:
        return out
    raw = []
    for key, y in out.items():
        raw += (key, y)
        if type(y) is Labeled:
            out[key] = y.v
    return P.build_map(raw, out, EMPTY)


def from_python_key(k):
    """The stored Synsema map key of a Python dict key (text, number or bool); raises
    Unholdable."""
    return _key(k)


def _key(k):
    if isinstance(k, enum.Enum):
        k = k.value
    if isinstance(k, bool):
        return norm_key(bool(k))
    if isinstance(k, str):
        bad = lone_surrogate(str.__str__(k))
        if bad:
            raise Unholdable(f"a lone surrogate \\u{ord(bad):04x} in a map key")
        return str.__str__(k)
    if isinstance(k, int):
        return int.__int__(k)
    if isinstance(k, float):
        k = float.__float__(k)
        if not math.isfinite(k):
            raise Unholdable(f"the map key {k} (Synsema takes in no NaN or infinity)")
        return k
    raise Unholdable(f"a map key of type {_type_name(k)}")


# ---- out of Synsema ------------------------------------------------------------------------

def to_python(v):
    """A Synsema value (plain: no labels) as a fresh Python value (the rules above);
    raises Unholdable."""
    try:
        return _py(v)
    except RecursionError:
        raise Unholdable("a value nested too deeply for Python") from None


def _py(v):
    t = type(v)
    if t is list:
        out = []
        for i, x in enumerate(v):
            try:
                out.append(_py(x))
            except Unholdable as e:
                e.path.append(f"[{i}]")
                raise
        return out
    if t is dict:
        out = {}
        for k, x in v.items():
            key = denorm_key(k)
            try:
                out[key] = _py(x)
            except Unholdable as e:
                e.path.append(f"[{show_key(k)}]")
                raise
        if len(out) != len(v):
            raise Unholdable(_merged(v))
        return out
    if t is Closure:
        raise Unholdable(f"a task value ({v})")
    return v


def _merged(m):
    """What a map holds that a Python dict would merge: a bool key and the number equal to
    it in Python."""
    for k in m:
        if type(k) is BoolKey and k.value in m:
            n = next(x for x in m if type(x) is not BoolKey and x == k.value)
            return (f"a map with the keys {show_key(n)} and {show_key(k)}, which are one "
                    f"key in Python ({show_key(n)} == {'True' if k.value else 'False'}); "
                    "make them texts (text(key)) to keep both")
    return "a map with two keys that are one in Python"
