"""The `syn` (and `synsema`) command's entry point.

`syn exec app.synb` with plain options is parsed here without importing click, so a
precompiled agent starts about as fast as Python itself; everything else (and any
unusual `exec` command line, including --help) goes to the click commands in
cli.commands."""

import os
import sys


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        if args and args[0] == "exec":
            from synsema.cli.options import parse_fast
            parsed = parse_fast(args[1:])
            if parsed is not None:
                from synsema.cli.commands_exec import exec_path
                return exec_path(*parsed)
        from synsema.cli.commands import cli
        return cli.main(args=args, prog_name=_prog_name(), standalone_mode=True)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
        os._exit(130)
    except BrokenPipeError:
        os._exit(0)


def _prog_name():
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "syn"
    return "synsema" if name == "synsema" else "syn"
