"""Retries, backoff, timeouts and error messages (SPEC 11), against a real local server."""

import email.utils
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import (KEY, LLMServer, anthropic_error, anthropic_text, openai_error,  # noqa: E402
                        openai_text, provider_for)

from synsema.stdlib.llm import ProviderError  # noqa: E402
from synsema.stdlib.llm.retry import backoff, retry_after, retryable  # noqa: E402
from synsema.vm.errors import LimitExceeded  # noqa: E402

ADD = {"name": "add", "describe": "Add two numbers", "params": ["a: number", "b: number"],
       "optional": ["b"]}


@pytest.fixture
def server():
    with LLMServer() as s:
        yield s


def step(provider):
    return provider.step("intent", "2+3?", [ADD], "")


def test_429_waits_retry_after_then_succeeds(server):
    server.reply(openai_error("Rate limit reached", "requests", "rate_limit_exceeded"), 429,
                 headers={"Retry-After": "3"})
    server.reply(openai_text("5"))
    provider, sleeps = provider_for(server)
    assert step(provider)["text"] == "5"
    assert sleeps == [3.0]
    assert len(server.requests) == 2


def test_retry_after_ms_wins_and_is_in_seconds(server):
    server.reply(openai_error("slow down"), 429, headers={"retry-after-ms": "1500", "Retry-After": "2"})
    server.reply(openai_text("ok"))
    provider, sleeps = provider_for(server)
    step(provider)
    assert sleeps == [1.5]


def test_retry_after_http_date(server):
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    server.reply(anthropic_error("Overloaded", "overloaded_error"), 529, headers={"Retry-After": when})
    server.reply(anthropic_text("ok"))
    provider, sleeps = provider_for(server, "anthropic")
    step(provider)
    assert len(sleeps) == 1 and 27 <= sleeps[0] <= 30


def test_retry_after_is_capped_at_120_s(server):
    server.reply(openai_error("later"), 503, headers={"Retry-After": "3600"})
    server.reply(openai_text("ok"))
    provider, sleeps = provider_for(server)
    step(provider)
    assert sleeps == [120.0]


def test_5xx_until_retries_run_out(server):
    server.reply(openai_error("The server had an error", "server_error"), 500, times=5)
    provider, sleeps = provider_for(server)
    with pytest.raises(ProviderError) as err:
        step(provider)
    assert len(server.requests) == 3
    message = err.value.message
    assert "openai API at 127.0.0.1" in message and "HTTP 500" in message
    assert "after 3 attempts" in message and "The server had an error" in message
    # backoff without Retry-After: min(0.5 * 2**n, 8) less up to 25 % jitter
    assert len(sleeps) == 2
    assert 0.375 <= sleeps[0] <= 0.5 and 0.75 <= sleeps[1] <= 1.0


def test_max_retries_is_configurable(server):
    server.reply(openai_error("boom"), 502, times=5)
    provider, sleeps = provider_for(server, max_retries=0)
    with pytest.raises(ProviderError, match="HTTP 502: boom"):
        step(provider)
    assert len(server.requests) == 1 and sleeps == []


@pytest.mark.parametrize("status", [408, 409, 529])
def test_other_retryable_statuses(server, status):
    server.reply(anthropic_error("try again", "overloaded_error"), status)
    server.reply(anthropic_text("ok"))
    provider, sleeps = provider_for(server, "anthropic")
    assert step(provider)["text"] == "ok"
    assert len(sleeps) == 1


def test_401_is_not_retried_and_the_echoed_key_is_scrubbed(server):
    echo = f"Incorrect API key provided: {KEY}. Masked: sk-test-SEC****************cdef."
    server.reply(openai_error(echo, "invalid_request_error", "invalid_api_key"), 401)
    provider, sleeps = provider_for(server)
    with pytest.raises(ProviderError) as err:
        step(provider)
    message = err.value.message
    assert len(server.requests) == 1 and sleeps == []
    assert "HTTP 401" in message and "Incorrect API key provided" in message
    assert KEY not in message and KEY not in str(err.value) and "SEC***" not in message
    assert "[key]" in message and "OPENAI_API_KEY" in message


def test_anthropic_401_message(server):
    server.reply(anthropic_error(f"invalid x-api-key {KEY}", "authentication_error"), 401)
    provider, _ = provider_for(server, "anthropic")
    with pytest.raises(ProviderError) as err:
        step(provider)
    assert "anthropic API at 127.0.0.1 answered HTTP 401" in err.value.message
    assert "authentication_error" in err.value.message and KEY not in err.value.message


def test_insufficient_quota_is_not_retried(server):
    server.reply(openai_error("You exceeded your current quota", "insufficient_quota",
                              "insufficient_quota"), 429, headers={"Retry-After": "1"}, times=3)
    provider, sleeps = provider_for(server)
    with pytest.raises(ProviderError) as err:
        step(provider)
    assert len(server.requests) == 1 and sleeps == []
    assert "HTTP 429" in err.value.message and "insufficient_quota" in err.value.message


def test_400_is_not_retried(server):
    server.reply(openai_error("Invalid schema for function 'add'"), 400)
    provider, sleeps = provider_for(server)
    with pytest.raises(ProviderError, match="HTTP 400: Invalid schema for function 'add'"):
        step(provider)
    assert len(server.requests) == 1


