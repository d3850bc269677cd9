"""Provider fidelity against code no one here wrote: every request our providers send is
checked with the official `openai` and `anthropic` SDKs, and answers built with the SDKs'
own response types are read by our parsers (test extras; the runtime keeps `requests`).

Requests are checked twice:
* with the SDK's type for the request (`CompletionCreateParamsNonStreaming`,
  `MessageCreateParamsNonStreaming`) through pydantic, in strict mode with extra keys
  forbidden at every level, so a misspelt field or a wrong type fails;
* through the SDK's own client: `client.chat.completions.create(**body)` /
  `client.messages.create(**body)` (an unknown field is a TypeError there) over an httpx
  transport that records what the SDK would send, which must be our body exactly.
"""

import importlib
import json

import typing_extensions

import anthropic as anthropic_sdk       # test extras: `make test` installs them
import openai as openai_sdk
import pydantic
import pytest

from synsema.stdlib.llm import LLMConfig, Provider  # noqa: E402
from synsema.stdlib.llm import anthropic as anthropic_wire  # noqa: E402
from synsema.stdlib.llm import openai as openai_wire  # noqa: E402

INTENT = "answer travel questions"
CATALOG = [
    {"name": "get_weather", "describe": "Current weather for a city",
     "params": ["city: text", "days: number", "metric: bool", "stops: list", "prefs: map",
                "note", "anything: any"],
     "optional": ["days", "metric", "stops", "prefs", "note", "anything"],
     "param_describe": {"city": "The city's name, e.g. Lima"}},
    {"name": "bank.send_money", "describe": "Send money", "params": ["to: text", "amount: number"]},
    {"name": "ping", "describe": "", "params": []},
]
CONTEXT = "[get_weather => Lima: 19 C]"


# ---- strict validation of the SDKs' request types --------------------------------------------

def _forbid_extra(tp, seen):
    """Mark every TypedDict reachable from `tp` as extra='forbid' (pydantic reads
    __pydantic_config__), so a key the SDK does not define is an error, not dropped."""
    if id(tp) in seen:
        return
    seen.add(id(tp))
    if typing_extensions.is_typeddict(tp):        # the SDKs' TypedDicts are typing_extensions'
        tp.__pydantic_config__ = pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=True)
        for hint in typing_extensions.get_type_hints(tp, include_extras=True).values():
            _forbid_extra(hint, seen)
    for arg in typing_extensions.get_args(tp):
        _forbid_extra(arg, seen)


def strict_adapter(tp):
    _forbid_extra(tp, set())
    return pydantic.TypeAdapter(tp)


OPENAI_PARAMS = strict_adapter(
    openai_sdk.types.chat.completion_create_params.CompletionCreateParamsNonStreaming)
ANTHROPIC_PARAMS = strict_adapter(
    anthropic_sdk.types.message_create_params.MessageCreateParamsNonStreaming)


def validate(adapter, body):
    """Validate, consuming the SDK's Iterable fields: pydantic checks their items lazily,
    as they are iterated."""
    def consume(value):
        if isinstance(value, dict):
            for v in value.values():
                consume(v)
        elif isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
            for v in value:
                consume(v)
    consume(adapter.validate_python(body))


# ---- the SDK clients, over a transport that records ------------------------------------------

def sdk_http(sdk):
    """The HTTP library the SDK is built on (httpx; httpx2 in its newest releases)."""
    base = importlib.import_module(sdk.__name__ + "._base_client")
    return getattr(base, "httpx2", None) or base.httpx



class Recorder:
    def __init__(self, answer):
        self.answer = answer
        self.sent = []

    def __call__(self, request):
        self.sent.append((request.url.path, json.loads(request.content)))
        return self.http.Response(200, json=self.answer)

    def client(self, sdk):
        self.http = sdk_http(sdk)
        return self.http.Client(transport=self.http.MockTransport(self))


# _strict_response_validation: the SDK checks the answer against its response type too.
def through_openai_sdk(body, answer):
    rec = Recorder(answer)
    client = openai_sdk.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1",
                               http_client=rec.client(openai_sdk), max_retries=0,
                               _strict_response_validation=True)
    client.chat.completions.create(**body)
    return rec.sent


