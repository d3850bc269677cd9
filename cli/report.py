"""Errors as the person at the terminal reads them (SPEC section 6):

    app.syn:4:14: error: cannot add number and text; use text(x) to join a number to a text
        give x + "s"
                 ^
      in task inner (app.syn:4)
      at top level (app.syn:9)
"""

import os

MAX_TRACE = 20


class Source:
    """The source text behind a program, when it can be read (for caret lines)."""

    def __init__(self, name, lines=None, text=None):
        self.name = name
        self.lines = lines
        self.text = text            # the file's text as read, when it came from a file

    @classmethod
    def beside(cls, synb_path, source_name):
        """`syn exec`: the source named in the .synb, if it is readable beside the file
        (errors then name it by the .synb's folder as given: `sub/app.synb` ->
        `sub/app.syn`; else by the name the file records)."""
        path = os.path.join(os.path.dirname(os.path.abspath(synb_path)), source_name)
        try:
            with open(path, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError, ValueError):
            return cls(source_name)
        return cls(os.path.join(os.path.dirname(synb_path), source_name), lines)

    def caret(self, line, col):
        if not self.lines or not 1 <= line <= len(self.lines):
            return ""
        text = self.lines[line - 1].rstrip("\n")
        if not text.strip():
            return ""
        text, at = clip_around(text, max(col, 1) - 1)
        return f"    {text}\n    {' ' * at}^\n"


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
    return f"{err.source_name}:{err.line}:{err.col}: error: {err.message}\n" + \
        source.caret(err.line, err.col)


def _frame_line(func, line, name):
    kind = func.kind
    if kind == "main":
        return f"  at top level ({name}:{line})"
    return f"  in {func.describe()} ({name}:{line})"


def shown_message(err):
    """The message, or the withheld form for an error made from labelled data."""
    labels = getattr(err, "labels", None)
    if labels:
        return f"(message withheld: labelled {', '.join(sorted(labels))})"
    return err.message


def runtime_error(err, source):
    """The full report of an uncaught runtime error, label violation or limit."""
    from synsema.vm.errors import LabelViolation
    name = source.name
    trace = err.trace
    where = trace[0] if trace else None
    out = []
    if isinstance(err, LabelViolation):
        at = f" ({name}:{where[1]})" if where else ""
        out.append(f"label_violation: {err.message}{at}\n")
    elif where:
        out.append(f"{name}:{where[1]}:{where[2]}: error: {shown_message(err)}\n")
        out.append(source.caret(where[1], where[2]))
    else:
        out.append(f"{name}: error: {shown_message(err)}\n")
    frames = []
    for f, line, _ in trace:
        text = _frame_line(f, line, name)
        if frames and frames[-1][0] == text:
            frames[-1][1] += 1
        else:
            frames.append([text, 1])
    frames = [t if n == 1 else f"{t}  (the same call {n} times)" for t, n in frames]
    if len(frames) > MAX_TRACE:
        hidden = len(frames) - 15
        frames = frames[:10] + [f"  ... {hidden} more calls ..."] + frames[-5:]
    out.extend(f + "\n" for f in frames)
    return "".join(out)