def test_non_json_error_body(server):
    server.reply(raw="<html><body>502 Bad Gateway</body></html>", status=502, times=3)
    provider, sleeps = provider_for(server)
    with pytest.raises(ProviderError) as err:
        step(provider)
    message = err.value.message
    assert "HTTP 502" in message and "not a JSON error" in message and "502 Bad Gateway" in message
    assert len(server.requests) == 3


def test_empty_error_body(server):
    server.reply(raw="", status=404)
    provider, _ = provider_for(server)
    with pytest.raises(ProviderError, match=r"HTTP 404: \(empty body\)"):
        step(provider)


def test_timeouts_are_retried_then_reported(server):
    server.reply(openai_text("late"), delay=1.0, times=2)
    provider, sleeps = provider_for(server, timeout=0.15, max_retries=1)
    started = time.monotonic()
    with pytest.raises(ProviderError) as err:
        step(provider)
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 2 and len(sleeps) == 1
    message = err.value.message
    assert "timeout" in message and "0.15 s" in message and "after 2 attempts" in message
    assert "openai API at 127.0.0.1" in message


def test_timeout_then_success(server):
    server.reply(openai_text("late"), delay=1.0)
    server.reply(openai_text("on time"))
    provider, sleeps = provider_for(server, timeout=0.15)
    assert step(provider)["text"] == "on time"


def test_connection_refused(server):
    url = server.url
    server.stop()
    provider, sleeps = provider_for(server, url=url)
    with pytest.raises(ProviderError) as err:
        step(provider)
    assert "cannot connect" in err.value.message and "after 3 attempts" in err.value.message
    assert len(sleeps) == 2


def test_error_text_of_a_200_error_body(server):
    server.reply(openai_error("model 'x' not found"), 200)
    provider, _ = provider_for(server)
    with pytest.raises(ProviderError, match="model 'x' not found"):
        step(provider)


# the run's time limit bounds every wait (Provider.bound) ------------------------------------
def test_a_stalled_server_is_bounded_by_the_runs_time_limit(server):
    # The per-request timeout alone (60 s, 2 retries) would wait three minutes.
    server.reply(openai_text("late"), delay=5.0, times=3)
    provider, sleeps = provider_for(server)
    provider.bound(time.monotonic() + 0.5, 0.5, None)
    started = time.monotonic()
    with pytest.raises(LimitExceeded) as err:
        step(provider)
    assert time.monotonic() - started < 2.0
    assert err.value.message == ("time limit (0.5 s, --timeout) reached while waiting for "
                                 "the model (openai API at 127.0.0.1)")
    assert not err.value.catchable and len(server.requests) == 1 and sleeps == []


def test_a_retry_wait_longer_than_the_time_left_is_not_started(server):
    server.reply(openai_error("slow down", "requests", "rate_limit_exceeded"), 429,
                 headers={"Retry-After": "30"})
    provider, sleeps = provider_for(server)
    provider.bound(time.monotonic() + 5, 5, None)
    with pytest.raises(LimitExceeded, match=r"time limit \(5 s, --timeout\)"):
        step(provider)
    assert sleeps == [] and len(server.requests) == 1


def test_no_time_left_sends_nothing(server):
    provider, _ = provider_for(server)
    provider.bound(time.monotonic() - 1, 2, None)
    with pytest.raises(LimitExceeded):
        step(provider)
    assert server.requests == []


def test_a_request_timeout_within_the_runs_time_is_retried_as_before(server):
    server.reply(openai_text("late"), delay=1.0)
    server.reply(openai_text("on time"))
    provider, sleeps = provider_for(server, timeout=0.15)
    provider.bound(time.monotonic() + 30, 30, None)
    assert step(provider)["text"] == "on time" and len(sleeps) == 1


def test_each_retry_is_noted_for_the_trace(server):
    server.reply(openai_error("overloaded", "server_error"), 503)
    server.reply(openai_text("5"))
    provider, sleeps = provider_for(server)
    notes = []
    provider.bound(None, None, notes.append)
    assert step(provider)["text"] == "5"
    (note,) = notes
    assert note.startswith("openai API at 127.0.0.1 answered HTTP 503; retry 1 of 2 in ")
    assert note.endswith(f"{sleeps[0]:.2g} s")


# the pieces, directly ---------------------------------------------------------------------
def test_retryable_statuses():
    assert all(retryable(s, "") for s in (408, 409, 429, 500, 502, 503, 504, 529))
    assert not any(retryable(s, "") for s in (200, 400, 401, 403, 404, 422))
    assert not retryable(429, '{"error": {"code": "insufficient_quota"}}')


def test_retry_after_parsing():
    assert retry_after({"Retry-After": "2.5"}) == 2.5
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"Retry-After": "999"}) == 120.0
    assert retry_after({"Retry-After": "-4"}) == 0.0
    assert retry_after({"Retry-After": "soon"}) is None
    assert retry_after({}) is None
    now = 1_700_000_000
    assert retry_after({"Retry-After": email.utils.formatdate(now + 10, usegmt=True)}, now=now) == 10


def test_backoff_schedule():
    assert [backoff(n, rand=lambda: 0.0) for n in range(6)] == [0.5, 1, 2, 4, 8, 8]
    assert backoff(0, rand=lambda: 1.0) == 0.375
