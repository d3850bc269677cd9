"""Each Synsema program (run from decoded .synb in a fresh VM) against its Python twin
(bench/twins.py): same algorithm, same sizes, same printed result. The summary reports
ratio = Synsema median / Python median."""

import pytest

from conftest import load, measure
from twins import ALL


@pytest.fixture(scope="module")
def loaded():
    cache = {}

    def get(twin):
        if twin.name not in cache:
            cache[twin.name] = load(twin.source, twin.name.replace(" ", "_") + ".syn")
        return cache[twin.name]
    return get


# Pairs run next to each other: Synsema, then its twin.
PAIRS = [(t, side) for t in ALL for side in ("synsema", "python")]


@pytest.mark.parametrize("twin,side", PAIRS, ids=[f"{t.name.replace(' ', '_')}-{s}"
                                                  for t, s in PAIRS])
def test_vm(benchmark, report, loaded, twin, side):
    benchmark.group = f"vm: {twin.name} ({twin.describe})"
    expected = twin.expected()
    if side == "synsema":
        got = measure(benchmark, loaded(twin), paired=twin.python)
    else:
        got = twin.show_result(measure(benchmark, twin.python))
    assert got == expected, f"{side} printed {got[:200]!r}, expected {expected[:200]!r}"
    report.median(f"vm/{twin.name}/{side}", benchmark)
    report.ratio(f"{twin.name}: Synsema / Python", f"vm/{twin.name}/synsema",
                 f"vm/{twin.name}/python", twin.target, twin.stretch)
