"""Labelled values as the builtins take them apart and put them together, and the one type
check of an argument given by name (tasks and host tools alike)."""

from synsema.vm.errors import SynError
from synsema.vm.values import EMPTY, Labeled, type_name


def split(v):
    """(plain value, labels) of a possibly labelled value."""
    if type(v) is Labeled:
        return v.v, v.l
    return v, EMPTY


def label(vm, v, labels):
    """v labelled with `labels` and the pc (only under --labels)."""
    if not vm.labels:
        return v
    labels = labels | vm.pc
    if not labels:
        return v
    if type(v) is Labeled:
        return Labeled(v.v, v.l | labels)
    return Labeled(v, labels)


def check_argument(name, declared, v, nothing_ok):
    """SPEC 5: an argument given by name must have its parameter's declared type, with no
    conversion; explicit `nothing` only where the parameter accepts it (`nothing_ok`).
    The one check for tasks and host tools, whatever calls them."""
    if declared is None or declared == "any":
        return
    if v is None:
        if not nothing_ok:
            raise SynError(f"'{name}' must be {declared}, got nothing")
    elif type_name(v) != declared:      # a task value: a Closure or a host tool
        raise SynError(f"'{name}' must be {declared}, got {type_name(v)}")
