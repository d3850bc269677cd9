"""The documentation's examples are real: every program in docs/guide.md, docs/embedding.md and
docs/bytecode.md runs through this checkout's `syn` and prints exactly what the page
shows (tools/doc_examples.py)."""

import sys
from pathlib import Path

import pytest

from conftest import ROOT, load_script


@pytest.mark.parametrize("page", ["docs/guide.md", "docs/bytecode.md", "docs/embedding.md"])
def test_documented_examples_print_what_the_page_shows(page):
    bindir = str(Path(sys.executable).parent)
    problems = load_script("tools/doc_examples.py").run(str(ROOT / page), "check", bindir)
    assert not problems, "\n".join(
        f"{page}:{line}: stale example (refresh: make regen, or python tools/doc_examples.py "
        f"fill {page})"
        f"\n--- shown\n{old}--- real\n{new}" for line, old, new in problems)


def test_the_readme_agent_runs_offline(syn, tmp_path):
    import re
    code = re.search(r"```synsema\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    (tmp_path / "agent.syn").write_text(code)
    r = syn("run", "agent.syn")
    assert r.returncode == 0 and r.stdout == "[no llm provider]\n", r.stderr
