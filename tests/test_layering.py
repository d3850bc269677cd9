"""The folders are the pipeline, and imports go one way (README, Layout):

    vm -> compiler -> stdlib -> runtime -> api -> cli

A module may import only from its own layer or the layers before it: the VM imports
nothing above it, the compiler knows the builtins from vm.signatures (data), the standard
library is given to a VM by the runtime as its host. Every import is checked, at module
top level and inside functions alike, so no import hides in a function to dodge the
order; there are no exemptions.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Layer of each package (`synsema` itself is only the version and the lazy names).
LAYERS = {"synsema": 0, "vm": 1, "compiler": 2, "stdlib": 3, "runtime": 4, "api": 5,
          "cli": 6, "highlight": 6, "__main__": 6}
ORDER = "vm -> compiler -> stdlib -> runtime -> api -> cli"
FOLDERS = ("vm", "compiler", "stdlib", "runtime", "cli")
TOP = ("__init__.py", "__main__.py", "api.py", "api_plans.py", "api_results.py",
       "highlight.py")


def _sources():
    files = [ROOT / name for name in TOP]
    for folder in FOLDERS:
        files.extend(p for p in sorted((ROOT / folder).rglob("*.py"))
                     if p.name != "_parsetab.py")
    return files


def _module(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["synsema"] + parts)


def _package(module):
    parts = module.split(".")
    if len(parts) < 2:
        return "synsema"
    # api_plans.py is the API's plans half (synsema.run_plan, syn agent's run), and
    # api_results.py its result types (Result, Usage): the API.
    return "api" if parts[1] in ("api_plans", "api_results") else parts[1]


def _imports(path):
    """(imported module or module.name, line, inside a function?, name) for every import."""
    module = _module(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, inner, None) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".")
                    if not is_package:
                        base = base[:-1]
                    base = base[:len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module
                found.extend((target, child.lineno, inner, a.name) for a in child.names)
            visit(child, inner)
    visit(tree, False)
    return [(t, line, inner, name) for t, line, inner, name in found
            if t == "synsema" or t.startswith("synsema.")]


SOURCES = _sources()


def _where(path, line, inner):
    return f"{path.relative_to(ROOT)}:{line}" + (" (inside a function)" if inner else "")


def test_every_package_is_in_a_layer():
    assert {_package(_module(p)) for p in SOURCES} <= set(LAYERS)


def test_imports_go_one_way():
    wrong = []
    for path in SOURCES:
        src = _package(_module(path))
        for target, line, inner, name in _imports(path):
            dst = _package(target)
            if target == "synsema" and name is not None and name not in (
                    "__version__", "LANGUAGE_LEVEL"):
                dst = "api"     # a lazy name of the package is the API
            if LAYERS[dst] > LAYERS[src]:
                wrong.append(f"{_where(path, line, inner)}: {src} imports {target}"
                             + (f".{name}" if name else ""))
    assert not wrong, f"imports against the layering ({ORDER}):\n" + "\n".join(wrong)


def test_no_private_name_crosses_a_package():
    """What a layer offers the ones above it has a public name."""
    wrong = []
    for path in SOURCES:
        src = _package(_module(path))
        for target, line, inner, name in _imports(path):
            if name and name.startswith("_") and not name.startswith("__") and \
                    _package(target) != src:
                wrong.append(f"{_where(path, line, inner)}: {target}.{name}")
            elif target.split(".")[-1].startswith("_") and _package(target) != src and \
                    not target.endswith("__init__"):
                wrong.append(f"{_where(path, line, inner)}: {target}")
        wrong.extend(_private_attributes(path, src))
    assert not wrong, "private names used from another package:\n" + "\n".join(wrong)


def _private_attributes(path, src):
    """`api._options` where `api` is a module of another package this file imported."""
    modules = {}
    for target, _, _, name in _imports(path):
        if name is None:
            continue
        module = f"{target}.{name}"
        spec = ROOT.joinpath(*module.split(".")[1:])
        if spec.with_suffix(".py").is_file() or (spec / "__init__.py").is_file():
            modules[name] = module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name.startswith("synsema."):
                    modules[a.asname] = a.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.attr.startswith("_") and not node.attr.startswith("__"):
            module = modules.get(node.value.id)
            if module is not None and _package(module) != src:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module}.{node.attr}")
    return found


def test_only_the_runtime_makes_a_vm():
    """The VM is given its host (the standard library) by the runtime: above it, code runs
    programs through synsema.runtime, never by building a vm.machine.VM itself."""
    wrong = []
    for path in SOURCES:
        if _package(_module(path)) in ("api", "cli", "highlight"):
            wrong.extend(_where(path, line, inner) for target, line, inner, _ in _imports(path)
                         if target == "synsema.vm.machine")
    assert not wrong, "vm.machine used above the runtime:\n" + "\n".join(wrong)


def test_the_vm_and_the_compiler_load_without_the_standard_library():
    code = ("import sys\n"
            "import synsema.compiler, synsema.vm.machine, synsema.vm.codec, synsema.vm.verify\n"
            "from synsema.compiler import compile_source\n"
            "compile_source('print(len([1, 2]))\\n', 't.syn')\n"
            "above = sorted(m for m in sys.modules if m.startswith(('synsema.stdlib', "
            "'synsema.runtime', 'synsema.api', 'synsema.cli')))\n"
            "print(above)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_builtin_signatures_are_current():
    """vm/signatures.py is generated from the stdlib's @builtin declarations."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_signatures.py"), "--check"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_vm_needs_its_host():
    from synsema.compiler import compile_source
    from synsema.vm.machine import VM
    with pytest.raises(TypeError, match="synsema.runtime.VM"):
        VM(compile_source("print(1)\n", "t.syn"))


