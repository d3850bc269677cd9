"""Every error of a program in one pass: the stages record an error and go on.

The lexer stops at its first error and hands on the lines before it; the parser skips a
line it cannot parse (the block under it kept, as a `broken` statement) and goes on at
the next; the resolver goes on with the next statement. What recovery skipped is not
known, so errors it could cause are not reported: the names written in skipped code
(`unsure`) are never called undeclared, and nothing inside the block of a broken line is
reported (its header might have been a `task`, a loop, ...). A recovery that is not sure
where to go on stops, keeping the errors found so far.
"""

from synsema.vm.errors import CompileError

# Past this many errors a compile stops: the rest of such a file says little more.
MAX_ERRORS = 100


class Problems:
    """The errors of one compile, and what recovery skipped."""
    __slots__ = ("errors", "unsure", "quiet", "partial")

    def __init__(self):
        self.errors = []
        self.unsure = set()     # names written in code that recovery skipped
        self.quiet = 0          # > 0 while resolving the block of a broken line
        self.partial = False    # the lexer stopped early: the rest of the file is unknown

    def add(self, e):
        if not self.quiet and len(self.errors) < MAX_ERRORS:
            self.errors.append(e)

    @property
    def full(self):
        return len(self.errors) >= MAX_ERRORS

    def raise_any(self):
        """Raise the first error (in line order), carrying them all as `errors`."""
        if not self.errors:
            return
        errors = sorted(self.errors, key=lambda e: (e.line, e.col))
        first = errors[0]
        first.errors = errors
        raise first.with_traceback(None)


class Unsure(CompileError):
    """An error recovery may have caused (a name written in skipped code): not reported,
    but it stops the statement as any error does."""
