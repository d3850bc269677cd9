"""Every JSON Schema Synsema sends is one the strictest providers accept (issue 33).

The rules are the providers' published restrictions, written down in tests/provider_rules.py
(independent of Synsema's code), plus the Draft 2020-12 meta-schema. They are run over
the schemas of a wide set of programs and tools: every parameter type, optional or not;
the tasks of every example and conformance program (as tool_spec makes their catalog
entries, and as `syn outline --json` and `syn serve --mcp` give their input schemas: serve
sends outline's, tests/test_mcp.py checks they are the same); host tools of many
annotations (parameters and `returns`); typed extract of every type name and of JSON
Schemas a program may give. The catalog and extract requests are the bodies that really
reached tests/llm_server.py, on both wires.
"""

import dataclasses
import enum
import json
import os
import sys
from pathlib import Path
from typing import Any, Literal, NamedTuple, Optional, TypedDict

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import provider_rules as rules  # noqa: E402
from llm_server import (LLMServer, anthropic_tools, openai_text, openai_tools,  # noqa: E402
                        provider_for)

import synsema  # noqa: E402
from synsema.cli.describe import outline  # noqa: E402
from synsema.stdlib.hosttools import catalog_entry  # noqa: E402
from synsema.stdlib.llm.convert import input_schema  # noqa: E402
from synsema.stdlib.llm.schema import Type  # noqa: E402

pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT.parent / "shared" / "conformance"
TYPES = ["number", "text", "bool", "list", "map", "any", "task", None]


def _param(name, typ):
    return name if typ is None else f"{name}: {typ}"


def typed_entries():
    """Catalog entries of every parameter type, required and optional, alone and all
    together, with and without descriptions."""
    out = []
    for i, typ in enumerate(TYPES):
        for optional in (False, True):
            out.append({"name": f"t{i}_{int(optional)}", "describe": "d",
                        "params": [_param("x", typ)], "optional": ["x"] if optional else []})
    out.append({"name": "none", "describe": "no parameters", "params": []})
    out.append({"name": "all", "describe": "every type",
                "params": [_param(f"p{i}", t) for i, t in enumerate(TYPES)],
                "optional": [f"p{i}" for i in range(0, len(TYPES), 2)],
                "param_describe": {"p0": "a number", "p3": "a list"}})
    return out


def program_sources():
    paths = sorted(ROOT.glob("examples/**/*.syn"))
    if CONFORMANCE.exists():
        paths += sorted(CONFORMANCE.glob("**/*.syn"))
    return paths


def program_tasks():
    """outline() of every example and conformance program that compiles."""
    out = []
    for path in program_sources():
        try:
            program = synsema.compile_source(path.read_text(encoding="utf-8"), path.name)
        except Exception:       # noqa: BLE001 - conformance cases of compile errors
            continue
        out.append((path, outline(program.compiled)))
    assert len(out) >= 20, "expected the example and conformance programs"
    return out


def task_entries():
    """Catalog entries as tool_spec makes them, of every task of those programs."""
    entries = []
    for path, data in program_tasks():
        for t in data["tasks"]:
            entries.append({"name": t["name"], "describe": f"{t['name']} of {path.name}",
                            "params": [_param(p["name"], p["type"]) for p in t["parameters"]],
                            "optional": [p["name"] for p in t["parameters"] if p["optional"]]})
    return entries


# ---- host tools of many annotations ------------------------------------------------------

@dataclasses.dataclass
class Txn:
    id: int
    amount: float
    subject: str
    recurring: bool = False
    note: Optional[str] = None
    tags: list[str] = dataclasses.field(default_factory=list)


class Point(NamedTuple):
    x: float
    y: float


class Loose(TypedDict, total=False):
    a: int
    b: str


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Tree:
    name: str
    children: list["Tree"]


def host_tools():
    box = synsema.Toolbox("h")

    @box.tool
    def scalars(a: str, b: int, c: float, d: bool, e: list, f: dict, g: tuple,
                h: Optional[int] = None, i: Any = None) -> str:
        """Scalars."""

    @box.tool
    def typed(xs: list[int], m: dict[str, float], lit: Literal["a", "b"] = "a",
              colour: Colour = Colour.RED) -> list[Txn]:
        """Typed."""

    @box.tool
    def records() -> dict[str, list[Point]]:
        """Records."""

    @box.tool
    def maybe() -> Optional[Txn]:
        """Maybe."""

    @box.tool
    def loose() -> Loose:
        """Loose."""

    @box.tool
    def tree() -> Tree:
        """A record that holds itself."""

    @box.tool
    def pair() -> tuple[int, str]:
        """Pair."""

    @box.tool
    def anything() -> Any:
        """Anything."""

    @box.tool
    def union() -> int | str | None:
        """Union."""

    @box.tool
    def nothing() -> None:
        """Nothing."""

    @box.tool
    def plain():
        """No annotation."""

    tools = list(box)
    try:
        import pydantic
    except ImportError:
        return tools

    class Address(pydantic.BaseModel):
        city: str
        zip: Optional[str] = None

    class User(pydantic.BaseModel):
        name: str
        addresses: list[Address] = []

    def user(name: str) -> User:
        """A user."""

    def users() -> list[User]:
        """Users."""

    return tools + [synsema.Toolbox("p").add(user), synsema.Toolbox("q").add(users)]


def host_specs():
    specs = []
    for t in host_tools():
        specs.append(t.__synsema_tool__ if hasattr(t, "__synsema_tool__") else t)
    return specs


