"""Provider: one configured model endpoint, as the VM sees it (SPEC 11).

    step(intent, prompt, catalog, context) -> {"kind": "final", "text", "tokens"}
                                            | {"kind": "tool", "name", "args", "tokens"}
    text_op(intent, op, *args) -> (text, tokens)     op: ask, summarize, classify, extract
    typed_extract(intent, data, what, type) -> (value, tokens)
    text(system, user) -> (text, tokens)            a plain prompt (a planner's)

Every failure is a ProviderError whose message never holds the key. One Provider serves a
whole run: it keeps the HTTP session and the cassette's position on the tape. Requests go
only to the configured host (stdlib.net.open_once) and never follow a redirect, so neither
the prompt nor the key reaches another host; every response is scrubbed of the key before
anything reads it.
"""

import json
import time

from synsema.stdlib import net
from synsema.vm.errors import LimitExceeded
from synsema.vm.errors import SynError
from synsema.vm.jsonvalues import json_decode, without_surrogates

from . import anthropic, function, history, openai, prompts, retry, schema
from .cassette import Cassette
from .config import KEY_VARS
from .convert import convert_args, display, find_entry
from .errors import ProviderError, clip, scrub, scrub_json

WIRES = {"openai": openai, "anthropic": anthropic, "function": function}


