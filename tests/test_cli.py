"""The `syn` command, run as a real process (SPEC 6, 7, 12, 13): output, error reports and
exit codes of compile, exec, run, test, outline, inspect and dis."""

import json
import subprocess

import pytest

from conftest import installed_script

APP = ('task inner(x)\n    give x + "s"\ntask outer(y)\n    give inner(y)\n'
       'print("before")\nprint(outer(1))\n')

TESTS = ('print("top out")\ntask add(a, b)\n    give a + b\n'
         'test "adds"\n    assert_eq(add(1, 2), 3)\n'
         'test "fails here"\n    assert_eq(add(1, 2), 4)\n'
         'test "prints"\n    print("in test")\n')

OUTLINE = ('intent: "demo agent"\nrequire llm\n'
           'task add(a: number, b: number = 1)\n    give a + b\n'
           'task tag(name: text, extra = nothing, xs: list = [], m: map = {}, ok: bool = true)\n'
           '    require net("api.x.com")\n    give name\n'
           'test "t1"\n    assert(true)\n')


def check_no_traceback(p):
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout


# ---- version and help ---------------------------------------------------------------------

def test_version(syn):
    p = syn("--version")
    assert p.returncode == 0
    assert "Synsema 0.6.46" in p.stdout


@pytest.mark.parametrize("cmd", [[], ["compile"], ["exec"], ["run"], ["test"], ["outline"],
                                 ["code"], ["code", "outline"], ["inspect"], ["dis"]])
def test_help_of_every_command(syn, cmd):
    p = syn(*cmd, "--help")
    assert p.returncode == 0, p.stderr
    assert "Usage:" in p.stdout


