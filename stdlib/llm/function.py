"""A model in process: a Python function answers each model call (synsema.FunctionModel,
after Pydantic AI's FunctionModel; docs/embedding.md).

This is a third wire format beside openai and anthropic, so the answer goes the whole
provider path a real one goes: the request is built from the same prompts, sent through
Provider._exchange (cassette record and replay, --trace, the run's token count), and the
function's answer is turned into an OpenAI-compatible response body that openai.parse
reads (the argument conversion per catalog, ids for tool calls, the text ops' checks).

The request, as the cassette records it and the function sees it:

    {"model": NAME, "op": "llm_step" | "ask" | "summarize" | "classify" | "extract" | "text",
     "messages": [{"role": "system", "content": T}, {"role": "user", "content": T},
                  {"role": "assistant", "content": T},
                  {"role": "assistant", "tool_calls": [{"id", "name", "args"}]},
                  {"role": "tool", "id", "name", "content": T}, ...],
     "tools": [{"name", "description", "parameters"}]}       (llm_step with a catalog)

The function is called as function(messages, info) and returns a text (the final
answer), a ToolCallPart, a list of parts, or a ModelResponse. Token counts it does not
give are estimated from the words in and out, as Pydantic AI's test models do, so a
budget in the program sees tokens spent.
"""

import inspect
import json
import re
from collections import namedtuple

from . import openai
from .cassette import canonical
from .config import LLMConfig
from .convert import describe, input_schema
from .prompts import CONTEXT_HEADER
from .errors import ProviderError, clip

HOST = "function"       # the host a ceiling names: llm@function, llm=LABEL@function

# The public shapes (synsema.TextPart, ...), named as Pydantic AI names them.
TextPart = namedtuple("TextPart", "content")
TextPart.__doc__ = "A text the model answers: TextPart(\"It is 19 C in Lima.\")."


class ToolCallPart(namedtuple("ToolCallPart", "tool_name args tool_call_id")):
    """A tool call the model makes: ToolCallPart("get_weather", {"city": "Lima"}). args is
    a dict, or the JSON text as a model wrote it (a text that is no JSON object reaches
    the program as such a model's would); tool_call_id is made up when not given."""
    __slots__ = ()

    def __new__(cls, tool_name, args=None, tool_call_id=None):
        return super().__new__(cls, tool_name, {} if args is None else args, tool_call_id)


class ModelResponse(namedtuple("ModelResponse", "parts input_tokens output_tokens")):
    """The function's whole answer: its parts (TextPart, ToolCallPart or a text), and the
    tokens to report (estimated when None)."""
    __slots__ = ()

    def __new__(cls, parts, input_tokens=None, output_tokens=None):
        return super().__new__(cls, parts, input_tokens, output_tokens)


ToolDefinition = namedtuple("ToolDefinition", "name description parameters_json_schema")
ToolDefinition.__doc__ = "A tool the model may call (a catalog entry as the model sees it)."

AgentInfo = namedtuple("AgentInfo", "function_tools allow_text_output model_name op "
                       "output_tools", defaults=((),))
AgentInfo.__doc__ = ("What the call offers: function_tools ([ToolDefinition]), "
                     "allow_text_output (always True), model_name, op: the program's "
                     "call (\"llm_step\", \"ask\", \"summarize\", \"classify\", \"extract\", "
                     "or \"text\" for a plain prompt), and output_tools: for a typed "
                     "extract, one ToolDefinition (OUTPUT_TOOL) whose parameters_json_schema "
                     "is the type; answer with a call of it, or the value's JSON as text.")

# A typed extract's type reaches the function as Pydantic AI gives structured output: an
# output tool whose parameters are the schema (a non-object type wrapped as {"value": T},
# as the other wires send it).
OUTPUT_TOOL = "final_result"


