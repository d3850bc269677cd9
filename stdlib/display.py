"""The shown form of values lives in the ground layer (vm/display.py), beneath both vm/
and stdlib/; these names stay importable from here for code outside them."""
from synsema.vm.display import display, format_number, quote, show_key

__all__ = ["display", "format_number", "quote", "show_key"]