class Provider:
    def __init__(self, config, sleep=time.sleep):
        self.config = config
        self.sleep = sleep
        self.wire = WIRES[config.api]
        self.who = (f"function model {config.model}" if config.api == "function"
                    else f"{config.api} API at {config.host}")
        self.cassette = Cassette(config.cassette, config.cassette_mode) if config.cassette else None
        self._session = None
        self.deadline = None    # time.monotonic() at which the run's --timeout ends
        self.limit = None       # that --timeout, in seconds (for the message)
        self.note = None        # write(text) for --trace lines, or None
        self.spent = 0          # tokens of every answer read (usable or not)
        self.unnamed = 0        # tool calls that came without an id (_name_calls)
        self.requests = 0       # model requests of the run (a replayed one too)
        self.tokens_in = None   # input / output tokens, where the answers give them
        self.tokens_out = None
        # The run's limits (SPEC 13 style: the message names the option): no request
        # beyond max_requests is made; the run ends once the tokens pass max_tokens.
        self.max_requests = None
        self.max_tokens = None
        self.token_flag = "--max-tokens"

    def bound(self, deadline, limit, note):
        """What the run allows the next call: its deadline (time.monotonic(), or None) and
        time limit in seconds, and where --trace lines go (None: nowhere). The VM calls this
        before each model call; every wait of the call ends by the deadline."""
        self.deadline, self.limit, self.note = deadline, limit, note

    # the two calls the VM makes -------------------------------------------------------
    def step(self, intent, prompt, catalog, context):
        try:
            catalog = check_catalog(catalog)
            thread = ()
            if isinstance(context, list):       # a conversation (history.py)
                thread, context = history.messages(context), None
            system, user = prompts.step_messages(intent, prompt, catalog, context)
            body = self.wire.step_body(self.config, system, user, catalog, thread)
            answer = self.wire.parse(self._exchange(body), self.who, catalog=catalog)
            if answer["kind"] == "tool":
                self._name_calls(answer)
                for call in [answer, *answer.get("calls", ())]:
                    if "error" not in call:
                        call["args"] = convert_args(call["args"], find_entry(catalog, call["name"]))
            return answer
        except ProviderError as exc:
            raise ProviderError(exc.message, self.config.key) from None

    def _name_calls(self, answer):
        """Every tool call gets an id, so a history can answer it: the provider's own, or
        (a server that gives none) one counted through the run, so the same run names its
        calls alike each time and a cassette replays."""
        calls = answer.get("calls") or [answer]
        for call in calls:
            if "id" not in call:
                self.unnamed += 1
                call["id"] = f"call_{self.unnamed}"
        answer["id"] = calls[0]["id"]

    def text_op(self, intent, op, *args):
        try:
            check_op(op, args)
            system, user = prompts.op_messages(intent, op, args)
            text, tokens = self._text(system, user, op)
            if op == "classify":
                text = match_option(text, args[1], self.who)
            elif not text and op != "extract":
                raise ProviderError(f"{self.who}: the model gave an empty answer to {op}")
            return text, tokens
        except ProviderError as exc:
            raise ProviderError(exc.message, self.config.key) from None

    def typed_extract(self, intent, data, what, typ):
        """(value, tokens) of extract(data, what, type) (SPEC 11): the provider's
        structured output for the type, the answer checked, asked once more with what was
        wrong, then the error `the model's answer is not a number: "about five"`."""
        try:
            t = schema.Type(typ)
            rejected, used = None, 0
            for _ in range(2):
                system, user = prompts.typed_extract_messages(intent, data, what, t.wire,
                                                              rejected)
                body = self.wire.extract_body(self.config, system, user, t)
                answer = self.wire.parse(self._exchange(body), self.who)
                used += answer["tokens"]
                value = t.unwrap(self._answer_value(answer))
                why = t.problem(value)
                if why is None:
                    return value, used
                rejected = (why, schema.shown(value))
            raise ProviderError(f"the model's answer {rejected[0]}: {rejected[1]}")
        except ProviderError as exc:
            raise ProviderError(exc.message, self.config.key) from None

    def _answer_value(self, answer):
        """The JSON value of a typed extract's answer: the forced tool's input (Anthropic),
        else the text read as JSON; a text that is not JSON is that text (and then the
        type decides whether it will do)."""
        if answer["kind"] == "tool":
            if answer["name"] != anthropic.EXTRACT_TOOL:
                raise ProviderError(f"{self.who}: the model answered extract with a call of "
                                    f"tool '{answer['name']}' instead of the value")
            return answer["args"]
        text = answer["text"].strip()
        try:
            return json_decode(text)
        except SynError:
            return text

    def text(self, system, user):
        """(text, tokens): the model's plain text answer to a system instruction and a user
        message, for a caller that writes its own prompt (a planner); the text may be
        empty. ProviderError when the call fails or the model calls a tool instead."""
        try:
            return self._text(system, user, "text")
        except ProviderError as exc:
            raise ProviderError(exc.message, self.config.key) from None

    def _text(self, system, user, op):
        body = self.wire.text_body(self.config, system, user)
        if self.config.api == "function":
            body["op"] = op         # the function is told which call it answers
        answer = self.wire.parse(self._exchange(body), self.who, allow_empty=True)
        if answer["kind"] != "final":
            raise ProviderError(f"{self.who}: the model answered {op} with a call of tool "
                                f"'{answer['name']}' instead of text")
        return answer["text"].strip(), answer["tokens"]

    # one exchange: cassette, else the network with retries -------------------------------
    def _exchange(self, body):
        if self.max_requests is not None and self.requests >= self.max_requests:
            raise LimitExceeded(f"request limit ({self.max_requests}, --max-requests) reached")
        self.requests += 1
        url, path = self.wire.endpoint(self.config)
        request = {"method": "POST", "path": path, "body": body}
        if self.cassette is not None:
            recorded = self.cassette.lookup(request)
            if recorded is not None:
                key, text = self.config.key, recorded.get("text")
                try:
                    body = scrub_json(recorded.get("body"), key)
                except RecursionError:
                    raise self._too_deep() from None
                attempts = recorded.get("attempts", 1)
                return self._read(recorded["status"], body,
                                  None if text is None else scrub(text, key),
                                  attempts if type(attempts) is int and attempts > 0 else 1)
            if not self.config.network:
                raise self.cassette.miss(request)
        if self.config.api == "function":
            status, text, attempts = 200, self.wire.answer(self.config, body), 1
        else:
            status, text, attempts = self._post(url, body)
        parsed, text = self._scrubbed(text)
        if self.cassette is not None:
            response = {"status": status}
            if attempts > 1:        # replayed, the error says "(after N attempts)" too
                response["attempts"] = attempts
            if parsed is not None:
                response["body"] = parsed
            else:
                response["text"] = text
            self.cassette.record(request, response)
        return self._read(status, parsed, text, attempts)

    def _post(self, url, body):
        """(status, text, attempts) of a request sent over HTTP, with retries."""
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = self.wire.headers(self.config)
        headers["User-Agent"] = "synsema"

        def post(timeout):
            if self._session is None:
                import requests     # lazily: the VM starts without it
                self._session = requests.Session()
            try:
                r = net.open_once(self._session, "POST", url, self.config.host, payload,
                                  headers, timeout)
            except net.BadURL as e:
                raise ProviderError(f"{self.who}: {e}") from None
            if r.status_code in net.REDIRECTS and "location" in r.headers:
                r.close()
                raise self._redirected(url, r.headers["location"])
            return r.status_code, r.headers, r.content.decode("utf-8", errors="replace")

        try:
            status, _, text, attempts = retry.send(
                post, self.who, self.config.max_retries, self.sleep, self.config.timeout,
                self._remaining, self.note)
        except retry.OutOfTime:
            shown = "" if self.limit is None else f"{self.limit:g} s, "
            raise LimitExceeded(f"time limit ({shown}--timeout) reached while waiting for "
                               f"the model ({self.who})") from None
        return status, text, attempts

    def _remaining(self):
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _scrubbed(self, text):
        """(parsed JSON or None, text) of a response with the key scrubbed however it was
        encoded: every string of the parsed JSON (keys too) after decoding, so JSON escapes
        cannot hide it, and the raw text when it is not JSON. All that reads a response --
        errors, trace lines, the cassette, what the program gets -- reads this."""
        key = self.config.key
        try:
            parsed = scrub_json(json.loads(text), key)
        except ValueError:
            return None, scrub(text, key)
        except RecursionError:
            raise self._too_deep() from None
        return parsed, json.dumps(parsed, ensure_ascii=False)

    def _too_deep(self):
        return ProviderError(f"{self.who} answered with JSON nested too deeply to read")

    def _redirected(self, url, location):
        """A model request never follows a redirect: to another host it would carry the
        prompt (labelled data included) and the key there; on the same host it means the
        configured URL is not the endpoint."""
        target = net.redirect_target(url, location)
        try:
            host = net.url_host(target)
        except net.BadURL:
            host = None
        if host != self.config.host:
            return ProviderError(f"{self.who} redirected the request to another host "
                                 f"({host or 'a refused URL'}: {clip(target)}); model requests "
                                 f"go only to {self.config.host}, so it was not followed")
        return ProviderError(f"{self.who} redirected the request to {clip(target)}; model "
                             "requests do not follow redirects: set the provider URL "
                             "(SYN_LLM_URL or --llm-url) to the endpoint itself")

    def _read(self, status, body, text, attempts):
        """The answer's JSON object, or the ProviderError that says what went wrong."""
        note = retry.attempts_note(attempts)
        if text is None and body is not None:
            text = json.dumps(body)
        if 200 <= status < 300:
            if not isinstance(body, dict):
                shown = clip(text) if (text or "").strip() else "(empty body)"
                raise ProviderError(f"{self.who} answered HTTP {status}, but the answer is "
                                    f"not a JSON object: {shown}")
            if "error" in body and not ("choices" in body or "content" in body):
                message = self.wire.error_message(body) or clip(text)
                raise ProviderError(f"{self.who} answered HTTP {status} with an error: {message}")
            # Tokens are spent once the model has answered, whether or not the answer is
            # then usable (a classify outside its options, an empty text): counted here,
            # before anything can reject it, so a budget (llm_tokens_used, --max-tokens)
            # never misses them.
            self.spent += self.wire.tokens(body)
            tokens_in, tokens_out = self.wire.usage(body)
            if tokens_in is not None:
                self.tokens_in = (self.tokens_in or 0) + tokens_in
            if tokens_out is not None:
                self.tokens_out = (self.tokens_out or 0) + tokens_out
            if self.max_tokens is not None and self.spent > self.max_tokens:
                # no count in the message: under --labels it can be the model's to set
                raise LimitExceeded(f"token limit ({self.max_tokens}, {self.token_flag}) "
                                   "reached")
            # A \uD800 escape the server did not pair is no character: it could not be
            # printed or sent on, so it reads as an undecodable byte does.
            return without_surrogates(body)
        message = self.wire.error_message(body) if body is not None else None
        if message:
            detail = clip(message, 300)
        elif (text or "").strip():
            detail = f"the body is not a JSON error: {clip(text)}"
        else:
            detail = "(empty body)"
        hint = ""
        if status in (401, 403):
            hint = f"; check the key (SYN_LLM_KEY or {KEY_VARS[self.config.api]})"
        raise ProviderError(f"{self.who} answered HTTP {status}{note}: {detail}{hint}")


