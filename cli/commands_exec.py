"""`syn exec`: run a precompiled .synb (kept free of click and the compiler)."""

from synsema.cli.runner import load_synb, run


def exec_path(path, values):
    program, code = load_synb(path, "exec")
    if program is None:
        return code
    return run(program, values)
