"""config_from: which provider a run talks to (SPEC 11)."""

import subprocess
import sys

import pytest

from synsema.stdlib.llm import LLMConfig, config_from
from synsema.stdlib.llm.config import normalize_url


def test_nothing_set_is_offline():
    assert config_from({}) is None
    assert config_from({"SYN_LLM_MODEL": "m", "SYN_LLM_API": "openai"}) is None
    assert config_from({"SYN_LLM_URL": "  "}) is None


def test_url_alone_is_openai_with_placeholder_key():
    c = config_from({"SYN_LLM_URL": "http://localhost:11434"})
    assert (c.api, c.url, c.host, c.key) == ("openai", "http://localhost:11434/v1", "localhost", None)
    assert c.send_key == "no-key"
    assert c.model == "gpt-4o-mini" and c.max_retries == 2 and c.timeout > 0
    assert c.cassette is None


def test_api_inferred_from_host():
    c = config_from({"SYN_LLM_URL": "https://api.anthropic.com/", "SYN_LLM_KEY": "k"})
    assert (c.api, c.url, c.host, c.key) == ("anthropic", "https://api.anthropic.com",
                                             "api.anthropic.com", "k")
    assert c.model == "claude-haiku-4-5"
    assert config_from({"SYN_LLM_URL": "https://my-anthropic-proxy.example.com"}).api == "anthropic"
    assert config_from({"SYN_LLM_URL": "https://example.com/anthropic"}).api == "openai"


def test_provider_key_alone_selects_public_url():
    c = config_from({"OPENAI_API_KEY": "sk-o"})
    assert (c.api, c.url, c.key) == ("openai", "https://api.openai.com/v1", "sk-o")
    c = config_from({"ANTHROPIC_API_KEY": "sk-a"})
    assert (c.api, c.url, c.key, c.host) == ("anthropic", "https://api.anthropic.com", "sk-a",
                                             "api.anthropic.com")


def test_both_provider_keys_need_a_choice():
    env = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"}
    with pytest.raises(ValueError, match="SYN_LLM_API"):
        config_from(env)
    c = config_from(env, api="anthropic")
    assert (c.api, c.key) == ("anthropic", "sk-a")
    assert config_from({**env, "SYN_LLM_API": "openai"}).key == "sk-o"


def test_syn_key_wins_and_needs_a_provider():
    c = config_from({"SYN_LLM_URL": "https://api.openai.com/v1", "SYN_LLM_KEY": "sk-syn",
                     "OPENAI_API_KEY": "sk-o"})
    assert c.key == "sk-syn"
    assert config_from({"SYN_LLM_KEY": "k", "SYN_LLM_API": "anthropic"}).url == "https://api.anthropic.com"
    with pytest.raises(ValueError, match="SYN_LLM_KEY"):
        config_from({"SYN_LLM_KEY": "k"})


def test_url_uses_the_chosen_apis_key():
    c = config_from({"SYN_LLM_URL": "http://gw.local", "SYN_LLM_API": "anthropic",
                     "OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"})
    assert (c.api, c.key, c.url) == ("anthropic", "sk-a", "http://gw.local")


def test_overrides_win_over_env():
    env = {"SYN_LLM_URL": "http://a.local", "SYN_LLM_API": "openai", "SYN_LLM_MODEL": "m1",
           "SYN_LLM_CASSETTE": "a.jsonl", "SYN_LLM_CASSETTE_MODE": "record"}
    c = config_from(env, url="http://b.local/", api="anthropic", model="m2",
                    cassette="b.jsonl", cassette_mode="replay")
    assert (c.url, c.api, c.model, c.cassette, c.cassette_mode) == \
        ("http://b.local", "anthropic", "m2", "b.jsonl", "replay")
    c = config_from(env)
    assert (c.url, c.api, c.model, c.cassette, c.cassette_mode) == \
        ("http://a.local/v1", "openai", "m1", "a.jsonl", "record")


def test_invalid_values_name_the_setting_and_valid_values():
    with pytest.raises(ValueError, match="SYN_LLM_API must be 'openai' or 'anthropic', got 'gemini'"):
        config_from({"SYN_LLM_URL": "http://x", "SYN_LLM_API": "gemini"})
    with pytest.raises(ValueError, match="--llm-api"):
        config_from({}, url="http://x", api="claude")
    with pytest.raises(ValueError, match="SYN_LLM_CASSETTE_MODE must be 'record', 'replay' or 'auto'"):
        config_from({"SYN_LLM_URL": "http://x", "SYN_LLM_CASSETTE": "t", "SYN_LLM_CASSETTE_MODE": "play"})
    with pytest.raises(ValueError, match="--cassette-mode"):
        config_from({}, cassette="t", cassette_mode="rec")
    with pytest.raises(ValueError, match="SYN_LLM_URL must be an http"):
        config_from({"SYN_LLM_URL": "localhost:11434"})


def test_api_and_mode_are_case_insensitive():
    c = config_from({"SYN_LLM_URL": "http://x", "SYN_LLM_API": "OpenAI",
                     "SYN_LLM_CASSETTE": "t", "SYN_LLM_CASSETTE_MODE": "Replay"})
    assert (c.api, c.cassette_mode) == ("openai", "replay")


def test_cassette_replay_without_provider_is_configured():
    c = config_from({"SYN_LLM_CASSETTE": "tape.jsonl", "SYN_LLM_CASSETTE_MODE": "replay"})
    assert c is not None and c.network is False
    assert (c.api, c.host) == ("openai", "api.openai.com")
    c = config_from({}, api="anthropic", cassette="tape.jsonl", cassette_mode="replay")
    assert (c.api, c.host, c.network) == ("anthropic", "api.anthropic.com", False)
    assert config_from({}, cassette="t.jsonl").cassette_mode == "auto"


