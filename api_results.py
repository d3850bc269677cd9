"""What a call of the embedding API (synsema.api, SPEC 16) returns: Result and Usage.

Apart from synsema.api so that `syn exec`, which loads the API on every start but never
makes a Result, does not build these classes (two namedtuples) each time (issue 31); the
api module and the synsema package give them under their usual names.
"""

from collections import namedtuple


class Usage(namedtuple("Usage", "requests input_tokens output_tokens total_tokens")):
    """The model usage of a run (after Pydantic AI's RunUsage): requests made (a replayed
    one too), input and output tokens where the provider reports them (None where it
    does not), and total_tokens, the run's llm_tokens_used()."""
    __slots__ = ()


class Result(namedtuple("Result", "value labels output tool_calls tokens")):
    """What a call returned (immutable).

    value: the task's result as a Python value (None for `run`); labels: the labels on
    it, a frozenset of label names (empty without labels=True; the same type as
    synsema.Error.labels); output: everything the run printed;
    tool_calls: [(name, args, outcome)] of the host tools called, in order; tokens: the
    model tokens used (llm_tokens_used() at the end); usage: a synsema.Usage, the same
    tokens split into input and output, and the number of model requests. (`usage` is
    not one of the tuple's fields: a Result still unpacks into five.)"""

    def __new__(cls, value, labels, output, tool_calls, tokens, usage=None):
        self = super().__new__(cls, value, labels, output, tool_calls, tokens)
        object.__setattr__(self, "usage", usage or Usage(0, None, None, tokens))
        return self

    def __setattr__(self, name, value):
        raise AttributeError("a synsema.Result is immutable")


def usage_of(vm):
    """The Usage of a run's VM (None: the run never started)."""
    if vm is None:
        return Usage(0, None, None, 0)
    llm = vm.llm
    if llm is None:
        return Usage(0, None, None, vm.tokens_used)
    return Usage(llm.requests, llm.tokens_in, llm.tokens_out, vm.tokens_used)
