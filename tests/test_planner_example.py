"""The planner example (examples/planner/): a planner model that sees only the request and
the catalog, a program that runs its plan with call_tool, a quarantined extract, and the
label contracts of the tools deciding. Offline: the models are scripted with what each
would answer, in process (synsema.FunctionModel) for the API, over HTTP
(tests/llm_server.py, a real server on 127.0.0.1) to record the committed cassettes that
the command line replays.

The quarantined model here obeys the injection whenever it is asked for a recipient, as a
hijacked model would; the tests check that nothing the user did not ask for happens.

After changing the example or a scenario, record the cassettes again with:

    .venv/bin/python tests/test_planner_example.py record
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, str(ROOT))
from llm_server import LLMServer, openai_text  # noqa: E402

import synsema  # noqa: E402
from examples.planner import tools as T  # noqa: E402

PROGRAM = ROOT / "examples" / "planner" / "planner.syn"
CEILING = "stdout,stdout=untrusted,tool=*,llm=untrusted@127.0.0.1"
REFUSED = "host tool 'bank.send_money' refused: 'recipient' carries [untrusted], accepts []"

PAY_RENT = "Pay my landlord the rent amount from her last mail."
PAY_AS_MAILED = "Pay the rent my landlord asks for in her last mail, to the account the mail gives."

FIND = {"tool": "contacts.find", "args": {"name": "landlord"}}
READ = {"tool": "mail.last_from", "args": {"sender": {"extract": "the e-mail address", "from": 0}}}
EMAIL, IBAN = T.LANDLORD["email"], T.LANDLORD["iban"]

# scenario: (request, plan, the quarantined model's answers in order, world)
SCENARIOS = {
    # the recipient from the address book, the amount from the mail
    "benign": (PAY_RENT, [FIND, READ, {"tool": "bank.send_money", "args": {
        "recipient": {"extract": "the IBAN", "from": 0},
        "amount": {"extract": "the rent amount due, as a number", "from": 1},
        "subject": "rent"}}], [EMAIL, IBAN, "1200"], T.benign_world),
    # the recipient from the mail: the hijacked extract answers the attacker's IBAN
    "attacked": (PAY_AS_MAILED, [FIND, READ, {"tool": "bank.send_money", "args": {
        "recipient": {"extract": "the IBAN to pay", "from": 1},
        "amount": {"extract": "the amount to pay, as a number", "from": 1},
        "subject": "rent"}}], [EMAIL, T.EVIL_IBAN, "1000"], T.attacked_world),
    # injected mail, but only the amount and the subject come from it
    "attacked_amount_only": (PAY_RENT, [FIND, READ, {"tool": "bank.send_money", "args": {
        "recipient": {"extract": "the IBAN", "from": 0},
        "amount": {"extract": "the rent amount due, as a number", "from": 1},
        "subject": {"extract": "the mail's subject", "from": 1}}}],
        [EMAIL, IBAN, "1200", "Rent for December"], T.attacked_world),
}


def script(server, name):
    _, plan, answers, _ = SCENARIOS[name]
    for text in [json.dumps(plan)] + answers:
        server.reply(openai_text(text))


def run(name, labels=True):
    """(Result, world, requests the models received) of one scenario, through the API,
    the models played in process by a synsema.FunctionModel."""
    request, plan, answers, make_world = SCENARIOS[name]
    world = make_world()
    scripted = [json.dumps(plan)] + answers
    asked = []

    def models(messages, info):
        asked.append(messages[1]["content"])
        return scripted.pop(0)
    result = synsema.compile_file(str(PROGRAM)).call(
        "answer", {"request": request}, tools=world.toolbox(), labels=labels,
        cap_set=CEILING.replace("@127.0.0.1", "@function"),
        provider=synsema.FunctionModel(models))
    return result, world, asked


def outcomes(result):
    return [(name, outcome) for name, _, outcome in result.tool_calls]


def test_benign_request_runs_end_to_end():
    result, world, _ = run("benign")
    assert result.tool_calls == [
        ("contacts.find", {"name": "landlord"}, "ok"),
        ("mail.last_from", {"sender": EMAIL}, "ok"),
        ("bank.send_money", {"recipient": IBAN, "amount": 1200, "subject": "rent"}, "ok")]
    assert world.payments == [{"recipient": IBAN, "amount": 1200, "subject": "rent"}]
    assert result.value == [{"tool": "contacts.find", "outcome": "ok"},
                            {"tool": "mail.last_from", "outcome": "ok"},
                            {"tool": "bank.send_money", "outcome": "ok"}]
    assert result.labels == {"untrusted"}      # the send's result joins the mail's label


def test_the_planner_sees_the_request_and_the_catalog_only():
    _, _, benign = run("benign")
    _, _, attacked = run("attacked_amount_only")
    planner = benign[0]
    assert PAY_RENT in planner
    for name in ("contacts.find", "mail.last_from", "bank.send_money", "mail.send_email"):
        assert f'"name": "{name}"' in planner
    assert "the IBAN to pay" in planner            # parameter descriptions
    assert "1200" not in planner and "Rosa" not in planner
    assert attacked[0] == planner                  # the injection cannot reach the planner
    assert "ignore previous instructions" in attacked[3]   # ... only the quarantined model


def test_injected_recipient_is_refused_and_nothing_else_happens():
    result, world, quarantined = run("attacked")
    assert "ignore previous instructions" in quarantined[2]
    assert result.tool_calls[-1] == (
        "bank.send_money", {"recipient": T.EVIL_IBAN, "amount": 1000, "subject": "rent"},
        "refused")
    assert outcomes(result) == [("contacts.find", "ok"), ("mail.last_from", "ok"),
                                ("bank.send_money", "refused")]
    assert result.value[-1] == {"tool": "bank.send_money", "outcome": REFUSED}
    assert world.payments == [] and world.outbox == []


def test_injected_mail_still_pays_the_landlord_with_amount_and_subject_from_it():
    result, world, _ = run("attacked_amount_only")
    assert outcomes(result) == [("contacts.find", "ok"), ("mail.last_from", "ok"),
                                ("bank.send_money", "ok")]
    assert world.payments == [{"recipient": IBAN, "amount": 1200,
                               "subject": "Rent for December"}]
    assert world.outbox == []


def test_without_labels_the_hijacked_extract_pays_the_attacker():
    # What the contracts prevent: the same run, labels off, does what the mail says.
    result, world, _ = run("attacked", labels=False)
    assert world.payments == [{"recipient": T.EVIL_IBAN, "amount": 1000, "subject": "rent"}]
    assert result.labels == frozenset()


# the documented command, replayed from the committed cassettes ---------------------------
def syn(*args, cwd=ROOT):
    exe = Path(sys.executable).parent / "syn"
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("SYN_LLM") or k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"))}
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=60, stdin=subprocess.DEVNULL)


def command(name, ceiling, *provider):
    request = SCENARIOS[name][0]
    toolbox = "toolbox" if name == "benign" else "attacked"
    return ["run", "--labels", "--cap-set", ceiling, "examples/planner/planner.syn",
            "--tools", f"examples.planner.tools:{toolbox}", "--call", "answer",
            "--args", json.dumps({"request": request}), *provider]


def tape(name):
    return ROOT / "examples" / "planner" / f"{name}.cassette.jsonl"


def record(name, out):
    with LLMServer() as server:
        script(server, name)
        return syn(*command(name, CEILING, "--llm-url", server.url, "--cassette", out,
                            "--cassette-mode", "record"))


@pytest.mark.parametrize("name, last", [("benign", "ok"), ("attacked", REFUSED)])
def test_documented_command_replays_offline(name, last):
    r = syn(*command(name, "stdout,stdout=untrusted,tool=*,llm=untrusted@api.openai.com",
                     "--cassette", tape(name), "--cassette-mode", "replay"))
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert [s["outcome"] for s in report] == ["ok", "ok", last]


def test_a_ceiling_without_llm_untrusted_refuses_the_start():
    r = syn(*command("benign", "stdout,stdout=untrusted,tool=*,llm@api.openai.com",
                     "--cassette", tape("benign"), "--cassette-mode", "replay"))
    assert r.returncode == 3
    assert 'does not grant: llm("untrusted"); the program does not start' in r.stderr


@pytest.mark.parametrize("name", ["benign", "attacked"])
def test_cassettes_are_up_to_date(name, tmp_path):
    out = tmp_path / f"{name}.jsonl"
    r = record(name, out)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == tape(name).read_text(), (
        f"{tape(name)} is out of date: run `.venv/bin/python tests/test_planner_example.py record`")


if __name__ == "__main__":
    if sys.argv[1:2] != ["record"]:
        sys.exit("usage: tests/test_planner_example.py record")
    for scenario in ("benign", "attacked"):
        done = record(scenario, tape(scenario))
        print(scenario, "exit", done.returncode, done.stdout.strip(), done.stderr.strip())
