"""What stderr, `syn test` and `--trace` say about a run under --labels must not depend on
labelled data beyond the bit of whether (and with which exit) it stopped: the lines of
calls that ran under a labelled condition, how many of them there were, and the events
--trace would report from inside such a branch. Each case runs one program with two
secrets and compares what a reader of the output sees."""

import json
import textwrap

# A recursion that, letter by letter, takes the branch of the secret's next letter: its
# call stack's line numbers would spell the secret.
SPELL = "task spell(t, i)\n    when i == len(t)\n        fail(\"end\")\n    let c be t[i]\n" + \
    "".join(f"    when c == \"{ch}\"\n        give spell(t, i + 1)\n" for ch in "abcdefgh") + \
    "    give spell(t, i + 1)\n"


def two_runs(syn, write, source, secrets, *args, name="app.syn"):
    """The (exit code, stdout, stderr) of `syn ARGS... FILE` for each secret, written into
    the source in place of SECRET."""
    out = []
    for s in secrets:
        path = write(name, textwrap.dedent(source).replace("SECRET", s))
        r = syn(*args, path)
        assert "Traceback" not in r.stderr
        out.append((r.returncode, r.stdout, r.stderr))
    return out


def test_an_uncaught_error_does_not_spell_a_secret_in_its_call_stack(syn, write):
    a, b = two_runs(syn, write, SPELL + 'spell(private("SECRET", "pw"), 0)\n',
                    ["badge", "cafe"], "run", "--labels")
    assert a == b
    code, _, err = a
    assert code == 1
    assert "message withheld: labelled pw" in err
    assert "where, and in how many calls, is withheld" in err
    # the call outside the labelled branches is public, and shown
    assert "app.syn:22)" in err and err.count("\n") == 3


def test_without_labels_the_whole_stack_is_shown(syn, write):
    r = syn("run", write("app.syn", SPELL + 'spell("ab", 0)\n'))
    assert r.returncode == 1
    assert "app.syn:3:" in r.stderr and "error: end" in r.stderr
    assert r.stderr.count("in task spell") == 3


def test_a_violation_under_a_labelled_condition_withholds_where(syn, write):
    src = """\
        task down(n)
            when n > 0
                give down(n - 1)
            print(n)
        down(private(SECRET, "pin"))
        """
    a, b = two_runs(syn, write, src, ["3", "6"], "run", "--labels")
    assert a == b
    code, _, err = a
    assert code == 3
    assert err.startswith("label_violation: print would reveal data labelled pin\n")
    assert "app.syn:5)" in err


def test_a_violation_under_a_public_pc_keeps_its_position(syn, write):
    r = syn("run", "--labels", write("app.syn", 'let s be private(1, "pin")\nprint(s)\n'))
    assert r.returncode == 3
    assert "print would reveal data labelled pin (" in r.stderr and "app.syn:2)" in r.stderr


def test_syn_test_reports_the_same_for_either_secret(syn, write):
    src = SPELL + 'test "spelled"\n    spell(private("SECRET", "pw"), 0)\n'
    runs = two_runs(syn, write, src, ["badge", "cafe"], "test", "--labels", "--json")
    assert runs[0] == runs[1]
    report = json.loads(runs[0][1])
    test = report["files"][0]["tests"][0] if "files" in report else report["tests"][0]
    assert test["line"] == 22      # the test block's own line, not where it failed


def test_trace_shows_nothing_of_calls_under_a_labelled_condition(syn, write):
    src = """\
        task ok(a)
            give 1
        task go(pin: number)
            for each i in range(pin)
                call_tool(ok, {"a": 1})
            when pin > 2
                call_tool(ok, {"a": 2})
            call_tool(ok, {"a": 3})
            give "done"
        """
    runs = []
    for pin in (1, 4):
        r = syn("run", "--labels", "--trace", "--call", "go", "--args", json.dumps({"pin": pin}),
                "--args-label", "pin", write("app.syn", textwrap.dedent(src)))
        runs.append((r.returncode, r.stdout, r.stderr))
    assert runs[0] == runs[1]
    # the loop and the `when` hold no give or break: the last call runs under a public pc
    assert runs[0][2].count("call_tool ok") == 1


def test_trace_shows_public_calls(syn, write):
    src = """\
        task ok(a)
            give a
        print(call_tool(ok, {"a": 7}))
        """
    r = syn("run", "--labels", "--trace", write("app.syn", textwrap.dedent(src)))
    assert r.returncode == 0
    assert "trace:   call_tool ok {\"a\": 7} -> 7" in r.stderr


TOOLS = '''
import synsema

@synsema.tool(name="t.ping")
def ping() -> str:
    """Answers pong."""
    return "pong"
'''


