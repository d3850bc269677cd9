"""The planner example (examples/planner/): a planner model that sees only the request and
the catalog writes a plan in Synsema (`plan`), the plan runs in plan mode (`run_plan`), a
quarantined `extract` reads the tool results, and the label contracts of the tools decide.
The same world is the README's `make demo`: `syn agent` with the attacked inbox, replayed
from examples/planner/agent.cassette.jsonl. Offline: the models are scripted with what
each would answer, in process (synsema.FunctionModel) for the API, over HTTP
(tests/llm_server.py, a real server on 127.0.0.1) to record the committed cassettes that
the command line replays.

The quarantined model here obeys the injection whenever it is asked for a recipient, as a
hijacked model would; the tests check that nothing the user did not ask for happens.

After changing the example, a scenario or the planner prompt, record the cassettes again:

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

# The recipient from the address book, the amount from the mail.
PAY_FROM_CONTACTS = """\
task main()
    let landlord be tools["contacts.find"]("landlord")
    let mail be tools["mail.last_from"](landlord["email"])
    let amount be extract(mail["body"], "the rent amount due, in euros", "number")
    tools["bank.send_money"](landlord["iban"], amount, "rent")
    give "Paid " + text(amount) + " EUR to " + landlord["name"]
"""
# The recipient from the mail: the hijacked extract answers the attacker's IBAN.
PAY_AS_THE_MAIL_SAYS = """\
task main()
    let landlord be tools["contacts.find"]("landlord")
    let mail be tools["mail.last_from"](landlord["email"])
    let iban be extract(mail["body"], "the IBAN to pay", "text")
    let amount be extract(mail["body"], "the amount to pay, in euros", "number")
    tools["bank.send_money"](iban, amount, "rent")
    give "Paid " + text(amount) + " EUR to " + iban
"""
# Injected mail, but only the amount and the subject come from it.
SUBJECT_FROM_MAIL = PAY_FROM_CONTACTS.replace(
    '    tools["bank.send_money"](landlord["iban"], amount, "rent")\n',
    '    let subject be extract(mail["subject"], "the subject", "text")\n'
    '    tools["bank.send_money"](landlord["iban"], amount, subject)\n')

# scenario: (request, plan, the quarantined model's answers in order, world)
SCENARIOS = {
    "benign": (PAY_RENT, PAY_FROM_CONTACTS, [1200], T.benign_world),
    "attacked": (PAY_AS_MAILED, PAY_AS_THE_MAIL_SAYS, [T.EVIL_IBAN, 1000], T.attacked_world),
    "attacked_amount_only": (PAY_RENT, SUBJECT_FROM_MAIL, [1200, "Rent for December"],
                             T.attacked_world),
}


def answers(name):
    """What the models answer, in order: the plan, then each typed extract's JSON."""
    _, plan, values, _ = SCENARIOS[name]
    return [plan] + [json.dumps({"value": v}) for v in values]


def script(server, name):
    for text in answers(name):
        server.reply(openai_text(text))


def run(name, labels=True):
    """(Result or the error, world, requests the models received) of one scenario,
    through the API, the models played in process by a synsema.FunctionModel."""
    request, _, _, make_world = SCENARIOS[name]
    world = make_world()
    scripted = answers(name)
    asked = []

    def models(messages, info):
        asked.append(messages[1]["content"])
        return scripted.pop(0)
    try:
        result = synsema.compile_file(str(PROGRAM)).call(
            "answer", {"request": request}, tools=world.toolbox(), labels=labels,
            cap_set=CEILING.replace("@127.0.0.1", "@function"),
            provider=synsema.FunctionModel(models))
    except synsema.Error as e:
        result = e
    return result, world, asked


def outcomes(result):
    return [(name, outcome) for name, _, outcome in result.tool_calls]


EMAIL, IBAN = T.LANDLORD["email"], T.LANDLORD["iban"]


def test_benign_request_runs_end_to_end():
    result, world, _ = run("benign")
    assert result.tool_calls == [
        ("contacts.find", {"name": "landlord"}, "ok"),
        ("mail.last_from", {"sender": EMAIL}, "ok"),
        ("bank.send_money", {"recipient": IBAN, "amount": 1200, "subject": "rent"}, "ok")]
    assert world.payments == [{"recipient": IBAN, "amount": 1200, "subject": "rent"}]
    assert result.value == "Paid 1200 EUR to Rosa Diaz"
    assert result.labels == {"untrusted"}      # the amount came from the mail


