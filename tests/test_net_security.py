"""The network is checked where it is reached (SPEC 9, 11, 15): the host a capability check
sees is the host the connection goes to; redirects go only to granted hosts (and model
requests never follow one); the provider key is scrubbed however it is encoded; and one
host rule serves the compiler, the verifier and --cap-set.

Every server here is a real one on 127.0.0.1 (tests/llm_server.py). 127.0.0.1 and
localhost are two host names for it, so a redirect from one to the other is a cross-host
redirect that never leaves the machine.
"""

import io
import json
import os
import random
import re
import socket
import sys
import textwrap

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from llm_server import (KEY, LLMServer, anthropic_text, openai_error, openai_text,  # noqa: E402
                        openai_tools, provider_for)

from synsema.runtime.report import Source, runtime_error  # noqa: E402
from synsema.compiler import compile_source  # noqa: E402
from synsema.stdlib import net  # noqa: E402
from synsema.stdlib.llm import LLMConfig, ProviderError  # noqa: E402
from synsema.stdlib.llm.errors import scrub  # noqa: E402
from synsema.vm import caps as C  # noqa: E402
from synsema.vm.errors import CompileError, Refused, SynError  # noqa: E402
from synsema.runtime.machine import VM, Options  # noqa: E402


def run(src, cap=None, audit=None):
    """(exit code, stdout, error report) of an in-process run."""
    prog = compile_source(textwrap.dedent(src), "app.syn")
    buf = io.StringIO()
    opts = Options(ceiling=C.Ceiling.parse(cap) if cap is not None else None,
                   out=buf.write, audit=audit)
    try:
        vm = VM(prog, opts)
    except Refused as e:
        return 3, "", ", ".join(e.missing)
    try:
        vm.run_main()
        return 0, buf.getvalue(), ""
    except SynError as e:
        return e.exit_code, buf.getvalue(), runtime_error(e, Source("app.syn"))


@pytest.fixture
def a():
    with LLMServer() as s:
        yield s


@pytest.fixture
def b():
    with LLMServer() as s:
        yield s


def local(server):
    """The same server under its other name: a different host for every check."""
    return f"http://localhost:{server.port}"


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- 1. the URL rule: one reading, the one that connects --------------------------------

@pytest.mark.parametrize("url, host", [
    ("http://api.example.com/x?q=1#f", "api.example.com"),
    ("HTTPS://API.Example.COM:8443", "api.example.com"),
    ("http://127.0.0.1:9/", "127.0.0.1"),
    ("https://xn--bcher-kva.example/", "xn--bcher-kva.example"),
    ("http://a.com/path%5Cwith@at?x=@y", "a.com"),
    ("http://a.com/café?q=a b", "a.com"),
])
def test_url_host_of_plain_urls(url, host):
    assert net.url_host(url) == host
    assert net.connect_host(url) == host


@pytest.mark.parametrize("url, why", [
    ("http://allowed.com\\@evil.com/", "backslash"),
    ("http://allowed.com:80\\@evil.com", "backslash"),
    ("http:\\\\evil.com/", "backslash"),
    ("http://allowed.com/\\x", "backslash"),
    ("http://allowed.com@evil.com/", "user info"),
    ("http://allowed.com%5C@evil.com/", "user info"),
    ("http://u:p@evil.com/", "user info"),
    ("http://evil%2ecom/", "percent-encoded"),
    ("http://bücher.example/", "ASCII form (xn--"),
    ("http://a.com\t.evil/", "control"),
    ("http://a.com/x\ny", "control"),
    (" http://a.com/", "not an http(s) URL"),
    ("http://a.com./", "final dot"),
    ("http://.a.com/", "begin with a dot"),
    ("http://*.a.com/", "not a host name"),
    ("http://[::1]:8/", "IPv6"),
    ("http://a.com:0/", "port"),
    ("http://a.com:99999/", "port"),
    ("http://a.com:/", "port"),
    ("http://a.com:\u0668\u0660/", "port"),
    ("http:/a.com/", "not an http(s) URL"),
    ("ftp://a.com/", "not an http(s) URL"),
    ("file:///etc/passwd", "not an http(s) URL"),
    ("//a.com/", "not an http(s) URL"),
    ("https:///a.com", "not a host name"),
])
def test_ambiguous_or_foreign_urls_are_refused(url, why):
    with pytest.raises(net.BadURL, match=re.escape(why)):
        net.url_host(url)


