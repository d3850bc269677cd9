"""The language's own regression cases: every .syn below tests/lang, run through the
harness in both tiers (the loop, SYN_TIER=1, and the translated code, SYN_TIER=2), its
output and error checked against its `-- expect` lines (tests/lang/README.md)."""

import re
from pathlib import Path

import pytest

from harness import run

LANG = Path(__file__).resolve().parent / "lang"

# A directive is a comment: `-- expect: LINE`, `-- expect error: TEXT`, `-- expect exit: N`,
# `-- labels`, `-- cap-set: ITEMS`, `-- max-steps: N`, `-- max-depth: N`.
EXPECT = re.compile(r"--\s*expect:(?: (.*))?$")
EXPECT_ERROR = re.compile(r"--\s*expect error:\s*(.+?)\s*$")
EXPECT_EXIT = re.compile(r"--\s*expect exit:\s*(\d+)\s*$")
OPTION = re.compile(r"^--\s*(labels|cap-set|max-steps|max-depth)(?::\s*(.+?))?\s*$")


class Case:
    def __init__(self, path):
        self.path = path
        self.source = path.read_text(encoding="utf-8")
        self.out, self.errors, self.exit = [], [], None
        self.options = {}
        for line in self.source.splitlines():
            if m := EXPECT.search(line):
                self.out.append(m.group(1) or "")
            elif m := EXPECT_ERROR.search(line):
                self.errors.append(m.group(1))
            elif m := EXPECT_EXIT.search(line):
                self.exit = int(m.group(1))
            elif m := OPTION.match(line.strip()):
                key, value = m.group(1), m.group(2)
                if key == "labels":
                    self.options["labels"] = True
                elif key == "cap-set":
                    self.options["cap_set"] = value
                else:
                    self.options[key.replace("-", "_")] = int(value)
        if not (self.out or self.errors or self.exit is not None):
            raise ValueError(f"{path}: no `-- expect` line; every case of tests/lang says "
                             f"what it prints (`-- expect: LINE`) or how it fails "
                             f"(`-- expect error: TEXT`, `-- expect exit: N`)")
        if self.exit is None:
            self.exit = 1 if self.errors else 0

    def check(self, tier):
        o = run(self.source, name=self.path.name, tier=tier, dedent=False, timeout=30,
                **self.options)
        where = f"{self.path.name} (tier {tier})"
        assert o.out.splitlines() == self.out, f"{where}: printed {o.out!r}\n{o.err}"
        assert o.code == self.exit, f"{where}: exit {o.code}, expected {self.exit}: {o.err}"
        for text in self.errors:
            assert text in o.err, f"{where}: the error {o.err!r} does not say {text!r}"
        if not self.errors:
            assert o.err == "", f"{where}: unexpected error {o.err}"


def cases():
    return sorted(LANG.rglob("*.syn"))


def test_the_corpus_is_there():
    assert len(cases()) >= 40


@pytest.mark.parametrize("tier", [1, 2])
@pytest.mark.parametrize("path", cases(), ids=lambda p: str(p.relative_to(LANG)))
def test_lang(path, tier):
    Case(path).check(tier)


def test_a_case_without_expectations_fails_loudly(tmp_path):
    bare = tmp_path / "bare.syn"
    bare.write_text("print(1)  -- prints 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no `-- expect` line"):
        Case(bare)


def test_the_directives_are_read(tmp_path):
    p = tmp_path / "d.syn"
    p.write_text("-- labels\n-- cap-set: stdout\n-- max-steps: 10\nprint(1)  -- expect: 1\n"
                 "-- expect:\n-- expect error: boom\n-- expect exit: 3\n", encoding="utf-8")
    c = Case(p)
    assert c.out == ["1", ""] and c.errors == ["boom"] and c.exit == 3
    assert c.options == {"labels": True, "cap_set": "stdout", "max_steps": 10}


def test_a_wrong_expectation_fails(tmp_path):
    p = tmp_path / "wrong.syn"
    p.write_text("print(2)  -- expect: 3\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        Case(p).check(1)
    p.write_text("print(1 / 0)\n-- expect error: something else\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        Case(p).check(2)


@pytest.mark.parametrize("tier", [1, 2])
def test_the_tier_is_forced_for_the_run_only(tier, monkeypatch):
    import os

    import synsema.vm.tier2 as tier2
    monkeypatch.setenv("SYN_TIER", "auto")
    seen, real = [], tier2.make_runner

    def recording(vm, run_plain):
        seen.append(vm)
        return real(vm, run_plain)
    monkeypatch.setattr(tier2, "make_runner", recording)
    assert run("print(1)\n", tier=tier).out == "1\n"
    assert len(seen) == (0 if tier == 1 else 1)
    assert os.environ["SYN_TIER"] == "auto"
