"""Random Synsema programs for the non-interference property (SPEC section 10), and the
harness that runs one program with two different secrets and judges the pair.

A program is a template with two secret slots, `@A@` (labelled "a") and `@B@` (labelled
"b"), each on a line of its own (`let sa be private(@A@, "a")`), so that the secret's
literal never shifts the column of anything else. A pair of runs fills the slots with two
different literals of one kind (int, bool, text, list, map, or a mix of types) and
runs both under --labels with the ceiling `stdout` (no declassify).

The generator is biased toward the places implicit flows hide: branches, loops with
break/continue/give, and/or, try/recover (nested, and across task calls), errors from
builtins and operators on secret operands, call/call_tool argument maps with secret keys
and defaults that print, task values and indices chosen by a secret, lambdas capturing
secrets, labels_of, private() under a secret branch. Every program ends by printing its
top-level variables (public data, if the labels are right), which is where leaks show.

Run as a script to hunt: `python tests/ni_gen.py [PROGRAMS] [SEED]` prints every leaking
pair, minimised.
"""

import io
import random
import sys

from synsema.runtime.report import Source, runtime_error
from synsema.compiler import compile_source
from synsema.vm.caps import Ceiling
from synsema.vm.errors import CompileError, LabelViolation, LimitExceeded, SynError
from synsema.runtime.machine import VM, InternalError, Options

MAX_STEPS = 20000
TIMEOUT = 2

# Secret pairs by kind: the two values one program is run with.
SECRETS = {
    "num": [("0", "7"), ("2", "-3"), ("1", "1000000000000000000000000000000"), ("0", "1"),
            ("3", "4"), ("-1", "2")],
    "bool": [("true", "false")],
    "text": [('"p"', '"q"'), ('""', '"abc"'), ('"12"', '"x"'), ('"q"', '"zz"'),
             ('"p"', '"r"')],
    "list": [("[1, 2, 3]", "[]"), ("[0]", "[4, 5]"), ("[2, 0]", "[0, 2]")],
    "map": [('{"p": 1}', '{"q": 2}'), ('{}', '{"p": 0, "q": 1}'), ('{"q": 0}', '{"q": 5}')],
    "any": [("0", '"x"'), ("[1]", "1"), ("true", "nothing")],
}


class Var:
    def __init__(self, name, ty, settable=True, secret=False):
        self.name, self.ty, self.settable, self.secret = name, ty, settable, secret
        self.pcdepth = 0            # how many possibly-secret blocks were open at its let


