"""LLM providers for Synsema (SPEC 11): configuration, the two wire formats, retries,
cassettes and the model-argument conversion table. Works on plain Python values and
never imports `requests` until a request is sent, so the VM starts fast without it.

    config_from(env, url=None, api=None, model=None, cassette=None, cassette_mode=None)
        -> LLMConfig, or None when offline
    Provider(config, sleep=time.sleep)
        .step(intent, prompt, catalog, context) -> the llm_step map
        .text_op(intent, op, *args) -> (text, tokens)
    ProviderError(Exception).message    -- catchable runtime error text, key scrubbed
    convert_args(args, catalog_entry)   -- the argument table, applied by step() already

Modules: config (settings, URL rules), provider (the Provider), openai / anthropic (wire
formats), retry (retries and backoff), cassette (record/replay tapes), convert (JSON
Schema and argument conversion), prompts (what the model is told), errors.
"""

from .config import LLMConfig, config_from
from .convert import convert_args, input_schema
from .errors import ProviderError
from .provider import Provider

OFFLINE_TEXT = "[no llm provider]"

__all__ = ["LLMConfig", "config_from", "Provider", "ProviderError", "convert_args",
           "input_schema", "OFFLINE_TEXT"]
