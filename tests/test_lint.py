"""Lint: `ruff check` with the rules of pyproject's [tool.ruff] (pyflakes: unused imports and
variables, redefinitions, undefined names) finds nothing anywhere in the project."""

import subprocess
import sys

from conftest import ROOT


def ruff(*args, source=None):
    # --no-cache: a test run must not leave .ruff_cache in the checkout.
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                           "--output-format", "concise", *args], cwd=ROOT, input=source,
                          capture_output=True, text=True, timeout=120)


def test_the_project_is_clean():
    p = ruff(".")
    assert p.returncode == 0, f"ruff (pip install -e '.[test]') found:\n{p.stdout}{p.stderr}"


def test_the_rules_are_in_force():
    # The clean run above means something only if the configured rules catch a mistake.
    p = ruff("--stdin-filename", "tests/example.py", "-",
             source="import os\n\n\ndef f():\n    unused = 1\n")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "F401" in p.stdout and "F841" in p.stdout
