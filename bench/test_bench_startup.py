"""Start-up: wall time of `syn exec one.synb` (a one-line program) against `python3 -c
pass`, each a fresh process, median of ROUNDS runs. Ratio = syn / python3."""

import os
import subprocess
import sys

import pytest

from synsema.compiler import compile_source
from synsema.vm.codec import encode

ROUNDS = 20
SYN = os.path.join(os.path.dirname(sys.executable), "syn")
# The interpreter `syn` itself runs on (the virtualenv's python3), not whatever `python3` is
# first on PATH: on this machine that is a pyenv shim, a shell script that takes longer to
# start than Python does, which would flatter syn.
PYTHON3 = sys.executable


@pytest.fixture(scope="module")
def one_synb(tmp_path_factory):
    path = tmp_path_factory.mktemp("startup") / "one.synb"
    path.write_bytes(encode(compile_source('print("hi")\n', "one.syn")))
    return str(path)


# As an installed program runs: with its bytecode cached. (Some sandboxes export
# PYTHONDONTWRITEBYTECODE=1, which makes every start compile every module from source:
# not what a user of `syn` sees, and not what `python3 -c pass` pays, as it imports
# almost nothing.) The warm-up rounds write the cache.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False,
                          env=ENV)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout


SIDES = ["syn_exec", "python3_c_pass"]


@pytest.mark.parametrize("side", SIDES)
def test_startup(benchmark, report, one_synb, side):
    benchmark.group = "start-up: one-line program"
    if side == "syn_exec":
        argv = [SYN, "exec", one_synb]
        expected = b"hi\n"
    else:
        argv = [PYTHON3, "-c", "pass"]
        expected = b""
    got = benchmark.pedantic(run, args=(argv,), rounds=ROUNDS, iterations=1, warmup_rounds=2)
    assert got == expected
    report.median(f"startup/{side}", benchmark)
    report.ratio("start-up: syn exec / python3 -c pass", "startup/syn_exec",
                 "startup/python3_c_pass", 3)
