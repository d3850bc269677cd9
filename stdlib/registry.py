"""The builtin registry: every builtin's name, arity and implementation, in one place.

Two kinds:
  * "pure": fn(*plain_values) -> plain value. Never sees Labeled wrappers; under
    --labels the VM unwraps the arguments, calls fn, and labels the result with the
    join of the arguments' labels and the pc (SPEC section 10 propagation).
  * "vm": fn(vm, *values) -> value. Gets the running VM (capabilities, labels, the
    ability to call tasks) and the raw argument values (Labeled under --labels).
    Every builtin that touches the world is of this kind, and checks its capability
    itself, at the moment of use.

A builtin raises synsema.vm.errors.SynError(message) for a bad argument; the message
names the builtin: "len needs a text, list or map, got number".
"""

from synsema.vm.signatures import PLAN_REMOVED, Signature  # noqa: F401  (PLAN_REMOVED: re-exported)


class Registry(dict):
    """name -> Builtin. A module whose builtins few programs call need not be imported
    until one is: `later` maps such a builtin's name to its module, which registers it
    when imported on the first lookup (`registry[name]`, as the VM's loader asks).
    `name in registry` and iteration see only what is registered: load_all() in
    stdlib.host registers everything first."""

    def __init__(self):
        super().__init__()
        self.later = {}

    def __missing__(self, name):
        module = self.later.get(name)
        if module is None:
            raise KeyError(name)
        __import__(module)                  # registers it (the import lock: once)
        return dict.__getitem__(self, name)


BUILTINS = Registry()


class Builtin(Signature):
    """A builtin: its signature (vm.signatures: the facts the compiler and the VM need,
    declared here with it and generated into that table) and its implementation.
    labelled      under --labels, makes its precise-label wrapper from fn (vm.precise:
                  the result's label from the container's shape and the element used),
                  instead of the generic join of every argument's labels
    """
    __slots__ = ("fn", "doc", "labelled")

    def __init__(self, name, fn, min_args, max_args, kind, doc, never_raises=False,
                 owns_errors=False, gives_copy=None, labelled=None):
        super().__init__(name, min_args, max_args, kind, never_raises, owns_errors,
                         gives_copy)
        self.fn = fn
        self.doc = doc
        self.labelled = labelled


def builtin(name, min_args, max_args=None, kind="pure", **facts):
    """Register fn as the builtin `name` taking min_args..max_args arguments; `facts` are
    Builtin's never_raises, owns_errors, gives_copy and labelled."""
    if max_args is None:
        max_args = min_args

    def register(fn):
        if name in BUILTINS:
            raise RuntimeError(f"builtin {name!r} registered twice")
        BUILTINS[name] = Builtin(name, fn, min_args, max_args, kind,
                                 (fn.__doc__ or "").strip().split("\n")[0], **facts)
        return fn
    return register
