"""Synsema among the interpreters that run agent code in Python: the same three small
programs in CPython, Synsema (the loop and tier 2, labels off and on), smolagents'
LocalPythonExecutor and CaMeL's interpreter (google-research/camel-prompt-injection),
each as a ratio to CPython.

The peers are not dependencies of the project: their benchmarks skip unless they are
installed. They were measured from a scratch virtualenv holding the project, smolagents
and CaMeL (bench/README.md, "Peers"):

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install -e . smolagents \\
        pytest pytest-benchmark hypothesis <a checkout of camel-prompt-injection>
    /tmp/peers/bin/python -m pytest bench/test_bench_peers.py --benchmark-only

The programs use only what all of them can express: CaMeL's language has no `def`,
`while` or lambda, so they are `for` loops over a range, arithmetic, text and a map.
"""

import ast
import os
import sys

import pytest

from conftest import load, measure

N = 2_000

PROGRAMS = {
    "arithmetic": (f"""
let total be 0
for each i in range({N})
    when i % 3 == 0
        set total to total + i * i % 7
    otherwise
        set total to total - 1
print(total)
""", f"""
total = 0
for i in range({N}):
    if i % 3 == 0:
        total = total + i * i % 7
    else:
        total = total - 1
result = total
"""),
    "text": (f"""
let s be ""
for each i in range({N})
    set s to s + text(i % 10) + ","
print(len(s))
""", f"""
s = ""
for i in range({N}):
    s = s + str(i % 10) + ","
result = len(s)
"""),
    "word count": (f"""
let words be split("the quick brown fox jumps over the lazy dog", " ")
let counts be {{}}
for each i in range({N})
    let w be words[i % 9]
    set counts[w] to get(counts, w, 0) + 1
print(counts["the"])
""", f"""
words = "the quick brown fox jumps over the lazy dog".split(" ")
counts = {{}}
for i in range({N}):
    w = words[i % 9]
    counts[w] = counts.get(w, 0) + 1
result = counts["the"]
"""),
}


def expected(name):
    ns = {}
    exec(PROGRAMS[name][1], ns)
    return ns["result"]


def _python(name):
    code = compile(PROGRAMS[name][1], "twin.py", "exec")

    def run():
        ns = {}
        exec(code, ns)
        return ns["result"]
    return run


def _synsema(name, tier, labels):
    program = load(PROGRAMS[name][0], name.replace(" ", "_") + ".syn", labels=labels)

    def run():
        old = os.environ.get("SYN_TIER")
        os.environ["SYN_TIER"] = str(tier)
        try:
            return int(program())
        finally:
            if old is None:
                del os.environ["SYN_TIER"]
            else:
                os.environ["SYN_TIER"] = old
    return run


def _smolagents(name):
    executor_mod = pytest.importorskip("smolagents.local_python_executor")
    ex = executor_mod.LocalPythonExecutor(additional_authorized_imports=[])
    ex.send_tools({})
    code = PROGRAMS[name][1]

    def run():
        ex.state.clear() if hasattr(ex, "state") else None
        ex.send_variables({})
        out = ex(code + "\nresult")
        return out.output if hasattr(out, "output") else out[0]
    return run


def _camel(name):
    interp = pytest.importorskip("camel.interpreter.interpreter")
    from camel import security_policy
    from camel.interpreter import namespace as cns
    code = PROGRAMS[name][1]
    tree = ast.parse(code)

    def run():
        ns = cns.Namespace.with_builtins()
        args = interp.EvalArgs(security_policy.NoSecurityPolicyEngine(),
                               interp.MetadataEvalMode.NORMAL)
        res = interp.camel_eval(tree, ns, [], [], args)
        r = res[0]
        if not hasattr(r, "value"):
            raise RuntimeError(f"CaMeL refused the program: {r}")
        return res[1].get("result").raw
    return run


# Labels on in either tier: the labels loop (tier 1) or tier 2's labels variant.
SIDES = ["python", "synsema-tier1", "synsema-tier2", "synsema-tier1-labels",
         "synsema-tier2-labels", "smolagents", "camel"]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_peers(benchmark, report, name, side):
    benchmark.group = f"peers: {name} ({N:,} rounds of a for loop)"
    if side == "python":
        fn = _python(name)
    elif side.startswith("synsema"):
        fn = _synsema(name, 2 if "tier2" in side else 1, side.endswith("labels"))
    elif side == "smolagents":
        fn = _smolagents(name)
    else:
        fn = _camel(name)
    got = measure(benchmark, fn, budget=1.0, paired=None if side == "python" else _python(name))
    assert got == expected(name), f"{side} gave {got!r}"
    report.median(f"peers/{name}/{side}", benchmark)
    if side != "python":
        report.ratio(f"peers: {name}: {side} / Python", f"peers/{name}/{side}",
                     f"peers/{name}/python")


if __name__ == "__main__":      # a quick look without pytest
    sys.exit(pytest.main([__file__, "--benchmark-only", "-q"]))