class Ctx:
    """What the statement being generated can see and do."""

    def __init__(self, task=None):
        self.scopes = [[]]
        self.task = task            # None at top level
        self.loops = 0
        self.trying = 0             # inside a try block: errors are welcome
        self.pcdepth = 0            # blocks a secret may control, open here (biases sets)

    def visible(self, ty=None):
        return [v for s in self.scopes for v in s if ty is None or v.ty == ty]

    def with_param(self, name):
        """What a lambda's body sees: everything here, plus its parameter."""
        inner = Ctx(self.task)
        inner.trying = self.trying
        inner.scopes = [list(s) for s in self.scopes] + [[Var(name, "num", settable=False)]]
        return inner

    def add(self, v):
        v.pcdepth = self.pcdepth
        self.scopes[-1].append(v)
        return v


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.n = 0
        self.tasks = []             # names of generated tasks (p, q = default) -> number

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, *options):
        return self.rng.choice(options)

    # ---- expressions --------------------------------------------------------------

    def var_of(self, ctx, ty, secret=None):
        vs = [v for v in ctx.visible(ty) if secret is None or v.secret == secret]
        return self.rng.choice(vs).name if vs else None

    def atom(self, ctx, ty):
        """A variable of the type (secrets often), else a literal."""
        if self.chance(0.7):
            name = self.var_of(ctx, ty, secret=True if self.chance(0.5) else None)
            if name:
                return name
        return self.literal(ty)

    def literal(self, ty):
        r = self.rng
        if ty == "num":
            return r.choice(["0", "1", "2", "3", "-1", "10"])
        if ty == "bool":
            return r.choice(["true", "false"])
        if ty == "text":
            return r.choice(['"p"', '"q"', '"x"', '"12"', '""', '"ab"'])
        if ty == "list":
            return r.choice(["[]", "[1]", "[0, 1, 2]", "[3, 1]"])
        if ty == "map":
            return r.choice(["{}", '{"p": 1}', '{"p": 0, "q": 2}'])
        return "nothing"

    def expr(self, ctx, ty, d=0):
        """An expression of type `ty`. Forms that can raise (marked True) are used only
        inside a `try` block, and rarely elsewhere, so that most runs get to the end."""
        if d >= 3 or self.chance(0.3):
            return self.atom(ctx, ty)
        e = lambda t: self.expr(ctx, t, d + 1)  # noqa: E731 - a local shorthand
        if ty == "num":
            forms = [
                (False, lambda: f"({e('num')} {self.pick('+', '-', '*')} {e('num')})"),
                (True, lambda: f"({e('num')} {self.pick('/', '%')} {e('num')})"),
                (False, lambda: f"len({e(self.pick('list', 'text', 'map'))})"),
                (True, lambda: f"number({e('text')})"),
                (True, lambda: f"{e('list')}[{e('num')}]"),
                (False, lambda: f"get({e('map')}, {e('text')}, {e('num')})"),
                (True, lambda: f"{e('map')}[{e('text')}]"),
                (False, lambda: f"min({e('num')}, {e('num')})"),
                (False, lambda: f"len(labels_of({e(self.pick('num', 'text', 'list', 'bool'))}))"),
                (False, lambda: f"private({e('num')}, \"b\")"),
                (False, lambda: self.call_expr(ctx, d, risky=False)),
                (True, lambda: self.call_expr(ctx, d, risky=True)),
                (False, lambda: self.lambda_call(ctx, d)),
            ]
        elif ty == "bool":
            forms = [
                (False, lambda: f"({e('num')} {self.pick('<', '<=', '>', '==', '!=')} {e('num')})"),
                (False, lambda: f"({e('text')} == {e('text')})"),
                (False, lambda: f"({e('bool')} {self.pick('and', 'or')} {e('bool')})"),
                (False, lambda: f"({e('bool')} {self.pick('and', 'or')} noisy({e('bool')}))"),
                (False, lambda: f"not {e('bool')}"),
                (False, lambda: f"contains({e('list')}, {e('num')})"),
                (False, lambda: f"contains({e('map')}, {e('text')})"),
                (False, lambda: f"contains({e('text')}, {e('text')})"),
                (False, lambda: f"({e('list')} == {e('list')})"),
            ]
        elif ty == "text":
            forms = [
                (False, lambda: f"({e('text')} + {e('text')})"),
                (False, lambda: f"text({e(self.pick('num', 'bool', 'list', 'map'))})"),
                (True, lambda: f"({e('text')} + {e('num')})"),
                (True, lambda: f"{e('text')}[{e('num')}]"),
                (False, lambda: f"type_of({e(self.pick('num', 'text', 'list', 'any'))})"),
                (False, lambda: f"join(labels_of({e(self.pick('num', 'text', 'bool'))}), \",\")"),
                (False, lambda: f"upper({e('text')})"),
                (True, lambda: f"slice({e('text')}, {e('num')}, {e('num')})"),
            ]
        elif ty == "list":
            forms = [
                (False, lambda: f"[{e('num')}, {e('num')}]"),
                (False, lambda: f"append({e('list')}, {e('num')})"),
                (False, lambda: f"range(min({e('num')}, 4))"),
                (True, lambda: f"slice({e('list')}, {e('num')}, {e('num')})"),
                (False, lambda: f"reverse({e('list')})"),
                (False, lambda: f"sort({e('list')})"),
                (False, lambda: f"values({e('map')})"),
                (False, lambda: f"({e('list')} + {e('list')})"),
            ]
        elif ty == "map":
            forms = [
                (False, lambda: f"{{{e('text')}: {e('num')}}}"),
                (False, lambda: f"{{\"p\": {e('num')}, {e('text')}: {e('num')}}}"),
                (False, lambda: f"put({e('map')}, {e('text')}, {e('num')})"),
                (True, lambda: f"remove({e('map')}, {e('text')})"),
            ]
        else:
            return self.expr(ctx, self.pick("num", "text", "list", "bool"), d)
        if self.chance(0.15) and ctx.visible(ty):
            return self.atom(ctx, ty)
        allow_risky = ctx.trying or self.chance(0.03)
        return self.rng.choice([f for risky, f in forms if allow_risky or not risky])()

    def call_expr(self, ctx, d, risky=True):
        """A call of a generated task: direct, through a task value a secret may choose,
        or with call/call_tool and an argument map whose keys may be secret."""
        if not self.tasks:
            return self.literal("num")
        t = self.rng.choice(self.tasks)
        arg = lambda: self.expr(ctx, "num", d + 1)  # noqa: E731
        how = self.rng.random()
        if how < 0.3 or not risky:
            return f"{t}({arg()})" if self.chance(0.5) else f"{t}({arg()}, {arg()})"
        if how < 0.45:
            return f"[{', '.join(self.tasks)}][{self.expr(ctx, 'num', d + 1)}]({arg()})"
        key = lambda: self.pick('"p"', '"q"', self.expr(ctx, "text", d + 1))  # noqa: E731
        entries = [f"{key()}: {arg()}" for _ in range(self.rng.randint(0, 2))]
        fn = self.pick("call", "call_tool")
        return f"{fn}({t}, {{{', '.join(entries)}}})"

    def lambda_call(self, ctx, d):
        """A lambda capturing what it uses, called at once or chosen by an index."""
        inner = ctx.with_param("y")
        arg = self.expr(ctx, 'num', d + 1)
        if self.chance(0.3):
            bodies = [self.expr(inner, "num", d + 1) for _ in range(2)]
            lams = ", ".join(f"(y) => {b}" for b in bodies)
            return f"[{lams}][{self.expr(ctx, 'num', d + 1)}]({arg})"
        return f"((y) => {self.expr(inner, 'num', d + 1)})({arg})"

    # ---- statements ---------------------------------------------------------------

    def block(self, ctx, depth, n=None, pc=None):
        ctx.scopes.append([])
        ctx.pcdepth += bool(pc)
        lines = []
        for _ in range(n or self.rng.randint(1, 3)):
            lines += self.stmt(ctx, depth)
        ctx.pcdepth -= bool(pc)
        ctx.scopes.pop()
        return ["    " + line for line in lines]

    def cond(self, ctx):
        """A condition, usually on a secret."""
        if self.chance(0.7):
            s = self.var_of(ctx, "bool", secret=True)
            if s and self.chance(0.4):
                return s
            num = self.var_of(ctx, "num", secret=True)
            if num and self.chance(0.5):
                return f"({num} {self.pick('>', '<', '==')} {self.literal('num')})"
        return self.expr(ctx, "bool", 1)

    def stmt(self, ctx, depth):
        r = self.rng
        options = [(self.let, 4), (self.set, 3), (self.print, 1 if ctx.pcdepth else 2)]
        if depth < 3:
            options += [(self.when, 4), (self.try_, 4), (self.for_each, 2), (self.while_, 2),
                        (self.idiom, 3), (self.plan, 1.5)]
        if ctx.loops:
            options.append((self.jump, 2))
        if ctx.task:
            options.append((self.give, 1))
        options += [(self.fail, 2 if ctx.trying else 0.2), (self.set_item, 1)]
        fns, weights = zip(*options)
        return r.choices(fns, weights)[0](ctx, depth)

    def new_type(self):
        return self.rng.choice(["num", "num", "bool", "text", "list", "map"])

    def let(self, ctx, depth):
        ty = self.new_type()
        name = self.fresh("v")
        value = self.expr(ctx, ty)
        if self.chance(0.15):
            value = f"private({value}, \"b\")"
        ctx.add(Var(name, ty))
        return [f"let {name} be {value}"]

    def settable(self, ctx, types=None):
        """Variables to set; rarely one declared outside the secret blocks open here
        (a `label_violation` if a secret does control them: it ends the run)."""
        vs = [v for v in ctx.visible() if v.settable and (types is None or v.ty in types)]
        inside = [v for v in vs if v.pcdepth >= ctx.pcdepth]
        return inside if inside and self.chance(0.85) else vs

    def set(self, ctx, depth):
        vs = self.settable(ctx)
        if not vs:
            return self.let(ctx, depth)
        v = self.rng.choice(vs)
        if v.ty == "num" and self.chance(0.5):
            return [f"set {v.name} to {v.name} + {self.expr(ctx, 'num', 1)}"]
        return [f"set {v.name} to {self.expr(ctx, v.ty)}"]

    def set_item(self, ctx, depth):
        vs = self.settable(ctx, ("list", "map"))
        if not vs:
            return self.let(ctx, depth)
        v = self.rng.choice(vs)
        key = self.expr(ctx, "num" if v.ty == "list" else "text", 1)
        return [f"set {v.name}[{key}] to {self.expr(ctx, 'num', 1)}"]

    def print(self, ctx, depth):
        return [f"print({self.expr(ctx, self.new_type(), 1)})"]

    def when(self, ctx, depth):
        lines = [f"when {self.cond(ctx)}"] + self.block(ctx, depth + 1, pc=True)
        if self.chance(0.3):
            lines += [f"otherwise when {self.cond(ctx)}"] + self.block(ctx, depth + 1, pc=True)
        if self.chance(0.5):
            lines += ["otherwise"] + self.block(ctx, depth + 1, pc=True)
        return lines

    def try_(self, ctx, depth):
        err = self.fresh("e")
        ctx.trying += 1
        lines = ["try"] + self.block(ctx, depth + 1, pc=True) + [f"recover {err}"]
        ctx.trying -= 1
        ctx.scopes.append([Var(err, "text", settable=False, secret=True)])
        lines += self.block(ctx, depth + 1, pc=True)
        ctx.scopes.pop()
        return lines

    def for_each(self, ctx, depth):
        kind = self.pick("list", "list", "map", "text")
        item = self.fresh("x")
        lines = [f"for each {item} in {self.expr(ctx, kind, 1)}"]
        ctx.loops += 1
        ctx.scopes.append([Var(item, "num" if kind == "list" else "text", settable=False,
                               secret=True)])
        lines += self.block(ctx, depth + 1, pc=True)
        ctx.scopes.pop()
        ctx.loops -= 1
        return lines

    def while_(self, ctx, depth):
        """A bounded loop: its counter starts from the bound's labels (`n - n`) so that
        counting under a secret bound is no upgrade."""
        n, i = self.fresh("n"), self.fresh("i")
        bound = self.expr(ctx, "num", 1)
        lines = [f"let {n} be min({bound}, 5)", f"let {i} be {n} - {n}"]
        ctx.add(Var(n, "num", settable=False))
        ctx.add(Var(i, "num", settable=False))
        cond = f"{i} < {n}"
        if self.chance(0.3):
            cond = f"({cond}) and {self.cond(ctx)}"
        ctx.loops += 1
        body = self.block(ctx, depth + 1, pc=True)
        ctx.loops -= 1
        return lines + [f"while {cond}", f"    set {i} to {i} + 1"] + body

    def jump(self, ctx, depth):
        word = self.pick("break", "continue")
        if self.chance(0.8):
            return [f"when {self.cond(ctx)}", "    " + word]
        return [word]

    def give(self, ctx, depth):
        return [f"when {self.cond(ctx)}", f"    give {self.expr(ctx, 'num', 1)}"]

    def fail(self, ctx, depth):
        name = self.fresh("z")
        bad = self.pick(f"10 / {self.atom(ctx, 'num')}", f"number({self.atom(ctx, 'text')})",
                        f"{self.atom(ctx, 'list')}[{self.atom(ctx, 'num')}]",
                        f"len({self.atom(ctx, 'text')} + {self.atom(ctx, 'num')})",
                        f"len(fail({self.expr(ctx, 'text', 1)}))",
                        f"len(text({self.atom(ctx, 'num')} * 1000000000000))")
        ctx.add(Var(name, "num", settable=False))
        return [f"let {name} be {bad}"]

    def idiom(self, ctx, depth):
        """Classic implicit flows, spelled out with random parts."""
        flag = self.fresh("f")
        k = self.rng.randrange(4)
        ctx.trying += k != 1        # the for-each idiom is not in a try
        if k == 0:      # did the try block get past the risky statement?
            ctx.scopes.append([])
            lines = [f"let {flag} be 0", "try"] + ["    " + x for x in self.fail(ctx, depth)]
            ctx.scopes.pop()
            lines += [f"    set {flag} to 1", f"recover {self.fresh('e')}", f"    set {flag} to 2"]
        elif k == 1:    # how many rounds before a secret said stop?
            item = self.fresh("x")
            lines = [f"let {flag} be 0", f"for each {item} in [0, 1, 2, 3]"]
            ctx.scopes.append([Var(item, "num", settable=False)])
            lines += [f"    when {self.cond(ctx)}", f"        {self.pick('break', 'continue')}",
                      f"    set {flag} to {flag} + 1"]
            ctx.scopes.pop()
        elif k == 2:    # a short-circuit's right operand that may fail
            lines = [f"let {flag} be 0", "try",
                     f"    let {self.fresh('w')} be {self.cond(ctx)} "
                     f"{self.pick('and', 'or')} (len(fail(\"r\")) == 0)",
                     f"    set {flag} to 1", f"recover {self.fresh('e')}", f"    set {flag} to 2"]
        else:           # a call inside a try: the callee's own try/recover
            lines = [f"let {flag} be 0", "try",
                     f"    let {self.fresh('w')} be {self.call_expr(ctx, 1)}",
                     f"    set {flag} to 1", f"recover {self.fresh('e')}", f"    set {flag} to 2"]
        ctx.trying -= k != 1
        ctx.add(Var(flag, "num"))
        return lines

    # Plans (SPEC 17) whose source or tools a secret reaches: the source spells the secret
    # (json_encode of any value, `nothing` as null: a rejected plan), branches on it,
    # hands it to a tool that prints (noisy) or fails, or is clean while a tool reads the
    # secrets itself (the generated tasks do). A labelled tools entry, sometimes.
    PLAN_BODIES = [
        "give @S@",
        "when @S@ == 0\\n        give 1\\n    give 2",
        "give tools[\\\"noisy\\\"](@S@)",
        "let v be @S@\\n    when len(text(v)) > 2\\n        fail(\\\"long\\\")\\n    give 0",
        "give tools[\\\"t0\\\"](1)",
        "try\\n        give tools[\\\"t0\\\"](@S@)\\n    recover e\\n        give 5",
        "let n be 0\\n    for each x in [1, 2, 3]\\n        when x == @S@\\n            break\\n"
        "        set n to n + 1\\n    give n",
    ]

    def plan(self, ctx, depth):
        s = self.var_of(ctx, self.new_type(), secret=True) or "sa"
        body = self.rng.choice(self.PLAN_BODIES)
        spliced = body.replace("@S@", f'" + json_encode({s}) + "') if "@S@" in body else body
        source = f'"task main()\\n    {spliced}\\n"'
        tools = '{"noisy": noisy, "t0": t0}'
        if self.chance(0.2):
            tools = '{"noisy": noisy, "t0": private(t0, "b")}'
        flag, r = self.fresh("f"), self.fresh("r")
        if self.chance(0.4):        # outside a try: nothing but the plan's pc labels r
            return [f"let {r} be run_plan({source}, {tools})", f"print({r})"]
        ctx.trying += 1
        lines = [f"let {flag} be 0", "try", f"    let {r} be run_plan({source}, {tools})",
                 f"    set {flag} to 1"]
        if self.chance(0.4):
            lines.append(f"    print({r})")
        lines += [f"recover {self.fresh('e')}", f"    set {flag} to 2"]
        ctx.trying -= 1
        ctx.add(Var(flag, "num"))
        return lines

    # ---- programs -----------------------------------------------------------------

    def task(self, index, kinds):
        name = f"t{index}"
        ctx = Ctx(task=name)
        # Tasks read the top-level secrets and globals too (never set them: compile error).
        for v in top_level(kinds):
            v.settable = False
            ctx.add(v)
        ctx.add(Var("p", "num", secret=True))
        ctx.add(Var("q", "num", secret=True))
        ptype = self.pick("", ": number", ": any")
        default = self.pick("0", "noisy(5)", "len(noisy(\"dq\"))", "private(1, \"b\")")
        head = [f"task {name}(p{ptype}, q = {default})"]
        if self.chance(0.3):
            head.append("    require stdout")
        body = self.block(ctx, 1, n=self.rng.randint(1, 4))
        return head + body + [f"    give {self.expr(ctx, 'num', 1)}", ""]

    def program(self, kind_a, kind_b):
        lines = ["task noisy(v)", "    require stdout", "    print(\"noisy \" + text(v))",
                 "    give v", ""]
        for i in range(self.rng.randint(1, 3)):
            lines += self.task(i, (kind_a, kind_b))
            self.tasks.append(f"t{i}")
        lines += ["let sa be private(", "    @A@,", "    \"a\")",
                  "let sb be private(", "    @B@,", "    \"b\")"]
        lines += [f"let g{ty} be {self.literal(ty)}" for ty in ("num", "text", "list")]
        # Half the programs run their body in a task, on locals: the loops' fused
        # instructions (set x to x + 1, when n < c give b, ...) work on locals only.
        in_task = self.chance(0.5)
        ctx = Ctx(task="body" if in_task else None)
        for v in top_level((kind_a, kind_b)):
            v.settable = not in_task
            ctx.add(v)
        body = []
        if in_task:
            body += ["let la be sa", "let lb be sb", "let lnum be 0", "let ltext be \"\"",
                     "let llist be []"]
            for v in (Var("la", kind_a, False, True), Var("lb", kind_b, False, True),
                      Var("lnum", "num"), Var("ltext", "text"), Var("llist", "list")):
                ctx.add(v)
        for _ in range(self.rng.randint(3, 8)):
            body += self.stmt(ctx, 0)
        shown = [v for v in ctx.scopes[0] if not v.secret]
        self.rng.shuffle(shown)
        for v in shown:
            body.append(f"print({v.name})")
            if self.chance(0.15):
                body.append(f"print(labels_of({v.name}))")
        if in_task:
            body = ["task body()"] + ["    " + x for x in body + ["give 0"]]
            body += ["", "print(body())"]
        return "\n".join(lines + body) + "\n"


