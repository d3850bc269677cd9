"""The embedding API leaves the host as it found it (SPEC 16): Python's recursion limit is
the host's again after a compile or a run, and host tools run on the thread that called
Program.call, so what the host tied to that thread (a sqlite connection, a contextvar, a
threading.local) works in its tools."""

import contextvars
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import synsema


def test_the_recursion_limit_is_the_hosts_after_compile_and_call():
    before = sys.getrecursionlimit()
    prog = synsema.compile_source("task f(n)\n    give n + 1\n", "a.syn")
    assert sys.getrecursionlimit() == before
    assert prog.call("f", {"n": 1}).value == 2
    assert sys.getrecursionlimit() == before


def test_a_hosts_own_runaway_recursion_still_raises_after_a_call():
    # Left raised, the limit let the host's main thread overflow its C stack: a crash
    # where Python raises RecursionError.
    code = textwrap.dedent("""
        import synsema
        synsema.compile_source("task f(n)\\n    give n\\n", "a.syn").call("f", {"n": 1})
        def r(n):
            return r(n + 1)
        try:
            r(0)
        except RecursionError:
            print("caught")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout == "caught\n", r.stderr


def test_the_limit_stays_raised_while_another_run_is_under_way():
    from synsema.vm import pystack
    with pystack.deep_recursion():
        with pystack.deep_recursion():
            pass
        assert sys.getrecursionlimit() >= pystack.LIMIT     # the outer one still runs
    assert sys.getrecursionlimit() < pystack.LIMIT


REQUEST = contextvars.ContextVar("request", default=None)


def test_host_tools_run_on_the_thread_that_called():
    db = sqlite3.connect(":memory:")        # usable only on this thread
    db.execute("create table people(name text)")
    db.execute("insert into people values ('Ana')")
    local = threading.local()
    local.user = "u-7"
    REQUEST.set("req-1")

    @synsema.tool(name="db.name")
    def name() -> str:
        """The first name."""
        return " ".join([db.execute("select name from people").fetchone()[0], REQUEST.get(),
                         getattr(local, "user", "-"), threading.current_thread().name])

    prog = synsema.compile_source('require tool("db.*")\ntask go()\n'
                                  '    give [host_tool("db.name")(), host_tool("db.name")()]\n',
                                  "a.syn")
    here = threading.current_thread().name
    assert prog.call("go", tools=[name]).value == [f"Ana req-1 u-7 {here}"] * 2
    # With a time limit the tools run in the VM's thread, so the caller can give up on one
    # that blocks (docs/embedding.md): there the connection made here cannot be used.
    with pytest.raises(synsema.RunError, match="SQLite objects created in a thread"):
        prog.call("go", tools=[name], timeout=5)


def test_a_tool_error_and_a_program_error_after_it_come_back_as_before():
    @synsema.tool(name="t.boom")
    def boom() -> int:
        """Fails."""
        raise KeyError("nope")

    prog = synsema.compile_source(
        'require tool("t.*")\ntask go()\n    try\n        host_tool("t.boom")()\n'
        '    recover e\n        give e\n', "a.syn")
    assert prog.call("go", tools=[boom]).value == "host tool 't.boom' failed: KeyError: 'nope'"
    with pytest.raises(synsema.RunError, match="t.boom' failed"):
        synsema.compile_source('require tool("t.*")\nhost_tool("t.boom")()\n',
                               "b.syn").run(tools=[boom])


def test_a_run_given_up_on_gets_no_more_tool_calls_served():
    # When the host stops waiting (Ctrl-C, a time limit past one long operation), a call
    # the run had posted fails, and a later one is refused, instead of waiting forever.
    from synsema.runtime.threads import HostThread as _HostThread
    from synsema.vm.errors import LimitExceeded
    host = _HostThread()
    got = {}

    def vm_side():
        try:
            host.post(lambda: 1, {})
        except LimitExceeded as e:
            got["first"] = str(e)

    t = threading.Thread(target=vm_side)
    t.start()
    while host.queue.empty():
        time.sleep(0.01)
    host.close()
    t.join(5)
    assert "given up on" in got["first"]
    with pytest.raises(LimitExceeded):
        host.post(lambda: 1, {})


def test_an_error_keeps_the_record_of_the_tool_calls_made_before_it():
    @synsema.tool(name="bank.pay")
    def pay(iban: str) -> str:
        """Pay."""
        return "ok"

    prog = synsema.compile_source(
        'require tool("bank.*")\nlet s be private("DE00", "untrusted")\n'
        'host_tool("bank.pay")("DE11")\nwhen s == "x"\n    print(1)\n'
        'try\n    host_tool("bank.pay")(s)\nrecover e\n    print(1)\n', "a.syn")
    with pytest.raises(synsema.Error) as e:
        prog.run(tools=[pay], labels=True, cap_set="stdout,tool=bank.*")
    assert [(n, o) for n, _, o in e.value.tool_calls] == [("bank.pay", "ok"),
                                                           ("bank.pay", "refused")]
    assert e.value.tokens == 0


def test_a_run_interrupted_by_ctrl_c_acts_no_more():
    import _thread
    calls = []

    @synsema.tool(name="t.note")
    def note() -> int:
        """Records a call."""
        calls.append(1)
        return 1

    prog = synsema.compile_source('require tool("t.*")\nlet n be 0\nwhile true\n'
                                  '    set n to n + 1\n    when n % 1000 == 0\n'
                                  '        host_tool("t.note")()\n', "a.syn")
    # interrupt_main calls the Python handler of SIGINT: the default one raises
    # KeyboardInterrupt, but one installed earlier in this process (ray.init's, a test
    # worker's) may not, and the endless run would never end: Ctrl-C as a user's shell
    # delivers it, for this test.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            prog.run(tools=[note])
    finally:
        signal.signal(signal.SIGINT, old)
    seen = len(calls)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(t.name == "synsema" and t.is_alive()
                                              for t in threading.enumerate()):
        time.sleep(0.05)
    assert not any(t.name == "synsema" and t.is_alive() for t in threading.enumerate())
    assert len(calls) == seen
