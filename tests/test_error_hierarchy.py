"""One error hierarchy (vm/errors.py): each error defined once, the API re-exporting the
classes the VM raises, exit codes (SPEC 13) as the classes' attributes, and what a
program's try/recover catches unchanged (SPEC: not label_violation, limits, internal
errors)."""

import ast
import importlib
import sys
from pathlib import Path

import pytest

import synsema
from synsema.runtime import errors as R
from synsema.vm import errors as E

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_layering import ROOT, SOURCES, _module  # noqa: E402


def _exception_classes():
    """{class name: [where]} of every exception class a module of Synsema defines."""
    found = {}
    for path in SOURCES:
        module = _module(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            cls = getattr(importlib.import_module(module), node.name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.setdefault(node.name, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_error_class_is_defined_once():
    found = _exception_classes()
    twice = {name: where for name, where in found.items() if len(where) > 1}
    assert not twice, f"error classes defined more than once: {twice}"
    for name in ("SynError", "LabelViolation", "LimitExceeded", "InternalError", "Refused",
                 "CompileError", "InvalidProgram"):
        assert found[name] == [w for w in found[name] if w.startswith("vm/errors.py")], name
    # The names of the classes before they were one: gone, not kept as a second class.
    assert "LimitReached" not in found and "StartRefused" not in found


SPEC_EXIT = {   # SPEC 13: 1 compile or runtime error, invalid .synb; 2 usage; 3 refused by
                # the ceiling or label_violation; 4 resource limit; 70 internal
    "Error": 1, "CompileError": 1, "InvalidProgram": 1, "RunError": 1, "ArgumentError": 1,
    "ToolRefused": 1, "UsageError": 2, "ToolError": 2, "Refused": 3, "LabelViolation": 3,
    "LimitExceeded": 4, "InternalError": 70,
}


def test_the_api_gives_the_classes_the_vm_raises():
    assert synsema.Error is E.HostError is R.Error
    for name in ("LabelViolation", "LimitExceeded", "InternalError", "Refused",
                 "CompileError", "InvalidProgram"):
        assert getattr(synsema, name) is getattr(E, name) is getattr(R, name), name
    for name in ("LabelViolation", "LimitExceeded", "InternalError"):
        cls = getattr(synsema, name)
        # raised in a run (a SynError the VM unwinds) and given to the host (a synsema.Error)
        assert issubclass(cls, E.SynError) and issubclass(cls, synsema.Error), name
        assert cls.catchable is False, name
        assert cls.__module__ == "synsema.api" and cls.__name__ == name
    for name, code in SPEC_EXIT.items():
        cls = getattr(synsema, name)
        assert issubclass(cls, synsema.Error) and cls.exit_code == code, name
        assert cls("x").exit_code == code and cls("x").message == "x", name
    assert E.SynError.exit_code == 1 and E.CapabilityDenied.catchable


def test_the_vm_raises_the_limit_the_host_catches():
    from synsema.runtime.machine import VM, Options
    prog = synsema.compile_source("let i be 0\nwhile true\n    set i to i + 1\n", "t.syn")
    vm = VM(prog.compiled, Options(max_steps=500, out=lambda s: None))
    with pytest.raises(synsema.LimitExceeded) as inside:
        vm.run_main()
    assert not inside.value.reported and inside.value.message.startswith("step limit (500")
    with pytest.raises(synsema.Error) as host:          # `except synsema.Error` still
        prog.run(max_steps=500)
    err = host.value
    assert type(err) is synsema.LimitExceeded and err.reported and err.exit_code == 4
    assert err.message.startswith("t.syn:3:") and "step limit (500, --max-steps)" in err.message
    assert type(err.__cause__) is synsema.LimitExceeded and not err.__cause__.reported
    assert err.output == "" and err.tool_calls == [] and err.labels == frozenset()


def test_recover_catches_what_it_caught_before():
    caught = synsema.compile_source(
        'try\n    fail("boom")\nrecover e\n    print("caught " + e)\n', "t.syn").run()
    assert caught.output == "caught boom\n"
    # a limit is not caught: the run ends with it
    spin = synsema.compile_source(
        'try\n    while true\n        print("")\nrecover e\n    print("caught")\n', "t.syn")
    with pytest.raises(synsema.LimitExceeded) as info:
        spin.run(max_steps=300)
    assert "caught" not in info.value.output
    # nor a label violation
    leak = synsema.compile_source(
        'try\n    print(private("abc", "secret"))\nrecover e\n    print("caught")\n', "t.syn")
    with pytest.raises(synsema.LabelViolation) as info:
        leak.run(labels=True)
    assert info.value.exit_code == 3 and info.value.violation and info.value.output == ""


def test_a_nested_runs_limit_is_its_tools_failure():
    """A host tool that runs a program of its own and lets its synsema.LimitExceeded out
    fails as any tool does (catchable); the outer run's own limit is untouched."""
    inner = synsema.compile_source("while true\n    print(\"\")\n", "inner.syn")

    @synsema.tool(name="nested")
    def nested() -> str:
        """Run the inner program."""
        inner.run(max_steps=200)
        return "done"

    outer = synsema.compile_source(
        'require tool("nested")\ntry\n    print(call_tool(host_tool("nested"), {}))\n'
        'recover e\n    print("caught: " + e)\nprint("after")\n', "outer.syn")
    r = outer.run(tools=[nested])
    assert r.output.startswith("caught: host tool 'nested' failed: LimitExceeded: inner.syn")
    assert r.output.endswith("after\n")
    assert [(c[0], c[-1]) for c in r.tool_calls] == [("nested", "failed")]


def test_a_limit_a_tool_raises_is_its_failure_async_too():
    """Whatever a tool raises is its failure (docs/embedding.md), a LimitExceeded it makes
    itself too, from an `async def` tool as well; only the run's own limit ends it."""
    @synsema.tool(name="budget")
    def budget() -> str:
        """Spend a budget of the host's own."""
        raise synsema.LimitExceeded("the host's budget is spent")

    @synsema.tool(name="later")
    async def later() -> str:
        """Run the inner program, awaited."""
        synsema.compile_source("while true\n    print(\"\")\n", "inner.syn").run(max_steps=99)
        return "done"

    src = ('require tool("*")\nfor each name in ["budget", "later"]\n    try\n'
           '        print(call_tool(host_tool(name), {}))\n    recover e\n'
           '        print("caught: " + e)\nwhile true\n    print("")\n')
    prog = synsema.compile_source(src, "outer.syn")
    with pytest.raises(synsema.LimitExceeded) as info:
        prog.run(tools=[budget, later], max_steps=400)
    lines = info.value.output.splitlines()
    assert lines[0] == "caught: host tool 'budget' failed: LimitExceeded: the host's budget is spent"
    assert lines[1].startswith("caught: host tool 'later' failed: LimitExceeded: inner.syn:")
    assert "step limit (400, --max-steps)" in info.value.message       # the run's own


def test_refused_carries_what_is_missing():
    prog = synsema.compile_source('require net("example.com")\nprint(1)\n', "t.syn")
    with pytest.raises(synsema.Refused) as info:
        prog.run(cap_set="stdout")
    assert info.value.exit_code == 3 and info.value.missing == ['net("example.com")']
    assert "does not grant: net(\"example.com\"); the program does not start" in \
        info.value.message
