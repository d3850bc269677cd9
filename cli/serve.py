"""`syn serve app.synb --mcp`: a Synsema program's tasks as the tools of an MCP server
(official `mcp` SDK, low-level Server), over stdio or streamable HTTP on loopback.

* Tools: every task (or those of --expose), each with `syn outline --json`'s
  input_schema; its description is the task's doc comment (compiler.doc: the `--` lines
  above it), then the program's intent and the task's signature; each parameter's, its
  `NAME: text` line of the doc comment, else its type.
* A call runs the task through the embedding API (Program.call: top level, then the task)
  with the run options given to `serve` -- ceiling, labels, host tools, MCP servers of its
  own, limits. Arguments are checked as call_tool checks them; `--args-label L` labels
  them (say `untrusted`: whoever calls an MCP server is outside the program).
* The client is a sink: under --labels a result labelled L is returned only when the
  ceiling has stdout=L (a developer-mode ceiling, without --cap-set, has none), otherwise
  the call is an MCP error that names the labels, never the data. An error of the run is
  an MCP error with the message `syn` prints (withheld when labelled).
* What a task prints goes to the server's stderr (stdout is the protocol over stdio).
"""

import io
import json
import sys

from synsema import api
from synsema.cli import runner
from synsema.cli.output import interrupted
from synsema.cli.options import ENTRY_OPTIONS, RUN_OPTIONS
from synsema.runtime import run as runs
from synsema.runtime.report import printable
from synsema.stdlib.pyvalues import Unholdable, from_python
from synsema.vm.errors import SynError
from synsema.vm.jsonvalues import json_encode

LOOPBACK = ("127.0.0.1", "localhost", "::1")

# The run options, but on `serve` the flag --mcp says which protocol to serve, so the MCP
# servers the served program itself uses are given with --mcp-server NAME=COMMAND; and
# --args-label, to label what the clients send.
OPTIONS = [(("--mcp-server",) + row[1:]) if row[0] == "--mcp" else row for row in RUN_OPTIONS]
OPTIONS += [row for row in ENTRY_OPTIONS if row[0] == "--args-label"]
OPTIONS += [
    ("--expose", "expose", "multi", (),
     "Serve only this task (repeatable); by default every task is a tool."),
    ("--http", "http", "text", None,
     "Serve streamable HTTP on HOST:PORT (loopback only; port 0 picks a free one and the "
     "URL is written to stderr) instead of stdio."),
]


def serve(path, values):
    """Serve until the client goes away (stdio) or Ctrl-C (HTTP); the exit code."""
    program, code = runner.open_program(path, "serve")
    if program is None:
        return code
    from synsema.cli.files import calls_models, program_files, written_files_error
    refused = written_files_error(values, program_files(path, program),
                                  model=calls_models(program))
    if refused:
        runner.err(refused)
        return runner.EXIT_USAGE
    try:
        import mcp  # noqa: F401 - the SDK is an optional extra
    except ImportError:
        runner.err("error: syn serve --mcp needs the MCP SDK: pip install 'synsema[mcp]'")
        return runner.EXIT_USAGE
    try:
        app = _App(program, values, values.get("expose") or ())
        sock = _listen(values["http"]) if values.get("http") else None
    except api.Error as e:
        return runner.outcome(e)
    import anyio
    _stop_on_ctrl_c()
    try:
        anyio.run(_stdio if sock is None else _http, app, *([sock] if sock else []))
    except KeyboardInterrupt:       # a SIGINT before the handler was set: the same end
        interrupted()
    return runner.EXIT_OK


def _stop_on_ctrl_c():
    """Ctrl-C ends the server at once, exit 130 and one line, as every command does
    (cli.entry.interrupted). Not a KeyboardInterrupt: a call runs in a worker thread
    (anyio.to_thread) that nothing can stop, and the event loop's shutdown (asyncio's,
    uvicorn's graceful one, which takes over SIGINT) waits for it -- a `while true` task
    would keep the server up, and a second Ctrl-C ended it with a traceback. Set before
    the loop starts, so asyncio leaves SIGINT alone; uvicorn's is kept off (_Uvicorn)."""
    import signal
    import threading
    if threading.current_thread() is threading.main_thread():    # signals are its alone
        signal.signal(signal.SIGINT, lambda signum, frame: interrupted())


