"""The files of `syn batch` (cli.batch), each read as a stream so that memory stays bounded
by the items in flight, never by the dataset (docs/batch.md, "Memory"):

* Inputs: the dataset (a file, or standard input with `-`), line by line, with a cheap
  counting pass first when it is a regular file (the progress bar's total, and an
  endless or oversized line refused before any item runs).
* Earlier: what `--resume` keeps of a results file. Per input line it holds one byte
  (the status) and, until the results are checked against the inputs, eight (the hash of
  the input line the result was made from): a dense array indexed by line number, not a
  parsed record.
* in_input_order: the final sort, when the file is not in input order already: eight
  bytes per line (where each result starts), the lines copied in order.
"""

import hashlib
import json
import os
import re
import stat
import sys

from synsema.cli import runner

STATUSES = ("ok", "error", "refused", "label_violation", "limit")
BOM = "\ufeff".encode("utf-8")    # a byte-order mark some editors put at a file's start
STDIN = "-"
STDIN_NAME = "<stdin>"


class Stop(Exception):
    """The batch cannot go on: `message` is printed, `code` is the exit code."""

    def __init__(self, message, code):
        super().__init__(message)
        self.message, self.code = message, code


def input_hash(raw):
    """The hash a result line carries of the input line it was made from (the line's
    bytes without its line end): 16 hex digits of BLAKE2b."""
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


def _hash_int(raw):
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big")


class Inputs:
    """The dataset, read as a stream. `lines()` yields (number, raw) for every line (a
    blank one too: its number counts), the line end and a first byte-order mark taken off.
    After a full read `count` holds the lines and `items` the lines that are not blank."""

    def __init__(self, path):
        self.path = path
        self.stdin = path == STDIN
        self.name = STDIN_NAME if self.stdin else path      # as errors name every file
        self.regular = False
        if not self.stdin:
            try:
                self.regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError as e:
                raise Stop(f"usage error: cannot read {path}: {e.strerror or e}",
                           runner.EXIT_USAGE) from None
        self.count = self.items = None      # known once read to the end
        self.used = False                   # standard input is read once

    def lines(self):
        if self.stdin:
            if self.used:
                raise AssertionError("standard input is read once")
            self.used = True
            # A reader of its own: sys.stdin's lock, held by a read that waits for the
            # producer, would be held for ever in a pool worker forked meanwhile (which
            # closes sys.stdin as it starts).
            try:
                fh = open(os.dup(sys.stdin.fileno()), "rb")
            except (OSError, ValueError, AttributeError) as e:
                raise Stop(f"usage error: cannot read standard input: {e}",
                           runner.EXIT_USAGE) from None
            with fh:
                yield from self._read(fh)
            return
        try:
            fh = open(self.path, "rb")
        except OSError as e:
            raise Stop(f"usage error: cannot read {self.path}: {e.strerror or e}",
                       runner.EXIT_USAGE) from None
        with fh:
            yield from self._read(fh)

    def _read(self, fh):
        limit = runner.MAX_ARGS_BYTES
        number = items = 0
        try:
            while True:
                raw = fh.readline(limit + 1)
                if not raw:
                    break
                number += 1
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                    if raw.endswith(b"\r"):
                        raw = raw[:-1]
                elif len(raw) > limit:
                    raise Stop(f"usage error: {self.name}:{number}: the line is longer than "
                               f"{runner.LIMIT_TEXT}, the most an input line may hold",
                               runner.EXIT_USAGE)
                if number == 1:
                    raw = raw.removeprefix(BOM)     # as a .syn source may start with one
                if raw.strip():
                    items += 1
                yield number, raw
        except OSError as e:
            raise Stop(f"usage error: cannot read {self.name}: {e.strerror or e}",
                       runner.EXIT_USAGE) from None
        self.count, self.items = number, items

    def measure(self):
        """A regular file: one pass first, for the number of items (the progress bar's
        total) and so that a line too long stops the batch before any item runs. Another
        kind (standard input, a pipe, a device) is read once, as the items run."""
        if self.regular:
            for _ in self.lines():
                pass


