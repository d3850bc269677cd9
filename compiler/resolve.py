"""Tree -> resolved tree: scopes, declarations, captures, and every compile-time check of
names (SPEC section 2-5). Annotates nodes in place and builds the Function skeletons.

Annotations:
  name/let/set/foreach/try nodes: ref = ("local", slot) | ("global", g) | ("task", f) | ("builtin", name)
  lambda: func (index), captures (list of refs in the enclosing function, in slot order)
  task/test: func (index)
  when/while/foreach/try/and/or: rid (own release id) and release (the release id its
      pc label uses: 0 = until the function returns; see SPEC section 10 'Sticky pc')
"""

from synsema.compiler.plans import removed_message
from synsema.compiler.problems import Unsure
from synsema.vm.caps import host_problem, is_host, is_label, is_tool_pattern
from synsema.vm.errors import CompileError
from synsema.vm.program import Function, Param, Program
from synsema.vm.signatures import PLAN_REMOVED, SIGNATURES as BUILTINS
from synsema.vm.suggest import did_you_mean, suggest

TYPES = ("number", "text", "bool", "list", "map", "task", "any")
CAPS = ("llm", "net", "stdout", "tool")


class _Ctx:
    """One function being resolved."""

    def __init__(self, func, parent=None):
        self.func = func
        self.parent = parent          # enclosing context (lambdas only)
        self.blocks = [{}]            # name -> (ref, line)
        self.ended = {}               # names of blocks that have ended: name -> (line, kind)
        self.captures = []            # lambdas: refs in the parent
        self.capture_slots = {}       # lambdas: name -> local slot
        self.loops = []               # rids of enclosing loops
        self.next_rid = 1
        self.global_slot = None       # the top level: its locals are global slots
        self.body = []                # tasks, tests, the top level: their statements
        # While a parameter's default resolves: that parameter and the ones after it, which
        # have no value yet when it runs (name -> the parameter whose default it is).
        self.unready = {}

    def new_slot(self, name, line=0):
        if self.global_slot is not None:
            return self.global_slot(name, line)
        slot = self.func.nlocals
        self.func.nlocals += 1
        self.func.local_names.append(name)
        return slot

    def rid(self):
        r = self.next_rid
        self.next_rid += 1
        return r


# Python's words where Synsema has its own (an undeclared name, said the Synsema way).
PYTHON_WORDS = {
    "True": "Synsema writes true", "False": "Synsema writes false",
    "None": "Synsema writes nothing", "null": "Synsema writes nothing",
    "str": "use text(x) to make a text", "int": "use number(x) to read a number",
    "float": "use number(x) to read a number",
    "return": "a task gives its result with `give VALUE`",
    "else": "Synsema writes `otherwise` (and `otherwise when COND` for elif)",
    "elif": "Synsema writes `otherwise when COND`",
    "def": "declare a task: `task name(a, b)`",
    "if": "Synsema writes `when CONDITION`", "pass": "Synsema needs no `pass`",
    "nil": "Synsema writes nothing", "undefined": "Synsema writes nothing",
    "sum": "add the items up in a loop: `let total be 0`, then `for each x in xs` with "
           "`set total to total + x` in its block",
    "length": "the length of a list, map or text is len(x)",
    "size": "the length of a list, map or text is len(x)",
    "input": "a program does not read stdin: its input comes as a task's arguments "
             "(`syn run FILE --call TASK --args JSON`) or from host tools (--tools)",
    "exit": "stop with an error with fail(MESSAGE), or leave a task with `give`",
    "quit": "stop with an error with fail(MESSAGE), or leave a task with `give`",
    "enumerate": "loop over the positions: `for each i in range(len(xs))`, then use xs[i]",
    "isinstance": 'use type_of(x) == "number" (or "text", "list", ...)',
    "type": 'use type_of(x), which gives "number", "text", "list", ...',
    "sorted": "use sort(xs), which gives a new sorted list",
    "reversed": "use reverse(xs), which gives a new list",
    "list": "write a list as [a, b]", "dict": 'write a map as {"key": value}',
    "map": "build the new list in a loop: `for each x in xs` with "
           "`set ys to append(ys, f(x))` in its block",
    "filter": "build the new list in a loop: `for each x in xs` with "
              "`when keep(x)` and `set ys to append(ys, x)` in its block",
    "open": "a program has no file access: data comes in as a task's arguments (--args) "
            "or from host tools (--tools)",
    "lambda": "Synsema writes a lambda as `(x) => x + 1`",
}

