"""Host tools gathered: a `Toolbox` (tools declared under one dotted prefix), `collect`
(name -> HostTool of a tool, a list, a Toolbox or a module's tools) and `load_target`
(`--tools MODULE:NAME`)."""

import importlib
import os
import sys
import types

from synsema.stdlib.hosttools import (HostTool, ToolError, ToolTargetError, _describe,
                                      _mark, check_name, declare)
from synsema.stdlib.pyvalues import one_line as _one_line
from synsema.vm.suggest import did_you_mean

class Toolbox:
    """A named, ordered collection of host tools: `bank = Toolbox("bank")`, then
    `@bank.tool` declares `bank.NAME`. Iterating gives the HostTools in the order added;
    `tb["bank.send_money"]`, `in` and `len` work by name."""

    def __init__(self, name=None, tools=()):
        if name is not None:
            check_name(name)
        self.name = name
        self._tools = {}
        for t in tools:
            self.add(t)

    def tool(self, fn=None, *, name=None, result_labels=(), accepts=None, readers=None,
             description=None):
        """Like `synsema.tool`, and registers the tool here under a prefixed name."""
        def decorate(f):
            spec = declare(f, name=name, result_labels=result_labels, accepts=accepts,
                           readers=readers, description=description, prefix=self.name)
            self._register(spec)
            return _mark(f, spec)
        return decorate if fn is None else decorate(fn)

    def add(self, obj):
        """Register a declared tool (its name kept) or a plain function (declared here,
        prefixed); returns the HostTool."""
        spec = _spec_of(obj)
        if spec is None:
            spec = declare(obj, prefix=self.name)
        self._register(spec)
        return spec

    def _register(self, spec):
        old = self._tools.get(spec.name)
        if old is not None and old is not spec:
            raise ToolError(_duplicate(old, spec))
        self._tools[spec.name] = spec

    @classmethod
    def merge(cls, *sources, name=None):
        """A new Toolbox holding every tool of the sources (anything `collect` takes)."""
        return cls(name, collect(list(sources)).values())

    def __iter__(self):
        return iter(list(self._tools.values()))

    def __len__(self):
        return len(self._tools)

    def __contains__(self, name):
        return name in self._tools

    def __getitem__(self, name):
        try:
            return self._tools[name]
        except KeyError:
            raise KeyError(f"no host tool '{name}' in this toolbox"
                           f"{did_you_mean(name, list(self._tools))}") from None

    def __repr__(self):
        return f"<Toolbox {self.name or ''} [{', '.join(self._tools)}]>"


def _spec_of(obj):
    if isinstance(obj, HostTool):
        return obj
    spec = getattr(obj, "__synsema_tool__", None)
    return spec if isinstance(spec, HostTool) else None


def collect(obj):
    """{name: HostTool}, in order, from a decorated function, a HostTool, a Toolbox, a
    list or tuple of these, or such a {name: HostTool} map; two different tools of one name are a ToolError."""
    out = {}
    _collect(obj, out)
    return out


def _collect(obj, out):
    if isinstance(obj, dict):           # what collect() itself returns
        obj = list(obj.values())
    if isinstance(obj, (list, tuple, Toolbox)):
        for item in obj:
            _collect(item, out)
        return
    spec = _spec_of(obj)
    if spec is None:
        what = (f"the function '{obj.__name__}'" if isinstance(obj, types.FunctionType)
                else _describe(obj))
        raise ToolError(f"{what} is not a host tool; give a function decorated with "
                        "@synsema.tool, a list of them, or a synsema.Toolbox")
    old = out.get(spec.name)
    if old is not None and old is not spec:
        raise ToolError(_duplicate(old, spec))
    out[spec.name] = spec


def _duplicate(a, b):
    return (f"two host tools are named '{a.name}': {_origin(a.fn)} and {_origin(b.fn)}; "
            "give one of them another name with name=")


def _origin(fn):
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def load_target(target):
    """{name: HostTool} of a `--tools MODULE:NAME` target: MODULE imported with the working
    directory on the path, NAME (dotted for an attribute of an attribute) looked up in it.
    Raises ToolTargetError saying what failed."""
    module_name, sep, attr = target.partition(":")
    module_name, attr = module_name.strip(), attr.strip()
    if not sep or not module_name or not attr:
        raise ToolTargetError(f"--tools needs MODULE:NAME (for example mytools:toolbox), "
                              f"got {target!r}")
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        stem = os.path.splitext(os.path.basename(module_name))[0]
        raise ToolTargetError(f"--tools {target}: write the module's import name, not a "
                              f"file (for example {stem}:{attr}, run from its folder)")
    cwd = os.getcwd()
    if not any(os.path.abspath(p or ".") == cwd for p in sys.path):
        sys.path.insert(0, cwd)
    importlib.invalidate_caches()       # a module written since the last import is found
    try:
        obj = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            raise ToolTargetError(f"--tools {target}: no module named '{e.name}' (looked "
                                  f"in {cwd} and the Python path)") from None
        raise ToolTargetError(f"--tools {target}: importing '{module_name}' failed: "
                              f"{_one_line(e)}") from None
    except ToolError as e:
        raise ToolTargetError(f"--tools {target}: {e}") from None
    except (Exception, SystemExit) as e:
        raise ToolTargetError(f"--tools {target}: importing '{module_name}' failed: "
                              f"{_one_line(e)}") from None
    owner = f"module '{module_name}'"
    for part in attr.split("."):
        if not hasattr(obj, part):
            public = [n for n in dir(obj) if not n.startswith("_")]
            raise ToolTargetError(f"--tools {target}: {owner} has no '{part}'"
                                  f"{did_you_mean(part, public)}")
        obj, owner = getattr(obj, part), f"'{part}'"
    try:
        return collect(obj)
    except ToolError as e:
        raise ToolTargetError(f"--tools {target}: {e}") from None
