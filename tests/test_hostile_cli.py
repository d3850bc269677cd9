"""The CLI against hostile input (an outside review's reproducers): a crafted .synb whose
source name points elsewhere, names and intents holding terminal escapes, endless input
files, huge output. Every case ends with a clear message and a SPEC 13 exit code: never a
traceback, never a hang, never lines of another file."""
import hashlib
import json
import os
import types

import msgpack
import pytest

import synsema
from synsema.cli import describe
from synsema.runtime import report
from synsema.vm.program import Param

MAGIC = b"SYNB\r\n\x1a\n"
SECRET = "TOPSECRET-LINE"
DIV = "let x be 1\nprint(x / 0)\n"


def crafted(path, synb, **fields):
    """Re-write the .synb `synb` to `path` with body fields replaced (source=, intent=),
    re-hashed so that the loader's checks, not the hash, judge it."""
    outer = msgpack.unpackb(open(synb, "rb").read(), raw=False)
    body = msgpack.unpackb(outer[3], raw=False, ext_hook=lambda c, d: msgpack.ExtType(c, d))
    for key, value in fields.items():
        body[{"source": 1, "intent": 2}[key]] = value
    payload = msgpack.packb(body, use_bin_type=True)
    path.write_bytes(msgpack.packb([MAGIC, outer[1], hashlib.sha256(payload).digest(),
                                    payload], use_bin_type=True))
    return path


@pytest.fixture
def compiled(write, syn, tmp_path):
    """compiled(source) -> the path of its .synb (app.synb in the test's folder)."""
    def make(source, name="app"):
        write(f"{name}.syn", source)
        assert syn("compile", f"{name}.syn").returncode == 0
        return tmp_path / f"{name}.synb"
    return make


def no_traceback(p):
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    return p


# ---- 1. the source beside a .synb --------------------------------------------------------

@pytest.mark.parametrize("where", ["absolute", "dotdot"])
def test_a_source_name_outside_the_folder_is_never_read(compiled, syn, tmp_path, where):
    outside = tmp_path.parent / f"{tmp_path.name}-secret.syn"
    outside.write_text(f"x\n{SECRET} {SECRET}\n")
    name = str(outside) if where == "absolute" else f"../{outside.name}"
    bad = crafted(tmp_path / "bad.synb", compiled(DIV), source=name)
    for cmd in (["exec", bad], ["dis", bad], ["batch", bad, "--call", "x", bad, "-o", "o"]):
        p = no_traceback(syn(*cmd))
        assert SECRET not in p.stdout + p.stderr, cmd
    p = syn("exec", bad)
    assert p.returncode == 1 and p.stderr.startswith(f"{name}:2:9: error: division by zero")
    outside.unlink()


def test_the_source_beside_a_synb_still_gives_carets(compiled, syn):
    p = syn("exec", compiled(DIV))
    assert p.returncode == 1 and "    print(x / 0)\n            ^\n" in p.stderr


@pytest.mark.parametrize("kind", ["fifo", "dir", "symlink", "big"])
def test_a_source_that_is_not_a_small_regular_file_is_not_read(compiled, syn, tmp_path,
                                                               monkeypatch, kind):
    synb = compiled(DIV)
    beside = tmp_path / "app.syn"
    beside.unlink()
    if kind == "fifo":
        os.mkfifo(beside)           # opening it for reading would wait for a writer
    elif kind == "dir":
        beside.mkdir()
    elif kind == "symlink":
        target = tmp_path / "elsewhere.txt"
        target.write_text(f"{SECRET}\n{SECRET}\n")
        beside.symlink_to(target)
    else:
        beside.write_text(DIV)
        monkeypatch.setattr(report, "MAX_SOURCE_BYTES", 5)
        prog = synsema.load(synb)
        assert prog.source.lines is None
        return
    p = no_traceback(syn("exec", synb, timeout=20))
    assert p.returncode == 1 and p.stderr == ("app.syn:2:9: error: division by zero\n"
                                              "  at top level (app.syn:2)\n")