def top_level(kinds):
    """The variables every program declares first: the two secrets and three globals."""
    return [Var("sa", kinds[0], settable=False, secret=True),
            Var("sb", kinds[1], settable=False, secret=True)] + [
        Var(f"g{ty}", ty) for ty in ("num", "text", "list")]


def generate(seed):
    """(template, secret kinds, pair of (A, B) literal pairs) for one seed."""
    rng = random.Random(seed)
    kinds = [rng.choice(list(SECRETS)) for _ in range(2)]
    for i, k in enumerate(kinds):
        if k == "any":
            kinds[i] = "num"        # typed as num for the generator; the values mix types
    gen = Gen(rng)
    template = gen.program(*kinds)
    pairs = [rng.choice(SECRETS[rng.choice([k, "any"]) if rng.random() < 0.1 else k])
             for k in kinds]
    return template, pairs


def fill(template, a, b):
    return template.replace("@A@", a).replace("@B@", b)


class Outcome:
    """One run: exit code as the CLI gives it, stdout, stderr report, the line the run
    stopped at, and whether it 'completed' (exit 0, or an uncaught error shown with its
    message: both are results the observer sees in full)."""

    def __init__(self, code, out, err="", shown=False, line=None):
        self.code, self.out, self.err, self.line = code, out, err, line
        self.completed = code == 0 or (code == 1 and shown)

    def __repr__(self):
        return f"exit {self.code}, stdout {self.out!r}" + (f", stderr {self.err!r}"
                                                           if self.err else "")


