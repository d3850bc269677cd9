"""The Makefile's promises: `make demo` installs the core alone (no Ray, no MCP SDK, no test
tools), `make test` every extra and the whole suite in parallel, `make test-fast` the suite
without the tests marked slow; CI runs `make test`. Read with `make -n` on a virtualenv
path that does not exist, so nothing is installed or run."""

import re
import subprocess

from conftest import ROOT

PYPROJECT = (ROOT / "pyproject.toml").read_text()


def extras():
    """The names of pyproject's optional-dependencies (extras)."""
    section = PYPROJECT.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^([\w-]+) = \[", section, re.M))


def dry_run(target, tmp_path):
    r = subprocess.run(["make", "-n", "-C", str(ROOT), target, f"VENV={tmp_path}/venv"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def installs(commands):
    """What each `pip install` line of the commands installs."""
    return [line.split("-e ", 1)[1].strip() for line in commands.splitlines()
            if "pip install" in line]


def test_make_demo_installs_the_core_alone(tmp_path):
    out = dry_run("demo", tmp_path)
    assert installs(out) == ["."]          # no extra: not Ray, not the MCP SDK, no tests
    assert "syn agent \"Pay my landlord" in out and "--cassette-mode replay" in out


def test_make_test_installs_every_extra_and_runs_in_parallel(tmp_path):
    out = dry_run("test", tmp_path)
    given = set(re.fullmatch(r"'\.\[(.*)\]'", installs(out)[0]).group(1).split(","))
    assert given == extras() and "otel" in given and "ray" in given    # a new extra too
    assert "pytest -q -n auto --dist loadgroup\n" in out and "fmt --check" in out


def test_make_test_fast_skips_the_slow_tests(tmp_path):
    out = dry_run("test-fast", tmp_path)
    assert '-m "not slow"' in out and "-n auto" in out


def test_the_test_extra_has_xdist_and_the_slow_marker_is_declared():
    test_extra = re.search(r"^test = \[(.*?)\]", PYPROJECT, re.M | re.S).group(1)
    assert '"pytest-xdist' in test_extra
    markers = PYPROJECT.split("markers = [", 1)[1].split("]", 1)[0]
    assert '"slow: long tests; make test-fast skips them"' in markers


def test_ci_runs_make_test():
    assert "\nmake test\n" in (ROOT / ".ci" / "run").read_text()


def test_ci_checks_the_provider_wire_after_the_tests(tmp_path):
    # issue 33: the real-server check is part of CI, after the test command
    lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines()
             if ln and not ln.startswith("#")]
    assert lines.index("make test-providers") > lines.index("make test")
    r = subprocess.run(["make", "-n", "-C", str(ROOT), "test-providers",
                        f"PVENV={tmp_path}/pvenv"], capture_output=True, text=True, timeout=60)
    commands = r.stdout
    assert r.returncode == 0, r.stderr
    assert "bench/providers/run.py" in commands and "litellm[proxy]" in commands
