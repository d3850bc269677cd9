"""Precise container labels (SPEC 10, "containers are precise"), under --labels only.

A list or map keeps a label for its *shape* (how many elements, which keys, in what order)
and each element keeps its own: `Labeled.t` = (shape, children), see vm.values.Labeled.
`Labeled.l` stays the join of everything, so any operation that is not written here
treats the container as a whole -- less precise, never less sound. The operations here
are the ones that move elements without looking at them: building, reading one element,
setting, appending, putting, joining two lists with `+`, iterating, counting, asking
whether a map has a key, and passing a map's entries as arguments.
"""

from synsema.vm.ops import list_index as ops_list_index
from synsema.vm.values import EMPTY, Labeled, norm_key, plain


def labels_of(x):
    return x.l if type(x) is Labeled else EMPTY


def _child(x):
    """The entry of value x in its container's children: None when unlabelled."""
    if type(x) is Labeled:
        return (x.l, x.t)
    return None


def _make(bare, shape, children, labels):
    """The plain container `bare` with that shape label and children (None: none
    labelled)."""
    if children is None or not any(children.values() if type(children) is dict
                                   else children):
        return Labeled(bare, shape) if shape else bare
    return Labeled(bare, labels | shape, (shape, children))


def build_list(items, pc):
    """[a, b, ...]: each element keeps its label; the shape carries the pc."""
    children = None
    labels = EMPTY
    for i, x in enumerate(items):
        if type(x) is Labeled:
            if children is None:
                children = [None] * len(items)
            children[i] = (x.l, x.t)
            items[i] = x.v
            labels = labels | x.l
    return _make(items, pc, children, labels)


def build_map(raw, m, shape):
    """{k: v, ...} from the stack items `raw` (keys and values, maybe labelled) and the
    plain map `m` built from them; `shape`: the pc and the keys' labels."""
    children = None
    labels = EMPTY
    for i in range(0, len(raw), 2):
        k, v = raw[i], raw[i + 1]
        if type(k) is Labeled:
            k = k.v
        if type(v) is Labeled:
            if children is None:
                children = {}
            children[norm_key(k)] = (v.l, v.t)
            labels = labels | v.l
        elif children is not None:
            children.pop(norm_key(k), None)    # a later duplicate key replaced it
    return _make(m, shape, children, labels)


def element(x, r, where, extra):
    """The element `r` read from the precise container x at `where` (a list index in
    range, or a normalised map key): its own label, the shape's and `extra` (the index's
    or key's)."""
    shape, children = x.t
    c = children[where] if type(children) is list else children.get(where)
    labels = shape | extra
    if c is None:
        return Labeled(r, labels) if labels else r
    return Labeled(r, c[0] | labels, _outer(c[1], labels))


def _outer(tree, labels):
    """An element's own precise labels, read out of its container: the container's shape
    (and the index's) join the element's shape too, or a nested list read at a secret
    index would tell its length publicly."""
    if tree is None or not labels:
        return tree
    return (tree[0] | labels, tree[1])


def join(v, labels):
    """v joined with `labels` (a pc, say): a precise container takes them on its shape."""
    if not labels:
        return v
    if type(v) is Labeled:
        if labels <= v.l and (v.t is None or labels <= v.t[0]):
            return v
        if v.t is not None:
            return Labeled(v.v, v.l | labels, (v.t[0] | labels, v.t[1]))
        return Labeled(v.v, v.l | labels)
    return Labeled(v, labels)


def _parts(x):
    """(plain, shape, children as a fresh copy or None, labels of the children)."""
    if type(x) is not Labeled:
        return x, EMPTY, None, EMPTY
    if x.t is None:
        return x.v, x.l, None, EMPTY
    shape, children = x.t
    return x.v, shape, (dict(children) if type(children) is dict else list(children)), \
        x.l


def set_element(x, r, where, v, extra):
    """x with the element at `where` replaced by v: r is the plain result (built by the
    operation, which checked the index or key); `extra` (the pc, the index's labels)
    joins the shape."""
    _, shape, children, labels = _parts(x)
    c = _child(v)
    if children is None:
        if c is None:
            return Labeled(r, shape | extra) if shape | extra else r
        children = [None] * len(r) if type(r) is list else {}
    if type(children) is list:
        children[where] = c
    elif c is None:
        children.pop(where, None)
    else:
        children[where] = c
    return _make(r, shape | extra, children, labels | (c[0] if c else EMPTY))


