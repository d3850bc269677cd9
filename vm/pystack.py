"""Python's recursion limit, raised only while Synsema works.

The compiler's stages and the VM's nested calls (a builtin calling back, `call`) recurse
in Python: a sum of N terms is N levels deep, and Python's default limit (1000) would
refuse a program CPython itself compiles. But the limit is one number for the whole
process: left raised, a host's own runaway recursion on its main thread (8 MB of C stack)
would overflow the stack and crash the process instead of raising RecursionError. So it is
raised while a compile or a run is under way, and put back when the last one ends.
"""

import sys
from _thread import allocate_lock   # threading.Lock, without importing threading

LIMIT = 21000

_lock = allocate_lock()
_active = 0
_saved = None


class deep_recursion:
    """Python's recursion limit at least LIMIT inside; the host's own limit after the last
    of the compiles and runs that overlap (from several threads) ends. (A class, not a
    contextlib.contextmanager: contextlib is not on `syn exec`'s start-up path.)"""

    def __enter__(self):
        global _active, _saved
        with _lock:
            if _active == 0:
                _saved = sys.getrecursionlimit()
            _active += 1
            if sys.getrecursionlimit() < LIMIT:
                sys.setrecursionlimit(LIMIT)

    def __exit__(self, *exc):
        global _active
        with _lock:
            _active -= 1
            if _active == 0 and sys.getrecursionlimit() == max(_saved, LIMIT):
                sys.setrecursionlimit(_saved)       # unless the host changed it since
