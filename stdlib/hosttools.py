"""Host tools declared in Python (SPEC section 15.1): what the VM needs to call one.

Declaring::

    import synsema

    @synsema.tool(result_labels=["untrusted"])
    def read_file(file_path: str) -> str:
        '''Read a file from the user's drive.

        :param file_path: the file's path
        '''

    bank = synsema.Toolbox("bank")

    @bank.tool(accepts={"amount": ["untrusted"]})      # registered as bank.send_money
    def send_money(recipient: str, amount: float, date: str = "today") -> dict: ...

`tool` returns the function itself, still an ordinary Python function, with its spec
attached as `fn.__synsema_tool__` (a `HostTool`). When the object cannot carry an
attribute (a bound method, a builtin), `tool` returns the HostTool, which calls the
function when called. Declaration problems raise `ToolError` at once, naming the tool,
the parameter and the fix.

What the VM uses (SPEC 15.2), all on an immutable `HostTool`:

* `tool.name` (a dotted identifier), `tool.description`, `tool.params`: a tuple of
  `Param(name, type, has_default, default, description, choices)`, with `type` one of
  Synsema's type names and `default` a Synsema value (`None` is nothing).
* `tool.result_labels`: a frozenset; `tool.accepts[param]`: the labels that parameter
  may carry, `accepts["*"]` already merged in; `tool.accepts_all`: the `"*"` labels alone
  (what a tool without parameters checks the pc against); `tool.readers`: ((who,
  (what, ...)), ...), the parameters that name who reads others (`readers=`, checked in
  stdlib.hostcall).
* `tool.invoke(args, labels)`: runs the tool (`labels`: the run is under --labels, so
  `Labelled` parts of the result keep their labels, as a precise container's). `args` maps parameter names to plain Synsema values
  (labels stripped, names and types already checked as SPEC 5 says). A parameter left out
  takes its Python default, else arrives as None (as `call` gives nothing). Values are
  copied on the way in (the tool cannot change the caller's lists and maps) and the
  result converted on the way out. Raises the catchable `SynError` when the tool raises
  (`host tool 'x' failed: ValueError: ...`), when its result is not a Synsema value
  (`host tool 'x' returned a value Synsema cannot hold (type Decimal at ["rows"][2])`), or
  when an argument does not fit the Python type (an `int` given 2.5, a `Literal` or
  `Enum` value not listed, a task value).
* `catalog_entry(tool, describe)`: the `tool_spec` map of SPEC 5, plus "param_describe"
  when some parameter has a description and "returns" (stdlib.returns: a JSON Schema of
  the result) when the function has a return annotation.
* `collect(obj)` and `load_target("MODULE:NAME")` (for `--tools`): name -> HostTool, and
  `Toolbox`, live in stdlib.toolbox; the docstring formats in stdlib.tooldocs.

Decisions the SPEC leaves open:

* Types: `Literal[...]` of texts (numbers, bools) is `text` (`number`, `bool`) and an
  `Enum` whose values are all texts (all numbers) is `text` (`number`); the allowed values
  are checked at the call, listed in the catalog's parameter description, and an Enum
  parameter receives the member. A union of types that are one Synsema type
  (`int | float`) is that type; any other union, `set`, `datetime`, classes etc. are
  refused (annotate `Any` and check in the body). An `int` parameter receives a
  whole-valued float as an int (Synsema's `6.0` is `6`).
* Results and arguments follow stdlib.pyvalues, the one set of rules at the boundary: an
  Enum becomes its value, `datetime`/`date`/`time` their ISO text, a namedtuple a map of
  its fields (a record, like a dataclass); pydantic v2 models are dumped with
  `model_dump(mode="json")`, v1 with `dict()`, neither imported. Nesting deeper than
  MAX_DEPTH, a container holding itself, NaN, a lone surrogate or a value whose reading
  raises is refused like an unknown type.
* A Toolbox prefixes its name to the tools it declares (`tb.tool`, or `tb.add` of a plain
  function) unless the given name is dotted already; a tool declared elsewhere keeps the
  name it was declared with.

`inspect` and `typing` load only when a tool is declared, so importing this module
stays cheap.
"""

