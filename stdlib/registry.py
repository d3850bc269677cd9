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

BUILTINS = {}

# The builtins a plan (SPEC 17: a program a model wrote) does not have at all: output, the
# model's own steps, planning again, labels, the network, host tools by name. The compiler
# reports their use; the runtime refuses a compiled plan that still names one.
PLAN_REMOVED = frozenset({"print", "llm_step", "plan", "run_plan", "private", "declassify",
                          "http_get", "http_post", "host_tool", "host_tools"})


class Builtin:
    """A builtin and the facts the compiler and the VM need about it (declared with it):
    never_raises  it never raises a catchable error, so under --labels its arguments'
                  labels never taint an enclosing try (SPEC 10)
    owns_errors   its errors never depend on its labelled data argument, so they do not
                  carry that argument's labels (private's and declassify's are about the
                  label or the reason)
    gives_copy    "list" / "map": it gives a changed copy of its first argument (a call
                  whose result is thrown away does nothing: the compiler says so)
    labelled      under --labels, makes its precise-label wrapper from fn (vm.precise:
                  the result's label from the container's shape and the element used),
                  instead of the generic join of every argument's labels
    """
    __slots__ = ("name", "fn", "min_args", "max_args", "kind", "doc", "never_raises",
                 "owns_errors", "gives_copy", "labelled")

    def __init__(self, name, fn, min_args, max_args, kind, doc, never_raises=False,
                 owns_errors=False, gives_copy=None, labelled=None):
        self.name = name
        self.fn = fn
        self.min_args = min_args
        self.max_args = max_args
        self.kind = kind
        self.doc = doc
        self.never_raises = never_raises
        self.owns_errors = owns_errors
        self.gives_copy = gives_copy
        self.labelled = labelled

    def arity_text(self):
        if self.min_args == self.max_args:
            n = self.min_args
            return f"{n} argument" + ("" if n == 1 else "s")
        return f"{self.min_args} to {self.max_args} arguments"


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


def load_all():
    """Import every module that registers builtins; returns the registry."""
    from synsema.stdlib import core, hostcall, plans, vmbuiltins  # noqa: F401  (registration side effects)
    return BUILTINS
