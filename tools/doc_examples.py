"""Check (or refresh) the examples in a Markdown document against the real `syn`.

Every ```synsema block whose first line is `-- NAME.syn` (and ```python block whose first
line is `# NAME.py`) is written to a scratch folder (a ```jsonl block is written under the last `NAME.jsonl` named just before it); then
every ```console block's `$ ` commands run there, and their output (stdout and stderr
together) must be exactly what the block shows.

    python tools/doc_examples.py check docs/guide.md     # exit 1 and a diff when stale
    python tools/doc_examples.py fill docs/guide.md      # rewrite the outputs
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def run(path, mode, bindir):
    text = open(path, encoding="utf-8").read()
    scratch = tempfile.mkdtemp(prefix="syn-doc-")
    try:
        return _run(text, path, mode, bindir, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)     # a test run leaves nothing behind


def _run(text, path, mode, bindir, scratch):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PATH=bindir + os.pathsep + os.environ["PATH"])
    for k in list(env):
        if k.startswith("SYN_") or k.endswith("_API_KEY"):
            del env[k]
    out, pos, problems = [], 0, []
    for m in BLOCK.finditer(text):
        lang, body = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        if lang in ("synsema", "jsonl", "python"):
            first = body.split("\n", 1)[0]
            if lang == "synsema":
                name = re.match(r"-- (\S+\.syn)$", first)
                name = name and name.group(1)
            elif lang == "python":          # host tools for --tools: `# NAME.py` first
                name = re.match(r"# (\w+\.py)$", first)
                name = name and name.group(1)
            else:
                found = re.findall(r"`([\w.-]+\.jsonl)`", text[max(0, m.start() - 300):m.start()])
                name = found[-1] if found else None
            if name:
                with open(os.path.join(scratch, name), "w", encoding="utf-8") as fh:
                    fh.write(body)
        if lang != "console":
            continue
        new = []
        for cmd in re.findall(r"^\$ (.*)$", body, re.M):
            r = subprocess.run(["bash", "-c", "{ " + cmd + " ; } 2>&1"], cwd=scratch, env=env,
                               capture_output=True, text=True, timeout=120)
            new.append("$ " + cmd + "\n" + r.stdout)
        new_body = "".join(new)
        if new_body != body:
            problems.append((line, body, new_body))
        out.append(text[pos:m.start(2)] + new_body)
        pos = m.end(2)
    out.append(text[pos:])
    if mode == "fill" and problems:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(out))
    return problems


def main(argv):
    mode, paths = argv[0], argv[1:]
    bindir = os.path.dirname(os.path.abspath(sys.executable))
    stale = 0
    for path in paths:
        for line, old, new in run(path, mode, bindir):
            stale += 1
            if mode == "check":
                print(f"{path}:{line}: the example's output is stale\n--- shown\n{old}--- real\n{new}")
    print(f"{stale} example block(s) {'stale' if mode == 'check' else 'refreshed'}")
    return 1 if stale and mode == "check" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
