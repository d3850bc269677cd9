"""Decimal text <-> int for integers of any size (SPEC 4: integers are unbounded).

CPython refuses `str(n)` and `int(text)` past `sys.get_int_max_str_digits()` digits (4300
by default) with a ValueError. We must not raise that process-wide limit: Synsema runs
inside host programs, and the setting is global and not thread-safe. So past the limit we
convert ourselves, divide and conquer as CPython 3.12's `_pylong` does, so that a million
digits take about a second rather than minutes; below it we keep the fast built-ins.
"""
from synsema.vm.errors import SynError

# Chunks converted by the built-ins: below 640, the smallest limit a host may set.
_CHUNK_DIGITS = 512
_CHUNK_BITS = 1024          # Decimal(int) is not limited; int -> Decimal in chunks this big


def int_text(n):
    """The decimal digits of the int n (with '-' when negative)."""
    try:
        return str(n)
    except ValueError:
        pass
    import decimal      # only for an int past the limit: kept off start-up
    with decimal.localcontext() as ctx:
        ctx.prec = decimal.MAX_PREC
        ctx.Emax = decimal.MAX_EMAX
        ctx.Emin = decimal.MIN_EMIN
        ctx.traps[decimal.Inexact] = True     # exact arithmetic or an error, never rounding
        powers = {}

        def two_to(w):
            p = powers.get(w)
            if p is None:
                if w <= _CHUNK_BITS:
                    p = decimal.Decimal(2) ** w
                else:
                    half = w >> 1
                    p = two_to(half) * two_to(w - half)
                powers[w] = p
            return p

        def convert(m, w):          # m >= 0 has at most w bits
            if w <= _CHUNK_BITS:
                return decimal.Decimal(m)
            half = w >> 1
            hi = m >> half
            return convert(m - (hi << half), half) + convert(hi, w - half) * two_to(half)

        text = str(convert(abs(n), abs(n).bit_length()))
    return "-" + text if n < 0 else text


# The longest integer read from text: the conversion grows faster than its length (two
# million digits take about a second here, ten million twenty), and Python cannot
# interrupt it, so past this a number is refused where it is read (a literal, a .synb
# constant, number(), json_decode, --args, a model's arguments).
MAX_DIGITS = 2_000_000


def int_of_digits(text):
    """The int written in text: an optional sign and ASCII decimal digits (the caller has
    checked that form). SynError past MAX_DIGITS digits."""
    try:
        return int(text)
    except ValueError:
        pass
    sign = text[0] in "+-"
    digits = text[1:] if sign else text
    if len(digits) > MAX_DIGITS:
        raise SynError(f"number too large: an integer of {len(digits):,} digits (at most "
                       f"{MAX_DIGITS:,} are read)")
    powers = {}

    def five_to(w):
        p = powers.get(w)
        if p is None:
            if w <= _CHUNK_DIGITS:
                p = 5 ** w
            else:
                half = w >> 1
                p = five_to(half) * five_to(w - half)
            powers[w] = p
        return p

    def convert(a, b):              # the value of digits[a:b]; 10**w == 5**w << w
        if b - a <= _CHUNK_DIGITS:
            return int(digits[a:b])
        mid = (a + b + 1) >> 1
        w = b - mid
        return convert(mid, b) + ((convert(a, mid) * five_to(w)) << w)

    n = convert(0, len(digits))
    return -n if text[0] == "-" else n
