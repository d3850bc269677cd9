"""Which model provider a run talks to (SPEC 11), from the environment and CLI flags.

Rules, in order (a keyword argument, from a CLI flag, wins over its variable; an empty
variable counts as unset):

* URL: --llm-url / SYN_LLM_URL. API: --llm-api / SYN_LLM_API (openai|anthropic); when
  absent it is inferred: from the URL ("anthropic" in its host -> anthropic, else openai),
  or, without a URL, from which provider key is set.
* Key: SYN_LLM_KEY, else the chosen API's own variable (OPENAI_API_KEY /
  ANTHROPIC_API_KEY). A URL without a key is configured too (local servers: a placeholder
  key is sent, since they accept any non-empty one).
* Without a URL, OPENAI_API_KEY or ANTHROPIC_API_KEY alone selects that provider's public
  URL, or its OPENAI_BASE_URL / ANTHROPIC_BASE_URL when set (the official SDKs'
  variables: a proxy or gateway gets the key, never the public host behind it); so does
  SYN_LLM_KEY together with an API name. Both provider keys set with nothing to choose
  between them is a ValueError (set SYN_LLM_API), except for a cassette replay, which
  sends nothing (openai, as with no key).
* Model: --llm-model / SYN_LLM_MODEL, else DEFAULT_MODELS[api].
* Cassette: --cassette / SYN_LLM_CASSETTE with --cassette-mode / SYN_LLM_CASSETTE_MODE
  (record|replay|auto, default auto). A cassette in replay or auto mode with no provider
  still counts as configured: the tape answers, at the API's public URL (so the host that
  label checks see is stable), and a request not on it is an error instead of a send.
  A cassette mode without a cassette is a ValueError (it would silently run offline).
* Request timeout: --llm-timeout / SYN_LLM_TIMEOUT seconds (default 60) per attempt;
  retries: --llm-max-retries / SYN_LLM_MAX_RETRIES (default 2). The run's own --timeout
  bounds both (stdlib.llm.provider).

Base URLs are normalised once, here, so the senders just append a path:
* openai: trailing slashes and a pasted "/chat/completions" are removed; a URL with no
  path at all gets "/v1" (Ollama, llama.cpp, LM Studio and vLLM all serve
  /v1/chat/completions, and users give both "http://localhost:11434" and
  "http://localhost:11434/v1"). Any other path is kept as given
  ("https://openrouter.ai/api/v1", ".../v1beta/openai").
* anthropic: trailing slashes, a pasted "/v1/messages" or "/messages", and a trailing
  "/v1" are removed; requests go to URL + "/v1/messages".
"""

import re
from urllib.parse import urlsplit, urlunsplit

from synsema.stdlib.net import BadURL, url_host

APIS = ("openai", "anthropic")
CASSETTE_MODES = ("record", "replay", "auto")

PUBLIC_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
DEFAULT_MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}
KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_VARS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}

# Sent when no key is configured: local OpenAI-compatible servers want a non-empty one.
PLACEHOLDER_KEY = "no-key"

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
MAX_TIMEOUT = 24 * 3600.0       # one request; "inf" or 1e300 is a typo, not a setting
MAX_RETRIES = 20


class LLMConfig:
    """A configured provider. `key` may be None (a placeholder is sent). `network` is
    False when only a cassette answers (no provider was configured)."""

    def __init__(self, api, url, model=None, key=None, timeout=DEFAULT_TIMEOUT,
                 max_retries=DEFAULT_MAX_RETRIES, cassette=None, cassette_mode="auto",
                 network=True):
        if api not in APIS:
            raise ValueError(f"api must be one of {', '.join(APIS)}, got {api!r}")
        if cassette_mode not in CASSETTE_MODES:
            raise ValueError(f"cassette mode must be one of {', '.join(CASSETTE_MODES)}, "
                             f"got {cassette_mode!r}")
        if not isinstance(url, str) or not url.strip():
            raise ValueError("an LLM provider needs a base URL")
        self.api = api
        self.host = check_url(url.strip(), "the provider URL")
        self.url = normalize_url(api, url)
        self.model = model or DEFAULT_MODELS[api]
        self.key = key or None
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.cassette = cassette
        self.cassette_mode = cassette_mode
        self.network = network

    @property
    def send_key(self):
        return self.key or PLACEHOLDER_KEY

    def __repr__(self):
        key = "[key]" if self.key else None
        return (f"LLMConfig(api={self.api!r}, url={self.url!r}, model={self.model!r}, "
                f"key={key}, timeout={self.timeout}, max_retries={self.max_retries}, "
                f"cassette={self.cassette!r}, cassette_mode={self.cassette_mode!r})")


def _pick(override, env, var, flag):
    """(value, setting name) of the first non-empty of the flag and the variable."""
    if override is not None and str(override).strip() != "":
        return str(override).strip(), flag
    value = env.get(var)
    if value is not None and str(value).strip() != "":
        return str(value).strip(), var
    return None, None


