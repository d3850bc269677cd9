"""Runtime value representation.

Synsema value -> Python object:
  number  -> int or float (never bool)      text    -> str
  bool    -> bool                           nothing -> None
  list    -> list (never mutated once another name can see it: value semantics)
  map     -> dict whose keys are normalised by `norm_key` (bool keys become BoolKey
             singletons, since Python would merge `true` with `1`)
  task    -> Closure (a task or lambda) or HostFn (a host tool)

Under --labels a value may be wrapped once, at the top, in `Labeled(value, labels)`.
Containers never hold Labeled items: a list or map carries one label for the whole
(SPEC section 10 labels an element read with its container's label anyway), so the
builtins always see plain values.
"""

EMPTY = frozenset()


class _Unset:
    """Marks a global whose `let` has not run yet, or a parameter not passed."""
    __slots__ = ()

    def __repr__(self):
        return "UNSET"


UNSET = _Unset()


class BoolKey:
    """A map key standing for `true` or `false`, distinct from the numbers 1 and 0."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return "true" if self.value else "false"


TRUE_KEY = BoolKey(True)
FALSE_KEY = BoolKey(False)


def norm_key(k):
    """The dict key for the Synsema map key `k` (text, number or bool)."""
    if k is True:
        return TRUE_KEY
    if k is False:
        return FALSE_KEY
    return k


def denorm_key(k):
    """The Synsema value of a stored dict key."""
    if type(k) is BoolKey:
        return k.value
    return k


class Labeled:
    """A value with a non-empty set of information-flow labels (only under --labels).

    `l` is every label anywhere in the value, so whatever looks at the value as a whole
    (a sink, `labels_of`, `==`, `text`, most builtins) reads `l` and is sound. A list or
    map may also carry `t`, its labels precisely (SPEC 10, "containers are precise"):
    (shape, children), where `shape` labels how many elements, which keys, in what order,
    and `children` holds, parallel to the list (a list) or to the map's keys (a dict), for
    each element None (unlabelled) or (that element's l, that element's t). The value `v`
    itself is always plain. Every label in `t` is in `l`.
    """
    __slots__ = ("v", "l", "t")

    def __init__(self, v, l, t=None):
        self.v = v
        self.l = l
        self.t = t

    def __repr__(self):
        return f"Labeled({self.v!r}, {sorted(self.l)})"


def plain(v):
    """The value without its labels."""
    return v.v if type(v) is Labeled else v


class Closure:
    """A task or lambda value: the function's code plus the values it captured."""
    __slots__ = ("func", "captures", "code", "pads")

    def __init__(self, func, captures=(), code=None, pads=None):
        self.func = func            # vm.program.Function (decoded at load time)
        self.captures = captures    # tuple of plain values, in capture-slot order
        # The decoded code and frame pads of the run that made it (None: made outside a
        # run, the loops look them up): a call reads them here, not in two dictionaries.
        self.code = code
        self.pads = pads

    def __str__(self):
        f = self.func
        if f.kind == "lambda":
            return f"<lambda at line {f.line}>"
        return f"<task {f.name}>"

    __repr__ = __str__

    def __eq__(self, other):
        return (type(other) is Closure and other.func is self.func
                and other.captures == self.captures)

    def __hash__(self):
        return id(self.func)


class HostFn:
    """A host tool as a task value (SPEC 15.2): `tool` is its declaration
    (stdlib.hosttools.HostTool); calling it goes through stdlib.hostcall."""
    __slots__ = ("tool",)

    def __init__(self, tool):
        self.tool = tool

    def __str__(self):
        return f"<host tool {self.tool.name}>"

    __repr__ = __str__

    def __eq__(self, other):
        return type(other) is HostFn and other.tool is self.tool

    def __hash__(self):
        return id(self.tool)


def type_name(v):
    """The Synsema type name of a plain value (SPEC section 4)."""
    t = type(v)
    if t is str:
        return "text"
    if t is bool:
        return "bool"
    if t is int or t is float:
        return "number"
    if v is None:
        return "nothing"
    if t is list:
        return "list"
    if t is dict:
        return "map"
    if t is Closure or t is HostFn:
        return "task"
    if t is Labeled:
        return type_name(v.v)
    return t.__name__