import enum
import re
import sys
import threading
import types

from synsema.stdlib.hostcall import VM_THREAD  # noqa: F401  (also reached as hosttools.VM_THREAD)
from synsema.stdlib.returns import returns_schema
from synsema.stdlib.tooldocs import parse_docstring  # noqa: F401  (hosttools.parse_docstring)
from synsema.vm.display import show_key
from synsema.vm.caps import is_label
from synsema.vm.errors import HostError, SynError
from synsema.vm.errors import LimitExceeded
from synsema.vm.suggest import did_you_mean
from synsema.vm.values import norm_key
from synsema.stdlib.pyvalues import (MAX_DEPTH,  # noqa: F401 (H.MAX_DEPTH)
                                     LabelledPart, Unholdable, from_python,
                                     one_line as _one_line, to_python)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_PY_TYPES = {str: "text", int: "number", float: "number", bool: "bool",
             list: "list", tuple: "list", dict: "map"}
_EVERY_PARAM = ' (use "*" for every parameter)'
_TYPE_HELP = ("use str, int, float, bool, list, tuple, dict, X | None, Any, "
              "or a Literal or Enum of texts or numbers")


class ToolError(HostError, ValueError):
    """A host tool that cannot be declared or registered as written (synsema.ToolError, a
    synsema.Error; exit 2 in `syn`, like every usage error)."""
    exit_code = 2


class ToolWarning(UserWarning):
    """synsema.ToolWarning: a host tool that works but is declared less well than it
    should be -- a Python tool without a docstring, so a model (and an MCP client) would
    see it with no description."""


def _warn(message):
    """warnings.warn a ToolWarning at the first frame outside this module: the line that
    declared the tool, however many of our frames are between."""
    import warnings
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, ToolWarning, stacklevel=level)


class ToolTargetError(ToolError):
    """A `--tools MODULE:NAME` that cannot be loaded (a usage error, exit 2)."""


class Labelled(LabelledPart):
    """A part of a host tool's result with labels of its own, beyond the tool's
    `result_labels` (an extension of SPEC 15.1): `Labelled(reviews, ["untrusted"])` in a
    record whose other fields the platform writes. Under --labels that part carries the
    labels and its container keeps them precisely (SPEC 10: reading another field does not
    pick them up); without --labels it is its plain value. Labels are only ever added: the
    whole result still carries `result_labels`, the arguments' labels and the pc."""
    __slots__ = ()

    def __init__(self, value, labels):
        self.value = value
        self.labels = _label_set("synsema.Labelled", "labels", labels)

    def __repr__(self):
        return f"Labelled({self.value!r}, {sorted(self.labels)})"


class _Frozen:
    __slots__ = ()

    def __init__(self, **fields):
        for k, v in fields.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")


class Param(_Frozen):
    """One parameter of a host tool. `_shape` is what an argument becomes in Python
    (None: as converted; tuple; int; an Enum class); `_py_default` is passed when the
    argument is left out."""
    __slots__ = ("name", "type", "has_default", "default", "description", "choices",
                 "_shape", "_py_default")

    def spec(self):
        """The parameter as tool_spec shows it: `a: number`."""
        return f"{self.name}: {self.type}"

    def to_python(self, value, tool):
        """The Python argument for the Synsema value `value`."""
        if value is None:
            return None
        try:
            v = to_python(value)
        except Unholdable as e:
            raise SynError(f"host tool '{tool}' cannot take '{self.name}': it holds "
                           f"{e.render()}; pass data Python can hold") from None
        shape = self._shape
        if shape is tuple:
            return tuple(v)
        if shape is int and type(v) is float:
            if not v.is_integer():
                raise SynError(f"host tool '{tool}': '{self.name}' must be a whole number, "
                               f"got {show_key(v)}")
            return int(v)
        if self.choices and v not in self.choices:
            raise SynError(f"host tool '{tool}': '{self.name}' must be one of "
                           f"{_show_choices(self.choices)}, got {show_key(norm_key(v))}")
        if shape is not None and shape is not int:
            return shape(v)         # an Enum class: the member with that value
        return v

    def __repr__(self):
        return f"Param({self.spec()}{' = ' + repr(self.default) if self.has_default else ''})"




