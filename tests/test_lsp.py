"""`syn lsp`: a real session over stdio, JSON-RPC with Content-Length framing spoken here
(initialize -> didOpen -> diagnostics -> didChange -> hover -> definition -> completion
-> symbols -> formatting -> shutdown -> exit)."""

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

SYN = str(Path(sys.executable).with_name("syn"))
URI = "file:///tmp/agent.syn"

BROKEN = 'let city be "Lima"\nprint(citty)\n'
GOOD = '''-- Adds two numbers.
-- b defaults to 1.
task add(a: number, b = 1)
    let total be a + b
    give total

let weather be {"city": "Lima", "sky": "clear"}
let f be (x) => add(x, len(weather))
test "adds"
    assert_eq(add(1), 2)
print( f(3) )
'''


class Client:
    def __init__(self):
        self.proc = subprocess.Popen([SYN, "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, message):
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            msg = self.inbox.get(timeout=20)
            if msg.get("id") == self.next_id and "method" not in msg:
                assert "error" not in msg, msg
                return msg["result"]

    def notification(self, method):
        while True:
            msg = self.inbox.get(timeout=20)
            if msg.get("method") == method:
                return msg["params"]


@pytest.fixture
def client():
    c = Client()
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
    c.proc.wait(timeout=10)
    c.proc.stdout.close()
    c.proc.stderr.close()
    c.proc.stdin.close()


def at(line, character):
    return {"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}


def test_a_session(client):
    init = client.request("initialize", {"processId": None, "rootUri": None,
                                         "capabilities": {}})
    caps = init["capabilities"]
    for cap in ("hoverProvider", "definitionProvider", "completionProvider",
                "documentSymbolProvider", "documentFormattingProvider"):
        assert caps.get(cap), cap
    client.notify("initialized", {})

    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": URI, "languageId": "synsema", "version": 1, "text": BROKEN}})
    diags = client.notification("textDocument/publishDiagnostics")
    assert diags["uri"] == URI
    (d,) = diags["diagnostics"]
    assert d["message"] == "'citty' is not declared; did you mean 'city'?"
    assert d["range"] == {"start": {"line": 1, "character": 6},
                          "end": {"line": 1, "character": 11}}
    assert d["severity"] == 1

    client.notify("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": GOOD}]})
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []

    # hover: a task's signature and doc comment (at a use), a builtin's doc, a variable
    hover = client.request("textDocument/hover", at(9, 15))["contents"]["value"]
    assert "task add(a: number, b = 1)" in hover
    assert "Adds two numbers.\nb defaults to 1." in hover
    hover = client.request("textDocument/hover", at(7, 24))["contents"]["value"]
    assert "len(...)" in hover and "builtin" in hover
    hover = client.request("textDocument/hover", at(2, 9))["contents"]["value"]
    assert hover == "parameter (number) `a`, declared at line 3"

    # definition: a variable captured by a lambda, a local, a task used in a test
    loc = client.request("textDocument/definition", at(7, 30))
    assert loc["uri"] == URI and loc["range"]["start"] == {"line": 6, "character": 4}
    loc = client.request("textDocument/definition", at(4, 10))
    assert loc["range"] == {"start": {"line": 3, "character": 8},
                            "end": {"line": 3, "character": 13}}
    loc = client.request("textDocument/definition", at(9, 14))
    assert loc["range"]["start"] == {"line": 2, "character": 5}

    # completion: names in scope, builtins, keywords; a map literal's keys after `.`
    labels = {i["label"] for i in client.request("textDocument/completion", at(3, 4))["items"]}
    assert {"a", "b", "add", "weather", "f", "len", "when", "for"} <= labels
    assert "total" not in labels                          # declared below the cursor
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": 3},
        "contentChanges": [{"text": GOOD + "print(weather.)\n"}]})
    client.notification("textDocument/publishDiagnostics")     # does not compile: the
    items = client.request("textDocument/completion", at(11, 14))["items"]   # last good
    assert sorted(i["label"] for i in items) == ["city", "sky"]           # analysis answers
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": 4}, "contentChanges": [{"text": GOOD}]})
    client.notification("textDocument/publishDiagnostics")

    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    assert [(s["name"], s["kind"]) for s in symbols] == [
        ("add", 12), ("weather", 13), ("f", 13), ("adds", 6)]
    assert symbols[0]["range"]["start"]["line"] == 2
    assert symbols[0]["range"]["end"]["line"] == 4

    edits = client.request("textDocument/formatting", {
        "textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": True}})
    (edit,) = edits
    assert edit["range"]["start"] == {"line": 0, "character": 0}
    assert edit["range"]["end"] == {"line": 11, "character": 0}
    assert edit["newText"].endswith("\nprint(f(3))\n")
    assert "\ntest \"adds\"\n" in edit["newText"]

    assert client.request("shutdown", None) is None
    client.notify("exit", None)
    assert client.proc.wait(timeout=10) == 0


def _open(client, text):
    client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": URI, "languageId": "synsema", "version": 1, "text": text}})
    return client.notification("textDocument/publishDiagnostics")["diagnostics"]


def test_completion_on_a_line_of_one_long_identifier_answers(client):
    # The member pattern was a regex searched for `...$`: quadratic in the line (60,000
    # characters: no answer in 20 s, the client's limit here).
    long = "x" * 60000
    _open(client, f"let a be 1\n{long}\n")
    items = client.request("textDocument/completion", at(1, 60000))["items"]
    assert "a" in {i["label"] for i in items}
    items = client.request("textDocument/completion", at(1, 30000))["items"]
    assert "len" in {i["label"] for i in items}


def test_member_before_reads_linear_work():
    from synsema.cli import lsp

    class Counting(str):
        reads = 0

        def __getitem__(self, i):
            Counting.reads += 1
            return str.__getitem__(self, i)
    for n in (1000, 8000):
        Counting.reads = 0
        assert lsp.member_before(Counting("y" * n)) is None
        assert Counting.reads <= 2 * n + 10          # each character read about once
    assert lsp.member_before("let t be weather.ci") == "weather"
    assert lsp.member_before('weather [ "s') == "weather"
    assert lsp.member_before("f(x).") is None


def test_a_document_opened_broken_answers_about_its_own_names(client):
    text = ('let city be "Lima"\ntask greet(who)\n    let msg be "hi " + who\n'
            '    give msg +\nlet weather be {"sky": "clear"}\nprint(greet(citty) 1)\n'
            'print(weather.)\n')
    diags = _open(client, text)
    # every error, in line order
    assert [(d["range"]["start"]["line"], d["message"].split(";")[0]) for d in diags] == [
        (3, "the line ends after '+', so the expression is incomplete"),
        (5, "unexpected number 1"), (6, "unexpected ')'")]
    hover = client.request("textDocument/hover", at(2, 24))["contents"]["value"]
    assert hover == "parameter `who`, declared at line 2"
    loc = client.request("textDocument/definition", at(2, 24))
    assert loc["range"]["start"] == {"line": 1, "character": 11}          # who
    labels = {i["label"] for i in client.request("textDocument/completion",
                                                   at(4, 0))["items"]}
    assert {"city", "greet", "print"} <= labels
    items = client.request("textDocument/completion", at(6, 14))["items"]
    assert [i["label"] for i in items] == ["sky"]
