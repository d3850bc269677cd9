"""Defects an outside review found, each tested as a class: a test that cannot fail
(assert_error), text from outside that cannot be printed (lone surrogates), a host tool
ending the host's process (sys.exit), a model answer nested too deeply, label names that
could never be granted."""

import json

import pytest

import synsema
from harness import result

TOOLS = '''
import sys
import synsema

@synsema.tool(name="odd.surrogate")
def surrogate() -> str:
    """A text with a lone surrogate in it."""
    return "a\\ud800b"

@synsema.tool(name="odd.key")
def key() -> dict:
    """A map whose key holds a lone surrogate."""
    return {"ok": ["fine", {"\\udc00": 1}]}

@synsema.tool(name="odd.leave")
def leave() -> str:
    """Ends the process, as a careless tool might."""
    sys.exit(7)

@synsema.tool(name="odd.fails")
def fails() -> str:
    """Always fails."""
    raise ValueError("no")

@synsema.tool(name="odd.needs")
def needs(x: int) -> int:
    """Needs an argument."""
    return x

toolbox = [surrogate, key, leave, fails, needs]
'''


@pytest.fixture
def tools(tmp_path, monkeypatch):
    (tmp_path / "oddtools.py").write_text(TOOLS)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    import oddtools
    importlib.reload(oddtools)
    return oddtools.toolbox


run = result        # the API's Result of the dedented source (tests/harness.py)


def test_a_host_tool_text_with_a_lone_surrogate_is_a_catchable_error(tools):
    r = run('''
        require tool("odd.*")
        for each name in ["odd.surrogate", "odd.key"]
            try
                print(host_tool(name)())
            recover e
                print(e)
        ''', tools=tools)
    assert r.output.splitlines() == [
        "host tool 'odd.surrogate' returned a value Synsema cannot hold (a lone surrogate "
        "\\ud800 in a text)",
        "host tool 'odd.key' returned a value Synsema cannot hold (a lone surrogate \\udc00 "
        "in a map key at [\"ok\"][1])"]


def test_sys_exit_in_a_host_tool_is_the_programs_to_catch(tools):
    r = run('''
        require tool("odd.leave")
        try
            host_tool("odd.leave")()
        recover e
            print(e)
        print("went on")
        ''', tools=tools)
    assert r.output == "host tool 'odd.leave' failed: SystemExit: 7\nwent on\n"


def _tests(syn, write, source):
    write("t.syn", source)
    p = syn("test", "--json", "--tools", "oddtools:toolbox", "t.syn")
    return p, json.loads(p.stdout)["files"][0]["tests"]


@pytest.mark.parametrize("body, needs", [
    ("assert_error((a) => a)", "'a'"),
    ("assert_error(parse)", "'x'"),
    ('assert_error(host_tool("odd.needs"))', "'x'"),
])
def test_assert_error_of_a_task_that_needs_arguments_fails_the_test(tools, syn, write, body,
                                                                     needs):
    # The arity error would otherwise be the error expected: the test could never fail.
    p, (case,) = _tests(syn, write, 'require tool("odd.*")\ntask parse(x)\n'
                        f'    give number(x)\ntest "t"\n    {body}\n')
    assert p.returncode == 1 and not case["ok"]
    assert f"this one needs {needs}; wrap the call in a lambda" in case["message"]


def test_assert_error_takes_a_host_tool(tools, syn, write):
    p, cases = _tests(syn, write, 'require tool("odd.*")\n'
                      'test "host"\n    assert_error(host_tool("odd.fails"), "no")\n'
                      'test "odd"\n    assert_error(host_tool("odd.surrogate"), "surrogate")\n'
                      'test "misses"\n    assert_error(() => 1)\n')
    assert [c["ok"] for c in cases] == [True, True, False]
    assert cases[2]["message"] == "expected an error, but none was raised"


@pytest.mark.parametrize("name", ["a,b", "a b", "x@y", "*", "a=b"])
def test_a_label_that_no_ceiling_could_grant_is_refused(name):
    with pytest.raises(synsema.RunError, match="is not a label name"):
        run(f'print(private(1, "{name}"))\n', labels=True)
    assert run('print(labels_of(private(1, "cust.eu-1_x")))\n', labels=True,
               cap_set="stdout,stdout=cust.eu-1_x").output == '["cust.eu-1_x"]\n'


@pytest.mark.parametrize("through", ['call(f, {"n": n - 1})', 'call_tool(f, {"n": n - 1})',
                                     "f(n - 1)"])