def test_the_planner_sees_the_request_and_the_catalog_only():
    _, _, benign = run("benign")
    _, _, attacked = run("attacked_amount_only")
    planner = benign[0]
    assert PAY_RENT in planner
    for name in ("contacts.find", "mail.last_from", "bank.send_money", "mail.send_email"):
        assert f"- {name}(" in planner
    assert "recipient: the IBAN to pay" in planner      # parameter descriptions
    assert "1200" not in planner and "Rosa" not in planner
    assert attacked[0] == planner                  # the injection cannot reach the planner
    assert "ignore previous instructions" in attacked[1]   # ... only the quarantined model


def test_injected_recipient_is_refused_and_nothing_else_happens():
    result, world, quarantined = run("attacked")
    assert "ignore previous instructions" in quarantined[1]
    assert isinstance(result, synsema.ToolRefused) and REFUSED in result.message
    assert result.tool == "bank.send_money" and result.parameter == "recipient"
    assert result.tool_calls[-1] == (
        "bank.send_money", {"recipient": T.EVIL_IBAN, "amount": 1000, "subject": "rent"},
        "refused")
    assert outcomes(result) == [("contacts.find", "ok"), ("mail.last_from", "ok"),
                                ("bank.send_money", "refused")]
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


# the documented commands, replayed from the committed cassettes ---------------------------
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


# `make demo` (the Makefile's command): syn agent, the attacked inbox, the benign request.
DEMO_CEILING = "stdout,stdout=untrusted,tool=*,llm=untrusted@api.openai.com"


def demo_command(ceiling, *provider):
    return ["agent", PAY_RENT, "--tools", "examples.planner.tools:attacked", "--labels",
            "--cap-set", ceiling, *provider, "--show-plan", "--trace"]


def tape(name):
    return ROOT / "examples" / "planner" / f"{name}.cassette.jsonl"


def record(name, out):
    with LLMServer() as server:
        if name == "agent":
            script(server, "benign")
            return syn(*demo_command(DEMO_CEILING.replace("api.openai.com", "127.0.0.1"),
                                     "--llm-url", server.url, "--cassette", out,
                                     "--cassette-mode", "record"))
        script(server, name)
        return syn(*command(name, CEILING, "--llm-url", server.url, "--cassette", out,
                            "--cassette-mode", "record"))


def test_documented_commands_replay_offline():
    r = syn(*command("benign", DEMO_CEILING, "--cassette", tape("benign"),
                     "--cassette-mode", "replay"))
    assert (r.returncode, r.stdout) == (0, '"Paid 1200 EUR to Rosa Diaz"\n'), r.stderr
    r = syn(*command("attacked", DEMO_CEILING, "--cassette", tape("attacked"),
                     "--cassette-mode", "replay"))
    assert r.returncode == 1 and r.stdout == "" and REFUSED in r.stderr, r.stderr


def test_make_demo_replays_the_planning_agent():
    # The command of `make demo` (Makefile), exactly.
    make = (ROOT / "Makefile").read_text()
    assert "examples/planner/agent.cassette.jsonl --cassette-mode replay" in make
    r = syn(*demo_command(DEMO_CEILING, "--cassette", tape("agent"), "--cassette-mode",
                          "replay"))
    assert (r.returncode, r.stdout) == (0, "Paid 1200 EUR to Rosa Diaz\n"), r.stderr
    assert "plan 1:\n    task main()" in r.stderr
    assert 'trace: host tool bank.send_money: ok' in r.stderr
    # the injected mail was read, and changed nothing: the landlord got the rent
    assert "extract 2: 1200" in r.stderr


def test_a_ceiling_without_llm_untrusted_refuses_the_start():
    r = syn(*command("benign", "stdout,stdout=untrusted,tool=*,llm@api.openai.com",
                     "--cassette", tape("benign"), "--cassette-mode", "replay"))
    assert r.returncode == 3
    assert 'does not grant: llm("untrusted"); the program does not start' in r.stderr


@pytest.mark.parametrize("name", ["benign", "attacked", "agent"])
def test_cassettes_are_up_to_date(name, tmp_path):
    out = tmp_path / f"{name}.jsonl"
    r = record(name, out)
    assert r.returncode == (1 if name == "attacked" else 0), r.stderr
    assert out.read_text() == tape(name).read_text(), (
        f"{tape(name)} is out of date: run `.venv/bin/python tests/test_planner_example.py record`")


if __name__ == "__main__":
    if sys.argv[1:2] != ["record"]:
        sys.exit("usage: tests/test_planner_example.py record")
    for scenario in ("benign", "attacked", "agent"):
        done = record(scenario, tape(scenario))
        print(scenario, "exit", done.returncode, done.stdout.strip(), done.stderr.strip())
