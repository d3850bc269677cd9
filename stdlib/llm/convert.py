"""Catalog entries -> JSON Schema, and the model's arguments -> Synsema values (SPEC 11).

A catalog entry is {"name", "describe", "params": ["a: number", "city", ...],
"optional": [...]} ("optional" may be absent). The argument table is the seed page's,
applied per declared type:

| declared        | the model returns          | arrives as                                 |
|-----------------|----------------------------|--------------------------------------------|
| number          | "2" or 2                   | 2 (ints stay int; "2.5" -> 2.5)             |
| bool            | "true" / "false"           | true / false                               |
| list            | "[1,2]"                    | [1, 2]                                     |
| map             | "{\"a\":1}"                | {"a": 1}                                   |
| text            | 5                          | "5" (numbers shown the Synsema way)        |
| untyped         | 2                          | "2", as before types existed               |
| number          | "two"                      | "two" (call_tool rejects it)               |
| optional, or typed other than text | null / "null" | key dropped                         |

Anything the table does not convert is kept as it came, so call_tool can reject it with
its own message; so are keys the catalog does not declare. A required text or untyped
parameter given null keeps nothing (call_tool decides), and "null" stays the text "null".
"""

import math
import re

from synsema.vm.display import display    # the one shown form of a value (SPEC 4)
from synsema.vm.jsonvalues import json_decode
from synsema.vm.digits import int_of_digits
from synsema.vm.errors import SynError

from .errors import ProviderError

TYPES = ("number", "text", "bool", "list", "map", "task", "any")

# Every schema sent must pass the strictest published rules (OpenAI refuses an array
# without "items" and an object without "properties" with HTTP 400, "array schema missing
# items"): a list holds any values, a map any keys, said explicitly.
SCHEMAS = {
    "number": {"type": "number"},
    "text": {"type": "string"},
    "bool": {"type": "boolean"},
    "list": {"type": "array", "items": {}},
    "map": {"type": "object", "properties": {}, "additionalProperties": True},
    "any": {},
    None: {"type": "string"},       # untyped: the model writes text, as before types
}

# ASCII digits, as number() reads them (\d would take any script's digits).
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def parse_param(spec, tool="?"):
    """"a: number" -> ("a", "number"); "city" -> ("city", None)."""
    if not isinstance(spec, str):
        raise ProviderError(f"catalog entry '{tool}': each of 'params' must be a text like "
                            f"\"a: number\" or \"city\", got {display(spec)}")
    name, sep, typ = spec.partition(":")
    name, typ = name.strip(), typ.strip() if sep else None
    if not name or (sep and typ not in TYPES):
        valid = ", ".join(TYPES)
        raise ProviderError(f"catalog entry '{tool}': cannot read parameter {spec!r}; "
                            f"write \"name\" or \"name: type\" with a type among {valid}")
    return name, typ


def entry_name(entry):
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        raise ProviderError("each catalog entry must be a map with a text 'name', "
                            f"'describe' and 'params', got {display(entry)}")
    return entry["name"]


def params_of(entry):
    """[(name, type)] and the set of optional names of a catalog entry."""
    name = entry_name(entry)
    params = entry.get("params", [])
    if params is None:
        params = []
    if not isinstance(params, list):
        raise ProviderError(f"catalog entry '{name}': 'params' must be a list, "
                            f"got {display(params)}")
    optional = entry.get("optional") or []
    if not isinstance(optional, list):
        raise ProviderError(f"catalog entry '{name}': 'optional' must be a list, "
                            f"got {display(optional)}")
    return [parse_param(p, name) for p in params], {o for o in optional if isinstance(o, str)}


def input_schema(entry):
    """The JSON Schema of a catalog entry's parameters. A host tool's entry also has
    "param_describe" (parameter -> text): each becomes that property's description."""
    params, optional = params_of(entry)
    notes = entry.get("param_describe")
    notes = notes if isinstance(notes, dict) else {}
    properties = {}
    for name, typ in params:
        if typ == "task":
            continue
        properties[name] = dict(SCHEMAS[typ])
        note = notes.get(name)
        if note is not None and note != "":
            properties[name]["description"] = note if isinstance(note, str) else display(note)
    required = [name for name, typ in params if name not in optional and typ != "task"]
    return {"type": "object", "properties": properties, "required": required}


# Provider APIs take tool names matching ^[a-zA-Z0-9_-]{1,64}$ (OpenAI and Anthropic
# alike), and host tools have dotted names (bank.send_money): on the wire a dot is "__".
# The way back is a lookup in the catalog, not a string rule, so a name that has "__" of
# its own comes back as it went.
_WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def wire_names(catalog):
    """[wire name] of a catalog's entries, in order (`bank.send_money` -> `bank__send_money`).
    A name that cannot be sent, or two names that would be sent alike, is a ProviderError."""
    seen = {}
    out = []
    for entry in catalog:
        name = entry_name(entry)
        wire = name.replace(".", "__")
        if not _WIRE_NAME.fullmatch(wire):
            raise ProviderError(f"catalog entry '{name}': a tool name sent to a model may "
                                "have only letters, digits, '_', '-' and '.', and at most 64 "
                                "characters (a '.' counts as two)")
        other = seen.setdefault(wire, name)
        if other != name:
            raise ProviderError(f"catalog entries '{other}' and '{name}' would both reach "
                                f"the model as '{wire}'; rename one of them")
        out.append(wire)
    return out


def catalog_name(wire, catalog):
    """The catalog's name for a tool name the model answered; one that matches no entry
    is kept as it came (the program's allow-list decides about it)."""
    for entry in catalog or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.replace(".", "__") == wire:
            return name
    return wire


def describe(entry):
    text = entry.get("describe", "")
    return text if isinstance(text, str) else display(text)


def find_entry(catalog, name):
    for entry in catalog or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None


def convert_args(args, catalog_entry):
    """The model's arguments converted per the entry's declared types (module docstring).
    Returns a new dict; `args` is left unchanged."""
    if not isinstance(args, dict):
        return args
    if catalog_entry is None:
        return dict(args)
    params, optional = params_of(catalog_entry)
    declared = dict(params)
    out = {}
    for key, value in args.items():
        if key not in declared:
            out[key] = value
            continue
        typ = declared[key]
        if (value is None or value == "null") and (key in optional or typ not in (None, "text")):
            continue
        out[key] = convert_value(value, typ)
    return out


def convert_value(value, typ):
    if typ == "number":
        if isinstance(value, str):
            return parse_number(value)
        return value
    if typ == "bool":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return value
    if typ in ("list", "map"):
        if isinstance(value, str):
            want = list if typ == "list" else dict
            try:
                parsed = json_decode(value)     # as json_decode reads it: no nan, no
            except SynError:                    # lone surrogate, integers of any length
                return value
            return parsed if isinstance(parsed, want) else value
        return value
    if typ in ("text", None):
        if value is None or isinstance(value, str):
            return value
        return display(value)
    return value        # any, task


def parse_number(text):
    """The number a text spells, or the text itself when it spells none."""
    s = text.strip()
    if _INT.fullmatch(s):
        return int_of_digits(s)
    if _FLOAT.fullmatch(s):
        f = float(s)
        if math.isfinite(f):
            return f
    return text
