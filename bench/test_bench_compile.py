"""Compile throughput: source text to a Program (lex, parse, resolve, generate) on a
generated 5,000-line program, reported in lines per second."""

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


def generate(lines=LINES):
    """A valid program of exactly `lines` lines: generated tasks, then top-level calls."""
    out, n, k = [], 0, 0
    block = TASK.count("\n")
    while n + block + 2 <= lines:
        out.append(TASK.format(k=k))
        n += block
        k += 1
    out.append("let total be 0\n")
    n += 1
    j = 0
    while n < lines:
        out.append(f"set total to total + work_{j % k}({j})\n")
        n += 1
        j += 1
    return "".join(out)


def test_compile_throughput(benchmark, report):
    benchmark.group = f"compile: {LINES:,}-line generated program"
    source = generate()
    lines = source.count("\n")
    assert lines == LINES
    program = measure(benchmark, lambda: compile_source(source, "generated.syn"), budget=6.0)
    assert len(program.functions) > LINES // 30
    median = report.median("compile/5000", benchmark)
    if median is not None:
        report.figure("compile: lines per second", lines / median, "lines/s", TARGET,
                      higher_is_better=True, note=f"{lines:,} lines in {median * 1e3:.0f} ms")
