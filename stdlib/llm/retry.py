"""Sending with bounded retries (SPEC 11), as the official SDKs do.

Retried: connection errors, timeouts, HTTP 408, 409, 429 and every 5xx (Anthropic's 529
"overloaded" included), `max_retries` times (2 by default, so at most 3 attempts); never a
429 whose body says `insufficient_quota` (the account is out of money: waiting will not
help). The wait is the server's `retry-after-ms` or `Retry-After` (seconds or an HTTP
date) when given, at most 120 s; otherwise min(0.5 * 2**n, 8) s for retry n (0-based),
shortened by up to 25 % of jitter so many clients do not retry in lockstep.
"""

import email.utils
import random
import time

from synsema.stdlib import net

from .errors import ProviderError

MAX_WAIT = 120.0


def retryable(status, text):
    if status == 429 and "insufficient_quota" in (text or ""):
        return False
    return status in (408, 409, 429) or 500 <= status <= 599


def retry_after(headers, now=None):
    """Seconds the server asked us to wait, capped at MAX_WAIT, or None."""
    lower = {str(k).lower(): v for k, v in (headers or {}).items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            return _cap(float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        return _cap(float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return _cap(when.timestamp() - now)


def _cap(seconds):
    if seconds != seconds:          # NaN
        return None
    return min(max(seconds, 0.0), MAX_WAIT)


def backoff(n, rand=random.random):
    """The wait before retry n (0-based) when the server gave none."""
    return min(0.5 * 2 ** n, 8.0) * (1 - 0.25 * rand())


def send(post, who, max_retries, sleep, timeout):
    """Call post() -> (status, headers, text) until it gives a final answer.

    Returns (status, headers, text, attempts); a non-2xx status is returned, not raised,
    so the caller can read the provider's error body. Raises ProviderError when the
    connection fails or times out on every attempt. `who` names the provider for messages.
    """
    import requests     # lazily: the VM starts without it

    attempt = 0
    while True:
        attempt += 1
        try:
            status, headers, text = post()
        except requests.exceptions.Timeout:
            failure = f"no answer within {timeout:g} s (timeout)"
        except requests.exceptions.ConnectionError as exc:
            failure = "cannot connect: " + net.failure(exc)
        except requests.exceptions.RequestException as exc:
            raise ProviderError(f"{who}: request failed: {net.failure(exc)}") from None
        else:
            if not retryable(status, text) or attempt > max_retries:
                return status, headers, text, attempt
            wait = retry_after(headers)
            sleep(backoff(attempt - 1) if wait is None else wait)
            continue
        if attempt > max_retries:
            raise ProviderError(f"{who}: {failure}{attempts_note(attempt)}") from None
        sleep(backoff(attempt - 1))


def attempts_note(attempts):
    return f" (after {attempts} attempts)" if attempts > 1 else ""
