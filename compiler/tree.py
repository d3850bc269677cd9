"""The syntax tree: one small class for every node, with its kind and source position.

Kinds and their fields (children are Nodes, lists of Nodes, or plain values):
  program:   items
  intent:    text                      require:  cap (tuple)
  task:      name params body          test:     name body
  param:     name type default(Node|None)
  let:       name value                set:      name path(list of key Nodes) value
  give:      value(Node|None)          break / continue
  when:      branches[(cond, body)] otherwise(body|None)
  while:     cond body                 foreach:  name iterable body
  try:       body name recover         expr:     value
  num/text/bool/nothing: value         name:     name
  list:      items                     map:      pairs[(k, v)]
  binop:     op left right             and / or: left right
  not / neg: operand                   index:    target key
  field:     target name               call:     callee args src(the text inside the parens)
  lambda:    params(list of names) body
The resolver adds `ref` to name/let/set/call/foreach/try nodes and `rid` to branches.
"""


from types import SimpleNamespace


class Node(SimpleNamespace):
    """A tree node: `kind`, `line`, `col` and its fields as plain attributes (fast to
    read). Made with keywords only -- Node(kind="num", line=1, col=5, value=2) -- which
    SimpleNamespace does in C: the parser makes one for every leaf of a program. Nodes
    compare and hash by identity, like any object."""

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    @property
    def f(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("kind", "line", "col")}

    def set(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.f.items())
        return f"{self.kind}@{self.line}:{self.col}({inner})"