def on_host_thread(fn, kwargs):
    post = getattr(VM_THREAD, "post", None)
    return fn(**kwargs) if post is None else post(fn, kwargs)


def run_awaitable(coro):
    """The result of an `async def` tool's coroutine, in the VM's thread. A run of
    Program.call_async/run_async (api) schedules it on the caller's event loop
    (`VM_THREAD.loop`) and waits; a run of the sync API or `syn` runs it on an event
    loop of its own, on the host's thread. If the run is given up on (cancelled, its time
    limit) while it waits, the coroutine is cancelled too, and the call fails."""
    import asyncio
    import concurrent.futures
    loop = getattr(VM_THREAD, "loop", None)
    gone = getattr(VM_THREAD, "gone", None)
    if loop is None:
        return on_host_thread(_run_own_loop, {"coro": _until_gone(coro, gone)})
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    while True:
        try:
            return future.result(0.1)
        except concurrent.futures.TimeoutError:
            if gone is not None and gone():
                future.cancel()
                raise _Cancelled("cancelled: the run was given up on while the tool ran")


class _ToolsLimit(Exception):
    """A LimitExceeded the tool itself raised (a nested run's), told apart from the run's
    own end that a call may meet (given up on: runtime.threads.HostThread)."""

    def __init__(self, error):
        super().__init__(error.message)
        self.error = error


def _own_limits(fn, kwargs):
    try:
        return fn(**kwargs)
    except LimitExceeded as e:
        raise _ToolsLimit(e) from None


async def _own_limits_awaited(coro):
    try:
        return await coro
    except LimitExceeded as e:
        raise _ToolsLimit(e) from None


class _Cancelled(SynError):
    """run_awaitable gave up on a tool coroutine (the run was given up on)."""


async def _until_gone(coro, gone):
    """`coro`, cancelled (and the call failed) when the run is given up on meanwhile."""
    import asyncio
    task = asyncio.ensure_future(coro)
    while not task.done():
        await asyncio.wait({task}, timeout=0.1)
        if gone is not None and gone() and not task.done():
            task.cancel()
            await asyncio.wait({task})
            raise _Cancelled("cancelled: the run was given up on while the tool ran")
    return task.result()


def _run_own_loop(coro):
    import asyncio
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from inside a running loop (a sync call from async code): a thread's own.
    box = {}

    def target():
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as e:  # noqa: BLE001 - handed back
            box["error"] = e
    t = threading.Thread(target=target, name="synsema-tool", daemon=True)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


