"""A model provider's error carries the labels of what the call read (and the pc): what a
provider says depends on the prompt, and may quote the model's own answer (a refusal, a
typed value that failed its check, a function model's exception). Without them, `recover`
turned such an error into an unlabelled text and printed the prompt."""

import pytest

import synsema
from harness import result

SECRET = "swordfish-4111"

LEAK = f'''
require llm("vault")
let secret be private("{SECRET}", "vault")
try
    print(ask(secret))
recover e
    print("error was: " + e)
'''


def echoing_failure(messages, info):
    # a model (or a wire) whose failure quotes the prompt it was sent
    raise ValueError("cannot answer " + messages[-1]["content"])


def wrong_typed_value(messages, info):
    # a typed extract answered with the prompt instead of a number
    return synsema.ModelResponse([synsema.TextPart('{"value": "' + SECRET + '"}')])


def run(source, function, cap_set="stdout,llm,llm=vault@function"):
    return result(source, name="leak.syn", dedent=False, labels=True, cap_set=cap_set,
                  provider=synsema.FunctionModel(function))


@pytest.mark.parametrize("source", [LEAK, LEAK.replace("ask(secret)",
                                                       'extract(secret, "n", "number")')])
def test_a_recovered_provider_error_is_as_labelled_as_the_prompt(source):
    function = echoing_failure if "ask(" in source else wrong_typed_value
    with pytest.raises(synsema.LabelViolation) as info:
        run(source, function)
    assert SECRET not in str(info.value)
    assert "vault" in info.value.labels


def test_an_uncaught_one_is_withheld_unless_the_ceiling_shows_its_labels():
    source = LEAK.replace("try\n    print(ask(secret))\nrecover e\n    print(\"error was: \" + e)",
                          "print(ask(secret))")
    with pytest.raises(synsema.RunError) as info:
        run(source, echoing_failure)
    assert SECRET not in str(info.value) and "withheld" in str(info.value)
    with pytest.raises(synsema.RunError) as info:
        run(source, echoing_failure, cap_set="stdout,llm,llm=vault@function,stdout=vault")
    assert SECRET in str(info.value)


def test_an_unlabelled_prompt_keeps_its_error_plain():
    source = '''
require llm
try
    print(ask("hello"))
recover e
    print("error was: " + e)
'''
    result = run(source, echoing_failure)
    assert "error was: ask: function model" in result.output
    assert "cannot answer hello" in result.output and result.labels == frozenset()
