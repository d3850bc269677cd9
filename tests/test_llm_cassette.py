"""Cassettes: record against a real server, replay with it stopped (SPEC 11)."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import (KEY, LLMServer, anthropic_text, anthropic_tools, openai_error,  # noqa: E402
                        openai_text, openai_tools, provider_for)

from synsema.stdlib.llm import Provider, ProviderError, config_from  # noqa: E402

ADD = {"name": "add", "describe": "Add two numbers", "params": ["a: number", "b: number"],
       "optional": ["b"]}
INTENT = "answer arithmetic questions"


def agent_run(provider):
    """A two-step loop, as a program would make it."""
    first = provider.step(INTENT, "What is 2 plus 3?", [ADD], "")
    second = provider.step(INTENT, "What is 2 plus 3?", [ADD], " [add => 5]")
    summary = provider.text_op(INTENT, "summarize", "2 plus 3 is 5")
    return [first, second, summary]


def record(tmp_path, api="openai", name="tape.jsonl"):
    tape = str(tmp_path / name)
    with LLMServer() as server:
        if api == "openai":
            server.reply(openai_tools(("add", '{"a": "2", "b": 3}')))
            server.reply(openai_text("2 plus 3 is 5."))
            server.reply(openai_text("Five."))
        else:
            server.reply(anthropic_tools(("add", {"a": "2", "b": 3})))
            server.reply(anthropic_text("2 plus 3 is 5."))
            server.reply(anthropic_text("Five."))
        provider, _ = provider_for(server, api, cassette=tape, cassette_mode="record")
        results = agent_run(provider)
        url = server.url
    return tape, url, results


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_record_then_replay_with_the_server_stopped(tmp_path, api):
    tape, url, recorded = record(tmp_path, api)
    assert recorded[0] == {"kind": "tool", "name": "add", "args": {"a": 2, "b": 3},
                           "id": "call_0" if api == "openai" else "toolu_0", "tokens": 42}
    lines = open(tape, encoding="utf-8").read().splitlines()
    assert len(lines) == 3
    for line in lines:
        item = json.loads(line)
        assert set(item) == {"request", "response"}
        assert set(item["request"]) == {"method", "path", "body"}
        assert item["response"]["status"] == 200
        assert line == json.dumps(item, sort_keys=True, ensure_ascii=False)
    assert KEY not in open(tape, encoding="utf-8").read()

    # the server is gone: replay must not touch the network
    cfg = config_from({"SYN_LLM_URL": url, "SYN_LLM_API": api}, cassette=tape,
                      cassette_mode="replay", model="test-model")
    replayed = agent_run(Provider(cfg, sleep=lambda s: pytest.fail("slept in replay")))
    assert replayed == recorded


def test_replay_without_any_provider_configured(tmp_path):
    tape, _, recorded = record(tmp_path)
    cfg = config_from({"SYN_LLM_CASSETTE": tape, "SYN_LLM_CASSETTE_MODE": "replay",
                      "SYN_LLM_MODEL": "test-model"})
    assert cfg is not None and cfg.host == "api.openai.com"
    assert agent_run(Provider(cfg)) == recorded


def test_tapes_are_deterministic(tmp_path):
    a, _, _ = record(tmp_path, name="a.jsonl")
    b, _, _ = record(tmp_path, name="b.jsonl")
    assert open(a, "rb").read() == open(b, "rb").read()


def test_record_starts_the_tape_afresh(tmp_path):
    tape, _, _ = record(tmp_path)
    record(tmp_path)
    assert len(open(tape, encoding="utf-8").read().splitlines()) == 3


def test_replay_mismatch_names_the_first_difference(tmp_path):
    tape, _, _ = record(tmp_path)
    cfg = config_from({}, cassette=tape, cassette_mode="replay", model="test-model")
    provider = Provider(cfg)
    provider.step(INTENT, "What is 2 plus 3?", [ADD], "")
    with pytest.raises(ProviderError) as err:
        provider.step(INTENT, "What is 2 plus 3?", [ADD], " [add => 6]")
    message = err.value.message
    assert "request 2 is not on the tape" in message
    assert "body.messages[1].content" in message
    assert "[add => 5]" in message and "[add => 6]" in message


def test_replay_mismatch_in_the_model(tmp_path):
    tape, _, _ = record(tmp_path)
    provider = Provider(config_from({}, cassette=tape, cassette_mode="replay", model="other"))
    with pytest.raises(ProviderError, match=r'body\.model: the tape has "test-model", this request has "other"'):
        agent_run(provider)


def test_replay_past_the_end_of_the_tape(tmp_path):
    tape, _, _ = record(tmp_path)
    provider = Provider(config_from({}, cassette=tape, cassette_mode="replay", model="test-model"))
    agent_run(provider)
    with pytest.raises(ProviderError, match="request 4 is not on the tape \\(it holds 3 exchanges\\)"):
        provider.step(INTENT, "again", [ADD], "")


def test_replay_of_a_missing_tape(tmp_path):
    cfg = config_from({}, cassette=str(tmp_path / "none.jsonl"), cassette_mode="replay")
    provider = Provider(cfg)
    with pytest.raises(ProviderError, match="not found"):
        provider.step(INTENT, "x", [], "")


def test_corrupt_tape_names_the_line(tmp_path):
    tape = tmp_path / "bad.jsonl"
    tape.write_text('\n{"request": {}, "response": {"status": 200}}\nnot json\n')
    provider = Provider(config_from({}, cassette=str(tape), cassette_mode="replay", model="test-model"))
    with pytest.raises(ProviderError, match="line 3"):
        provider.step(INTENT, "x", [], "")


def test_auto_replays_what_it_has_and_records_the_rest(tmp_path):
    tape = str(tmp_path / "auto.jsonl")
    with LLMServer() as server:
        server.reply(openai_text("one"))
        provider, _ = provider_for(server, cassette=tape, cassette_mode="auto")
        assert provider.step(INTENT, "first", [], "")["text"] == "one"
        assert len(server.requests) == 1

        server.reply(openai_text("two"))
        provider, _ = provider_for(server, cassette=tape, cassette_mode="auto")
        assert provider.step(INTENT, "first", [], "")["text"] == "one"     # from the tape
        assert len(server.requests) == 1
        assert provider.step(INTENT, "second", [], "")["text"] == "two"    # sent, recorded
        assert len(server.requests) == 2
    assert len(open(tape, encoding="utf-8").read().splitlines()) == 2
    provider = Provider(config_from({}, cassette=tape, cassette_mode="auto", model="test-model"))
    assert provider.step(INTENT, "second", [], "")["text"] == "two"
    with pytest.raises(ProviderError, match="no provider is configured to record it"):
        provider.step(INTENT, "third", [], "")


def test_recorded_errors_replay_as_the_same_error(tmp_path):
    tape = str(tmp_path / "err.jsonl")
    with LLMServer() as server:
        server.reply(openai_error(f"bad key {KEY}", code="invalid_api_key"), 401)
        provider, _ = provider_for(server, cassette=tape, cassette_mode="record")
        with pytest.raises(ProviderError) as recorded:
            provider.step(INTENT, "x", [], "")
    assert KEY not in open(tape, encoding="utf-8").read()
    provider = Provider(config_from({}, cassette=tape, cassette_mode="replay", model="test-model"))
    with pytest.raises(ProviderError) as replayed:
        provider.step(INTENT, "x", [], "")
    assert replayed.value.message.replace("api.openai.com", "127.0.0.1") == recorded.value.message


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_replayed_error_keeps_its_retry_count(tmp_path, api):
    # Issue 33: live "answered HTTP 429 (after 3 attempts): ..." must replay the same.
    from llm_server import anthropic_error
    tape = str(tmp_path / "retried.jsonl")
    body = (openai_error("Rate limit reached", "rate_limit_error", code="rate_limit_exceeded")
            if api == "openai" else anthropic_error("Rate limit reached", "rate_limit_error"))
    with LLMServer() as server:
        server.reply(body, 429, times=3)
        provider, sleeps = provider_for(server, api, cassette=tape, cassette_mode="record")
        with pytest.raises(ProviderError) as recorded:
            provider.step(INTENT, "x", [], "")
        assert len(server.requests) == 3 and len(sleeps) == 2
    assert "answered HTTP 429 (after 3 attempts): Rate limit reached" in recorded.value.message
    (line,) = open(tape, encoding="utf-8").read().splitlines()
    assert json.loads(line)["response"]["attempts"] == 3
    cfg = config_from({"SYN_LLM_URL": "http://127.0.0.1:9", "SYN_LLM_API": api},
                      cassette=tape, cassette_mode="replay", model="test-model")
    with pytest.raises(ProviderError) as replayed:
        Provider(cfg, sleep=lambda s: pytest.fail("slept in replay")).step(INTENT, "x", [], "")
    assert replayed.value.message == recorded.value.message


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_an_error_code_is_appended_even_when_its_digits_are_in_the_message(api):
    # Issue 33: a model named mock-429 put "429" in the text; the code still shows.
    from llm_server import anthropic_error
    body = (openai_error("model mock-429 is rate limited", "rate_limit_error", code="429")
            if api == "openai" else anthropic_error("model mock-429 overloaded", "429"))
    with LLMServer() as server:
        server.reply(body, 400)
        provider, _ = provider_for(server, api)
        with pytest.raises(ProviderError) as e:
            provider.step(INTENT, "x", [], "")
    assert e.value.message.endswith("mock-429 is rate limited (429)" if api == "openai"
                                    else "mock-429 overloaded (429)"), e.value.message
