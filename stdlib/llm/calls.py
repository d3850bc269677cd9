"""A model's tool calls as llm_step gives them (SPEC 11), shared by both wire formats.

An answer with one call is {"kind": "tool", "name", "args", "id", "tokens"}; the id is
the provider's own for the call (the Provider gives one to a call that came without), so
the program can answer the call in a history (history.py). Its arguments,
when they are not a JSON object, stay as the model wrote them and an "error" says why:
the program can show the model its mistake and go on (call_tool refuses such arguments,
so no tool runs on arguments the model did not give). An answer with several calls (a
parallel tool call) has the first as name/args and every one, in order, in "calls", so
none is silently dropped.
"""

import json

from .errors import clip


def bad_arguments(name, arguments, why):
    shown = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"name": name, "args": arguments,
            "error": f"the arguments for tool '{name}' {why}: {clip(shown)}"}


def tool_answer(calls, tokens):
    """The llm_step map of the model's tool calls [{"name", "args"[, "error"]}]."""
    first = calls[0]
    answer = {"kind": "tool", "name": first["name"], "args": first["args"]}
    if "id" in first:
        answer["id"] = first["id"]
    if "error" in first:
        answer["error"] = first["error"]
    answer["tokens"] = tokens
    if len(calls) > 1:
        answer["calls"] = calls
    return answer
