"""HTTP for http_get/http_post and the model providers, and the one URL rule they share.

The host a capability check sees is the host the connection goes to, by construction:
* `url_host` reads a URL by a rule so strict that no parser can read it another way: an
  http(s) scheme, then `//`, then HOST or HOST:PORT up to the first `/`, `?` or `#`, where
  HOST passes vm.caps.is_host. User info (`name@`), backslashes, control characters and
  percent-encoded, non-ASCII or IPv6 hosts are refused before any check.
* `open_once` prepares the request, reads the host back from the prepared URL with both
  parsers requests and urllib3 connect with, refuses to send unless both give the host
  that was checked, and sends it without following redirects.
* `fetch` follows at most MAX_REDIRECTS redirects itself, and only to hosts its `gate`
  accepts: the builtin's own capability check, so a server cannot send a request (or a
  re-sent POST body) to a host the running task was never granted.
`requests` is imported lazily, so a program that never touches the network starts without
it. Capability and label checks happen in the builtins (stdlib.vmbuiltins).
"""

import re

from synsema.vm.caps import host_problem, is_host
from synsema.vm.errors import CapabilityDenied, SynError

TIMEOUT = (5, 30)       # seconds: connect, read
MAX_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)

_URL = re.compile(r"(https?)://([^/?#]*)", re.IGNORECASE)


class BadURL(ValueError):
    """A URL refused by the URL rule; the message says why and what to write."""


def url_host(url):
    """The lower-cased host of an http(s) URL, or BadURL."""
    if not url.isprintable():       # urllib drops tabs and newlines, urllib3 refuses them
        raise BadURL("a URL may not hold control characters (tabs, newlines); "
                     "percent-encode them")
    if "\\" in url:
        raise BadURL("a backslash in a URL is read differently by different parsers; "
                     "write it as %5C")
    m = _URL.match(url)
    if m is None:
        raise BadURL('it is not an http(s) URL; write it like "https://api.example.com/path"')
    authority = m.group(2)
    if "@" in authority:
        raise BadURL("user info before the host ('name@host') is refused: it hides which "
                     "host is meant")
    if authority.startswith("["):
        raise BadURL("IPv6 addresses are not supported; use a host name")
    host, colon, port = authority.partition(":")
    if colon and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise BadURL(f"{port!r} is not a port (1 to 65535)")
    host = host.lower()
    if host.startswith("*") or not is_host(host):
        raise BadURL(f"{host!r} is not a host name: {host_problem(host)}")
    return host


def connect_host(url):
    """The host requests and urllib3 would connect to for `url`, or None when they
    disagree (requests 2.32+ reads it with urllib.parse, older ones with urllib3)."""
    from urllib.parse import urlsplit

    from urllib3.util import parse_url
    try:
        a, b = urlsplit(url).hostname, parse_url(url).host
    except ValueError:
        return None
    return a if a == b else None


def open_once(session, method, url, host, body=None, headers=None, timeout=TIMEOUT):
    """Send one request to `host` and give the streaming response; no redirect is followed
    (a 3xx is returned as it is). BadURL when the prepared request would go elsewhere."""
    import requests
    prepared = session.prepare_request(requests.Request(method, url, data=body,
                                                        headers=headers, auth=_no_netrc))
    if connect_host(prepared.url) != host:
        raise BadURL(f"the request would not go to {host}; refused")
    settings = session.merge_environment_settings(prepared.url, {}, True, None, None)
    return session.get_adapter(prepared.url).send(prepared, timeout=timeout, **settings)


def _no_netrc(request):
    """An auth that adds nothing. Given one, requests does not add credentials from the
    host's ~/.netrc, which a server could echo back to the program (or which would replace
    a provider's Authorization header)."""
    return request


def fetch(name, url, host, body, gate):
    """GET `url` (POST `body` when it is a text) and give the response text. `host` is
    url_host(url), already granted; `gate(host)` raises CapabilityDenied for a redirect
    target the running task may not reach."""
    import requests
    method = "GET" if body is None else "POST"
    data = None if body is None else body.encode("utf-8")
    headers = None if body is None else {
        "Content-Type": "application/json" if body[:1] in "[{" else "text/plain; charset=utf-8"}
    shown, hops = url, 0
    try:
        with requests.Session() as session:
            while True:
                try:
                    r = open_once(session, method, url, host, data, headers)
                except BadURL as e:
                    raise SynError(f"{name} {shown}: {e}") from None
                if r.status_code not in REDIRECTS or "location" not in r.headers:
                    break
                r.close()
                hops += 1
                if hops > MAX_REDIRECTS:
                    raise SynError(f"{name} {shown}: more than {MAX_REDIRECTS} redirects")
                url, host = _follow(name, shown, url, host, r.headers["location"], gate)
                if r.status_code == 303 or (r.status_code in (301, 302) and method == "POST"):
                    method, data, headers = "GET", None, None   # what browsers do
            data = _read(name, shown, r)
    except requests.exceptions.Timeout:
        raise SynError(f"{name} {shown}: timed out") from None
    except requests.exceptions.RequestException as e:
        raise SynError(f"{name} {shown}: {failure(e)}") from None
    text = data.decode(r.encoding or "utf-8", errors="replace")
    if r.status_code >= 400:
        snippet = " ".join(text.split())[:200]
        raise SynError(f"{name} {shown}: status {r.status_code} {r.reason or ''}".rstrip()
                       + (f": {snippet}" if snippet else ""))
    return text


def redirect_target(url, location):
    """The URL a redirect from `url` leads to, read as requests reads a Location."""
    from urllib.parse import urljoin

    from requests.utils import requote_uri
    return urljoin(url, requote_uri(location))


def _follow(name, shown, url, host, location, gate):
    """(url, host) a redirect leads to, after the capability check of a new host."""
    target = redirect_target(url, location)
    try:
        new_host = url_host(target)
    except BadURL as e:
        raise SynError(f"{name} {shown}: the server redirected to a refused URL: {e}") from None
    if new_host != host:
        try:
            gate(new_host)
        except CapabilityDenied as e:
            raise CapabilityDenied(f"{name} {shown}: {host} redirected to {new_host}, which "
                                   f"was not followed: {e.message}", e.labels) from None
    return target, new_host


def _read(name, shown, r):
    chunks = []
    size = 0
    for chunk in r.iter_content(65536):
        size += len(chunk)
        if size > MAX_BYTES:
            raise SynError(f"{name} {shown}: the response is larger than "
                           f"{MAX_BYTES // (1024 * 1024)} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


def failure(exc):
    """A failed connection in a few words ("connection refused"), not urllib3's text."""
    import socket
    import ssl
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, socket.gaierror):
            return "the host name does not resolve"
        if isinstance(e, ConnectionRefusedError):
            return "connection refused"
        if isinstance(e, ConnectionResetError):
            return "the connection was reset"
        if isinstance(e, ssl.SSLCertVerificationError):
            return f"TLS certificate not accepted ({e.verify_message or e.reason})"
        if isinstance(e, ssl.SSLError):
            return f"TLS error ({e.reason or e})"
        if isinstance(e, TimeoutError):
            return "timed out"
        if isinstance(e, OSError) and e.strerror:
            return e.strerror[:1].lower() + e.strerror[1:]
        todo += [e.__cause__, e.__context__, getattr(e, "reason", None)]
        todo += [a for a in e.args if isinstance(a, BaseException)]
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:117] + "..."
