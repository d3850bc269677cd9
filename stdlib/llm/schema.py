"""Typed `extract` (SPEC 11): the JSON Schema of a type, how it goes on the wire, and the
check of the model's answer against it.

A type is a type name (number, text, bool, list, map) or a JSON Schema map. What the
model is sent must pass the strictest published rules (OpenAI's structured-output and
function-calling subsets, Anthropic's input_schema): an array has `items`, an object has
`properties`, and the root is an object, so a type that is not an object is sent wrapped
as {"value": TYPE} and unwrapped from the answer. The request is strict (OpenAI
`"strict": true`) only when the schema is in the strict subset (every object closed with
`additionalProperties: false` and every key required); a `map` (keys not known ahead) and
a schema outside that subset go with `"strict": false`, and the answer is checked here
either way.

The answer is checked by a small validator of the keywords below, the subset the
providers take; a schema with any other keyword is refused before anything is sent, so no
part of a type is silently left unchecked. Core needs no `jsonschema` package for it (the
tests check this validator against jsonschema's, on the same schemas and answers).
"""

import json
import math

from .errors import ProviderError, clip

TYPE_NAMES = ("number", "text", "bool", "list", "map")

_SCALAR = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}

# What a type name asks the model for. A `list` without a schema is a list of texts,
# numbers and truth values (strict mode cannot say "any JSON"; give a JSON Schema for a
# list of records); a `map` has keys not known ahead, which strict mode cannot say.
NAMED = {
    "number": {"type": "number"},
    "text": {"type": "string"},
    "bool": {"type": "boolean"},
    "list": {"type": "array", "items": _SCALAR},
    "map": {"type": "object", "properties": {}, "additionalProperties": _SCALAR},
}

# The words of the error (`the model's answer is not a number`).
_WORDS = {"number": "a number", "string": "a text", "boolean": "a bool", "array": "a list",
          "object": "a map", "integer": "a whole number", "null": "nothing"}

_JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")

# The keywords a type's schema may use: the providers' strict subset plus a few
# annotations. Each is checked by validate(), or is an annotation that checks nothing.
KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "anyOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems", "minLength", "maxLength", "pattern", "format", "$defs", "$ref",
    "description", "title", "default", "examples", "$schema",
})
# OpenAI's strict subset: a schema using any other keyword goes with "strict": false.
STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "anyOf", "$defs", "$ref", "description", "title", "pattern", "format", "multipleOf",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
})
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                            "ipv4", "ipv6", "uuid"})
STRICT_DEPTH = 10

MAX_DEPTH = 32


class Type:
    """A checked extract type: .schema (what the answer must match, as written), .wire
    (the object schema sent), .wrapped (the answer comes as {"value": ...}), .strict,
    .word (how an error names it: "a number", "of the type")."""

    def __init__(self, typ):
        if isinstance(typ, str):
            if typ not in TYPE_NAMES:
                raise ProviderError(f"extract: unknown type {json.dumps(typ)}; give one of "
                                    f"{', '.join(TYPE_NAMES)}, or a JSON Schema map")
            self.name = typ
            self.schema = NAMED[typ]
            self.word = _WORDS[NAMED[typ]["type"]]
        elif isinstance(typ, dict):
            self.name = None
            check_schema(typ)
            # $schema names the dialect (2020-12 is what the providers read): not sent.
            self.schema = complete({k: v for k, v in typ.items() if k != "$schema"})
            self.word = "of the type"
        else:
            raise ProviderError("extract: the type must be a type name (number, text, bool, "
                                "list, map) or a JSON Schema map")
        root = self.schema
        self.wrapped = not (root.get("type") == "object" and "anyOf" not in root
                            and "$ref" not in root)
        if self.wrapped:
            wire = {"type": "object", "properties": {"value": root}, "required": ["value"],
                    "additionalProperties": False}
            defs = root.get("$defs")
            if defs is not None:        # a $ref resolves from the root
                inner = {k: v for k, v in root.items() if k != "$defs"}
                wire["properties"]["value"] = inner
                wire["$defs"] = defs
            self.wire = wire
        else:
            self.wire = root
        self.strict = is_strict(self.wire)

    def unwrap(self, answer):
        if self.wrapped and isinstance(answer, dict) and set(answer) == {"value"}:
            return answer["value"]
        return answer           # a server that ignored the wrapper answered the value

    def problem(self, value):
        """None when `value` is of the type, else why not ("is not a number")."""
        if self.name is not None:
            if self.name in ("list", "map"):
                ok = isinstance(value, list if self.name == "list" else dict)
            else:
                ok = _is_type(value, self.schema["type"])
            return None if ok else f"is not {self.word}"
        return validate(value, self.schema)


