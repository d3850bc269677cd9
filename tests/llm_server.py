"""A real local HTTP server that plays a model provider, for the LLM tests.

It listens on 127.0.0.1 (port 0: the OS picks one), answers each request with the next
scripted response, in the exact wire format of OpenAI Chat Completions or Anthropic
Messages (see the builders below), and records every request it received (method, path,
headers, parsed JSON body). Runs http.server in a daemon thread; no mocking anywhere.

    with LLMServer() as server:
        server.reply(openai_text("hi"))
        ... Provider(LLMConfig("openai", server.url)) ...
        server.requests[0]["body"]["messages"]
"""

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Reply:
    def __init__(self, body=None, status=200, headers=None, delay=0.0, raw=None):
        self.body = body
        self.status = status
        self.headers = headers or {}
        self.delay = delay
        self.raw = raw          # bytes/str sent as is (non-JSON bodies)


class LLMServer:
    def __init__(self):
        self.requests = []
        self._replies = deque()
        self._lock = threading.Lock()
        self._httpd = None
        self._thread = None

    # scripting ------------------------------------------------------------------------
    def reply(self, body=None, status=200, headers=None, delay=0.0, raw=None, times=1):
        with self._lock:
            for _ in range(times):
                self._replies.append(Reply(body, status, headers, delay, raw))
        return self

    def _next(self):
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return Reply(openai_error("llm_server: no scripted response left", "server_error"), 500)

    # lifecycle ------------------------------------------------------------------------
    @property
    def port(self):
        return self._httpd.server_address[1]

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                server._handle(self)

            do_GET = do_POST

            def log_message(self, *args):
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # one request ----------------------------------------------------------------------
    def _handle(self, h):
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        with self._lock:
            self.requests.append({"method": h.command, "path": h.path,
                                  "headers": {k.lower(): v for k, v in h.headers.items()},
                                  "body": body})
        reply = self._next()
        if reply.delay:
            time.sleep(reply.delay)
        if reply.raw is not None:
            data = reply.raw.encode() if isinstance(reply.raw, str) else reply.raw
            ctype = "text/html; charset=utf-8"
        else:
            data = json.dumps(reply.body).encode()
            ctype = "application/json"
        try:
            h.send_response(reply.status)
            h.send_header("Content-Type", ctype)
            h.send_header("Content-Length", str(len(data)))
            for k, v in reply.headers.items():
                h.send_header(k, str(v))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass        # the client timed out and left


# OpenAI Chat Completions ---------------------------------------------------------------
def _openai_usage(prompt_tokens, completion_tokens):
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


def openai_text(text, prompt_tokens=20, completion_tokens=5):
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000,
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                                                 "refusal": None},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": _openai_usage(prompt_tokens, completion_tokens)}


def openai_tools(*calls, prompt_tokens=30, completion_tokens=12):
    """calls: (name, arguments) pairs; arguments is the JSON string the model wrote
    (a dict is encoded for convenience)."""
    tool_calls = [{"id": f"call_{i}", "type": "function",
                   "function": {"name": name,
                                "arguments": args if isinstance(args, str) else json.dumps(args)}}
                  for i, (name, args) in enumerate(calls)]
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000,
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None,
                                                 "tool_calls": tool_calls, "refusal": None},
                         "logprobs": None, "finish_reason": "tool_calls"}],
            "usage": _openai_usage(prompt_tokens, completion_tokens)}


def openai_error(message, type_="invalid_request_error", code=None):
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


# Anthropic Messages --------------------------------------------------------------------
def anthropic_text(text, input_tokens=20, output_tokens=5):
    return {"id": "msg_test", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def anthropic_tools(*calls, text=None, input_tokens=30, output_tokens=12):
    """calls: (name, input) pairs; input is the object the model wrote."""
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(calls)]
    return {"id": "msg_test", "type": "message", "role": "assistant", "model": "test-model",
            "content": content, "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def anthropic_error(message, type_="invalid_request_error"):
    return {"type": "error", "error": {"type": type_, "message": message}}


# Wiring a Provider to a server ---------------------------------------------------------
KEY = "sk-test-SECRET-0123456789abcdef"


def provider_for(server, api="openai", key=KEY, url=None, **config):
    """(Provider, sleeps): a Provider aimed at `server` whose sleep() only records the
    waits it was asked for, so backoff tests take no time."""
    from synsema.stdlib.llm import LLMConfig, Provider
    sleeps = []
    cfg = LLMConfig(api, url or server.url, model="test-model", key=key, **config)
    return Provider(cfg, sleep=sleeps.append), sleeps
