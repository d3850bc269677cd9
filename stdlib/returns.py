"""What a host tool returns, as a JSON Schema (SPEC 15.1 "What it returns").

The return annotation becomes the schema of the value the program receives (after
stdlib.hosttools.to_synsema converts it): str -> string, int -> integer, float -> number,
bool -> boolean, None -> null, list[X] / tuple[X, ...] -> array of X, dict[str, X]
-> object whose values are X, X | None -> anyOf [X, null], a Literal or text/number Enum
-> enum of its values, datetime/date/time -> string (their ISO text), and records -- a
dataclass, a pydantic model, a NamedTuple, a TypedDict -- an object of their fields
(every field, all required and no others: the conversion gives each field, always).
A planner reads it to know which fields a result has.

Every schema is one a provider takes: arrays have `items`, objects `properties`. What has
no such schema (Any, a class Synsema cannot hold, a forward name that does not resolve) is
`{}`, "any value": a return annotation never stops a tool from being declared, since the
result is checked when it comes, not here.
"""

import collections.abc
import dataclasses
import datetime
import enum
import types
import typing

MAX_DEPTH = 20

_SCALARS = {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
            bool: {"type": "boolean"}, type(None): {"type": "null"},
            datetime.datetime: {"type": "string"}, datetime.date: {"type": "string"},
            datetime.time: {"type": "string"}}


def returns_schema(annotation, empty):
    """The JSON Schema of a return annotation, or None when there is none (`empty`)."""
    if annotation is empty:
        return None
    return _schema(annotation, 0, frozenset())


def _schema(a, depth, active):
    if depth > MAX_DEPTH:
        return {}
    if a is None or a is type(None):
        return {"type": "null"}
    origin = typing.get_origin(a)
    args = typing.get_args(a)
    if origin is typing.Annotated:
        return _schema(args[0], depth, active)
    if origin is typing.Literal:
        return _enum(args)
    if origin in (typing.Union, types.UnionType):
        return _union(args, depth, active)
    base = origin or a
    if base in _SCALARS:
        return dict(_SCALARS[base])
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return _enum(tuple(m.value for m in base))
    if base in (list, collections.abc.Sequence):
        return {"type": "array", "items": _schema(args[0], depth + 1, active) if args else {}}
    if base is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema(args[0], depth + 1, active)}
        if args and args != ((),):
            options = _distinct([_schema(x, depth + 1, active) for x in args])
            items = options[0] if len(options) == 1 else {"anyOf": options}
            return {"type": "array", "items": items, "minItems": len(args),
                    "maxItems": len(args)}
        return {"type": "array", "items": {}}
    if base in (dict, collections.abc.Mapping):
        values = _schema(args[1], depth + 1, active) if len(args) == 2 else {}
        return {"type": "object", "properties": {}, "additionalProperties": values or True}
    if isinstance(base, type):
        if base in active:          # a record that holds itself: no schema can say it
            return {"type": "object", "properties": {}}
        fields = _record_fields(base)
        if fields is not None:
            inner = active | {base}
            properties = {name: _schema(t, depth + 1, inner) for name, t in fields}
            keys = getattr(base, "__required_keys__", None) if typing.is_typeddict(base) else None
            return {"type": "object", "properties": properties,
                    "required": [n for n in properties if keys is None or n in keys],
                    "additionalProperties": False}
    return {}


def _union(args, depth, active):
    options = _distinct([_schema(x, depth + 1, active) for x in args])
    if any(o == {} for o in options):
        return {}
    return options[0] if len(options) == 1 else {"anyOf": options}


def _distinct(schemas):
    out = []
    for s in schemas:
        if s not in out:
            out.append(s)
    return out


def _enum(values):
    kinds = {type(v) for v in values}
    schema = {"enum": list(values)}
    if len(kinds) == 1 and next(iter(kinds)) in _SCALARS:
        schema = {**_SCALARS[next(iter(kinds))], **schema}
    return schema


def _record_fields(cls):
    """[(field name, annotation)] of a record class (as to_synsema gives it: every
    field), or None when `cls` is no record."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:       # noqa: BLE001 - a name the annotations use is not defined
        hints = {}
    if dataclasses.is_dataclass(cls):
        return [(f.name, hints.get(f.name, f.type)) for f in dataclasses.fields(cls)]
    model_fields = getattr(cls, "model_fields", None)       # pydantic v2
    if isinstance(model_fields, dict) and hasattr(cls, "model_dump"):
        return [(name, getattr(info, "annotation", typing.Any))
                for name, info in model_fields.items()]
    v1_fields = getattr(cls, "__fields__", None)            # pydantic v1
    if isinstance(v1_fields, dict) and hasattr(cls, "dict"):
        return [(name, getattr(f, "outer_type_", typing.Any)) for name, f in v1_fields.items()]
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):     # NamedTuple
        return [(name, hints.get(name, typing.Any)) for name in cls._fields]
    if typing.is_typeddict(cls):
        return list(hints.items())
    return None
