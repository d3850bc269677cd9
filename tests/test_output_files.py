"""The files the `syn` commands write, and what they read: an output is replaced through
a fresh temporary file (never a name derived from it that someone may have planted), an
output that is one of the command's inputs is refused, a byte-order mark opens an input
file as it opens a .syn, help and version written to a full stdout are one line, and
--max-depth has a maximum."""

import json
import os
import subprocess

import pytest

from conftest import syn_command

BOM = "\ufeff"

# The first item spins ~0.5 s, the others return at once: on two workers they finish
# first, so the results file must be sorted at the end.
SLOW_FIRST = """\
task work(id: number, n: number)
    let i be 0
    while i < n
        set i to i + 1
    give id
"""

ECHO = """\
task echo(word: text)
    give word
"""


def shell(command, cwd):
    """`syn COMMAND` through bash (for redirections)."""
    return subprocess.run(["bash", "-c", " ".join(syn_command()) + " " + command], cwd=cwd,
                          capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def new_file_mode():
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# ---- syn compile ---------------------------------------------------------------------------

def test_compile_never_writes_through_a_file_named_after_the_output(syn, write, tmp_path):
    source = write("prog.synb.tmp", "print(42)\n")
    r = syn("compile", "prog.synb.tmp", "-o", "prog.synb")
    assert r.returncode == 0, r.stderr
    assert source.read_text() == "print(42)\n"
    assert syn("exec", "prog.synb").stdout == "42\n"
    assert sorted(os.listdir(tmp_path)) == ["prog.synb", "prog.synb.tmp"]


def test_compile_never_follows_a_planted_symlink(syn, write, tmp_path):
    write("app.syn", "print(1)\n")
    victim = write("victim.txt", "keep me\n")
    (tmp_path / "app.synb.tmp").symlink_to("victim.txt")
    r = syn("compile", "app.syn")
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "keep me\n"
    out = tmp_path / "app.synb"
    assert not out.is_symlink() and out.is_file()
    assert out.stat().st_mode & 0o777 == new_file_mode()     # as open() would make it
    assert syn("exec", "app.synb").stdout == "1\n"


def test_a_recompiled_synb_keeps_its_permissions(syn, write, tmp_path):
    write("app.syn", "print(1)\n")
    out = write("app.synb", "old")
    out.chmod(0o640)
    assert syn("compile", "app.syn").returncode == 0
    assert out.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["app.syn", "app.synb"]


def test_a_failed_replacement_leaves_no_temporary_file(tmp_path, monkeypatch):
    from synsema.cli.replace import replace_file
    target = tmp_path / "out.synb"
    target.write_bytes(b"before")

    def refuse(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        replace_file(str(target), [b"after"])
    assert target.read_bytes() == b"before"
    assert os.listdir(tmp_path) == ["out.synb"]


# ---- syn batch -----------------------------------------------------------------------------

def unsorted_results(path):
    path.write_text("".join(json.dumps({"line": n, "id": None, "status": "ok"}) + "\n"
                            for n in (2, 1, 3)))


def test_the_final_sort_never_writes_through_a_planted_name(tmp_path):
    from synsema.cli.batch import _in_input_order
    unsorted_results(tmp_path / "r.jsonl")
    (tmp_path / "r.jsonl.sorting").write_text("a dataset\n")
    unsorted_results(tmp_path / "r3.jsonl")
    (tmp_path / "other.txt").write_text("keep me\n")
    (tmp_path / "r3.jsonl.sorting").symlink_to("other.txt")
    for name in ("r.jsonl", "r3.jsonl"):
        _in_input_order(str(tmp_path / name))
        lines = (tmp_path / name).read_text().splitlines()
        assert [json.loads(x)["line"] for x in lines] == [1, 2, 3]
        assert not (tmp_path / name).is_symlink()
    assert (tmp_path / "r.jsonl.sorting").read_text() == "a dataset\n"
    assert (tmp_path / "other.txt").read_text() == "keep me\n"
    assert sorted(os.listdir(tmp_path)) == ["other.txt", "r.jsonl", "r.jsonl.sorting",
                                            "r3.jsonl", "r3.jsonl.sorting"]


def test_a_failed_sort_is_one_line_and_keeps_every_result(tmp_path, monkeypatch):
    from synsema.cli import batch
    out = tmp_path / "r.jsonl"
    unsorted_results(out)
    before = out.read_text()

    def refuse(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(batch.Stop) as stop:
        batch._in_input_order(str(out))
    assert stop.value.message == (f"error: cannot put {out} in input order: No space left on "
                                  "device; every result is in it, in the order the items "
                                  "finished")
    assert out.read_text() == before and os.listdir(tmp_path) == ["r.jsonl"]


def test_batch_out_of_order_keeps_a_dataset_named_like_its_sort_file(syn, write, tmp_path):
    write("slow.syn", SLOW_FIRST)
    rows = [{"id": 1, "n": 300000}] + [{"id": n, "n": 1} for n in range(2, 7)]
    dataset = write("r2.jsonl.sorting", "".join(json.dumps(r) + "\n" for r in rows))
    before = dataset.read_text()
    r = syn("batch", "slow.syn", "--call", "work", "r2.jsonl.sorting", "-o", "r2.jsonl",
            "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert dataset.read_text() == before
    got = [json.loads(x) for x in (tmp_path / "r2.jsonl").read_text().splitlines()]
    assert [x["value"] for x in got] == [1, 2, 3, 4, 5, 6]
    assert sorted(os.listdir(tmp_path)) == ["r2.jsonl", "r2.jsonl.sorting", "slow.syn"]


@pytest.mark.parametrize("resume", [(), ("--resume",)])
def test_batch_refuses_to_write_its_results_over_its_inputs(syn, write, tmp_path, resume):
    write("echo.syn", ECHO)
    dataset = write("in.jsonl", '{"word": "a"}\n')
    r = syn("batch", "echo.syn", "--call", "echo", "in.jsonl", "-o", "in.jsonl", *resume)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("usage error: -o in.jsonl is the input dataset in.jsonl: the results "
                        "would overwrite it; give another results file\n")
    r = syn("batch", "echo.syn", "--call", "echo", "in.jsonl", "-o", "echo.syn", *resume)
    assert r.returncode == 2
    assert r.stderr == ("usage error: -o echo.syn is the program echo.syn: the results "
                        "would overwrite it; give another results file\n")
    assert dataset.read_text() == '{"word": "a"}\n'
    assert (tmp_path / "echo.syn").read_text() == ECHO


# ---- a byte-order mark at the start of an input file ---------------------------------------

def test_a_batch_dataset_may_start_with_a_byte_order_mark(syn, write, tmp_path):
    write("echo.syn", ECHO)
    write("bom.jsonl", BOM + '{"word": "a"}\n{"word": "b"}\n')
    r = syn("batch", "echo.syn", "--call", "echo", "bom.jsonl", "-o", "out.jsonl")
    assert r.returncode == 0 and "2 items: 2 ok" in r.stderr, r.stderr
    got = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(x["status"], x["value"]) for x in got] == [("ok", "a"), ("ok", "b")]


def test_an_args_file_may_start_with_a_byte_order_mark(syn, write):
    write("echo.syn", ECHO)
    write("args.json", BOM + '{"word": "hi"}')
    r = syn("run", "echo.syn", "--call", "echo", "--args-file", "args.json")
    assert (r.returncode, r.stdout, r.stderr) == (0, '"hi"\n', "")
    assert syn("compile", "echo.syn").returncode == 0
    r = syn("exec", "echo.synb", "--call", "echo", "--args-file", "args.json")
    assert (r.returncode, r.stdout, r.stderr) == (0, '"hi"\n', "")


# ---- help, version and the other stdout click or syn fmt writes ---------------------------

@pytest.mark.parametrize("command", ["--help", "--version", "run --help", "exec --help",
                                     "batch -h", "code --help", "fmt --check ugly.syn",
                                     "fmt --diff ugly.syn", "check --json ugly.syn"])
def test_help_and_version_on_a_full_stdout_are_one_line(write, tmp_path, command):
    write("ugly.syn", "let  x be 1\n")
    p = shell(command + " > /dev/full", tmp_path)
    assert (p.returncode, p.stderr) == (1, "error: cannot write to stdout: No space left on "
                                           "device\n")
    assert (tmp_path / "ugly.syn").read_text() == "let  x be 1\n"


def test_help_into_a_closed_pipe_is_a_quiet_exit(tmp_path):
    p = shell("--help | head -1; exit ${PIPESTATUS[0]}", tmp_path)
    assert p.stdout.startswith("Usage: syn") and p.stderr == ""


# ---- --max-depth ---------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["run p.syn", "exec p.synb", "test p.syn",
                                     "batch p.syn --call t in.jsonl -o out.jsonl"])
@pytest.mark.parametrize("depth", ["100001", "1000000000"])
def test_max_depth_has_a_maximum(syn, write, tmp_path, command, depth):
    write("p.syn", "task t()\n    give 1\n")
    write("in.jsonl", "{}\n")
    assert syn("compile", "p.syn").returncode == 0
    r = syn(*command.split(), "--max-depth", depth)
    assert r.returncode == 2 and r.stdout == ""
    assert f"'{depth}' is above 100000, the most it may be" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out.jsonl").exists()


def test_the_maximum_depth_is_reached_and_reported(syn, write):
    write("deep.syn", "task down(n)\n    give down(n + 1)\n\nprint(down(0))\n")
    r = syn("run", "--max-depth", "100000", "deep.syn")
    assert r.returncode == 4
    assert "call depth limit (100000, --max-depth) reached" in r.stderr