def appended(x, r, v, extra):
    """append(xs, v): r, the plain result, is xs's elements and v."""
    _, shape, children, labels = _parts(x)
    c = _child(v)
    if children is None:
        if c is None:
            return Labeled(r, shape | extra) if shape | extra else r
        children = [None] * (len(r) - 1)
    children.append(c)
    return _make(r, shape | extra, children, labels | (c[0] if c else EMPTY))


def concat(a, b, r):
    """xs + ys (r, the plain result): each element keeps its label; the shape joins both
    shapes (where ys's elements land depends on how long xs is)."""
    _, sa, ca, la = _parts(a)
    _, sb, cb, lb = _parts(b)
    shape = sa | sb
    if ca is None and cb is None:
        return Labeled(r, shape) if shape else r
    kids = (ca if ca is not None else [None] * len(plain(a))) + \
        (cb if cb is not None else [None] * len(plain(b)))
    return _make(r, shape, kids, la | lb)


def iterate(x, it):
    """The items of a precise list, each with its own label and the shape's."""
    shape, children = x.t
    for i, r in enumerate(it):
        c = children[i] if i < len(children) else None
        if c is None:
            yield Labeled(r, shape) if shape else r
        else:
            yield Labeled(r, c[0] | shape, _outer(c[1], shape))


def entry(args, key):
    """The argument a map gives for parameter `key` (call, call_tool): its own labels and
    the map's shape; `args` is the (maybe labelled) map, `key` present in it."""
    if type(args) is not Labeled:
        return args[key]
    if args.t is None:
        return Labeled(args.v[key], args.l)
    return element(args, args.v[key], key, EMPTY)


def shape_of(x):
    """The labels of a value's shape: a precise container's, else all of them."""
    if type(x) is not Labeled:
        return EMPTY
    return x.t[0] if x.t is not None else x.l


# ---- builtins that move elements without looking at them ---------------------------------
# Under --labels the VM calls these instead of the generic wrapper (vm.machine); `fn` is
# the builtin's plain function. An error carries, and inside a try taints, only what
# decides whether it is raised: the container's shape and the key.

def _call(vm, fn, labels, *args):
    if labels and vm.try_entries:
        vm.taint_try(labels)
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - whatever it is, it carries the labels
        err = vm.as_error(e)
        if err.catchable:
            err.labels = err.labels | labels | vm.pc
        raise err from None


def labels_by_shape(fn):
    """len(x), keys(m), type_of(x): what they give depends on the shape alone (a map's
    keys' labels are in its shape; what kind of container it is was fixed when it was
    made, under the pc its shape carries), never on the elements."""
    def call(vm, x):
        shape = shape_of(x)
        r = _call(vm, fn, shape, plain(x))
        labels = shape | vm.pc
        return Labeled(r, labels) if labels else r
    return call


def labels_of_kind(fn):
    """type_of(x): labelled as labels_by_shape says, but it never raises a catchable error
    (SPEC 10 lists it), so inside a try its argument does not raise the pc."""
    def call(vm, x):
        labels = shape_of(x) | vm.pc
        r = fn(plain(x))
        return Labeled(r, labels) if labels else r
    return call


def labels_contains(fn):
    """contains(m, k) of a map: whether the key is there depends on the shape (which keys)
    and the key alone, never on the elements. Of a list or a text it looks at them: the
    whole."""
    def call(vm, x, k):
        xv, kv = plain(x), plain(k)
        labels = (shape_of(x) if type(xv) is dict else labels_of(x)) | labels_of(k)
        r = _call(vm, fn, labels, xv, kv)
        labels = labels | vm.pc
        return Labeled(r, labels) if labels else r
    return call