def test_recursion_through_call_counts_against_max_depth(through):
    # A task that recurses only through call() makes no call instruction: each entry from
    # a builtin is checked, and the limit is the one --max-depth sets, at the same depth.
    src = f"task f(n)\n    when n == 0\n        give 0\n    give {through}\nprint(f(N))\n"
    assert run(src.replace("N", "9"), max_depth=10).output == "0\n"
    with pytest.raises(synsema.LimitExceeded, match=r"call depth limit \(10"):
        run(src.replace("N", "10"), max_depth=10)


def test_a_set_after_a_caught_labelled_error_says_so_and_how_to_fix_it():
    src = ('let s be private(0, "cust")\nlet out be []\ntry\n    print(1 / s)\n'
           'recover e\n    set out to append(out, "failed")\nprint(len(out))\n')
    # Developer mode (no ceiling) may see what depends on every label: the whole message.
    with pytest.raises(synsema.LabelViolation) as e:
        run(src, labels=True)
    msg = str(e.value)
    assert "after an error labelled cust was caught" in msg
    assert '`let out be private(..., "cust")`' in msg
    fixed = src.replace('let out be []', 'let out be private([], "cust")')
    assert run(fixed, labels=True, cap_set="stdout,stdout=cust").output == "1\n"


def test_a_set_inside_a_try_block_that_touched_labelled_data_speaks_of_no_error():
    # issue 26: the README's loop under labels stopped with "after an error ... was
    # caught" when nothing had raised: the set was in the block, after a labelled read.
    src = ('let s be private(2, "cust")\nlet out be 0\ntry\n    let x be 1 / s\n'
           '    set out to 1\nrecover e\n    print("no")\nprint(out)\n')
    with pytest.raises(synsema.LabelViolation) as e:
        run(src, labels=True)
    msg = str(e.value)
    assert "was caught" not in msg
    assert "set of 'out' inside a `try` whose block has touched data labelled cust" in msg
    assert '`let out be private(..., "cust")`' in msg


def test_trace_shows_every_host_tool_call(tools, syn, write):
    write("t.syn", 'require tool("odd.*")\ntry\n    host_tool("odd.fails")()\nrecover e\n'
                   '    print("caught")\n')
    p = syn("run", "--trace", "--tools", "oddtools:toolbox", "t.syn")
    assert p.returncode == 0 and p.stdout == "caught\n"
    assert "trace: host tool odd.fails: failed" in p.stderr
    write("u.syn", 'require tool("odd.*")\nlet s be private(true, "cust")\nwhen s\n'
                   '    host_tool("odd.surrogate")\n    try\n        host_tool("odd.fails")()\n'
                   '    recover e\n        let x be 1\n')
    p = syn("run", "--trace", "--labels", "--cap-set", "tool=odd.*", "--tools",
            "oddtools:toolbox", "u.syn")
    # under the labelled branch, not even that a tool was called is shown
    assert "host tool" not in p.stderr and "odd.fails" not in p.stderr, p.stderr
    # ... unless the ceiling lets its label out (`*` covers every label; SPEC 10)
    p = syn("run", "--trace", "--labels", "--cap-set", "*", "--tools", "oddtools:toolbox",
            "u.syn")
    assert "trace: host tool odd.fails: refused" in p.stderr, p.stderr


@pytest.mark.parametrize("src", [
    "let x be 7\nwhile true\n    set x to x * x\n",
    "let x be 7\nlet y be 7\nwhile true\n    set x to x * x\n    set y to x % (x - 1)\n",
])
def test_one_product_of_huge_integers_is_refused_not_waited_for(src):
    # Squaring doubles the digits: the 22nd square would take minutes in one step, which
    # no limit could interrupt. Refused, catchably, at a size, long before.
    import time
    start = time.monotonic()
    with pytest.raises(synsema.RunError, match="number too large: the product"):
        run(src, timeout=60)
    assert time.monotonic() - start < 10


def test_big_integers_below_the_size_still_compute():
    r = run("let x be 3\nfor each i in range(18)\n    set x to x * x\n"
            "print(len(text(x)))\nprint(x % 1000)\nprint(x / x)\n")
    import math
    n = 3 ** (2 ** 18)
    digits = math.floor(2 ** 18 * math.log10(3)) + 1        # str(n) is past Python's limit
    assert r.output.split("\n")[:3] == [str(digits), str(n % 1000), "1"]
    with pytest.raises(synsema.RunError, match="number too large: the division"):
        run("let x be 3\nfor each i in range(21)\n    set x to x * x\nlet y be 3\n"
            "for each i in range(20)\n    set y to y * y\nprint(x % (y + 1))\n")


