"""Equality and ordering live in the ground layer (vm/equality.py), beneath both vm/ and
stdlib/; these names stay importable from here for code outside them."""
from synsema.vm.equality import compare, equal

__all__ = ["compare", "equal"]