def labels_get(fn):
    def call(vm, m, k, default=None):
        kl = labels_of(k)
        mv, kv = plain(m), plain(k)
        shape = shape_of(m) | kl
        r = _call(vm, fn, shape, mv, kv, plain(default))
        if type(mv) is not dict:        # a list's or a text's item: the whole, as before
            labels = labels_of(m) | kl | labels_of(default) | vm.pc
            return Labeled(r, labels) if labels else r
        if key_present(mv, kv):
            if type(m) is Labeled and m.t is not None:
                return element(m, r, norm_key(kv), kl | vm.pc)
            labels = shape | vm.pc
            return Labeled(r, labels) if labels else r
        return join(default, shape | vm.pc)       # which one came back tells the shape
    return call


def key_present(m, k):
    return norm_key(k) in m     # (get refused a key that cannot be one before this)


def set_at(vm, fn, x, k, v):
    """x with the element at k replaced by v, by the plain operation `fn` (`set x[k] to v`:
    ops.set_item; the builtin put): the element takes v's label, the shape the key's and
    the pc; the new value never decides whether setting raises."""
    kl = labels_of(k)
    xv, kv = plain(x), plain(k)
    r = _call(vm, fn, shape_of(x) | kl, xv, kv, plain(v))
    where = ops_list_index(xv, kv) if type(xv) is list else norm_key(kv)
    return set_element(x, r, where, v, kl | vm.pc)


def append_to(vm, fn, xs, v):
    """xs with v appended, by the plain operation `fn` (ops.append; the builtin append):
    each element keeps its label; whether it raises depends on the shape alone."""
    r = _call(vm, fn, shape_of(xs), plain(xs), plain(v))
    return appended(xs, r, v, vm.pc)


def labels_put(fn):
    return lambda vm, m, k, v: set_at(vm, fn, m, k, v)


def labels_append(fn):
    return lambda vm, xs, v: append_to(vm, fn, xs, v)


def labels_rearranged(fn):
    """slice, reverse, remove: a list of x's own elements, moved without looking at them
    (a map without one key, for remove): each keeps its label, and the shape joins the
    labels of the bounds, index or key and the pc. A text is looked at: labelled whole."""
    def call(vm, x, *rest):
        extra = EMPTY
        for a in rest:
            extra = extra | labels_of(a)
        xv, rv = plain(x), [plain(a) for a in rest]
        r = _call(vm, fn, shape_of(x) | extra, xv, *rv)
        if type(x) is not Labeled or x.t is None or type(xv) is str:
            labels = labels_of(x) | extra | vm.pc
            return Labeled(r, labels) if labels else r
        shape, children = x.t
        if type(children) is list:
            kids = fn(list(children), *rv)       # the same moves, on the elements' labels
        else:
            kids = {k: c for k, c in children.items() if k in r}
        return _make(r, shape | extra | vm.pc, kids, _kid_labels(kids))
    return call


def labels_sorted(fn):
    """sort(xs): the order tells the elements' comparisons, so every element of the result
    carries the join of all of them (SPEC 10); the result's length is the list's, so its
    shape keeps the list's own shape label (and the pc). Whether it raises (elements of
    different kinds) depends on the elements: that taints a try and the error."""
    def call(vm, x):
        every = labels_of(x)
        r = _call(vm, fn, every, plain(x))
        if type(r) is not list or not r:
            labels = (every if type(r) is not list else shape_of(x)) | vm.pc
            return Labeled(r, labels) if labels else r
        elements = every | vm.pc
        return _make(r, shape_of(x) | vm.pc, [(elements, None)] * len(r), elements)
    return call


def labels_values(fn):
    """values(m): the map's elements in its order, each with its own label; the list's
    shape is the map's (which keys there are, in what order)."""
    def call(vm, m):
        mv = plain(m)
        r = _call(vm, fn, shape_of(m), mv)
        if type(m) is not Labeled or m.t is None:
            labels = labels_of(m) | vm.pc
            return Labeled(r, labels) if labels else r
        shape, children = m.t
        kids = [children.get(k) for k in mv]
        return _make(r, shape | vm.pc, kids, _kid_labels(kids))
    return call


def _kid_labels(kids):
    labels = EMPTY
    for c in (kids.values() if type(kids) is dict else kids):
        if c is not None:
            labels = labels | c[0]
    return labels
