"""Shared machinery for the benchmarks in bench/ (run: `make bench`, or
`.venv/bin/python -m pytest bench/ --benchmark-only`).

* `load(source)` compiles Synsema source, encodes it to .synb bytes and decodes them again,
  so a benchmark times only what `syn exec` does after loading: a fresh VM per run, with
  the program's printed output captured (and returned, so each benchmark can check that its
  Synsema program and its Python twin computed the same thing).
* `measure(benchmark, fn)` times fn with a number of rounds chosen from a first, untimed
  call and a time budget, so the whole run stays within a few minutes however fast or slow
  the VM is today.
* `report` (session-scoped) collects medians, ratios and figures; at the end of the
  session they are printed as one table and written to bench/results.json (a partial
  run, with -k or a single file, to bench/results.partial.json instead).

bench/ is not in pyproject's `testpaths`, so the normal `pytest` run never collects it;
no target here is asserted, only that paired programs agree.
"""

import gc
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone

import pytest

from synsema.compiler import compile_source
from synsema.vm.codec import decode, encode
from synsema.runtime.machine import VM, Options

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
RESULTS_PATH = os.path.join(BENCH_DIR, "results.json")
# A run of only some benchmarks (-k, one file) writes here instead, so it never replaces
# the figures of the last full run.
PARTIAL_PATH = os.path.join(BENCH_DIR, "results.partial.json")


# ---- pytest configuration for bench/ only --------------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Shorter pytest-benchmark tables (the plugin reads these in its own, later, configure);
    # leave them alone when given on the command line.
    if getattr(config.option, "benchmark_columns", None) in (None, []) or \
            list(config.option.benchmark_columns) == _DEFAULT_COLUMNS:
        config.option.benchmark_columns = ["min", "median", "max", "rounds"]
    if getattr(config.option, "benchmark_sort", None) == "min":
        config.option.benchmark_sort = "name"


_DEFAULT_COLUMNS = ["min", "max", "mean", "stddev", "median", "iqr", "outliers", "ops",
                    "rounds", "iterations"]


# ---- running Synsema programs ---------------------------------------------------------------

class Loaded:
    """A program as `syn exec` sees it: decoded from .synb bytes. Calling it runs the top
    level in a fresh VM and returns everything it printed (one string)."""

    def __init__(self, source, name="bench.syn", labels=False):
        self.synb = encode(compile_source(source, name))
        self.program = decode(self.synb)
        self.labels = labels

    def with_labels(self, labels):
        other = object.__new__(Loaded)
        other.synb, other.program, other.labels = self.synb, decode(self.synb), labels
        return other

    def __call__(self):
        out = []
        VM(self.program, Options(labels=self.labels, out=out.append)).run_main()
        return "".join(out)


def load(source, name="bench.syn", labels=False):
    return Loaded(source, name, labels)


