"""ProviderError and the key scrubber.

A ProviderError is what the VM turns into a catchable runtime error: its message is
written for the person (or the model) reading it, names the provider, the HTTP status
and the provider's own message, and never contains the API key.
"""

import re

# Providers echo keys back half-masked ("sk-proj-ab****wxyz"); any long token that carries
# a run of asterisks is treated as such an echo.
_MASKED = re.compile(r"[A-Za-z0-9_\-.]*\*{3,}[A-Za-z0-9_\-.*]*")


class ProviderError(Exception):
    """A model call that failed; .message is safe to show (the key is scrubbed)."""

    def __init__(self, message, key=None):
        message = scrub(str(message), key)
        super().__init__(message)
        self.message = message

    def __str__(self):
        return self.message


def scrub(text, key):
    """Replace the key, and half-masked echoes of any key, with "[key]"."""
    if key:
        text = text.replace(key, "[key]")
    if "***" in text:
        text = _MASKED.sub("[key]", text)
    return text


def clip(text, limit=200):
    """One line of at most `limit` characters, for quoting provider text in messages."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