def through_anthropic_sdk(body, answer):
    rec = Recorder(answer)
    client = anthropic_sdk.Anthropic(api_key="sk-test", base_url="http://127.0.0.1:9",
                                     http_client=rec.client(anthropic_sdk), max_retries=0,
                                     _strict_response_validation=True)
    client.messages.create(**body)
    return rec.sent


# ---- answers built with the SDKs' response types ---------------------------------------------

def openai_completion(content=None, tool_calls=()):
    from openai.types.chat import ChatCompletion
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": name, "arguments": arguments}}
            for i, (name, arguments) in enumerate(tool_calls)]
    done = ChatCompletion(
        id="chatcmpl-1", object="chat.completion", created=1_700_000_000, model="gpt-4o-mini",
        choices=[{"index": 0, "finish_reason": "tool_calls" if tool_calls else "stop",
                  "message": message, "logprobs": None}],
        usage={"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42})
    return json.loads(done.model_dump_json())


def anthropic_message(text=None, tool_uses=()):
    from anthropic.types import Message
    content = [{"type": "text", "text": text}] if text is not None else []
    content += [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(tool_uses)]
    done = Message(id="msg_1", type="message", role="assistant", model="claude-haiku-4-5",
                   content=content, stop_reason="tool_use" if tool_uses else "end_turn",
                   stop_sequence=None, usage={"input_tokens": 30, "output_tokens": 12})
    return json.loads(done.model_dump_json())


# ---- our Provider, its requests captured where it would send them ----------------------------

class Captured(Provider):
    """A Provider whose exchanges go to the SDK client instead of the network."""

    def __init__(self, api, answers):
        super().__init__(LLMConfig(api, "http://127.0.0.1:9", model="test-model", key="sk-test"))
        self.answers = list(answers)
        self.checked = []

    def _exchange(self, body):
        answer = self.answers.pop(0)
        url, path = self.wire.endpoint(self.config)
        if self.config.api == "openai":
            validate(OPENAI_PARAMS, body)
            sent = through_openai_sdk(body, answer)
        else:
            validate(ANTHROPIC_PARAMS, body)
            sent = through_anthropic_sdk(body, answer)
        assert sent == [(path, body)]           # the SDK sends exactly what we send
        self.checked.append(body)
        return answer


def final(api, text):
    return openai_completion(text) if api == "openai" else anthropic_message(text)


def every_request(p):
    """Each kind of request a provider sends: a step with tools, with context, without
    tools, and the four text operations."""
    p.step(INTENT, "Weather in Lima?", CATALOG, CONTEXT)
    p.step(INTENT, "Weather in Lima?", CATALOG, "")
    p.step(None, "Just answer", [], "")
    p.text_op(INTENT, "ask", "What is Lima?")
    p.text_op(INTENT, "summarize", "A long text " * 20)
    p.text_op(None, "classify", "I love it", ["positive", "negative"])
    p.text_op(INTENT, "extract", "Call me at 555-1234", "the phone number")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_every_request_is_valid_for_the_official_sdk(api):
    answers = [final(api, "ok")] * 4 + [final(api, "positive"), final(api, "555-1234")]
    p = Captured(api, [final(api, "ok"), *answers])
    every_request(p)
    assert len(p.checked) == 7
    tools = p.checked[0]["tools"]
    assert len(tools) == len(CATALOG)
    assert "tools" not in p.checked[2]


def test_openai_tool_list_carries_types_descriptions_and_safe_names():
    p = Captured("openai", [final("openai", "ok")])
    p.step(INTENT, "Weather?", CATALOG, "")
    (weather, bank, ping) = p.checked[0]["tools"]
    fn = weather["function"]
    assert fn["description"] == "Current weather for a city"
    assert fn["parameters"]["required"] == ["city"]
    props = fn["parameters"]["properties"]
    assert [props[k].get("type") for k in ("city", "days", "metric", "stops", "prefs", "note")] \
        == ["string", "number", "boolean", "array", "object", "string"]
    assert props["city"]["description"] == "The city's name, e.g. Lima"
    # OpenAI accepts only [A-Za-z0-9_-] in a function name.
    assert all(c.isalnum() or c in "_-" for c in bank["function"]["name"])
    assert ping["function"]["parameters"] == {"type": "object", "properties": {}, "required": []}


def test_anthropic_tool_list_carries_input_schemas():
    p = Captured("anthropic", [final("anthropic", "ok")])
    p.step(INTENT, "Weather?", CATALOG, "")
    body = p.checked[0]
    assert INTENT in body["system"] and body["max_tokens"] > 0
    weather = body["tools"][0]
    assert weather["input_schema"]["properties"]["city"]["description"] == \
        "The city's name, e.g. Lima"
    assert all(c.isalnum() or c in "_-" for c in body["tools"][1]["name"])


# ---- responses -----------------------------------------------------------------------------

def test_openai_sdk_answers_are_read():
    p = Captured("openai", [
        openai_completion(tool_calls=[("get_weather", '{"city": "Lima", "days": "3"}')]),
        openai_completion(tool_calls=[("bank__send_money", '{"to": "DE89", "amount": 12}')]),
        openai_completion("It is 19 C in Lima.")])
    assert p.step(INTENT, "q", CATALOG, "") == {
        "kind": "tool", "name": "get_weather", "args": {"city": "Lima", "days": 3}, "id": "call_0",
        "tokens": 42}
    assert p.step(INTENT, "q", CATALOG, "")["name"] == "bank.send_money"
    assert p.step(INTENT, "q", CATALOG, "") == {"kind": "final", "text": "It is 19 C in Lima.",
                                                "tokens": 42}


def test_anthropic_sdk_answers_are_read():
    p = Captured("anthropic", [
        anthropic_message("Let me look.", [("get_weather", {"city": "Lima", "metric": "true"})]),
        anthropic_message("It is 19 C in Lima.")])
    assert p.step(INTENT, "q", CATALOG, "") == {
        "kind": "tool", "name": "get_weather", "args": {"city": "Lima", "metric": True},
        "id": "toolu_0", "tokens": 42}
    assert p.step(INTENT, "q", CATALOG, "")["text"] == "It is 19 C in Lima."


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_several_tool_calls_are_all_kept(api):
    calls = [("get_weather", {"city": "Lima"}), ("get_weather", {"city": "Cusco", "days": "2"})]
    answer = (openai_completion(tool_calls=[(n, json.dumps(a)) for n, a in calls])
              if api == "openai" else anthropic_message(tool_uses=calls))
    step = Captured(api, [answer]).step(INTENT, "q", CATALOG, "")
    assert (step["name"], step["args"]) == ("get_weather", {"city": "Lima"})
    first = "call_0" if api == "openai" else "toolu_0"
    second = "call_1" if api == "openai" else "toolu_1"
    assert step["id"] == first
    assert step["calls"] == [{"name": "get_weather", "args": {"city": "Lima"}, "id": first},
                             {"name": "get_weather", "args": {"city": "Cusco", "days": 2},
                              "id": second}]


def test_arguments_that_are_not_json_come_back_as_a_tool_call_error():
    answer = openai_completion(tool_calls=[("get_weather", '{"city": "Lima", "days":')])
    step = Captured("openai", [answer]).step(INTENT, "q", CATALOG, "")
    assert step["kind"] == "tool" and step["name"] == "get_weather"
    assert step["args"] == '{"city": "Lima", "days":'       # as written: call_tool refuses it
    assert step["error"].startswith("the arguments for tool 'get_weather' are not valid JSON")
    answer = openai_completion(tool_calls=[("get_weather", "[1, 2]")])
    step = Captured("openai", [answer]).step(INTENT, "q", CATALOG, "")
    assert "are not a JSON object" in step["error"]


def test_our_test_servers_answers_are_valid_sdk_responses():
    """tests/llm_server.py's canned answers, which most provider tests use, are what the
    real APIs send."""
    from llm_server import anthropic_text, anthropic_tools, openai_text, openai_tools
    from anthropic.types import Message
    from openai.types.chat import ChatCompletion
    for body in (openai_text("hi"), openai_tools(("add", '{"a": 2}'))):
        parsed = ChatCompletion.model_validate(body)
        assert openai_wire.parse(json.loads(parsed.model_dump_json()), "t")["tokens"] > 0
    for body in (anthropic_text("hi"), anthropic_tools(("add", {"a": 2}))):
        parsed = Message.model_validate(body)
        assert anthropic_wire.parse(json.loads(parsed.model_dump_json()), "t")["tokens"] > 0


def test_the_strict_check_has_teeth():
    """A misspelt field, an extra key in a tool, or a wrong type is refused."""
    p = Captured("openai", [final("openai", "ok")])
    p.step(INTENT, "q", CATALOG, "")
    good = p.checked[0]
    for bad in ({**good, "tool": good["tools"]},
                {**good, "tools": [{**good["tools"][0], "extra": 1}]},
                {**good, "messages": [{"role": "sytem", "content": "x"}]},
                {**good, "model": 5}):
        with pytest.raises(pydantic.ValidationError):
            validate(OPENAI_PARAMS, bad)
    with pytest.raises(TypeError):
        through_openai_sdk({**good, "tool": []}, final("openai", "ok"))
    body = Captured("anthropic", [final("anthropic", "ok")])
    body.step(INTENT, "q", CATALOG, "")
    with pytest.raises(pydantic.ValidationError):
        validate(ANTHROPIC_PARAMS, {**body.checked[0], "max_tokens": "many"})


# ---- a conversation as context (SPEC 11) ----------------------------------------------------

HISTORY = [
    {"role": "user", "content": "I am in Lima."},
    {"role": "assistant", "content": "Noted."},
    {"kind": "tool", "name": "get_weather", "args": {"city": "Lima"}, "id": "call_a", "tokens": 9,
     "calls": [{"name": "get_weather", "args": {"city": "Lima"}, "id": "call_a"},
               {"name": "bank.send_money", "args": {"to": "DE89", "amount": 12}, "id": "call_b"}]},
    {"role": "tool", "id": "call_a", "name": "get_weather", "content": "19 C"},
    {"role": "tool", "id": "call_b", "name": "bank.send_money", "content": {"ok": True}},
    {"role": "user", "content": "And tomorrow?"},
]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_conversation_is_valid_for_the_official_sdk(api):
    p = Captured(api, [final(api, "ok")])
    assert p.step(INTENT, "Weather?", CATALOG, HISTORY)["text"] == "ok"
    messages = p.checked[0]["messages"]
    if api == "openai":
        assert [m["role"] for m in messages] == ["system", "user", "user", "assistant",
                                                 "assistant", "tool", "tool", "user"]
        calls = messages[4]["tool_calls"]
        assert [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                for c in calls] == [("call_a", "get_weather", {"city": "Lima"}),
                                    ("call_b", "bank__send_money", {"to": "DE89", "amount": 12})]
        assert messages[5] == {"role": "tool", "tool_call_id": "call_a", "content": "19 C"}
        assert messages[6]["content"] == '{"ok": true}'
    else:
        # roles alternate: the prompt and the first user message are one turn, the tool
        # results and the next user message another
        assert [m["role"] for m in messages] == ["user", "assistant", "user"]
        assert [b["type"] for b in messages[0]["content"]] == ["text", "text"]
        assert messages[1]["content"][0] == {"type": "text", "text": "Noted."}
        uses = messages[1]["content"][1:]
        assert [(b["type"], b["id"], b["name"], b["input"]) for b in uses] == [
            ("tool_use", "call_a", "get_weather", {"city": "Lima"}),
            ("tool_use", "call_b", "bank__send_money", {"to": "DE89", "amount": 12})]
        results = messages[2]["content"]
        assert [(b["type"], b.get("tool_use_id")) for b in results] == [
            ("tool_result", "call_a"), ("tool_result", "call_b"), ("text", None)]
