"""The shared conformance suite (../shared/conformance), run against this checkout's syn,
exactly as CI's graders run it. Skipped, saying why, when ../shared is not there."""

import os
import subprocess
import sys

import pytest

from conftest import SHARED, syn_command

RUNNER = SHARED / "conformance" / "run.py"


@pytest.mark.skipif(not RUNNER.exists(),
                    reason=f"the shared conformance suite is not at {RUNNER}; nothing to run")
def test_shared_conformance_suite():
    env = dict(os.environ)
    env["SYN"] = " ".join(syn_command())
    p = subprocess.run([sys.executable, str(RUNNER), str(RUNNER.parent)], capture_output=True,
                       text=True, env=env, timeout=1800)
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    failures = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("ok"))
    assert p.returncode == 0 and last.endswith(" 0 failed"), failures or p.stderr


@pytest.mark.skipif(not (SHARED / "seeds").exists(), reason="../shared/seeds is not there")
def test_seed_tool_calling_tests_pass(syn):
    p = syn("test", SHARED / "seeds" / "tool-calling.syn")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "7 passed, 0 failed"


@pytest.mark.skipif(not (SHARED / "seeds").exists(), reason="../shared/seeds is not there")
def test_every_seed_compiles(syn, tmp_path):
    for f in sorted((SHARED / "seeds").glob("*.syn")):
        p = syn("compile", f, "-o", tmp_path / (f.stem + ".synb"))
        assert p.returncode == 0, f"{f.name}: {p.stderr}"
