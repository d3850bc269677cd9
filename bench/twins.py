"""Benchmark programs: each a Synsema program and its Python twin, same algorithm, same
sizes. A Synsema program prints one result; `expected()` is what it must print, computed
by the Python twin, so every benchmark checks that both sides did the same work.

The Python twins are written as a Python programmer would write them: lists and maps are
mutated in place, where Synsema rebinds a variable to an updated value (value semantics);
the ratio includes whatever that costs the VM.
"""

import inspect
import json


class Twin:
    def __init__(self, name, source, python, target=None, stretch=None, describe=""):
        self.name = name
        self.source = source
        self.python = python
        self.target = target            # upper bound of Synsema / Python, if the issue sets one
        self.stretch = stretch
        self.describe = describe

    def expected(self):
        return self.show_result(self.python())

    def show_result(self, value):
        """What the Synsema program prints for the result `value` of the Python twin."""
        return show(value) + "\n"

    def __repr__(self):
        return self.name


def show(v):
    """Python value -> what Synsema's print shows (for the values these programs print)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# ---- recursive calls -----------------------------------------------------------------------

FIB_N = 24

FIB_SYN = f"""
task fib(n)
    when n < 2
        give n
    give fib(n - 1) + fib(n - 2)

print(fib({FIB_N}))
"""


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def fib_py():
    return fib(FIB_N)


# ---- a while loop with arithmetic and branches ------------------------------------------------

LOOP_N = 100_000

LOOP_SYN = f"""
let i be 0
let total be 0
let evens be 0
while i < {LOOP_N}
    when i % 3 == 0
        set total to total + i * 2
    otherwise when i % 3 == 1
        set total to total - i
    otherwise
        set total to total + 1
    when i % 2 == 0
        set evens to evens + 1
    set i to i + 1
print(total + evens)
"""


def loop_py():
    i = 0
    total = 0
    evens = 0
    while i < LOOP_N:
        if i % 3 == 0:
            total = total + i * 2
        elif i % 3 == 1:
            total = total - i
        else:
            total = total + 1
        if i % 2 == 0:
            evens = evens + 1
        i = i + 1
    return total + evens


# ---- text building ---------------------------------------------------------------------------
# A message is built line by line and flushed every 50 lines, as an agent builds a prompt or
# a report; the accumulated text stays short, so this measures the per-operation cost.

TEXT_N = 20_000

TEXT_SYN = f"""
let message be ""
let total be 0
let i be 0
while i < {TEXT_N}
    let line be "item " + text(i) + ": " + upper("ok") + " (" + text(i * 3 % 7) + ")\\n"
    set message to message + line
    when i % 50 == 49
        set total to total + len(message)
        set message to ""
    set i to i + 1
print(total + len(message))
"""


def text_py():
    message = ""
    total = 0
    i = 0
    while i < TEXT_N:
        line = "item " + str(i) + ": " + "ok".upper() + " (" + str(i * 3 % 7) + ")\n"
        message = message + line
        if i % 50 == 49:
            total = total + len(message)
            message = ""
        i = i + 1
    return total + len(message)


# ---- list and map building (value semantics) -------------------------------------------------

COLL_N = 20_000

COLL_SYN = f"""
let xs be []
let m be {{}}
let i be 0
while i < {COLL_N}
    set xs to append(xs, i * 2)
    set m[text(i % 500)] to i
    set i to i + 1
print(len(xs) + len(m) + xs[{COLL_N} - 1] + m["7"])
"""


def coll_py():
    xs = []
    m = {}
    i = 0
    while i < COLL_N:
        xs.append(i * 2)
        m[str(i % 500)] = i
        i = i + 1
    return len(xs) + len(m) + xs[COLL_N - 1] + m["7"]


# ---- for each over a large list ----------------------------------------------------------------

EACH_N = 100_000

EACH_SYN = f"""
let xs be range({EACH_N})
let total be 0
for each x in xs
    when x % 2 == 0
        set total to total + x
print(total)
"""


def each_py():
    xs = list(range(EACH_N))
    total = 0
    for x in xs:
        if x % 2 == 0:
            total = total + x
    return total


# ---- a tool-dispatch loop ------------------------------------------------------------------------
# What an agent does with the model's decisions: look the tool up in an allow-list, call it
# with arguments that arrive as data (checked against its signature), append the result or
# the error to the context. One step in seven has an argument of the wrong type.

TOOLS_N = 5_000

TOOLS_SYN = f"""
task add(a: number, b: number = 1)
    give a + b

task greet(name: text, punct: text = "!")
    give "hello " + name + punct

task count(items: list, k: number)
    give len(items) * k

