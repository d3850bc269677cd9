"""Bad input of every kind gets a clear error, never a Python exception: mutate real
programs at random (the examples, and the shared seeds and conformance cases when they
are there) and check that compiling gives a Program or a CompileError, and that running
what compiles, labels off and on, ends normally or with a Synsema error that is not an
internal one."""

import random
from pathlib import Path

import pytest

from synsema.compiler import compile_source
from synsema.vm.errors import CompileError, Refused, SynError
from synsema.runtime.machine import VM, InternalError, Options

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

SOURCES = [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("examples/*.syn"))
           + sorted(SHARED.glob("seeds/*.syn")) + sorted(SHARED.glob("conformance/*/*.syn"))]
PIECES = list("abcxyz019 ()[]{},.:=<>+-*/%\"\\\n    ") + [
    "when ", "while ", "let ", "set ", " to ", " be ", "give ", "task ", "for each ", " in ",
    "try\n", "recover e\n", "=>", "otherwise", "break", "nothing", "true", "and ", "or ",
    "not ", "\t", "\u00e9", "--"]


def mutate(rng, text):
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.4 and chars:
            del chars[rng.randrange(len(chars))]
        elif r < 0.8:
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(PIECES))
        elif chars:
            a, b = rng.randrange(len(chars)), rng.randrange(len(chars))
            chars[a:a] = chars[b:b + rng.randint(1, 20)]
    return "".join(chars)


@pytest.mark.slow          # the long property run: make test-fast skips it
@pytest.mark.parametrize("seed", range(4))
def test_mutated_programs_never_raise_python_exceptions(seed):
    rng = random.Random(seed)
    compiled = 0
    for _ in range(150):
        source = mutate(rng, rng.choice(SOURCES))
        try:
            program = compile_source(source, "fuzz.syn")
        except CompileError as e:
            assert e.message and e.line >= 1, source
            continue
        compiled += 1
        for labels in (False, True):
            try:
                VM(program, Options(labels=labels, out=lambda text: None, max_steps=20000,
                                    timeout=2)).run_main()
            except Refused:
                pass
            except SynError as e:
                assert not isinstance(e, InternalError), (e.message, source)
    assert compiled > 0     # some mutations still compile, so the VM side is exercised