def test_every_accepted_url_connects_to_the_host_it_was_checked_for():
    """By construction: for URLs built from the parts that confuse parsers, url_host
    either refuses or names exactly the host requests and urllib3 connect to once the
    request is prepared."""
    import requests
    parts = ["a.com", "b.org", "@", "\\", "%40", "%5C", ":", "80", "/", "?", "#", ".", "%2e",
             "user", "*", "[", "]", "é", "//", ";", "&", "%00"]
    rng = random.Random(7)
    accepted = 0
    session = requests.Session()
    for _ in range(3000):
        url = rng.choice(["http://", "https://", "HTTP://", "http:", "http:/"]) + \
            "".join(rng.choice(parts) for _ in range(rng.randint(1, 6)))
        try:
            host = net.url_host(url)
        except net.BadURL:
            continue
        accepted += 1
        prepared = session.prepare_request(requests.Request("GET", url))
        assert net.connect_host(prepared.url) == host, url
    assert accepted > 100


def test_backslash_trick_reaches_no_host(a):
    """Under the old check urlsplit read the host after '@' and requests connected to
    the host before the backslash: check one host, reach another."""
    a.reply(raw="should not be reached")
    for grant, url in [("localhost", f"http://127.0.0.1:{a.port}\\@localhost:{a.port}/"),
                       ("127.0.0.1", f"http://localhost:{a.port}\\@127.0.0.1:{a.port}/"),
                       ("localhost", f"http://localhost@127.0.0.1:{a.port}/")]:
        code, out, _ = run(f'''\
            require net("{grant}")
            try
                print(http_get("{url.replace(chr(92), chr(92) * 2)}"))
            recover e
                print(e)
        ''')
        assert code == 0 and out.startswith("http_get: refused "), out
    assert a.requests == []


def test_a_bad_url_is_a_catchable_error_with_the_fix():
    code, out, _ = run('''\
        require net("a.com")
        try
            print(http_get("http://a.com./"))
        recover e
            print(e)
    ''')
    assert code == 0
    assert out == ("http_get: refused 'http://a.com./': 'a.com.' is not a host name: no final "
                   'dot; write "a.com"\n')


# ---- 2. redirects go only where the current set reaches ----------------------------------

def test_redirect_to_an_ungranted_host_is_not_followed(a, b):
    a.reply(raw="moved", status=302, headers={"Location": local(b) + "/stolen"})
    b.reply(raw="secret page")
    code, out, _ = run(f'''\
        require net("127.0.0.1")
        try
            print(http_get("{a.url}/start"))
        recover e
            print(e)
    ''')
    assert code == 0
    assert out.startswith(f"http_get {a.url}/start: 127.0.0.1 redirected to localhost, which "
                          'was not followed: http_get needs net("localhost")'), out
    assert len(a.requests) == 1 and b.requests == []


def test_redirect_to_a_granted_host_is_followed_and_audited(a, b, tmp_path):
    from synsema.vm.audit import Audit
    a.reply(raw="moved", status=302, headers={"Location": local(b) + "/there"})
    b.reply(raw="arrived")
    path = tmp_path / "audit.jsonl"
    audit = Audit(str(path))
    code, out, err = run(f'''\
        require net("127.0.0.1")
        require net("localhost")
        print(http_get("{a.url}/start"))
    ''', audit=audit)
    audit.close()
    assert (code, out) == (0, "arrived\n"), err
    assert [r["path"] for r in b.requests] == ["/there"]
    hosts = [e["host"] for e in map(json.loads, path.read_text().splitlines())
             if e.get("event") == "capability"]
    assert hosts == ["127.0.0.1", "localhost"]


def test_redirect_checks_the_tools_set_not_the_programs(a, b):
    """call_tool runs with the task's own declarations: the program holds localhost, the
    tool does not, and the redirect is checked against the tool's set."""
    a.reply(raw="moved", status=301, headers={"Location": local(b) + "/"})
    b.reply(raw="should not be reached")
    code, out, _ = run(f'''\
        require net("127.0.0.1")
        require net("localhost")
        task fetch()
            require net("127.0.0.1")
            give http_get("{a.url}/")
        try
            print(call_tool(fetch, {{}}))
        recover e
            print(e)
    ''')
    assert code == 0 and "redirected to localhost, which was not followed" in out, out
    assert "tool 'fetch' runs with [net(\"127.0.0.1\")]" in out
    assert b.requests == []


