"""synsema.FunctionModel and synsema.TestModel: a model in process whose answers come from
Python, through the same provider path as a real model (argument conversion, ids, labels,
tokens, cassettes, --trace), for every model call: llm_step, the four text ops and a plain
prompt (Provider.text, a planner's)."""

import json

import pytest

import synsema
from synsema import AgentInfo, ModelResponse, TextPart, ToolCallPart
from synsema.stdlib.llm import Provider as LLMProvider
from synsema.stdlib.llm.function import FunctionConfig

CALC = '''
intent: "do sums"
require llm

task add(a: number, b: number)
    give a + b

let catalog be [tool_spec(add, "Add two numbers")]

task step(q)
    give llm_step(q, catalog, "")
'''


def prog(source=CALC, name="calc.syn"):
    return synsema.compile_source(source, name)


class Recorder:
    """A model function that answers from a list and keeps what it was asked."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls = []

    def __call__(self, messages, info):
        self.calls.append((messages, info))
        return self.answers.pop(0)


def test_a_tool_call_is_converted_per_the_catalog_and_gets_an_id():
    model = Recorder(ToolCallPart("add", {"a": "2", "b": 3}))
    r = prog().call("step", {"q": "2 plus 3?"}, provider=synsema.FunctionModel(model))
    assert r.value["kind"] == "tool" and r.value["name"] == "add"
    assert r.value["args"] == {"a": 2, "b": 3}         # "2" for a number arrives as 2
    assert r.value["id"] == "call_1"
    messages, info = model.calls[0]
    assert isinstance(info, AgentInfo) and info.op == "llm_step"
    assert info.model_name == "function:Recorder"      # named after the function's type
    (tool,) = info.function_tools
    assert (tool.name, tool.description) == ("add", "Add two numbers")
    assert tool.parameters_json_schema["properties"] == {"a": {"type": "number"},
                                                         "b": {"type": "number"}}
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "do sums" in messages[0]["content"] and messages[1]["content"] == "2 plus 3?"


def test_the_tokens_are_the_functions_or_an_estimate():
    given = synsema.FunctionModel(lambda m, i: ModelResponse([TextPart("5")], 7, 2))
    assert prog().call("step", {"q": "?"}, provider=given).tokens == 9
    estimated = prog().call("step", {"q": "?"},
                            provider=synsema.FunctionModel(lambda m, i: "five"))
    assert estimated.tokens > 50 and estimated.value["tokens"] == estimated.tokens


def test_every_text_op_and_the_plain_prompt_are_answered():
    seen = []

    def model(messages, info):
        seen.append(info.op)
        return {"ask": "Lima", "summarize": "short", "classify": "Good.",
                "extract": "31", "text": "  plan: go  "}[info.op]
    src = '''
require llm
print([ask("capital of Peru?"), summarize("long text"), classify("great!", ["good", "bad"]), extract("Ana, 31", "the age")])
'''
    r = prog(src).run(provider=synsema.FunctionModel(model))
    assert r.output == '["Lima", "short", "good", "31"]\n'
    assert seen == ["ask", "summarize", "classify", "extract"]
    # the plain text path a planner uses
    p = LLMProvider(FunctionConfig(model, "planner"))
    assert p.text("You write plans.", "Plan this.") == ("plan: go", p.spent)
    assert seen[-1] == "text"


def test_several_calls_dotted_names_and_arguments_that_are_no_json():
    src = '''
require llm
let catalog be [{"name": "bank.send", "describe": "Send", "params": ["to: text", "n: number"]}]
let s be llm_step("q", catalog, "")
print(s["name"])
print(s["calls"][1])
print(llm_step("q", catalog, "")["error"])
'''
    model = Recorder([ToolCallPart("bank.send", {"to": "A", "n": "1"}, "c-1"),
                      ToolCallPart("bank__send", {"to": 5, "n": 2}, "c-2")],
                     ToolCallPart("bank.send", "{not json"))
    r = prog(src).run(provider=synsema.FunctionModel(model))
    assert model.calls[0][1].function_tools[0].name == "bank.send"
    assert r.output.splitlines() == [
        "bank.send",
        '{"name": "bank.send", "args": {"to": "5", "n": 2}, "id": "c-2"}',
        "the arguments for tool 'bank.send' are not valid JSON (Expecting property name "
        "enclosed in double quotes at character 1): {not json"]


def test_the_thread_reaches_the_function():
    src = open(__file__.replace("test_function_model.py", "test_llm_history.py")).read()
    agent = src.split("AGENT = '''")[1].split("'''")[0]

    def model(messages, info):
        if messages[-1]["role"] == "tool":
            return f"It is {messages[-1]['content']}."
        return ToolCallPart("get_weather", {"city": "Lima"}, "w1")
    seen = []
    r = prog(agent, "agent.syn").call("agent", {"question": "Weather?"}, provider=synsema.FunctionModel(
        lambda m, i: seen.append(json.loads(json.dumps(m))) or model(m, i)))
    assert r.value == "It is Lima: 19 C."
    assert seen[1][2:] == [
        {"role": "assistant", "tool_calls": [{"id": "w1", "name": "get_weather",
                                              "args": {"city": "Lima"}}]},
        {"role": "tool", "id": "w1", "name": "get_weather", "content": "Lima: 19 C"}]


def test_a_failing_or_wrong_function_is_a_catchable_error():
    src = '''
require llm
try
    ask("hi")
recover err
    print(err)
'''

    def broken(messages, info):
        raise KeyError("nope")
    assert prog(src).run(provider=synsema.FunctionModel(broken, model_name="m")).output == \
        "ask: function model m raised KeyError: 'nope'\n"
    out = prog(src).run(provider=synsema.FunctionModel(lambda m, i: 42, model_name="m")).output
    assert out.startswith("ask: function model m answered 42; answer a text, a synsema.TextPart")
    out = prog(src).run(provider=synsema.FunctionModel(
        lambda m, i: ToolCallPart("add", {"x": {1, 2}}), model_name="m")).output
    assert "the arguments of its call of 'add' are not JSON data" in out

    async def later(messages, info):
        return "never"
    out = prog(src).run(provider=synsema.FunctionModel(later, model_name="m")).output
    assert out == "ask: function model m is an async function; give a plain function (the " \
                  "run calls it on its own thread)\n"
    out = prog(src).run(provider=synsema.FunctionModel(
        lambda m, i: ModelResponse(["x"], -1), model_name="m")).output
    assert "ModelResponse input_tokens must be a whole number of at least 0, got -1" in out


@pytest.mark.parametrize("kwargs, said", [
    (dict(function=5), "function must be callable"),
    (dict(function=print, model_name=""), "model_name= must be a non-empty text"),
    (dict(function=print, cassette_mode="replay"), "needs a cassette file"),
    (dict(function=print, cassette="t.jsonl", cassette_mode="play"), "cassette_mode must be"),
])
def test_bad_settings_are_usage_errors(kwargs, said):
    with pytest.raises(synsema.UsageError, match=said):
        synsema.FunctionModel(**kwargs)


def test_labels_apply_as_to_any_model():
    src = '''
require llm
require llm("cust")

task go(q)
    give ask(q)
'''
    model = synsema.FunctionModel(lambda m, i: "ok")
    r = prog(src).call("go", {"q": "hi"}, labels=True, args_labels=["cust"],
                       cap_set="stdout,llm=cust@function", provider=model)
    assert r.value == "ok" and r.labels == {"cust"}
    with pytest.raises(synsema.LabelViolation, match="to function, which the host ceiling "
                                                     "does not allow"):
        prog(src).call("go", {"q": "hi"}, labels=True, args_labels=["cust"],
                       cap_set="stdout,llm=cust@api.openai.com", provider=model)


def test_a_cassette_records_and_replays_without_the_function(tmp_path):
    tape = tmp_path / "t.jsonl"
    model = Recorder(ToolCallPart("add", {"a": 1, "b": 2}))
    first = prog().call("step", {"q": "?"}, provider=synsema.FunctionModel(
        model, model_name="calc", cassette=tape, cassette_mode="record"))
    line = json.loads(tape.read_text())
    assert line["request"]["path"] == "/function" and line["request"]["body"]["op"] == "llm_step"

    def never(messages, info):
        raise AssertionError("a replay does not call the function")
    again = prog().call("step", {"q": "?"}, provider=synsema.FunctionModel(
        never, model_name="calc", cassette=tape, cassette_mode="replay"))
    assert again.value == first.value and again.tokens == first.tokens
    with pytest.raises(synsema.RunError, match="not on the tape"):
        prog().call("step", {"q": "other"}, provider=synsema.FunctionModel(
            never, model_name="calc", cassette=tape, cassette_mode="replay"))


def test_the_trace_names_the_function_model(capfd):
    prog().call("step", {"q": "?"}, trace=True,
                provider=synsema.FunctionModel(lambda m, i: "5", model_name="calc"))
    err = capfd.readouterr().err
    assert "trace: model: function model calc (in process)\n" in err
    assert 'trace: llm_step 1: final "5"' in err


def test_test_model_calls_each_tool_then_reports_the_results():
    src = open(__file__.replace("test_function_model.py", "test_llm_history.py")).read()
    agent = prog(src.split("AGENT = '''")[1].split("'''")[0], "agent.syn")
    r = agent.call("agent", {"question": "?"}, provider=synsema.TestModel())
    assert r.value == '{"get_weather": "a: 19 C"}'
    r = agent.call("agent", {"question": "?"},
                   provider=synsema.TestModel(call_tools=[], custom_output_text="done"))
    assert r.value == "done"
    assert prog('require llm\nprint(ask("hi"))').run(
        provider=synsema.TestModel()).output == "success (no tool calls)\n"
    with pytest.raises(synsema.UsageError, match="call_tools must be"):
        synsema.TestModel(call_tools="some")


TYPED = '''
require llm
print(extract("I have five apples", "how many", "number") + 1)
print(extract("Ana, 31", "the person", {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]}))
'''


def test_a_typed_extract_reaches_the_function_as_an_output_tool(tmp_path):
    # The type is info.output_tools[0]'s schema (Pydantic AI's structured output); the
    # answer, a call of that tool or the value's JSON as text, is checked like any other.
    seen = []

    def model(messages, info):
        seen.append(info)
        schema = info.output_tools[0].parameters_json_schema
        if "value" in schema["properties"]:
            return ToolCallPart(info.output_tools[0].name, {"value": 5})
        return TextPart('{"name": "Ana", "age": 31}')

    tape = tmp_path / "typed.jsonl"
    result = prog(TYPED).run(provider=synsema.FunctionModel(
        model, model_name="typed", cassette=str(tape), cassette_mode="record"))
    assert result.output == '6\n{"name": "Ana", "age": 31}\n'
    assert [i.op for i in seen] == ["extract", "extract"]
    assert seen[0].output_tools[0].name == "final_result"
    assert seen[0].output_tools[0].parameters_json_schema["properties"] == {
        "value": {"type": "number"}}
    # the tape holds the type, and replays without the function
    assert '"output"' in tape.read_text()
    replayed = prog(TYPED).run(provider=synsema.FunctionModel(
        lambda m, i: pytest.fail("replay called the function"), model_name="typed",
        cassette=str(tape), cassette_mode="replay"))
    assert replayed.output == result.output


def test_a_wrong_typed_answer_is_asked_again_then_the_catchable_error():
    answers = iter(['{"value": "about five"}', '{"value": 5}'])
    first = "\n".join(TYPED.split("\n")[:3]) + "\n"
    result = prog(first).run(
        provider=synsema.FunctionModel(lambda m, i: next(answers)))
    assert result.output == "6\n"
    with pytest.raises(synsema.RunError, match='not a number: "about five"'):
        prog(TYPED).run(provider=synsema.FunctionModel(lambda m, i: '{"value": "about five"}'))


def test_test_model_answers_a_typed_extract_with_a_sample_of_the_type():
    assert prog(TYPED).run(provider=synsema.TestModel()).output == \
        '1\n{"name": "a", "age": 0}\n'