# Other languages' type names (Python's first) and the Synsema type that says the same
# (SPEC 5), by the name in lower case: a fixed hint, before any edit-distance suggestion
# (`int` is one edit from `list`).
TYPE_NAMES = {
    "int": "number", "float": "number", "complex": "number", "integer": "number",
    "double": "number", "decimal": "number", "str": "text", "string": "text",
    "dict": "map", "tuple": "list", "set": "list", "frozenset": "list", "array": "list",
    "sequence": "list",
    "boolean": "bool", "object": "any", "callable": "task", "function": "task",
}
# ... and the ones that name no value but nothing.
_NOTHING_TYPES = ("none", "nonetype", "nothing", "null", "void")


def type_fix(name):
    """'; use number' (a fixed hint), '; did you mean ...?' or '' for an unknown type."""
    low = name.lower()
    if low in _NOTHING_TYPES:
        return ("; Synsema has no type for nothing alone: use any (which also accepts "
                "nothing), or leave the parameter untyped")
    if low in TYPE_NAMES:
        return f"; use {TYPE_NAMES[low]}"
    if low in TYPES:
        return f"; write it in lower case: {low}"
    return did_you_mean(name, TYPES)


def key_fix(name):
    """The fix for a map literal key that names no variable: a text key, quoted."""
    return f'map keys are expressions: write "{name}" (quoted) for a text key'


def _or_did_you_mean(name, candidates):
    """', or did you mean 'x'?' or '', to end a message that already names a fix."""
    s = suggest(name, candidates)
    return f", or did you mean '{s}'?" if s else ""