class FunctionConfig(LLMConfig):
    """The LLMConfig of a FunctionModel: nothing is sent over a network, so no URL and
    no key; the cassette settings work as for any provider."""

    def __init__(self, function, model, cassette=None, cassette_mode="auto"):
        super().__init__("openai", "http://" + HOST, model=model, cassette=cassette,
                         cassette_mode=cassette_mode)
        self.api = "function"
        self.url = "function:"
        self.function = function

    def __repr__(self):
        return f"FunctionConfig(model={self.model!r}, cassette={self.cassette!r})"


def endpoint(config):
    return config.url, "/function"


def step_body(config, system, user, catalog, history=()):
    body = text_body(config, system, user)
    body["op"] = "llm_step"
    if history:
        if not user.strip():
            body["messages"].pop()
        body["messages"] += [thread_message(m) for m in history]
    if catalog:
        body["tools"] = [{"name": e["name"], "description": describe(e),
                          "parameters": input_schema(e)} for e in catalog]
    return body


def extract_body(config, system, user, typ):
    """A typed extract (SPEC 11): the type's JSON Schema goes with the request, and so is
    on the cassette; the function sees it as info.output_tools."""
    body = text_body(config, system, user)
    body["op"] = "extract"
    body["output"] = typ.wire
    return body


def text_body(config, system, user):
    return {"model": config.model, "op": "text",
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}]}


def thread_message(message):
    if "calls" in message:
        return {"role": "assistant", "tool_calls": [dict(c) for c in message["calls"]]}
    return dict(message)


# what the Provider reads of an answer: the OpenAI-compatible form built below
tokens = openai.tokens
usage = openai.usage
parse = openai.parse
error_message = openai.error_message


def answer(config, body):
    """The JSON text of the response to `body`: the function's answer in the OpenAI
    form. A function that raises, or answers something that is no answer, is a
    ProviderError, as a failing provider is (a catchable error in the program)."""
    name = config.model
    messages = canonical(body["messages"])      # the function may keep or change them
    tools = [ToolDefinition(t["name"], t["description"], canonical(t["parameters"]))
             for t in body.get("tools", ())]
    output = body.get("output")
    outputs = [] if output is None else [ToolDefinition(
        OUTPUT_TOOL, "The value the program asked to extract", canonical(output))]
    info = AgentInfo(tools, True, name, body.get("op", "text"), outputs)
    try:
        got = config.function(messages, info)
    except Exception as e:  # noqa: BLE001 - the model failed: an error the program sees
        raise ProviderError(f"function model {name} raised {type(e).__name__}: "
                            f"{clip(str(e), 300)}") from None
    if inspect.iscoroutine(got):
        got.close()             # never awaited: no "was never awaited" warning later
        raise ProviderError(f"function model {name} is an async function; give a plain "
                            "function (the run calls it on its own thread)")
    text, calls, tokens_in, tokens_out = _read(got, name)
    if outputs:
        # The output tool's arguments are the answer (the value, still to be checked);
        # any other call is answered as a call, which extract refuses.
        answers = [c for c in calls if c.tool_name == OUTPUT_TOOL]
        if answers:
            text = _arguments(answers[0], name)
            calls = [c for c in calls if c.tool_name != OUTPUT_TOOL]
    names = {t.name for t in tools}
    tool_calls = []
    for call in calls:
        wire = call.tool_name.replace(".", "__") if call.tool_name in names else call.tool_name
        entry = {"type": "function", "function": {"name": wire,
                                                  "arguments": _arguments(call, name)}}
        if call.tool_call_id is not None:
            entry["id"] = str(call.tool_call_id)
        tool_calls.append(entry)
    message = {"role": "assistant", "content": text if text or not tool_calls else None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    if tokens_in is None:
        tokens_in = 50 + sum(_words(m.get("content")) + _words(m.get("tool_calls"))
                             for m in messages)
    if tokens_out is None:
        tokens_out = _words(text) + sum(1 + _words(c.args) for c in calls)
    return json.dumps({
        "object": "chat.completion", "model": name,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                  "total_tokens": tokens_in + tokens_out}}, ensure_ascii=False)


