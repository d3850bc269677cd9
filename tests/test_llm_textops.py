"""The four text ops: ask, summarize, classify, extract (SPEC 11)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import LLMServer, anthropic_text, openai_text, provider_for  # noqa: E402

from synsema.stdlib.llm import ProviderError  # noqa: E402

INTENT = "triage support tickets"


@pytest.fixture
def server():
    with LLMServer() as s:
        yield s


def test_ask(server):
    server.reply(openai_text("  Paris.\n", prompt_tokens=7, completion_tokens=2))
    provider, _ = provider_for(server)
    assert provider.text_op(INTENT, "ask", "Capital of France?") == ("Paris.", 9)
    (req,) = server.requests
    system, user = req["body"]["messages"]
    assert INTENT in system["content"] and user["content"] == "Capital of France?"
    assert "tools" not in req["body"]


def test_summarize_anthropic(server):
    server.reply(anthropic_text("Customer wants a refund.", input_tokens=40, output_tokens=6))
    provider, _ = provider_for(server, "anthropic")
    assert provider.text_op(INTENT, "summarize", "Long ticket text") == ("Customer wants a refund.", 46)
    body = server.requests[0]["body"]
    assert INTENT in body["system"] and "ummar" in body["system"]
    assert body["messages"] == [{"role": "user", "content": "Long ticket text"}]


@pytest.mark.parametrize("answer", ["refund", "Refund", ' "refund". ', "**Refund**", "`refund`", "REFUND\n"])
def test_classify_normalises_to_the_option(server, answer):
    server.reply(openai_text(answer))
    provider, _ = provider_for(server)
    text, _ = provider.text_op(INTENT, "classify", "I want my money back", ["Refund", "bug", "other"])
    assert text == "Refund"
    system = server.requests[0]["body"]["messages"][0]["content"]
    assert '["Refund", "bug", "other"]' in system


def test_classify_outside_the_options_is_an_error(server):
    server.reply(openai_text("billing question"))
    provider, _ = provider_for(server)
    with pytest.raises(ProviderError) as err:
        provider.text_op(INTENT, "classify", "text", ["refund", "bug"])
    message = err.value.message
    assert '"billing question"' in message and '["refund", "bug"]' in message


def test_classify_needs_option_texts(server):
    provider, _ = provider_for(server)
    for options in ([], "refund", ["a", 2]):
        with pytest.raises(ProviderError, match="classify needs a non-empty list of option texts"):
            provider.text_op(INTENT, "classify", "text", options)
    assert server.requests == []


def test_extract(server):
    server.reply(anthropic_text("ORD-1234"))
    provider, _ = provider_for(server, "anthropic")
    assert provider.text_op(INTENT, "extract", "Order ORD-1234 is late", "the order number")[0] == "ORD-1234"
    assert "the order number" in server.requests[0]["body"]["system"]


def test_extract_may_find_nothing(server):
    server.reply(openai_text(""))
    provider, _ = provider_for(server)
    assert provider.text_op(INTENT, "extract", "hello", "an order number") == ("", 25)


def test_empty_answer_to_ask_is_an_error(server):
    server.reply(openai_text("   "))
    provider, _ = provider_for(server)
    with pytest.raises(ProviderError, match="empty answer to ask"):
        provider.text_op(INTENT, "ask", "x")


def test_unknown_op_and_wrong_arity(server):
    provider, _ = provider_for(server)
    with pytest.raises(ProviderError, match="unknown text operation 'translate'"):
        provider.text_op(INTENT, "translate", "x")
    with pytest.raises(ProviderError, match="summarize takes 1 argument, got 2"):
        provider.text_op(INTENT, "summarize", "x", "y")
