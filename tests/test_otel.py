"""OpenTelemetry spans (docs/observability.md): a run, each model call and each tool call,
after the GenAI semantic conventions, read back with the SDK's in-memory exporter; and
nothing labelled in an attribute unless the ceiling's stdout= items let it out."""

import json
import subprocess
import sys

import pytest
from opentelemetry.sdk import trace as trace_sdk        # the otel extra (make test has it)
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import synsema
from conftest import ROOT
from llm_server import LLMServer, openai_text

SECRET = "SECRET-4711"


@pytest.fixture
def spans():
    """(tracer_provider, finished()) -- finished() lists the spans by name, ended order."""
    exporter = InMemorySpanExporter()
    provider = trace_sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter.get_finished_spans


def by_op(finished, op):
    return [s for s in finished() if s.attributes.get("gen_ai.operation.name") == op]


def every_value(finished):
    """Every attribute value and status text of every span, as one text."""
    parts = []
    for s in finished():
        parts.append(s.name)
        parts.append(json.dumps(dict(s.attributes), default=str))
        parts.append(s.status.description or "")
    return "\n".join(parts)


def test_the_weather_agent_is_a_run_with_model_and_tool_spans(spans):
    provider, finished = spans
    prog = synsema.compile_file(ROOT / "examples" / "weather_agent.syn")
    result = prog.run(provider=synsema.Provider(
        cassette=str(ROOT / "examples" / "weather_agent.cassette.jsonl"),
        cassette_mode="replay"), tracer_provider=provider)
    [run] = by_op(finished, "invoke_agent")
    chats = by_op(finished, "chat")
    tools = by_op(finished, "execute_tool")
    assert run.name == "invoke_agent weather_agent.syn" and run.parent is None
    assert run.attributes["gen_ai.agent.description"].startswith("answer travellers'")
    assert run.attributes["synsema.exit_code"] == 0
    # five model calls; the fourth proposes arguments call_tool rejects before any tool runs
    assert len(chats) == 5 and len(tools) == 3
    for s in chats + tools:         # children of the run, in its trace
        assert s.parent.span_id == run.context.span_id
        assert s.context.trace_id == run.context.trace_id
    c = chats[0]
    assert c.name.startswith("chat ") and c.attributes["gen_ai.provider.name"] == "openai"
    assert c.attributes["gen_ai.request.model"] == c.name[len("chat "):]
    assert c.attributes["synsema.builtin"] == "llm_step"
    assert c.attributes["synsema.cassette"].endswith("weather_agent.cassette.jsonl")
    assert "server.address" not in c.attributes         # a tape answers, no server
    assert c.attributes["synsema.step.kind"] == "tool"
    assert c.attributes["synsema.step.tool"] == "get_weather"
    assert chats[-1].attributes["synsema.step.kind"] == "final"
    # the token counts add up to the run's, which adds up to Result.tokens
    ins = sum(s.attributes["gen_ai.usage.input_tokens"] for s in chats)
    outs = sum(s.attributes["gen_ai.usage.output_tokens"] for s in chats)
    assert (run.attributes["gen_ai.usage.input_tokens"],
            run.attributes["gen_ai.usage.output_tokens"]) == (ins, outs)
    assert ins + outs == result.tokens > 0
    assert [t.attributes["gen_ai.tool.name"] for t in tools] == \
        ["get_weather", "get_weather", "to_fahrenheit"]
    assert all(t.name == "execute_tool " + t.attributes["gen_ai.tool.name"] and
               t.attributes["synsema.tool.kind"] == "task" and
               t.attributes["synsema.tool.outcome"] == "ok" for t in tools)


AGENT = """\
intent: "answer about the customer"
require llm("customers")
require tool("send")
let note be private("customer " + "SECRET-4711", "customers")
let answer be ask(note)
print(declassify(answer, "shown to the operator"))
host_tool("send")("ops@example.com", note)
"""


@synsema.tool(accepts={"body": []})
def send(to: str, body: str) -> str:
    """Send a message."""
    return "sent"


