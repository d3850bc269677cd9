"""`syn exec`: run a precompiled .synb (kept free of click and the compiler)."""

from synsema.cli.files import calls_models, program_files, written_files_error
from synsema.cli.runner import EXIT_USAGE, err, load_synb, run


def exec_path(path, values):
    from synsema.cli.entry import no_collection     # entry imports this module when used
    with no_collection(freeze=True):      # until the program runs
        program, code = load_synb(path, "exec")
    if program is None:
        return code
    refused = written_files_error(values, program_files(path, program),
                                  model=calls_models(program))
    if refused:
        err(refused)
        return EXIT_USAGE
    return run(program, values)
