"""A conversation as llm_step's context (SPEC 11): the history list, sent natively by both
wires (checked against the official SDKs in test_provider_contract.py), its malformed forms
refused with a message naming the item, offline too, and the labels of everything in it."""

import os
import sys
from functools import partial

import pytest

import synsema
from synsema.stdlib.llm import ProviderError
from synsema.stdlib.llm.history import messages

sys.path.insert(0, os.path.dirname(__file__))
from harness import result  # noqa: E402
from llm_server import LLMServer, anthropic_text, anthropic_tools, openai_text, openai_tools  # noqa: E402

STEP = {"kind": "tool", "name": "get_weather", "args": {"city": "Lima"}, "id": "c1", "tokens": 3}
RESULT = {"role": "tool", "id": "c1", "name": "get_weather", "content": "19 C"}

# The agent loop of docs/guide.md ("A conversation as context"), a tool answering from a map.
AGENT = '''
intent: "answer weather questions"
require llm

task get_weather(city: text)
    give city + ": 19 C"

let tools be {"get_weather": get_weather}
let catalog be [tool_spec(get_weather, "Weather for a city")]

task agent(question)
    let history be []
    for each n in range(1, 6)
        let step be llm_step(question, catalog, history)
        when step["kind"] == "final"
            give step["text"]
        set history to append(history, step)
        let calls be [step]
        when contains(step, "calls")
            set calls to step["calls"]
        for each c in calls
            let result be "not allowed"
            when contains(tools, c["name"])
                try
                    set result to text(call_tool(tools[c["name"]], c["args"]))
                recover err
                    set result to "error: " + err
            set history to append(history, {"role": "tool", "id": c["id"], "name": c["name"], "content": result})
    give "out of steps"
'''


# ---- the neutral form and its checks ---------------------------------------------------------

def test_a_well_formed_history_reads_as_neutral_messages():
    got = messages([{"role": "user", "content": "hi"}, STEP, RESULT,
                    {"kind": "final", "text": "It is 19 C.", "tokens": 2},
                    {"role": "user", "content": 42}])
    assert got == [{"role": "user", "content": "hi"},
                   {"role": "assistant", "calls": [{"id": "c1", "name": "get_weather",
                                                    "args": {"city": "Lima"}}]},
                   {"role": "tool", "id": "c1", "name": "get_weather", "content": "19 C"},
                   {"role": "assistant", "content": "It is 19 C."},
                   {"role": "user", "content": "42"}]


@pytest.mark.parametrize("history, said", [
    (["hi"], "context item 0 (\"hi\") is not a message"),
    ([{"role": "system", "content": "x"}], "role \"system\": the system message is the program's intent"),
    ([{"role": "robot", "content": "x"}], "has role \"robot\""),
    ([{"role": "user"}], "context item 0 ({\"role\": \"user\"}) has no \"content\""),
    ([{"kind": "tool", "name": "f", "args": {}}], "without an \"id\""),
    ([{"kind": "maybe"}], "has \"kind\" \"maybe\""),
    ([RESULT], "answers tool call id 'c1', but no tool step before it has that id"),
    ([STEP], "context item 0 (" ),
    ([STEP, {"role": "user", "content": "and?"}], "no tool result follows it"),
    ([STEP, RESULT, RESULT], "context item 2 (" ),
    ([STEP, {**RESULT, "name": "book_flight"}], "names tool 'book_flight', but call 'c1'"),
    ([STEP, RESULT, STEP, RESULT], "uses tool call id 'c1' again (context item 0 has it)"),
    ([{**STEP, "id": ""}], "without an \"id\""),
    ([{"role": "tool", "id": "c1", "content": "x"}], "without a text \"name\""),
])
def test_a_malformed_history_names_the_item_and_the_fix(history, said):
    with pytest.raises(ProviderError) as e:
        messages(history)
    assert said in e.value.message


def test_the_unanswered_call_and_the_second_answer_are_named():
    with pytest.raises(ProviderError, match=r"calls tool 'get_weather' \(id 'c1'\), and no "
                                            r"tool result follows it"):
        messages([STEP])
    with pytest.raises(ProviderError, match="has its result already"):
        messages([STEP, RESULT, RESULT])


# ---- in a program --------------------------------------------------------------------------

run = partial(result, name="h.syn", dedent=False)     # the API's Result (tests/harness.py)


