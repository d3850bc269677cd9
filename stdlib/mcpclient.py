"""Tools of MCP servers as host tools (SPEC 15), through the official `mcp` SDK.

A run given MCP servers (`--mcp NAME=COMMAND`, `--mcp NAME=URL`, or the embedding API's
`mcp_servers={NAME: ...}`) registers every tool TOOL of server NAME as host tool
`NAME.TOOL`: called, checked and labelled exactly as a Python host tool. What a server
entry may be (the CLI builds the same)::

    "python files_server.py"        a command line (shell-split): the server runs over stdio
    ["python", "files_server.py"]   the same as an argument list
    "http://127.0.0.1:8000/mcp"     a streamable-HTTP endpoint
    {"command": ... | "url": ..., "labels": ["untrusted"], "timeout": 30,
     "accepts": {"send_mail": {"body": ["untrusted"]}, "*": {...}}, "env": {...}, "cwd": ...}

Security defaults: every result (and error) of server NAME is labelled `mcp.NAME` (data
from a third party; `labels` replaces that label, `[]` trusts the server) and no parameter
accepts a label (`accepts`, per tool or "*", per parameter or "*"). The capability is
`tool("NAME.TOOL")` or `tool("NAME.*")`, as for every host tool.

From JSON Schema (a tool's inputSchema) to parameters: string -> text, number -> number,
integer -> number (a whole number is checked before the call), boolean -> bool, array ->
list, object -> map, an `enum`/`const` of texts, numbers or bools -> that type with the
values as choices (checked, and listed to the model), a type list or anyOf/oneOf whose
branches are one type (or that type and null) -> that type, a local `$ref` -> what it
points to; anything else (no type, mixed types, allOf, remote refs) -> any, left to the
server to check. A property in `required` has no default; any other property is optional
(its schema default kept for the catalog; when left out it is not sent, so the server
applies its own). Refused: an inputSchema that is not an object schema (the MCP spec
requires one). A tool name outside [A-Za-z0-9_] has each other character turned into `_`
(`get-weather` is `NAME.get_weather`); two tools that then collide are refused.

Results: structuredContent when present (a `{"result": x}` wrapper, the SDK's form for a
non-object result declared by an outputSchema with only `result`, becomes x); else the
content: nothing when empty, the text of a single text item, else a list (texts as texts,
images and resources as maps of their fields). `isError` becomes the catchable error
`host tool 'NAME.TOOL' failed: TEXT`.

Lifetime: a run's servers start when it starts -- the tool list is needed to register
the host tools -- and only when its program can reach a host tool at all (it uses
host_tool or host_tools) and the ceiling admits its start; they stop when the run ends,
also on errors, limits and Ctrl-C. A server's stderr goes to a temporary file, never to
the program's output; its last lines are quoted in the errors about it. A server that
cannot start ends the run before the program starts (exit 1, naming the server and what
it said); one that dies, does not answer within its timeout or answers badly makes the
call a catchable error naming it.

The SDK is async; the VM is not. Each server's session lives on its own event loop in a
background thread, and every request is submitted with run_coroutine_threadsafe and
waited for with a bound.
"""

import asyncio
import atexit
import os
import concurrent.futures
import re
import shlex
import tempfile
import threading
import types

from synsema.stdlib.hosttools import HostTool, Param, _one_line, to_synsema
from synsema.vm.caps import is_label
from synsema.vm.errors import SynError
from synsema.vm.suggest import did_you_mean

DEFAULT_TIMEOUT = 30.0          # seconds to start, and to answer each call
_CLOSE_TIMEOUT = 8.0            # the SDK's stdio shutdown is bounded by about 6 s
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYS = ("command", "url", "labels", "accepts", "env", "cwd", "timeout")
_JSON_TYPES = {"string": "text", "number": "number", "integer": "number",
               "boolean": "bool", "array": "list", "object": "map"}


class ConfigError(ValueError):
    """A server entry or option that cannot be used as written (a usage error, exit 2)."""


