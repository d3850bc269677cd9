"""Every generator of the repository, in the order they depend on each other.

    make regen                          # or: .venv/bin/python tools/regen.py
    .venv/bin/python tools/regen.py --check     # list what is stale (exit 1), write nothing

Each step writes its files in a fresh interpreter (a later one reads what an earlier one
wrote: docs/gen_opcodes.py reads vm/optable.py). tests/test_generated.py runs `stale()` of
every step that has one, so a generated file out of date fails one test that says to run
`make regen`. The doc examples and the example cassettes have no `stale()`: checking them
means running them, which their own tests do (tests/test_docs.py, tests/test_llm_vm.py,
tests/test_planner_example.py).
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC_PAGES = ["docs/guide.md", "docs/bytecode.md", "docs/embedding.md", "docs/tutorial.md",
             "docs/mcp.md"]
SHARED_SPEC = os.path.join(os.path.dirname(ROOT), "shared", "SPEC.md")
TEXTMATE = "editors/vscode/syntaxes/synsema.tmLanguage.json"


def _script(relative):
    import importlib.util
    path = os.path.join(ROOT, relative)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as fh:
        return fh.read()


def _dispatch_stale():
    return _script("tools/gen_dispatch.py").main(check=True)


def _opcode_doc_stale():
    mod = _script("docs/gen_opcodes.py")
    fresh = mod.BEGIN + "\n" + mod.table() + mod.END
    return [] if fresh in _read("docs/bytecode.md") else ["docs/bytecode.md"]


def _textmate_text():
    from synsema.highlight import textmate_grammar
    return json.dumps(textmate_grammar(), indent=2) + "\n"


def _textmate_write():
    with open(os.path.join(ROOT, TEXTMATE), "w", encoding="utf-8") as fh:
        fh.write(_textmate_text())


def _textmate_stale():
    return [] if json.loads(_read(TEXTMATE)) == json.loads(_textmate_text()) else [TEXTMATE]


def _parsetab_stale():
    import ply.yacc as yacc

    import synsema.compiler._parsetab as tab
    import synsema.compiler.grammar as g
    pinfo = yacc.ParserReflect({k: getattr(g, k) for k in dir(g)}, log=yacc.NullLogger())
    pinfo.get_all()
    return [] if pinfo.signature() == tab._lr_signature else ["compiler/_parsetab.py"]


def _spec_write():
    if os.path.exists(SHARED_SPEC):
        with open(SHARED_SPEC, encoding="utf-8") as fh:
            text = fh.read()
        with open(os.path.join(ROOT, "docs", "spec.md"), "w", encoding="utf-8") as fh:
            fh.write(text)


def _spec_stale():
    if not os.path.exists(SHARED_SPEC):     # a clone without the shared checkout
        return []
    with open(SHARED_SPEC, encoding="utf-8") as fh:
        return [] if fh.read() == _read("docs/spec.md") else ["docs/spec.md"]


class Step:
    def __init__(self, what, commands, stale=None):
        self.what, self.commands, self.stale = what, commands, stale

    def write(self):
        for cmd in self.commands:
            if callable(cmd):
                cmd()
            else:
                subprocess.run([sys.executable] + cmd, cwd=ROOT, check=True)


STEPS = [
    Step("the VM loops and opcode data (tools/gen_dispatch.py)",
         [["tools/gen_dispatch.py"]], _dispatch_stale),
    Step("the opcode table of docs/bytecode.md (docs/gen_opcodes.py)",
         [["docs/gen_opcodes.py", "--write"]], _opcode_doc_stale),
    Step("the parser tables (python -m synsema.compiler.grammar)",
         [["-m", "synsema.compiler.grammar"]], _parsetab_stale),
    Step("the TextMate grammar (python -m synsema.highlight --textmate)",
         [_textmate_write], _textmate_stale),
    Step("docs/spec.md, a copy of ../shared/SPEC.md (when that checkout is there)",
         [_spec_write], _spec_stale),
    Step("the docs' example outputs (tools/doc_examples.py fill)",
         [["tools/doc_examples.py", "fill", page] for page in DOC_PAGES]),
    Step("the example cassettes (record of tests/test_llm_vm.py, tests/test_planner_example.py)",
         [["tests/test_llm_vm.py", "record"], ["tests/test_planner_example.py", "record"]]),
]


def main(argv):
    if "--check" in argv:
        stale = [p for step in STEPS if step.stale for p in step.stale()]
        print("stale: " + ", ".join(stale) if stale else "up to date")
        return 1 if stale else 0
    for step in STEPS:
        print(f"regen: {step.what}", flush=True)
        step.write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