def test_no_import_inside_a_function_hides_a_cycle():
    """An import inside a function may load a module late (start-up: `syn exec` never loads
    the compiler, click or a model provider), never dodge a cycle: the module it imports
    must not import, at its top level and through any chain, the module importing it."""
    modules = {_module(p): p for p in SOURCES}

    def known(target, name):
        if name and f"{target}.{name}" in modules:
            return f"{target}.{name}"
        return target if target in modules else None
    top, inner = {}, []
    for module, path in modules.items():
        top[module] = set()
        for target, line, in_function, name in _imports(path):
            found = known(target, name)
            if found is None or found == module:
                continue
            if in_function:
                inner.append((module, found, f"{path.relative_to(ROOT)}:{line}"))
            else:
                top[module].add(found)

    def reaches(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in top.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen
    hidden = [f"{where}: {module} imports {target}, which imports {module}"
              for module, target, where in inner if module in reaches(target)]
    assert not hidden, "imports inside functions that hide a cycle:\n" + "\n".join(hidden)


def test_one_error_hierarchy():
    """The compiler's and the loader's errors are the ones the API raises (vm.errors), and
    every error a host sees is a synsema.Error."""
    import synsema
    from synsema.vm import errors as E
    assert synsema.CompileError is E.CompileError and synsema.InvalidProgram is E.InvalidProgram
    for name in ("CompileError", "InvalidProgram", "UsageError", "RunError", "ArgumentError",
                 "ToolRefused", "LabelViolation", "Refused", "LimitExceeded", "InternalError"):
        assert issubclass(getattr(synsema, name), synsema.Error), name
    with pytest.raises(synsema.CompileError) as info:
        synsema.compile_source("let x be\n", "t.syn")
    err = info.value
    assert err.exit_code == 1 and err.line == 1 and err.message.startswith("t.syn:1:")
    assert [type(e).__name__ for e in err.errors] == ["SourceError"]
    with pytest.raises(E.CompileError):         # the compiler's own raise, the same class
        from synsema.compiler import compile_source
        compile_source("let x be\n", "t.syn")


# A namedtuple's underscored names are its public interface (Result._replace, ...).
_NAMEDTUPLE = {"_asdict", "_field_defaults", "_fields", "_make", "_replace"}


def _api_private_names():
    """{private attribute name: the API classes that have it}: every class the package
    offers (synsema.Program, synsema.Provider, synsema.HostTool, ...)."""
    import inspect

    import synsema
    names = {}
    for public in dir(synsema):
        cls = getattr(synsema, public)
        if not inspect.isclass(cls):
            continue
        for attr in dir(cls):
            if attr.startswith("_") and not attr.startswith("__") and not (
                    issubclass(cls, tuple) and attr in _NAMEDTUPLE):
                names.setdefault(attr, set()).add(f"synsema.{public}")
    return names


def test_above_the_api_no_private_attribute_of_an_api_object_is_read():
    """The CLI is built on the API through its public names: `program.compiled`, never
    `program._program`. Outside api.py and api_plans.py (the API's own), no module of
    the CLI's layer reads an attribute that is private to a class the API offers, on
    anything but `self` or `cls` (its own class's attribute of the same name)."""
    private = _api_private_names()
    assert {"_program", "_source", "_config"} <= set(private)   # the check checks something
    wrong = []
    for path in SOURCES:
        if LAYERS[_package(_module(path))] < LAYERS["cli"]:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                owners = ", ".join(sorted(private[node.attr]))
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr} "
                             f"(private to {owners})")
    assert not wrong, ("private attributes of API objects read above the API:\n"
                       + "\n".join(wrong))
