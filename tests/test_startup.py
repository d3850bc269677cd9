"""Start-up of `syn exec` (issue 31: at most 2x `python -c pass`), kept without timing: the
modules it imports, and the fast path's answers, which must be click's.

bench/startup.py measures the time; bench/README.md ("Start-up") has the figures."""

import ast
import os
import subprocess
import sys

import msgpack
import pytest

from conftest import ROOT, syn_env

# What `syn exec` of a small program once imported, or could easily import again, and does
# not need: the CLI's framework, JSON, regular expressions, threading (the run's thread is
# made with _thread), the model providers, MCP, the compiler, tier 2 and their imports.
# (msgpack reads the file, and brings struct and collections with it: a library we use
# rather than a reader of our own. Its `datetime` is the C module `_datetime`: vm.codec.)
NOT_ON_THE_EXEC_PATH = {
    "click", "json", "_json", "re", "enum", "functools", "contextlib", "threading", "queue",
    "weakref", "math", "requests", "urllib", "http",
    "socket", "ssl", "ast", "inspect", "typing", "asyncio", "decimal", "tempfile",
    "unicodedata", "dataclasses", "importlib.util", "datetime",
    "synsema.compiler", "synsema.api_plans", "synsema.cli.commands", "synsema.vm.tier2",
    "synsema.stdlib.llm", "synsema.stdlib.mcpclient", "synsema.stdlib.hosttools",
    "synsema.stdlib.toolbox", "synsema.stdlib.net", "synsema.stdlib.otel",
    "synsema.stdlib.plans", "array", "collections.abc",
}

# Run `syn` in a child without `site` (-S): what site and the environment's .pth files load
# (an editable install's finder imports re) would hide what `syn exec` imports itself. The
# checkout is the synsema package (pyproject.toml: "synsema" = "."), reached by a link.
# (Click itself is in site-packages: the comparison of the two paths runs with `site`.)
CHILD = """\
import os, sys, tempfile
if sys.argv[1] != "site":
    link = os.path.join(tempfile.mkdtemp(), "synsema")
    os.symlink(sys.argv[1], link)
    sys.path.insert(0, os.path.dirname(link))
    sys.path.append(os.environ["SYN_TEST_MSGPACK_DIR"])   # msgpack, no .pth file run
before = set(sys.modules)
from synsema.cli import entry
if sys.argv[2] == "click":          # the same command line, by the click commands
    import synsema.cli.options
    synsema.cli.options.parse_fast = lambda args: None
try:
    code = entry.main(sys.argv[3:])
except SystemExit as e:             # click's commands end by sys.exit
    code = e.code
sys.stdout.flush()
print(" ".join(sorted(set(sys.modules) - before)), file=sys.stderr)
if sys.argv[1] != "site":
    os.unlink(link)
sys.exit(code)
"""