let tools be {{"add": add, "greet": greet, "count": count}}
let catalog be [tool_spec(add, "Add two numbers"), tool_spec(greet, "Greet someone"), tool_spec(count, "Count items, scaled")]
let context be "tools: " + json_encode(catalog) + "\\n"
let i be 0
while i < {TOOLS_N}
    let step be {{"name": "count", "args": {{"items": [i, i + 1], "k": 3}}}}
    when i % 7 == 6
        set step to {{"name": "add", "args": {{"a": text(i)}}}}
    otherwise when i % 3 == 0
        set step to {{"name": "add", "args": {{"a": i, "b": 2}}}}
    otherwise when i % 3 == 1
        set step to {{"name": "greet", "args": {{"name": "user" + text(i)}}}}
    when contains(tools, step["name"])
        try
            let result be call_tool(tools[step["name"]], step["args"])
            set context to context + step["name"] + " -> " + text(result) + "\\n"
        recover err
            set context to context + step["name"] + " failed: " + err + "\\n"
    set i to i + 1
print(context)
"""


class ToolError(Exception):
    pass


_TYPES = {float: "number", str: "text", list: "list", dict: "map", bool: "bool"}


def _type_name(v):
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return {str: "text", list: "list", dict: "map"}.get(type(v), type(v).__name__)


def tool_spec(fn, describe):
    params, optional = [], []
    for p in inspect.signature(fn).parameters.values():
        t = _TYPES.get(p.annotation)
        params.append(f"{p.name}: {t}" if t else p.name)
        if p.default is not p.empty:
            optional.append(p.name)
    return {"name": fn.__name__, "describe": describe, "params": params, "optional": optional}


def call_tool(fn, args):
    """Call fn with named arguments that arrived as data, checking them against its
    signature the way a Python agent framework does."""
    params = inspect.signature(fn).parameters
    for key, value in args.items():
        p = params.get(key)
        if p is None:
            raise ToolError(f"task '{fn.__name__}' has no parameter '{key}'")
        want = _TYPES.get(p.annotation)
        if want is not None and _type_name(value) != want:
            raise ToolError(f"'{key}' must be {want}, got {_type_name(value)}")
    for p in params.values():
        if p.name not in args and p.default is p.empty and p.annotation is not p.empty:
            raise ToolError(f"missing '{p.name}' ({_TYPES[p.annotation]})")
    return fn(**args)


def add(a: float, b: float = 1):
    return a + b


def greet(name: str, punct: str = "!"):
    return "hello " + name + punct


def count(items: list, k: float):
    return len(items) * k


def tools_py():
    tools = {"add": add, "greet": greet, "count": count}
    catalog = [tool_spec(add, "Add two numbers"), tool_spec(greet, "Greet someone"),
               tool_spec(count, "Count items, scaled")]
    context = "tools: " + json.dumps(catalog) + "\n"
    i = 0
    while i < TOOLS_N:
        step = {"name": "count", "args": {"items": [i, i + 1], "k": 3}}
        if i % 7 == 6:
            step = {"name": "add", "args": {"a": str(i)}}
        elif i % 3 == 0:
            step = {"name": "add", "args": {"a": i, "b": 2}}
        elif i % 3 == 1:
            step = {"name": "greet", "args": {"name": "user" + str(i)}}
        if step["name"] in tools:
            try:
                result = call_tool(tools[step["name"]], step["args"])
                context = context + step["name"] + " -> " + str(result) + "\n"
            except ToolError as err:
                context = context + step["name"] + " failed: " + str(err) + "\n"
        i = i + 1
    return context


# ---- general programs (issue 14): code no superinstruction was shaped after ---------------

MATRIX_N = 40

MATRIX_SYN = f"""
task matrix(n, seed)
    let rows be []
    for each i in range(n)
        let row be []
        for each j in range(n)
            set row to append(row, (i * seed + j) % 7)
        set rows to append(rows, row)
    give rows

task multiply(a, b, n)
    let c be []
    for each i in range(n)
        let row be []
        for each j in range(n)
            let s be 0
            for each k in range(n)
                set s to s + a[i][k] * b[k][j]
            set row to append(row, s)
        set c to append(c, row)
    give c

let c be multiply(matrix({MATRIX_N}, 3), matrix({MATRIX_N}, 5), {MATRIX_N})
let total be 0
for each row in c
    for each x in row
        set total to total + x
print(total)
"""


def matrix_py():
    n = MATRIX_N

    def matrix(seed):
        return [[(i * seed + j) % 7 for j in range(n)] for i in range(n)]

    a, b = matrix(3), matrix(5)
    c = []
    for i in range(n):
        row = []
        for j in range(n):
            s = 0
            for k in range(n):
                s = s + a[i][k] * b[k][j]
            row.append(s)
        c.append(row)
    return sum(x for row in c for x in row)


WORDS_N = 4_000

WORDS_SYN = f"""
let vocab be split("the quick brown fox jumps over the lazy dog and runs far away", " ")
let counts be {{}}
for each i in range({WORDS_N})
    let w be vocab[(i * 7) % len(vocab)]
    set counts[w] to get(counts, w, 0) + 1
    let w2 be upper(vocab[(i * 3) % len(vocab)])
    set counts[w2] to get(counts, w2, 0) + 1
let best be ""
let most be 0
for each w in counts
    when counts[w] > most
        set most to counts[w]
        set best to w