def test_the_source_is_read_only_when_a_line_of_it_is_wanted(compiled, tmp_path):
    synb = compiled(DIV)
    prog = synsema.load(synb)
    (tmp_path / "app.syn").write_text("changed 1\nchanged 2\n")
    assert prog.source.lines == ["changed 1", "changed 2"]


@pytest.mark.parametrize("name", ["", ".", "..", "a/b.syn", "/etc/passwd", "a\0b", 7])
def test_only_a_plain_file_name_is_looked_up(name):
    assert not report.plain_file_name(name)
    assert report.plain_file_name("app.syn")


# ---- 2. a caret past the end of its line --------------------------------------------------

def test_a_huge_column_points_just_after_the_line():
    src = report.Source("a.syn", ["abc"])
    assert src.caret(1, 10 ** 12) == "    abc\n       ^\n"
    assert src.caret(1, -5) == "    abc\n    ^\n"


def test_a_caret_under_an_escaped_character_stays_under_its_column():
    src = report.Source("a.syn", ["\x1b[2Jab"])
    assert src.caret(1, 5) == "    \\x1b[2Jab\n           ^\n"


# ---- 3. control characters in text displays -----------------------------------------------

FAKE = '\x1b]0;pwned\x07\x1b[2J line1\nrequires: net("x")\u202e'


def test_printable_escapes_controls_and_bidi_and_keeps_the_rest():
    assert report.printable(FAKE) == ('\\x1b]0;pwned\\x07\\x1b[2J line1\\nrequires: '
                                      'net("x")\\u202e')
    assert report.printable("héllo ✓ \\x") == "héllo ✓ \\x"
    assert report.printable("a\nb\tc\x9b", lines=True) == "a\nb\tc\\x9b"
    assert report.printable(report.printable(FAKE)) == report.printable(FAKE)


def test_inspect_and_outline_show_a_crafted_intent_and_source_name_escaped(compiled, syn,
                                                                           tmp_path):
    bad = crafted(tmp_path / "bad.synb", compiled('task t(a)\n    give a\n'), intent=FAKE,
                  source="\x1b[31mred.syn\nrequires: llm")
    for cmd in (["inspect", bad], ["outline", bad]):
        p = no_traceback(syn(*cmd))
        assert p.returncode == 0
        assert "\x1b" not in p.stdout and "\u202e" not in p.stdout
        assert not any(line.lstrip().startswith("requires:") for line in p.stdout.splitlines()
                       [1:] if "nothing beyond" not in line), p.stdout
    data = json.loads(syn("outline", "--json", bad).stdout)
    assert data["intent"] == FAKE           # JSON keeps the text; json.dumps escapes it
    p = syn("exec", crafted(tmp_path / "err.synb", compiled(DIV, "err"), source="e\x1b.syn"))
    assert p.returncode == 1 and p.stderr.startswith("e\\x1b.syn:2:9: error:")


def test_syn_test_shows_test_names_and_messages_escaped(write, syn):
    write("t.syn", 'test "a\\u{1b}[31mred\\nok   fake"\n    fail("x\\u{1b}[2Jy")\n')
    p = no_traceback(syn("test", "t.syn"))
    assert p.returncode == 1 and "\x1b" not in p.stdout
    assert p.stdout.startswith("FAIL  a\\x1b[31mred\\nok   fake\n      x\\x1b[2Jy (line 2)")


def test_dis_shows_names_escaped(write, syn):
    write("d.syn", 'let s be "\\u{1b}[2J"\nprint(s)\n')
    p = no_traceback(syn("dis", "d.syn"))
    assert p.returncode == 0 and "\x1b" not in p.stdout


# ---- 4. odd parameters never break the description -----------------------------------------

