"""The provider wire checked against a real third-party server: LiteLLM's proxy, answering
offline from a mock configuration (`mock_response`, `mock_tool_calls`), on both its
OpenAI route (/v1/chat/completions) and its Anthropic route (/v1/messages), with the
official openai and anthropic SDKs as a control. `make test-providers` runs it in its own
venv (.venv-providers: LiteLLM's proxy is large); it is not part of the pytest suite.

    .venv-providers/bin/python bench/providers/run.py

The proxy listens on 127.0.0.1 only, every wait has a timeout, and the proxy is always
killed (also when a scenario fails). Exit 0 when every scenario passes, else 1.

What LiteLLM's mock cannot do, said here rather than pretended: on /v1/messages its
`mock_tool_calls` setting is ignored (LiteLLM 1.x answers with its fixed text). So the
Anthropic route's tool call comes from a LiteLLM custom provider (HANDLER below, LiteLLM's
documented `custom_provider_map`) whose completion is LiteLLM's own mock with that tool
call: LiteLLM, not Synsema, turns it into the /v1/messages `tool_use` answer. Typed
extract on the Anthropic route gets a text answer, which Synsema reads as the value
(stdlib.llm.provider._answer_value).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
KEY = "sk-synsema-providers-test"
TEXT = "Lima is the capital of Peru."
TOOL_CALL = [{"id": "call_1", "type": "function",
              "function": {"name": "add", "arguments": "{\"a\": \"2\", \"b\": 3}"}}]
# Two calls in one answer, of a dotted host tool (sent as calc__add: the providers allow no
# dot in a tool name).
PARALLEL_CALLS = [{"id": "call_1", "type": "function",
                   "function": {"name": "calc__add", "arguments": "{\"a\": 2, \"b\": 3}"}},
                  {"id": "call_2", "type": "function",
                   "function": {"name": "calc__add", "arguments": "{\"a\": 1, \"b\": 1}"}}]

CONFIG = f"""model_list:
  - model_name: mock-text
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_response: {json.dumps(TEXT)}
  - model_name: mock-tool
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_tool_calls: {json.dumps(TOOL_CALL)}
  - model_name: mock-extract
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_response: '{{"value": 5}}'
  - model_name: mock-429
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_response: "litellm.RateLimitError"
  - model_name: mock-parallel
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_tool_calls: {json.dumps(PARALLEL_CALLS)}
  - model_name: mock-400
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_response: "litellm.ContextWindowExceededError"
  - model_name: mock-500
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_response: "litellm.InternalServerError"
  - model_name: mock-slow
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_response: "late"
      mock_delay: 20
  - model_name: mock-408
    litellm_params:
      model: openai/gpt-4o
      api_key: sk-fake
      mock_timeout: true
      timeout: 1
  - model_name: mock-tool-handler
    litellm_params:
      model: synmock/tool
litellm_settings:
  custom_provider_map:
    - {{"provider": "synmock", "custom_handler": synmock.tool_model}}
general_settings:
  master_key: {KEY}
"""

# The custom provider (module synmock, next to the config): LiteLLM's own mock completion
# with TOOL_CALL, so the proxy's /v1/messages route has a tool call to translate.
HANDLER = f"""import litellm
from litellm import CustomLLM

TOOL_CALL = {TOOL_CALL!r}


class ToolModel(CustomLLM):
    def completion(self, *args, **kwargs):
        return litellm.completion(model="openai/gpt-4o", messages=kwargs["messages"],
                                  api_key="sk-fake", mock_tool_calls=TOOL_CALL)

    async def acompletion(self, *args, **kwargs):
        return await litellm.acompletion(model="openai/gpt-4o", messages=kwargs["messages"],
                                         api_key="sk-fake", mock_tool_calls=TOOL_CALL)


tool_model = ToolModel()
"""

TOOL_PROGRAM = """require llm
task add(a: number, b: number)
    give a + b
let step be llm_step("What is 2 plus 3?", [tool_spec(add, "Add two numbers")], "")
print(step["args"])
print(call_tool(add, step["args"]))
"""

TEXT_PROGRAM = """require llm
print(ask("Capital of Peru?"))
print(summarize("Lima is the capital and largest city of Peru."))
print(classify("Lima", ["Lima is the capital of Peru.", "something else"]))
print(extract("Lima is in Peru", "the capital"))
"""

EXTRACT_PROGRAM = """require llm
let n be extract("I bought five apples", "how many apples", "number")
print(n + 1)
print(type_of(n))
"""

ERROR_PROGRAM = """require llm
try
    print(ask("hello"))
recover e
    print(e)
