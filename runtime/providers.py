"""The model provider of a run as a host gives it: synsema.Provider (a hosted model),
synsema.FunctionModel and TestModel (a model in process, for tests), or the environment's
(SYN_LLM_*, OPENAI_API_KEY, ...). The provider code itself (stdlib.llm) loads only for a
program that can reach a model."""

import os

from synsema.runtime.errors import UsageError

class Provider:
    """The model provider of a run, given explicitly (the environment is not read):
    `Provider(url="http://localhost:11434", model="llama3.2")`; `Provider()` is offline.
    api is "openai" or "anthropic" (inferred from the URL when absent); cassette and
    cassette_mode ("record", "replay", "auto") record or replay model exchanges."""
    __slots__ = ("url", "api", "model", "key", "cassette", "cassette_mode", "_config")

    def __init__(self, url=None, api=None, model=None, key=None, cassette=None,
                 cassette_mode=None):
        fields = dict(url=url, api=api, model=model, key=key, cassette=cassette,
                      cassette_mode=cassette_mode)
        for k, v in fields.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_config", provider_config(**fields))

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.Provider is immutable")

    @property
    def offline(self):
        """True for a provider that answers no model (`Provider()`: every model call
        answers "[no llm provider]")."""
        return self._config is None

    def __repr__(self):
        shown = [f"{k}={getattr(self, k)!r}" for k in ("url", "api", "model", "cassette",
                                                       "cassette_mode") if getattr(self, k)]
        if self.key:
            shown.append("key=[key]")          # never the key itself
        return f"Provider({', '.join(shown)})"


def provider_config(url, api, model, key, cassette, cassette_mode):
    """The stdlib.llm LLMConfig of a Provider (None: offline), built from its fields alone,
    with errors that name the keyword rather than the CLI flag."""
    from synsema.stdlib.llm.config import APIS, CASSETTE_MODES, check_url, config_from

    def bad(text):
        return UsageError(f"usage error: synsema.Provider: {text}")
    for k, v in (("url", url), ("api", api), ("model", model), ("key", key),
                 ("cassette_mode", cassette_mode), ("cassette", cassette)):
        if v is not None and not (isinstance(v, str) or (k == "cassette" and
                                                         isinstance(v, os.PathLike))):
            raise bad(f"{k}= must be a text, got {type(v).__name__}")
    if api is not None and api not in APIS:
        raise bad(f"api must be 'openai' or 'anthropic', got {api!r}")
    if cassette_mode is not None and cassette_mode not in CASSETTE_MODES:
        raise bad(f"cassette_mode must be 'record', 'replay' or 'auto', got {cassette_mode!r}")
    if key and url is None and api is None:
        raise bad("key= needs url= or api= to say which provider it is for")
    if cassette_mode is not None and cassette is None:
        raise bad(f"cassette_mode={cassette_mode!r} needs a cassette file: give cassette=FILE")
    try:
        if url is not None:
            check_url(url, "url")
        return config_from({"SYN_LLM_KEY": key} if key else {}, url=url, api=api,
                           model=model, cassette=cassette, cassette_mode=cassette_mode)
    except ValueError as e:
        raise bad(str(e)) from None


class FunctionModel:
    """A model in process, for tests: `function(messages, info)` answers every model call
    of a run (llm_step, ask, summarize, classify, extract, a planner's prompt) through the
    same provider path a real model's answer takes (argument conversion, labels, tokens,
    cassettes, --trace). Named and shaped after Pydantic AI's FunctionModel: `messages`
    is the thread (dicts with "role" and "content"; "tool_calls" of an assistant tool
    step; "id" and "name" of a tool result), `info` a synsema.AgentInfo (function_tools,
    op, model_name); it returns a text, a synsema.ToolCallPart, a list of parts or a
    synsema.ModelResponse (docs/embedding.md). A ceiling names its host `function`
    (llm@function, llm=LABEL@function)."""
    __slots__ = ("function", "model_name", "cassette", "cassette_mode", "_config")

    def __init__(self, function, *, model_name=None, cassette=None, cassette_mode=None):
        from synsema.stdlib.llm.config import CASSETTE_MODES
        from synsema.stdlib.llm.function import FunctionConfig

        def bad(text):
            return UsageError(f"usage error: synsema.FunctionModel: {text}")
        if not callable(function):
            raise bad(f"function must be callable as function(messages, info), got "
                      f"{type(function).__name__}")
        if model_name is None:
            model_name = "function:" + getattr(function, "__name__", type(function).__name__)
        if not isinstance(model_name, str) or not model_name.strip():
            raise bad(f"model_name= must be a non-empty text, got {model_name!r}")
        if cassette is not None and not isinstance(cassette, (str, os.PathLike)):
            raise bad(f"cassette= must be a file path, got {type(cassette).__name__}")
        if cassette_mode is not None and cassette_mode not in CASSETTE_MODES:
            raise bad(f"cassette_mode must be 'record', 'replay' or 'auto', got "
                      f"{cassette_mode!r}")
        if cassette_mode is not None and cassette is None:
            raise bad(f"cassette_mode={cassette_mode!r} needs a cassette file: give "
                      "cassette=FILE")
        fields = dict(function=function, model_name=model_name, cassette=cassette,
                      cassette_mode=cassette_mode)
        for k, v in fields.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_config", FunctionConfig(
            function, model_name, None if cassette is None else os.fspath(cassette),
            cassette_mode or "auto"))

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.FunctionModel is immutable")

    offline = False     # as Provider's: a function model answers every call

    def __repr__(self):
        shown = f"FunctionModel({self.model_name!r}"
        if self.cassette:
            shown += f", cassette={self.cassette!r}"
        return shown + ")"