# ---- the schema a program gives -------------------------------------------------------------

def check_schema(schema, path="", depth=0, root=None):
    """A ProviderError naming the place when `schema` is not a schema validate() can check
    (an unknown keyword, a type that is no JSON type, a $ref to nowhere)."""
    root = schema if root is None else root
    where = f" at {path}" if path else ""
    if depth > MAX_DEPTH:
        raise ProviderError(f"extract: the type's JSON Schema is nested more than {MAX_DEPTH} "
                            "deep")
    if not isinstance(schema, dict):
        raise ProviderError(f"extract: the type's JSON Schema{where} must be a map, got "
                            f"{clip(json.dumps(schema, default=str), 80)}")
    for key in schema:
        if key not in KEYWORDS:
            raise ProviderError(
                f"extract: the type's JSON Schema{where} uses {json.dumps(key)}, which "
                f"extract does not check; use only {', '.join(sorted(KEYWORDS))}")
    typ = schema.get("type")
    kinds = typ if isinstance(typ, list) else [typ] if typ is not None else []
    if not kinds and typ is not None or any(k not in _JSON_TYPES for k in kinds):
        raise ProviderError(f"extract: the type's JSON Schema{where} has type "
                            f"{json.dumps(typ)}; use one of {', '.join(_JSON_TYPES)}")
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise ProviderError(f"extract: 'properties'{where} must be a map of schemas")
    for name, sub in props.items():
        check_schema(sub, f"{path}.{name}" if path else name, depth + 1, root)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ProviderError(f"extract: 'required'{where} must be a list of texts")
    extra = schema.get("additionalProperties", True)
    if not isinstance(extra, bool):
        check_schema(extra, f"{path}.*" if path else "*", depth + 1, root)
    if "items" in schema:
        check_schema(schema["items"], f"{path}[]", depth + 1, root)
    if "anyOf" in schema:
        options = schema["anyOf"]
        if not isinstance(options, list) or not options:
            raise ProviderError(f"extract: 'anyOf'{where} must be a non-empty list of schemas")
        for i, sub in enumerate(options):
            check_schema(sub, f"{path}(anyOf {i})", depth + 1, root)
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        raise ProviderError(f"extract: 'enum'{where} must be a non-empty list")
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                "minItems", "maxItems", "minLength", "maxLength"):
        if key in schema and not _is_type(schema[key], "number"):
            raise ProviderError(f"extract: {json.dumps(key)}{where} must be a number")
    if "pattern" in schema and not isinstance(schema["pattern"], str):
        raise ProviderError(f"extract: 'pattern'{where} must be a text")
    defs = schema.get("$defs", {})
    if not isinstance(defs, dict):
        raise ProviderError(f"extract: '$defs'{where} must be a map of schemas")
    for name, sub in defs.items():
        check_schema(sub, f"$defs.{name}", depth + 1, root)
    if "$ref" in schema:
        _resolve(schema["$ref"], root)


def _resolve(ref, root):
    prefix = "#/$defs/"
    defs = root.get("$defs") if isinstance(root, dict) else None
    if (not isinstance(ref, str) or not ref.startswith(prefix) or not isinstance(defs, dict)
            or ref[len(prefix):] not in defs):
        raise ProviderError(f"extract: the type's $ref {json.dumps(ref, default=str)} names "
                            "no entry of the schema's $defs (write \"#/$defs/NAME\")")
    return defs[ref[len(prefix):]]