print(best + " " + text(most) + " " + text(len(counts)))
"""


def words_py():
    vocab = "the quick brown fox jumps over the lazy dog and runs far away".split(" ")
    counts = {}
    for i in range(WORDS_N):
        w = vocab[(i * 7) % len(vocab)]
        counts[w] = counts.get(w, 0) + 1
        w2 = vocab[(i * 3) % len(vocab)].upper()
        counts[w2] = counts.get(w2, 0) + 1
    best, most = "", 0
    for w in counts:
        if counts[w] > most:
            most, best = counts[w], w
    return f"{best} {most} {len(counts)}"


LAMBDA_N = 30_000

LAMBDA_SYN = f"""
task twice(f, x)
    give f(f(x))

let inc be (x) => x + 1
let double be (x) => x * 2
let ops be [inc, double, (x) => x - 3]
let total be 0
for each i in range({LAMBDA_N})
    let f be ops[i % 3]
    set total to total + twice(f, i % 10)
print(total)
"""


def lambda_py():
    def twice(f, x):
        return f(f(x))

    ops = [lambda x: x + 1, lambda x: x * 2, lambda x: x - 3]
    total = 0
    for i in range(LAMBDA_N):
        f = ops[i % 3]
        total = total + twice(f, i % 10)
    return total


RECORDS_N = 3_000

RECORDS_SYN = f"""
let people be []
for each i in range({RECORDS_N})
    set people to append(people, {{"name": "p" + text(i), "age": 18 + i % 60, "city": ["Lima", "Cusco", "Puno"][i % 3]}})
let by_city be {{}}
for each p in people
    when p.age >= 30 and p.city != "Puno"
        let c be get(by_city, p.city, {{"n": 0, "ages": 0}})
        set by_city[p.city] to {{"n": c.n + 1, "ages": c.ages + p.age}}
let out be []
for each city in by_city
    set out to append(out, city + ":" + text(by_city[city].n) + ":" + text(by_city[city].ages))
print(join(out, ","))
"""


def records_py():
    people = [{"name": "p" + str(i), "age": 18 + i % 60,
                "city": ["Lima", "Cusco", "Puno"][i % 3]} for i in range(RECORDS_N)]
    by_city = {}
    for p in people:
        if p["age"] >= 30 and p["city"] != "Puno":
            c = by_city.get(p["city"], {"n": 0, "ages": 0})
            by_city[p["city"]] = {"n": c["n"] + 1, "ages": c["ages"] + p["age"]}
    return ",".join(f"{city}:{v['n']}:{v['ages']}" for city, v in by_city.items())


TREE_DEPTH = 13

TREE_SYN = f"""
task build(d)
    when d == 0
        give {{"leaf": 1}}
    give {{"left": build(d - 1), "right": build(d - 1), "v": d}}

task total(t)
    when contains(t, "leaf")
        give t.leaf
    give t.v + total(t.left) + total(t.right)

print(total(build({TREE_DEPTH})))
"""


def tree_py():
    def build(d):
        if d == 0:
            return {"leaf": 1}
        return {"left": build(d - 1), "right": build(d - 1), "v": d}

    def total(t):
        if "leaf" in t:
            return t["leaf"]
        return t["v"] + total(t["left"]) + total(t["right"])

    return total(build(TREE_DEPTH))


# ---- the table ---------------------------------------------------------------------------------

FIB = Twin("fib", FIB_SYN, fib_py, 15, 8, f"recursive fib({FIB_N})")
LOOP = Twin("while loop", LOOP_SYN, loop_py, 15, 8,
            f"{LOOP_N:,} iterations of arithmetic and two when chains")
TEXT = Twin("text building", TEXT_SYN, text_py, None, None,
            f"{TEXT_N:,} lines of concatenation, text(), upper()")
COLL = Twin("list+map building", COLL_SYN, coll_py, None, None,
            f"{COLL_N:,} x `set xs to append(xs, ..)` and `set m[k] to ..` (500 keys)")
EACH = Twin("for each", EACH_SYN, each_py, None, None,
            f"for each over range({EACH_N:,}) with a when")
TOOLS = Twin("tool dispatch", TOOLS_SYN, tools_py, 5, None,
             f"{TOOLS_N:,} steps: allow-list, call_tool, try/recover, context text "
             "(Python: inspect.signature per call)")

MATRIX = Twin("matrix multiply", MATRIX_SYN, matrix_py, 15, None,
              f"{MATRIX_N}x{MATRIX_N} nested lists, a[i][k] * b[k][j]")
WORDS = Twin("word count", WORDS_SYN, words_py, 15, None,
             f"{WORDS_N:,} x two map updates with get, then a max over the keys")
LAMBDA = Twin("lambdas", LAMBDA_SYN, lambda_py, 15, None,
              f"{LAMBDA_N:,} calls of a task that calls a lambda chosen from a list twice")
RECORDS = Twin("records", RECORDS_SYN, records_py, 15, None,
               f"{RECORDS_N:,} maps built, filtered by two fields, aggregated by city")
TREE = Twin("tree walk", TREE_SYN, tree_py, 15, None,
            f"a binary tree of maps, depth {TREE_DEPTH}, built and summed recursively")

GENERAL = [MATRIX, WORDS, LAMBDA, RECORDS, TREE]
ALL = [FIB, LOOP, TEXT, COLL, EACH, TOOLS] + GENERAL