class Earlier:
    """The results a `--resume` keeps (see the module's note for the memory it takes).

    Read from the results file, then checked against the inputs: a second result for one
    input line, a result for a line the inputs do not have (or that is blank), and a
    result made from another input line (its input_hash) are refused, or, with `repair`,
    dropped (their items run again) and the file rewritten without them."""

    def __init__(self, output, inputs, repair):
        self.output, self.inputs, self.repair = output, inputs, repair
        self.status = bytearray(1)      # per input line: 0 no result, else STATUSES index + 1
        self.hashes = bytearray(8)      # per input line: the input_hash of its result
        self.dropped = {"duplicate": 0, "unknown": 0, "other": 0}
        self.last = 0                   # the line of the file's last result
        self.in_order = True            # the file's results are in input order
        self.highest = 0
        self.present = False
        self.checked = False            # every result checked against the inputs

    # ---- reading the results file ----

    def read(self):
        limit = self.inputs.count       # None: standard input, not known yet
        try:
            fh = open(self.output, "rb")
        except FileNotFoundError:
            return self
        except OSError as e:
            raise Stop(f"usage error: cannot read {self.output}: {e.strerror or e}",
                       runner.EXIT_USAGE) from None
        self.present = True
        with fh:
            end = 0
            for number, raw in enumerate(fh, 1):
                if not raw.endswith(b"\n"):
                    break               # cut short: cut off below, its item runs again
                end += len(raw)
                line, status, digest = self._result(raw, number)
                if limit is not None and line > limit:
                    self._mismatch("unknown", number, line, f"{self.inputs.name} has "
                                   f"{limit} lines")
                    continue
                self._grow(line)
                if self.status[line]:
                    self._mismatch("duplicate", number, line, "an earlier line of the "
                                   "file is a result of that input line already")
                    continue
                if digest is None:
                    self._mismatch("other", number, line, "the result has no input_hash, "
                                   "so it cannot be matched with its input (it was not "
                                   "written by this version of syn batch)")
                    continue
                self.status[line] = STATUSES.index(status) + 1
                self.hashes[8 * line:8 * line + 8] = digest.to_bytes(8, "big")
                self.in_order = self.in_order and line > self.last
                self.last = line
                self.highest = max(self.highest, line)
        if end < os.path.getsize(self.output):
            os.truncate(self.output, end)
        return self

    def _result(self, raw, number):
        try:
            result = json.loads(raw)
            line, status = result["line"], result["status"]
            if type(line) is not int or line < 1 or status not in STATUSES:
                raise ValueError
            digest = result.get("input_hash")
            if digest is not None:
                if type(digest) is not str or not re.fullmatch(r"[0-9a-f]{16}", digest):
                    raise ValueError
                digest = int(digest, 16)
        except (ValueError, TypeError, KeyError, AttributeError):
            raise Stop(f"usage error: {self.output}:{number}: not a result line of syn batch; "
                       "give --resume the results file of this batch", runner.EXIT_USAGE
                       ) from None
        return line, status, digest

    def _grow(self, line):
        if line < len(self.status):
            return
        # Doubling keeps the growth amortised; a line number no dataset has (a results
        # file from elsewhere) is one usage error, not all the memory.
        size = max(line + 1, 2 * len(self.status))
        try:
            self.status.extend(bytes(size - len(self.status)))
            self.hashes.extend(bytes(8 * size - len(self.hashes)))
        except (MemoryError, OverflowError):
            raise Stop(f"usage error: {self.output}: a result of input line {line}: no "
                       "dataset this batch reads has that many lines; give --resume the "
                       "results file of this batch", runner.EXIT_USAGE) from None

    def _mismatch(self, kind, number, line, why):
        """A result that does not match the inputs: dropped under --repair, else the batch
        stops before any item runs."""
        self.dropped[kind] += 1
        if self.repair:
            return
        where = f"{self.output}:{number}: " if number else f"{self.output}: "
        raise Stop(f"usage error: {where}the result of input line {line} does not match the "
                   f"inputs: {why}. {self.output} is not the results file of {self.inputs.name}"
                   " as it is now: give the right one, or add --repair to drop the results "
                   "that do not match (their items run again)", runner.EXIT_USAGE)

    # ---- checking against the inputs ----

    def check(self, number, raw):
        """Whether input line `number` (its bytes `raw`) has its result already; a result
        made from another line, or for a blank line, is a mismatch."""
        if number >= len(self.status) or not self.status[number]:
            return False
        if self.checked:
            return True
        if not raw.strip():
            why = f"line {number} of {self.inputs.name} is blank"
        elif self.hashes[8 * number:8 * number + 8] != _hash_int(raw).to_bytes(8, "big"):
            why = (f"it was made from another input line than line {number} of "
                   f"{self.inputs.name} (another dataset, or the line changed since)")
        else:
            return True
        self._mismatch("unknown" if not raw.strip() else "other", 0, number, why)
        self.status[number] = 0
        return False

    def check_all(self):
        """A regular file: every result checked against the inputs before any item runs;
        with --repair the file is then rewritten without the results dropped."""
        for number, raw in self.inputs.lines():
            self.check(number, raw)
        if self.repair and sum(self.dropped.values()):
            self._rewrite()
        self.checked = True
        self.hashes = bytearray()       # needed no more

    def check_end(self):
        """Standard input read to its end: a result for a line beyond it matches nothing."""
        if self.highest > self.inputs.count:
            self._mismatch("unknown", 0, self.highest,
                           f"{self.inputs.name} has {self.inputs.count} lines")

    def _rewrite(self):
        """Keep the first result of each line that matched its input, in one atomic
        replacement of the file (cli.replace)."""
        from synsema.cli.replace import replace_file
        kept = bytearray(len(self.status))
        self.last, self.in_order = 0, True

        def keep():
            with open(self.output, "rb") as fh:
                for number, raw in enumerate(fh, 1):
                    line, _, digest = self._result(raw, number)
                    if line >= len(self.status) or not self.status[line] or kept[line] or \
                            digest is None or \
                            self.hashes[8 * line:8 * line + 8] != digest.to_bytes(8, "big"):
                        continue
                    kept[line] = 1
                    self.in_order = self.in_order and line > self.last
                    self.last = line
                    yield raw
        try:
            replace_file(self.output, keep())
        except OSError as e:
            raise Stop(f"error: cannot repair {self.output}: {e.strerror or e}; it is left "
                       "as it was", runner.EXIT_ERROR) from None
        # A duplicate whose first result was kept is dropped; a line whose results all
        # failed the check has none left: either way `kept` is now the truth.
        for line in range(len(self.status)):
            if self.status[line] and not kept[line]:
                self.status[line] = 0

    def repaired_text(self):
        parts = [f"{n} {what}" for what, n in (
            ("second results of one input line", self.dropped["duplicate"]),
            ("results of lines the inputs do not have", self.dropped["unknown"]),
            ("results made from other input lines", self.dropped["other"])) if n]
        return f"repaired {self.output}: dropped {', '.join(parts)}; their items run again"

    def done(self, number):
        return number < len(self.status) and self.status[number] != 0

    def counts(self):
        return {s: self.status.count(i + 1) for i, s in enumerate(STATUSES)}



