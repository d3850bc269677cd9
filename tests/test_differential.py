"""Differential tests (STYLE: byterun's habit): random small valid programs must behave the
same run from source (`syn run`) and from a compiled .synb (`syn compile` + `syn exec`):
same stdout, same exit code, same first line of stderr. Most examples run in-process
(compile_source, codec encode/decode, VM); a few go through the real command."""

import os
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import syn_command
from synsema.cli.report import Source, runtime_error
from synsema.compiler import compile_source
from synsema.vm.codec import decode, encode
from synsema.vm.errors import SynError
from synsema.vm.machine import VM, Options

PRELUDE = '''task helper(a, b = 2)
    when a > b
        give a - b
    otherwise
        give a * b + 1
task risky(n)
    when n % 3 == 0
        fail("bad " + text(n))
    give n
task total(items)
    let s be 0
    for each it in items
        set s to s + it
    give s
'''

NVARS = 3
VARS = [f"v{i}" for i in range(NVARS)]


# ---- program generator ---------------------------------------------------------------------

small_int = st.integers(min_value=-20, max_value=20)


def exprs():
    leaf = st.one_of(small_int.map(str), st.sampled_from(VARS), st.just("len(xs)"))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"helper({e})"),
            st.tuples(inner, inner).map(lambda t: f"helper({t[0]}, {t[1]})"),
            inner.map(lambda e: f"abs({e})"),
            st.tuples(inner, st.integers(1, 9)).map(lambda t: f"({t[0]} % {t[1]})"),
        )
    return st.recursive(leaf, extend, max_leaves=4)


EXPR = exprs()
COND = st.tuples(EXPR, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), EXPR).map(
    lambda t: f"{t[0]} {t[1]} {t[2]}")


def simple_stmts():
    return st.one_of(
        st.tuples(st.sampled_from(VARS), EXPR).map(lambda t: [f"set {t[0]} to ({t[1]}) % 1000"]),
        EXPR.map(lambda e: [f"print({e})"]),
        EXPR.map(lambda e: [f"set t to t + \"-\" + text({e})", "print(t)"]),
        EXPR.map(lambda e: [f"set xs to append(xs, ({e}) % 100)", "print(xs)"]),
        st.tuples(EXPR, EXPR).map(lambda t: [f"set m[text(({t[0]}) % 5)] to {t[1]}",
                                             "print(m)"]),
        st.just(["print(total(xs))"]),
        st.just(["print(join(sort(keys(m)), \",\"))"]),
        st.tuples(EXPR, EXPR).map(lambda t: [f"print(({t[0]}) / ({t[1]}))"]),   # may divide by 0
        EXPR.map(lambda e: [f"print(xs[{e}])"]),                               # may be out of range
        EXPR.map(lambda e: ["try", f"    print(risky({e}))", "recover e",
                            "    print(\"recovered: \" + e)"]),
        EXPR.map(lambda e: [f"print(risky({e}))"]),                            # may fail uncaught
    )


def indent(lines, n=4):
    return [" " * n + line for line in lines]


def block_stmts(counter):
    simple = simple_stmts()
    body = st.lists(simple, min_size=1, max_size=3).map(lambda ls: [x for s in ls for x in s])

    def when(t):
        cond, a, b = t
        return ["when " + cond] + indent(a) + ["otherwise"] + indent(b)

    def loop(t):
        n, b = t
        i = f"i{next(counter)}"
        return [f"let {i} be 0", f"while {i} < {n}"] + indent([f"set {i} to {i} + 1"] + b)

    def each(b):
        j = f"e{next(counter)}"
        return [f"for each {j} in slice(xs, 0, 4)"] + indent([f"print({j})"] + b)

    return st.one_of(simple, simple,
                     st.tuples(COND, body, body).map(when),
                     st.tuples(st.integers(0, 4), body).map(loop),
                     body.map(each))


def _counter():
    n = 0
    while True:
        n += 1
        yield n


