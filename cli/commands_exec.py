"""`syn exec`: run a precompiled .synb (kept free of click and the compiler)."""

from synsema.cli.runner import load_synb, make_vm, run_vm


def exec_path(path, values):
    program, source = load_synb(path)
    if program is None:
        return source          # the exit code
    vm, code = make_vm(program, values)
    if vm is None:
        return code
    return run_vm(vm, source)
