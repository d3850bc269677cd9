"""Synsema: an English-like scripting language for LLM agents.

The folders are the pipeline: compiler/ (source -> tokens -> tree -> resolved tree ->
bytecode), vm/ (opcode table, .synb files, verifier, the loop), stdlib/ (builtins),
cli/ (the `syn` command).
"""
__version__ = "0.1.0"
LANGUAGE_LEVEL = "0.6.46"

# The embedding API loads on first use, so `import synsema` (and `syn`'s start-up) stays
# cheap: name -> the module that defines it.
_LAZY = {
    "tool": "synsema.stdlib.hosttools",
    "Toolbox": "synsema.stdlib.toolbox",
    "HostTool": "synsema.stdlib.hosttools",
    "ToolError": "synsema.stdlib.hosttools",
    "ToolWarning": "synsema.stdlib.hosttools",
    "Labelled": "synsema.stdlib.hosttools",
    "compile_file": "synsema.api",
    "compile_source": "synsema.api",
    "load": "synsema.api",
    "Program": "synsema.api",
    "run_plan": "synsema.api_plans",
    "run_plan_async": "synsema.api_plans",
    "plan_messages": "synsema.api_plans",
    "Result": "synsema.api",
    "Usage": "synsema.api",
    "Provider": "synsema.api",
    "FunctionModel": "synsema.api",
    "TestModel": "synsema.api",
    "ModelResponse": "synsema.stdlib.llm.function",
    "TextPart": "synsema.stdlib.llm.function",
    "ToolCallPart": "synsema.stdlib.llm.function",
    "AgentInfo": "synsema.stdlib.llm.function",
    "ToolDefinition": "synsema.stdlib.llm.function",
    "Error": "synsema.api",
    "CompileError": "synsema.api",
    "SourceError": "synsema.api",
    "InvalidProgram": "synsema.api",
    "UsageError": "synsema.api",
    "RunError": "synsema.api",
    "ArgumentError": "synsema.api",
    "ToolRefused": "synsema.api",
    "LabelViolation": "synsema.api",
    "Refused": "synsema.api",
    "LimitExceeded": "synsema.api",
    "InternalError": "synsema.api",
}


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'synsema' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