@st.composite
def programs(draw):
    counter = _counter()
    lines = PRELUDE.splitlines()
    for v in VARS:
        lines.append(f"let {v} be {draw(small_int)}")
    lines.append(f"let t be \"{draw(st.sampled_from(['', 'a', 'héllo', 'x y']))}\"")
    lines.append(f"let xs be [{', '.join(str(x) for x in draw(st.lists(small_int, max_size=4)))}]")
    lines.append("let m be {\"k\": 1}")
    for stmt in draw(st.lists(block_stmts(counter), min_size=1, max_size=8)):
        lines.extend(stmt)
    return "\n".join(lines) + "\n"


# ---- running both ways --------------------------------------------------------------------

def outcome(program, source_lines):
    out = []
    vm = VM(program, Options(out=out.append, max_steps=200000, timeout=10))
    try:
        vm.run_main()
        return "".join(out), 0, ""
    except SynError as e:
        first = runtime_error(e, Source("app.syn", source_lines)).splitlines()[0]
        return "".join(out), e.exit_code, first


def run_from_source(src):
    return outcome(compile_source(src, "app.syn"), src.splitlines())


def run_from_synb(src):
    data = encode(compile_source(src, "app.syn"))
    return outcome(decode(data), src.splitlines())


@pytest.mark.slow          # a long property run: make test-fast skips it
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_run_equals_compile_then_exec_in_process(src):
    a = run_from_source(src)
    b = run_from_synb(src)
    assert a == b, src
    if a[1]:
        assert a[2].startswith("app.syn:"), a[2]   # errors carry a position, from both


@pytest.mark.slow          # a long property run: make test-fast skips it
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_encoding_is_deterministic_and_round_trips(src):
    prog = compile_source(src, "app.syn")
    data = encode(prog)
    assert encode(compile_source(src, "app.syn")) == data
    assert encode(decode(data)) == data


def _cli(args, cwd):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("SYN_LLM") or k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"))}
    return subprocess.run(syn_command() + args, cwd=cwd, capture_output=True, text=True,
                          timeout=60, env=env, stdin=subprocess.DEVNULL)


def _first(text):
    return text.splitlines()[0] if text.strip() else ""


@pytest.mark.slow          # a long property run: make test-fast skips it
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_run_equals_compile_then_exec_through_the_cli(src):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "app.syn"), "w", encoding="utf-8") as fh:
            fh.write(src)
        run = _cli(["run", "--max-steps", "200000", "app.syn"], d)
        comp = _cli(["compile", "app.syn"], d)
        assert comp.returncode == 0, comp.stderr
        ex = _cli(["exec", "--max-steps", "200000", "app.synb"], d)
    assert "Traceback" not in run.stderr + ex.stderr
    assert (run.stdout, run.returncode, _first(run.stderr)) == \
        (ex.stdout, ex.returncode, _first(ex.stderr)), src
    # and the in-process VM agrees with the command
    out, code, first = run_from_source(src)
    assert (out, code, first) == (run.stdout, run.returncode, _first(run.stderr)), src


FIXED = [
    PRELUDE + "let v0 be 3\nprint(helper(v0))\nprint(risky(v0))\n",
    PRELUDE + "let xs be [1, 2]\ntry\n    print(xs[5])\nrecover e\n    print(e)\nprint(xs[5])\n",
    PRELUDE + "let i be 0\nwhile true\n    set i to i + 1\n",
]


def test_fixed_programs_through_the_cli(tmp_path):
    for n, src in enumerate(FIXED):
        d = tmp_path / str(n)
        d.mkdir()
        (d / "app.syn").write_text(src, encoding="utf-8")
        run = _cli(["run", "--max-steps", "5000", "app.syn"], d)
        assert _cli(["compile", "app.syn"], d).returncode == 0
        ex = _cli(["exec", "--max-steps", "5000", "app.synb"], d)
        assert (run.stdout, run.returncode, run.stderr) == (ex.stdout, ex.returncode, ex.stderr)
        assert run.returncode == [1, 1, 4][n]