def run(source, labels=True):
    """Run in-process as `syn run --labels --cap-set stdout` does; None if it does not
    compile. (labels=False shows what the programs would leak without labels.)"""
    try:
        program = compile_source(source, "ni.syn")
    except CompileError:
        return None
    buf = io.StringIO()
    opts = Options(labels=labels, ceiling=Ceiling.parse("stdout"), out=buf.write,
                   max_steps=MAX_STEPS, timeout=TIMEOUT)
    try:
        VM(program, opts).run_main()
    except SynError as e:
        if isinstance(e, InternalError):
            code = 70
        elif isinstance(e, LabelViolation):
            code = 3
        elif isinstance(e, LimitExceeded):
            code = 4
        else:
            code = 1
        # No source lines: a caret line would show the secret's literal on its line.
        return Outcome(code, buf.getvalue(), runtime_error(e, Source("ni.syn")),
                       shown=code == 1 and not e.labels,
                       line=e.trace[0][1] if e.trace else None)
    except Exception as e:  # noqa: BLE001 - a Python exception escaping the VM is a bug
        return Outcome(70, buf.getvalue(), f"python exception: {e!r}")
    return Outcome(0, buf.getvalue())


def leak(r1, r2):
    """Why the pair shows a flow from the secret to public output, or None.

    Termination-insensitive: a run that stops (label_violation, a limit, an error whose
    message is withheld) may stop early, so then only its stdout must be a prefix of the
    other's; two runs that complete must agree on everything they show."""
    if r1.code == 70 or r2.code == 70:
        return None             # an internal error is a bug of its own, not a flow
    if r1.completed and r2.completed:
        if (r1.code, r1.out, r1.err) != (r2.code, r2.out, r2.err):
            return "both runs completed with different results"
        return None
    if not (r1.out.startswith(r2.out) or r2.out.startswith(r1.out)):
        return "stdout differs before either run stopped"
    return None