def test_307_does_not_resend_a_post_body_to_an_ungranted_host(a, b):
    a.reply(raw="", status=307, headers={"Location": local(b) + "/collect"})
    code, out, _ = run(f'''\
        require net("127.0.0.1")
        try
            print(http_post("{a.url}/form", "token=s3cret"))
        recover e
            print(e)
    ''')
    assert code == 0 and "redirected to localhost, which was not followed" in out
    assert [r["body"] for r in a.requests] == ["token=s3cret"] and b.requests == []


def test_same_host_redirects_keep_or_drop_the_body_as_http_says(a):
    a.reply(raw="", status=307, headers={"Location": "/again"})
    a.reply(raw="", status=303, headers={"Location": "/done"})
    a.reply(raw="finished")
    code, out, err = run(f'require net("127.0.0.1")\nprint(http_post("{a.url}/form", "b=1"))\n')
    assert (code, out) == (0, "finished\n"), err
    assert [(r["method"], r["path"], r["body"]) for r in a.requests] == [
        ("POST", "/form", "b=1"), ("POST", "/again", "b=1"), ("GET", "/done", None)]


def test_redirects_are_bounded(a):
    a.reply(raw="", status=302, headers={"Location": "/loop"}, times=10)
    code, out, _ = run(f'''\
        require net("127.0.0.1")
        try
            print(http_get("{a.url}/loop"))
        recover e
            print(e)
    ''')
    assert out == f"http_get {a.url}/loop: more than {net.MAX_REDIRECTS} redirects\n"
    assert len(a.requests) == net.MAX_REDIRECTS + 1


def test_redirect_to_an_ambiguous_url_is_refused(a):
    a.reply(raw="", status=302, headers={"Location": f"http://127.0.0.1:{a.port}@evil.com/"})
    code, out, _ = run(f'''\
        require net("127.0.0.1")
        try
            print(http_get("{a.url}/"))
        recover e
            print(e)
    ''')
    assert "the server redirected to a refused URL: user info" in out
    assert len(a.requests) == 1


def test_no_credentials_from_the_hosts_netrc(a, tmp_path, monkeypatch):
    """requests would add ~/.netrc credentials for the host: a server could echo them to
    the program, and they would replace a provider's Authorization header."""
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login hostuser password hostsecret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    a.reply(raw="ok")
    a.reply(openai_text("fine"))
    assert run(f'require net("127.0.0.1")\nprint(http_get("{a.url}/"))\n')[:2] == (0, "ok\n")
    provider, _ = provider_for(a)
    provider.text_op("intent", "ask", "q")
    assert "authorization" not in a.requests[0]["headers"]
    assert a.requests[1]["headers"]["authorization"] == "Bearer " + KEY


# ---- 6. a failed connection is one readable line ------------------------------------------

def test_connection_refused_is_one_line():
    port = closed_port()
    code, out, _ = run(f'''\
        require net("127.0.0.1")
        try
            print(http_get("http://127.0.0.1:{port}/"))
        recover e
            print(e)
    ''')
    assert out == f"http_get http://127.0.0.1:{port}/: connection refused\n"


def test_connection_failure_words():
    import requests
    with pytest.raises(requests.exceptions.ConnectionError) as e:
        requests.get(f"http://127.0.0.1:{closed_port()}/", timeout=2)
    assert net.failure(e.value) == "connection refused"


# ---- 2, 3. model requests never follow a redirect; the key stays home ---------------------

@pytest.mark.parametrize("api, reply", [("openai", openai_text("stolen")),
                                        ("anthropic", anthropic_text("stolen"))])
