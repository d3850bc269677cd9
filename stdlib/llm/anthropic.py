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


def step_body(config, system, user, catalog, history=()):
    body = text_body(config, system, user)
    if history:
        body["messages"] = thread(user, history)
    if catalog:
        body["tools"] = [{"name": wire, "description": describe(e),
                          "input_schema": input_schema(e)}
                         for wire, e in zip(wire_names(catalog), catalog)]
    return body


EXTRACT_TOOL = "extracted"


def extract_body(config, system, user, typ):
    """A typed extract (SPEC 11): one tool whose input schema is the type, forced, so the
    answer is its input."""
    body = text_body(config, system, user)
    body["tools"] = [{"name": EXTRACT_TOOL, "description": "Give the extracted value.",
                      "input_schema": typ.wire}]
    body["tool_choice"] = {"type": "tool", "name": EXTRACT_TOOL}
    return body


def text_body(config, system, user):
    return {"model": config.model, "max_tokens": MAX_TOKENS, "system": system,
            "messages": [{"role": "user", "content": user}]}


def thread(user, history):
    """The messages of a step with a history (history.py's neutral form): a tool step is
    an assistant message of `tool_use` blocks, its result a `tool_result` block in a user
    message. Messages of one role in a row are one message (the API alternates roles,
    and wants every result right after its call); an empty text is no block (the API
    refuses empty text blocks)."""
    out = []
    first = [{"role": "user", "content": user}] if user.strip() else []
    for message in first + list(history):
        role, blocks = thread_blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"] += blocks
        else:
            out.append({"role": role, "content": blocks})
    return out


def thread_blocks(message):
    if "calls" in message:
        return "assistant", [{"type": "tool_use", "id": c["id"],
                              "name": c["name"].replace(".", "__"),
                              "input": c["args"] if isinstance(c["args"], dict) else {}}
                             for c in message["calls"]]
    if message["role"] == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": message["id"],
                         "content": message["content"]}]
    text = message["content"]
    return message["role"], [{"type": "text", "text": text}] if text.strip() else []


def usage(body):
    """(input, output) tokens of an answer, None for a count the answer does not give."""
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    return tuple(usage.get(k) if isinstance(usage.get(k), int) else None
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
        call = bad_arguments(name, args, "are not a JSON object")
    else:
        call = {"name": name, "args": args}
    if isinstance(block.get("id"), str) and block["id"]:
        call["id"] = block["id"]
    return call


def error_message(body):
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = error.get("message") or ""
        kind = error.get("type")
        if kind:        # appended as given, not after a search of the message's text
            message = f"{message} ({kind})" if message else str(kind)
        return message or None
    if isinstance(error, str):
        return error
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return None
