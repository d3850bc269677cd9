"""Host tools and embedding.

* One host tool call through `call_tool` (the strict argument check against the tool's
  signature, the capability, the label contract, the result converted back), labels off
  and on, against calling the same Python function directly with the same arguments:
  CALLS calls in a `while` loop on both sides. Ratio = Synsema / Python; the per-call
  figure is the Synsema side's median divided by CALLS (loop included).
* `Program.call` of a small task (a fresh VM per call, in this process) against `syn
  exec FILE.synb --call` of it (a new process, as a host without the API would do).
  Ratio = syn exec / Program.call: what embedding saves per call (`syn exec` a fresh
  process each round, with Python's bytecode cache, as an installed `syn` runs).
"""

import os
import subprocess
import sys

import pytest

import synsema
from conftest import measure
from synsema.compiler import compile_source
from synsema.stdlib.hosttools import collect
from synsema.vm.codec import decode, encode
from synsema.vm.machine import VM, Options

CALLS = 5_000
ARGS = {"recipient": "DE89370400440532013000", "amount": 12, "subject": "rent"}

bank = synsema.Toolbox("bank")


@bank.tool(accepts={"amount": ["untrusted"], "subject": ["untrusted"]})
def send_money(recipient: str, amount: float, subject: str) -> dict:
    """Send money to an IBAN."""
    return {"recipient": recipient, "amount": amount, "status": "sent"}


# The amount is labelled under --labels (the contract then has a label to check); without
# labels private() gives the number itself. Only the count is printed, so neither side's
# output depends on labels.
HOST_CALLS = f"""
require tool("bank.send_money")
let send be host_tool("bank.send_money")
let args be {{"recipient": "{ARGS['recipient']}", "amount": private({ARGS['amount']}, "untrusted"), "subject": "rent"}}
let n be 0
while n < {CALLS}
    let r be call_tool(send, args)
    set n to n + 1
print(n)
"""


def python_calls():
    args = dict(ARGS)
    n = 0
    while n < CALLS:
        send_money(**args)
        n += 1
    return f"{n}\n"


class HostProgram:
    def __init__(self, labels):
        self.program = decode(encode(compile_source(HOST_CALLS, "host_calls.syn")))
        self.labels = labels
        self.tools = collect(bank)

    def __call__(self):
        out = []
        VM(self.program, Options(labels=self.labels, out=out.append, tools=self.tools)).run_main()
        return "".join(out)


HOST_SIDES = ["call_tool-labels_off", "call_tool-labels_on", "python_direct"]


@pytest.mark.parametrize("side", HOST_SIDES)
def test_host_tool_call(benchmark, report, side):
    benchmark.group = f"host tool: {CALLS:,} calls of bank.send_money"
    if side == "python_direct":
        got = measure(benchmark, python_calls)
    else:
        got = measure(benchmark, HostProgram(side.endswith("on")), paired=python_calls)
    assert got == f"{CALLS}\n"
    median = report.median(f"host/{side}", benchmark)
    for labels in ("off", "on"):
        report.ratio(f"host tool call via call_tool, labels {labels} / direct Python call",
                     f"host/call_tool-labels_{labels}", "host/python_direct")
    if side != "python_direct" and median is not None:
        report.figure(f"host tool call via call_tool, labels {side[-3:].strip('_')}: per call",
                      median / CALLS * 1e6, "us", note="loop included")


# ---- Program.call against syn exec --call ---------------------------------------------------

TASK = """task add(a: number, b: number)
    give a + b
"""
SYN = os.path.join(os.path.dirname(sys.executable), "syn")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@pytest.fixture(scope="module")
def add_synb(tmp_path_factory):
    path = tmp_path_factory.mktemp("embed") / "add.synb"
    path.write_bytes(encode(compile_source(TASK, "add.syn")))
    return str(path)


def syn_exec(path):
    done = subprocess.run([SYN, "exec", path, "--call", "add", "--args", '{"a": 2, "b": 3}'],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


@pytest.mark.parametrize("side", ["program_call", "syn_exec_call"])
def test_embedding(benchmark, report, add_synb, side):
    benchmark.group = "embedding: call task add(2, 3)"
    program = synsema.load(add_synb)

    def program_call():
        return program.call("add", {"a": 2, "b": 3}).value

    if side == "program_call":
        assert measure(benchmark, program_call) == 5
    else:
        # Program.call runs once before each round (see conftest.measure).
        got = measure(benchmark, lambda: syn_exec(add_synb), min_rounds=20, paired=program_call)
        assert got == "5\n"
    report.median(f"embed/{side}", benchmark)
    report.ratio("syn exec --call / Program.call (what embedding saves)",
                 "embed/syn_exec_call", "embed/program_call")


# ---- Program.call again, of a larger program ----------------------------------------------
# Each call runs in a fresh VM; what the VM decodes from the program (its functions'
# instruction lists, the superinstructions) is the same every time, so a second call
# should not pay for it again.

BIG_TASKS = 40


@pytest.fixture(scope="module")
def big_program(tmp_path_factory):
    from test_bench_compile import TASK
    source = "".join(TASK.format(k=k) for k in range(BIG_TASKS)) + TASK_ADD
    path = tmp_path_factory.mktemp("embed") / "big.synb"
    path.write_bytes(encode(compile_source(source, "big.syn")))
    return synsema.load(str(path))


TASK_ADD = "task add(a: number, b: number)\n    give a + b\n"


@pytest.mark.parametrize("labels", [False, True], ids=["labels_off", "labels_on"])
def test_program_call_again(benchmark, report, big_program, labels):
    benchmark.group = (f"embedding: Program.call again, of a program of {BIG_TASKS} tasks "
                       f"({BIG_TASKS * 24} lines)")

    def again():
        return big_program.call("add", {"a": 2, "b": 3}, labels=labels).value

    assert again() == 5             # the first call
    assert measure(benchmark, again) == 5
    median = report.median(f"embed/again_{labels}", benchmark)
    if median is not None:
        report.figure(f"Program.call again, {BIG_TASKS}-task program, labels "
                      f"{'on' if labels else 'off'}", median * 1e3, "ms")