def measure(benchmark, fn, budget=2.0, min_rounds=3, max_rounds=100, paired=None):
    """Time fn with benchmark.pedantic; returns fn's result. A first call (not timed, and
    it doubles as warm-up) sizes the number of rounds to roughly `budget` seconds, at
    least min_rounds; a call slower than twice the budget on its own (a VM gone quadratic)
    gets a single timed round, so the session still ends in reasonable time.

    `paired`, if given, is the other side of a comparison (the Python twin, labels off, N
    instead of 2N): it runs once before every timed round, timed apart, and the median of
    those times go to benchmark.extra_info["paired_times_s"]. Each timed round then has a
    partner measured a moment before it, under the same machine load, which matters on a
    small, busy machine (see Report.ratio)."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    if first >= 2 * budget:
        rounds = 1
    else:
        rounds = int(budget / max(first, 1e-6))
        rounds = max(min_rounds, min(max_rounds, rounds))
    paired_times = []

    # Every timed call, and its partner, starts from a collected heap: otherwise the
    # partner pays for the garbage of the round before it (a cycle collection during a
    # Python twin that builds thousands of dicts made Synsema's records look 25% faster).
    def setup():
        if paired is not None:
            gc.collect()
            t = time.perf_counter()
            paired()
            paired_times.append(time.perf_counter() - t)
        gc.collect()
    result = benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=0, setup=setup)
    if paired_times:
        benchmark.extra_info["paired_times_s"] = paired_times
    return result


def median_of(benchmark):
    """The median in seconds of a finished benchmark, or None when timing is disabled."""
    stats = getattr(benchmark, "stats", None)
    if stats is None:
        return None
    return float(stats.stats.median)


# ---- the report ----------------------------------------------------------------------------

class Report:
    """Medians, ratios and other figures of this session, shown at its end."""

    def __init__(self):
        self.medians = {}       # key -> seconds
        self.mins = {}          # key -> seconds (shown beside the ratio of medians)
        self.interleaved = {}   # key -> median over rounds of (round time / its partner's)
        self.ratios = {}        # name -> (numerator key, denominator key, target, stretch)
        self.figures = {}       # name -> dict(value, unit, target, ok)
        self.order = []         # names, in the order first declared

    def _name(self, name):
        if name not in self.order:
            self.order.append(name)

    def median(self, key, benchmark):
        """Record the median of a finished benchmark under key; return it (or None)."""
        m = median_of(benchmark)
        if m is not None:
            self.medians[key] = m
            self.mins[key] = float(benchmark.stats.stats.min)
            paired = benchmark.extra_info.get("paired_times_s")
            data = getattr(benchmark.stats.stats, "data", None)
            if paired and data and len(paired) == len(data):
                self.interleaved[key] = statistics.median(
                    t / p for t, p in zip(data, paired) if p > 0)
        return m

    def ratio(self, name, numerator, denominator, target=None, stretch=None):
        """Declare a ratio numerator / denominator (lower is better; target and stretch are
        upper bounds), computed at the end when both ran. When the numerator's benchmark
        ran the denominator between its rounds (measure(paired=...)), the figure is the
        median of the per-round ratios: both halves of each ratio saw the same load. The
        plain ratio of the two benchmarks' medians and that of their minimums are shown
        beside it as cross-checks; without pairing, the ratio of medians is the figure."""
        self._name(name)
        self.ratios[name] = (numerator, denominator, target, stretch)

    def figure(self, name, value, unit, target=None, higher_is_better=False, note=""):
        """Record a figure that is not a ratio of two medians (lines/s, MB, ...)."""
        self._name(name)
        ok = None
        if target is not None and value is not None:
            ok = value >= target if higher_is_better else value <= target
        self.figures[name] = {"value": value, "unit": unit, "target": target,
                              "higher_is_better": higher_is_better, "ok": ok, "note": note}

    def rows(self):
        rows = []
        for name in self.order:
            if name in self.figures:
                f = self.figures[name]
                sign = ">=" if f["higher_is_better"] else "<="
                rows.append({"name": name, "value": f["value"], "unit": f["unit"],
                             "target": None if f["target"] is None
                             else f"{sign} {_fmt(f['target'])}",
                             "ok": f["ok"], "note": f["note"]})
                continue
            num, den, target, stretch = self.ratios[name]
            a, b = self.medians.get(num), self.medians.get(den)
            goal = None
            if target is not None:
                goal = f"<= {_fmt(target)}x" + (f" (stretch {_fmt(stretch)}x)" if stretch else "")
            if a is None or b is None or b == 0:
                missing = ", ".join(k for k, v in ((num, a), (den, b)) if v is None)
                rows.append({"name": name, "value": None, "unit": "x", "target": goal,
                             "ok": None, "note": f"not measured (failed or deselected): {missing}"})
                continue
            value = self.interleaved.get(num, a / b)
            ok = None if target is None else value <= target
            cross = {"medians": a / b}
            note = f"{_secs(a)} / {_secs(b)}"
            if num in self.interleaved:
                note = f"interleaved rounds; medians {_secs(a)} / {_secs(b)} = {a / b:.2f}x"
            if self.mins.get(den):
                cross["minimums"] = self.mins[num] / self.mins[den]
                note += f"; minimums {cross['minimums']:.2f}x"
            if stretch is not None and value <= stretch:
                note += "; stretch met"
            rows.append({"name": name, "value": value, "unit": "x", "target": goal, "ok": ok,
                         "note": note, "numerator_s": a, "denominator_s": b,
                         "cross_checks": cross})
        return rows


def _fmt(x):
    if isinstance(x, float):
        if x >= 1000:
            return f"{x:,.0f}"
        return f"{x:.2f}" if x < 100 else f"{x:.1f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def _secs(s):
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


REPORT = Report()


@pytest.fixture(scope="session")
def report():
    return REPORT


_selection = {"files": set(), "deselected": 0}


def pytest_deselected(items):
    _selection["deselected"] += len(items)


def pytest_collection_finish(session):
    _selection["files"] = {os.path.basename(str(item.path)) for item in session.items
                           if os.path.dirname(str(item.path)) == BENCH_DIR}


def _full_run():
    everything = {f for f in os.listdir(BENCH_DIR)
                  if f.startswith("test_bench_") and f.endswith(".py")}
    return _selection["deselected"] == 0 and _selection["files"] == everything


@pytest.hookimpl(trylast=True)     # after pytest-benchmark's own tables
def pytest_terminal_summary(terminalreporter, config):
    rows = REPORT.rows()
    if not rows:
        return
    tr = terminalreporter
    tr.section("Synsema benchmark summary (medians; ratios are Synsema / Python unless named)")
    w = max(len(r["name"]) for r in rows)
    tr.write_line(f"{'benchmark':<{w}}  {'figure':>14}  {'target':<24}  {'met':<4}  detail")
    for r in rows:
        value = "n/a" if r["value"] is None else f"{_fmt(r['value'])} {r['unit']}"
        met = {True: "yes", False: "NO", None: "-"}[r["ok"]]
        tr.write_line(f"{r['name']:<{w}}  {value:>14}  {r['target'] or '-':<24}  {met:<4}  "
                      f"{r['note']}")
    data = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_at_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "args": list(config.invocation_params.args),
        "medians_s": REPORT.medians,
        "minimums_s": REPORT.mins,
        "interleaved_ratios": REPORT.interleaved,
        "rows": rows,
    }
    path = RESULTS_PATH if _full_run() else PARTIAL_PATH
    data["complete"] = path == RESULTS_PATH
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")
    tr.write_line(f"written to {os.path.relpath(path)}")