HEADERS = ("task ", "when ", "otherwise", "while ", "for each ", "try", "recover ", "require ")


def check(template, pair, prune=8, labels=True):
    """(leak reason or None, outcome 1, outcome 2, template as finally run); outcomes
    None when it does not compile.

    A run that stops at a simple statement (a label_violation at a print of a labelled
    value, a labelled error) hides all the code after it; so that statement is replaced
    by a no-op and the pair is run again, up to `prune` times: every program on the way
    is a program of the family, and each pair is judged."""
    (a1, a2), (b1, b2) = pair
    for attempt in range(prune + 1):
        r1 = run(fill(template, a1, b1), labels)
        r2 = run(fill(template, a2, b2), labels)
        if r1 is None or r2 is None:
            return None, r1, r2, template
        why = leak(r1, r2)
        if why or attempt == prune:
            return why, r1, r2, template
        lines = template.split("\n")
        stops = {r.line for r in (r1, r2) if r.code in (1, 3) and not r.completed and r.line}
        for n in stops:
            text = lines[n - 1]
            body = text.lstrip()
            if body and not body.startswith(HEADERS) and "@" not in body:
                words = body.split()
                keep = f"let {words[1]} be 0" if words[0] == "let" else f"let pruned{n} be 0"
                lines[n - 1] = text[:len(text) - len(body)] + keep
        if lines == template.split("\n"):
            return why, r1, r2, template
        template = "\n".join(lines)
    return None, r1, r2, template