def test_cassette_record_needs_a_provider():
    with pytest.raises(ValueError, match="record"):
        config_from({}, cassette="t.jsonl", cassette_mode="record")


@pytest.mark.parametrize("api, url, expected", [
    ("openai", "http://localhost:11434", "http://localhost:11434/v1"),
    ("openai", "http://localhost:11434/", "http://localhost:11434/v1"),
    ("openai", "http://localhost:11434/v1", "http://localhost:11434/v1"),
    ("openai", "http://localhost:11434/v1/", "http://localhost:11434/v1"),
    ("openai", "http://localhost:8000/v1/chat/completions", "http://localhost:8000/v1"),
    ("openai", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"),
    ("openai", "https://generativelanguage.googleapis.com/v1beta/openai/",
     "https://generativelanguage.googleapis.com/v1beta/openai"),
    ("anthropic", "https://api.anthropic.com", "https://api.anthropic.com"),
    ("anthropic", "https://api.anthropic.com/", "https://api.anthropic.com"),
    ("anthropic", "https://api.anthropic.com/v1", "https://api.anthropic.com"),
    ("anthropic", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com"),
    ("anthropic", "https://proxy.example.com/anthropic/", "https://proxy.example.com/anthropic"),
])
def test_url_normalisation(api, url, expected):
    assert normalize_url(api, url) == expected


def test_repr_never_shows_the_key():
    c = LLMConfig("openai", "http://x", key="sk-very-secret")
    assert "sk-very-secret" not in repr(c) and "[key]" in repr(c)


def test_importing_does_not_import_requests():
    code = ("import sys, synsema.stdlib.llm as m; m.config_from({'SYN_LLM_URL': 'http://x'}); "
            "print('requests' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_request_timeout_and_retries_from_env_and_flags():
    c = config_from({"SYN_LLM_URL": "http://localhost:8000", "SYN_LLM_TIMEOUT": "7.5",
                     "SYN_LLM_MAX_RETRIES": "0"})
    assert (c.timeout, c.max_retries) == (7.5, 0)
    c = config_from({"SYN_LLM_URL": "http://localhost:8000", "SYN_LLM_TIMEOUT": "7.5"},
                    timeout=3, max_retries=5)
    assert (c.timeout, c.max_retries) == (3.0, 5)
    c = config_from({"SYN_LLM_URL": "http://localhost:8000"})
    assert (c.timeout, c.max_retries) == (60.0, 2)


@pytest.mark.parametrize("var, value", [
    ("SYN_LLM_TIMEOUT", "nan"), ("SYN_LLM_TIMEOUT", "inf"), ("SYN_LLM_TIMEOUT", "1e300"),
    ("SYN_LLM_TIMEOUT", "0"), ("SYN_LLM_TIMEOUT", "soon"), ("SYN_LLM_MAX_RETRIES", "-1"),
    ("SYN_LLM_MAX_RETRIES", "1.5"), ("SYN_LLM_MAX_RETRIES", "1000")])
def test_bad_timeout_or_retries_name_the_setting(var, value):
    with pytest.raises(ValueError, match=var):
        config_from({"SYN_LLM_URL": "http://localhost:8000", var: value})


def test_provider_base_urls_replace_the_public_host():
    c = config_from({"OPENAI_API_KEY": "sk-o", "OPENAI_BASE_URL": "https://gw.example.com/v1"})
    assert (c.api, c.url, c.host, c.key) == ("openai", "https://gw.example.com/v1",
                                             "gw.example.com", "sk-o")
    c = config_from({"ANTHROPIC_API_KEY": "sk-a",
                     "ANTHROPIC_BASE_URL": "https://claude-proxy.example.com/"})
    assert (c.api, c.url, c.host) == ("anthropic", "https://claude-proxy.example.com",
                                      "claude-proxy.example.com")
    # Each SDK's variable serves only its own provider; SYN_LLM_URL wins over both.
    c = config_from({"ANTHROPIC_API_KEY": "sk-a", "OPENAI_BASE_URL": "https://gw.example.com"})
    assert c.host == "api.anthropic.com"
    c = config_from({"OPENAI_API_KEY": "sk-o", "OPENAI_BASE_URL": "https://gw.example.com",
                     "SYN_LLM_URL": "http://localhost:8000"})
    assert c.host == "localhost"
    with pytest.raises(ValueError, match="OPENAI_BASE_URL"):
        config_from({"OPENAI_API_KEY": "sk-o", "OPENAI_BASE_URL": "gw.example.com"})


def test_both_keys_are_fine_for_a_replay_which_sends_nothing():
    env = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"}
    c = config_from(env, cassette="t.jsonl", cassette_mode="replay")
    assert (c.api, c.network, c.key) == ("openai", False, None)
    c = config_from(env, api="anthropic", cassette="t.jsonl", cassette_mode="replay")
    assert (c.api, c.network, c.key) == ("anthropic", False, None)
    with pytest.raises(ValueError, match="both OPENAI_API_KEY and ANTHROPIC_API_KEY"):
        config_from(env, cassette="t.jsonl", cassette_mode="record")


@pytest.mark.parametrize("env, flags, setting", [
    ({}, {"cassette_mode": "replay"}, "--cassette-mode"),
    ({"SYN_LLM_CASSETTE_MODE": "record", "SYN_LLM_URL": "http://localhost:8000"}, {},
     "SYN_LLM_CASSETTE_MODE")])
def test_a_cassette_mode_needs_a_cassette(env, flags, setting):
    with pytest.raises(ValueError, match=f"{setting} .* needs a cassette file"):
        config_from(env, **flags)