def _listen(text):
    """A socket bound to the loopback HOST:PORT of --http; UsageError otherwise."""
    import socket
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise api.UsageError(f"usage error: --http needs HOST:PORT (for example "
                             f"127.0.0.1:8765; port 0 picks a free one), got {text!r}")
    if host not in LOOPBACK:
        raise api.UsageError(f"usage error: --http {text}: syn serve listens on loopback "
                             f"only ({', '.join(LOOPBACK)}); the server has no "
                             "authentication, so put an authenticating proxy in front of "
                             "it to reach it from elsewhere")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, int(port)))
    except OSError as e:
        sock.close()
        raise api.UsageError(f"usage error: --http {text}: cannot listen there: "
                             f"{e.strerror or e}") from None
    return sock


class _App:
    """The tool list and the call handler of one served program."""

    def __init__(self, program, values, expose):
        from synsema.cli.describe import _signature, outline
        from synsema.vm.caps import Ceiling, CeilingError
        from synsema.vm.suggest import did_you_mean
        self.program = program
        data = outline(program.compiled)
        tasks = {t["name"]: t for t in data["tasks"]}
        for name in expose:
            if name not in tasks:
                raise api.UsageError(f"usage error: --expose {printable(name)}: "
                                     f"{printable(program.name)} has no task "
                                     f"'{printable(name)}'{did_you_mean(name, list(tasks))}")
        if not tasks:
            raise api.UsageError(f"usage error: {printable(program.name)} has no tasks to serve")
        chosen = [tasks[n] for n in dict.fromkeys(expose)] if expose else list(tasks.values())
        intent = data["intent"]
        self.tools = []
        for t in chosen:
            what = f"Task {_signature(t)} of {data['source']}"
            # The doc comment's description first, then the intent and signature.
            about, params = _task_doc(program, t)
            said = f"{intent} ({what})" if intent else what
            self.tools.append({"name": t["name"],
                               "inputSchema": _described(t["input_schema"], params,
                                                         t["parameters"]),
                               "description": f"{about}\n\n{said}" if about else said})
        self.names = {t["name"] for t in chosen}
        self.settings = runner.settings(values)
        self.args_labels = tuple(values.get("args_label") or ())
        cap_set = values.get("cap_set")
        try:
            self.ceiling = Ceiling.for_program(cap_set, program.compiled.requires)
        except CeilingError as e:
            raise api.UsageError(f"usage error: {e}") from None
        self.server_name = data["source"].rsplit(".", 1)[0]

    def run(self, name, arguments):
        """The CallToolResult (wire form) of one call; runs in a worker thread."""
        if name not in self.names:
            return _error(f"no tool '{name}' here; the tools are {', '.join(sorted(self.names))}")
        if not isinstance(arguments, dict):
            return _error("the arguments must be a JSON object")
        out = io.StringIO()
        try:
            # As Program.call runs it, with the CLI's --llm-* settings
            compiled = self.program.compiled
            args = runs.python_args(compiled, name, arguments)
            _, raw = runs.execute(compiled, self.program.source, name, args, out.write,
                                  args_labels=self.args_labels, **self.settings)
            value, labels = runs.python_value(compiled, name, raw)
        except api.Error as e:
            if out.getvalue():      # what the task printed goes to stderr, as on success
                sys.stderr.write(out.getvalue())
                sys.stderr.flush()
            return _error(api.public_message(e, self.ceiling))   # the client is a sink
        if out.getvalue():
            sys.stderr.write(out.getvalue())
            sys.stderr.flush()
        blocked = self.ceiling.blocked(labels)
        if blocked:
            # Which labels a result carries can depend on the data: not named here.
            return _error(f"the result of task '{name}' carries labels the host ceiling "
                          "(--cap-set) does not let out (stdout=LABEL), so an MCP client, "
                          "a sink like stdout, may not receive it")
        if isinstance(value, str) or value is None:
            text = value
        else:
            # JSON as `syn run --call` writes it (vm.jsonvalues): a map key that is not a
            # text is refused, not turned into one (two keys would become one).
            try:
                text = json_encode(from_python(value))
            except (Unholdable, SynError) as e:
                said = e.render() if isinstance(e, Unholdable) else e.message
                return _error(f"the result of task '{name}' cannot be written as JSON: "
                              f"{printable(said)}")
        out = {"content": [{"type": "text", "text": text}] if value is not None else [],
               "isError": False}
        if isinstance(value, dict):
            out["structuredContent"] = json.loads(text)
        return out

    def server(self):
        from mcp import types
        from mcp.server.lowlevel import Server
        import anyio

        async def list_tools(ctx, params):
            return types.ListToolsResult.model_validate({"tools": self.tools})

        async def call_tool(ctx, params):
            wire = await anyio.to_thread.run_sync(self.run, params.name, params.arguments or {})
            return types.CallToolResult.model_validate(wire)

        from synsema import __version__
        return Server(self.server_name, version=__version__, on_list_tools=list_tools,
                      on_call_tool=call_tool)