@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_provider_redirect_to_another_host_is_an_error_naming_both(a, b, api, reply, status):
    a.reply(status=status, headers={"Location": local(b) + "/v1/other"})
    b.reply(reply)
    provider, sleeps = provider_for(a, api)
    with pytest.raises(ProviderError) as err:
        provider.text_op("intent", "ask", "the prompt with labelled data")
    message = err.value.message
    assert "API at 127.0.0.1 redirected the request to another host (localhost" in message
    assert "model requests go only to 127.0.0.1" in message
    assert b.requests == []                  # neither the prompt nor the key went there
    assert len(a.requests) == 1 and sleeps == []      # a redirect is not retried


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_provider_same_host_redirect_says_to_fix_the_url(a, api):
    a.reply(status=308, headers={"Location": "/v2/elsewhere"})
    provider, _ = provider_for(a, api)
    with pytest.raises(ProviderError) as err:
        provider.text_op("intent", "ask", "q")
    assert (f"redirected the request to {a.url}/v2/elsewhere; model requests do not follow "
            "redirects: set the provider URL") in err.value.message
    assert len(a.requests) == 1


def test_the_key_is_sent_only_to_the_configured_host(a, b):
    """Both key headers (Authorization and x-api-key) reach the configured host and never
    the one a redirect names."""
    for api, header in [("openai", "authorization"), ("anthropic", "x-api-key")]:
        a.reply(status=307, headers={"Location": local(b) + "/"})
        provider, _ = provider_for(a, api)
        with pytest.raises(ProviderError):
            provider.text_op("intent", "ask", "q")
        assert KEY in a.requests[-1]["headers"][header]
    assert b.requests == []


def test_provider_url_follows_the_url_rule():
    for url in ["http://127.0.0.1:9\\@evil.com", "http://me@127.0.0.1:9", "http://evil%2ecom"]:
        with pytest.raises(ValueError, match="provider URL"):
            LLMConfig("openai", url)


# ---- 4. the key is scrubbed however it is encoded ------------------------------------------

SLASHED = "sk-test/SECRET/0123456789"


def escaped(key):
    """The key as a JSON string body would carry it: every character \\u-escaped."""
    return "".join(f"\\u{ord(c):04x}" for c in key)


def assert_no_key(text, key=KEY):
    assert key not in text
    assert key not in json.dumps(text)
    assert scrub(text, key) == text, f"an encoded key remains in {text!r}"


@pytest.mark.parametrize("form", [
    lambda k: k, escaped, lambda k: k.replace("/", "\\/"),
    lambda k: "".join(f"%{b:02X}" for b in k.encode()),
    lambda k: "".join(f"&#{ord(c)};" for c in k),
    lambda k: "".join(f"&#x{ord(c):x};" for c in k),
    lambda k: escaped(k[:5]) + k[5:].replace("/", "\\/"),
])
def test_scrub_finds_the_key_in_every_encoding(form):
    text = f"before {form(SLASHED)} after"
    assert scrub(text, SLASHED) == "before [key] after"


def test_scrub_keeps_other_text():
    assert scrub("sk-test-other and \\u0041", KEY) == "sk-test-other and \\u0041"
    assert scrub("tiny abc12 key", "abc12") == "tiny [key] key"    # short keys too


def test_json_escaped_key_in_an_answer_is_scrubbed_everywhere(a, tmp_path):
    """The provider echoes the key in JSON escapes: in the text, the tool arguments (key and
    value), and an error body. None of it reaches the program, errors or the tape."""
    tape = tmp_path / "tape.jsonl"
    body = json.dumps(openai_text("KEYHERE")).replace("KEYHERE", escaped(KEY))
    a.reply(raw=body)
    call = json.dumps(openai_tools(("get_weather", {"city": "KEYHERE", "KEYHERE": 1})))
    a.reply(raw=call.replace("KEYHERE", escaped(KEY)))
    a.reply(raw=json.dumps(openai_error("bad key KEYHERE")).replace("KEYHERE", escaped(KEY)),
            status=401)
    provider, _ = provider_for(a, cassette=str(tape), cassette_mode="record")
    text, _ = provider.text_op("intent", "ask", "q")
    assert text == "[key]"
    step = provider.step("intent", "q", [{"name": "get_weather", "params": ["city"]}], "")
    assert step["args"] == {"city": "[key]", "[key]": 1}
    with pytest.raises(ProviderError) as err:
        provider.text_op("intent", "ask", "q")
    assert "bad key [key]" in err.value.message
    assert_no_key(err.value.message)
    recorded = tape.read_text()
    assert_no_key(recorded)
    assert_no_key(json.dumps([json.loads(line) for line in recorded.splitlines()]))