class TestModel(FunctionModel):
    """A model for tests that needs no function (after Pydantic AI's TestModel): the first
    llm_step with tools calls each tool in `call_tools` ("all", or a list of names) once,
    with sample arguments of the declared types ("a", 0, false, [], {}); every other call
    answers `custom_output_text`, else a JSON object of the tool results in the thread,
    else "success (no tool calls)". classify needs a custom_output_text that is one of
    its options."""
    __slots__ = ("call_tools", "custom_output_text")
    __test__ = False            # not a pytest test class

    def __init__(self, *, call_tools="all", custom_output_text=None, model_name="test",
                 cassette=None, cassette_mode=None):
        from synsema.stdlib.llm.function import test_answer
        if call_tools != "all" and not (isinstance(call_tools, (list, tuple)) and all(
                isinstance(n, str) for n in call_tools)):
            raise UsageError("usage error: synsema.TestModel: call_tools must be \"all\" or "
                             f"a list of tool names, got {call_tools!r}")
        if custom_output_text is not None and not isinstance(custom_output_text, str):
            raise UsageError("usage error: synsema.TestModel: custom_output_text must be a "
                             f"text, got {type(custom_output_text).__name__}")
        names = call_tools if call_tools == "all" else tuple(call_tools)
        object.__setattr__(self, "call_tools", names)
        object.__setattr__(self, "custom_output_text", custom_output_text)
        super().__init__(lambda messages, info: test_answer(messages, info, names,
                                                            custom_output_text),
                         model_name=model_name, cassette=cassette, cassette_mode=cassette_mode)

    def __repr__(self):
        return (f"TestModel(call_tools={self.call_tools!r}, "
                f"custom_output_text={self.custom_output_text!r})")


ENV_SETTINGS = ("SYN_LLM_URL", "SYN_LLM_API", "SYN_LLM_MODEL", "SYN_LLM_KEY",
                 "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SYN_LLM_CASSETTE",
                 "SYN_LLM_CASSETTE_MODE")


def env_provider(flags):
    """provider=None: the stdlib.llm Provider the environment (and the CLI's --llm-*
    flags, `flags`) describe, or None when offline."""
    env = os.environ
    if not any(flags.values()) and not any(env.get(k) for k in ENV_SETTINGS):
        return None        # offline: do not even import the provider code
    from synsema.stdlib.llm import Provider as LLMProvider, config_from
    try:
        config = config_from(dict(env), **flags)
    except ValueError as e:
        raise UsageError(f"usage error: {e}") from None
    return LLMProvider(config) if config is not None else None


def llm_for(program, provider, flags):
    """The provider a run talks to. Read only for a program that can reach a model at all
    (vm.program.Program.reaches_model): a shell with both OPENAI_API_KEY and
    ANTHROPIC_API_KEY set must not stop a program that never calls a model."""
    if provider is not None and not isinstance(provider, (Provider, FunctionModel)):
        raise UsageError("usage error: provider must be a synsema.Provider, a "
                         f"synsema.FunctionModel or None, got {type(provider).__name__}")
    if not program.reaches_model():
        return None
    if provider is None:
        return env_provider(flags or {})
    if provider._config is None:
        return None
    from synsema.stdlib.llm import Provider as LLMProvider
    return LLMProvider(provider._config)        # one per run: its session is its own
