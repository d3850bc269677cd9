"""Which instruction sequences run most, across a corpus: the measurement superinstructions
(vm/instructions.py `fused`) are chosen by.

    .venv/bin/python tools/profile_pairs.py [--fused] [--general] [--top N] [FILE.syn ...]
    .venv/bin/python tools/profile_pairs.py --weights [--labels] [--per-second]
                                            (the dispatch weights, from bench/twins.py)

Runs every program (default: examples/, /work/shared/seeds, /work/shared/conformance and
the bench/twins.py programs; --general: only bench/twins.py GENERAL) with labels off, counting how often each decoded instruction
runs; then weighs each sequence of 2 to 4 instructions that the decoder could fuse (no
jump lands inside it) by how often its first instruction ran. Each program's counts are
scaled to sum to 1, so a sequence ranks by how much of the corpus it covers, not by how
long one benchmark runs. Without --fused, superinstructions are off, so the sequences are
of the file's own instructions.
"""

import collections
import functools
import glob
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = [os.path.join(ROOT, "examples/**/*.syn"), "/work/shared/seeds/*.syn",
          "/work/shared/conformance/**/*.syn"]


class Counted(list):
    """A decoded code list that counts each read of an instruction (the loop's fetch)."""

    def __init__(self, items, counts):
        super().__init__(items)
        self.counts = counts

    def __getitem__(self, i):
        self.counts[i] += 1
        return list.__getitem__(self, i)


def _counted(vm):
    """The VM's code lists as Counted ones, direct calls relinked to them as the VM links
    its own (vm.machine.link_callees); {Function: Counted}."""
    from synsema.vm.machine import link_callees
    counted = {f: Counted(code, collections.Counter()) for f, code in vm.decoded.items()}
    vm.decoded.update(counted)
    link_callees(vm.decoded)
    return counted


def programs(paths, general, twins_only=False):
    out = {}
    for pat in [] if general or twins_only else paths or CORPUS:
        for p in sorted(glob.glob(pat, recursive=True)):
            out[p] = open(p).read()
    if not paths:
        for t in _twins(general):
            out["bench: " + t.name] = t.source
    return out


def _twins(general):
    """The bench/twins.py programs: the general ones, or all."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import twins
    return twins.GENERAL if general else twins.ALL


def profile(source, name, fused):
    from synsema.compiler import compile_source
    from synsema.vm import decode, machine
    from synsema.vm.errors import CompileError, SynError
    from synsema.runtime.machine import VM, Options
    try:
        prog = compile_source(source, os.path.basename(name))
    except (SynError, CompileError):     # a conformance program that must not compile
        return {}
    real = machine.decode_function
    machine.decode_function = functools.partial(decode.decode_function,
                                                superinstructions=fused)
    try:
        vm = VM(prog, Options(out=io.StringIO().write, max_steps=3_000_000, timeout=30))
    finally:
        machine.decode_function = real
    counted = _counted(vm)
    try:
        vm.run_main()
    except Exception:               # noqa: BLE001 - a failing program still counts
        pass
    seqs = collections.Counter()
    from synsema.vm import optable as T
    from synsema.vm.decode import _targets
    for code in counted.values():
        targets = _targets(list(code))
        for i, n in code.counts.items():
            ops = [list.__getitem__(code, i)[0]]
            for j in range(i + 1, min(i + 4, len(code))):
                if j in targets or T.FLOW[list.__getitem__(code, j - 1)[0]] in ("jump", "return"):
                    break       # a jump target, or not reached from the one before
                ops.append(list.__getitem__(code, j)[0])
                seqs[tuple(ops)] += n
    total = sum(code.counts[i] for code in counted.values() for i in code.counts) or 1
    return {k: v / total for k, v in seqs.items()}


def weights(progs, labels, per_second=None):
    """How often each decoded instruction runs (superinstructions on), as a share of the
    instructions run per program, averaged: tools/gen_dispatch.py WEIGHT.

    per_second ({name: seconds}): count each program's instructions per second of its
    CPython twin instead (the sum of the shares is then 1000). A program's ratio to
    CPython is its dispatches' cost over the twin's time, so a tree balanced by these
    weights has the least sum of the programs' ratios: a program that runs many
    dispatches for little work (calls, nested reads) weighs more than one whose
    instructions each do much."""
    from synsema.compiler import compile_source
    from synsema.vm import opcodes as O
    from synsema.runtime.machine import VM, Options
    names = {op.code: op.name for op in O.OPS}
    names.update({c: n for n, c in O.INTERNAL.items()})
    from synsema.vm.errors import CompileError
    total = collections.Counter()
    for name, src in progs.items():
        try:
            prog = compile_source(src, "w.syn")
        except CompileError:        # a conformance case of a compile error runs nothing
            continue
        vm = VM(prog, Options(labels=labels, out=io.StringIO().write, max_steps=3_000_000,
                              timeout=30))
        counted = _counted(vm)
        try:
            vm.run_main()
        except Exception:       # noqa: BLE001
            pass
        ops = collections.Counter()
        for code in counted.values():
            for i, n in code.counts.items():
                ops[names[list.__getitem__(code, i)[0]]] += n
        runs = per_second[name] if per_second else (sum(ops.values()) or 1)
        total.update({k: v / runs for k, v in ops.items()})
    scale = 1000 / (sum(total.values()) or 1) if per_second else 1000 / len(progs)
    return {k: max(1, round(scale * v)) for k, v in total.most_common()}


def twin_seconds(general):
    """{program name in programs(): the best of 5 runs of its CPython twin, in seconds}."""
    import timeit
    return {"bench: " + t.name: min(timeit.repeat(t.python, number=1, repeat=5))
            for t in _twins(general)}


def main(argv):
    from synsema.vm import opcodes as O
    names = {op.code: op.name for op in O.OPS}
    names.update({c: n for n, c in O.INTERNAL.items()})
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 30
    paths = [a for a in argv if a.endswith(".syn")]
    if "--weights" in argv:
        # Where the time goes: the bench/ programs (the corpus' programs are mostly a few
        # instructions long, and the order of the dispatch tree does not matter for them).
        progs = programs(paths, "--general" in argv, twins_only=True)
        per = twin_seconds("--general" in argv) if "--per-second" in argv else None
        print(weights(progs, "--labels" in argv, per))
        return
    total = collections.Counter()
    progs = programs(paths, "--general" in argv)
    for name, src in progs.items():
        total.update(profile(src, name, "--fused" in argv))
    print(f"{len(progs)} programs; share of the corpus's executed instructions that start "
          "each sequence (mean over programs)")
    for length in (2, 3, 4):
        print(f"\n-- sequences of {length}")
        best = sorted(((v, k) for k, v in total.items() if len(k) == length), reverse=True)
        for v, k in best[:top]:
            print(f"{100 * v / len(progs):7.2f}%  {' '.join(names.get(x, str(x)) for x in k)}")


if __name__ == "__main__":
    main(sys.argv[1:])
