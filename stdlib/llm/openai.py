"""OpenAI-compatible Chat Completions: POST {url}/chat/completions.

Serves OpenAI, vLLM, Ollama, llama.cpp server, LM Studio and the like. The key goes in
`Authorization: Bearer KEY`. A step sends the catalog as `tools` (none when the catalog is
empty: some servers refuse an empty list; names as convert.wire_names spells them) and no
sampling settings (some models refuse them), nor `parallel_tool_calls` (not every
compatible server or model takes it). The answer is choices[0].message: its tool calls
when it has any (several in one answer: all kept, calls.py), else its text content.
Tokens are usage.total_tokens.
"""

import json
from urllib.parse import urlsplit

from .calls import bad_arguments, tool_answer
from .convert import catalog_name, describe, input_schema, wire_names
from .errors import ProviderError, clip


def endpoint(config):
    url = config.url + "/chat/completions"
    return url, urlsplit(url).path


def headers(config):
    return {"Authorization": "Bearer " + config.send_key, "Content-Type": "application/json"}


def step_body(config, system, user, catalog):
    body = text_body(config, system, user)
    if catalog:
        body["tools"] = [{"type": "function",
                          "function": {"name": wire, "description": describe(e),
                                       "parameters": input_schema(e)}}
                         for wire, e in zip(wire_names(catalog), catalog)]
    return body


def text_body(config, system, user):
    return {"model": config.model,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}]}


def usage(body):
    """(input tokens, output tokens) of an answer, 0 for a count it does not give."""
    u = body.get("usage")
    if not isinstance(u, dict):
        return 0, 0
    return tuple(u.get(k) if isinstance(u.get(k), int) else 0
                 for k in ("prompt_tokens", "completion_tokens"))


def tokens(body):
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return 0
    total = usage.get("total_tokens")
    if isinstance(total, int):
        return total
    parts = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    return sum(p for p in parts if isinstance(p, int))


def parse(body, who, allow_empty=False, catalog=()):
    """{"kind": "final", "text"} or {"kind": "tool", "name", "args"} (args as written,
    parsed from JSON; name as the catalog spells it; more keys in calls.py), plus
    "tokens". An empty answer is an error unless allow_empty."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderError(f"{who}: the answer has no choices: {clip(json.dumps(body))}")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ProviderError(f"{who}: the answer's first choice has no message: "
                            f"{clip(json.dumps(choices[0]))}")
    used = tokens(body)
    calls = message.get("tool_calls") or []
    if isinstance(calls, list) and calls:
        return tool_answer([tool_call(c, who, catalog) for c in calls], used)
    text = content_text(message.get("content"))
    if not text.strip() and not allow_empty:
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal.strip():
            raise ProviderError(f"{who}: the model refused: {clip(refusal)}")
        reason = choices[0].get("finish_reason")
        raise ProviderError(f"{who}: the model gave an empty answer (no text, no tool call; "
                            f"finish_reason {reason!r})")
    return {"kind": "final", "text": text, "tokens": used}


def content_text(content):
    """Message content as text: a string, or (some servers) a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def tool_call(call, who, catalog):
    """{"name", "args"} of one tool call, plus "error" when its arguments are not a JSON
    object (see parse_arguments)."""
    call = call if isinstance(call, dict) else {}
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ProviderError(f"{who}: the model called a tool without a name: "
                            f"{clip(json.dumps(call))}")
    name = catalog_name(name, catalog)
    return parse_arguments(function.get("arguments"), name)


def parse_arguments(arguments, name):
    """{"name", "args"} of a tool call's arguments. OpenAI sends a JSON string; a few
    compatible servers send the object itself; an empty string means no arguments.
    Arguments that are not a JSON object are kept as the model wrote them, with an "error"
    the program can show the model: a wrong answer is the model's to correct, not the end
    of the loop (and call_tool refuses them, so no tool runs on made-up arguments)."""
    if isinstance(arguments, dict):
        return {"name": name, "args": arguments}
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {"name": name, "args": {}}
    if not isinstance(arguments, str):
        return bad_arguments(name, arguments, "are not a JSON object")
    try:
        parsed = json.loads(arguments)
    except ValueError as exc:
        return bad_arguments(name, arguments,
                             f"are not valid JSON ({exc.msg} at character {exc.pos})")
    if not isinstance(parsed, dict):
        return bad_arguments(name, arguments, "are not a JSON object")
    return {"name": name, "args": parsed}


def error_message(body):
    """The provider's own message from an error body (already parsed JSON)."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = error.get("message") or ""
        code = error.get("code") or error.get("type")
        if code and str(code) not in message:
            message = f"{message} ({code})" if message else str(code)
        return message or None
    if isinstance(error, str):
        return error
    if isinstance(body, dict):
        for key in ("message", "detail"):
            if body.get(key):
                value = body[key]
                return value if isinstance(value, str) else json.dumps(value)
    return None
