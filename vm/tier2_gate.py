"""Whether a run is worth tier 2 (vm/tier2.py), decided without importing it.

vm/tier2.py builds on `ast` (about 8 ms to import, as much as the rest of `syn exec`'s
own start-up): a straight-line script, which tier 2 would not translate anyway, never
imports it. The VM's run function (VM._run) with SYN_TIER unset or `auto` or `2` is
make_runner's: on the first run it picks the loop, or tier 2's runner (imported then).
Nor does it import the instruction bodies (vm/tier2_defs.py): which opcodes loop or call
is generated with them (tools/gen_tier2.py) into the opcode table, vm/optable.py.
"""

from synsema.vm.optable import TIER2_GATE


def worth_translating(vm):
    """Does the program loop or call tasks from tasks (so that its run is likely to outlast
    its translation)? A straight-line script (a few builtin and tool calls) stays in the
    loop: it would pay the translation and gain nothing."""
    loops, calls = TIER2_GATE[bool(vm.labels)]
    for f, code in vm.decoded.items():
        for op, _ in code:
            if op in loops or (op in calls and f.kind != "main"):
                return True
    return False


def make_runner(vm, run1, always=False):
    """VM._run: the first run decides (always: SYN_TIER=2) between the loop (run1) and
    vm.tier2.make_runner's run, which then is the VM's run function."""
    state = {}

    def run(vm_, closure, args):
        r = state.get("r")
        if r is None:
            if always or worth_translating(vm):
                from synsema.vm.tier2 import make_runner as tier2_runner
                r = tier2_runner(vm, run1, always=True)     # decided here
            else:
                r = run1
            state["r"] = r
        if vm._run is run:
            vm._run = r
        return r(vm_, closure, args)
    return run