def test_a_run_stuck_in_one_host_call_past_its_time_limit_is_given_up_on(tmp_path,
                                                                           monkeypatch):
    # A host tool blocking in Python cannot be interrupted between instructions: the
    # limit is raised by the caller's thread a little after the deadline.
    import time
    (tmp_path / "slowtools.py").write_text(
        "import time\nimport synsema\n@synsema.tool\ndef slow() -> int:\n"
        "    \"\"\"Sleeps.\"\"\"\n    time.sleep(30)\n    return 1\ntools = [slow]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import slowtools
    start = time.monotonic()
    with pytest.raises(synsema.LimitExceeded, match=r"time limit \(1 s, --timeout\) reached "
                                                    "in one operation"):
        run('require tool("slow")\nprint(host_tool("slow")())\n', tools=slowtools.tools,
            timeout=1)
    assert time.monotonic() - start < 8


def test_an_integer_too_long_to_read_is_refused_wherever_it_is_read():
    from synsema.vm import codec
    from synsema.vm.digits import MAX_DIGITS
    digits = "7" * (MAX_DIGITS + 1)
    with pytest.raises(synsema.CompileError, match="number too large: an integer of 2,000,001"):
        synsema.compile_source(f"print({digits})\n", "t.syn")
    for src in ('print(number(s))\n', 'print(json_decode(s))\n'):
        with pytest.raises(synsema.RunError, match="at most 2,000,000 are read"):
            run('let s be "7"\nfor each i in range(21)\n    set s to s + s\n' + src)
    # A crafted .synb with such a constant is refused when it is read.
    from synsema.vm.errors import InvalidProgram
    prog = synsema.compile_source("print(1)\n", "t.syn").compiled
    prog.consts.append(10 ** MAX_DIGITS)                # one digit too many
    with pytest.raises(InvalidProgram, match="large integer constant: number too large"):
        codec.decode(codec.encode(prog))


SLOW_TOOLS = ('import time\nimport synsema\nPAID = []\n@synsema.tool\ndef slow() -> int:\n'
              '    """Sleeps."""\n    time.sleep(3.5)\n    return 1\n@synsema.tool\n'
              'def pay(n: int) -> int:\n    """Pays."""\n    PAID.append(n)\n    return n\n'
              'tools = [slow, pay]\n')


def test_a_run_given_up_on_does_nothing_more_when_its_operation_ends(tmp_path, monkeypatch):
    import time
    (tmp_path / "paytools.py").write_text(SLOW_TOOLS)
    monkeypatch.syspath_prepend(str(tmp_path))
    import paytools
    with pytest.raises(synsema.LimitExceeded, match="in one operation"):
        run('require tool("*")\nhost_tool("slow")()\nprint("after")\nhost_tool("pay")(1)\n',
            tools=paytools.tools, timeout=0.5)
    time.sleep(2.5)             # the sleep has ended: the run would go on from here
    assert paytools.PAID == []


def test_syn_test_runs_no_test_after_one_given_up_on(tmp_path, syn, write):
    (tmp_path / "paytools.py").write_text(SLOW_TOOLS)
    write("t.syn", 'require tool("*")\ntest "slow"\n    host_tool("slow")()\n'
                   'test "quick"\n    assert(true)\n')
    p = syn("test", "--json", "--timeout", "0.5", "--tools", "paytools:tools", "t.syn")
    slow, quick = json.loads(p.stdout)["files"][0]["tests"]
    assert not slow["ok"] and "in one operation" in slow["message"]
    assert not quick["ok"] and quick["message"] == \
        "not run: an earlier test was given up on at its time limit"
    assert p.returncode == 1


def test_a_product_by_a_small_number_is_never_refused_either_way_round():
    # y = 2**(2**22 - 2), just below the cap: times 4 it is past it, and quick.
    src = ("let y be 2\nfor each i in range(21)\n    set y to y * y\n"
           "set y to y * (y / 4)\n"
           "print(len(text(y * 4)) == len(text(4 * y)))\nprint((4 * y) % 10)\n")
    assert run(src).output == "true\n6\n"           # 2**(2**22) ends in 6