def test_offline_a_history_is_checked_and_the_error_is_catchable():
    r = run('''
require llm
print(llm_step("q", [], [{"role": "user", "content": "hi"}])["text"])
try
    llm_step("q", [], [{"role": "tool", "id": "x", "name": "f", "content": "1"}])
recover err
    print(err)
try
    llm_step("q", [], 5)
recover err
    print(err)
''', provider=synsema.Provider())
    assert r.output.splitlines() == [
        "[no llm provider]",
        "llm_step: context item 0 ({\"role\": \"tool\", \"id\": \"x\", \"name\": \"f\", "
        "\"content\": \"1\"}) answers tool call id 'x', but no tool step before it has that id; "
        "a tool result follows the step that called the tool",
        "llm_step needs the context as a text or a list of messages, got number"]


LABELLED = '''
require llm
require llm("secret")

task go(pin)
    let history be [{"role": "user", "content": "hi"}, {"role": "user", "content": "pin " + pin}]
    print(labels_of(llm_step("q", [], [{"role": "user", "content": "hi"}])))
    give llm_step("q", [], history)
'''


def test_the_step_carries_the_labels_of_everything_in_the_history():
    prog = synsema.compile_source(LABELLED, "h.syn")
    r = prog.call("go", {"pin": "1234"}, labels=True, args_labels=["secret"],
                  provider=synsema.Provider())
    assert r.output == "[]\n" and r.labels == {"secret"}
    assert r.value == {"kind": "final", "text": "[no llm provider]", "tokens": 0}


def test_a_labelled_history_needs_the_models_clearance():
    prog = synsema.compile_source(LABELLED.replace('require llm("secret")', ""), "h.syn")
    with pytest.raises(synsema.LabelViolation, match="labelled secret to a model"):
        prog.call("go", {"pin": "1234"}, labels=True, args_labels=["secret"],
                  cap_set="stdout,llm", provider=synsema.Provider())


# ---- over HTTP, both wires: the thread the server receives -----------------------------------

@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_the_agent_loop_sends_the_thread_natively(api, tmp_path):
    prog = synsema.compile_source(AGENT, "agent.syn")
    tape = tmp_path / "tape.jsonl"
    with LLMServer() as server:
        if api == "openai":
            server.reply(openai_tools(("get_weather", {"city": "Lima"}),
                                      ("get_weather", {"city": "Cusco"})))
            server.reply(openai_text("Lima 19 C, Cusco 19 C."))
        else:
            server.reply(anthropic_tools(("get_weather", {"city": "Lima"}),
                                         ("get_weather", {"city": "Cusco"})))
            server.reply(anthropic_text("Lima 19 C, Cusco 19 C."))
        provider = synsema.Provider(url=server.url, api=api, cassette=str(tape),
                                    cassette_mode="record")
        r = prog.call("agent", {"question": "Weather in Lima and Cusco?"}, provider=provider)
        second = server.requests[1]["body"]["messages"]
    assert r.value == "Lima 19 C, Cusco 19 C."
    assert r.tokens == 42 + 25
    if api == "openai":
        assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "tool"]
        assert [c["id"] for c in second[2]["tool_calls"]] == ["call_0", "call_1"]
        assert second[3:] == [
            {"role": "tool", "tool_call_id": "call_0", "content": "Lima: 19 C"},
            {"role": "tool", "tool_call_id": "call_1", "content": "Cusco: 19 C"}]
    else:
        assert [m["role"] for m in second] == ["user", "assistant", "user"]
        assert [b["id"] for b in second[1]["content"]] == ["toolu_0", "toolu_1"]
        assert second[2]["content"] == [
            {"type": "tool_result", "tool_use_id": "toolu_0", "content": "Lima: 19 C"},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Cusco: 19 C"}]
    # the tape replays the whole conversation with the server gone
    again = prog.call("agent", {"question": "Weather in Lima and Cusco?"},
                      provider=synsema.Provider(api=api, cassette=str(tape),
                                                cassette_mode="replay"))
    assert again.value == r.value and again.tokens == r.tokens


def test_the_error_of_a_malformed_labelled_history_is_withheld():
    src = '''
require llm
require llm("secret")

task go(pin)
    give llm_step("q", [], [{"role": "robot", "content": "pin " + pin}])
'''
    prog = synsema.compile_source(src, "h.syn")
    with pytest.raises(synsema.RunError) as e:
        prog.call("go", {"pin": "1234"}, labels=True, args_labels=["secret"],
                  provider=synsema.Provider())
    assert "1234" not in e.value.message and "withheld" in e.value.message
    assert e.value.labels == {"secret"} and "1234" in e.value.host_message
