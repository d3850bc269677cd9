"""Memory and growth of a list built one element at a time.

* Peak memory (tracemalloc, in this process) of a Synsema program that builds a
  100,000-element list with `set xs to append(xs, i)` in a `while` loop — the fresh VM
  included — against Python building the same list with `xs.append(i)`.
* Linearity: the time to append N and 2N items in that loop; with value semantics done
  right (no copy per append) doubling N at most doubles the time. Ratio = t(2N) / t(N).
"""

import tracemalloc

import pytest

from conftest import load, measure

SIZE = 100_000
HALF = SIZE // 2


def append_program(n):
    return f"""
let xs be []
let i be 0
while i < {n}
    set xs to append(xs, i)
    set i to i + 1
print(len(xs) + xs[{n} - 1])
"""


def append_py(n):
    xs = []
    i = 0
    while i < n:
        xs.append(i)
        i = i + 1
    return len(xs) + xs[n - 1]


def peak_bytes(fn):
    """(result, peak bytes allocated while fn ran, above what was allocated before)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak - base


@pytest.fixture(scope="module")
def peaks():
    return {}


@pytest.mark.parametrize("side", ["synsema", "python"])
def test_peak_memory(benchmark, report, peaks, side):
    """Timed once, under tracemalloc (so the time is not comparable with the others)."""
    benchmark.group = f"memory: build a {SIZE:,}-element list (under tracemalloc)"
    if side == "synsema":
        program = load(append_program(SIZE), "build_list.syn")
        result, peak = benchmark.pedantic(peak_bytes, args=(program,), rounds=1, iterations=1)
        assert result == f"{SIZE + SIZE - 1}\n"
    else:
        result, peak = benchmark.pedantic(peak_bytes, args=(lambda: append_py(SIZE),),
                                          rounds=1, iterations=1)
        assert result == SIZE + SIZE - 1
    peaks[side] = peak
    report.figure(f"memory: {SIZE // 1000}k-element list, {side} peak", peak / 2 ** 20, "MiB",
                  note="tracemalloc peak, fresh VM included" if side == "synsema" else
                  "tracemalloc peak, xs.append in a while loop")
    if len(peaks) == 2:
        report.figure("memory: Synsema peak / Python peak", peaks["synsema"] / peaks["python"],
                      "x", note="no target; for tracking")


@pytest.mark.parametrize("n", [HALF, SIZE], ids=lambda n: f"{n // 1000}k")
def test_append_linearity(benchmark, report, n):
    benchmark.group = "linearity: `set xs to append(xs, i)` in a while loop, N vs 2N"
    program = load(append_program(n), f"append_{n}.syn")
    # 2N runs N between its rounds (see conftest.measure).
    paired = load(append_program(HALF), "append_half.syn") if n == SIZE else None
    got = measure(benchmark, program, budget=4.0, paired=paired)
    assert got == f"{n + n - 1}\n"
    report.median(f"append/{n}", benchmark)
    report.ratio(f"append {SIZE // 1000}k vs {HALF // 1000}k items: t(2N) / t(N)",
                 f"append/{SIZE}", f"append/{HALF}", 2.0)


@pytest.mark.parametrize("n", [HALF, SIZE], ids=lambda n: f"{n // 1000}k")
def test_append_linearity_python(benchmark, report, n):
    # The same measurement of CPython's own loop, for scale: a larger list touches more
    # memory, so even a perfectly linear loop measures a little above 2 on some machines.
    benchmark.group = "linearity, CPython: `xs.append(i)` in a while loop, N vs 2N"
    got = measure(benchmark, lambda: append_py(n), budget=2.0,
                  paired=(lambda: append_py(HALF)) if n == SIZE else None)
    assert got == n + n - 1
    report.median(f"append_py/{n}", benchmark)
    report.ratio(f"CPython, for scale: append {SIZE // 1000}k vs {HALF // 1000}k: t(2N) / t(N)",
                 f"append_py/{SIZE}", f"append_py/{HALF}")
