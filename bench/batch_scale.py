"""`syn batch` at dataset scale (issue 32): wall time and peak resident memory of a batch of
N items of a trivial task, each a new `syn batch` process (docs/batch.md, "Memory").

    .venv/bin/python bench/batch_scale.py 2000 20000 200000 [--engine ray] [--jobs 2]

Two peaks of resident memory: "all" is the largest of the batch process and the
processes it waited for (getrusage(RUSAGE_CHILDREN) of a wrapper that runs nothing else:
the pool's workers, or with `--engine ray` Ray's own servers and workers), "batch
process" the parent alone (its VmHWM in /proc, read while it runs)."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

PROGRAM = 'task t(n: number, pad: text)\n    give {"n": n, "len": len(pad)}\n'
SYN = os.path.join(os.path.dirname(sys.executable), "syn")


def write_inputs(path, n):
    pad = "x" * 200
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"n": i, "pad": pad}) + "\n")


# Runs in a fresh interpreter: the batch as a child, its wall time, the peak of the batch
# process and the workers it waited for (rusage), and the batch process's own peak (VmHWM,
# read from /proc while it runs: the last reading before it ends).
WRAPPER = """
import resource, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, text=True)
own = 0
while p.poll() is None:
    try:
        with open(f"/proc/{p.pid}/status") as fh:
            own = max([own] + [int(x.split()[1]) for x in fh if x.startswith("VmHWM")])
    except (OSError, ValueError):
        pass
    time.sleep(0.1)
err = p.stderr.read()
wall = time.monotonic() - t0
print(p.returncode, wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, own)
sys.stderr.write(err)
"""


def run(n, engine, jobs, folder):
    inputs = os.path.join(folder, f"in{n}.jsonl")
    if not os.path.exists(inputs):
        write_inputs(inputs, n)
    out = os.path.join(folder, f"out{n}-{engine}.jsonl")
    if os.path.exists(out):
        os.unlink(out)
    argv = [SYN, "batch", os.path.join(folder, "t.syn"), "--call", "t", inputs, "-o", out,
            "--jobs", str(jobs), "--engine", engine]
    r = subprocess.run([sys.executable, "-c", WRAPPER] + argv, capture_output=True,
                       text=True)
    code, wall, peak, own = r.stdout.split()
    assert code == "0", r.stderr
    with open(out, "rb") as fh:
        assert sum(1 for _ in fh) == n
    os.unlink(out)
    return float(wall), int(peak) / 1024, int(own) / 1024, r.stderr.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", type=int, nargs="+")
    ap.add_argument("--engine", default="local")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "t.syn"), "w") as fh:
            fh.write(PROGRAM)
        print(f"| items | wall | items/s | peak RSS, all | peak RSS, batch process | "
              f"({a.engine}, --jobs {a.jobs})")
        print("|---|---|---|---|---|")
        for n in a.sizes:
            wall, peak, own, summary = run(n, a.engine, a.jobs, folder)
            print(f"| {n:,} | {wall:.1f} s | {n / wall:,.0f} | {peak:.0f} MB | {own:.0f} MB "
                  f"|  {summary}", flush=True)


if __name__ == "__main__":
    main()
