"""Cassettes: model exchanges recorded as JSON lines and replayed without a network.

One line per exchange, keys sorted, no timestamps, so a tape is deterministic and can be
committed:
    {"request": {"body": {...}, "method": "POST", "path": "/v1/chat/completions"},
     "response": {"body": {...}, "status": 200}}
The request is the method, the URL path and the JSON body: never the headers (the key
travels there) nor the host (so a tape recorded against one server replays against any).
The response is the final one after retries: its status and its JSON body, or "text"
when the body was not JSON, and "attempts" when it took more than one (recorded errors
replay as the same errors, "(after 3 attempts)" included).

Modes:
* record: every request is sent and its exchange written. The tape is started afresh
  by the first exchange a cassette records (one Provider = one run = one tape), then
  appended to as the run goes, so an interrupted run leaves what it did.
* replay: nothing is sent. Requests are matched **in order**: request n must equal the
  tape's exchange n (an agent loop is deterministic once the answers are, and order lets
  the same request get different answers). A request that differs, or one past the end
  of the tape, is a ProviderError naming the first difference as a JSON path
  (`body.messages[1].content`) with both values.
* auto: a request equal to an exchange not yet used (anywhere on the tape, first such
  one) is replayed; any other is sent and appended.

The position on the tape lives in the Cassette object, so a run must use one Provider.
"""

import json
import os

from .errors import ProviderError, clip


def canonical(value):
    """Plain JSON data, as it reads back from a tape."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def dumps(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class Cassette:
    def __init__(self, path, mode):
        self.path = path
        self.mode = mode
        self.tape = None        # [(request, response)], read on first use
        self.used = set()       # auto: indexes already replayed or recorded
        self.cursor = 0         # replay: index of the next expected exchange
        self.requests = 0       # requests seen, for messages
        self.started = False    # record: the file was started afresh

    # reading ------------------------------------------------------------------------
    def _load(self):
        if self.tape is not None:
            return self.tape
        self.tape = []
        if self.mode == "record":
            return self.tape
        try:
            with open(self.path, encoding="utf-8") as f:
                lines = f.readlines()
        except FileNotFoundError:
            if self.mode == "replay":
                raise ProviderError(
                    f"cassette {self.path} not found; replay needs a recorded tape (record "
                    "one with --cassette-mode record or auto)") from None
            return self.tape
        except OSError as exc:
            raise ProviderError(
                f"cannot read cassette {self.path}: {exc.strerror or exc}") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                request, response = item["request"], item["response"]
                if not isinstance(request, dict) or not isinstance(response.get("status"), int):
                    raise ValueError
            except (ValueError, KeyError, TypeError, AttributeError):
                raise ProviderError(
                    f"cassette {self.path} line {number} is not a recorded exchange "
                    '({"request": ..., "response": {"status": ...}})') from None
            self.tape.append((request, response))
        return self.tape

    def lookup(self, request):
        """The recorded response to `request`, None when it must be sent (record, or an
        auto-mode miss); raises ProviderError on a replay miss."""
        self.requests += 1
        if self.mode == "record":
            return None
        tape = self._load()
        request = canonical(request)
        if self.mode == "replay":
            if self.cursor >= len(tape):
                raise ProviderError(
                    f"cassette {self.path}: request {self.requests} is not on the tape (it "
                    f"holds {len(tape)} exchange{'s' if len(tape) != 1 else ''}); re-record "
                    "it with --cassette-mode record or auto")
            expected, response = tape[self.cursor]
            diff = first_difference(expected, request)
            if diff is not None:
                raise ProviderError(
                    f"cassette {self.path}: request {self.requests} is not on the tape; "
                    f"first difference at {diff}; re-record it with --cassette-mode record or auto")
            self.cursor += 1
            return response
        for i, (expected, response) in enumerate(tape):
            if i not in self.used and first_difference(expected, request) is None:
                self.used.add(i)
                return response
        return None

    def miss(self, request):
        """The error for an auto-mode miss when nothing can be sent."""
        tape = self._load()
        note = ""
        unused = [req for i, (req, _) in enumerate(tape) if i not in self.used]
        if unused:
            note = f"; nearest difference at {first_difference(unused[0], canonical(request))}"
        return ProviderError(f"cassette {self.path}: request {self.requests} is not on the tape"
                             f"{note}, and no provider is configured to record it (set "
                             "SYN_LLM_URL or a provider key)")

    # writing ------------------------------------------------------------------------
    def record(self, request, response):
        tape = self._load()
        request, response = canonical(request), canonical(response)
        fresh = self.mode == "record" and not self.started
        try:
            parent = os.path.dirname(self.path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(self.path, "w" if fresh else "a", encoding="utf-8") as f:
                f.write(dumps({"request": request, "response": response}) + "\n")
        except OSError as exc:
            raise ProviderError(
                f"cannot write cassette {self.path}: {exc.strerror or exc}") from None
        self.started = True
        tape.append((request, response))
        self.used.add(len(tape) - 1)


def first_difference(expected, actual, path=""):
    """"PATH: the tape has X, this request has Y" for the first place two JSON values
    differ, or None when they are equal."""
    here = path or "(the whole request)"
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                return f"{sub}: the tape has {_show(expected[key])}, this request has none"
            if key not in expected:
                return f"{sub}: the tape has none, this request has {_show(actual[key])}"
            diff = first_difference(expected[key], actual[key], sub)
            if diff is not None:
                return diff
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (a, b) in enumerate(zip(expected, actual)):
            diff = first_difference(a, b, f"{path}[{i}]")
            if diff is not None:
                return diff
        if len(expected) != len(actual):
            return (f"{here}: the tape has {len(expected)} items, this request has "
                    f"{len(actual)}")
        return None
    if dumps(expected) != dumps(actual):
        return f"{here}: the tape has {_show(expected)}, this request has {_show(actual)}"
    return None


def _show(value):
    return clip(dumps(value), 120)