def test_a_call_tool_task_lacking_a_tool_its_caller_lacks_is_told_the_right_fix(syn, write):
    write("tools.py", TOOLS)
    src = """\
        require tool("t.x.*")
        task tl()
            require tool("t.ping")
            give host_tool("t.ping")()
        print(call_tool(tl, {}))
        """
    r = syn("run", "--cap-set", "stdout,tool=t.*", "--tools", "tools:ping",
            write("app.syn", textwrap.dedent(src)))
    assert r.returncode == 1
    assert "the caller of call_tool does not hold it: add `require tool(\"t.ping\")` at " \
           "the top of the program" in r.stderr
    assert "as the first line of task 'tl'" not in r.stderr


def test_a_task_lacking_its_own_require_is_told_to_add_it(syn, write):
    write("tools.py", TOOLS)
    src = """\
        require tool("t.*")
        task tl()
            give host_tool("t.ping")()
        print(call_tool(tl, {}))
        """
    r = syn("run", "--tools", "tools:ping", write("app.syn", textwrap.dedent(src)))
    assert r.returncode == 1
    assert "add `require tool(\"t.ping\")` as the first line of task 'tl'" in r.stderr


def test_a_lambda_run_by_call_tool_is_told_to_become_a_task(syn, write):
    r = syn("run", write("app.syn", 'call_tool((x) => print(x), {"x": 1})\n'))
    assert r.returncode == 1
    assert "a lambda has no `require` of its own, so call_tool gives it nothing: make it a " \
           "task with `require stdout` as its first line" in r.stderr


def test_syn_test_json_reports_a_top_level_failure_like_a_test_failure(syn, write):
    r = syn("test", "--json", write("app.syn", 'print("a")\nlet x be 1 / 0\ntest "t"\n'
                                                "    assert(true)\n"))
    assert r.returncode == 1
    (entry,) = json.loads(r.stdout)["files"][0]["tests"]
    assert (entry["name"], entry["line"], entry["message"]) == ("(top level)", 2,
                                                                "division by zero")
    assert entry["report"].endswith("at top level (" + entry["report"].split(":")[0] + ":2)")
    assert entry["output"] == "a\n"


def test_a_failing_tests_message_of_several_lines_stays_indented(syn, write):
    r = syn("test", write("app.syn", 'test "t"\n    fail("first\\nsecond")\n'))
    assert r.returncode == 1
    assert "FAIL  t\n      first\n      second (line 2)\n" in r.stdout


def test_print_without_stdout_says_so_even_of_labelled_data(syn, write):
    # Whether print may write at all does not depend on what it prints: not withheld.
    r = syn("run", "--labels", "--cap-set", "stdout=c",
            write("app.syn", 'let x be private(1, "c")\nprint(x)\n'))
    assert r.returncode == 1
    assert "print needs stdout; the program runs with []; the host's --cap-set does not " \
           "grant it (its stdout=LABEL items let labelled data through a print that stdout " \
           "allows: give both, `--cap-set stdout,stdout=LABEL`)" in r.stderr


def test_nested_call_tool_names_the_task_that_lacks_the_capability(syn, write):
    src = """\
        require stdout
        task inner()
            require stdout
            print("hi")
        task outer()
            give call_tool(inner, {})
        call_tool(outer, {})
        """
    r = syn("run", write("app.syn", textwrap.dedent(src)))
    assert r.returncode == 1
    assert "the caller of call_tool, task 'outer', does not hold it: add `require stdout` " \
           "as the first line of task 'outer'" in r.stderr


def test_frames_of_runs_nested_by_call_are_withheld_too(syn, write):
    # call() runs the task in a nested run of the VM: its frames under the labelled pc
    # are withheld like the others, and the public call site outside is shown.
    src = """\
        task walk(t, i)
            when i == len(t)
                fail("end")
            when t[i] == "a"
                give call(walk, {"t": t, "i": i + 1})
            give call(walk, {"t": t, "i": i + 1})
        walk(private("SECRET", "pw"), 0)
        """
    a, b = two_runs(syn, write, src, ["aab", "bba"], "run", "--labels")
    assert a == b and a[0] == 1
    assert "where, and in how many calls, is withheld" in a[2] and "app.syn:7)" in a[2]


def test_recursion_through_call_says_why_it_stops_before_max_depth(syn, write):
    r = syn("run", "--max-depth", "100000",
            write("app.syn", 'task f(n)\n    give call(f, {"n": n + 1})\nprint(f(0))\n'))
    assert r.returncode == 4
    assert "calls through builtins (call, call_tool, callbacks), which nest the interpreter " \
           "and stop sooner than --max-depth (100000)" in r.stderr
