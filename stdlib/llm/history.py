"""A conversation as llm_step's context (SPEC 11, "A conversation as context").

The program keeps the history as a list of messages:

    {"role": "user", "content": T}              what the user (or the program) said
    {"role": "assistant", "content": T}         what the model answered in text
    a step map from llm_step                    a tool step ({"kind": "tool", "id", ...},
                                                with its "calls" when it made several),
                                                or a final one (read as assistant text)
    {"role": "tool", "id": STEP_ID, "name": NAME, "content": T}   a tool's result

`messages(context)` checks it and gives the wires one neutral form:

    {"role": "user" | "assistant", "content": TEXT}
    {"role": "assistant", "calls": [{"id", "name", "args"}]}
    {"role": "tool", "id", "name", "content": TEXT}

A model or a program can write anything into a history, so every rule the providers
enforce (a result answers a call made before it, every call gets its result before the
thread goes on, an id is used once) is checked here, before anything is sent, and a
broken history is a ProviderError naming the item (counted from 0, as list indexes are)
and saying how to fix it, offline too. A content that is not text is sent as its shown
form (as a text context is).
"""

import json

from synsema.vm.display import display, quote    # the shown forms of a value (SPEC 4)
from synsema.vm.errors import SynError
from synsema.vm.jsonvalues import json_encode

from .errors import ProviderError, clip

ROLES = ("user", "assistant", "tool")
TOOL_RESULT = '{"role": "tool", "id": step["id"], "name": step["name"], "content": result}'


def messages(context):
    """The neutral messages of a history list (module docstring); ProviderError when it
    is malformed."""
    out = []
    pending = {}            # id -> (item index, tool name) of calls not yet answered
    used = {}               # id -> item index of the step that made the call
    for i, item in enumerate(context):
        if not isinstance(item, dict):
            raise _bad(i, item, "is not a message: each item must be a map like "
                       '{"role": "user", "content": "..."} or a step from llm_step')
        if "kind" in item and "role" not in item:
            message = _step(i, item)
        else:
            message = _message(i, item)
        role = message["role"]
        if role == "tool":
            call = pending.pop(message["id"], None)
            if call is None:
                where = (f"the call of context item {used[message['id']]} has its result "
                         "already" if message["id"] in used else
                         "no tool step before it has that id")
                raise _bad(i, item, f"answers tool call id {_q(message['id'])}, but {where}; "
                           "a tool result follows the step that called the tool")
            if message["name"] != call[1]:
                raise _bad(i, item, f"names tool {_q(message['name'])}, but call "
                           f"{_q(message['id'])} (context item {call[0]}) was of tool "
                           f"{_q(call[1])}")
        else:
            _answered(pending, context)
            for call in message.get("calls", ()):
                if call["id"] in used:
                    raise _bad(i, item, f"uses tool call id {_q(call['id'])} again (context "
                               f"item {used[call['id']]} has it); each call needs its own id")
                used[call["id"]] = i
                pending[call["id"]] = (i, call["name"])
        out.append(message)
    _answered(pending, context)
    return out


def _answered(pending, context):
    """Every call made so far has its result: none may be left behind in the thread."""
    if not pending:
        return
    ident, (i, name) = next(iter(pending.items()))
    raise _bad(i, context[i], f"calls tool {_q(name)} (id {_q(ident)}), and no tool result "
               f"follows it; after the step, append {TOOL_RESULT} for each of its calls "
               "before anything else")


def _step(i, item):
    kind = item.get("kind")
    if kind == "final":
        return {"role": "assistant", "content": _content(i, item, "text")}
    if kind != "tool":
        raise _bad(i, item, f"has \"kind\" {_shown(kind)}; a step from llm_step has kind "
                   "\"tool\" or \"final\"")
    calls = item.get("calls")
    if calls is None:
        calls = [item]
    elif not isinstance(calls, list) or not calls:
        raise _bad(i, item, "has \"calls\" that is not a list of the step's tool calls")
    return {"role": "assistant", "calls": [_call(i, item, c) for c in calls]}


def _call(i, item, call):
    if not isinstance(call, dict):
        raise _bad(i, item, f"has a call that is not a map: {_shown(call)}")
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise _bad(i, item, "is a tool step without the text \"name\" of its tool")
    ident = call.get("id")
    if not isinstance(ident, str) or not ident:
        raise _bad(i, item, f"is a tool step (tool {_q(name)}) without an \"id\"; put the "
                   "step map llm_step returned in the history as it came")
    try:    # sent back as JSON: plain JSON data, as the model could have written it
        args = json.loads(json_encode(call.get("args", {})))
    except SynError as e:
        raise _bad(i, item, f"has arguments that cannot be sent to a model: {e.message}") \
            from None
    return {"id": ident, "name": name, "args": args}


def _message(i, item):
    role = item.get("role")
    if role == "system":
        raise _bad(i, item, "has role \"system\": the system message is the program's "
                   "intent; write instructions in the prompt or a \"user\" message")
    if role not in ROLES:
        raise _bad(i, item, f"has role {_shown(role)}; a message's role is \"user\", "
                   "\"assistant\" or \"tool\" (a tool step is the map llm_step returned)")
    message = {"role": role}
    if role == "tool":
        for key in ("id", "name"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise _bad(i, item, f"is a tool result without a text \"{key}\"; write "
                           f"{TOOL_RESULT}")
        message["id"], message["name"] = item["id"], item["name"]
    message["content"] = _content(i, item, "content")
    return message


def _content(i, item, key):
    if key not in item or item[key] is None:
        raise _bad(i, item, f"has no \"{key}\"")
    value = item[key]
    return value if isinstance(value, str) else display(value)


def _bad(i, item, why):
    return ProviderError(f"context item {i} ({clip(_shown(item), 80)}) {why}")


def _shown(value):
    return quote(value) if isinstance(value, str) else display(value)


def _q(text):
    return f"'{text}'"
