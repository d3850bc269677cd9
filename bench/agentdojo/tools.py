"""AgentDojo's tools as Synsema host tools (SPEC 15), bound to one environment.

Each suite tool becomes `SUITE.NAME` (so a ceiling `tool=banking.*` grants one suite), with
the parameters of AgentDojo's input schema and its docstring, and the label contract of
policies.py. Calling one runs AgentDojo's own FunctionsRuntime on the environment, and the
result comes back as the text AgentDojo's pipeline shows a model (its YAML dump); an
AgentDojo error (a missing id, a bad date) is raised, so the program sees it as the
catchable `host tool '...' failed: ...`.
"""

import inspect

import synsema
from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime
from pydantic_core import PydanticUndefined

from .policies import contract


def _signature(function):
    params = []
    for name, field in function.parameters.model_fields.items():
        default = inspect.Parameter.empty if field.default is PydanticUndefined else field.default
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                        default=default, annotation=field.annotation))
    return inspect.Signature(params)


def toolbox(suite, env, trace):
    """A synsema.Toolbox of every tool of `suite` acting on `env`; each call that reaches
    AgentDojo is appended to `trace` as a FunctionCall (AgentDojo's checks read it)."""
    runtime = FunctionsRuntime(suite.tools)
    box = synsema.Toolbox(suite.name)
    for function in suite.tools:
        box.add(_host_tool(suite.name, function, runtime, env, trace))
    return box


def _host_tool(suite_name, function, runtime, env, trace):
    name = function.name

    def run(**kwargs):
        kwargs = {k: v for k, v in kwargs.items()}
        trace.append(FunctionCall(function=name, args=dict(kwargs)))
        result, _ = runtime.run_function(env, name, kwargs, raise_on_error=True)
        return tool_result_to_str(result)

    run.__name__ = name
    run.__doc__ = function.full_docstring
    run.__signature__ = _signature(function)
    result_labels, accepts = contract(suite_name, name)
    return synsema.tool(run, name=f"{suite_name}.{name}", result_labels=result_labels,
                        accepts=accepts)