class HostTool(_Frozen):
    """A declared host tool (see the module docstring)."""
    __slots__ = ("name", "fn", "description", "params", "result_labels", "accepts",
                 "accepts_all", "readers", "returns")

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"<host tool {self.name}>"

    def check_keys(self, args):
        """Every key of `args` names a parameter (else the error, with a did-you-mean)."""
        names = [p.name for p in self.params]
        for key in args:
            if key not in names:
                raise SynError(f"host tool '{self.name}' has no parameter '{key}'"
                               f"{did_you_mean(key, names) if isinstance(key, str) else ''}")

    def invoke(self, args, labels=False):
        """Run the tool on Synsema values; its result as a Synsema value (`labels`: the
        run is under --labels, so Labelled parts of the result keep their labels)."""
        self.check_keys(args)
        kwargs = {}
        for p in self.params:
            if p.name in args:
                kwargs[p.name] = p.to_python(args[p.name], self.name)
            else:
                kwargs[p.name] = p._py_default if p.has_default else None
        try:
            result = on_host_thread(_own_limits, {"fn": self.fn, "kwargs": kwargs})
            if type(result) is types.CoroutineType:        # an `async def` tool
                result = run_awaitable(_own_limits_awaited(result))
        except _Cancelled as e:
            # (a tool coroutine cancelled mid-way is a failed call, recorded as one)
            raise SynError(f"host tool '{self.name}' failed: {e.message}") from None
        except (KeyboardInterrupt, LimitExceeded):
            raise       # Ctrl-C, or the run given up on (runtime.threads.HostThread): the run ends
        except BaseException as e:  # noqa: BLE001 - every exception a tool raises
            # Anything the tool raises is the program's to catch: a sys.exit() in a tool
            # too (it would end the host's whole process), a synsema.LimitExceeded (a
            # nested run's: never this run's limit), and any other BaseException (an
            # asyncio.CancelledError, GeneratorExit, a library's own). Ctrl-C still stops
            # the run.
            e = e.error if type(e) is _ToolsLimit else e
            raise SynError(f"host tool '{self.name}' failed: {_one_line(e)}") from e
        return to_synsema(result, self.name, labels)


# ---- declaring ----------------------------------------------------------------------------

def tool(fn=None, *, name=None, result_labels=(), accepts=None, readers=None,
         description=None):
    """Declare a Python function a host tool: `@tool` or `@tool(name=..., ...)`."""
    def decorate(f):
        return _mark(f, declare(f, name=name, result_labels=result_labels,
                                accepts=accepts, readers=readers, description=description))
    return decorate if fn is None else decorate(fn)


def _mark(fn, spec):
    try:
        fn.__synsema_tool__ = spec
    except (AttributeError, TypeError):
        return spec
    return fn


def declare(fn, *, name=None, result_labels=(), accepts=None, readers=None, description=None,
            prefix=None):
    """The HostTool of `fn` (the work of `tool`, without marking the function)."""
    import inspect
    if not callable(fn):
        raise ToolError(f"a host tool must be a function, got {_describe(fn)}")
    if name is None:
        name = getattr(fn, "__name__", None)
        if not isinstance(name, str):
            raise ToolError(f"{fn!r} has no name; give the host tool one with name=")
    if prefix and isinstance(name, str) and "." not in name:
        name = f"{prefix}.{name}"
    check_name(name)
    try:
        sig = inspect.signature(fn, eval_str=True)
    except (ValueError, TypeError) as e:
        raise ToolError(f"host tool '{name}': cannot read its signature ({e}); "
                        "wrap it in a Python function with named parameters") from None
    except Exception as e:
        raise ToolError(f"host tool '{name}': cannot read its annotations ({_one_line(e)}); "
                        "define or import every name the annotations use before the tool") from None
    doc_description, doc_params = parse_docstring(inspect.getdoc(fn) or "")
    if description is None and not doc_description:
        _warn(f"host tool '{name}' has no docstring, so a model sees no description of it; "
              "write one (its first paragraph describes the tool, `:param x:` lines or an "
              "Args: section its parameters) or give description=")
    params = tuple(_param(name, p, doc_params.get(p.name, ""), inspect)
                   for p in sig.parameters.values())
    result_labels = _labels(name, "result_labels", result_labels)
    accepts_all, per_param = _accepts(name, accepts, [p.name for p in params])
    return HostTool(name=name, fn=fn, readers=_readers(name, readers, [p.name for p in params]),
                    description=doc_description if description is None else description,
                    params=params, result_labels=result_labels,
                    accepts=types.MappingProxyType(
                        {p.name: per_param.get(p.name, frozenset()) | accepts_all
                         for p in params}),
                    accepts_all=accepts_all,
                    returns=returns_schema(sig.return_annotation, sig.empty))


def check_name(name):
    if not isinstance(name, str) or not _NAME.match(name):
        raise ToolError(f"host tool name {name!r} is not a dotted identifier like "
                        "'bank.send_money'; give one with name=")


