"""Anthropic Messages API: POST {url}/v1/messages.

Headers `x-api-key` and `anthropic-version: 2023-06-01`. The system instruction goes in
`system`, the catalog in `tools` (name as convert.wire_names spells it, description,
input_schema), and `max_tokens` is required by the API. The answer's content blocks: its
"tool_use" blocks when there are any (several: all kept, calls.py), else the "text"
blocks joined. Tokens are usage.input_tokens + usage.output_tokens.
"""

import json
from urllib.parse import urlsplit

from .calls import bad_arguments, tool_answer
from .convert import catalog_name, describe, input_schema, wire_names
from .errors import ProviderError, clip

VERSION = "2023-06-01"
MAX_TOKENS = 4096


def endpoint(config):
    url = config.url + "/v1/messages"
    return url, urlsplit(url).path


def headers(config):
    return {"x-api-key": config.send_key, "anthropic-version": VERSION,
            "Content-Type": "application/json"}


def step_body(config, system, user, catalog):
    body = text_body(config, system, user)
    if catalog:
        body["tools"] = [{"name": wire, "description": describe(e),
                          "input_schema": input_schema(e)}
                         for wire, e in zip(wire_names(catalog), catalog)]
    return body


def text_body(config, system, user):
    return {"model": config.model, "max_tokens": MAX_TOKENS, "system": system,
            "messages": [{"role": "user", "content": user}]}


def usage(body):
    """(input tokens, output tokens) of an answer, 0 for a count it does not give."""
    u = body.get("usage")
    if not isinstance(u, dict):
        return 0, 0
    return tuple(u.get(k) if isinstance(u.get(k), int) else 0
                 for k in ("input_tokens", "output_tokens"))


def tokens(body):
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return 0
    return sum(usage.get(k) for k in ("input_tokens", "output_tokens")
               if isinstance(usage.get(k), int))


def parse(body, who, allow_empty=False, catalog=()):
    """As openai.parse: the model's decision, its tool name as the catalog spells it."""
    content = body.get("content")
    if not isinstance(content, list):
        raise ProviderError(f"{who}: the answer has no content blocks: {clip(json.dumps(body))}")
    used = tokens(body)
    blocks = [b for b in content if isinstance(b, dict)]
    calls = [tool_call(b, who, catalog) for b in blocks if b.get("type") == "tool_use"]
    if calls:
        return tool_answer(calls, used)
    text = "".join(b["text"] for b in blocks
                   if b.get("type") == "text" and isinstance(b.get("text"), str))
    if not text.strip() and not allow_empty:
        raise ProviderError(f"{who}: the model gave an empty answer (no text, no tool call; "
                            f"stop_reason {body.get('stop_reason')!r})")
    return {"kind": "final", "text": text, "tokens": used}


def tool_call(block, who, catalog):
    """{"name", "args"[, "error"]} of a tool_use block (calls.py)."""
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise ProviderError(f"{who}: the model called a tool without a name: "
                            f"{clip(json.dumps(block))}")
    name = catalog_name(name, catalog)
    args = block.get("input", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return bad_arguments(name, args, "are not a JSON object")
    return {"name": name, "args": args}


def error_message(body):
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = error.get("message") or ""
        kind = error.get("type")
        if kind and kind not in message:
            message = f"{message} ({kind})" if message else str(kind)
        return message or None
    if isinstance(error, str):
        return error
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return None
