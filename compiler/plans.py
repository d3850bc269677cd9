"""Plan mode (SPEC 17): the rules a program written by a model must keep, checked on the
tree before it is resolved, so that every broken rule is reported at once, in source order.

A plan is Synsema without the names that reach past its caller's choice of tools (stdlib
registry PLAN_REMOVED: print, the model's own steps, labels, the network, host tools by
name) and without what only a program's author may write (`intent:`, `require`, `test`).
It is given the global `tools` (the caller's allow-list), may not declare or set it, and
must declare `task main()` with no parameters.

These checks say what is wrong early and clearly; they are not what keeps a plan in its
box. The runtime (stdlib.plans) refuses a compiled plan that names a removed builtin, and
every tool call passes its capability and label contract where it is made.
"""

from synsema.compiler.tree import Node
from synsema.vm.signatures import PLAN_REMOVED
from synsema.vm.errors import CompileError

TOOLS = "tools"     # the name the caller's allow-list has in a plan

# A short fix for the names a model is most likely to reach for.
_FIX = {
    "print": "give the answer from main instead",
    "llm_step": "a plan decides its own steps; use extract, classify, summarize or ask to "
                "read data",
    "plan": "a plan cannot plan again",
    "run_plan": "a plan cannot run another plan",
    "private": "what a tool returns is labelled by its tool",
    "declassify": "only the caller's program may remove a label",
    "http_get": "reach the world only through the tools in `tools`",
    "http_post": "reach the world only through the tools in `tools`",
    "host_tool": 'call the tools the plan was given: tools["NAME"](...)',
    "host_tools": "the plan's tools are the map `tools`",
}


def removed_message(name):
    fix = _FIX.get(name)
    return f"'{name}' is not available in a plan" + (f"; {fix}" if fix else "")


class Problems:
    """The errors of one plan: (line, col, message), reported in source order, once each."""

    def __init__(self, source_name):
        self.source_name = source_name
        self.found = {}

    def add(self, line, col, message):
        self.found.setdefault((line, col, message), None)

    def add_other(self, line, col, message):
        """An error of the ordinary stages: kept unless a plan rule was broken at the same
        place (`let tools be 1` is that, not "already declared")."""
        if not any(line == l and col == c for l, c, _ in self.found):
            self.add(line, col, message)

    def sorted(self):
        return [CompileError(m, line, col, self.source_name)
                for line, col, m in sorted(self.found)]


def check_tree(tree, problems, complete=True):
    """Every plan rule the tree breaks, into `problems`; `complete`: the whole source
    parsed (else a missing main may be in what did not)."""
    main = None
    for item in tree.items:
        k = item.kind
        if k == "intent":
            problems.add(item.line, item.col, "`intent:` is not available in a plan; the "
                         "program that runs the plan has the intent")
        elif k == "test":
            problems.add(item.line, item.col, "a `test` block is not available in a plan")
        elif k == "task" and item.name == "main":
            main = main or item
    _walk(tree, problems)
    if main is None and complete:
        problems.add(1, 1, "a plan must declare `task main()`: the plan's answer is what "
                     "main gives")
    elif main is not None and main.params:
        p = main.params[0]
        problems.add(p.line, p.col, "`task main()` takes no parameters in a plan; read "
                     "what the plan needs from the tools")


def _declared(problems, name, line, col):
    if name == TOOLS:
        problems.add(line, col, "a plan cannot declare 'tools': it is the map of the tools "
                     "the plan was given; choose another name")
    elif name in PLAN_REMOVED:
        problems.add(line, col, f"a plan cannot declare '{name}': {removed_message(name)}")


def _walk(node, problems):
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) in (list, tuple):
            stack.extend(c for c in n if isinstance(c, (Node, list, tuple)))
            continue
        if not isinstance(n, Node):
            continue
        k = n.kind
        if k == "require":
            problems.add(n.line, n.col, "`require` is not available in a plan: a plan runs "
                         "with the capabilities of the program that runs it")
        elif k == "name" and n.name in PLAN_REMOVED:
            problems.add(n.line, n.col, removed_message(n.name))
        elif k in ("let", "foreach", "task"):
            _declared(problems, n.name, n.line, n.name_col)
        elif k == "param":
            _declared(problems, n.name, n.line, n.col)
        elif k == "try" and n.name is not None:
            _declared(problems, n.name, n.name_line, n.name_col)
        elif k == "lambda":
            for name, line, col in n.params:
                _declared(problems, name, line, col)
        elif k == "set" and n.name == TOOLS:
            problems.add(n.line, n.name_col, "a plan cannot set 'tools': it is the map of "
                         "the tools the plan was given")
        for f in n.fields:
            c = getattr(n, f)
            if isinstance(c, (Node, list, tuple)):
                stack.append(c)