def _param(tool_name, p, description, inspect):
    where = f"host tool '{tool_name}': parameter"
    if p.kind is p.VAR_POSITIONAL:
        raise ToolError(f"{where} '*{p.name}' cannot be declared; Synsema passes named "
                        f"arguments, so name each parameter (or take one list: "
                        f"{p.name}: list)")
    if p.kind is p.VAR_KEYWORD:
        raise ToolError(f"{where} '**{p.name}' cannot be declared; Synsema passes named "
                        f"arguments, so name each parameter (or take one map: "
                        f"{p.name}: dict)")
    if p.kind is p.POSITIONAL_ONLY:
        raise ToolError(f"{where} '{p.name}' is positional-only; Synsema passes arguments "
                        "by name, so remove the '/' from the signature")
    annotation, nullable = _without_none(p.annotation)
    found = _synsema_type(annotation, inspect.Parameter.empty)
    if found is None:
        raise ToolError(f"{where} '{p.name}' has the type "
                        f"{inspect.formatannotation(p.annotation)}, which Synsema has no "
                        f"type for; {_TYPE_HELP}")
    typ, shape, choices = found
    if p.default is not p.empty:
        try:
            default = from_python(p.default)
        except Unholdable as e:
            raise ToolError(f"{where} '{p.name}': its default {p.default!r} is not a Synsema "
                            f"value ({e.render()}); use None as the default and set the "
                            "value in the body") from None
        has_default, py_default = True, p.default
    else:
        has_default, default, py_default = nullable, None, None
    return Param(name=p.name, type=typ, has_default=has_default, default=default,
                 description=description, choices=choices, _shape=shape,
                 _py_default=py_default)


def _without_none(annotation):
    """(the annotation without `| None`, whether it had one)."""
    import typing
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return annotation, False
    rest = tuple(a for a in typing.get_args(annotation) if a is not type(None))
    if len(rest) == len(typing.get_args(annotation)):
        return annotation, False
    return (rest[0] if len(rest) == 1 else typing.Union[rest]), True


def _synsema_type(annotation, empty):
    """(Synsema type, Python shape, allowed values) of an annotation; None if none fits."""
    import typing
    if annotation is empty or annotation is typing.Any or annotation is object:
        return "any", None, ()
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _synsema_type(typing.get_args(annotation)[0], empty)
    if origin is typing.Literal:
        return _choices_type(typing.get_args(annotation), None)
    if origin in (typing.Union, types.UnionType):
        found = {_synsema_type(a, empty) for a in typing.get_args(annotation)}
        kinds = {f[0] for f in found if f is not None}
        if None in found or len(kinds) != 1:
            return None
        return kinds.pop(), None, ()
    base = origin or annotation
    if base in _PY_TYPES:
        return _PY_TYPES[base], (base if base in (tuple, int) else None), ()
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return _choices_type(tuple(m.value for m in base), base)
    return None


def _choices_type(values, shape):
    kinds = {_PY_TYPES.get(type(v)) for v in values}
    if len(kinds) != 1 or kinds & {None, "list", "map"}:
        return None
    return kinds.pop(), shape, tuple(values)


def _labels(tool_name, what, labels):
    return _label_set(f"host tool '{tool_name}'", what, labels)


def _label_set(owner, what, labels):
    if isinstance(labels, str):
        raise ToolError(f"{owner}: {what} must be a list of label names, "
                        f"got the text {labels!r}; write [{labels!r}]")
    try:
        labels = frozenset(labels)
    except TypeError:
        raise ToolError(f"{owner}: {what} must be a list of label names, "
                        f"got {_describe(labels)}") from None
    for label in labels:
        if not isinstance(label, str) or not is_label(label):
            raise ToolError(f"{owner}: {what} has {label!r}, which is not a "
                            "label name (letters, digits, '_', '-', '.')")
    return labels


