"""Errors as the person at the terminal reads them (SPEC section 6):

    app.syn:4:14: error: cannot add number and text; use text(x) to join a number to a text
        give x + "s"
                 ^
      in task inner (app.syn:4)
      at top level (app.syn:9)
"""

import os
import stat
from _thread import allocate_lock   # threading.Lock, without importing threading

MAX_TRACE = 20

# The largest source file read beside a .synb for caret lines: a bigger one (or one that
# is not a regular file: a FIFO, a device) is not read, and errors show positions alone.
MAX_SOURCE_BYTES = 10 * 1024 * 1024

# Characters a terminal acts on rather than shows: C0 and C1 controls, DEL, and the
# bidirectional marks, embeddings, overrides and isolates (which reorder what follows,
# so a text could hide or fake a line). Text from a program is shown with them escaped.
# Compiled when first wanted (_unsafe): `re` is not on the path of a run that shows only
# names that need no escape (`syn exec` of a small program: issue 31, start-up).
_UNSAFE = _UNSAFE_IN_JSON = None
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _unsafe():
    global _UNSAFE, _UNSAFE_IN_JSON
    if _UNSAFE is None:
        import re
        _UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                                     "\u202a-\u202e\u2066-\u2069]")     # json.dumps does C0
        _UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                             "\u202a-\u202e\u2066-\u2069]")
    return _UNSAFE


def _escape(m):
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def printable(text, lines=False):
    """`text` (from a program: a name, an intent, a message) safe to show on a terminal:
    control and bidi characters as escapes (\\n, \\x1b, \\u202e). With `lines`, newlines
    and tabs stay (a block of several lines)."""
    text = text if isinstance(text, str) else str(text)
    if text.isascii() and text.isprintable():
        return text             # no control character (and no bidi mark: all ASCII)
    unsafe = _unsafe()
    if lines:
        return "\n".join(unsafe.sub(lambda m: "\t" if m.group() == "\t" else _escape(m),
                                     part) for part in text.split("\n"))
    return unsafe.sub(_escape, text)


def json_text(data, **options):
    """json.dumps keeping non-ASCII text as it is, but with the characters printable
    escapes (C1 controls, bidi marks: json.dumps escapes only C0) as \\u escapes: JSON a
    terminal shows as it is. They occur only inside strings, where the escape is valid."""
    import json
    _unsafe()
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}",
                               json.dumps(data, ensure_ascii=False, **options))


def source_lines(text):
    r"""The lines of a source as the lexer numbers them: split at \n only, a \r\n's \r
    dropped (str.splitlines() also splits at \r, \x0b, \x0c, \x1c-\x1e, \x85, \u2028
    and \u2029, which the lexer keeps inside a line: the caret would show a wrong line)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()                 # the newline ending the last line starts no other
    return [line[:-1] if line.endswith("\r") else line for line in lines]


class Source:
    """The source text behind a program, when it can be read (for caret lines). A source
    beside a .synb is read only when a line of it is first wanted (`lines`). `lines` is
    a list of lines, or the source text, split (source_lines) when first wanted."""

    def __init__(self, name, lines=None, text=None, path=None):
        self.name = printable(name)
        self._lines = lines
        self.text = text            # the file's text as read, when it came from a file
        self._path = path           # a file to read `lines` from, once, when wanted

    @property
    def lines(self):
        if self._path is not None or isinstance(self._lines, str):
            with _reading:          # a Program serves several threads at once
                if self._path is not None:
                    self._lines = _read_source(self._path)
                    self._path = None
                elif isinstance(self._lines, str):
                    self._lines = source_lines(self._lines)
        return self._lines

    @classmethod
    def beside(cls, synb_path, source_name):
        """`syn exec`: the source named in the .synb, if it is readable beside the file
        (errors then name it by the .synb's folder as given: `sub/app.synb` ->
        `sub/app.syn`; else by the name the file records). The name is taken only when it
        is a plain file name: a .synb is data from anyone, and `/etc/shadow` or
        `../secret` would show lines of another file in the error carets."""
        if not plain_file_name(source_name):
            return cls(source_name)
        path = os.path.join(os.path.dirname(os.path.abspath(synb_path)), source_name)
        try:
            st = os.lstat(path)     # a look only (a FIFO's stat does not wait): read later
        except (OSError, ValueError):
            return cls(source_name)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
            return cls(source_name)
        return cls(os.path.join(os.path.dirname(synb_path), source_name), path=path)

    def caret(self, line, col):
        lines = self.lines
        if not lines or not 1 <= line <= len(lines):
            return ""
        text = lines[line - 1].rstrip("\n")
        if not text.strip():
            return ""
        # A column past the line's end (a crafted positions table) points just after it.
        at = min(max(col, 1) - 1, len(text))
        text, at = clip_around(text, at)
        # What is before the caret as the terminal draws it: escapes widen it, tabs stay.
        pad = "".join(map(_blank, printable(text[:at], lines=True)))
        return f"    {printable(text, lines=True)}\n    {pad}^\n"


def _blank(c):
    """What takes the room of `c` on the caret line: a tab for a tab (it reaches the same
    tab stop), two spaces for a wide or fullwidth character, none for a combining mark or
    a format character (a zero-width space or joiner, a soft hyphen: printed as they are)."""
    if c == "\t":
        return c
    import unicodedata              # a caret line is on an error's path only
    if unicodedata.category(c) in ("Mn", "Me", "Cf"):
        return ""
    return "  " if unicodedata.east_asian_width(c) in ("W", "F") else " "


_reading = allocate_lock()


def plain_file_name(name):
    return (isinstance(name, str) and name not in ("", ".", "..") and "\0" not in name
            and name == os.path.basename(name) and (os.altsep is None or os.altsep not in name))


def _read_source(path):
    """The lines of the regular file at `path` of at most MAX_SOURCE_BYTES, else None.
    Opened without blocking (a FIFO would wait for a writer) and without following a
    symbolic link, then checked on the open file (no race with a swap of the name)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
            return None
        with os.fdopen(fd, "rb") as fh:
            fd = None
            data = fh.read(MAX_SOURCE_BYTES + 1)
        if len(data) > MAX_SOURCE_BYTES:
            return None
        # Without a byte-order mark, as compile_file compiled it (columns count from 1).
        return source_lines(data.decode("utf-8").removeprefix("\ufeff"))
    except (OSError, UnicodeDecodeError, ValueError, MemoryError):
        return None
    finally:
        if fd is not None:
            os.close(fd)


