"""--labels on against --labels off, on the same decoded programs (bench/twins.py): the
price of information-flow tracking when every value is public. Ratio = on / off; and
labels on against the Python twin (issue 31: at most 6x for fib and the general
programs)."""

import pytest

from conftest import load, measure
from twins import COLL, FIB, GENERAL, LOOP, TEXT

# The list- and map-heavy programs too: precise container labels (SPEC 10) must cost
# little when every value is public.
PROGRAMS = (FIB, LOOP, TEXT, COLL) + tuple(GENERAL)
PAIRS = [(t, labels) for t in PROGRAMS for labels in (False, True)]


@pytest.fixture(scope="module")
def programs():
    return {t.name: load(t.source, t.name.replace(" ", "_") + ".syn") for t in PROGRAMS}


@pytest.mark.parametrize("twin,labels", PAIRS,
                         ids=[f"{t.name.replace(' ', '_')}-labels_{'on' if on else 'off'}"
                              for t, on in PAIRS])
def test_labels(benchmark, report, programs, twin, labels):
    benchmark.group = f"labels: {twin.name} ({twin.describe})"
    side = "on" if labels else "off"
    program = programs[twin.name].with_labels(labels)
    # Labels on runs labels off between its rounds (see conftest.measure).
    paired = programs[twin.name].with_labels(False) if labels else None
    got = measure(benchmark, program, paired=paired)
    assert got == twin.expected()
    report.median(f"labels/{twin.name}/{side}", benchmark)
    report.ratio(f"{twin.name}: --labels on / off", f"labels/{twin.name}/on",
                 f"labels/{twin.name}/off", 1.5, 1.2)


# Issue 31's labels-on target: fib and the general programs (the ones with the 5x target
# labels off) at most 6x their Python twin.
LABELS_TARGET = {t.name: 6.0 for t in (FIB,) + tuple(GENERAL)}


@pytest.mark.parametrize("twin", PROGRAMS, ids=[t.name.replace(" ", "_") for t in PROGRAMS])
def test_labels_python_twin(benchmark, report, twin):
    benchmark.group = f"labels: {twin.name} ({twin.describe})"
    got = twin.show_result(measure(benchmark, twin.python))
    assert got == twin.expected()
    report.median(f"labels/{twin.name}/python", benchmark)
    report.ratio(f"{twin.name}: --labels on / Python", f"labels/{twin.name}/on",
                 f"labels/{twin.name}/python", LABELS_TARGET.get(twin.name))
