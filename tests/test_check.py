"""`syn check`: compile only, write nothing; errors as `syn compile` prints them, or with
--json as diagnostics {file, line, column, message, suggestion}; exit 0 clean, 1 errors."""

import json

import pytest

from synsema.vm.errors import CompileError

CLEAN = 'task add(a, b)\n    give a + b\n\nprint(add(1, 2))\n'
UNDECLARED = "let count be 1\nprint(cuont)\n"


def test_a_clean_file_passes_and_nothing_is_written(syn, write, tmp_path):
    path = write("app.syn", CLEAN)
    p = syn("check", path)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = syn("check", "--json", path)
    assert p.returncode == 0
    assert json.loads(p.stdout) == []
    assert sorted(f.name for f in tmp_path.iterdir()) == ["app.syn"]     # no .synb


def test_errors_print_as_compile_prints_them(syn, write, tmp_path):
    path = write("bad.syn", UNDECLARED)
    p = syn("check", path)
    assert p.returncode == 1
    assert p.stderr == syn("compile", path).stderr
    assert p.stderr.startswith(f"{path}:2:7: error: 'cuont' is not declared; did you "
                               "mean 'count'?")
    assert sorted(f.name for f in tmp_path.iterdir()) == ["bad.syn"]


def test_json_diagnostics_separate_the_suggestion(syn, write, tmp_path):
    files = [write("a_undeclared.syn", UNDECLARED),
             write("b_clean.syn", CLEAN),
             write("c_chain.syn", "let a be 1\nprint(a < 2 < 3)\n"),
             write("d_twice.syn", "task f(a, a)\n    give a\n"),
             write("e_text.syn", 'print("open\n')]
    p = syn("check", "--json", *files)
    assert p.returncode == 1
    assert p.stderr == ""
    assert json.loads(p.stdout) == [
        {"file": str(files[0]), "line": 2, "column": 7, "message": "'cuont' is not declared",
         "suggestion": "did you mean 'count'?"},
        {"file": str(files[2]), "line": 2, "column": 13,
         "message": "comparisons do not chain", "suggestion": "write `a < b and b < c`"},
        {"file": str(files[3]), "line": 1, "column": 11,
         "message": "parameter 'a' is declared twice", "suggestion": None},
        {"file": str(files[4]), "line": 1, "column": 7, "message": "text is not closed",
         "suggestion": "add a '\"' before the end of the line"},
    ]


def test_json_message_and_suggestion_are_the_compile_message(syn, write):
    """Joined with '; ' they give back exactly what `syn compile` prints."""
    path = write("bad.syn", "task f(x: numbr)\n    give x\n")
    diagnostic, = json.loads(syn("check", "--json", path).stdout)
    first = syn("compile", path).stderr.splitlines()[0]
    assert first == (f"{path}:1:11: error: {diagnostic['message']}; "
                     f"{diagnostic['suggestion']}")
    assert diagnostic["suggestion"].startswith("did you mean 'number'?")


def test_folders_are_searched_and_bad_utf8_is_a_diagnostic(syn, write, tmp_path):
    (tmp_path / "src").mkdir()
    write("src/ok.syn", CLEAN)
    (tmp_path / "src" / "latin1.syn").write_bytes(b'print("caf\xe9")\n')
    p = syn("check", "--json", tmp_path / "src")
    assert p.returncode == 1
    assert json.loads(p.stdout) == [
        {"file": str(tmp_path / "src" / "latin1.syn"), "line": 1, "column": 11,
         "message": "the file is not valid UTF-8 (byte 10)", "suggestion": "save it as UTF-8"}]
    p = syn("check", tmp_path / "src")
    assert p.returncode == 1
    assert "latin1.syn:1: error: the file is not valid UTF-8 (byte 10); save it as UTF-8" \
        in p.stderr


def test_a_missing_file_is_a_usage_error(syn, tmp_path):
    p = syn("check", tmp_path / "nope.syn")
    assert p.returncode == 2
    assert "no such file or folder" in p.stderr
    p = syn("check", "--json", tmp_path / "nope.syn")
    assert p.returncode == 2
    assert json.loads(p.stdout) == []


@pytest.mark.parametrize("message, problem, suggestion", [
    ("'x' is not declared; did you mean 'y'?", "'x' is not declared", "did you mean 'y'?"),
    ("a; b; c", "a", "b; c"),
    ("parameter 'a' is declared twice", "parameter 'a' is declared twice", None),
])
def test_compile_error_splits_its_message_and_keeps_it(message, problem, suggestion):
    e = CompileError(message, 3, 4, "app.syn")
    assert (e.message, e.problem, e.suggestion) == (message, problem, suggestion)
    assert str(e) == message