def run_agent(provider, cap_set, audit=None):
    prog = synsema.compile_source(AGENT, "agent.syn")
    with LLMServer() as server:
        server.reply(openai_text("the customer answer", prompt_tokens=31,
                                 completion_tokens=7))
        with pytest.raises(synsema.Error) as info:
            prog.run(labels=True, cap_set=cap_set, tools=[send], audit=audit,
                     provider=synsema.Provider(url=server.url, model="m1"),
                     tracer_provider=provider)
    return info.value


def test_labelled_prompt_tokens_and_messages_stay_out_unless_stdout_covers_them(spans):
    provider, finished = spans
    err = run_agent(provider, "stdout,llm=customers@127.0.0.1,declassify=customers,tool=send")
    assert err.exit_code == 1       # the contract refused the labelled body
    [chat] = by_op(finished, "chat")
    assert chat.attributes["synsema.labels"] == ("customers",)
    assert "gen_ai.usage.input_tokens" not in chat.attributes   # as labelled as the prompt
    [tool] = by_op(finished, "execute_tool")
    assert tool.attributes["gen_ai.tool.name"] == "send"
    assert tool.attributes["synsema.tool.kind"] == "host"
    assert tool.attributes["synsema.tool.outcome"] == "refused"
    assert tool.attributes["synsema.refusal.parameter"] == "body"
    assert tool.attributes["synsema.refusal.labels"] == ("customers",)
    assert tool.attributes["synsema.refusal.accepts"] == ()
    assert tool.status.status_code == StatusCode.ERROR
    assert tool.status.description == "(message withheld: labelled data)"
    [run] = by_op(finished, "invoke_agent")
    assert run.status.status_code == StatusCode.ERROR
    assert run.attributes["synsema.exit_code"] == 1
    assert run.attributes["error.type"] == "ToolRefused"   # a RunError subclass
    assert "gen_ai.usage.input_tokens" not in run.attributes
    assert SECRET not in every_value(finished)
    assert run.status.description == "error: (message withheld)"    # api.public_message


def test_stdout_items_let_the_labelled_counts_and_messages_out(spans):
    provider, finished = spans
    run_agent(provider, "stdout,stdout=customers,llm=customers@127.0.0.1,"
                        "declassify=customers,tool=send")
    [chat] = by_op(finished, "chat")
    assert (chat.attributes["gen_ai.usage.input_tokens"],
            chat.attributes["gen_ai.usage.output_tokens"]) == (31, 7)
    [tool] = by_op(finished, "execute_tool")
    assert "'body' carries [customers]" in tool.status.description
    [run] = by_op(finished, "invoke_agent")
    assert run.attributes["gen_ai.usage.input_tokens"] == 31
    assert run.status.status_code == StatusCode.ERROR


def test_the_audit_line_of_a_refusal_says_why(spans, tmp_path):
    audit = tmp_path / "audit.jsonl"
    run_agent(None, "stdout,llm=customers@127.0.0.1,declassify=customers,tool=send",
              audit=str(audit))
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    [refusal] = [x for x in lines if x["event"] == "host_tool"]
    assert refusal["outcome"] == "refused" and refusal["tool"] == "send"
    assert (refusal["parameter"], refusal["labels"], refusal["accepts"]) == \
        ("body", ["customers"], [])
    [declassified] = [x for x in lines if x["event"] == "declassify"]
    assert declassified["reason"] == "shown to the operator"
    assert SECRET not in audit.read_text()


def test_a_missing_tool_capability_is_a_refusal_that_names_it(spans, tmp_path):
    provider, finished = spans
    audit = tmp_path / "audit.jsonl"
    # the program holds tool("send"); task t, run by call_tool, declares only stdout
    prog = synsema.compile_source('require tool("send")\ntask t()\n    require stdout\n    give host_tool("send")("a", "b")\n'
                                  'print(call_tool(t, {}))\n', "b.syn")
    with pytest.raises(synsema.Error):
        prog.run(tools=[send], audit=str(audit), tracer_provider=provider)
    tools = [s for s in by_op(finished, "execute_tool")
             if s.attributes["synsema.tool.kind"] == "host"]
    assert tools[-1].attributes["synsema.refusal.capability"] == 'tool("send")'
    line = json.loads(audit.read_text().splitlines()[-1])
    assert line["capability"] == 'tool("send")' and line["outcome"] == "refused"


