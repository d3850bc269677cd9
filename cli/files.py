"""The files a command writes besides its output (--audit, the cassette), checked against
those it reads: a run must never append to or rewrite its own program or data. (`syn
exec` reads this module; writing a file all or nothing is cli.replace.)"""

import os

AUDIT_EFFECT = "the audit lines would be appended to it"
CASSETTE_EFFECT = "the recorded model exchanges would be written into it"


def same_file(a, b):
    """Whether the paths `a` and `b` name one file: os.path.samefile when both are there
    (a symlink or a hard link to a file is that file), else the same resolved path (two
    spellings of a file not made yet)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        pass
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _device(path):
    """Whether `path` is a character device (/dev/null, /dev/stderr on a terminal):
    appending to one destroys nothing, so it may be named twice."""
    import stat
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def source_beside(synb_path, program):
    """The source file a .synb's error carets read (api.load, report.Source.beside), or
    None: the one file besides the .synb that `syn exec` reads."""
    from synsema.runtime.report import plain_file_name
    name = program.compiled.source_name
    if not plain_file_name(name):
        return None
    return os.path.join(os.path.dirname(synb_path), name)


def calls_models(program):
    """Can the loaded program call a model at all (else no model setting is read)?"""
    return program.compiled.reaches_model()


def program_files(path, program):
    """[(what, path)] of the files a loaded program came from: the file itself, and for a
    compiled one (whatever its name ends with) the source beside it."""
    files = [("the program", path)]
    beside = source_beside(path, program)
    if beside is not None and not same_file(beside, path):
        files.append(("the source of the program", beside))
    return files


def written_files_error(values, reads, model=True):
    """The usage error (a text) when --audit or the cassette (--cassette, else
    SYN_LLM_CASSETTE) of the run options `values` is an empty path, or the same file
    (cli.files.same_file) as one the command reads or writes otherwise -- `reads`, a list
    of (what, path), None paths left out; --args-file is added here -- or as each other.
    `model`: whether the program can call a model (else its cassette is never opened).
    None when they are fine. The audit log is appended to and a recorded cassette
    rewritten: on a program, a dataset or a results file either would destroy it."""
    cassette = values.get("cassette")
    writes = [("--audit", values.get("audit"), AUDIT_EFFECT),
              ("--cassette", cassette, CASSETTE_EFFECT)]
    if cassette is None and os.environ.get("SYN_LLM_CASSETTE"):
        writes[1] = ("SYN_LLM_CASSETTE", os.environ["SYN_LLM_CASSETTE"], CASSETTE_EFFECT)
    if not model:
        # A program that cannot call a model never opens a cassette (the model settings
        # are not read at all): nothing to refuse.
        del writes[1]
    reads = [(what, p) for what, p in reads if p is not None]
    if values.get("args_file"):
        reads.append(("the --args-file", values["args_file"]))
    for i, (flag, path, effect) in enumerate(writes):
        if path is None:
            continue
        if path == "":
            return f"usage error: {flag} needs a file path, got an empty one"
        others = reads + [(f"the {f} file", p) for f, p, _ in writes[i + 1:] if p]
        for what, other in others:
            if same_file(path, other) and not _device(path):
                return (f"usage error: {flag} {path} is {what} {other}: {effect}; give "
                        "another file")
    return None
