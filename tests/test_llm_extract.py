"""Typed extract (SPEC 11): extract(data, what, type) over both wire formats, run by the
real `syn` command against tests/llm_server.py (a real HTTP server on 127.0.0.1), plus
the answer's check (stdlib.llm.schema) against the jsonschema package's validator."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import (LLMServer, anthropic_text, anthropic_tools, openai_text,  # noqa: E402
                        provider_for)
from test_llm_vm import ok, run_syn, system_text, user_text  # noqa: E402

from synsema.stdlib.llm import ProviderError  # noqa: E402
from synsema.stdlib.llm.schema import Type, validate  # noqa: E402

APIS = ["openai", "anthropic"]


@pytest.fixture
def server():
    with LLMServer() as s:
        yield s


@pytest.fixture
def program(tmp_path):
    def write(text, name="app.syn"):
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return write


def answer(api, value, wrapped=True, **tokens):
    """The model's typed answer as each wire gives it: OpenAI a JSON text (structured
    output), Anthropic the forced tool's input."""
    payload = {"value": value} if wrapped else value
    if api == "openai":
        return openai_text(json.dumps(payload), **tokens)
    return anthropic_tools(("extracted", payload), **tokens)


def sent_schema(api, request):
    body = request["body"]
    if api == "openai":
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "extracted"
        return fmt["json_schema"]["schema"], fmt["json_schema"]["strict"]
    (tool,) = body["tools"]
    assert body["tool_choice"] == {"type": "tool", "name": tool["name"]}
    return tool["input_schema"], None


COUNT = 'require llm\nlet n be extract("I bought five apples", "how many apples", "number")\n' \
        'print(n + 1)\nprint(type_of(n))\nprint(llm_tokens_used())\n'


@pytest.mark.parametrize("api", APIS)
def test_a_number_comes_back_a_number_through_structured_output(server, program, api):
    server.reply(answer(api, 5, **({"prompt_tokens": 20, "completion_tokens": 3} if api == "openai"
                                   else {"input_tokens": 20, "output_tokens": 3})))
    r = ok(run_syn("run", program(COUNT), "--llm-url", server.url, "--llm-api", api))
    assert r.stdout.splitlines() == ["6", "number", "23"]
    (req,) = server.requests
    schema, strict = sent_schema(api, req)
    # Strict structured output needs an object at the root: the number goes wrapped.
    assert schema == {"type": "object", "properties": {"value": {"type": "number"}},
                      "required": ["value"], "additionalProperties": False}
    assert strict in (True, None)
    assert user_text(req) == "I bought five apples"
    assert "how many apples" in system_text(req)


@pytest.mark.parametrize("api", APIS)
def test_a_wrong_answer_is_asked_once_more_with_what_was_wrong(server, program, api):
    server.reply(answer(api, "about five"))
    server.reply(answer(api, 5))
    r = ok(run_syn("run", program(COUNT), "--llm-url", server.url, "--llm-api", api))
    assert r.stdout.splitlines()[:2] == ["6", "number"]
    assert int(r.stdout.splitlines()[2]) > 0
    first, second = server.requests
    assert "rejected" not in user_text(first)
    assert 'it is not a number: "about five"' in user_text(second)
    assert user_text(second).startswith("I bought five apples")


CATCH = '''require llm
try
    print(extract("I bought some apples", "how many apples", "number"))
recover e
    print(e)
print(llm_tokens_used())
'''


@pytest.mark.parametrize("api", APIS)
def test_two_wrong_answers_are_the_catchable_error_spec_gives(server, program, api):
    tokens = ({"prompt_tokens": 10, "completion_tokens": 2} if api == "openai"
              else {"input_tokens": 10, "output_tokens": 2})
    server.reply(answer(api, "about five", **tokens))
    server.reply(answer(api, "about five", **tokens))
    r = ok(run_syn("run", program(CATCH), "--llm-url", server.url, "--llm-api", api))
    assert r.stdout.splitlines() == ['extract: the model\'s answer is not a number: "about five"',
                                     "24"]      # both answers' tokens are spent
    assert len(server.requests) == 2


def test_an_answer_that_is_not_json_is_checked_as_the_text_it_is(server, program):
    # A server without structured output may answer in words: that is the answer.
    server.reply(openai_text("about five"))
    server.reply(openai_text("5"))      # bare JSON, not wrapped: taken as the value
    r = ok(run_syn("run", program(COUNT), "--llm-url", server.url))
    assert r.stdout.splitlines()[:2] == ["6", "number"]
    assert 'it is not a number: "about five"' in user_text(server.requests[1])