def _number(text, setting, kind):
    """The value of SYN_LLM_TIMEOUT (kind float) or SYN_LLM_MAX_RETRIES (int)."""
    try:
        value = kind(text)
    except ValueError:
        value = None
    if kind is float and value is not None and not 0 < value <= MAX_TIMEOUT:   # nan too
        value = None
    if kind is int and value is not None and not 0 <= value <= MAX_RETRIES:
        value = None
    if value is None:
        want = (f"a number of seconds above 0 and at most {MAX_TIMEOUT:g}" if kind is float
                else f"a whole number from 0 to {MAX_RETRIES}")
        raise ValueError(f"{setting} must be {want}, got {text!r}")
    return value


def config_from(env, url=None, api=None, model=None, cassette=None, cassette_mode=None,
                timeout=None, max_retries=None):
    """The LLMConfig the environment (and CLI overrides) describe, or None when offline.
    Raises ValueError naming the setting for an invalid value."""
    url, url_from = _pick(url, env, "SYN_LLM_URL", "--llm-url")
    api, api_from = _pick(api, env, "SYN_LLM_API", "--llm-api")
    model, _ = _pick(model, env, "SYN_LLM_MODEL", "--llm-model")
    cassette, _ = _pick(cassette, env, "SYN_LLM_CASSETTE", "--cassette")
    mode, mode_from = _pick(cassette_mode, env, "SYN_LLM_CASSETTE_MODE", "--cassette-mode")
    syn_key, _ = _pick(None, env, "SYN_LLM_KEY", None)
    openai_key, _ = _pick(None, env, "OPENAI_API_KEY", None)
    anthropic_key, _ = _pick(None, env, "ANTHROPIC_API_KEY", None)
    timeout, timeout_from = _pick(timeout, env, "SYN_LLM_TIMEOUT", "--llm-timeout")
    retries, retries_from = _pick(max_retries, env, "SYN_LLM_MAX_RETRIES", "--llm-max-retries")
    timeout = DEFAULT_TIMEOUT if timeout is None else _number(timeout, timeout_from, float)
    retries = DEFAULT_MAX_RETRIES if retries is None else _number(retries, retries_from, int)

    if api is not None:
        api = api.lower()
        if api not in APIS:
            raise ValueError(f"{api_from} must be 'openai' or 'anthropic', got {api!r}")
    if mode is not None:
        mode = mode.lower()
        if mode not in CASSETTE_MODES:
            raise ValueError(f"{mode_from} must be 'record', 'replay' or 'auto', got {mode!r}")
    if mode is not None and cassette is None:
        raise ValueError(f"{mode_from} {mode} needs a cassette file: give --cassette FILE "
                         "(or SYN_LLM_CASSETTE)")
    mode = mode or "auto"
    if url is not None:
        check_url(url, url_from)

    network = True
    if url is not None:
        api = api or infer_api(url)
    elif api is None and openai_key and anthropic_key and not syn_key and mode != "replay":
        raise ValueError("both OPENAI_API_KEY and ANTHROPIC_API_KEY are set; choose the "
                         "provider with SYN_LLM_API=openai|anthropic (or --llm-api)")
    elif api is None and syn_key:
        raise ValueError("SYN_LLM_KEY is set but nothing says which provider it is for; set "
                         "SYN_LLM_URL (or --llm-url) or SYN_LLM_API=openai|anthropic")
    else:
        if api is None:
            api = "anthropic" if anthropic_key and not openai_key else "openai"
        url, base_from = _pick(None, env, BASE_URL_VARS[api], None)
        if url is None:
            url = PUBLIC_URLS[api]
        else:
            check_url(url, base_from)
        if cassette and mode == "replay":
            network = False              # nothing is sent, so no key goes anywhere
        elif not (syn_key or env_key(api, openai_key, anthropic_key)):
            if cassette and mode in ("replay", "auto"):
                network = False          # the tape answers; nothing is ever sent
            elif cassette:
                raise ValueError("cassette mode 'record' needs a provider to record from; "
                                 "set SYN_LLM_URL (or --llm-url) or a provider key")
            else:
                return None

    key = syn_key or env_key(api, openai_key, anthropic_key)
    return LLMConfig(api, url, model=model, key=key if network else None, timeout=timeout,
                     max_retries=retries, cassette=cassette, cassette_mode=mode,
                     network=network)


def env_key(api, openai_key, anthropic_key):
    return openai_key if api == "openai" else anthropic_key


def infer_api(url):
    host = urlsplit(url).hostname or ""
    return "anthropic" if "anthropic" in host.lower() else "openai"


def check_url(url, setting):
    """The URL's host, by the URL rule of http_get (stdlib.net.url_host): the host the
    ceiling's llm@HOST is checked against is then the host the requests go to."""
    try:
        return url_host(url)
    except BadURL as e:
        raise ValueError(f"{setting} must be an http:// or https:// URL with a host, got "
                         f"{_without_user_info(url)!r}: {e}") from None


def _without_user_info(url):
    """The URL as a message may show it: 'user:password@' before the host (a credential,
    refused as such) is not repeated into a terminal or a CI log."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.\-]*:/*)[^/?#]*@", r"\1[user info]@", url)


def normalize_url(api, url):
    """The base URL the senders append a path to (rules in the module docstring)."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    if api == "openai":
        if path.endswith("/chat/completions"):
            path = path[: -len("/chat/completions")]
        if path == "":
            path = "/v1"
    else:
        for tail in ("/messages", "/v1"):
            if path.endswith(tail):
                path = path[: -len(tail)]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))
