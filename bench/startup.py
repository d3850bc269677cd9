"""Start-up of `syn exec hello.synb` against `python -c pass` in the same environment:
the median wall time of ROUNDS fresh processes each, the two run in turn
(time.perf_counter around each run), with the bytecode cache usable and with
PYTHONDONTWRITEBYTECODE=1 set (an editable install then compiles every module it imports
at every start, unless the .pyc files were written once: `make` runs `python -m
compileall` after installing).

    .venv/bin/python bench/startup.py                  # this venv
    .venv/bin/python bench/startup.py --venv /tmp/v    # another venv (a regular install)
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 20


def median_ms(commands, env, rounds=ROUNDS):
    """The median wall time of each command line, run in turn in every round (so a change
    in the machine's load falls on all of them alike, on a machine shared with others)."""
    times = [[] for _ in commands]
    for i in range(rounds + 2):             # two warm-up rounds, not counted
        for argv, kept in zip(commands, times):
            t = time.perf_counter()
            done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env)
            elapsed = time.perf_counter() - t
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
            if i >= 2:
                kept.append(elapsed)
    return [statistics.median(kept) * 1000 for kept in times]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", default=os.path.dirname(os.path.dirname(sys.executable)))
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    python = os.path.join(args.venv, "bin", "python")
    syn = os.path.join(args.venv, "bin", "syn")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "hello.syn")
        synb = os.path.join(tmp, "hello.synb")
        with open(src, "w") as f:
            f.write('print("hello")\n')
        subprocess.run([syn, "compile", src, "-o", synb], check=True)
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        # PYTHONDONTWRITEBYTECODE first: when the package has no .pyc yet (an editable
        # install never compiled), that row shows what every start then pays.
        where = subprocess.run([python, "-c", "import synsema, os; print(os.path.dirname("
                                "synsema.__file__))"], capture_output=True, text=True,
                               env=base).stdout.strip()
        cached = os.path.isdir(os.path.join(where, "vm", "__pycache__"))
        print(f"{where}: .pyc {'present' if cached else 'absent'} at the start")
        for label, env in (("PYTHONDONTWRITEBYTECODE=1", {**base, "PYTHONDONTWRITEBYTECODE": "1"}),
                           ("bytecode cache used", base)):
            py, ex = median_ms([[python, "-c", "pass"], [syn, "exec", synb]], env,
                               args.rounds)
            print(f"{label:28} python -c pass {py:6.1f} ms   syn exec hello.synb {ex:6.1f} ms"
                  f"   ratio {ex / py:4.2f}")


if __name__ == "__main__":
    main()
