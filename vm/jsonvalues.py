"""JSON text <-> Synsema values.

json_encode spaces its output like display (`{"a": [1, true, null]}`) and writes numbers
the way display does (an integral float below 1e16 without `.0`). json_decode keeps
integers as ints, of any length, and refuses a lone surrogate. Neither lets a Python
RecursionError escape: too deep is a SynError.
"""
import json
import re

from synsema.vm.digits import int_of_digits
from synsema.vm.errors import SynError
from synsema.vm.values import denorm_key, type_name
from synsema.vm.display import format_number, show_key

_dumps = json.dumps
_INF = float("inf")
_NINF = float("-inf")


def _enc(v):
    t = type(v)
    if t is str:
        return _dumps(v, ensure_ascii=False)
    if t is int:
        return format_number(v)
    if t is float:
        if v != v or v in (_INF, _NINF):
            raise SynError(f"json_encode cannot encode the number {format_number(v)}; "
                           "JSON has no nan or infinity")
        return format_number(v)
    if t is bool:
        return "true" if v else "false"
    if v is None:
        return "null"
    if t is list:
        return "[" + ", ".join([_enc(x) for x in v]) + "]"
    if t is dict:
        parts = []
        for k, x in v.items():
            if type(k) is not str:
                raise SynError(f"json_encode needs text map keys, got the "
                               f"{type_name(denorm_key(k))} key {show_key(k)}; "
                               "use text(key) to make it a text")
            parts.append(_dumps(k, ensure_ascii=False) + ": " + _enc(x))
        return "{" + ", ".join(parts) + "}"
    raise SynError(f"json_encode cannot encode a {type_name(v)}")


def json_encode(v):
    """The JSON text of v."""
    try:
        return _enc(v)
    except RecursionError:
        raise SynError("json_encode: value nested too deeply") from None


def _parse_float(s):
    f = float(s)
    if f in (_INF, _NINF):
        raise SynError(f"json_decode: number out of range: {s}")
    return f


def _parse_constant(name):
    raise SynError(f"json_decode: not valid JSON: {name} is not a JSON value")


_decoder = json.JSONDecoder(parse_float=_parse_float, parse_int=int_of_digits,
                            parse_constant=_parse_constant)

# A lone surrogate can only come from a \uD800-\uDFFF escape that JSON did not pair (or
# from a text that already holds one); this finds every place that may hold one.
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(v):
    """The first lone surrogate (a str of one code point) in any text of the decoded JSON
    value v, keys included, or None. A text holding one cannot be printed or sent as
    UTF-8, so text from outside that has one is refused where it comes in."""
    stack = [v]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is str:
            m = _SURROGATE.search(x)
            if m:
                return m[0]
        elif t is list:
            stack.extend(x)
        elif t is dict:
            stack.extend(x)
            stack.extend(x.values())
    return None


def without_surrogates(v):
    """v (decoded JSON from outside: a model's answer) with every lone surrogate in its
    texts, keys included, replaced by U+FFFD, as undecodable bytes are: such a text could
    not be printed or sent."""
    t = type(v)
    if t is str:
        return _SURROGATE.sub("\ufffd", v)
    if t is list:
        return [without_surrogates(x) for x in v]
    if t is dict:
        return {without_surrogates(k): without_surrogates(x) for k, x in v.items()}
    return v


def json_decode(t):
    """The value written as JSON in the text t (objects -> maps, arrays -> lists)."""
    if type(t) is not str:
        raise SynError(f"json_decode needs a text, got {type_name(t)}")
    try:
        # JSON object keys are always texts, which norm_key leaves as they are.
        v = _decoder.decode(t)
    except json.JSONDecodeError as e:
        raise SynError(f"json_decode: not valid JSON: {e.msg} "
                       f"(line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise SynError("json_decode: JSON nested too deeply") from None
    bad = lone_surrogate(v) if _MAYBE_SURROGATE.search(t) else None
    if bad is not None:
        raise SynError(f"json_decode: the JSON has a lone surrogate \\u{ord(bad):04x}, which is "
                       "not a character; a \\uD800-\\uDBFF escape must be followed by a "
                       "\\uDC00-\\uDFFF one (write the character itself, or both halves)")
    return v