def test_uncaught_the_error_exits_1_with_its_position(server, program):
    server.reply(openai_text('{"value": "x"}'), times=2)
    r = run_syn("run", program('require llm\nprint(extract("a", "b", "bool"))\n'),
                "--llm-url", server.url)
    assert r.returncode == 1
    assert 'extract: the model\'s answer is not a bool: "x"' in r.stderr
    assert "app.syn:2:" in r.stderr and "Traceback" not in r.stderr


RECORD = '''require llm
let order be extract("Order 1042: two lamps, paid", "the order", {"type": "object",
    "properties": {"id": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}},
                   "paid": {"type": "boolean"}},
    "required": ["id", "items", "paid"], "additionalProperties": false})
print(order["id"])
print(order["items"])
print(order["paid"])
'''


@pytest.mark.parametrize("api", APIS)
def test_a_json_schema_record_is_sent_as_it_is_and_comes_back_a_map(server, program, api):
    server.reply(answer(api, {"id": 1042, "items": ["lamp", "lamp"], "paid": True},
                        wrapped=False))
    r = ok(run_syn("run", program(RECORD), "--llm-url", server.url, "--llm-api", api))
    assert r.stdout.splitlines() == ["1042", '["lamp", "lamp"]', "true"]
    schema, strict = sent_schema(api, server.requests[0])
    assert schema["properties"]["id"] == {"type": "integer"} and "value" not in schema["properties"]
    assert strict in (True, None)


@pytest.mark.parametrize("api", APIS)
def test_a_record_missing_a_field_is_refused_naming_it(server, program, api):
    server.reply(answer(api, {"id": 1042, "items": []}, wrapped=False), times=2)
    src = RECORD.replace('print(order["id"])', 'print(order["id"])', 1)
    src = "try\n" + "".join("    " + line + "\n" for line in src.splitlines()[1:]) + \
        "recover e\n    print(e)\n"
    r = ok(run_syn("run", program("require llm\n" + src), "--llm-url", server.url,
                   "--llm-api", api))
    assert r.stdout == ('extract: the model\'s answer has no "paid": '
                        '{"id": 1042, "items": []}\n')


def test_a_map_goes_without_strict_and_a_list_with_items(server, program):
    server.reply(openai_text('{"a": 1}'))      # a map is an object: sent as it is
    server.reply(openai_text('{"value": ["x", 2]}'))
    src = 'require llm\nprint(extract("a=1", "the settings", "map"))\n' \
          'print(extract("x, 2", "the parts", "list"))\n'
    r = ok(run_syn("run", program(src), "--llm-url", server.url))
    assert r.stdout.splitlines() == ['{"a": 1}', '["x", 2]']
    map_schema, map_strict = sent_schema("openai", server.requests[0])
    list_schema, list_strict = sent_schema("openai", server.requests[1])
    # A map's keys are not known ahead: strict mode cannot say that, so it is not used.
    assert map_strict is False and map_schema["type"] == "object"
    assert map_schema["properties"] == {} and "additionalProperties" in map_schema
    assert list_strict is True and "items" in list_schema["properties"]["value"]


OFFLINE = '''require llm
try
    print(extract("five apples", "how many", "number"))
recover e
    print(e)
print(extract("five apples", "how many"))
try
    print(extract("five apples", "how many", "numbr"))
recover e
    print(e)
try
    print(extract("five apples", "how many", {"type": "string", "pattern": "x", "allOf": []}))
recover e
    print(e)
try
    print(extract("five apples", "how many", 5))
recover e
    print(e)
'''


def test_offline_a_typed_extract_is_a_catchable_error_and_the_untyped_one_answers(program):
    r = ok(run_syn("run", program(OFFLINE)))
    lines = r.stdout.splitlines()
    assert lines[0] == "extract: no llm provider"
    assert lines[1] == "[no llm provider]"
    # The type is checked offline too, as it would be online.
    assert lines[2].startswith('extract: unknown type "numbr"; give one of number, text')
    assert lines[3].startswith('extract: the type\'s JSON Schema uses "allOf", which extract '
                               'does not check')
    assert lines[4].startswith("extract needs the type as a type name")


def test_extract_takes_two_or_three_arguments(program):
    r = run_syn("run", program('require llm\nprint(extract("a", "b", "number", 1))\n'))
    assert r.returncode == 1
    assert "builtin 'extract' takes 2 to 3 arguments, got 4" in r.stderr, r.stderr
    r = run_syn("run", program('require llm\nprint(extract("a"))\n'))
    assert r.returncode == 1 and "takes 2 to 3 arguments, got 1" in r.stderr