def minimise(template, pair):
    """Drop lines (a header with its block, or one line) while the pair still leaks."""
    lines = template.split("\n")
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(lines):
            indent = len(lines[i]) - len(lines[i].lstrip())
            j = i + 1
            while j < len(lines) and lines[j].strip() and \
                    len(lines[j]) - len(lines[j].lstrip()) > indent:
                j += 1
            for cut in ((i, j), (i, i + 1)) if j > i + 1 else ((i, j),):
                trial = lines[:cut[0]] + lines[cut[1]:]
                if "@A@" in "\n".join(trial) and "@B@" in "\n".join(trial) and \
                        check("\n".join(trial), pair, prune=0)[0]:
                    lines = trial
                    changed = True
                    break
            else:
                i += 1
    return "\n".join(lines)


def hunt(programs, seed=0, out=sys.stdout):
    compiled = leaks = 0
    for s in range(seed, seed + programs):
        template, pair = generate(s)
        why, r1, r2, final = check(template, pair)
        if r1 is None or r2 is None:
            continue
        compiled += 1
        if why:
            leaks += 1
            small = minimise(final, pair)
            _, m1, m2, _ = check(small, pair, prune=0)
            out.write(f"=== seed {s}: {why}; secrets {pair}\n{small}\n-- {m1}\n-- {m2}\n\n")
    out.write(f"{programs} programs, {compiled} compiled, {leaks} leaking pairs\n")


if __name__ == "__main__":
    hunt(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
         int(sys.argv[2]) if len(sys.argv) > 2 else 0)
