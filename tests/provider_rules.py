"""The providers' published restrictions on the JSON Schemas a client sends, written down
as a checker (independent of Synsema's own code, which must satisfy it).

Sources (the providers' documentation and the errors their APIs give):

OpenAI function calling (`tools[].function.parameters`, not strict):
  * the parameters are an object schema; a tool name matches ^[a-zA-Z0-9_-]{1,64}$;
  * every array schema has `items` (else HTTP 400 invalid_function_parameters: "array
    schema missing items"), every object schema has `properties` ("object schema
    missing properties");
  * no anyOf/oneOf/allOf/enum/not at the top level of the parameters.
OpenAI structured outputs (`response_format` json_schema with "strict": true; a strict
function the same):
  * the root is an object, not anyOf;
  * every object has `additionalProperties: false` and lists every property in
    `required` (an optional field is written as a required nullable one);
  * only the supported keywords: type (one or a list, e.g. ["string", "null"]), properties,
    required, additionalProperties, items, enum, const, anyOf, $defs, $ref, description,
    title; for strings pattern and format (date-time, time, date, duration, email,
    hostname, ipv4, ipv6, uuid); for numbers multipleOf, minimum, maximum,
    exclusiveMinimum, exclusiveMaximum; for arrays minItems, maxItems;
  * every schema says what it is (type, anyOf, $ref, enum or const): no open `{}`;
  * at most 10 levels of nesting, 5000 properties in all, 1000 enum values in all.
  * the json_schema `name` matches ^[a-zA-Z0-9_-]{1,64}$.
Anthropic (`tools[].input_schema`, also the forced tool of tool_choice):
  * a JSON Schema object with "type": "object" at the root; a tool name matches
    ^[a-zA-Z0-9_-]{1,64}$.
MCP (`tools/list` inputSchema): a JSON Schema object with "type": "object" at the root.

Every one is also checked for well-formedness against the JSON Schema Draft 2020-12
meta-schema (jsonschema's check_schema).
"""

import re

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")

STRICT_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum",
                   "const", "anyOf", "$defs", "$ref", "description", "title", "pattern",
                   "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
                   "exclusiveMaximum", "minItems", "maxItems"}
STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4",
                  "ipv6", "uuid"}
JSON_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}


def _subschemas(schema, path):
    """(path, subschema) of every schema directly inside `schema`."""
    for key, sub in (schema.get("properties") or {}).items():
        yield f"{path}.properties.{key}", sub
    if isinstance(schema.get("items"), dict):
        yield f"{path}.items", schema["items"]
    if isinstance(schema.get("additionalProperties"), dict):
        yield f"{path}.additionalProperties", schema["additionalProperties"]
    for i, sub in enumerate(schema.get("anyOf") or []):
        yield f"{path}.anyOf[{i}]", sub
    for key, sub in (schema.get("$defs") or {}).items():
        yield f"$defs.{key}", sub


def _types(schema):
    t = schema.get("type")
    return set(t) if isinstance(t, list) else {t} if t is not None else set()


def _walk(schema, path="(root)", depth=0):
    yield path, schema, depth
    for sub_path, sub in _subschemas(schema, path):
        yield from _walk(sub, sub_path, depth + 1)


def well_formed(schema):
    """Problems against the Draft 2020-12 meta-schema (empty: none)."""
    import jsonschema
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        return [f"not a valid JSON Schema: {e.message}"]
    return []


def function_parameters(schema):
    """Problems of an OpenAI function's parameters (not strict)."""
    problems = well_formed(schema)
    if schema.get("type") != "object":
        problems.append("(root): the parameters must be an object schema")
    for key in ("anyOf", "oneOf", "allOf", "enum", "not"):
        if key in schema:
            problems.append(f"(root): {key} is not allowed at the top level")
    for path, sub, _ in _walk(schema):
        if not isinstance(sub, dict):
            problems.append(f"{path}: a schema must be an object")
            continue
        types = _types(sub)
        if "array" in types and "items" not in sub:
            problems.append(f"{path}: array schema missing items")
        if "object" in types and "properties" not in sub:
            problems.append(f"{path}: object schema missing properties")
    return problems


def strict(schema):
    """Problems of a schema sent with "strict": true (OpenAI structured outputs)."""
    problems = function_parameters(schema)
    if "anyOf" in schema:
        problems.append("(root): the root must not be anyOf")
    properties = enums = 0
    for path, sub, depth in _walk(schema):
        if not isinstance(sub, dict):
            continue
        if depth > 10:
            problems.append(f"{path}: nested more than 10 levels")
        for key in sub:
            if key not in STRICT_KEYWORDS:
                problems.append(f"{path}: keyword {key!r} is not supported in strict mode")
        if not ({"type", "anyOf", "$ref", "enum", "const"} & set(sub)):
            problems.append(f"{path}: a schema must say its type (no open {{}})")
        if "format" in sub and sub["format"] not in STRICT_FORMATS:
            problems.append(f"{path}: format {sub['format']!r} is not supported")
        if not _types(sub) <= JSON_TYPES:
            problems.append(f"{path}: unknown type {sub.get('type')!r}")
        if "object" in _types(sub):
            props = sub.get("properties") or {}
            properties += len(props)
            if sub.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties must be false")
            if sorted(sub.get("required") or []) != sorted(props):
                problems.append(f"{path}: every property must be required "
                                "(an optional one is written as nullable)")
        enums += len(sub.get("enum") or [])
    if properties > 5000:
        problems.append("more than 5000 properties")
    if enums > 1000:
        problems.append("more than 1000 enum values")
    return problems


def anthropic_input_schema(schema):
    """Problems of an Anthropic tool's input_schema."""
    problems = well_formed(schema)
    if not isinstance(schema, dict) or schema.get("type") != "object":
        problems.append("(root): input_schema must have type object")
    return problems


def mcp_input_schema(schema):
    return anthropic_input_schema(schema)


def tool_name(name):
    return [] if NAME.fullmatch(name or "") else [f"tool name {name!r} is not ^[a-zA-Z0-9_-]{{1,64}}$"]


def openai_request(body):
    """Problems of every schema in an OpenAI Chat Completions request body."""
    problems = []
    for tool in body.get("tools") or []:
        fn = tool["function"]
        problems += tool_name(fn["name"])
        check = strict if fn.get("strict") else function_parameters
        problems += [f"tool {fn['name']}: {p}" for p in check(fn["parameters"])]
    fmt = body.get("response_format")
    if fmt is not None:
        spec = fmt["json_schema"]
        problems += tool_name(spec["name"])
        check = strict if spec.get("strict") else function_parameters
        problems += [f"response_format: {p}" for p in check(spec["schema"])]
    return problems


def anthropic_request(body):
    """Problems of every schema in an Anthropic Messages request body."""
    problems = []
    names = set()
    for tool in body.get("tools") or []:
        problems += tool_name(tool["name"])
        names.add(tool["name"])
        problems += [f"tool {tool['name']}: {p}"
                     for p in anthropic_input_schema(tool["input_schema"])]
    choice = body.get("tool_choice")
    if choice is not None and choice.get("type") == "tool" and choice.get("name") not in names:
        problems.append(f"tool_choice names {choice.get('name')!r}, which is not in tools")
    return problems
