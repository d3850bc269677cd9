"""Limits on a run's model use: max_requests and max_tokens (Program.call/run, `syn run`
and `syn exec` --max-requests/--max-tokens, `syn batch` per item), exit 4 and
synsema.LimitExceeded naming the limit; Result.usage splits the tokens where the provider
does."""

import json
from pathlib import Path

import pytest

import synsema
from llm_server import LLMServer, anthropic_text, openai_text

# n model calls, then the answers
ASKS = '''
require llm

task asks(n: number)
    let out be []
    for each i in range(1, n + 1)
        set out to append(out, ask("question " + text(i)))
    give out
'''


def counted(input_tokens=10, output_tokens=5):
    """A FunctionModel that answers "ok" with fixed token counts, and counts its calls."""
    calls = []

    def model(messages, info):
        calls.append(messages[-1]["content"])
        return synsema.ModelResponse(["ok"], input_tokens, output_tokens)
    return synsema.FunctionModel(model), calls


def test_usage_splits_the_tokens_and_counts_the_requests():
    model, _ = counted()
    r = synsema.compile_source(ASKS, "a.syn").call("asks", {"n": 3}, provider=model)
    assert r.value == ["ok", "ok", "ok"] and r.tokens == 45
    assert r.usage == synsema.Usage(requests=3, input_tokens=30, output_tokens=15,
                                    total_tokens=45)
    value, labels, output, tool_calls, tokens = r        # still five fields
    assert tokens == 45
    with pytest.raises(AttributeError, match="immutable"):
        r.usage = None
    import copy
    import pickle
    assert pickle.loads(pickle.dumps(r)).usage == r.usage == copy.deepcopy(r).usage
    offline = synsema.compile_source(ASKS, "a.syn").call("asks", {"n": 2},
                                                         provider=synsema.Provider())
    assert offline.usage == (0, None, None, 0)


def test_max_requests_stops_before_the_next_request():
    model, calls = counted()
    prog = synsema.compile_source(ASKS, "a.syn")
    assert prog.call("asks", {"n": 3}, provider=model, max_requests=3).value == ["ok"] * 3
    calls.clear()
    with pytest.raises(synsema.LimitExceeded) as e:
        prog.call("asks", {"n": 5}, provider=model, max_requests=3)
    assert "request limit (3, --max-requests) reached" in e.value.message
    assert e.value.exit_code == 4 and len(calls) == 3      # the fourth was never made
    assert e.value.usage.requests == 3 and e.value.tokens == 45


def test_max_tokens_ends_the_run_once_passed():
    model, calls = counted()
    prog = synsema.compile_source(ASKS, "a.syn")
    assert prog.call("asks", {"n": 2}, provider=model, max_tokens=30).tokens == 30   # not past
    with pytest.raises(synsema.LimitExceeded, match=r"token limit \(40, --max-tokens\) "
                                                    r"reached") as e:
        prog.call("asks", {"n": 5}, provider=model, max_tokens=40)
    assert e.value.tokens == 45 and e.value.usage.requests == 3


def test_a_limit_is_not_caught_by_the_program():
    src = '''
require llm
try
    while true
        ask("again")
recover err
    print("caught " + err)
'''
    model, _ = counted()
    with pytest.raises(synsema.LimitExceeded):
        synsema.compile_source(src, "a.syn").run(provider=model, max_requests=2)


@pytest.mark.parametrize("kw", ["max_requests", "max_tokens"])
@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", True])
def test_bad_limits_are_usage_errors(kw, bad):
    with pytest.raises(synsema.UsageError, match=f"{kw} must be a whole number of at least 1"):
        synsema.compile_source(ASKS, "a.syn").call("asks", {"n": 1}, **{kw: bad})


def test_anthropic_usage_is_split_too():
    with LLMServer() as server:
        server.reply(anthropic_text("ok", input_tokens=7, output_tokens=3), times=2)
        r = synsema.compile_source(ASKS, "a.syn").call(
            "asks", {"n": 2}, provider=synsema.Provider(url=server.url, api="anthropic"))
    assert r.usage == (2, 14, 6, 20)


# ---- the command line ---------------------------------------------------------------------

def test_syn_run_and_exec_take_the_limits(write, syn, tmp_path):
    write("asks.syn", ASKS)
    with LLMServer() as server:
        server.reply(openai_text("ok", prompt_tokens=8, completion_tokens=2), times=20)
        base = ("--call", "asks", "--args", '{"n": 4}', "--llm-url", server.url)
        r = syn("run", "asks.syn", *base, "--max-requests", "2")
        assert r.returncode == 4, r.stderr
        assert "request limit (2, --max-requests) reached" in r.stderr
        assert syn("compile", "asks.syn").returncode == 0
        r = syn("exec", "asks.synb", *base, "--max-tokens", "25")
        assert r.returncode == 4 and "token limit (25, --max-tokens) reached" in r.stderr
        r = syn("run", "asks.syn", *base, "--max-requests", "4", "--max-tokens", "40")
        assert r.returncode == 0 and json.loads(r.stdout) == ["ok"] * 4, r.stderr
        r = syn("run", "asks.syn", *base, "--max-requests", "0")
        assert r.returncode == 2 and "--max-requests" in r.stderr


def test_syn_batch_limits_each_item(write, syn, tmp_path):
    write("asks.syn", ASKS)
    Path(tmp_path / "in.jsonl").write_text("".join(json.dumps({"n": n}) + "\n"
                                                   for n in (1, 5, 2)))
    with LLMServer() as server:
        server.reply(openai_text("ok", prompt_tokens=8, completion_tokens=2), times=40)
        base = ("batch", "asks.syn", "--call", "asks", "in.jsonl", "--llm-url", server.url,
                "--jobs", "1")
        for limit, message in ((("--max-requests", "3"), "request limit (3, --max-requests)"),
                               (("--item-max-tokens", "25"),
                                "token limit (25, --item-max-tokens)")):
            out = tmp_path / f"{limit[0]}.jsonl"
            r = syn(*base, "-o", out, *limit)
            assert r.returncode == 0 and "3 items: 2 ok, 1 limit" in r.stderr, r.stderr
            got = [json.loads(x) for x in out.read_text().splitlines()]
            assert [x["status"] for x in got] == ["ok", "limit", "ok"]
            assert message in got[1]["error"] and got[2]["value"] == ["ok", "ok"]
        # --max-tokens stays the whole batch's budget: no item is cut short by it
        r = syn(*base, "-o", tmp_path / "budget.jsonl", "--max-tokens", "15")
        got = [json.loads(x) for x in (tmp_path / "budget.jsonl").read_text().splitlines()]
        assert [x["status"] for x in got] == ["ok", "ok", "ok"], r.stderr
