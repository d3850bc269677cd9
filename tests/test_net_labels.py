"""Network, labelled (SPEC 15): data labelled L reaches a host only with
`require net("HOST", "L")` and `net=L@HOST` in the ceiling; a redirect is checked again."""

import http.server
import io
import threading

import pytest

from synsema.compiler import compile_source
from synsema.vm.caps import Ceiling
from synsema.vm.errors import LabelViolation, Refused
from synsema.runtime.machine import VM, Options


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/away"):
            self.send_response(307)
            self.send_header("Location", f"http://localhost:{self.server.server_port}/x")
            self.end_headers()
            return
        body = b"got " + self.path.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):       # echoes the body back
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture(scope="module")
def port():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_port
    srv.shutdown()


def run(src, cap):
    out = io.StringIO()
    vm = VM(compile_source(src, "app.syn"),
            Options(labels=True, ceiling=Ceiling.parse(cap), out=out.write, timeout=20))
    vm.run_main()
    return out.getvalue()


PROG = ('require net("127.0.0.1", "customers")\n'
        'require net("localhost", "customers")\n'
        'let id be private("42", "customers")\n'
        'let r be http_get("http://127.0.0.1:{port}/" + id)\n'
        'print(declassify(r, "the echo is fine"))\n')


def test_labelled_data_goes_where_the_ceiling_grants_it(port):
    src = PROG.format(port=port)
    cap = "stdout,net=customers@127.0.0.1,net=customers@localhost,declassify=customers"
    assert run(src, cap) == "got /42\n"


def test_without_the_ceiling_item_the_program_does_not_start(port):
    src = PROG.format(port=port)
    with pytest.raises(Refused, match="customers"):
        run(src, "stdout,net=127.0.0.1,net=localhost,declassify=customers")


def test_without_the_require_it_is_a_violation(port):
    src = PROG.format(port=port).replace('require net("127.0.0.1", "customers")\n',
                                         'require net("127.0.0.1")\n')
    with pytest.raises(LabelViolation, match="customers"):
        run(src, "stdout,net=customers@127.0.0.1,net=customers@localhost,declassify=customers")


def test_a_redirect_to_a_host_without_the_label_is_a_violation(port):
    src = PROG.format(port=port).replace("/\" + id", "/away\" + id").replace(
        'require net("localhost", "customers")', 'require net("localhost")')
    with pytest.raises(LabelViolation, match="customers"):
        run(src, "stdout,net=customers@127.0.0.1,net=localhost,declassify=customers")


def test_the_response_carries_the_labels_of_what_was_sent(port):
    # An echoing API sends the data back: its answer is as labelled as the request, so it
    # cannot go on to stdout or to a host that was not granted the label.
    src = PROG.format(port=port).replace(
        'print(declassify(r, "the echo is fine"))\n',
        'print(declassify(labels_of(r), "ok"))\n'
        'let b be http_post("http://127.0.0.1:{port}/", {{"id": id}})\n'
        'print(declassify(labels_of(b), "ok"))\n'.format(port=port))
    cap = "stdout,net=customers@127.0.0.1,net=customers@localhost,declassify=customers"
    assert run(src, cap) == '["customers"]\n["customers"]\n'
    leak = PROG.format(port=port).replace('print(declassify(r, "the echo is fine"))\n',
                                          'print(r)\n')
    with pytest.raises(LabelViolation, match="customers"):
        run(leak, cap)
    onward = PROG.format(port=port).replace(
        'require net("localhost", "customers")', 'require net("localhost")').replace(
        'print(declassify(r, "the echo is fine"))\n',
        'let again be http_get("http://localhost:{port}/" + r)\n'.format(port=port))
    with pytest.raises(LabelViolation, match="customers"):
        run(onward, "stdout,net=customers@127.0.0.1,net=localhost,declassify=customers")


def test_an_unlabelled_request_gets_an_unlabelled_response(port):
    src = (f'require net("127.0.0.1")\nlet r be http_get("http://127.0.0.1:{port}/a")\n'
           'print(r)\nprint(labels_of(r))\n')
    assert run(src, "stdout,net=127.0.0.1") == "got /a\n[]\n"
