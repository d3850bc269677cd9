"""The CLI's standard output: print's writer, and how a failed write or Ctrl-C ends `syn`.

(errno is imported where a failure needs it: its module's set-up, a few hundred
constants, was a part of every `syn exec`'s start, issue 31.)"""

import os
import sys


class StdoutFailed(BaseException):
    """Writing to stdout failed (a closed pipe, a full disk, a closed descriptor). A
    BaseException, so it passes through the VM (which turns every Exception escaping a
    builtin into an internal error) to main()."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def write_stdout(text):
    """print's and --call's writer for the CLI; see StdoutFailed."""
    if sys.stdout is None:          # started with stdout closed (`syn run p.syn >&-`)
        import errno
        raise StdoutFailed(OSError(errno.EBADF, "stdout is closed"))
    try:
        sys.stdout.write(text)
    except OSError as e:
        raise StdoutFailed(e) from None


def flush_stdout():
    if sys.stdout is not None:
        try:
            sys.stdout.flush()
        except OSError as e:
            raise StdoutFailed(e) from None


def interrupted():
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()
    os._exit(130)       # at once: the program may still be running in its own thread


def stdout_failed(error):
    """A closed pipe ends the run quietly, as Python's own documentation advises (exit 1,
    no message: `syn run p.syn | head` is not an error the reader needs to see); any other
    failure is one line. os._exit: the program's thread may still hold the stream, and
    the interpreter's final flush would fail again."""
    import errno
    if error.errno != errno.EPIPE:
        sys.stderr.write(f"error: cannot write to stdout: {error.strerror or error}\n")
        sys.stderr.flush()
    os._exit(1)
