"""Writing a file all or nothing: the one way the `syn` commands replace a file they write
(`syn compile`'s .synb, `syn fmt`'s sources, `syn batch`'s sorted results)."""

import os


class Replacement:
    """A new content for `path`, written to a fresh temporary file beside it and renamed
    over it. The temporary file comes from tempfile.mkstemp (a new name, created with
    O_EXCL), never a name derived from `path`: a file or symlink planted at `OUT.tmp`
    could otherwise be the one opened, overwritten, then renamed into place.

    Replacement(path) makes the temporary file: OSError there means the folder cannot be
    written at all. commit(chunks) writes it and renames it over `path`: OSError there
    means the write failed. Either way a failure leaves no temporary file behind."""

    def __init__(self, path):
        self.path = path
        self.mode = _mode(path)
        import tempfile         # here: dear to import, and paid only by a command that writes
        folder = os.path.dirname(os.path.abspath(path))
        self.fd, self.tmp = tempfile.mkstemp(prefix=".syn-", suffix=".tmp", dir=folder)

    def commit(self, chunks):
        """Write the byte strings `chunks`, sync them and rename the file over the path."""
        try:
            with os.fdopen(self.fd, "wb") as fh:
                fh.writelines(chunks)
                fh.flush()
                os.fsync(fh.fileno())       # the rename must never show an empty file
            os.chmod(self.tmp, self.mode)
            os.replace(self.tmp, self.path)
        except BaseException:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            raise


def replace_file(path, chunks):
    """Replace `path` by the byte strings `chunks`, all or nothing; raises OSError."""
    Replacement(path).commit(chunks)


def _mode(path):
    """The permissions the file gets: those of the file it replaces, else those open()
    would give a new one (mkstemp's own are 0o600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)         # read it: there is no other way
        os.umask(umask)
        return 0o666 & ~umask