CARET_WIDTH = 100


def clip_around(text, at, width=CARET_WIDTH):
    """(a window of at most about `width` characters of a long line around index `at`,
    "..." marking what was cut; the caret's index in it)."""
    if len(text) <= width:
        return text, at
    start = min(max(at - width // 2, 0), len(text) - width)
    shown = text[start:start + width]
    if start > 0:
        shown, at = "..." + shown, at - start + 3
    if start + width < len(text):
        shown += "..."
    return shown, at


def compile_error(err, source):
    """Every error of a compile (err.errors, in line order; err is the first), each as
    FILE:LINE:COL: error: MESSAGE and its caret line."""
    name = printable(err.source_name)
    return "".join(f"{name}:{e.line}:{e.col}: error: {printable(e.message, lines=True)}\n" +
                   source.caret(e.line, e.col) for e in getattr(err, "errors", [err]))


def _frame_line(func, line, name):
    kind = func.kind
    if kind == "main":
        return f"  at top level ({name}:{line})"
    return f"  in {printable(func.describe())} ({name}:{line})"


# A message longer than this (an assert_eq of two huge lists) is cut in a report.
MAX_MESSAGE = 8000


def clip(text, limit, what="characters"):
    """`text` cut to its first `limit` characters, with a note of how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more {what} not shown)"


def lets_out(ceiling, labels):
    """Does the host ceiling let a reader of this run's output see what carries `labels`
    (SPEC 10: its `stdout=` items, or `*`, cover every one)? With no ceiling, nothing
    labelled is shown."""
    return not labels or (ceiling is not None and not ceiling.blocked(labels))


def shown_message(err, ceiling=None):
    """The message (cut to MAX_MESSAGE), or the withheld form for an error made from
    labelled data that the ceiling (when given) does not let out."""
    from synsema.vm.errors import LabelViolation
    labels = getattr(err, "labels", None)
    if labels and not isinstance(err, LabelViolation) and not lets_out(
            ceiling, labels | getattr(err, "secret_pc", frozenset())):
        # (a violation names labels, no data)
        return f"(message withheld: labelled {', '.join(sorted(labels))})"
    return printable(clip(err.message, MAX_MESSAGE), lines=True)


def shown_frames(err, ceiling=None):
    """How many of the error's innermost trace entries a report withholds: those that
    ran under a labelled pc (SynError.secret_frames), unless the ceiling lets its labels
    out."""
    withheld = getattr(err, "secret_frames", 0)
    if withheld and lets_out(ceiling, getattr(err, "secret_pc", frozenset())):
        return 0
    return withheld


def runtime_error(err, source, ceiling=None):
    """The full report of an uncaught runtime error, label violation or limit. `ceiling`:
    the run's host ceiling; what it lets out (stdout=LABEL) is shown (SPEC 10)."""
    from synsema.vm.errors import LabelViolation
    name = source.name
    trace = err.trace
    # The innermost calls that ran under a labelled pc: which lines they were at, and how
    # many there were, depend on the labels (a recursion can spell a secret in its line
    # numbers), so neither is shown; the calls outside them are.
    withheld = shown_frames(err, ceiling)
    trace = trace[withheld:]
    where = trace[0] if trace and not withheld else None
    out = []
    if isinstance(err, LabelViolation):
        at = f" ({name}:{where[1]})" if where else ""
        out.append(f"label_violation: {printable(clip(err.message, MAX_MESSAGE), lines=True)}"
                   f"{at}\n")
    elif where:
        out.append(f"{name}:{where[1]}:{where[2]}: error: {shown_message(err, ceiling)}\n")
        out.append(source.caret(where[1], where[2]))
    else:
        out.append(f"{name}: error: {shown_message(err, ceiling)}\n")
    frames = []
    for f, line, _ in trace:
        text = _frame_line(f, line, name)
        if frames and frames[-1][0] == text:
            frames[-1][1] += 1
        else:
            frames.append([text, 1])
    frames = [t if n == 1 else f"{t}  (the same call {n} times)" for t, n in frames]
    if withheld:
        frames.insert(0, "  in code that ran under a labelled condition (where, and in how "
                         "many calls, is withheld)")
    if len(frames) > MAX_TRACE:
        hidden = len(frames) - 15
        frames = frames[:10] + [f"  ... {hidden} more calls ..."] + frames[-5:]
    out.extend(f + "\n" for f in frames)
    return "".join(out)
