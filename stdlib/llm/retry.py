"""Sending with bounded retries (SPEC 11), as the official SDKs do.

Retried: connection errors, timeouts, HTTP 408, 409, 429 and every 5xx (Anthropic's 529
"overloaded" included), `max_retries` times (2 by default, so at most 3 attempts); never a
429 whose body says `insufficient_quota` (the account is out of money: waiting will not
help). The wait is the server's `retry-after-ms` or `Retry-After` (seconds or an HTTP
date) when given, at most 120 s; otherwise min(0.5 * 2**n, 8) s for retry n (0-based),
shortened by up to 25 % of jitter so many clients do not retry in lockstep.

A run's time limit bounds all of it: `remaining()` gives the seconds the run has left
(None: no limit), each attempt waits at most that long, and a wait that would outlast it
is not started; OutOfTime says the limit ended the call.
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


class OutOfTime(Exception):
    """The run's time limit came before the provider's answer."""


def _no_limit():
    return None


def send(post, who, max_retries, sleep, timeout, remaining=_no_limit, note=None):
    """Call post(seconds) -> (status, headers, text) until it gives a final answer; each
    attempt may take `timeout` seconds, less when the run has less left (`remaining`).

    Returns (status, headers, text, attempts); a non-2xx status is returned, not raised,
    so the caller can read the provider's error body. Raises ProviderError when the
    connection fails or times out on every attempt, OutOfTime when the run's limit comes
    first. `who` names the provider for messages; `note(text)`, if given, hears of each
    retry (for --trace).
    """
    import requests     # lazily: the VM starts without it

    attempt = 0
    while True:
        attempt += 1
        left = remaining()
        if left is not None and left <= 0:
            raise OutOfTime()
        wait_for = timeout if left is None else min(timeout, left)
        try:
            status, headers, text = post(wait_for)
        except requests.exceptions.Timeout:
            if wait_for < timeout:
                raise OutOfTime() from None
            failure = f"no answer within {timeout:g} s (timeout)"
        except requests.exceptions.ConnectionError as exc:
            failure = "cannot connect: " + net.failure(exc)
        except requests.exceptions.RequestException as exc:
            raise ProviderError(f"{who}: request failed: {net.failure(exc)}") from None
        else:
            if not retryable(status, text) or attempt > max_retries:
                return status, headers, text, attempt
            asked = retry_after(headers)
            _pause(backoff(attempt - 1) if asked is None else asked, remaining, sleep, note,
                   f"{who} answered HTTP {status}", attempt, max_retries)
            continue
        if attempt > max_retries:
            raise ProviderError(f"{who}: {failure}{attempts_note(attempt)}") from None
        _pause(backoff(attempt - 1), remaining, sleep, note, f"{who}: {failure}", attempt,
               max_retries)


def _pause(wait, remaining, sleep, note, why, attempt, max_retries):
    """The wait before a retry, unless the run's time would end during it."""
    left = remaining()
    if left is not None and wait >= left:
        raise OutOfTime()
    if note is not None:
        note(f"{why}; retry {attempt} of {max_retries} in {wait:.2g} s")
    sleep(wait)


def attempts_note(attempts):
    return f" (after {attempts} attempts)" if attempts > 1 else ""