def check_catalog(catalog):
    if catalog is None:
        return []
    if not isinstance(catalog, list):
        raise ProviderError(f"llm_step needs a list of catalog entries, got {display(catalog)}")
    return catalog


def check_op(op, args):
    if op not in prompts.OPS:
        raise ProviderError(f"unknown text operation {op!r}; valid: {', '.join(prompts.OPS)}")
    want, _ = prompts.OPS[op]
    if len(args) != want:
        plural = "s" if want != 1 else ""
        raise ProviderError(f"{op} takes {want} argument{plural}, got {len(args)}")
    if op == "classify":
        options = args[1]
        if (not isinstance(options, list) or not options
                or not all(isinstance(o, str) and o.strip() for o in options)):
            raise ProviderError(f"classify needs a non-empty list of option texts, got "
                                f"{display(options)}")


_QUOTES = "\"'`*“”‘’«»"


def normalize(text):
    text = " ".join(text.split())
    while True:
        stripped = text.strip().strip(_QUOTES).strip().rstrip(".").strip()
        if stripped == text:
            return text.casefold()
        text = stripped


def match_option(answer, options, who):
    """The option the model's classify answer names (case, spaces, quotes and a final
    period do not matter), or a ProviderError naming the answer and the options."""
    wanted = normalize(answer)
    for option in options:
        if normalize(option) == wanted:
            return option
    shown = ", ".join(json.dumps(o, ensure_ascii=False) for o in options)
    said = json.dumps(clip(answer), ensure_ascii=False)
    raise ProviderError(f"{who}: the model's classify answer {said} is not one of the "
                        f"options [{shown}]")
