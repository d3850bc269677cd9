"""The JSON mapping of values lives in the ground layer (vm/jsonvalues.py), beneath both
vm/ and stdlib/; these names stay importable from here for code outside them."""
from synsema.vm.jsonvalues import json_decode, json_encode, lone_surrogate

__all__ = ["json_decode", "json_encode", "lone_surrogate"]