# ---- the final sort --------------------------------------------------------------------------

_LINE = re.compile(rb'\{"line": (\d+)[,}]')


def in_input_order(output):
    """Once every input has its result: the file's lines in input order, written to a copy
    that replaces the file in one rename (cli.replace: never a half-sorted file). A file in
    order already is left as it is. Memory: eight bytes per line of the file."""
    highest, last, in_order = 0, 0, True
    with open(output, "rb") as fh:
        for raw in fh:
            try:
                line = json.loads(raw)["line"]
                if type(line) is not int or line < 1:
                    raise TypeError
            except (ValueError, KeyError, TypeError):
                _foreign(output)
            in_order = in_order and line > last
            last, highest = line, max(highest, line)
    if in_order:
        return
    try:
        starts = memoryview(bytearray(8 * (highest + 1))).cast("Q")     # offset + 1, 0: none
    except (MemoryError, OverflowError):
        _foreign(output, f"a result of input line {highest}, more lines than any dataset")
    with open(output, "rb") as fh:
        at = 0
        for raw in fh:
            match = _LINE.match(raw)
            line = int(match.group(1)) if match else json.loads(raw)["line"]
            if starts[line]:
                _foreign(output, f"two results for input line {line}")
            starts[line] = at + 1
            at += len(raw)

    def lines():
        with open(output, "rb") as fh:
            for at in starts:
                if at:
                    fh.seek(at - 1)
                    yield fh.readline()

    from synsema.cli.replace import replace_file
    try:
        replace_file(output, lines())
    except OSError as e:
        raise Stop(f"error: cannot put {output} in input order: {e.strerror or e}; every "
                   "result is in it, in the order the items finished", runner.EXIT_ERROR
                   ) from None


def _foreign(output, what="lines that are not results of this batch"):
    # Something else wrote to the file while the batch ran: its lines are left as they
    # are, with every result, rather than sorted in among them.
    raise Stop(f"error: {output} holds {what} (something else wrote to it while it ran): "
               "it is left in the order the items finished", runner.EXIT_ERROR) from None