class Resolver:
    def __init__(self, source_name, problems=None, plan=False):
        self.name = source_name
        # compiler.problems.Problems: record each error and go on (None: raise the first)
        self.problems = problems
        # Plan mode (SPEC 17): the removed builtins are not there, and the global `tools`
        # is (compiler.plans checks the rest of the plan rules).
        self.plan = plan
        self.program = Program(source_name)
        self.tasks = {}           # name -> (func index, line)
        self.test_lines = {}      # test name -> line
        self.globals = {}         # name -> (slot, line)
        self.block_globals = {}   # name -> line: top-level variables declared in a block
        self.builtins = {}        # name -> index in program.builtins
        self.unready_use = None   # (name, parameter) a default just read too early (lookup)

    def error(self, msg, line, col):
        raise CompileError(msg, line, col, self.name)

    def go_on(self, fn, *args):
        """fn(*args), recording the error it raises and going on, when errors are
        collected (the next statement, the next part of one): what an error stopped is
        left unresolved, and what it declares is still declared, so that one error
        brings no others."""
        if self.problems is None:
            return fn(*args)
        try:
            return fn(*args)
        except Unsure:
            pass
        except CompileError as e:
            self.problems.add(e)
        return None

    # ---- top level --------------------------------------------------------------------

    def resolve(self, tree):
        prog = self.program
        main = Function("<top level>", "main", 1, 1)
        prog.functions.append(main)
        items = tree.items
        bodies = []
        seen_other = False
        if self.plan:
            # the caller's allow-list, bound before the plan's top level runs (global 0)
            self.globals["tools"] = (0, 0)
            prog.globals.append("tools")
            prog.global_lines.append(0)
        for item in items:
            self.go_on(self.declare_item, item, seen_other, bodies)
            seen_other = seen_other or item.kind not in ("intent", "broken")
        for name, (_, line) in self.globals.items():
            if name in self.tasks:
                self.go_on(self.error, f"'{name}' is already declared at line "
                           f"{self.tasks[name][1]} as a task; choose another name for the "
                           "variable", line, 1)
        # The top level: its statements see only what is declared above them. All of its
        # variables live in the globals array, which is also the top-level frame's locals
        # (so top-level code gets the fast local instructions); the ones declared inside
        # blocks are invisible to tasks, which resolve only top-level `let`s by name.
        ctx = _Ctx(main)
        ctx.global_slot = self.hidden_global
        if self.plan:
            ctx.blocks[0]["tools"] = (("local", 0), 0)
        main_items = [i for i in items if i.kind not in ("task", "test", "intent")]
        ctx.body = main_items
        for item in main_items:
            if item.kind == "require":
                cap = self.go_on(self.cap, item)
                if cap is not None:
                    prog.requires.append(cap)
                continue
            self.go_on(self.stmt, item, ctx, True)
        main.nlocals = len(prog.globals)
        main.local_names = list(prog.globals)
        # Tasks and tests see every top-level name.
        for item in bodies:
            f = prog.functions[item.func]
            fctx = _Ctx(f)
            if item.kind == "task":
                self.params(item, f, fctx)
                body = item.body
                i = 0
                while i < len(body) and body[i].kind == "require":
                    cap = self.go_on(self.cap, body[i])
                    if cap is not None and cap not in f.requires:
                        f.requires.append(cap)
                    i += 1
                item.body = body[i:]
            fctx.body = item.body
            self.block(item.body, fctx)
        return prog

    def declare_item(self, item, seen_other, bodies):
        """Declare a top-level item: the intent, a task, a test, a top-level variable."""
        prog = self.program
        k = item.kind
        if k == "intent":
            if prog.intent is not None:
                self.error("a program has at most one `intent:`", item.line, item.col)
            if seen_other:
                self.error("`intent:` must come before any other item of the program",
                           item.line, item.col)
            prog.intent = item.text
        elif k == "task":
            f = Function(item.name, "task", item.line, item.col)
            item.func = len(prog.functions)
            prog.functions.append(f)
            bodies.append(item)         # resolved (and errors found in it) all the same
            if item.name in self.tasks:
                self.error(f"task '{item.name}' is already declared at line "
                           f"{self.tasks[item.name][1]}", item.line, item.name_col)
            self.tasks[item.name] = (item.func, item.line)
        elif k == "test":
            f = Function(item.name, "test", item.line, item.col)
            item.func = len(prog.functions)
            prog.functions.append(f)
            bodies.append(item)
            # A test is known by its name (`syn test` ids, -k, reports): it must say
            # something and be the only test of the file called that.
            if not item.name.strip():
                self.error("a test needs a name that says what it checks, not an empty "
                           "text: test \"adds two numbers\"", item.line, item.col)
            if item.name in self.test_lines:
                self.error(f"test \"{item.name}\" is already declared at line "
                           f"{self.test_lines[item.name]}; give each test its own name",
                           item.line, item.col)
            self.test_lines[item.name] = item.line
            prog.tests.append((item.name, item.func))
        elif k == "let":
            if item.name in self.globals:
                self.error(f"'{item.name}' is already declared at line "
                           f"{self.globals[item.name][1]}; use set", item.line, item.name_col)
            self.globals[item.name] = (len(prog.globals), item.line)
            prog.globals.append(item.name)
            prog.global_lines.append(item.line)

    def hidden_global(self, name, line):
        self.block_globals.setdefault(name, line)
        self.program.globals.append(name)
        self.program.global_lines.append(line)
        return len(self.program.globals) - 1

    def cap(self, node):
        name, arg, arg2 = node.cap_name, node.arg, node.arg2
        if name not in CAPS:
            self.error(f"unknown capability '{name}'{did_you_mean(name, CAPS)} (the "
                       'capabilities are llm, llm("LABEL"), net("HOST"), '
                       'net("HOST", "LABEL"), tool("NAME") and stdout)', node.line, node.col)
        if arg2 is not None and name != "net":
            self.error(f"`require {name}` takes at most one argument", node.line, node.col)
        if name == "stdout":
            if arg is not None:
                self.error("`require stdout` takes no argument", node.line, node.col)
            return ("stdout",)
        if name == "llm":
            if arg is None:
                return ("llm",)
            self.check_label(arg, "llm", node)
            return ("llm", arg)
        if name == "tool":
            if arg is None or not is_tool_pattern(arg):
                self.error(f"bad tool {arg!r} in require tool(...); name a host tool "
                           '(tool("bank.send_money")), every tool under a prefix '
                           '(tool("bank.*")), or every tool (tool("*"))', node.line, node.col)
            return ("tool", arg)
        if arg is None:
            self.error('`require net` needs a host: require net("api.example.com")',
                       node.line, node.col)
        host = arg.lower()
        if not is_host(host):         # the rule the verifier applies to the .synb
            self.error(f"bad host {arg!r} in require net(...): {host_problem(host)}",
                       node.line, node.col)
        if arg2 is not None:
            self.check_label(arg2, "net", node)
            return ("net", host, arg2)
        return ("net", host)

    def check_label(self, label, cap, node):
        if not is_label(label):
            self.error(f"bad label {label!r} in require {cap}(...); a label is a word like "
                       '"customers"', node.line, node.col)

    def params(self, item, f, ctx):
        seen_default = False
        for p in item.params:
            self.go_on(self.check_param, p, f, seen_default)
            seen_default = seen_default or p.default is not None
            kind = Param.NO_DEFAULT if p.default is None else \
                Param.DEFAULT_NOTHING if p.default.kind == "nothing" else Param.DEFAULT_EXPR
            f.params.append(Param(p.name, p.type, kind))
            slot = ctx.new_slot(p.name)
            ctx.blocks[0][p.name] = (("local", slot), p.line)
        # Defaults are evaluated at call time in the task's scope, in order: each sees the
        # parameters before it (passed, or set by their own defaults), never itself or a
        # later one (not set yet).
        for i, p in enumerate(item.params):
            if p.default is not None:
                ctx.unready = {q.name: p.name for q in item.params[i:]}
                self.go_on(self.expr, p.default, ctx)
                self.unready_use = None
        ctx.unready = {}

    def check_param(self, p, f, seen_default):
        """The errors of a parameter's declaration (`seen_default`: one before it has a
        default)."""
        if p.type is not None and p.type not in TYPES:
            self.error(f"unknown type '{p.type}'{type_fix(p.type)} (the types are "
                       f"{', '.join(TYPES)})", p.line, p.type_col)
        if any(q.name == p.name for q in f.params):
            self.error(f"parameter '{p.name}' is declared twice", p.line, p.col)
        if p.default is None and seen_default:
            self.error(f"parameter '{p.name}' has no default but follows one that does; "
                       "put parameters with defaults last", p.line, p.col)

    # ---- statements -------------------------------------------------------------------

    def block(self, stmts, ctx):
        ctx.blocks.append({})
        for s in stmts:
            self.go_on(self.stmt, s, ctx)
        self.end_block(ctx, "let")

    @staticmethod
    def end_block(ctx, kind):
        """The innermost block ends: its names are kept (with where and how they were
        declared: `let`, `for each`, `recover`) for the message of a use after it."""
        for name, (_, line) in ctx.blocks.pop().items():
            ctx.ended.setdefault(name, (line, kind))

    def stmt(self, s, ctx, top=False):
        k = s.kind
        if k == "expr":
            self.expr(s.value, ctx)
            self.check_kept(s.value)
        elif k == "let":
            self.go_on(self.expr, s.value, ctx)     # declared even when its value is wrong
            self.declare(s, s.name, ctx, top)
        elif k == "set":
            for key in s.path:
                self.expr(key, ctx)
            self.expr(s.value, ctx)
            ref = self.lookup(s.name, ctx)
            if ref is None and self.problems is not None and s.name in self.problems.unsure:
                raise Unsure(s.name, s.line, s.name_col, self.name)
            if ref is None:
                # SPEC 3: `'x' is not declared; use let`, then a suggestion, if any.
                self.error(f"'{s.name}' is not declared; use let to declare it"
                           f"{_or_did_you_mean(s.name, self.candidates(ctx))}",
                           s.line, s.name_col)
            if ref[0] in ("task", "builtin"):
                self.error(f"'{s.name}' is a {ref[0]}; only variables can be set",
                           s.line, s.name_col)
            if ref[0] == "global" and ctx.func.kind == "test":
                self.error(f"cannot set the top-level variable '{s.name}' inside a test; "
                           f"declare a local copy in the test (`let my_{s.name} be "
                           f"{s.name}`) and set that", s.line, s.name_col)
            if ref[0] == "global" and ctx.func.kind != "main":
                self.error(f"cannot set the top-level variable '{s.name}' inside a "
                           f"{ctx.func.kind}; give the new value back and set it at top level",
                           s.line, s.name_col)
            if ctx.parent is not None and ref[0] == "local" and s.name in ctx.capture_slots:
                self.error(f"cannot set '{s.name}' inside a lambda", s.line, s.name_col)
            s.ref = ref
        elif k == "give":
            if ctx.func.kind == "main":
                self.error("`give` is only allowed inside a task", s.line, s.col)
            if s.value is not None:
                self.expr(s.value, ctx)
        elif k in ("break", "continue"):
            if not ctx.loops:
                self.error(f"`{k}` outside a loop; use it inside `while` or `for each`",
                           s.line, s.col)
        elif k == "require":
            where = "inside a block" if top is False and ctx.func.kind == "main" else \
                "here; in a task, `require` lines come first in its body"
            self.error(f"`require` is not allowed {where}", s.line, s.col)
        elif k == "when":
            rid = ctx.rid()
            for cond, body in s.branches:
                self.go_on(self.expr, cond, ctx)
                self.block(body, ctx)
            if s.otherwise is not None:
                self.block(s.otherwise, ctx)
            s.rid = rid
            s.release = self.release(s, ctx, rid)
        elif k == "while":
            rid = ctx.rid()
            self.go_on(self.expr, s.cond, ctx)
            ctx.loops.append(rid)
            self.block(s.body, ctx)
            ctx.loops.pop()
            s.rid = rid
            s.release = 0 if _has(s, "give") else rid
        elif k == "foreach":
            rid = ctx.rid()
            self.go_on(self.expr, s.iterable, ctx)
            ctx.blocks.append({})
            slot = ctx.new_slot(s.name, s.line)
            self.go_on(self.check_free, s.name, ctx, s.line, s.name_col)
            ctx.blocks[-1][s.name] = (("local", slot), s.line)
            ctx.loops.append(rid)
            self.block(s.body, ctx)
            ctx.loops.pop()
            self.end_block(ctx, "for each")
            s.ref = ("local", slot)
            s.rid = rid
            s.release = 0 if _has(s, "give") else rid
        elif k == "try":
            rid = ctx.rid()
            self.block(s.body, ctx)
            ctx.blocks.append({})
            slot = ctx.new_slot(s.name, s.name_line)
            self.go_on(self.check_free, s.name, ctx, s.name_line, s.name_col)
            ctx.blocks[-1][s.name] = (("local", slot), s.name_line)
            self.block(s.recover, ctx)
            self.end_block(ctx, "recover")
            s.ref = ("local", slot)
            s.rid = rid
            s.release = self.release(s, ctx, rid)
        elif k == "broken":
            # A line that does not parse: its block is resolved (an editor still answers
            # about its names), but reports nothing: its header might have been anything.
            if self.problems is not None:
                self.problems.quiet += 1
                try:
                    self.block(s.body, ctx)
                finally:
                    self.problems.quiet -= 1
        else:  # pragma: no cover - the grammar makes no other statement
            self.error(f"unexpected {k}", s.line, s.col)

    def release(self, s, ctx, rid):
        """Where the pc label raised by statement s is dropped (SPEC 10, Sticky pc)."""
        if _has(s, "give"):
            return 0
        if ctx.loops and _escapes(s):
            return ctx.loops[-1]
        return rid

    def check_free(self, name, ctx, line, col):
        for b in ctx.blocks:
            if name in b and b[name][0][0] == "local":
                self.error(f"'{name}' is already declared at line {b[name][1]}; use set",
                           line, col)
            if name in b and b[name][0][0] == "global" and ctx.func.kind == "main":
                self.error(f"'{name}' is already declared at line {b[name][1]}; use set",
                           line, col)

    def declare(self, s, name, ctx, top):
        if top and ctx.func.kind == "main" and len(ctx.blocks) == 1:
            slot, line = self.globals[name]
            ref = ("local", slot)       # the top-level frame's locals are the globals
        else:
            self.check_free(name, ctx, s.line, s.name_col)
            if ctx.func.kind == "main" and name in self.globals and \
                    name in ctx.blocks[0]:
                self.error(f"'{name}' is already declared at line {self.globals[name][1]}; "
                           "use set", s.line, s.name_col)
            ref = ("local", ctx.new_slot(name, s.line))
        ctx.blocks[-1][name] = (ref, s.line)
        s.ref = ref

    # ---- names ------------------------------------------------------------------------

    def lookup(self, name, ctx):
        for b in reversed(ctx.blocks):
            if name in b:
                if name in ctx.unready and b is ctx.blocks[0]:
                    self.unready_use = (name, ctx.unready[name])
                return b[name][0]
        if ctx.parent is not None:
            if name in ctx.capture_slots:
                return ("local", ctx.capture_slots[name])
            outer = self.lookup(name, ctx.parent)
            if outer is not None and outer[0] in ("local", "global"):
                slot = len(ctx.func.params) + len(ctx.captures)
                ctx.captures.append(outer)
                ctx.capture_slots[name] = slot
                return ("local", slot)
            return outer
        if ctx.func.kind != "main" and name in self.globals:
            return ("global", self.globals[name][0])
        if name in self.tasks:
            return ("task", self.tasks[name][0])
        if name in BUILTINS and not (self.plan and name in PLAN_REMOVED):
            return ("builtin", name)
        return None

    def check_ready(self, e):
        """A default read a parameter that has no value yet when it runs (lookup)."""
        used, self.unready_use = self.unready_use, None
        if used is None:
            return
        name, owner = used
        if name == owner:
            self.error(f"the default of parameter '{owner}' reads '{name}' itself, which has "
                       "no value until the default gives it one", e.line, e.col)
        self.error(f"the default of parameter '{owner}' reads '{name}', a parameter after it, "
                   "which has no value yet when the default runs; a default may use only the "
                   f"parameters before it (declare '{name}' first)", e.line, e.col)

    def candidates(self, ctx, builtins=True):
        """The names `ctx` can see, for "did you mean": the user's in source order (SPEC 2:
        a tie goes to the one declared first), then the builtins (unless not `builtins`)."""
        # Listed so that, on one line, what is written first comes first: a task before its
        # parameters, a `let` before its lambda's parameters (the sort by line is stable).
        declared = [(line, name) for name, (_, line) in self.tasks.items()]
        if ctx.func.kind != "main" or ctx.parent is not None:
            declared.extend((line, name) for name, (_, line) in self.globals.items())
        chain = []
        c = ctx
        while c is not None:
            chain.append(c)
            c = c.parent
        for c in reversed(chain):
            for b in c.blocks:
                declared.extend((line, name) for name, (_, line) in b.items())
        names = list(dict.fromkeys(name for _, name in sorted(declared, key=lambda d: d[0])))
        if not builtins:
            return names
        return names + [b for b in BUILTINS if not (self.plan and b in PLAN_REMOVED)]

    def check_kept(self, e):
        """append and put give a new list or map, changing nothing: one whose result is
        thrown away is a Python habit (xs.append(x)) that does nothing."""
        if e.kind != "call" or e.callee.kind != "name" or e.callee.ref is None:
            return
        name = e.callee.name
        if e.callee.ref != ("builtin", name) or not BUILTINS[name].gives_copy:
            return
        target = e.args[0].name if e.args and e.args[0].kind == "name" else None
        fix = (f"set {target} to {name}({target}, ...)" if target
               else f"set xs to {name}(xs, ...)")
        self.error(f"the result of {name} is thrown away, so this line does nothing: lists "
                   f"and maps are values, and {name} gives a new "
                   f"{BUILTINS[name].gives_copy}; keep it with `{fix}`", e.line, e.callee.col)

    def undeclared(self, name, ctx, line, col, key=False):
        """The error for a use of `name`, which is not declared; `key` when the use is a
        map literal's key (`{name: 1}`, where a text key was meant: SPEC 1)."""
        if self.problems is not None and name in self.problems.unsure:
            raise Unsure(name, line, col, self.name)   # maybe declared in skipped code
        msg = f"'{name}' is not declared"
        c = ctx
        while c is not None:
            if name in c.ended:
                at, kind = c.ended[name]
                if kind == "for each":
                    msg += (f" here: it is the variable of the `for each` at line {at}, which "
                            "exists only inside the loop; to keep a value after it, declare "
                            "a variable before the loop and `set` it inside")
                elif kind == "recover":
                    msg += (f" here: it names the error of the `recover` at line {at}, only "
                            "inside that block; to keep it, declare a variable before the "
                            "`try` and `set` it in the recover block")
                else:
                    msg += (f" here: its `let` at line {at} is inside a block that has "
                            "ended; declare it before the block to use it after")
                self.error(msg, line, col)
            c = c.parent
        root = ctx
        while root.parent is not None:
            root = root.parent
        later = _declared_after(root.body, name, line)
        if later is not None:
            decl_line, own = later
            if own and ctx.parent is not None:
                msg += (" yet: the lambda is part of its own `let`, and a lambda sees only "
                        "what is declared above it; to call itself, make it a task")
            elif own:
                msg += " yet: this `let` declares it, so its value cannot use it"
            elif ctx.parent is not None:
                msg += (f" yet: its `let` is at line {decl_line}; a lambda sees only what is "
                        "declared above it: move the `let` above the lambda")
            elif root.func.kind == "main":
                msg += (f" yet: its `let` is at line {decl_line}; top-level statements see "
                        "only what is declared above them")
            else:
                msg += (f" yet: its `let` is at line {decl_line}; in a {root.func.kind}, a "
                        "variable can be used only below its `let`: move the `let` up")
            self.error(msg, line, col)
        if root.func.kind != "main" and name in self.block_globals:
            # Whether a `let` in a block has run depends on the branch taken (SPEC 2).
            msg += (f" here: it is declared at line {self.block_globals[name]} inside a "
                    "top-level block, and tasks and tests see only the top-level variables "
                    "declared outside every block; declare it before the block")
            self.error(msg, line, col)
        if key:
            # a builtin is no value, so no key: only the file's own names are suggested
            names = self.candidates(ctx, builtins=False)
            self.error(f"{msg}; {key_fix(name)}{_or_did_you_mean(name, names)}", line, col)
        if self.plan and name in PLAN_REMOVED:
            self.error(removed_message(name), line, col)
        if name in PYTHON_WORDS:
            self.error(f"{msg}; {PYTHON_WORDS[name]}", line, col)
        self.error(msg + did_you_mean(name, self.candidates(ctx)), line, col)

    # ---- expressions ------------------------------------------------------------------

    def expr(self, e, ctx):
        k = e.kind
        if k in ("num", "text", "bool", "nothing"):
            return
        if k == "name":
            ref = self.lookup(e.name, ctx)
            self.check_ready(e)
            if ref is None:
                self.undeclared(e.name, ctx, e.line, e.col)
            if ref[0] == "builtin":
                self.error(f"builtin '{e.name}' can only be called, as {e.name}(...); wrap it "
                           f"in a lambda to pass it around: (x) => {e.name}(x)", e.line, e.col)
            e.ref = ref
        elif k == "call":
            callee = e.callee
            if callee.kind == "name":
                ref = self.lookup(callee.name, ctx)
                self.check_ready(callee)
                if ref is None:
                    self.undeclared(callee.name, ctx, callee.line, callee.col)
                callee.ref = ref
                if ref[0] == "builtin":
                    self.check_builtin(e, callee.name)
            else:
                self.expr(callee, ctx)
            for a in e.args:
                self.expr(a, ctx)
        elif k == "binop":
            self.expr(e.left, ctx)
            self.expr(e.right, ctx)
        elif k in ("and", "or"):
            self.expr(e.left, ctx)
            self.expr(e.right, ctx)
            e.rid = ctx.rid()
        elif k in ("not", "neg"):
            self.expr(e.operand, ctx)
        elif k == "index":
            self.expr(e.target, ctx)
            self.expr(e.key, ctx)
        elif k == "field":
            self.expr(e.target, ctx)
        elif k == "list":
            for i in e.items:
                self.expr(i, ctx)
        elif k == "map":
            for a, b in e.pairs:
                if a.kind == "name" and self.lookup(a.name, ctx) is None:
                    self.undeclared(a.name, ctx, a.line, a.col, key=True)
                self.expr(a, ctx)
                self.expr(b, ctx)
        elif k == "lambda":
            f = Function("<lambda>", "lambda", e.line, e.col)
            idx = len(self.program.functions)
            self.program.functions.append(f)
            lctx = _Ctx(f, parent=ctx)
            for name, line, col in e.params:
                if any(p.name == name for p in f.params):
                    self.error(f"parameter '{name}' is declared twice", line, col)
                f.params.append(Param(name))
                lctx.new_slot(name)
                lctx.blocks[0][name] = (("local", len(f.params) - 1), line)
            # A lambda's body is one expression (no `let`): its locals are its parameters,
            # then one slot per captured variable, numbered as lookup() finds them.
            self.expr(e.body, lctx)
            f.ncaptures = len(lctx.captures)
            f.nlocals = len(f.params) + f.ncaptures
            f.local_names = [p.name for p in f.params] + list(lctx.capture_slots)
            e.func = idx
            e.captures = lctx.captures
        else:  # pragma: no cover
            self.error(f"unexpected expression {k}", e.line, e.col)

    def check_builtin(self, call, name):
        b = BUILTINS[name]
        n = len(call.args)
        if name == "assert":
            n_ok = n == 1
        else:
            n_ok = b.min_args <= n <= b.max_args
        if not n_ok:
            want = "1 argument" if name == "assert" else b.arity_text()
            self.error(f"builtin '{name}' takes {want}, got {n}", call.line, call.col)
        if name not in self.builtins:
            self.builtins[name] = len(self.program.builtins)
            self.program.builtins.append(name)