def test_synsema_alias(syn, write, tmp_path):
    exe = installed_script("synsema")
    write("a.syn", "print(40 + 2)\n")
    p = subprocess.run([str(exe), "run", "a.syn"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "42\n"
    p = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert "Synsema 0.6.46" in p.stdout


# ---- compile, exec, run -------------------------------------------------------------------

def test_compile_writes_beside_the_source_and_exec_matches_run(syn, write, tmp_path):
    write("app.syn", "let xs be [1, 2, 3]\nprint(len(xs) * 2)\nprint(\"done\")\n")
    p = syn("compile", "app.syn")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == ""
    assert (tmp_path / "app.synb").exists()
    run = syn("run", "app.syn")
    ex = syn("exec", "app.synb")
    assert run.returncode == ex.returncode == 0
    assert run.stdout == ex.stdout == "6\ndone\n"


def test_compile_with_output_option(syn, write, tmp_path):
    write("app.syn", "print(1)\n")
    (tmp_path / "out").mkdir()
    p = syn("compile", "app.syn", "-o", "out/x.synb")
    assert p.returncode == 0
    assert (tmp_path / "out" / "x.synb").exists()
    assert not (tmp_path / "app.synb").exists()
    assert syn("exec", "out/x.synb").stdout == "1\n"


def test_compile_to_a_path_that_cannot_be_written_is_a_usage_error(syn, write, tmp_path):
    write("app.syn", "print(1)\n")
    p = syn("compile", "app.syn", "-o", "no/such/dir/x.synb")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == "usage error: cannot write no/such/dir/x.synb: No such file or directory\n"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["app.syn"]


def test_compile_is_deterministic_across_processes(syn, write, tmp_path):
    write("app.syn", OUTLINE)
    syn("compile", "app.syn", "-o", "a.synb")
    syn("compile", "app.syn", "-o", "b.synb")
    assert (tmp_path / "a.synb").read_bytes() == (tmp_path / "b.synb").read_bytes()


def test_runtime_error_report(syn, write):
    write("app.syn", APP)
    p = syn("run", "app.syn")
    check_no_traceback(p)
    assert p.returncode == 1
    assert p.stdout == "before\n"
    lines = p.stderr.splitlines()
    assert lines[0].startswith("app.syn:2:12: error: cannot add number and text")
    assert lines[1] == '        give x + "s"'
    assert lines[2] == "    " + " " * 11 + "^"
    assert lines[3:] == ["  in task inner (app.syn:2)", "  in task outer (app.syn:4)",
                         "  at top level (app.syn:6)"]


def test_exec_reports_like_run_when_the_source_is_beside_it(syn, write):
    write("app.syn", APP)
    syn("compile", "app.syn")
    run = syn("run", "app.syn")
    ex = syn("exec", "app.synb")
    assert ex.returncode == run.returncode == 1
    assert ex.stdout == run.stdout
    assert ex.stderr == run.stderr


def test_errors_name_the_file_by_the_path_given(syn, write, tmp_path):
    # As Python and compilers do: `syn run sub/app.syn` says sub/app.syn:LINE:COL, so an
    # editor can open it; the .synb itself records the file's name alone.
    (tmp_path / "sub").mkdir()
    write("sub/app.syn", APP)
    run = syn("run", "sub/app.syn")
    assert run.stderr.startswith("sub/app.syn:2:12: error: cannot add number and text")
    assert "  in task inner (sub/app.syn:2)" in run.stderr.splitlines()
    syn("compile", "sub/app.syn")
    assert syn("exec", "sub/app.synb").stderr == run.stderr
    assert syn("inspect", "sub/app.synb").stdout.split("source:")[1].split()[0] == "app.syn"
    write("sub/bad.syn", "let x be (1 +\n")
    assert syn("run", "sub/bad.syn").stderr.startswith("sub/bad.syn:1:10: error:")


def test_exec_without_the_source_has_no_caret(syn, write, tmp_path):
    write("app.syn", APP)
    (tmp_path / "elsewhere").mkdir()
    syn("compile", "app.syn", "-o", "elsewhere/app.synb")
    p = syn("exec", "elsewhere/app.synb")
    check_no_traceback(p)
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert lines[0].startswith("app.syn:2:12: error: cannot add number and text")
    assert "^" not in p.stderr
    assert lines[1] == "  in task inner (app.syn:2)"


def test_compile_error_report(syn, write):
    write("app.syn", "let count be 1\nprint(cont + 1)\n")
    p = syn("run", "app.syn")
    check_no_traceback(p)
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert lines[0] == "app.syn:2:7: error: 'cont' is not declared; did you mean 'count'?"
    assert lines[1] == "    print(cont + 1)"
    assert lines[2] == "          ^"
    c = syn("compile", "app.syn")
    assert c.returncode == 1 and c.stderr == p.stderr


def test_compile_error_does_not_write_a_synb(syn, write, tmp_path):
    write("app.syn", "print(nope)\n")
    assert syn("compile", "app.syn").returncode == 1
    assert not (tmp_path / "app.synb").exists()


def test_syntax_error_has_no_traceback(syn, write):
    write("app.syn", "let x = 1\n")
    p = syn("run", "app.syn")
    check_no_traceback(p)
    assert p.returncode == 1
    assert p.stderr.startswith("app.syn:1:7: error: ")


# ---- exit codes ---------------------------------------------------------------------------

def test_exit_2_bad_option(syn, write):
    write("app.syn", "print(1)\n")
    p = syn("run", "--max-stepz", "3", "app.syn")
    assert p.returncode == 2
    check_no_traceback(p)
    p = syn("run", "--max-steps", "0", "app.syn")
    assert p.returncode == 2


def test_exit_2_missing_file(syn):
    for cmd in ("run", "compile", "exec", "dis", "outline", "inspect"):
        p = syn(cmd, "nope.syn" if cmd != "exec" else "nope.synb")
        assert p.returncode == 2, cmd
        check_no_traceback(p)
        assert "nope" in p.stderr


def test_exit_2_bad_cap_set_lists_valid_forms(syn, write):
    write("app.syn", "print(1)\n")
    p = syn("run", "--cap-set", "stdout,bogus", "app.syn")
    assert p.returncode == 2
    assert "'bogus'" in p.stderr
    for form in ("stdout", "llm@HOST", "llm=LABEL@HOST", "net=HOST", "declassify=LABEL"):
        assert form in p.stderr
    assert p.stdout == ""


def test_exit_3_ceiling_refuses_start(syn, write):
    write("app.syn", 'require net("a.com")\nrequire llm\nprint(1)\n')
    p = syn("run", "--cap-set", "stdout", "app.syn")
    assert p.returncode == 3
    assert p.stdout == ""
    assert 'net("a.com")' in p.stderr and "llm" in p.stderr
    assert syn("run", "--cap-set", "stdout,net=a.com,llm", "app.syn").returncode == 0


def test_exit_3_label_violation(syn, write):
    write("app.syn", 'let s be private("secret", "customers")\nprint("x")\nprint(s)\n')
    p = syn("run", "--labels", "app.syn")
    assert p.returncode == 3
    assert p.stdout == "x\n"
    assert p.stderr.startswith(
        "label_violation: print would reveal data labelled customers (app.syn:3)")
    assert "secret" not in p.stderr


def test_exit_4_limits(syn, write):
    write("loop.syn", "while true\n    let x be 1\n")
    p = syn("run", "--max-steps", "5000", "loop.syn")
    assert p.returncode == 4
    assert "step limit (5000, --max-steps) reached" in p.stderr
    p = syn("run", "--timeout", "0.5", "loop.syn")
    assert p.returncode == 4
    assert "time limit (0.5 s, --timeout) reached" in p.stderr
    write("deep.syn", "task f(n)\n    give f(n + 1)\nprint(f(0))\n")
    p = syn("run", "deep.syn")
    assert p.returncode == 4
    assert "call depth limit (1000, --max-depth) reached" in p.stderr
    check_no_traceback(p)
    p = syn("run", "--max-depth", "7", "deep.syn")
    assert p.returncode == 4 and "call depth limit (7, --max-depth) reached" in p.stderr


def test_exec_of_a_bad_synb(syn, write, tmp_path):
    (tmp_path / "bad.synb").write_bytes(b"not a program")
    p = syn("exec", "bad.synb")
    assert p.returncode == 1
    assert p.stderr.startswith("not a valid .synb: ")
    check_no_traceback(p)


# ---- syn test -----------------------------------------------------------------------------

def test_syn_test_output_format(syn, write):
    write("t.syn", TESTS)
    p = syn("test", "t.syn")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert lines[0].startswith("ok") and lines[0].endswith("adds")
    assert lines[1].startswith("FAIL") and lines[1].endswith("fails here")
    assert "expected 4, got 3" in lines[2] and "line 7" in lines[2]
    assert lines[3].startswith("ok") and lines[3].endswith("prints")
    assert lines[-1] == "2 passed, 1 failed"
    assert "top out" not in p.stdout and "in test" not in p.stdout


def test_syn_test_exit_0_when_all_pass_and_k(syn, write):
    write("t.syn", TESTS)
    p = syn("test", "-k", "add", "t.syn")
    assert p.returncode == 0
    assert p.stdout.splitlines()[-1] == "1 passed, 0 failed"
    assert "prints" not in p.stdout


def test_syn_test_verbose_shows_top_level_output(syn, write):
    write("t.syn", TESTS)
    p = syn("test", "-v", "t.syn")
    assert "top out" in p.stdout
    assert p.stdout.splitlines()[-1] == "2 passed, 1 failed"


def test_syn_test_json(syn, write):
    write("t.syn", TESTS)
    p = syn("test", "--json", "t.syn")
    assert p.returncode == 1
    data = json.loads(p.stdout)
    assert data["passed"] == 2 and data["failed"] == 1
    tests = data["files"][0]["tests"]
    assert [(t["name"], t["ok"]) for t in tests] == [("adds", True), ("fails here", False),
                                                   ("prints", True)]
    assert tests[1]["line"] == 7 and tests[1]["message"] == "expected 4, got 3"


def test_syn_test_top_level_error_is_reported_as_top_level(syn, write):
    write("t.syn", 'print(1 / 0)\ntest "never runs"\n    assert(true)\n')
    p = syn("test", "t.syn")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert lines[0].startswith("FAIL") and "(top level)" in lines[0]
    assert "division by zero" in p.stdout
    assert "never runs" not in p.stdout
    assert lines[-1] == "0 passed, 1 failed"
    data = json.loads(syn("test", "--json", "t.syn").stdout)
    assert data["failed"] == 1 and data["files"][0]["tests"][0]["name"] == "(top level)"


def test_syn_test_limit_in_a_test_fails_only_that_test(syn, write):
    write("t.syn", 'test "spins"\n    while true\n        let x be 1\n'
                   'test "fine"\n    assert(true)\n')
    p = syn("test", "--max-steps", "2000", "t.syn")
    assert p.returncode == 1
    assert p.stdout.splitlines()[-1] == "1 passed, 1 failed"


# ---- outline, inspect, dis ----------------------------------------------------------------

def test_outline_json(syn, write):
    write("o.syn", OUTLINE)
    p = syn("outline", "--json", "o.syn")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["intent"] == "demo agent"
    assert data["requires"] == ["llm"]
    assert [t["name"] for t in data["tests"]] == ["t1"]
    add, tag = data["tasks"]
    assert add["name"] == "add"
    assert [(q["name"], q["type"], q["optional"]) for q in add["parameters"]] == \
        [("a", "number", False), ("b", "number", True)]
    assert add["input_schema"] == {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a"], "additionalProperties": False}
    s = tag["input_schema"]
    assert s["type"] == "object" and s["additionalProperties"] is False
    assert s["required"] == ["name"]
    assert {k: v.get("type") for k, v in s["properties"].items()} == {
        "name": "string", "extra": None, "xs": "array", "m": "object", "ok": "boolean"}
    assert s["properties"]["extra"] == {}       # untyped: any JSON value, as --call takes
    assert tag["requires"] == ['net("api.x.com")']


def test_outline_schema_of_an_untyped_parameter_is_what_call_accepts(syn, write):
    write("u.syn", "task f(x, y: number)\n    give [x, y]\n")
    (task,) = json.loads(syn("outline", "--json", "u.syn").stdout)["tasks"]
    assert task["input_schema"] == {"type": "object", "properties": {"x": {}, "y": {
        "type": "number"}}, "required": ["y"], "additionalProperties": False}
    for args, shown in (('{"y": 1}', "[null,1]"), ('{"x": [1, {"a": 2}], "y": 2}',
                                                   '[[1,{"a":2}],2]')):
        p = syn("run", "u.syn", "--call", "f", "--args", args)
        assert p.returncode == 0 and p.stdout.replace(" ", "") == shown + "\n", p.stderr


def test_code_outline_is_an_alias(syn, write):
    write("o.syn", OUTLINE)
    a = syn("outline", "o.syn")
    b = syn("code", "outline", "o.syn")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout
    assert "add(a: number, b: number" in a.stdout
    assert syn("code", "outline", "--json", "o.syn").stdout == \
        syn("outline", "--json", "o.syn").stdout


def test_inspect_manifest(syn, write, tmp_path):
    write("o.syn", OUTLINE)
    syn("compile", "o.syn")
    p = syn("inspect", "o.synb")
    assert p.returncode == 0
    for word in ("demo agent", "llm", "add(a: number", "sha256", "0.6.46"):
        assert word in p.stdout
    data = json.loads(syn("inspect", "--json", "o.synb").stdout)
    assert data["intent"] == "demo agent"
    assert data["requires"] == ["llm"]
    assert [t["name"] for t in data["tasks"]] == ["add", "tag"]
    assert data["tasks"][1]["requires"] == ['net("api.x.com")']
    assert data["tests"] == ["t1"]
    assert len(data["sha256"]) == 64 and int(data["sha256"], 16) >= 0
    assert data["size"] == (tmp_path / "o.synb").stat().st_size
    assert data["source"] == "o.syn"
    assert isinstance(data["format"], int)


def test_dis_of_syn_and_synb(syn, write):
    write("d.syn", "task add(a, b)\n    give a + b\nprint(add(1, 2))\n")
    a = syn("dis", "d.syn")
    assert a.returncode == 0
    assert "ADD" in a.stdout and "RETURN" in a.stdout
    assert "give a + b" in a.stdout          # source lines shown
    syn("compile", "d.syn")
    b = syn("dis", "d.synb")
    assert b.returncode == 0
    assert "ADD" in b.stdout and "give a + b" in b.stdout


# ---- odd files ----------------------------------------------------------------------------

def test_non_utf8_source(syn, tmp_path):
    (tmp_path / "bad.syn").write_bytes(b'print("caf\xe9")\n')
    p = syn("run", "bad.syn")
    check_no_traceback(p)
    assert p.returncode == 1
    assert p.stderr.startswith("bad.syn:1: error:") and "UTF-8" in p.stderr


def test_utf8_bom_is_accepted(syn, tmp_path):
    (tmp_path / "bom.syn").write_bytes(b'\xef\xbb\xbfprint("ok")\n')
    p = syn("run", "bom.syn")
    assert p.returncode == 0 and p.stdout == "ok\n"


def test_empty_file(syn, write):
    write("empty.syn", "")
    p = syn("run", "empty.syn")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == ""
    assert syn("compile", "empty.syn").returncode == 0
    assert syn("exec", "empty.synb").returncode == 0
    t = syn("test", "empty.syn")
    assert t.returncode == 0 and t.stdout.splitlines()[-1] == "0 passed, 0 failed"


def test_comment_only_file(syn, write):
    write("c.syn", "-- nothing here\n\n   -- indented comment\n")
    p = syn("run", "c.syn")
    assert p.returncode == 0 and p.stdout == ""
