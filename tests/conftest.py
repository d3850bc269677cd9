import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


# The one legitimate skip: ../shared (conformance suite, seed programs) is a sibling checkout,
# not part of this repository. When it is there, everything in it is required.
needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(),
    reason=f"{SHARED} is not there: the shared conformance suite and seed programs live in a "
           f"checkout beside this project; put it there to run these tests")


def installed_script(name):
    """The script `name` (pyproject.toml, script-files) beside this interpreter;
    the test fails, saying how to fix it, when the project is not installed here."""
    exe = Path(sys.executable).parent / name
    if not exe.exists():
        pytest.fail(f"{exe} is missing: install the project into this environment "
                    f"({sys.executable} -m pip install -e '.[test]')", pytrace=False)
    return exe


def syn_command():
    """The `syn` of the interpreter running the tests: its script, else `python -m synsema`
    (never a `syn` found on PATH, which may belong to another checkout)."""
    exe = Path(sys.executable).parent / "syn"
    if exe.exists():
        return [str(exe)]
    if importlib.util.find_spec("synsema") is None:
        pytest.fail(f"neither {exe} nor the synsema package is available to {sys.executable}: "
                    f"install the project ({sys.executable} -m pip install -e '.[test]')",
                    pytrace=False)
    return [sys.executable, "-m", "synsema"]


def syn_env(extra=None):
    """The environment a `syn` subprocess runs in: this one without the model settings
    (SYN_LLM*, provider keys), plus `extra`."""
    e = {k: v for k, v in os.environ.items()
         if not (k.startswith("SYN_LLM") or k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"))}
    e.update(extra or {})
    return e


def load_script(relative):
    """Import a script that is not part of the package (tools/, docs/) by its path."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def syn(tmp_path):
    """Run the `syn` command: syn("run", "app.syn", cwd=...) -> CompletedProcess (run in
    the test's temporary folder; harness.run_cli gives an Outcome, and takes input=)."""

    def run(*args, cwd=None, env=None, timeout=60):
        return subprocess.run(syn_command() + [str(a) for a in args], capture_output=True,
                              text=True, cwd=cwd or tmp_path, env=syn_env(env),
                              timeout=timeout, stdin=subprocess.DEVNULL)
    return run


@pytest.fixture
def write(tmp_path):
    """write("app.syn", source) -> path of a file in the test's temporary folder."""

    def w(name, text):
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return w


# ---- compiling and running a program in process ------------------------------------------

def ops_of(src, name="<top level>"):
    """The opcodes of function `name` of `src` as compiled (the file's, before fusion)."""
    from synsema.compiler import compile_source
    from synsema.vm import opcodes as O
    prog = compile_source(src, "t.syn")
    f = next(f for f in prog.functions if f.name == name)
    return [op.code for _, op, _ in O.iter_instructions(f.code)]


def printed(src, labels=False):
    """What `src` prints, run in a fresh VM (labels on or off, developer mode)."""
    import io
    from synsema.compiler import compile_source
    from synsema.runtime.machine import VM, Options
    out = io.StringIO()
    VM(compile_source(src, "t.syn"), Options(labels=labels, out=out.write)).run_main()
    return out.getvalue()
