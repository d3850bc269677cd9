"""The documentation's examples are real: every program in docs/guide.md, docs/embedding.md and
docs/bytecode.md runs through this checkout's `syn` and prints exactly what the page
shows (tools/doc_examples.py)."""

import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT, load_script


@pytest.mark.parametrize("page", [
    "docs/guide.md", "docs/bytecode.md", "docs/embedding.md", "docs/tutorial.md",
    pytest.param("docs/mcp.md", marks=pytest.mark.slow)])     # it starts MCP servers
def test_documented_examples_print_what_the_page_shows(page):
    bindir = str(Path(sys.executable).parent)
    problems = load_script("tools/doc_examples.py").run(str(ROOT / page), "check", bindir)
    assert not problems, "\n".join(
        f"{page}:{line}: stale example (refresh: make regen, or python tools/doc_examples.py "
        f"fill {page})"
        f"\n--- shown\n{old}--- real\n{new}" for line, old, new in problems)


def readme_agent():
    return re.search(r"```synsema\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)


def test_the_readme_agent_runs_offline(syn, tmp_path):
    (tmp_path / "agent.syn").write_text(readme_agent())
    r = syn("run", "agent.syn")
    assert r.returncode == 0 and r.stdout == "[no llm provider]\n", r.stderr


def test_the_readme_agent_is_formatted(syn, tmp_path):
    (tmp_path / "agent.syn").write_text(readme_agent())
    r = syn("fmt", "--check", "agent.syn")
    assert r.returncode == 0, f"the README's sample is not as `syn fmt` writes it:\n" \
        f"{syn('fmt', '--diff', 'agent.syn').stdout}"


def test_the_first_lines_of_the_readme_are_the_two_command_quick_start():
    head = (ROOT / "README.md").read_text().split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in head.splitlines()] == [["make", "demo"],
                                                               ["make", "test"]]