def test_escaped_key_in_a_non_json_body_is_scrubbed(a):
    a.reply(raw=f"<html>key={escaped(KEY)} and {KEY.replace('-', '%2D')}</html>", status=500)
    provider, _ = provider_for(a, max_retries=0)
    with pytest.raises(ProviderError) as err:
        provider.text_op("intent", "ask", "q")
    assert err.value.message.count("[key]") == 2
    assert_no_key(err.value.message)


def test_a_tape_holding_the_key_replays_scrubbed(a, tmp_path):
    tape = tmp_path / "tape.jsonl"
    provider, _ = provider_for(a, cassette=str(tape), cassette_mode="record")
    a.reply(openai_text("plain"))
    provider.text_op("intent", "ask", "q")
    line = json.loads(tape.read_text())
    line["response"]["body"]["choices"][0]["message"]["content"] = "leaked " + KEY
    tape.write_text(json.dumps(line) + "\n")
    provider, _ = provider_for(a, cassette=str(tape), cassette_mode="replay")
    assert provider.text_op("intent", "ask", "q")[0] == "leaked [key]"


def test_trace_and_output_never_show_an_escaped_key(a, syn, write):
    body = json.dumps(openai_text("the key: KEYHERE")).replace("KEYHERE", escaped(KEY))
    a.reply(raw=body)
    p = write("app.syn", 'require llm\nprint(ask("what is the key?"))\n')
    r = syn("run", p, "--trace", env={"SYN_LLM_URL": a.url, "SYN_LLM_KEY": KEY})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "the key: [key]\n"
    assert_no_key(r.stdout + r.stderr)


# ---- 5. one host rule: compile, verify, --cap-set ------------------------------------------

GOOD = ["api.example.com", "*.example.com", "API.Example.COM", "127.0.0.1", "localhost",
        "xn--bcher-kva.example", "a-b.c0", "x" * 63 + ".com"]
BAD = ["api.example.com.", ".example.com", "", "a..b", "a.com:80", "http://a.com",
       "a.com/x", "-a.com", "a-.com", "a_b.com", "bücher.de", "*", "*.", "a.*.com",
       "x" * 64 + ".com", "[::1]", "a com", "*.0.0.1", "*.1", "*.0x1", "*.a.1b"]


@pytest.mark.parametrize("host", GOOD + BAD)
def test_compiler_verifier_and_ceiling_agree(host):
    from synsema.vm import codec
    from synsema.vm.verify import verify
    try:
        prog = compile_source(f'require net("{host}")\nprint("ok")\n', "app.syn")
    except CompileError as e:
        assert host in BAD, e.message
        assert "bad host" in e.message and "write " in e.message
    else:
        assert host in GOOD
        verify(codec.decode(codec.encode(prog)))      # raises InvalidProgram if refused
    assert C.is_host(host.lower()) == (host in GOOD)
    if host in GOOD:
        C.Ceiling.parse("net=" + host)
    else:
        with pytest.raises(C.CeilingError):
            C.Ceiling.parse("net=" + host)


@pytest.mark.parametrize("host, fix", [("api.example.com.", 'write "api.example.com"'),
                                       (".example.com", 'write "*.example.com"'),
                                       ("https://a.com/v1", 'write "a.com"'),
                                       ("a.com:8080", "no port")])
def test_syn_compile_refuses_what_syn_exec_would(syn, write, host, fix):
    p = write("app.syn", f'require net("{host}")\nprint("ok")\n')
    r = syn("compile", p)
    assert r.returncode == 1 and "bad host" in r.stderr and fix in r.stderr, r.stderr
    assert not (p.parent / "app.synb").exists()


def test_syn_exec_runs_what_syn_compile_wrote(syn, write):
    p = write("app.syn", 'require net("API.Example.com")\nrequire net("*.example.org")\n'
                         'print("ok")\n')
    assert syn("compile", p).returncode == 0
    r = syn("exec", p.parent / "app.synb")
    assert (r.returncode, r.stdout) == (0, "ok\n"), r.stderr
