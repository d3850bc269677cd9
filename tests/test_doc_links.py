"""The documentation stands on the repository alone: every relative link in every Markdown
file of the repository leads to a file (and a heading) a clone has, and docs/spec.md is
the specification itself, the same text as the shared checkout's master copy."""

import re
import subprocess

import pytest

from conftest import ROOT, SHARED, needs_shared

LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"```.*?```", re.S)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def markdown_files():
    """Every .md file a clone has (git's list: nothing ignored, nothing untracked)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                          "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    return sorted(ROOT / p for p in out.stdout.split())


def anchors(path):
    """The heading anchors of a Markdown file, as GitHub makes them."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    out = set()
    for heading in re.findall(r"^#{1,6} (.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def broken_links(path, text=None):
    """What is wrong with each relative link of `path` (whose text is `text`, if given)."""
    text = CODE.sub("", path.read_text(encoding="utf-8") if text is None else text)
    problems = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):       # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            problems.append(f"{target}: no such file")
        elif not dest.is_relative_to(ROOT.resolve()):
            problems.append(f"{target}: outside the repository")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{target}: no heading #{anchor} in {dest.name}")
    return problems


def test_every_relative_link_in_the_docs_resolves():
    files = markdown_files()
    assert ROOT / "README.md" in files and ROOT / "docs" / "spec.md" in files
    problems = [f"{p.relative_to(ROOT)}: {b}" for p in files for b in broken_links(p)]
    assert not problems, "\n".join(problems)


def test_the_link_check_finds_a_missing_file_a_missing_heading_and_an_outside_file():
    page = ROOT / "docs" / "guide.md"
    text = ("[a](nowhere.md) [b](spec.md#no-such-heading) [c](spec.md#9-capabilities) "
            "`[d](in-code.md)` [e](https://example.com/x.md) [f](../../shared/SPEC.md) "
            "[g](#tour) [h](#no-tour)")
    outside = ["../../shared/SPEC.md: outside the repository"] if \
        (ROOT.parent / "shared" / "SPEC.md").exists() else ["../../shared/SPEC.md: no such file"]
    assert broken_links(page, text) == [
        "nowhere.md: no such file",
        "spec.md#no-such-heading: no heading #no-such-heading in spec.md",
        *outside, "#no-tour: no heading #no-tour in guide.md"]


def test_no_doc_points_to_a_spec_outside_the_repository():
    for p in markdown_files():
        if p.name == "spec.md":
            continue
        text = p.read_text(encoding="utf-8")
        assert "SPEC.md" not in text and "/work/shared" not in text, p


@needs_shared
def test_docs_spec_is_the_shared_specification():
    master = (SHARED / "SPEC.md").read_text(encoding="utf-8")
    assert (ROOT / "docs" / "spec.md").read_text(encoding="utf-8") == master, \
        "docs/spec.md differs from ../shared/SPEC.md: copy it again (make regen, or " \
        "cp ../shared/SPEC.md docs/spec.md)"


@pytest.mark.parametrize("page", ["README.md", "docs/guide.md", "docs/spec-notes.md"])
def test_the_spec_is_linked_from_the_entry_points(page):
    assert "spec.md" in (ROOT / page).read_text(encoding="utf-8")