class StartError(Exception):
    """A server that could not be started or listed (the run does not start, exit 1)."""


class ServerSpec:
    """One configured server: name, argv or url, labels, accepts, env, cwd, timeout."""
    __slots__ = ("name", "argv", "url", "labels", "accepts", "env", "cwd", "timeout")

    def __init__(self, **fields):
        for k in self.__slots__:
            setattr(self, k, fields.get(k))

    def what(self):
        return self.url or shlex.join(self.argv)


# ---- configuration ------------------------------------------------------------------------

def parse_servers(servers):
    """[ServerSpec] of an `mcp_servers` map (see the module docstring)."""
    if not isinstance(servers, dict):
        raise ConfigError("mcp_servers must be a map from server names to a command line, "
                          f"a URL or a map of settings, got {type(servers).__name__}")
    return [_spec(name, entry) for name, entry in servers.items()]


def _spec(name, entry):
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(f"MCP server name {name!r} must be an identifier (letters, digits "
                          "and _), as its tools are named NAME.TOOL")
    where = f"MCP server '{name}'"
    if not isinstance(entry, dict):
        entry = {"command": entry}
        if isinstance(entry["command"], str) and _is_url(entry["command"]):
            entry = {"url": entry["command"]}
    for key in entry:
        if key not in _KEYS:
            hint = did_you_mean(str(key), list(_KEYS)) or "; the settings are " + ", ".join(_KEYS)
            raise ConfigError(f"{where}: unknown setting {key!r}{hint}")
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise ConfigError(f"{where}: give a command (stdio) or a url (streamable HTTP), "
                          "exactly one")
    argv = None
    if command is not None:
        argv = _argv(where, command)
    elif not isinstance(url, str) or not _is_url(url):
        raise ConfigError(f"{where}: url must be an http:// or https:// URL, got {url!r}")
    labels = entry.get("labels", [f"mcp.{name}"])
    t = entry.get("timeout", DEFAULT_TIMEOUT)
    if type(t) not in (int, float) or not t > 0:
        raise ConfigError(f"{where}: timeout must be a number of seconds above 0, got {t!r}")
    env = entry.get("env")
    if env is not None and not (isinstance(env, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        raise ConfigError(f"{where}: env must be a map of texts")
    return ServerSpec(name=name, argv=argv, url=url, labels=_labels(where, labels),
                      accepts=_accepts(where, entry.get("accepts") or {}), env=env,
                      cwd=entry.get("cwd"), timeout=float(t))


def _is_url(text):
    return text.startswith(("http://", "https://"))


def _argv(where, command):
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise ConfigError(f"{where}: cannot split the command {command!r}: {e}") from None
    elif isinstance(command, (list, tuple)) and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise ConfigError(f"{where}: command must be a command line or a list of texts, "
                          f"got {type(command).__name__}")
    if not argv:
        raise ConfigError(f"{where}: the command is empty")
    return argv


def _labels(where, labels):
    if isinstance(labels, str) or not isinstance(labels, (list, tuple, set, frozenset)):
        raise ConfigError(f"{where}: labels must be a list of label names, got {labels!r}")
    for label in labels:
        if not isinstance(label, str) or not is_label(label):
            raise ConfigError(f"{where}: {label!r} is not a label name (letters, digits, "
                              "_, - and .)")
    return frozenset(labels)


def _accepts(where, accepts):
    if not isinstance(accepts, dict):
        raise ConfigError(f"{where}: accepts must be a map from tool names (or \"*\") to "
                          "maps from parameter names (or \"*\") to lists of labels")
    out = {}
    for tool, params in accepts.items():
        if not isinstance(params, dict):
            raise ConfigError(f"{where}: accepts[{tool!r}] must be a map from parameter "
                              "names (or \"*\") to lists of labels")
        out[tool] = {p: _labels(f"{where}: accepts[{tool!r}][{p!r}]", ls)
                     for p, ls in params.items()}
    return out


def from_options(values):
    """The `mcp_servers` map of the CLI's --mcp, --mcp-label, --mcp-accepts and
    --mcp-timeout options (or None); raises ConfigError naming the option at fault."""
    servers = {}
    for item in values.get("mcp") or ():
        name, eq, target = item.partition("=")
        name = name.strip()
        if not eq or not name or not target.strip():
            raise ConfigError(f"--mcp needs NAME=COMMAND or NAME=URL, got {item!r}")
        if name in servers:
            raise ConfigError(f"--mcp {name}= is given twice")
        target = target.strip()
        servers[name] = {"url": target} if _is_url(target) else {"command": target}
        if values.get("mcp_timeout") is not None:
            servers[name]["timeout"] = values["mcp_timeout"]
    for item in values.get("mcp_label") or ():
        name, eq, labels = item.partition("=")
        entry = _named(servers, name.strip(), "--mcp-label", item, eq)
        entry.setdefault("labels", [])
        entry["labels"] += [label.strip() for label in labels.split(",") if label.strip()]
    for item in values.get("mcp_accepts") or ():
        target, eq, labels = item.partition("=")
        server, dot, rest = target.partition(".")
        tool, colon, param = rest.partition(":")
        if not (dot and colon and tool.strip() and param.strip()):
            raise ConfigError(f"--mcp-accepts needs NAME.TOOL:PARAM=LABEL,... (TOOL or PARAM "
                              f"may be *), got {item!r}")
        entry = _named(servers, server.strip(), "--mcp-accepts", item, eq)
        per_param = entry.setdefault("accepts", {}).setdefault(tool.strip(), {})
        per_param.setdefault(param.strip(), [])
        per_param[param.strip()] += [label.strip() for label in labels.split(",")
                                     if label.strip()]
    return servers or None


def _named(servers, name, option, item, eq):
    if not eq:
        raise ConfigError(f"{option} needs '=' and a comma list of labels, got {item!r}")
    if name not in servers:
        known = list(servers)
        hint = did_you_mean(name, known) if known else "; give the server with --mcp NAME=..."
        raise ConfigError(f"{option} {item}: no MCP server named '{name}'{hint}")
    return servers[name]


# ---- a run's servers ----------------------------------------------------------------------

def start(program, servers, ceiling):
    """The started servers of one run (a Servers), or None when the program cannot reach a
    host tool or the ceiling refuses its start (the VM then refuses it). Raises
    ConfigError or StartError; on either, whatever was started is stopped."""
    specs = parse_servers(servers)
    if not specs or not ({"host_tool", "host_tools"} & set(program.builtins)):
        return None
    from synsema.vm import caps as C
    if C.agent_set(program.requires, C.Ceiling.for_program(ceiling, program.requires))[1]:
        return None
    running = Servers()
    try:
        for spec in specs:
            running.add(spec)
    except BaseException:
        running.close()
        raise
    return running


class Servers:
    """The MCP servers of one run: `tools` (name -> HostTool) and `close()`."""

    def __init__(self):
        self.connections = []
        self.tools = {}
        # A host that never closes them (a `syn test` file run) still stops them at exit.
        atexit.register(self.close)

    def add(self, spec):
        conn = _Connection(spec)
        self.connections.append(conn)
        listed = conn.start()
        tools = _host_tools(conn, listed)
        _check_accepts(spec, tools)
        self.tools.update(tools)

    def close(self):
        """Stop every server (bounded; safe to call twice)."""
        atexit.unregister(self.close)
        while self.connections:
            self.connections.pop().close()


class _Connection:
    """One server's session, held open by a task on a private event loop."""

    def __init__(self, spec):
        self.spec = spec
        self.session = None
        # The server writes its stderr here; read with pread, never moving the offset the
        # server's writes share with us.
        self.stderr = tempfile.TemporaryFile()
        self.stopped = False            # the connection closed under a call
        self.stop = asyncio.Event()
        self.done = threading.Event()
        self.main = None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name=f"mcp-{spec.name}")
        self.thread.start()

    def start(self):
        """Connect, initialize and list the tools; their wire form (camelCase dicts)."""
        ready = concurrent.futures.Future()
        self.main = asyncio.run_coroutine_threadsafe(self._hold(ready), self.loop)
        name, t = self.spec.name, self.spec.timeout
        try:
            return ready.result(t)
        except concurrent.futures.TimeoutError:
            raise StartError(f"MCP server '{name}' ({self.spec.what()}) did not finish "
                             f"starting within {t:g} s{self.said()}") from None
        except Exception as e:
            raise StartError(f"MCP server '{name}' ({self.spec.what()}) could not start: "
                             f"{_reason(e)}{self.said()}") from None

    async def _hold(self, ready):
        from mcp import ClientSession
        from mcp import types as T
        try:
            async with self._transport() as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    listed = []
                    cursor = None
                    while True:
                        page = await session.list_tools(
                            params=T.PaginatedRequestParams(cursor=cursor) if cursor else None)
                        listed += [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                                   for t in page.tools]
                        cursor = getattr(page, "next_cursor", None)
                        if not cursor:
                            break
                    self.session = session
                    ready.set_result(listed)
                    await self.stop.wait()
        except BaseException as e:      # noqa: BLE001 - handed to the waiting thread
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else RuntimeError(str(e)))
            if not isinstance(e, Exception):
                raise
        finally:
            self.session = None
            self.done.set()

    def _transport(self):
        import logging
        if not logging.getLogger().handlers and not logging.getLogger("mcp").handlers:
            # The SDK logs a server's malformed line with its traceback; nobody set logging
            # up, so Python would print it on stderr. The call that waited on that line
            # says what went wrong instead. A host that set logging up still gets them.
            logging.getLogger("mcp").addHandler(logging.NullHandler())
        if self.spec.url is not None:
            from mcp.client.streamable_http import streamable_http_client
            return streamable_http_client(self.spec.url)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client
        argv = self.spec.argv
        return stdio_client(StdioServerParameters(command=argv[0], args=argv[1:],
                                                  env=self.spec.env, cwd=self.spec.cwd),
                            errlog=self.stderr)

    def call(self, tool_name, remote, arguments):
        """The wire form of the CallToolResult; SynError naming the server otherwise."""
        name, t = self.spec.name, self.spec.timeout
        session = self.session
        if session is None or self.done.is_set() or self.stopped:
            raise SynError(f"host tool '{tool_name}' failed: MCP server '{name}' is not "
                           "running (it stopped earlier in this run)")
        mark = self._stderr_size()
        fut = asyncio.run_coroutine_threadsafe(
            session.call_tool(remote, arguments, read_timeout_seconds=t), self.loop)
        try:
            result = fut.result(t + 1)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            raise SynError(f"host tool '{tool_name}' failed: MCP server '{name}' did not "
                           f"answer within {t:g} s") from None
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - whatever the call raised, the program's
            reason, self.stopped = _call_failure(e, t)
            raise SynError(f"host tool '{tool_name}' failed: MCP server '{name}' "
                           f"{reason}{self.said(mark)}") from None
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    def _stderr_size(self):
        try:
            return os.fstat(self.stderr.fileno()).st_size
        except (OSError, ValueError):
            return 0

    def said(self, since=0):
        """`; its stderr said: LAST LINES` when the server wrote to stderr (after `since`)."""
        start = max(since, self._stderr_size() - 4000)
        try:
            data = os.pread(self.stderr.fileno(), 4000, start)
        except (OSError, ValueError):
            return ""
        lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
        return f"; its stderr said: {' | '.join(lines[-3:])}" if lines else ""

    def close(self):
        if self.main is not None and not self.done.is_set():
            if self.session is not None:
                self.loop.call_soon_threadsafe(self.stop.set)
            else:
                self.main.cancel()          # still starting: nothing to wind down politely
            if not self.done.wait(_CLOSE_TIMEOUT):
                self.main.cancel()
                self.done.wait(_CLOSE_TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(_CLOSE_TIMEOUT)
        if not self.thread.is_alive():
            self.loop.close()
        self.stderr.close()


def _leaf(e):
    """The first real exception inside anyio's exception groups."""
    while isinstance(getattr(e, "exceptions", None), tuple) and e.exceptions:
        e = e.exceptions[0]
    return e


def _reason(e):
    e = _leaf(e)
    if isinstance(e, FileNotFoundError):
        return f"no such program {e.filename!r}" if e.filename else _one_line(e)
    from mcp.types import CONNECTION_CLOSED
    if getattr(e, "code", None) == CONNECTION_CLOSED:
        return "it closed the connection before answering (did it exit?)"
    return _one_line(e)


def _call_failure(e, t):
    """(what went wrong, whether the connection is gone)."""
    e = _leaf(e)
    from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT
    code = getattr(e, "code", None)
    if code == CONNECTION_CLOSED or isinstance(e, (ConnectionError, EOFError)):
        return "closed the connection (the server stopped)", True
    if code == REQUEST_TIMEOUT:
        return f"did not answer within {t:g} s", False
    return f"gave a bad answer: {_one_line(e)}", False


# ---- tools ---------------------------------------------------------------------------------

class McpTool(HostTool):
    """A host tool whose call goes to an MCP server (see the module docstring)."""
    __slots__ = ("connection", "remote", "output_schema")

    @property
    def description_labels(self):
        """Its description and parameter descriptions are the server's text, as trusted
        as its results: a catalog entry made from them carries the results' labels."""
        return self.result_labels

    def invoke(self, args, labels=False):
        self.check_keys(args)
        payload = {}
        for p in self.params:
            value = args.get(p.name)
            if value is not None:
                payload[p.name] = p.to_python(value, self.name)
            elif not p.has_default:
                raise SynError(f"host tool '{self.name}': '{p.name}' ({p.type}) is required")
        return self._value(self.connection.call(self.name, self.remote, payload))

    def _value(self, result):
        content = result.get("content") or []
        if result.get("isError"):
            text = " ".join(c.get("text", "") for c in content if c.get("type") == "text")
            raise SynError(f"host tool '{self.name}' failed: "
                           f"{text.strip() or 'the MCP server reported an error'}")
        if "structuredContent" in result:
            value = result["structuredContent"]
            props = (self.output_schema or {}).get("properties")
            if isinstance(value, dict) and list(value) == ["result"] and isinstance(
                    props, dict) and list(props) == ["result"]:
                value = value["result"]
        elif not content:
            value = None
        elif len(content) == 1 and content[0].get("type") == "text":
            value = content[0].get("text", "")
        else:
            value = [c.get("text", "") if c.get("type") == "text" else c for c in content]
        return to_synsema(value, self.name)


def _host_tools(conn, listed):
    """{host tool name: McpTool} of a server's tool list; StartError for a refused tool."""
    spec = conn.spec
    out, remote_of = {}, {}
    for entry in listed:
        remote = entry.get("name", "")
        local = re.sub(r"[^A-Za-z0-9_]", "_", remote)
        if not local or local[0].isdigit():
            local = "_" + local
        name = f"{spec.name}.{local}"
        if name in out:
            raise StartError(f"MCP server '{spec.name}': tools '{remote_of[name]}' and "
                             f"'{remote}' would both be host tool '{name}'")
        schema = entry.get("inputSchema") or {}
        if not isinstance(schema, dict) or schema.get("type", "object") != "object":
            raise StartError(f"MCP server '{spec.name}': tool '{remote}' has an input schema "
                             "that is not an object schema (MCP requires one)")
        params = _params(schema)
        per_tool = {}
        for given in (spec.accepts.get("*", {}), spec.accepts.get(local, {})):
            for param, labels in given.items():
                per_tool[param] = per_tool.get(param, frozenset()) | labels
        every = per_tool.get("*", frozenset())
        description = entry.get("description") or entry.get("title") or ""
        out[name] = McpTool(
            name=name, fn=None, description=description.strip(),
            params=params, result_labels=spec.labels,
            accepts=types.MappingProxyType(
                {p.name: per_tool.get(p.name, frozenset()) | every for p in params}),
            accepts_all=every, readers=(), connection=conn, remote=remote,
            output_schema=entry.get("outputSchema"))
        remote_of[name] = remote
    return out


def _check_accepts(spec, tools):
    """Every tool and parameter --mcp-accepts (or accepts=) names must exist."""
    locals_ = {t.name.split(".", 1)[1]: t for t in tools.values()}
    for tool, params in spec.accepts.items():
        if tool == "*":
            continue
        if tool not in locals_:
            raise ConfigError(f"MCP server '{spec.name}' has no tool '{tool}' (accepts)"
                              f"{did_you_mean(tool, list(locals_))}")
        names = [p.name for p in locals_[tool].params]
        for p in params:
            if p != "*" and p not in names:
                raise ConfigError(f"MCP tool '{spec.name}.{tool}' has no parameter '{p}' "
                                  f"(accepts){did_you_mean(p, names)}")


def _params(schema):
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    out = []
    for name, prop in props.items():
        typ, shape, choices = _type(prop, schema, 0)
        has_default = name not in required
        default = None
        if has_default and isinstance(prop, dict) and "default" in prop:
            try:
                default = to_synsema(prop["default"], name)
            except SynError:
                default = None
        description = prop.get("description", "") if isinstance(prop, dict) else ""
        out.append(Param(name=name, type=typ, has_default=has_default,
                         default=default, description=description, choices=choices,
                         _shape=shape, _py_default=None))
    return tuple(out)


def _type(prop, root, depth):
    """(Synsema type, shape, choices) of a property schema; null branches are dropped (an
    optional parameter is `nothing` when left out anyway)."""
    if not isinstance(prop, dict) or depth > 20:
        return "any", None, ()
    ref = prop.get("$ref")
    if isinstance(ref, str):
        return _type(_resolve(ref, root), root, depth + 1)
    for key in ("enum", "const"):
        if key in prop:
            values = prop[key] if key == "enum" else [prop[key]]
            return _choices(values if isinstance(values, list) else [])
    branches = prop.get("anyOf") or prop.get("oneOf")
    if branches is None and isinstance(prop.get("allOf"), list) and len(prop["allOf"]) == 1:
        return _type(prop["allOf"][0], root, depth + 1)
    if isinstance(branches, list):
        found = {_type(b, root, depth + 1)[:2] for b in branches
                 if not (isinstance(b, dict) and b.get("type") == "null")}
        kinds = {kind for kind, _ in found}
        if len(kinds) == 1 and "any" not in kinds:
            shapes = {shape for _, shape in found}
            return kinds.pop(), shapes.pop() if len(shapes) == 1 else None, ()
        return "any", None, ()
    typ = prop.get("type")
    if isinstance(typ, list):
        rest = [t for t in typ if t != "null"]
        kinds = {_JSON_TYPES.get(t) for t in rest}
        if len(kinds) != 1 or None in kinds:
            return "any", None, ()
        typ = rest[0] if len(rest) == 1 else "number"      # ["integer", "number"]
    if typ not in _JSON_TYPES:
        return "any", None, ()
    return _JSON_TYPES[typ], int if typ == "integer" else None, ()


def _choices(values):
    kinds = {"bool" if type(v) is bool else "number" if type(v) in (int, float)
             else "text" if type(v) is str else None for v in values if v is not None}
    if len(kinds) != 1 or None in kinds:
        return "any", None, ()
    return kinds.pop(), None, tuple(v for v in values if v is not None)


def _resolve(ref, root):
    """A local `#/...` JSON pointer inside the tool's input schema, else {} (any)."""
    if not ref.startswith("#/"):
        return {}
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node


__all__ = ["ConfigError", "StartError", "ServerSpec", "Servers", "McpTool", "from_options",
           "parse_servers", "start"]
