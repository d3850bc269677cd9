"""The one way the tests run a Synsema program: on the public API (`import synsema`).

    from harness import run, output, run_cli

    o = run("print(1 + 2)\n")                  # -> Outcome(code=0, out="3\n", err="", ...)
    o = run(src, labels=True, cap_set="stdout") # the keywords of Program.run / Program.call
    o = run(src, task="main", args={"x": 1})    # the top level, then task main(x: 1)
    o = run(src, tier=1)                        # SYN_TIER forced for this run (1 or 2)
    text = output(src)                          # what it printed; fails the test on an error
    o = failure(src)                            # the Outcome; fails the test on a success
    r = result(src, cap_set="stdout")           # the synsema.Result; a failure is raised
    o = run_cli("run", "app.syn", input="...")  # the real `syn` command, in a subprocess

An Outcome holds what `syn` would show: `code` (its exit code, 0 on success), `out` (what the
program printed, also when it failed half-way), `err` (the error message as `syn` prints
it, "" on success), `value` (a task's result, as Python), `labels` (the labels of the
result, or of the error), `error` (the synsema.Error, or None); `message` is the error's
bare message, as `recover` binds it. `run` stops a runaway program after 10 s (timeout=).
The public API has no keyword for the VM's tier: tier= sets SYN_TIER around the run.
"""

import contextlib
import os
import subprocess
import textwrap
from dataclasses import dataclass, field

import synsema

from conftest import syn_command, syn_env


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str = ""
    value: object = None
    labels: frozenset = frozenset()
    error: BaseException = field(default=None, repr=False, compare=False)
    result: object = field(default=None, repr=False, compare=False)   # the synsema.Result

    @property
    def ok(self):
        return self.code == 0

    @property
    def lines(self):
        return self.out.splitlines()

    @property
    def message(self):
        """The error's own message, as `recover` would bind it: no file, position, caret
        or stack (a compile error: its first one); "" on success."""
        e = self.error
        if e is None:
            return ""
        if getattr(e, "host_message", None) is not None:
            return e.host_message
        if isinstance(e, synsema.CompileError) and e.errors:
            return e.errors[0].message
        return self.err


@contextlib.contextmanager
def forced_tier(tier):
    """SYN_TIER set to `tier` (1 or 2) while the block runs; None leaves it as it is. The
    VM reads it when it starts (vm.machine._tier); the public API has no keyword for it."""
    if tier is None:
        yield
        return
    if str(tier) not in ("1", "2"):
        raise ValueError(f"tier must be 1 or 2, got {tier!r}")
    before = os.environ.get("SYN_TIER")
    os.environ["SYN_TIER"] = str(tier)
    try:
        yield
    finally:
        if before is None:
            del os.environ["SYN_TIER"]
        else:
            os.environ["SYN_TIER"] = before


def run(source, *, labels=False, cap_set=None, tools=None, provider=None, task=None,
        args=None, tier=None, max_steps=None, timeout=10, name="t.syn", dedent=True,
        **settings):
    """Compile `source` and run it (its top level; then `task` with `args`, a dict, when
    given) through synsema.compile_source and Program.run / Program.call. Never raises a
    synsema.Error: a failure, compiling or running, is an Outcome with its exit code.
    Further keywords (max_depth, audit, trace, args_labels, ...) go to run / call."""
    if dedent:
        source = textwrap.dedent(source)
    keywords = dict(labels=labels, cap_set=cap_set, tools=tools, provider=provider,
                    max_steps=max_steps, timeout=timeout, **settings)
    with forced_tier(tier):
        try:
            prog = synsema.compile_source(source, name)
            if task is None:
                if args is not None:
                    raise TypeError("run(args=...) needs task=")
                result = prog.run(**keywords)
            else:
                result = prog.call(task, args, **keywords)
        except synsema.Error as e:
            return Outcome(e.exit_code, getattr(e, "output", "") or "", e.message,
                           labels=frozenset(getattr(e, "labels", ()) or ()), error=e)
    return Outcome(0, result.output, "", result.value, result.labels, result=result)


def result(source, *, task=None, args=None, tier=None, name="t.syn", dedent=True, **settings):
    """The synsema.Result of `source` run as `run` runs it, for a test about the API's own
    behaviour: a failure is raised (the synsema.Error), and nothing is limited but what
    `settings` (the keywords of Program.run / Program.call) limit."""
    if dedent:
        source = textwrap.dedent(source)
    with forced_tier(tier):
        prog = synsema.compile_source(source, name)
        if task is None:
            if args is not None:
                raise TypeError("result(args=...) needs task=")
            return prog.run(**settings)
        return prog.call(task, args, **settings)


def output(source, **kw):
    """What `source` prints; the test fails, showing the error, when it does not succeed."""
    o = run(source, **kw)
    if o.code != 0:
        raise AssertionError(f"the program failed (exit {o.code}): {o.err}\n"
                             f"it printed: {o.out!r}") from o.error
    return o.out


def failure(source, **kw):
    """The Outcome of `source`, which must fail: the test fails when it succeeds."""
    o = run(source, **kw)
    if o.code == 0:
        raise AssertionError(f"the program succeeded; it printed {o.out!r}")
    return o


def run_cli(*args, input=None, cwd=None, env=None, timeout=60):
    """The real `syn` command (this interpreter's) run with `args`, `input` on its stdin:
    an Outcome of its exit code, stdout and stderr (`err` as printed, trailing newline
    dropped). The model settings of the environment are left out."""
    p = subprocess.run(syn_command() + [str(a) for a in args], capture_output=True,
                       text=True, cwd=cwd, env=syn_env(env), timeout=timeout, input=input,
                       stdin=None if input is not None else subprocess.DEVNULL)
    return Outcome(p.returncode, p.stdout, p.stderr.rstrip("\n"))