# ---- TestModel: a FunctionModel that needs no function ------------------------------------

SUCCESS = "success (no tool calls)"
_SAMPLES = {"string": "a", "number": 0, "integer": 0, "boolean": False, "array": [],
            "object": {}}


def test_answer(messages, info, call_tools="all", text=None):
    """TestModel's answer (after Pydantic AI's): a step with tools and no tool result yet
    (no tool message, no text context) calls each tool in `call_tools` once, with sample
    arguments of the declared types; any other call answers `text`, else a JSON object of
    the tool results in the thread ({"get_weather": "Lima: 19 C"}), else SUCCESS."""
    tools = [t for t in info.function_tools if call_tools == "all" or t.name in call_tools]
    results = {m["name"]: m["content"] for m in messages if m.get("role") == "tool"}
    has_context = any(CONTEXT_HEADER in (m.get("content") or "") for m in messages
                      if m.get("role") == "user")
    if info.op == "llm_step" and tools and not results and not has_context:
        return [ToolCallPart(t.name, _sample_args(t.parameters_json_schema)) for t in tools]
    if info.output_tools:       # a typed extract: a sample value of the type
        schema = info.output_tools[0].parameters_json_schema
        return ToolCallPart(OUTPUT_TOOL, _sample_value(schema))
    if text is not None:
        return text
    return json.dumps(results, ensure_ascii=False) if results else SUCCESS


def _sample_value(schema):
    """A value of a JSON Schema (the subset stdlib.llm.schema sends): the first of an
    enum or a union, an object with every required property, an empty array."""
    if not isinstance(schema, dict):
        return "a"
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return _sample_value(schema[key][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: _sample_value(props.get(k, {})) for k in schema.get("required", [])}
    if kind == "null":
        return None
    return _SAMPLES.get(kind, "a")


def _sample_args(schema):
    props = schema.get("properties", {})
    return {name: _SAMPLES.get(props.get(name, {}).get("type"), "a")
            for name in schema.get("required", [])}


ANSWERS = ("a text, a synsema.TextPart, a synsema.ToolCallPart, a list of those, or a "
           "synsema.ModelResponse")


def _read(got, name):
    """(text, [ToolCallPart], input tokens, output tokens) of what the function gave."""
    tokens_in = tokens_out = None
    if isinstance(got, ModelResponse):
        for k, v in (("input_tokens", got.input_tokens), ("output_tokens", got.output_tokens)):
            if v is not None and (type(v) is not int or v < 0):
                raise ProviderError(f"function model {name}: ModelResponse {k} must be a "
                                    f"whole number of at least 0, got {v!r}")
        got, tokens_in, tokens_out = got.parts, got.input_tokens, got.output_tokens
    parts = list(got) if isinstance(got, list) else [got]
    texts, calls = [], []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, TextPart) and isinstance(part.content, str):
            texts.append(part.content)
        elif isinstance(part, ToolCallPart):
            if not isinstance(part.tool_name, str) or not part.tool_name:
                raise ProviderError(f"function model {name} called a tool without a name: "
                                    f"{clip(repr(part))}")
            calls.append(part)
        else:
            raise ProviderError(f"function model {name} answered {clip(repr(part), 120)}; "
                                f"answer {ANSWERS}")
    return "".join(texts), calls, tokens_in, tokens_out


def _arguments(call, name):
    if isinstance(call.args, str):
        return call.args
    try:
        return json.dumps(call.args, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ProviderError(f"function model {name}: the arguments of its call of "
                            f"'{call.tool_name}' are not JSON data ({e})") from None


_WORD = re.compile(r"[^\s\"',.:;{}\[\]()]+")


def _words(value):
    """Words in a value, for the estimated token counts."""
    if value is None:
        return 0
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return len(_WORD.findall(value))


__all__ = ["TextPart", "ToolCallPart", "ModelResponse", "ToolDefinition", "AgentInfo",
           "FunctionConfig", "test_answer"]
