"""AgentDojo's tools as Synsema host tools (SPEC 15), bound to one environment.

Each suite tool becomes `SUITE.NAME` (so a ceiling `tool=banking.*` grants one suite), with
the parameters of AgentDojo's input schema and its docstring, and the label contract of
policies.py; the description says what the tool returns (the shape of AgentDojo's return
type: records and their fields), as CaMeL gives its planner the return types. Calling one
runs AgentDojo's own FunctionsRuntime on the environment. The result comes back either as
the text AgentDojo's pipeline shows a model (its YAML dump: the loop agents, so they see
what AgentDojo's own pipeline sees) or `typed`, as AgentDojo's value itself (pydantic
records become Synsema maps, SPEC 15.1: the planner, which reads fields of it). Typed,
a result whose parts different parties write says so (policies.UNTRUSTED_FIELDS): those
fields come back `synsema.Labelled` untrusted, the rest unlabelled (a transaction's
subject, not its sender or amount), and travel's "Rating: 4.5\nReviews: ..." texts are
split into records {name, rating, reviews} first, so the rating can be read apart from
the reviews. An AgentDojo error (a missing id, a bad date) is raised, so the program sees
it as the catchable `host tool '...' failed: ...`.
"""

import inspect
import types
import typing

import synsema
from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .policies import PLATFORM_IDS, UNTRUSTED, UNTRUSTED_FIELDS, check, contract

# Travel's rating tools: {name: "Rating: 4.5\nReviews: a\nb"} -> one record per name.
RATINGS = {"get_rating_reviews_for_hotels", "get_rating_reviews_for_restaurants",
           "get_rating_reviews_for_car_rental"}
RATING_SHAPE = "a list of Rating records {name: text, rating: number, reviews: a list of text}"


def shaped(suite_name, name, result, labelled=True):
    """A tool's AgentDojo result as the typed host tool returns it: JSON data, rating
    texts split into records, and the fields other parties write `Labelled` untrusted
    (`labelled=False`: the same data without the wrappers, for the scripted planner)."""
    from pydantic_core import to_jsonable_python
    value = to_jsonable_python(result)
    if name in RATINGS and isinstance(value, dict):
        value = [_rating(n, text) for n, text in value.items()]
    fields = UNTRUSTED_FIELDS.get(suite_name, {}).get(name)
    ids = PLATFORM_IDS.get(suite_name, {}).get(name)
    if (fields or ids) and labelled:
        records = value if isinstance(value, list) else [value]
        for record in records:
            if not isinstance(record, dict):
                continue
            # The fields others write: those listed, or every one but the platform's ids.
            for field in (fields or [f for f in record if f not in ids]):
                if field in record:
                    record[field] = synsema.Labelled(record[field], [UNTRUSTED])
    return value


def _rating(name, text):
    head, _, reviews = text.partition("\nReviews: ")
    try:
        rating = float(head.removeprefix("Rating: "))
    except ValueError:
        rating = head
    return {"name": name, "rating": rating, "reviews": reviews.split("\n") if reviews else []}


def _signature(function):
    params = []
    for name, field in function.parameters.model_fields.items():
        default = inspect.Parameter.empty if field.default is PydanticUndefined else field.default
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                        default=default, annotation=field.annotation))
    return inspect.Signature(params)


_SCALARS = {str: "text", int: "number", float: "number", bool: "bool", type(None): "nothing"}


def shape(t, many=False):
    """A return type as the catalog states it: "a list of Transaction records {id: number,
    sender: text, ...}"."""
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin in (list, tuple):
        return f"a list of {shape(args[0], True)}" if args else "a list"
    if origin is dict:
        return f"a map from {shape(args[0])} to {shape(args[1])}" if args else "a map"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(shape(a, many) for a in args)
    if t is None or t in _SCALARS:
        return _SCALARS[type(None) if t is None else t]
    if isinstance(t, type) and issubclass(t, BaseModel):
        fields = ", ".join(f"{n}: {shape(f.annotation)}" for n, f in t.model_fields.items())
        what = f"{t.__name__} records" if many else f"a {t.__name__} record"
        return f"{what} {{{fields}}}"
    return "text"          # enums, datetimes: their text


def toolbox(suite, env, trace, typed=False):
    """A synsema.Toolbox of every tool of `suite` acting on `env`; each call that reaches
    AgentDojo is appended to `trace` as a FunctionCall (AgentDojo's checks read it).
    `typed`: results as AgentDojo's values, else as the text a model is shown."""
    check(suite.name, [function.name for function in suite.tools])
    runtime = FunctionsRuntime(suite.tools)
    box = synsema.Toolbox(suite.name)
    for function in suite.tools:
        box.add(_host_tool(suite.name, function, runtime, env, trace, typed))
    return box


def _host_tool(suite_name, function, runtime, env, trace, typed):
    name = function.name

    def run(**kwargs):
        kwargs = {k: v for k, v in kwargs.items()}
        trace.append(FunctionCall(function=name, args=dict(kwargs)))
        result, _ = runtime.run_function(env, name, kwargs, raise_on_error=True)
        return shaped(suite_name, name, result) if typed else tool_result_to_str(result)

    run.__name__ = name
    run.__doc__ = function.full_docstring
    run.__signature__ = _signature(function)
    result_labels, accepts, readers = contract(suite_name, name, typed)
    returns = RATING_SHAPE if typed and name in RATINGS else shape(function.return_type)
    return synsema.tool(run, name=f"{suite_name}.{name}", result_labels=result_labels,
                        accepts=accepts, readers=readers, description=f"{function.description} Returns {returns}.")