def complete(schema):
    """The schema with what the providers require and JSON Schema leaves implied: `items`
    on an array, `properties` on an object (neither changes what the schema accepts)."""
    if isinstance(schema, list):
        return [complete(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("properties", "$defs"):
            out[key] = {k: complete(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "anyOf"):
            out[key] = complete(value)
        else:
            out[key] = value
    typ = out.get("type")
    kinds = typ if isinstance(typ, list) else [typ]
    if "array" in kinds and "items" not in out:
        out["items"] = {}
    if "object" in kinds and "properties" not in out:
        out["properties"] = {}
    return out


def is_strict(schema, depth=0):
    """Whether `schema` is in OpenAI's strict subset: every object closed
    (additionalProperties false) with every property required, no open `{}`, only the
    strict keywords and formats, at most 10 levels deep."""
    if not isinstance(schema, dict) or depth > STRICT_DEPTH:
        return False
    if not set(schema) <= STRICT_KEYWORDS or schema.get("format", "date") not in STRICT_FORMATS:
        return False
    if not schema or ("type" not in schema and "anyOf" not in schema and "$ref" not in schema
                      and "enum" not in schema and "const" not in schema):
        return False
    typ = schema.get("type")
    kinds = typ if isinstance(typ, list) else [typ]
    if "object" in kinds:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if sorted(schema.get("required", [])) != sorted(props):
            return False
        if not all(is_strict(s, depth + 1) for s in props.values()):
            return False
    if "items" in schema and not is_strict(schema["items"], depth + 1):
        return False
    if "anyOf" in schema and not all(is_strict(s, depth + 1) for s in schema["anyOf"]):
        return False
    return all(is_strict(s, depth + 1) for s in schema.get("$defs", {}).values())


# ---- the answer -------------------------------------------------------------------------

def _is_type(value, kind):
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and math.isfinite(value))
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if kind == "string":
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False


def validate(value, schema, root=None, path=""):
    """None when `value` matches the (checked) schema, else why not: "is not a number",
    or "at .items[2]: is not a text"."""
    root = schema if root is None else root
    why = _first_problem(value, schema, root, path)
    if why is None:
        return None
    where, text = why
    return f"at {where}: {text}" if where else text


def _first_problem(value, schema, root, path):
    if "$ref" in schema:
        found = _first_problem(value, _resolve(schema["$ref"], root), root, path)
        if found is not None:
            return found
    typ = schema.get("type")
    if typ is not None:
        kinds = typ if isinstance(typ, list) else [typ]
        if not any(_is_type(value, k) for k in kinds):
            return path, "is not " + " or ".join(_WORDS[k] for k in kinds)
    if "anyOf" in schema:
        if all(_first_problem(value, s, root, path) is not None for s in schema["anyOf"]):
            return path, "matches none of the choices (anyOf)"
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        shown = ", ".join(json.dumps(e, ensure_ascii=False) for e in schema["enum"])
        return path, f"is not one of {clip(shown, 120)}"
    if "const" in schema and not _same(value, schema["const"]):
        return path, f"is not {json.dumps(schema['const'], ensure_ascii=False)}"
    if _is_type(value, "number"):
        for key, ok in (("minimum", lambda v, b: v >= b), ("maximum", lambda v, b: v <= b),
                        ("exclusiveMinimum", lambda v, b: v > b),
                        ("exclusiveMaximum", lambda v, b: v < b)):
            if key in schema and not ok(value, schema[key]):
                return path, f"is outside {key} {schema[key]}"
        step = schema.get("multipleOf")
        if step and not _multiple(value, step):
            return path, f"is not a multiple of {step}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return path, f"is shorter than {schema['minLength']} characters"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return path, f"is longer than {schema['maxLength']} characters"
        if "pattern" in schema:
            import re
            try:
                if re.search(schema["pattern"], value) is None:
                    return path, f"does not match the pattern {json.dumps(schema['pattern'])}"
            except re.error:
                pass        # a pattern Python cannot read is left to the provider
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return path, f"has fewer than {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return path, f"has more than {schema['maxItems']} items"
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                found = _first_problem(item, items, root, f"{path}[{i}]")
                if found is not None:
                    return found
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                return path, f"has no {json.dumps(key)}"
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            sub = f"{path}.{key}"
            if key in props:
                found = _first_problem(item, props[key], root, sub)
            elif extra is False:
                return path, f"has {json.dumps(key)}, which the type does not have"
            elif isinstance(extra, dict):
                found = _first_problem(item, extra, root, sub)
            else:
                found = None
            if found is not None:
                return found
    return None


def _same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _multiple(value, step):
    q = value / step
    return math.isfinite(q) and abs(q - round(q)) < 1e-9


def shown(value):
    """The model's answer as an error quotes it: JSON, clipped."""
    try:
        return clip(json.dumps(value, ensure_ascii=False), 120)
    except (RecursionError, ValueError):
        return "(an answer nested too deeply to show)"