def _syn(*args, way="fast", cwd=None):
    flags, root = (["-S"], str(ROOT)) if way == "fast-alone" else ([], "site")
    env = dict(syn_env(), SYN_TEST_MSGPACK_DIR=os.path.dirname(os.path.dirname(
        msgpack.__file__)))
    env.pop("SYN_TIER", None)       # the default tier's path (SYN_TIER=2 imports tier 2)
    done = subprocess.run([sys.executable, *flags, "-c", CHILD, root, way, *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    *err, loaded = done.stderr.rstrip("\n").split("\n")
    return done.returncode, done.stdout, "\n".join(err), set(loaded.split())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("startup")
    (d / "hello.syn").write_text('print("hello")\n')
    (d / "loop.syn").write_text("let i be 0\nwhile i < 100\n    set i to i + 1\nprint(i)\n")
    (d / "fails.syn").write_text('print("before")\nprint(1 / 0)\n')
    (d / "tasks.syn").write_text('task greet(name: text)\n    give "hi " + name\n')
    for name in ("hello", "loop", "fails", "tasks"):
        done = subprocess.run([sys.executable, "-m", "synsema", "compile", str(d / f"{name}.syn"),
                               "-o", str(d / f"{name}.synb")], capture_output=True, text=True,
                              env=syn_env(), timeout=120)
        assert done.returncode == 0, done.stderr
    good = (d / "hello.synb").read_bytes()
    (d / "cut.synb").write_bytes(good[:len(good) // 2])
    (d / "garbage.synb").write_bytes(b"\x00not a program at all")
    (d / "joined.synb").write_bytes(good + good)
    (d / "unreadable.synb").write_bytes(good)
    (d / "unreadable.synb").chmod(0)            # unreadable unless run as root
    return d


def test_syn_exec_of_a_small_program_imports_only_what_it_needs(files):
    code, out, err, loaded = _syn("exec", str(files / "hello.synb"), way="fast-alone")
    assert (code, out, err) == (0, "hello\n", "")
    heavy = {m for m in loaded if m in NOT_ON_THE_EXEC_PATH or m.split(".")[0] in
             NOT_ON_THE_EXEC_PATH - {"synsema"}}
    assert not heavy, f"syn exec imported {sorted(heavy)}"
    # And the verifier ran: the file is checked in full before it runs.
    assert "synsema.vm.verify" in loaded


# Command lines for the fast path (cli.entry: `exec` with plain options, parsed without
# click) and for those it leaves to click (help, unknown options, bad values): the answer,
# its messages and exit code, must be click's every time.
CASES = [
    ["hello.synb"],
    ["loop.synb", "--max-steps", "20"],
    ["loop.synb", "--max-steps=1000", "--labels"],
    ["fails.synb"],
    ["tasks.synb", "--call", "greet", "--args", '{"name": "Ada"}'],
    ["tasks.synb", "--call", "greet", "--args", '{"name": 3}'],
    ["tasks.synb", "--call", "nope"],
    ["hello.synb", "--args", "{}"],
    ["hello.synb", "--args-label", "x"],
    ["hello.synb", "--trace", "--cap-set", "stdout"],
    ["hello.synb", "--cap-set", "llm"],
    ["missing.synb"],
    ["."],
    ["unreadable.synb"],
    ["hello.syn"],
    ["cut.synb"],
    ["garbage.synb"],
    ["joined.synb"],
    ["hello.synb", "--no-such-flag"],
    ["hello.synb", "--max-steps", "0"],
    ["hello.synb", "--timeout", "soon"],
    ["hello.synb", "--llm-api", "carrier-pigeon"],
    ["hello.synb", "hello.synb"],
    [],
    ["--help"],
    ["hello.synb", "--labels=yes"],
    ["-x", "hello.synb"],
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a) or "(none)")
def test_the_fast_exec_path_answers_as_click_does(files, args):
    fast = _syn("exec", *args, way="fast", cwd=files)
    slow = _syn("exec", *args, way="click", cwd=files)
    assert fast[:3] == slow[:3]


def test_the_scripts_import_nothing_before_synsema():
    # pip's wrapper for a [project.scripts] entry point imports `re` first (about 5 ms):
    # `syn` and `synsema` are script-files, whose only import is the CLI's entry.
    for name in ("syn", "synsema"):
        path = ROOT / "scripts" / name
        assert os.access(path, os.X_OK)
        tree = ast.parse(path.read_text())
        imported = [n.module if isinstance(n, ast.ImportFrom) else a.name
                    for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                    for a in n.names]
        assert set(imported) == {"synsema.cli.entry"}, (name, imported)
    text = (ROOT / "pyproject.toml").read_text()
    assert "\n[project.scripts]" not in text
    assert 'script-files = ["scripts/syn", "scripts/synsema"]' in text


def test_the_checks_written_without_re_agree_with_the_patterns_they_replace():
    import random
    import re
    from synsema.runtime.report import printable
    from synsema.vm.caps import is_tool_name
    from synsema.vm.codec import is_digits
    from synsema.vm.program import _RESERVED, is_name
    tool = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
    name = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
    digits = re.compile(r"-?[0-9]+")
    unsafe = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                        "\u202a-\u202e\u2066-\u2069]")
    alphabet = "aZ_09.-\n\t \x1b\x7f\x85\u00e9\u0661\u00b2\u202e\ufffdx*"
    rng = random.Random(31)
    for _ in range(50_000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 7)))
        assert is_tool_name(s) == bool(tool.match(s)), s
        assert is_name(s) == (name.match(s) is not None and s not in _RESERVED), s
        assert is_digits(s) == bool(digits.fullmatch(s)), s
        assert (printable(s) == s) == (not unsafe.search(s)), s
    for word in _RESERVED:
        assert not is_name(word)


