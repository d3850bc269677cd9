"""Labels off against the previous release of the VM: the first VM this project shipped
(commit PREVIOUS, written before labels existed), running the same programs in the same
session. Shows that labels cost the labels-off path nothing (it has no label code at
all) and what the optimisations since bought.

The previous VM is taken from this checkout's git history (`git archive`) into a scratch
folder and run in a subprocess under its own copy of the `synsema` package; the benchmark
fails, saying what is missing, when git or that commit is not available (a shallow clone)."""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import pytest

PREVIOUS = "3f8393f"     # "Synsema: PLY front end, bytecode, .synb codec, VM loop, ..."
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIB = """
task fib(n)
    when n < 2
        give n
    give fib(n - 1) + fib(n - 2)
print(fib(22))
"""

LOOP = """
task run(n)
    let i be 0
    let total be 0
    while i < n
        when i % 3 == 0
            set total to total + i
        otherwise
            set total to total - 1
        set i to i + 1
    give total
print(run(100000))
"""

# Runs in a subprocess under one version of the package: compile, then time the run of a
# fresh VM (labels off), best of ROUNDS. Prints seconds.
TIMER = r"""
import io, sys, time
from synsema.compiler import compile_source
from synsema.runtime.machine import VM, Options
prog = compile_source(sys.stdin.read(), "bench.syn")
best = None
for _ in range(int(sys.argv[1])):
    out = io.StringIO()
    vm = VM(prog, Options(out=out.write))
    t = time.perf_counter()
    vm.run_main()
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
print(best)
"""


@pytest.fixture(scope="module")
def previous_root():
    if shutil.which("git") is None:
        pytest.fail("git is not installed: this benchmark takes the previous VM from the "
                    "checkout's history", pytrace=False)
    tmp = tempfile.mkdtemp(prefix="synsema-previous-")
    archive = os.path.join(tmp, "prev.tar")
    done = subprocess.run(["git", "-C", ROOT, "archive", "-o", archive, PREVIOUS],
                          capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.fail(f"commit {PREVIOUS} is not in this checkout's history (a shallow clone? "
                    f"`git fetch --unshallow`): {done.stderr}", pytrace=False)
    pkg = os.path.join(tmp, "pkg", "synsema")
    os.makedirs(pkg)
    with tarfile.open(archive) as tar:
        tar.extractall(pkg)
    yield os.path.join(tmp, "pkg")
    shutil.rmtree(tmp, ignore_errors=True)


def _time(source, pythonpath, rounds=5):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, "-c", TIMER, str(rounds)], input=source,
                          capture_output=True, text=True, env=env, cwd=pythonpath or ROOT)
    assert done.returncode == 0, done.stderr
    return float(done.stdout.strip())


@pytest.mark.parametrize("name,source", [("fib", FIB), ("while loop in a task", LOOP)])
def test_labels_off_against_the_previous_vm(benchmark, report, previous_root, name, source):
    benchmark.group = "labels off: this VM against the previous one"
    now = benchmark.pedantic(_time, args=(source, None), rounds=1, iterations=1)
    before = _time(source, previous_root)
    report.figure(f"{name}: previous VM / this VM (labels off)", before / now, "x",
                  note=f"best of 5: {before * 1000:.1f} ms before (commit {PREVIOUS}), "
                       f"{now * 1000:.1f} ms now; higher is better")
