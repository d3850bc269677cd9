"""What tier 2's translation costs: `vm.tier2.Translation` of each bench program
(bench/twins.py) labels off and on, in milliseconds of CPU time (time.process_time) per
100 decoded instructions (the programs' total time over their total instructions), the
median of several rounds after one warm-up round.

    .venv/bin/python bench/translation_cost.py                 # this checkout
    .venv/bin/python bench/translation_cost.py --old /tmp/old  # and another, in turn

`--old DIR` times DIR/vm/tier2.py (and DIR/vm/tier2_defs.py, when there is one) beside
this checkout's: in every round each translator translates every program once, one after
the other, so a change in the machine's load falls on both alike. The rest of the VM
(compiler, decoder) is this checkout's for both. It also checks that both generate the
same Python for every program.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

from synsema.compiler import compile_source
from synsema.runtime.machine import VM
from synsema.vm import tier2
from synsema.vm.machine import Options

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from twins import ALL  # noqa: E402


def load_old(root):
    """DIR/vm/tier2.py as a module of its own (its defs too, when DIR has them)."""
    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    old = load("synsema.vm._tier2_old", os.path.join(root, "vm", "tier2.py"))
    defs = os.path.join(root, "vm", "tier2_defs.py")
    if os.path.exists(defs):
        old.D = load("synsema.vm._tier2_defs_old", defs)
    return old


def programs():
    """(name, program, {labels: vm}, {labels: decoded instructions}) of each bench
    program (the labels mode decodes some programs into more instructions)."""
    out = []
    for t in ALL:
        program = compile_source(t.source, f"{t.name}.syn")
        vms = {labels: VM(program, Options(tier=2, labels=labels, out=lambda s: None))
               for labels in (False, True)}
        n = {labels: sum(len(vm.decoded[f]) for f in program.functions)
             for labels, vm in vms.items()}
        out.append((t.name, program, vms, n))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--old", metavar="DIR", help="another checkout's vm/tier2.py, timed beside")
    args = ap.parse_args()
    translators = [("this", tier2)]
    if args.old:
        translators.insert(0, ("old", load_old(args.old)))
    progs = programs()
    total = {labels: sum(n[labels] for *_, n in progs) for labels in (False, True)}
    for _, program, vms, _ in progs:       # the same Python from each
        for labels in (False, True):
            sources = {mod.Translation(program, vms[labels]).source()
                       for _, mod in translators}
            if len(sources) != 1:
                sys.exit(f"{program.source_name}: the translators differ (labels {labels})")
    times = {(name, labels): [] for name, _ in translators for labels in (False, True)}
    for r in range(args.rounds + 1):        # round 0 warms up, not counted
        for name, mod in translators:
            for labels in (False, True):
                spent = 0.0
                for _, program, vms, _ in progs:
                    t = time.process_time()
                    mod.Translation(program, vms[labels])
                    spent += time.process_time() - t
                if r:
                    times[name, labels].append(spent * 1000 / total[labels] * 100)
    print(f"{len(progs)} programs, {total[False]} decoded instructions labels off, "
          f"{total[True]} on; ms per 100 instructions, median of {args.rounds} rounds "
          "(min-max):")
    for labels in (False, True):
        row = []
        for name, _ in translators:
            xs = times[name, labels]
            row.append(f"{name} {statistics.median(xs):6.1f} ({min(xs):.1f}-{max(xs):.1f})")
        if len(translators) == 2:
            ratio = statistics.median(times["old", labels]) / \
                statistics.median(times["this", labels])
            row.append(f"old/this {ratio:.2f}x")
        print(f"  labels {'on ' if labels else 'off'}: " + "   ".join(row))


if __name__ == "__main__":
    main()