def test_no_span_for_a_call_under_a_labelled_condition(spans):
    provider, finished = spans
    prog = synsema.compile_source(
        'require tool("send")\nlet s be private("x", "customers")\nwhen s == "x"\n'
        '    host_tool("send")("a", "b")\n', "c.syn")
    with pytest.raises(synsema.Error):      # the first send is refused (the pc), uncaught
        prog.run(tools=[send], labels=True, cap_set="stdout,tool=send",
                 tracer_provider=provider)
    assert by_op(finished, "execute_tool") == []        # that it ran depends on s
    # with stdout=customers the ceiling lets the condition out: the span is there
    with pytest.raises(synsema.Error):
        prog.run(tools=[send], labels=True, cap_set="stdout,stdout=customers,tool=send",
                 tracer_provider=provider)
    [tool] = by_op(finished, "execute_tool")
    assert tool.attributes["synsema.refusal.parameter"] == "to"     # it carries the pc
    assert tool.attributes["synsema.refusal.labels"] == ("customers",)


def test_a_tool_chosen_by_a_labelled_task_value_is_not_named(spans):
    provider, finished = spans
    prog = synsema.compile_source(
        'require tool("send")\nlet tools be private({"a": host_tool("send")}, "customers")\n'
        'call_tool(tools["a"], {"to": "x", "body": "y"})\n', "d.syn")
    with pytest.raises(synsema.Error):
        prog.run(tools=[send], labels=True, cap_set="stdout,tool=send",
                 tracer_provider=provider)
    [tool] = by_op(finished, "execute_tool")
    assert tool.name == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "(withheld: labelled data)"
    assert "send" not in every_value(finished).replace("tool=send", "")


def test_a_host_span_is_the_parent_of_the_run(spans):
    provider, finished = spans
    tracer = provider.get_tracer("host")
    with tracer.start_as_current_span("request") as outer:
        synsema.compile_source('print("hi")\n', "e.syn").run(tracer_provider=provider)
    [run] = by_op(finished, "invoke_agent")
    assert run.parent.span_id == outer.context.span_id


def test_a_refused_start_ends_its_span_with_the_error(spans):
    provider, finished = spans
    prog = synsema.compile_source('require net("x.example.com")\nprint(1)\n', "f.syn")
    with pytest.raises(synsema.Refused):
        prog.run(cap_set="stdout", tracer_provider=provider)
    [run] = by_op(finished, "invoke_agent")
    assert run.attributes["synsema.exit_code"] == 3
    assert "does not start" in run.status.description


def test_tracer_provider_must_be_one():
    with pytest.raises(synsema.UsageError, match="tracer_provider= must be an OpenTelemetry"):
        synsema.compile_source('print(1)\n', "g.syn").run(tracer_provider="yes")


GLOBAL = r"""
import sys
{setup}
from synsema.cli.entry import main
try:
    main(["run", sys.argv[1]])
except SystemExit as e:
    code = e.code
print("otel imported:", "opentelemetry.trace" in sys.modules, file=sys.stderr)
{check}
"""

SETUP = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
"""


def _global_run(tmp_path, setup, check):
    (tmp_path / "h.syn").write_text('task t()\n    give 1\nprint(call_tool(t, {}))\n')
    script = GLOBAL.format(setup=setup, check=check)
    return subprocess.run([sys.executable, "-c", script, str(tmp_path / "h.syn")],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_the_syn_command_sends_spans_to_a_global_tracer_provider(tmp_path):
    r = _global_run(tmp_path, SETUP, 'print(sorted(s.name for s in exporter.get_finished_spans()), '
                                     'file=sys.stderr)')
    assert r.stdout == "1\n", r.stderr
    assert "['execute_tool t', 'invoke_agent h.syn']" in r.stderr


def test_without_a_tracer_provider_nothing_of_opentelemetry_is_loaded(tmp_path):
    r = _global_run(tmp_path, "", "")
    assert r.stdout == "1\n" and "otel imported: False" in r.stderr, r.stderr
    # imported but never configured (another library uses the API): no spans, no cost
    r = _global_run(tmp_path, "from opentelemetry import trace",
                    "import synsema.api as a; print('provider:', a._tracer_provider(None), "
                    "file=sys.stderr)")
    assert r.stdout == "1\n" and "provider: None" in r.stderr, r.stderr
