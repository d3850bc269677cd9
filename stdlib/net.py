"""HTTP for http_get/http_post. `requests` is imported here, lazily, so a program that
never touches the network starts without it. Capability and label checks happen in the
builtins (stdlib.vmbuiltins) before this is reached."""

from synsema.vm.errors import SynError

TIMEOUT = (5, 30)       # seconds: connect, read
MAX_BYTES = 10 * 1024 * 1024


def fetch(name, url, body=None):
    import requests
    try:
        if body is None:
            r = requests.get(url, timeout=TIMEOUT, stream=True)
        else:
            r = requests.post(url, data=body.encode("utf-8"), timeout=TIMEOUT, stream=True,
                              headers={"Content-Type": "application/json"
                                       if body[:1] in "[{" else "text/plain; charset=utf-8"})
        chunks = []
        size = 0
        for chunk in r.iter_content(65536):
            size += len(chunk)
            if size > MAX_BYTES:
                raise SynError(f"{name} {url}: the response is larger than "
                               f"{MAX_BYTES // (1024 * 1024)} MiB")
            chunks.append(chunk)
        data = b"".join(chunks)
    except requests.exceptions.Timeout:
        raise SynError(f"{name} {url}: timed out") from None
    except requests.exceptions.ConnectionError as e:
        raise SynError(f"{name} {url}: could not connect ({_reason(e)})") from None
    except requests.exceptions.RequestException as e:
        raise SynError(f"{name} {url}: {_reason(e)}") from None
    text = data.decode(r.encoding or "utf-8", errors="replace")
    if r.status_code >= 400:
        snippet = " ".join(text.split())[:200]
        raise SynError(f"{name} {url}: status {r.status_code} {r.reason or ''}".rstrip()
                       + (f": {snippet}" if snippet else ""))
    return text


def _reason(e):
    s = str(e)
    return s if len(s) < 200 else s[:200] + "..."
