"""The syntax tree: one small class per kind of node.

Every node has `kind` (the name in the first column below), `line` and `col`, then its
fields, which are also its constructor's arguments after (line, col), in this order.
Children are nodes, lists of nodes, or plain values. The resolver fills the
annotations (they start as None).

  kind       fields                                   annotations (resolver)
  program    items
  intent     text
  task       name params body name_col                func (index)
  test       name body                                func (index)
  param      name type default(node|None) type_col
  require    cap_name arg
  let        name value name_col                      ref
  set        name path(key nodes) value name_col      ref
  give       value(node|None)
  break, continue
  when       branches[(cond, body)] otherwise         rid release
  while      cond body                                rid release
  foreach    name iterable body name_col              ref rid release
  try        body name recover name_line name_col     ref rid release
  expr       value
  broken     body(statements)   a line that does not parse, and its block (error recovery)
  num, text, bool, nothing: value
  name       name                                     ref
  list       items                  map   pairs[(k, v)]
  binop      op left right          and, or: left right (+ rid)
  not, neg   operand                index: target key   field: target name
  call       callee args span(offsets of the text inside the parens)
  lambda     params[(name, line, col)] body           func captures

ref: ("local", slot) | ("global", g) | ("task", f) | ("builtin", name). rid: a statement's
own release id; release: the release id its pc label uses (0 = until the function
returns; SPEC 10, Sticky pc).

The parser makes one node for every name, number and operator of a program, so nodes
are slotted (no per-node dict: quicker to make, to read and to free) and their
constructors take positional arguments.
"""


class Node:
    """What every node has. `fields` and `annotations` are set per class."""
    __slots__ = ("kind", "line", "col")
    fields = ()
    annotations = ()

    @property
    def f(self):
        """The fields and annotations, as a dict (for tests and debugging)."""
        return {k: getattr(self, k) for k in self.fields + self.annotations}

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.f.items())
        return f"{self.kind}@{self.line}:{self.col}({inner})"


def _node_class(kind, fields="", annotations=""):
    """A Node subclass for `kind` with an __init__(line, col, *fields) written out (as
    collections.namedtuple does), so making a node is one plain call."""
    fields, annotations = tuple(fields.split()), tuple(annotations.split())
    params = "".join(f", {f}" for f in fields)
    body = [f"self.kind = {kind!r}", "self.line = line", "self.col = col"]
    body += [f"self.{f} = {f}" for f in fields]
    body += [f"self.{a} = None" for a in annotations]
    src = f"def __init__(self, line, col{params}):\n" + "".join(f"    {b}\n" for b in body)
    namespace = {}
    exec(src, namespace)
    name = kind.capitalize()
    return type(name, (Node,), {"__slots__": fields + annotations, "fields": fields,
                                "annotations": annotations, "__init__": namespace["__init__"],
                                "__module__": __name__, "__qualname__": name})


Program = _node_class("program", "items")
Intent = _node_class("intent", "text")
Task = _node_class("task", "name params body name_col", "func")
Test = _node_class("test", "name body", "func")
Param = _node_class("param", "name type default type_col")
Require = _node_class("require", "cap_name arg arg2")
Let = _node_class("let", "name value name_col", "ref")
Set = _node_class("set", "name path value name_col", "ref")
Give = _node_class("give", "value")
Break = _node_class("break")
Continue = _node_class("continue")
When = _node_class("when", "branches otherwise", "rid release")
While = _node_class("while", "cond body", "rid release")
Foreach = _node_class("foreach", "name iterable body name_col", "ref rid release")
Try = _node_class("try", "body name recover name_line name_col", "ref rid release")
Expr = _node_class("expr", "value")
Broken = _node_class("broken", "body")
Num = _node_class("num", "value")
Text = _node_class("text", "value")
Bool = _node_class("bool", "value")
Nothing = _node_class("nothing", "value")
Name = _node_class("name", "name", "ref")
List = _node_class("list", "items")
Map = _node_class("map", "pairs")
Binop = _node_class("binop", "op left right")
And = _node_class("and", "left right", "rid")
Or = _node_class("or", "left right", "rid")
Not = _node_class("not", "operand")
Neg = _node_class("neg", "operand")
Index = _node_class("index", "target key")
Field = _node_class("field", "target name")
Call = _node_class("call", "callee args span")
Lambda = _node_class("lambda", "params body", "func captures")
