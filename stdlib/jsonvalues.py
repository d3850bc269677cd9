"""JSON text <-> Synsema values.

json_encode spaces its output like display (`{"a": [1, true, null]}`) and writes numbers
the way display does (an integral float below 1e16 without `.0`). json_decode keeps
integers as ints. Neither lets a Python RecursionError escape: too deep is a SynError.
"""
import json

from synsema.vm.errors import SynError
from synsema.vm.values import denorm_key, type_name
from synsema.stdlib.display import format_number, show_key

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


_decoder = json.JSONDecoder(parse_float=_parse_float, parse_constant=_parse_constant)


def json_decode(t):
    """The value written as JSON in the text t (objects -> maps, arrays -> lists)."""
    if type(t) is not str:
        raise SynError(f"json_decode needs a text, got {type_name(t)}")
    try:
        # JSON object keys are always texts, which norm_key leaves as they are.
        return _decoder.decode(t)
    except json.JSONDecodeError as e:
        raise SynError(f"json_decode: not valid JSON: {e.msg} "
                       f"(line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise SynError("json_decode: JSON nested too deeply") from None
    except ValueError as e:     # e.g. an integer of more than 4300 digits
        raise SynError(f"json_decode: {e}") from None
