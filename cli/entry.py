"""The `syn` (and `synsema`) command's entry point.

`syn exec app.synb` with plain options is parsed here without importing click, so a
precompiled agent starts about as fast as Python itself; everything else (and any
unusual `exec` command line, including --help) goes to the click commands in
cli.commands."""

import os
import sys

from synsema.cli.output import (StdoutFailed, flush_stdout, interrupted,  # noqa: F401
                                stdout_failed, write_stdout)


def script():
    """The `syn` and `synsema` scripts and `python -m synsema`: main(), then the exit."""
    code = main()
    if _quick_exit:
        _exit_now(code)
    sys.exit(code)


# Set by a `syn exec` run that loaded no Python code but Synsema's own (no --tools, no
# --mcp): nothing is left for the interpreter's shutdown to do then but free every object
# one by one, which took 3 of the 20 ms that `syn exec` of a small program may take
# (issue 31), so script() leaves by os._exit instead, when nothing else would run at exit.
_quick_exit = False


def _exit_now(code):
    import atexit
    count = getattr(atexit, "_ncallbacks", None)
    threading = sys.modules.get("threading")
    if count is None or count() or (threading is not None and any(
            not t.daemon and t is not threading.main_thread() and t.is_alive()
            for t in threading.enumerate())):
        return          # an atexit handler or a thread to wait for: the ordinary exit
    try:
        flush_stdout()
        if sys.stderr is not None:
            sys.stderr.flush()
    except (StdoutFailed, OSError):
        return          # the ordinary exit reports it as it would have
    os._exit(code if type(code) is int else 1)


def main(argv=None):
    code = _main(argv)
    threads = sys.modules.get("synsema.runtime.threads")
    if threads is not None and any(t.is_alive() for t in threads.abandoned):
        # A run given up on at its time limit is still in one operation, holding the
        # interpreter: exit now, as on Ctrl-C, rather than wait for it at exit.
        flush_stdout()
        sys.stderr.flush()
        os._exit(code if type(code) is int else 1)
    return code


def _main(argv):
    global _quick_exit
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            if args and args[0] == "exec":
                from synsema.cli.options import parse_fast
                parsed = parse_fast(args[1:])
                if parsed is not None:
                    with no_collection(freeze=True):
                        from synsema.cli.commands_exec import exec_path
                    path, values = parsed
                    code = exec_path(path, values)
                    _quick_exit = not (values["tools"] or values["mcp"])
                    return code
            return _click_main(args)
        finally:
            flush_stdout()      # here, not at exit, so a failure is reported like the rest
    except KeyboardInterrupt:
        interrupted()
    except StdoutFailed as e:
        stdout_failed(e.error)


class no_collection:
    """The cyclic garbage collector off inside (and back as it was after): start-up's
    imports and the loader's checks make objects that all live on, which it would scan
    again and again for nothing (as compiling does: compiler/__init__.py); 16 collections
    of them were about a millisecond of `syn exec`'s start (issue 31). With `freeze`
    (the CLI's, never the library API's: a host's objects are its own), what exists at the
    end is moved out of the collector's reach (gc.freeze), so that a collection during the
    run does not scan the modules' objects again either."""

    def __init__(self, freeze=False):
        self.freeze = freeze

    def __enter__(self):
        import gc
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        import gc
        if self.freeze:
            gc.freeze()
        if self.was:
            gc.enable()


def _click_main(args):
    """The click commands, with click's own Ctrl-C handling ("Aborted!", exit 1) replaced
    by ours: one behaviour, exit 130, for every command."""
    import click
    from synsema.cli.commands import cli
    try:
        return cli.main(args=args, prog_name=_prog_name(), standalone_mode=False)
    except click.exceptions.Abort:
        interrupted()
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except OSError as e:
        if _in_click_stdout_echo(e):
            raise StdoutFailed(e) from None
        raise


def _in_click_stdout_echo(error):
    """Whether `error` came from click writing to stdout itself (--help, --version): the
    one stdout writer that is click's, not write_stdout. The failing write is a C call, so
    the innermost Python frame is click.echo's; `err` false means it wrote to stdout."""
    import click
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    return frame.f_code is click.utils.echo.__code__ and not frame.f_locals.get("err")


def _prog_name():
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "syn"
    return "synsema" if name == "synsema" else "syn"