def test_a_program_without_model_calls_loads_no_provider_code(files):
    # runtime.providers loads only for a program that can reach a model (issue 31).
    code, out, err, loaded = _syn("exec", str(files / "hello.synb"), way="fast-alone")
    assert (code, out) == (0, "hello\n")
    assert "synsema.runtime.providers" not in loaded
    assert "synsema.api_results" not in loaded
    assert "synsema.vm.tier2_defs" not in loaded      # the gate reads vm.optable's sets
    assert "errno" not in loaded


def test_a_program_that_calls_the_model_loads_the_provider_code(tmp_path):
    src = tmp_path / "ask.syn"
    src.write_text("require llm\nprint(llm_available())\n")
    done = subprocess.run([sys.executable, "-m", "synsema", "compile", str(src), "-o",
                           str(tmp_path / "ask.synb")], capture_output=True, text=True,
                          env=syn_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    code, out, err, loaded = _syn("exec", str(tmp_path / "ask.synb"), way="fast-alone")
    assert code == 0, err
    assert "synsema.runtime.providers" in loaded


def test_a_program_that_runs_a_plan_loads_the_plan_builtins_then(tmp_path):
    # stdlib.plans registers plan and run_plan on the first lookup of either (issue 31).
    src = tmp_path / "plan.syn"
    src.write_text('task twice(n: number)\n    give n * 2\n'
                   'print(run_plan("task main()\\n    give tools[\\"twice\\"](21)\\n", '
                   '{"twice": twice}))\n')
    done = subprocess.run([sys.executable, "-m", "synsema", "compile", str(src), "-o",
                           str(tmp_path / "plan.synb")], capture_output=True, text=True,
                          env=syn_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    code, out, err, loaded = _syn("exec", str(tmp_path / "plan.synb"), way="fast-alone")
    assert (code, out, err) == (0, "42\n", "")
    assert "synsema.stdlib.plans" in loaded


def test_the_tier2_gate_tables_agree_with_the_instruction_bodies():
    from synsema.vm import tier2_defs as D
    from synsema.vm.optable import TIER2_GATE
    calls = {"CALL", "CALL1", "CALL_TASK", "CALL_TASK1"}
    for labels in (False, True):
        _, fused, codes = D.TABLES[labels]
        parts = {c: ((n,), False) for c, n in codes.items()}
        parts.update({c: (f[1], f[2]) for c, f in fused.items()})
        loops = {c for c, (p, t) in parts.items() if t or "JUMP_BACK" in p}
        called = {c for c, (p, _) in parts.items() if calls & set(p)}
        assert TIER2_GATE[labels] == (loops, called)


# vm.codec imports msgpack with the C `_datetime` standing in for `datetime` (whose
# Python module runs its whole pure-Python implementation first): the same classes, and
# the real module for whoever imports `datetime` after it, or before it.
DATETIME_CHILD = """\
import sys
if sys.argv[1] == "first":
    import datetime
from synsema.vm import codec
import msgpack, msgpack.ext
assert (sys.argv[1] == "first") == ("datetime" in sys.modules), sorted(sys.modules)
# a date msgpack made, before anything imported `datetime`, is a value a task takes
from synsema import api
show = api.compile_source('task show(t)\\n    give "at " + text(t)\\n')
when = msgpack.unpackb(msgpack.packb(msgpack.Timestamp(86400, 0)), timestamp=3)
assert show.call("show", {"t": when}).value == "at 1970-01-02T00:00:00+00:00"
assert (sys.argv[1] == "first") == ("datetime" in sys.modules), sorted(sys.modules)
import datetime
assert datetime.__file__.endswith("datetime.py") and datetime.UTC is datetime.timezone.utc
assert msgpack.ext.datetime.datetime is datetime.datetime
assert msgpack.ext.datetime.timedelta is datetime.timedelta
stamp = msgpack.unpackb(msgpack.packb(msgpack.Timestamp(86400, 5)))
assert stamp.to_datetime() == datetime.datetime(1970, 1, 2, tzinfo=datetime.timezone.utc)
assert msgpack.Timestamp.from_datetime(stamp.to_datetime()) == msgpack.Timestamp(86400, 0)
print("ok")
"""


@pytest.mark.parametrize("order", ["first", "after"])
def test_msgpack_imported_without_the_python_datetime_module_works_the_same(order):
    done = subprocess.run([sys.executable, "-c", DATETIME_CHILD, order], capture_output=True,
                          text=True, env=syn_env(), timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
