"""The standard library as a VM's host (vm.machine.Host): every builtin's implementation,
the call of a host function, and the model providers' error."""

from synsema.stdlib import core, hostcall, vmbuiltins  # noqa: F401  (they register the builtins)
from synsema.stdlib.hostcall import call_positional
from synsema.stdlib.registry import BUILTINS
from synsema.vm.machine import Host

# stdlib.plans (the planner and run_plan, with the compiler behind them) registers its
# builtins when a program first calls one: few programs do, and importing it was a
# hundredth of `syn exec`'s start-up (issue 31). tests/test_plans.py checks these names
# against what it registers.
PLANS = "synsema.stdlib.plans"
BUILTINS.later.update({"plan": PLANS, "run_plan": PLANS})

# The order of load_all(): the order the modules declare them in (core, vmbuiltins,
# hostcall, plans), whichever imports which first. vm.signatures lists them so, and "did you
# mean" gives a tie to the one listed first. (append's implementation is vm.ops.append,
# declared in core.)
_RANK = {"core": 0, "ops": 0, "vmbuiltins": 1, "hostcall": 2, "plans": 3}


def load_all():
    """Every builtin, registered, in _RANK's order: name -> stdlib.registry.Builtin (a copy
    of the registry: sorted here, once nothing is left to register, not at import, where a
    thread importing stdlib.plans meanwhile could register in the middle of the sort)."""
    for module in set(BUILTINS.later.values()):
        __import__(module)
    ranked = sorted(BUILTINS.values(), key=lambda b: _RANK[b.fn.__module__.rsplit(".", 1)[1]])
    return {b.name: b for b in ranked}


def _model_errors():
    from synsema.stdlib.llm.errors import ProviderError     # only with a model: off start-up
    return ProviderError


STANDARD = Host(BUILTINS, call_positional, _model_errors)
