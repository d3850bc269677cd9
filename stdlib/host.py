"""The standard library as a VM's host (vm.machine.Host): every builtin's implementation,
the call of a host function, and the model providers' error."""

from synsema.stdlib.hostcall import call_positional
from synsema.stdlib.registry import load_all
from synsema.vm.machine import Host


def _model_errors():
    from synsema.stdlib.llm.errors import ProviderError     # only with a model: off start-up
    return ProviderError


STANDARD = Host(load_all(), call_positional, _model_errors)
