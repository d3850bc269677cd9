import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def syn_command():
    """The `syn` of this checkout's environment (the venv's script, else python -m)."""
    exe = Path(sys.executable).parent / "syn"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("syn")
    if found:
        return [found]
    return [sys.executable, "-m", "synsema"]


def load_script(relative):
    """Import a script that is not part of the package (tools/, docs/) by its path."""
    import importlib.util
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def syn(tmp_path):
    """Run the `syn` command: syn("run", "app.syn", cwd=..., input=...) -> CompletedProcess."""

    def run(*args, cwd=None, env=None, timeout=60):
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("SYN_LLM") or k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
                del e[k]
        if env:
            e.update(env)
        return subprocess.run(syn_command() + [str(a) for a in args], capture_output=True,
                              text=True, cwd=cwd or tmp_path, env=e, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    return run


@pytest.fixture
def write(tmp_path):
    """write("app.syn", source) -> path of a file in the test's temporary folder."""

    def w(name, text):
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return w
