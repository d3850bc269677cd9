"""Compile throughput: source text to a Program (lex, parse, resolve, generate) on a
generated 5,000-line program, reported in lines per second.

Lines per second is an absolute figure, so it moves with the machine's speed (on this
shared VM, by up to 2x between runs). Beside it: the same program written in Python,
compiled by CPython's own compile() (C: tokenizer, parser, symbol table, code
generator) between the timed rounds; the ratio of the two is steadier than either."""

from synsema.compiler import compile_source

from conftest import measure

LINES = 5_000
TARGET = 20_000       # lines per second

# One task of 24 lines using most of the language: typed parameters and a default, let/set,
# a when chain, while, for each over a map's field, try/recover, a lambda, lists and maps,
# nested `set m[k]` and builtins.
TASK = '''\
-- task {k}: generated for the compile benchmark
task work_{k}(a: number, b = 2, label: text = "w{k}")
    let x be a + {k}
    let s be label + ":" + text(x)
    when x > 10 and b != 0
        set x to x - 1
    otherwise when x < 0 or not (b == 2)
        set x to 0
    otherwise
        set x to x * 2 % 7
    let i be 0
    while i < 3
        set i to i + 1
        set s to s + text(i)
    let m be {{"k": x, "s": s, "xs": [1, 2.5, 3e2], "ok": true, "none": nothing}}
    set m["k"] to m["k"] + len(m.s)
    for each y in m["xs"]
        set x to x + y
    try
        set x to x + number("4") / 2
    recover err
        set s to "failed: " + err
    let f be (v) => v * b + x
    give f(x) + len(keys(m))

'''


# The same task in Python, line for line.
PY_TASK = '''\
# task {k}: generated for the compile benchmark
def work_{k}(a: float, b=2, label: str = "w{k}"):
    x = a + {k}
    s = label + ":" + str(x)
    if x > 10 and b != 0:
        x = x - 1
    elif x < 0 or not (b == 2):
        x = 0
    else:
        x = x * 2 % 7
    i = 0
    while i < 3:
        i = i + 1
        s = s + str(i)
    m = {{"k": x, "s": s, "xs": [1, 2.5, 3e2], "ok": True, "none": None}}
    m["k"] = m["k"] + len(m["s"])
    for y in m["xs"]:
        x = x + y
    try:
        x = x + float("4") / 2
    except Exception as err:
        s = "failed: " + str(err)
    f = lambda v: v * b + x
    return f(x) + len(list(m.keys()))

'''


def generate(lines=LINES, task=TASK, start="let total be 0\n",
             call="set total to total + work_{f}({j})\n"):
    """A valid program of exactly `lines` lines: generated tasks, then top-level calls."""
    out, n, k = [], 0, 0
    block = task.count("\n")
    while n + block + 2 <= lines:
        out.append(task.format(k=k))
        n += block
        k += 1
    out.append(start)
    n += 1
    j = 0
    while n < lines:
        out.append(call.format(f=j % k, j=j))
        n += 1
        j += 1
    return "".join(out)


def generate_python(lines=LINES):
    return generate(lines, PY_TASK, "total = 0\n", "total = total + work_{f}({j})\n")


def _python_compile(source):
    return lambda: compile(source, "generated.py", "exec")


def test_compile_throughput(benchmark, report):
    benchmark.group = f"compile: {LINES:,}-line generated program"
    source = generate()
    lines = source.count("\n")
    assert lines == LINES
    python = generate_python()
    assert python.count("\n") == LINES
    program = measure(benchmark, lambda: compile_source(source, "generated.syn"), budget=6.0,
                      paired=_python_compile(python))
    assert len(program.functions) > LINES // 30
    median = report.median("compile/5000", benchmark)
    if median is not None:
        report.figure("compile: lines per second", lines / median, "lines/s", TARGET,
                      higher_is_better=True, note=f"{lines:,} lines in {median * 1e3:.0f} ms")
    report.ratio("compile: Synsema / CPython compile() of the same program in Python",
                 "compile/5000", "compile/5000/python")


def test_compile_python_twin(benchmark, report):
    benchmark.group = f"compile: {LINES:,}-line generated program"
    code = measure(benchmark, _python_compile(generate_python()), budget=2.0)
    assert "work_0" in code.co_names
    report.median("compile/5000/python", benchmark)
