"""The VM as the runtime makes it: vm.machine.VM with the standard library as its host."""

from synsema.stdlib.host import STANDARD
from synsema.vm import machine
from synsema.vm.machine import InternalError, Options  # noqa: F401  (re-exported)


class VM(machine.VM):
    """A VM whose builtins and host calls are the standard library's."""

    def __init__(self, program, options=None, host=STANDARD):
        super().__init__(program, options, host)