"""

PARALLEL_PROGRAM = """require llm
require tool("calc.add")
let add be host_tool("calc.add")
let step be llm_step("Add 2 and 3, and 1 and 1", [tool_spec(add, \"Add two numbers\")], "")
for each c in step["calls"]
    print(c["name"] + " " + text(c["args"]) + " = " + text(call_tool(add, c["args"])))
"""

CALC_TOOLS = '''import synsema


@synsema.tool(name="calc.add")
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''

TOKENS_PROGRAM = """require llm
let answer be ask("hello")
print(llm_tokens_used())
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proxy:
    def __init__(self, workdir):
        self.workdir = workdir
        self.port = free_port()
        self.proc = None

    def start(self, timeout=120):
        config = self.workdir / "litellm.yaml"
        config.write_text(CONFIG, encoding="utf-8")
        (self.workdir / "synmock.py").write_text(HANDLER, encoding="utf-8")
        exe = Path(sys.executable).parent / "litellm"
        env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True",
                   LITELLM_TELEMETRY="False",
                   PYTHONPATH=os.pathsep.join([str(self.workdir),
                                              os.environ.get("PYTHONPATH", "")]))
        self.log = open(self.workdir / "proxy.log", "w")
        self.proc = subprocess.Popen(
            [str(exe), "--config", str(config), "--host", "127.0.0.1", "--port",
             str(self.port)], stdout=self.log, stderr=subprocess.STDOUT, env=env,
            stdin=subprocess.DEVNULL, start_new_session=True, cwd=self.workdir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the LiteLLM proxy exited at start; see its log:\n"
                                   + (self.workdir / "proxy.log").read_text()[-2000:])
            try:
                with urllib.request.urlopen(
                        f"http://127.0.0.1:{self.port}/health/liveliness", timeout=2):
                    return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the LiteLLM proxy did not answer within {timeout} s")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=15)
        self.proc = None


def syn(workdir, source, *args, env=None):
    path = workdir / "app.syn"
    path.write_text(source, encoding="utf-8")
    (workdir / "calc_tools.py").write_text(CALC_TOOLS, encoding="utf-8")
    exe = Path(sys.executable).parent / "syn"
    e = {k: v for k, v in os.environ.items()
         if not (k.startswith("SYN_LLM") or k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"))}
    e.update(env or {})
    return subprocess.run([str(exe), "run", str(path), *map(str, args)], capture_output=True,
                          text=True, env=e, timeout=120, stdin=subprocess.DEVNULL,
                          cwd=workdir)


def route(proxy, api, model):
    url = f"http://127.0.0.1:{proxy.port}" + ("/v1" if api == "openai" else "")
    return ["--llm-url", url, "--llm-api", api, "--llm-model", model]


KEY_ENV = {"SYN_LLM_KEY": KEY}
TOOL_MODELS = {"openai": "mock-tool", "anthropic": "mock-tool-handler"}


class Checks:
    def __init__(self):
        self.failed = []
        self.passed = 0

    def check(self, name, ok, detail=""):
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else f"\n    {detail}"))
        if not ok:
            self.failed.append(name)
        else:
            self.passed += 1


def scenarios(proxy, workdir, c):
    # A tool call with argument conversion (the Anthropic route's from the custom
    # provider: see the module docstring).
    for api, model in TOOL_MODELS.items():
        r = syn(workdir, TOOL_PROGRAM, *route(proxy, api, model), env=KEY_ENV)
        c.check(f"{api}: tool call, \"2\" for a number arrives as 2",
                r.returncode == 0 and r.stdout == '{"a": 2, "b": 3}\n5\n',
                r.stdout + r.stderr)

    # Two calls in one answer, of a dotted tool name, on the OpenAI route (LiteLLM's mock).
    r = syn(workdir, PARALLEL_PROGRAM, *route(proxy, "openai", "mock-parallel"), "--tools",
            "calc_tools:add", env=KEY_ENV)
    c.check("openai: two calls in one answer, dotted tool name",
            r.returncode == 0 and r.stdout == 'calc.add {"a": 2, "b": 3} = 5\n'
            'calc.add {"a": 1, "b": 1} = 2\n', r.stdout + r.stderr)

    for api in ("openai", "anthropic"):
        # 400 (not retried), 408 and 500 (retried), and a server slower than
        # --llm-timeout: each a catchable error saying what happened. 408 and the slow
        # server on the OpenAI route only: LiteLLM's /v1/messages ignores mock_timeout and
        # mock_delay (it would try the real upstream). (A key the proxy does not know gets
        # HTTP 400 "No connected db" from a proxy without a database, not a 401.)
        cases = [("mock-400", (), ["answered HTTP 400"]),
                 ("mock-500", ("--llm-max-retries", "1"),
                  ["answered HTTP 500 (after 2 attempts)"])]
        if api == "openai":
            cases.append(("mock-408", ("--llm-max-retries", "1"),
                          ["answered HTTP 408 (after 2 attempts)"]))
            cases.append(("mock-slow", ("--llm-timeout", "2", "--llm-max-retries", "0"),
                          ["no answer within 2 s"]))
        for model, args, want in cases:
            env = KEY_ENV
            r = syn(workdir, ERROR_PROGRAM, *route(proxy, api, model), *args, env=env)
            c.check(f"{api}: {want[0]} ({model})",
                    r.returncode == 0 and all(w in r.stdout for w in want)
                    and "Traceback" not in r.stdout + r.stderr, r.stdout + r.stderr)

        r = syn(workdir, TEXT_PROGRAM, *route(proxy, api, "mock-text"), env=KEY_ENV)
        lines = r.stdout.splitlines()
        c.check(f"{api}: the four text ops", r.returncode == 0 and lines == [TEXT] * 4,
                r.stdout + r.stderr)

        r = syn(workdir, EXTRACT_PROGRAM, *route(proxy, api, "mock-extract"), env=KEY_ENV)
        c.check(f"{api}: typed extract", r.stdout == "6\nnumber\n", r.stdout + r.stderr)

        r = syn(workdir, TOKENS_PROGRAM, *route(proxy, api, "mock-text"), env=KEY_ENV)
        sdk = sdk_tokens(proxy, api)
        c.check(f"{api}: token count as the SDK reads it ({sdk})",
                r.returncode == 0 and r.stdout.strip() == str(sdk), r.stdout + r.stderr)

        r = syn(workdir, ERROR_PROGRAM, *route(proxy, api, "mock-429"), "--llm-max-retries",
                "2", env=KEY_ENV)
        c.check(f"{api}: HTTP 429 with its retry count and its code",
                "answered HTTP 429 (after 3 attempts): " in r.stdout
                and "mock rate limit error" in r.stdout
                and (api == "anthropic" or r.stdout.rstrip().endswith("(429)")),
                r.stdout + r.stderr)

    # Cassettes: record against the proxy, replay with it stopped.
    tapes = {}
    for api in ("openai", "anthropic"):
        for name, source, model in (("extract", EXTRACT_PROGRAM, "mock-extract"),
                                    ("error", ERROR_PROGRAM, "mock-429")):
            tape = workdir / f"{api}-{name}.jsonl"
            r = syn(workdir, source, *route(proxy, api, model), "--cassette", tape,
                    "--cassette-mode", "record", env=KEY_ENV)
            tapes[(api, name)] = (tape, source, model, r.stdout)
    for api, model in TOOL_MODELS.items():
        tape = workdir / f"{api}-tool.jsonl"
        r = syn(workdir, TOOL_PROGRAM, *route(proxy, api, model), "--cassette", tape,
                "--cassette-mode", "record", env=KEY_ENV)
        tapes[(api, "tool")] = (tape, TOOL_PROGRAM, model, r.stdout)
    return tapes


def replay(proxy, workdir, c, tapes):
    for (api, name), (tape, source, model, recorded) in sorted(tapes.items()):
        r = syn(workdir, source, *route(proxy, api, model), "--cassette", tape,
                "--cassette-mode", "replay")
        c.check(f"{api}: {name} replayed with the proxy stopped",
                r.stdout == recorded and recorded.strip() != "", recorded + " / " + r.stdout
                + r.stderr)


def sdk_tokens(proxy, api):
    """The control: the official SDK's reading of the same answer's usage."""
    if api == "openai":
        import openai
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{proxy.port}/v1", api_key=KEY,
                               timeout=30, max_retries=0)
        answer = client.chat.completions.create(
            model="mock-text", messages=[{"role": "user", "content": "hello"}])
        return answer.usage.total_tokens
    import anthropic
    client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{proxy.port}", api_key=KEY,
                                 timeout=30, max_retries=0)
    answer = client.messages.create(model="mock-text", max_tokens=100,
                                    messages=[{"role": "user", "content": "hello"}])
    return answer.usage.input_tokens + answer.usage.output_tokens


