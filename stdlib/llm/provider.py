"""Provider: one configured model endpoint, as the VM sees it (SPEC 11).

    step(intent, prompt, catalog, context) -> {"kind": "final", "text", "tokens"}
                                            | {"kind": "tool", "name", "args", "tokens"}
    text_op(intent, op, *args) -> (text, tokens)     op: ask, summarize, classify, extract

Every failure is a ProviderError whose message never holds the key. One Provider serves a
whole run: it keeps the HTTP session and the cassette's position on the tape.
"""

import json
import time

from . import anthropic, openai, prompts, retry
from .cassette import Cassette
from .config import KEY_VARS
from .convert import convert_args, display, find_entry
from .errors import ProviderError, clip

WIRES = {"openai": openai, "anthropic": anthropic}


class Provider:
    def __init__(self, config, sleep=time.sleep):
        self.config = config
        self.sleep = sleep
        self.wire = WIRES[config.api]
        self.who = f"{config.api} API at {config.host}"
        self.cassette = Cassette(config.cassette, config.cassette_mode) if config.cassette else None
        self._session = None

    # the two calls the VM makes -------------------------------------------------------
    def step(self, intent, prompt, catalog, context):
        try:
            catalog = check_catalog(catalog)
            system, user = prompts.step_messages(intent, prompt, catalog, context)
            body = self.wire.step_body(self.config, system, user, catalog)
            answer = self.wire.parse(self._exchange(body), self.who)
            if answer["kind"] == "tool":
                answer["args"] = convert_args(answer["args"], find_entry(catalog, answer["name"]))
            return answer
        except ProviderError as exc:
            raise ProviderError(exc.message, self.config.key) from None

    def text_op(self, intent, op, *args):
        try:
            check_op(op, args)
            system, user = prompts.op_messages(intent, op, args)
            body = self.wire.text_body(self.config, system, user)
            answer = self.wire.parse(self._exchange(body), self.who, allow_empty=True)
            if answer["kind"] != "final":
                raise ProviderError(f"{self.who}: the model answered {op} with a call of tool "
                                    f"'{answer['name']}' instead of text")
            text = answer["text"].strip()
            if op == "classify":
                text = match_option(text, args[1], self.who)
            elif not text and op != "extract":
                raise ProviderError(f"{self.who}: the model gave an empty answer to {op}")
            return text, answer["tokens"]
        except ProviderError as exc:
            raise ProviderError(exc.message, self.config.key) from None

    # one exchange: cassette, else the network with retries -------------------------------
    def _exchange(self, body):
        url, path = self.wire.endpoint(self.config)
        request = {"method": "POST", "path": path, "body": body}
        if self.cassette is not None:
            recorded = self.cassette.lookup(request)
            if recorded is not None:
                return self._read(recorded["status"], recorded.get("body"), recorded.get("text"), 1)
            if not self.config.network:
                raise self.cassette.miss(request)
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = self.wire.headers(self.config)
        headers["User-Agent"] = "synsema"

        def post():
            if self._session is None:
                import requests     # lazily: the VM starts without it
                self._session = requests.Session()
            r = self._session.post(url, data=payload, headers=headers, timeout=self.config.timeout)
            return r.status_code, r.headers, r.content.decode("utf-8", errors="replace")

        status, _, text, attempts = retry.send(post, self.who, self.config.max_retries,
                                               self.sleep, self.config.timeout)
        key = self.config.key
        if key and len(key) >= 8:       # a provider that echoes the key: not on the tape
            text = text.replace(key, "[key]")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if self.cassette is not None:
            response = {"status": status}
            if parsed is not None:
                response["body"] = parsed
            else:
                response["text"] = text
            self.cassette.record(request, response)
        return self._read(status, parsed, text, attempts)

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
            return body
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