def test_the_input_schema_takes_any_parameter_name():
    func = types.SimpleNamespace(params=[Param("has space"), Param("a-b", "number"),
                                         Param("while", "text", Param.DEFAULT_NOTHING),
                                         Param("f", "task")])
    assert describe._schema(func) == {
        "type": "object", "additionalProperties": False, "required": ["a-b"],
        "properties": {"has space": {}, "a-b": {"type": "number"}, "while": {"type": "string"}}}


# ---- 5. endless and huge inputs -------------------------------------------------------------

def test_an_endless_args_file_is_a_usage_error(write, syn):
    write("a.syn", "task add(a: number)\n    give a\n")
    p = no_traceback(syn("run", "a.syn", "--call", "add", "--args-file", "/dev/zero"))
    assert (p.returncode, p.stderr) == (2, "usage error: --args-file /dev/zero is larger "
                                           "than 16 MB, the most it may hold\n")


def test_an_endless_dataset_line_is_a_usage_error(write, syn, tmp_path):
    write("a.syn", "task add(a: number)\n    give a\n")
    p = no_traceback(syn("batch", "a.syn", "--call", "add", "/dev/zero", "-o", "z.jsonl"))
    assert (p.returncode, p.stderr) == (2, "usage error: /dev/zero:1: the line is longer "
                                           "than 16 MB, the most an input line may hold\n")


def test_a_results_file_that_is_a_device_is_refused(write, syn):
    write("a.syn", "task add(a: number)\n    give a\n")
    write("in.jsonl", '{"a": 1}\n')
    p = no_traceback(syn("batch", "a.syn", "--call", "add", "in.jsonl", "-o", "/dev/zero",
                         "--resume"))
    assert p.returncode == 2 and "-o /dev/zero is not a regular file" in p.stderr


def test_a_last_dataset_line_without_a_newline_is_read(write, syn, tmp_path):
    write("a.syn", "task add(a: number)\n    give a + 1\n")
    (tmp_path / "in.jsonl").write_bytes(b'{"a": 1}\n{"a": 2}')
    p = no_traceback(syn("batch", "a.syn", "--call", "add", "in.jsonl", "-o", "o.jsonl"))
    assert p.returncode == 0
    got = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [x["value"] for x in got] == [2, 3]


# ---- 6-8. syn test: a .synb, -k, a refused file ----------------------------------------------

def test_syn_test_of_a_synb_is_a_usage_error_like_the_other_commands(compiled, syn):
    compiled('test "t"\n    assert(true)\n')
    p = no_traceback(syn("test", "app.synb"))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("error: app.synb is a compiled program, and `syn test` runs the test "
                        "blocks of source code: give it the .syn file\n")


def test_no_test_matching_k_is_a_usage_error(write, syn):
    write("a.syn", 'test "ok"\n    assert(true)\n')
    p = syn("test", "-k", "nomatch", "a.syn")
    assert (p.returncode, p.stderr) == (2, "usage error: no test matched -k 'nomatch'\n")
    assert "5" not in syn("test", "--help").stdout.split("Exit", 1)[1].split(".")[0]


def test_a_refused_file_is_named_and_the_others_still_run(write, syn, tmp_path):
    (tmp_path / "d").mkdir()
    write("d/a.syn", 'require net("example.com")\ntest "never"\n    assert(true)\n')
    write("d/b.syn", 'test "runs"\n    assert(true)\n')
    p = no_traceback(syn("test", "d", "--cap-set", "stdout"))
    assert p.returncode == 3
    assert p.stdout.startswith("FAIL  d/a.syn::(refused)\n      error: d/a.syn: the program "
                               "requires capabilities the host ceiling (--cap-set) does not "
                               'grant: net("example.com"); its tests do not run\n')
    assert "ok    d/b.syn::runs\n" in p.stdout and p.stdout.endswith("1 passed, 1 failed\n")
    write("d/c.syn", 'test "fails"\n    assert(false)\n')
    assert syn("test", "d", "--cap-set", "stdout").returncode == 3   # the worst code


# ---- 9. bounded reports ---------------------------------------------------------------------