def _declared_after(stmts, name, line):
    """(line, own) of the first `let` of `name` among the statements (blocks included)
    below the use at `line`, or None; `own` when the use is in that `let`'s own value
    (`let f be (x) => f(x)`: one statement per line, so the same line)."""
    for s in stmts:
        if s.kind == "let" and s.name == name and s.line >= line:
            return s.line, s.line == line
        found = _declared_after(_substatements(s), name, line)
        if found is not None:
            return found
    return None


def _has(node, kind):
    """Does the statement contain a statement of `kind` (lambdas hold no statements)?"""
    for s in _substatements(node):
        if s.kind == kind:
            return True
        if _has(s, kind):
            return True
    return False


def _substatements(node):
    k = node.kind
    if k == "when":
        for _, body in node.branches:
            yield from body
        if node.otherwise:
            yield from node.otherwise
    elif k in ("while", "foreach"):
        yield from node.body
    elif k == "try":
        yield from node.body
        yield from node.recover


def _escapes(node):
    """Does a break/continue inside node (not inside a loop nested in it) leave it?"""
    for s in _substatements(node):
        if s.kind in ("break", "continue"):
            return True
        if s.kind in ("when", "try") and _escapes(s):
            return True
    return False


def resolve(tree, source_name, problems=None, plan=False):
    """The resolved program of the tree (its nodes annotated). Without `problems`, the
    first error raises; with a compiler.problems.Problems, each is recorded there and
    resolving goes on. `plan`: plan mode (SPEC 17)."""
    return Resolver(source_name, problems, plan).resolve(tree)