def test_the_result_carries_the_labels_of_data_what_and_type(server, program):
    src = '''require llm("customers")
require llm("notes")
require llm("schema")
let a be extract(private("Ana paid 40", "customers"), "the amount", "number")
print(labels_of(a))
let b be extract("Ana paid 40", private("the amount", "notes"), "number")
print(labels_of(b))
let c be extract("Ana paid 40", "the amount", private("number", "schema"))
print(labels_of(c))
let d be extract("Ana paid 40", "the amount", "number")
print(labels_of(d))
'''
    for _ in range(4):
        server.reply(openai_text('{"value": 40}'))
    r = ok(run_syn("run", "--labels", "--cap-set",
                   "stdout,stdout=customers,stdout=notes,stdout=schema,llm=customers@127.0.0.1,"
                   "llm=notes@127.0.0.1,llm=schema@127.0.0.1",
                   program(src), "--llm-url", server.url))
    assert r.stdout.splitlines() == ['["customers"]', '["notes"]', '["schema"]', "[]"]


def test_a_labelled_typed_answer_cannot_be_printed(server, program):
    server.reply(openai_text('{"value": 40}'))
    src = 'require llm("customers")\nprint(extract(private("Ana paid 40", "customers"), ' \
          '"the amount", "number"))\n'
    r = run_syn("run", "--labels", "--cap-set", "stdout,llm=customers@127.0.0.1",
                program(src), "--llm-url", server.url)
    assert r.returncode == 3
    assert "label_violation: print would reveal data labelled customers" in r.stderr
    assert "40" not in r.stdout


def test_under_a_labelled_condition_the_result_carries_the_pc(server, program):
    server.reply(openai_text('{"value": 1}'))
    src = '''require llm("customers")
let secret be private(true, "customers")
when secret
    let x be extract("one", "the number", "number")
    print(labels_of(x))
'''
    r = ok(run_syn("run", "--labels", "--cap-set",
                   "stdout,stdout=customers,llm=customers@127.0.0.1", program(src),
                   "--llm-url", server.url))
    assert r.stdout == '["customers"]\n'


@pytest.mark.parametrize("api", APIS)
def test_cassette_record_then_replay_and_trace(tmp_path, program, api):
    tape = tmp_path / "x.cassette.jsonl"
    app = program(COUNT)
    with LLMServer() as server:
        server.reply(answer(api, "about five"))
        server.reply(answer(api, 5))
        recorded = ok(run_syn("run", app, "--llm-url", server.url, "--llm-api", api,
                              "--cassette", tape, "--cassette-mode", "record", "--trace"))
    assert len(tape.read_text().splitlines()) == 2
    replayed = ok(run_syn("run", app, "--llm-api", api, "--cassette", tape,
                          "--cassette-mode", "replay", "--trace"))
    assert replayed.stdout == recorded.stdout
    assert replayed.stdout.splitlines()[:2] == ["6", "number"]
    trace = [line for line in replayed.stderr.splitlines() if line.startswith("trace: extract")]
    assert len(trace) == 1 and trace[0].startswith("trace: extract 1: 5  [")


# ---- the check of the answer, against jsonschema's -----------------------------------------

SCHEMAS = [
    {"type": "number"}, {"type": "integer", "minimum": 0, "maximum": 10},
    {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^a"},
    {"type": ["string", "null"]}, {"enum": ["red", "green", 3]}, {"const": "x"},
    {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 3},
    {"anyOf": [{"type": "string"}, {"type": "number", "multipleOf": 0.5}]},
    {"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "array",
                                                                      "items": {"type": "string"}}},
     "required": ["a"], "additionalProperties": False},
    {"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}},
    {"$defs": {"p": {"type": "object", "properties": {"x": {"type": "number"}},
                     "required": ["x"], "additionalProperties": False}},
     "type": "array", "items": {"$ref": "#/$defs/p"}},
]
VALUES = [None, True, False, 0, 1, 2.5, 3, -1, 11, "a", "abc", "abcde", "ba", "x", "red", [],
          [1], [1, 2, 3, 4], ["s"], [{"x": 1}], [{"x": "1"}], [{"x": 1, "y": 2}], {},
          {"a": True}, {"a": 1}, {"a": True, "b": ["q"]}, {"a": True, "c": 1}, {"k": 3},
          {"k": 3.5}, {"k": "v"}]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s)[:40])