def test_a_failing_top_level_shows_only_the_end_of_its_output(write, syn):
    write("t.syn", 'for each i in range(0, 5000)\n    print("line " + text(i))\n'
                   'print(1 / 0)\ntest "t"\n    assert(true)\n')
    p = no_traceback(syn("test", "-v", "t.syn"))
    assert p.returncode == 1
    assert "[... 4800 earlier lines (" in p.stdout and "line 4999\n" in p.stdout
    assert "line 4799\n" not in p.stdout and len(p.stdout) < 20_000
    # Without -v the top level's output is not shown, failing or not (SPEC 7).
    p = no_traceback(syn("test", "t.syn"))
    assert p.returncode == 1 and "line 4999" not in p.stdout
    assert "division by zero" in p.stdout


def test_a_huge_failure_message_is_clipped(write, syn):
    write("t.syn", 'test "big"\n    assert_eq(range(0, 200000), [])\n')
    p = no_traceback(syn("test", "t.syn"))
    assert p.returncode == 1 and len(p.stdout) < 20_000
    assert "more characters not shown)" in p.stdout
    assert len(report.clip("x" * 10, 4)) < 60 and report.clip("abc", 4) == "abc"


# ---- 10. batch wording ----------------------------------------------------------------------

def test_batch_says_why_a_line_is_not_an_object(write, syn, tmp_path):
    write("a.syn", "task add(a: number)\n    give a\n")
    write("in.jsonl", '{"a": 1e999}\nnull\n')
    assert syn("batch", "a.syn", "--call", "add", "in.jsonl", "-o", "o.jsonl").returncode == 0
    got = [json.loads(x)["error"] for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert got[0] == ("in.jsonl:1: error: the input cannot be read as JSON: number out of "
                      "range: 1e999; each line must be one JSON object of the task's named "
                      "arguments")
    assert got[1].startswith("in.jsonl:2: error: the input is null, not a JSON object")


# ---- 11. --args-label needs --labels --------------------------------------------------------

def test_args_label_without_labels_is_a_usage_error(write, syn, tmp_path):
    write("a.syn", "task add(a: number)\n    give a\n")
    write("in.jsonl", '{"a": 1}\n')
    expected = ("usage error: --args-label needs --labels (without it no label is "
                "tracked)\n")
    p = syn("run", "a.syn", "--call", "add", "--args", '{"a": 1}', "--args-label", "cust")
    assert (p.returncode, p.stderr) == (2, expected)
    p = syn("batch", "a.syn", "--call", "add", "in.jsonl", "-o", "o.jsonl",
            "--args-label", "cust")
    assert (p.returncode, p.stderr) == (2, expected)
    with pytest.raises(synsema.UsageError, match=r"args_labels= needs labels=True"):
        synsema.compile_file(tmp_path / "a.syn").call("add", {"a": 1}, args_labels=["c"])


# ---- 13. the embedding API's wording --------------------------------------------------------

def test_loading_source_code_says_to_compile_it(write):
    with pytest.raises(synsema.InvalidProgram) as e:
        synsema.load(write("hello.syn", 'print("hi")\n'))
    assert e.value.message.startswith("not a valid .synb: the file holds text (Synsema "
                                      "source?), not a compiled program: run a source with "
                                      "`syn run`, or compile it first")
    assert "synsema.compile_file" in e.value.message


def test_api_errors_name_keywords_not_flags(tmp_path):
    prog = synsema.compile_source('require net("example.com")\nprint(1)\n', "n.syn")
    with pytest.raises(synsema.Refused, match=r"host ceiling \(cap_set=\) does not grant"):
        prog.run(cap_set="stdout")
    with pytest.raises(synsema.UsageError, match=r"^usage error: audit=: cannot open"):
        prog.run(audit=str(tmp_path / "no" / "such" / "audit.jsonl"))
    with pytest.raises(synsema.UsageError, match=r"give cassette=FILE"):
        synsema.Provider(cassette_mode="replay")
