"""ProviderError and the key scrubber.

A ProviderError is what the VM turns into a catchable runtime error: its message is
written for the person (or the model) reading it, names the provider, the HTTP status
and the provider's own message, and never contains the API key.
"""

import functools
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
    """Replace the key, however it is escaped, and half-masked echoes of any key, with
    "[key]". A key of any length is scrubbed: a short one is no less secret, and a server
    that needs no key gets the placeholder, which is not scrubbed (so give no key rather
    than a dummy one like "x", which would be scrubbed out of every answer)."""
    if key:
        text = _key_pattern(key).sub("[key]", text)
    if "***" in text:
        text = _MASKED.sub("[key]", text)
    return text


def scrub_json(value, key):
    """A parsed JSON value with scrub() applied to every string in it, object keys too."""
    if isinstance(value, str):
        return scrub(value, key)
    if isinstance(value, list):
        return [scrub_json(v, key) for v in value]
    if isinstance(value, dict):
        return {scrub(k, key): scrub_json(v, key) for k, v in value.items()}
    return value


@functools.lru_cache(maxsize=8)
def _key_pattern(key):
    """Each character of the key as itself or in an escaped form a server might echo it
    in: JSON (\\u0073, \\/), percent-encoding (%73) or an HTML entity (&#115; &#x73;)."""
    forms = []
    for c in key:
        n = ord(c)
        alts = [re.escape(c), "&#0*%d;" % n, "&#[xX]0*(?i:%x);" % n,
                "".join("%%(?i:%02x)" % b for b in c.encode("utf-8"))]
        if n <= 0xFFFF:
            alts.append(r"\\u(?i:%04x)" % n)
        if c == "/":
            alts.append(r"\\/")
        forms.append("(?:" + "|".join(alts) + ")")
    return re.compile("".join(forms))


def clip(text, limit=200):
    """One line of at most `limit` characters, for quoting provider text in messages."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