def test_the_answer_check_agrees_with_jsonschema(schema):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(schema)
    checker = jsonschema.Draft202012Validator(schema)
    t = Type(schema)
    for value in VALUES:
        ours = validate(value, t.schema) is None
        assert ours == checker.is_valid(value), (schema, value, validate(value, t.schema))


def test_type_names_check_the_kind_of_value():
    assert Type("number").problem(5) is None and Type("number").problem(True) is not None
    assert Type("number").problem(float("nan")) is not None     # Python's json reads NaN
    assert Type("text").problem(5) == "is not a text"
    assert Type("bool").problem("true") == "is not a bool"
    assert Type("list").problem([{"a": [1]}]) is None       # any list will do
    assert Type("map").problem([]) == "is not a map"


@pytest.mark.parametrize("bad, message", [
    ({"type": "wrong"}, "has type \"wrong\""),
    ({"type": "object", "properties": []}, "'properties' must be a map"),
    ({"items": {"$ref": "#/$defs/nope"}, "type": "array"}, "names no entry"),
    ({"oneOf": [{"type": "string"}]}, 'uses "oneOf"'),
    ({"type": "array", "items": 5}, "must be a map"),
])
def test_a_schema_extract_cannot_check_is_refused_before_anything_is_sent(bad, message):
    with pytest.raises(ProviderError, match=message.replace("(", r"\(").replace("$", r"\$")):
        Type(bad)


def test_a_provider_level_typed_extract_keeps_the_key_out_of_its_error(server):
    server.reply(openai_text('{"value": "sk-test-SECRET-0123456789abcdef"}'), times=2)
    provider, _ = provider_for(server)
    with pytest.raises(ProviderError) as e:
        provider.typed_extract(None, "x", "a number", "number")
    assert "SECRET" not in e.value.message and "[key]" in e.value.message


def test_an_anthropic_text_answer_is_read_as_the_value(server):
    # A server that ignores tool_choice and answers in text still gives the value.
    server.reply(anthropic_text("42"))
    provider, _ = provider_for(server, "anthropic")
    assert provider.typed_extract(None, "x", "a number", "number")[0] == 42


WEIRD = [
    openai_text(""), openai_text("   "), openai_text("null"), openai_text("[" * 5000 + "]" * 5000),
    openai_text('{"value": ' + "[" * 3000 + "]" * 3000 + "}"), openai_text("NaN"),
    openai_text('{"value": 1e999}'), openai_text('{"value": "\\ud800"}'),
    openai_text('{"value": 5, "extra": 1}'), openai_text("```json\n{\"value\": 5}\n```"),
    {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "no"}}]},
    {"choices": []}, {"unexpected": True},
    anthropic_tools(("extracted", [1, 2])), anthropic_tools(("other_tool", {"value": 1})),
    anthropic_tools(("extracted", None)), anthropic_text(""),
]


@pytest.mark.parametrize("typ", ["number", "text", "list", "map",
                                 {"type": "object", "properties": {"a": {"type": "string"}},
                                  "required": ["a"], "additionalProperties": False}],
                         ids=lambda t: t if isinstance(t, str) else "record")
def test_whatever_the_model_answers_it_is_a_value_or_a_provider_error(server, typ):
    # Anything a model (or a broken server) can send ends as a value of the type or the
    # catchable error: never another exception.
    for reply in WEIRD:
        api = "anthropic" if "content" in reply and "choices" not in reply else "openai"
        server.reply(reply, times=2)
        provider, _ = provider_for(server, api)
        try:
            value, _ = provider.typed_extract(None, "data", "what", typ)
        except ProviderError as e:
            assert e.message and "Traceback" not in e.message
        else:
            assert Type(typ).problem(value) is None, (reply, value)
        server._replies.clear()


def test_a_wrong_answer_about_labelled_data_is_withheld_from_the_error(server, program):
    # The model's answer quoted in the error comes from labelled data: it carries the labels.
    server.reply(openai_text('{"value": "about five SECRET"}'), times=2)
    src = 'require llm("customers")\nprint(extract(private("Ana paid about five", ' \
          '"customers"), "the amount", "number"))\n'
    r = run_syn("run", "--labels", "--cap-set", "stdout,llm=customers@127.0.0.1",
                program(src), "--llm-url", server.url)
    assert r.returncode == 1
    assert "error: (message withheld: labelled customers)" in r.stderr
    assert "SECRET" not in r.stdout + r.stderr