def _task_doc(program, task):
    """(description, {parameter: description}) of a task from its doc comment (the `--`
    lines above it, compiler.doc), read from the program's source: a .syn, or the source
    beside a .synb when it is readable there (as error carets are)."""
    from synsema.compiler.doc import task_doc
    try:
        lines = program.source.lines
    except Exception:  # noqa: BLE001 - a source that cannot be read describes nothing
        lines = None
    if not lines:
        return "", {}
    return task_doc(lines, task["line"], [p["name"] for p in task["parameters"]])


def _described(schema, described, params):
    """The input schema with a description on every property: its doc comment's line,
    else its type (and whether it may be left out)."""
    schema = dict(schema, properties={k: dict(v) for k, v in schema["properties"].items()})
    for p in params:
        prop = schema["properties"].get(p["name"])
        if prop is None:
            continue
        text = described.get(p["name"])
        if not text:
            text = f"{p['type'] or 'any value'}" + (" (optional)" if p["optional"] else "")
        prop["description"] = text
    return schema


def _error(text):
    return {"content": [{"type": "text", "text": text}], "isError": True}


async def _stdio(app):
    import anyio
    import mcp_types
    from mcp.server.stdio import stdio_server
    from mcp.shared._context_streams import create_context_streams
    server = app.server()
    # The SDK ends the session as soon as stdin closes, cancelling the calls still
    # running: a client that writes its requests and closes its end would lose their
    # answers (and a call that has already used host tools would end with no report).
    # The server reads through this relay instead, which closes only once every request
    # passed on has been answered.
    pending = set()
    async with stdio_server() as (read, write):
        to_server, server_in = create_context_streams(0)
        server_out, from_server = create_context_streams(0)

        async def relay_in():
            async with to_server:
                async for item in read:
                    msg = getattr(item, "message", None)
                    if isinstance(msg, mcp_types.JSONRPCRequest):
                        pending.add(msg.id)
                    elif isinstance(msg, mcp_types.JSONRPCNotification) and \
                            msg.method == "notifications/cancelled":
                        # a cancelled request gets no answer: not waited for
                        pending.discard((msg.params or {}).get("requestId"))
                    await to_server.send(item)
                while pending:
                    await anyio.sleep(0.02)

        async def relay_out():
            async with from_server, write:      # stdio_server's writer ends when it closes
                async for item in from_server:
                    if isinstance(item.message, (mcp_types.JSONRPCResponse,
                                                 mcp_types.JSONRPCError)):
                        pending.discard(item.message.id)
                    await write.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay_in)
            tg.start_soon(relay_out)
            async with server_out:
                await server.run(server_in, server_out, server.create_initialization_options())


async def _http(app, sock):
    import uvicorn
    host, port = sock.getsockname()[:2]
    asgi = app.server().streamable_http_app(host=host)
    shown = f"[{host}]" if ":" in host else host
    runner.err(f"serving {printable(app.program.name)} over MCP at http://{shown}:{port}/mcp "
               "(Ctrl-C stops)")
    await _uvicorn_server(uvicorn, uvicorn.Config(asgi, log_level="warning")).serve(
        sockets=[sock])


def _uvicorn_server(uvicorn, config):
    """uvicorn's Server with its SIGINT handling (a graceful shutdown that waits for the
    calls running) replaced by ours (_stop_on_ctrl_c); its SIGTERM handling is kept."""
    import contextlib
    import signal

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):
            ours = signal.getsignal(signal.SIGINT)
            with super().capture_signals():
                if signal.getsignal(signal.SIGINT) is not ours:     # main thread only
                    signal.signal(signal.SIGINT, ours)
                yield

    return Server(config)