# ---- the schemas Synsema makes -------------------------------------------------------------

def test_every_catalog_parameter_schema_passes_openai_and_anthropic():
    entries = typed_entries() + task_entries() + [catalog_entry(s) for s in host_specs()]
    assert len(entries) > 60
    for entry in entries:
        schema = input_schema(entry)
        assert rules.function_parameters(schema) == [], (entry, schema)
        assert rules.anthropic_input_schema(schema) == [], (entry, schema)


def test_a_list_parameter_has_items_and_a_map_parameter_properties():
    schema = input_schema({"name": "t", "params": ["xs: list", "m: map"]})
    assert "items" in schema["properties"]["xs"]
    assert "properties" in schema["properties"]["m"]
    # The checker is not a rubber stamp: the shape sent before issue 33 fails it.
    assert rules.function_parameters({"type": "object", "properties": {
        "xs": {"type": "array"}}}) == ["(root).properties.xs: array schema missing items"]
    assert rules.function_parameters({"type": "object", "properties": {
        "m": {"type": "object"}}}) == ["(root).properties.m: object schema missing properties"]


def test_every_outline_and_serve_input_schema_passes():
    count = 0
    for path, data in program_tasks():
        for t in data["tasks"]:
            schema = t["input_schema"]
            assert rules.mcp_input_schema(schema) == [], (path, t["name"], schema)
            assert rules.function_parameters(schema) == [], (path, t["name"], schema)
            count += 1
    assert count > 30


def test_every_returns_schema_is_well_formed_and_complete():
    found = 0
    for spec in host_specs():
        entry = catalog_entry(spec)
        if spec.name == "h.plain":
            assert "returns" not in entry
            continue
        returns = entry["returns"]
        found += 1
        assert rules.well_formed(returns) == [], (spec.name, returns)
        # Arrays with items, objects with properties, all the way down (the planner and
        # any provider it is shown to read it as a schema).
        wrapped = {"type": "object", "properties": {"r": returns}}
        assert rules.function_parameters(wrapped) == [], (spec.name, returns)
    assert found >= 12


def test_records_in_returns_are_closed_with_every_field_required():
    entry = catalog_entry(next(s for s in host_specs() if s.name == "h.typed"))
    row = entry["returns"]["items"]
    assert rules.strict({"type": "object", "properties": {"r": row}, "required": ["r"],
                         "additionalProperties": False}) == []
    assert row["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


EXTRACT_SCHEMAS = [
    {"type": "integer"},
    {"type": "array"},                                   # completed with items
    {"type": "object"},                                  # completed with properties
    {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}},
                                "required": ["a"], "additionalProperties": False}},
    {"type": "object", "properties": {"id": {"type": "integer"},
                                      "when": {"type": "string", "format": "date"},
                                      "tags": {"type": "array", "items": {"type": "string"}},
                                      "note": {"type": ["string", "null"]}},
     "required": ["id", "when", "tags", "note"], "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": "string"}}},   # not strict: open
    {"type": "string", "minLength": 3},                  # minLength: not in strict mode
    {"enum": ["low", "high"]},
    {"anyOf": [{"type": "number"}, {"type": "null"}]},
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "number"},
    {"$defs": {"p": {"type": "object", "properties": {"x": {"type": "number"}},
                     "required": ["x"], "additionalProperties": False}},
     "type": "array", "items": {"$ref": "#/$defs/p"}},
]


@pytest.mark.parametrize("typ", ["number", "text", "bool", "list", "map"] + EXTRACT_SCHEMAS,
                         ids=lambda t: t if isinstance(t, str) else json.dumps(t)[:50])
def test_every_typed_extract_schema_passes_where_it_is_sent(typ):
    t = Type(typ)
    check = rules.strict if t.strict else rules.function_parameters
    assert check(t.wire) == [], (typ, t.wire, t.strict)
    assert rules.anthropic_input_schema(t.wire) == [], t.wire


def test_strict_is_used_exactly_when_the_schema_is_in_the_strict_subset():
    for typ in ["number", "text", "bool", "list", "map"] + EXTRACT_SCHEMAS:
        t = Type(typ)
        assert t.strict == (rules.strict(t.wire) == []), (typ, t.wire)
    assert Type("number").strict and not Type("map").strict


# ---- what reaches the wire ------------------------------------------------------------------

@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_every_request_body_sent_passes_on_its_wire(api):
    catalog = typed_entries() + [catalog_entry(s) for s in host_specs()]
    # A provider request carries a catalog of unique wire names.
    catalog = [dict(e, name=f"{e['name']}_{i}") for i, e in enumerate(catalog)]
    with LLMServer() as server:
        provider, _ = provider_for(server, api)
        done = (openai_tools(("none_0", {})) if api == "openai"
                else anthropic_tools(("none_0", {})))
        for start in range(0, len(catalog), 16):
            server.reply(done)
            provider.step(None, "go", catalog[start:start + 16], "")
        for typ in ["number", "text", "bool", "list", "map"] + EXTRACT_SCHEMAS:
            server.reply(openai_text("1") if api == "openai"
                         else anthropic_tools(("extracted", {"value": 1})))
            try:
                provider.typed_extract(None, "data", "what", typ)
            except Exception:       # noqa: BLE001 - the answer may not fit: the body counts
                pass
        bodies = [r["body"] for r in server.requests]
    assert len(bodies) >= 16
    check = rules.openai_request if api == "openai" else rules.anthropic_request
    for body in bodies:
        assert check(body) == [], json.dumps(body)[:400]