def _accepts(tool_name, accepts, names):
    """(the labels every parameter accepts, {parameter: its own labels})."""
    if accepts is None:
        return frozenset(), {}
    if not isinstance(accepts, dict):
        raise ToolError(f"host tool '{tool_name}': accepts must be a map from parameter "
                        f"names (or \"*\") to lists of labels, got {_describe(accepts)}")
    per_param = {}
    for key, labels in accepts.items():
        if key != "*" and key not in names:
            hint = did_you_mean(key, names) if isinstance(key, str) else ""
            raise ToolError(f"host tool '{tool_name}': accepts names {key!r}, which is not "
                            f"one of its parameters{hint or _EVERY_PARAM}")
        per_param[key] = _labels(tool_name, f"accepts[{key!r}]", labels)
    return per_param.pop("*", frozenset()), per_param


def _readers(tool_name, readers, names):
    """((who, (what, ...)), ...): parameter `who` names the parties that will read the
    parameters `what` (the recipients of an email and its subject and body)."""
    if readers is None:
        return ()
    if not isinstance(readers, dict):
        raise ToolError(f"host tool '{tool_name}': readers must be a map from a parameter "
                        f"to the list of parameters it names the readers of, got "
                        f"{_describe(readers)}")
    out = []
    for who, what in readers.items():
        if who not in names:
            hint = did_you_mean(who, names) if isinstance(who, str) else ""
            raise ToolError(f"host tool '{tool_name}': readers names {who!r}, which is not "
                            f"one of its parameters{hint}")
        if isinstance(what, str) or not isinstance(what, (list, tuple)) or not what:
            raise ToolError(f"host tool '{tool_name}': readers[{who!r}] must be a non-empty "
                            f"list of the parameters {who!r} names the readers of, got "
                            f"{_describe(what)}")
        for p in what:
            if p not in names or p == who:
                hint = did_you_mean(p, names) if isinstance(p, str) else ""
                raise ToolError(f"host tool '{tool_name}': readers[{who!r}] names {p!r}, "
                                "which is not one of its other parameters" + hint)
        out.append((who, tuple(what)))
    return tuple(out)


# ---- values --------------------------------------------------------------------------------

def to_synsema(value, tool_name, labels=False):
    """The Synsema value of a tool's Python result (stdlib.pyvalues' rules). `labels`: the
    run is under --labels, so a `Labelled` part keeps its labels (as the precise labels of
    its container, SPEC 10); without, it is its plain value."""
    try:
        return from_python(value, labels)
    except Unholdable as e:
        raise SynError(f"host tool '{tool_name}' returned a value Synsema cannot hold "
                       f"({e.render()})") from None


# ---- catalogs ------------------------------------------------------------------------------

def catalog_entry(tool, describe=None):
    """The catalog entry of a host tool: tool_spec's four keys (SPEC 5), and, when some
    parameter has a description, "param_describe", a map from parameter names to their
    descriptions (only those that have one), for the provider's tool list, and "returns",
    the JSON Schema of its result, when it has a return annotation (SPEC 15.1)."""
    param_describe = {}
    for p in tool.params:
        text = p.description
        if p.choices:
            choices = f"one of {_show_choices(p.choices)}"
            text = f"{text} ({choices})" if text else choices
        if text:
            param_describe[p.name] = text
    entry = {"name": tool.name,
             "describe": tool.description if describe is None else describe,
             "params": [p.spec() for p in tool.params],
             "optional": [p.name for p in tool.params if p.has_default]}
    if param_describe:      # else exactly SPEC 5's four keys
        entry["param_describe"] = param_describe
    returns = getattr(tool, "returns", None)
    if returns is not None:
        entry["returns"] = returns
    return entry


def _show_choices(values):
    return ", ".join(show_key(norm_key(v)) for v in values)


def _describe(obj):
    return f"a value of type {type(obj).__name__} ({_short_repr(obj)})"


def _short_repr(obj):
    try:
        r = repr(obj)
    except Exception:
        return "?"
    return r if len(r) <= 40 else r[:37] + "..."