def sdk_tool_call(proxy, c):
    import openai
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{proxy.port}/v1", api_key=KEY,
                           timeout=30, max_retries=0)
    answer = client.chat.completions.create(
        model="mock-tool", messages=[{"role": "user", "content": "What is 2 plus 3?"}],
        tools=[{"type": "function", "function": {
            "name": "add", "parameters": {"type": "object", "properties": {
                "a": {"type": "number"}, "b": {"type": "number"}}}}}])
    call = answer.choices[0].message.tool_calls[0]
    c.check("openai SDK (control): the same tool call",
            call.function.name == "add" and json.loads(call.function.arguments) ==
            {"a": "2", "b": 3}, repr(call))

    import anthropic
    client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{proxy.port}", api_key=KEY,
                                 timeout=30, max_retries=0)
    answer = client.messages.create(
        model=TOOL_MODELS["anthropic"], max_tokens=100,
        messages=[{"role": "user", "content": "What is 2 plus 3?"}],
        tools=[{"name": "add", "input_schema": {"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "number"}}}}])
    uses = [b for b in answer.content if b.type == "tool_use"]
    c.check("anthropic SDK (control): the same tool call",
            len(uses) == 1 and uses[0].name == "add" and uses[0].input == {"a": "2", "b": 3},
            repr(answer.content))


def main():
    started = time.monotonic()
    c = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        proxy = Proxy(workdir)
        try:
            proxy.start()
            tapes = scenarios(proxy, workdir, c)
            sdk_tool_call(proxy, c)
        finally:
            proxy.stop()
        replay(proxy, workdir, c, tapes)
    print(f"providers: {c.passed} passed, {len(c.failed)} failed; "
          f"{time.monotonic() - started:.0f} s")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
