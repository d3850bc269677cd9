"""`syn repl`: driven through a pseudo-terminal (prompt_toolkit's line editor, as a person
at a terminal gets it) and through a pipe (plain lines, no prompts)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from synsema.cli.repl import needs_more

SYN = str(Path(sys.executable).with_name("syn"))
ESC = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"       # the line editor's screen updates


def spawn(tmp_path, *args, **extra_env):
    env = dict(os.environ, HOME=str(tmp_path), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               SYN_HISTORY=str(tmp_path / "history"), **extra_env)
    for k in ("SYN_LLM_URL", "SYN_LLM_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(k, None)
    child = pexpect.spawn(SYN, ["repl", *args], env=env, encoding="utf-8", timeout=20,
                          dimensions=(40, 200))
    child.expect("syn>")
    return child


def line_out(child, text):
    """Wait for `text` written on a line of its own (not the echo of what was typed)."""
    child.expect(r"[\r\n]" + ESC + re.escape(text) + r"\r\n")


def enter(child, *lines):
    """Type the lines of one entry; wait for the continuation prompt between them. Each
    line after the first is typed whole, its indentation too: Ctrl-U first clears the
    indentation the line editor put there."""
    for i, line in enumerate(lines):
        child.sendline(("\x15" if i else "") + line)
        if i < len(lines) - 1:
            child.expect(r"\.\.\.")


def test_define_redefine_when_error_and_ctrl_d(tmp_path):
    child = spawn(tmp_path)
    enter(child, "task add(a, b)", "    give a + b", "")
    child.expect("syn>")
    enter(child, "add(2, 3)")
    line_out(child, "5")
    enter(child, "let greeting be \"hi\"")
    child.expect("syn>")
    enter(child, "greeting + \" there\"")
    line_out(child, '"hi there"')                     # a text value shows quoted
    enter(child, "task add(a, b)", "    give a * b", "")      # redefined
    child.expect("syn>")
    enter(child, "add(2, 3)")
    line_out(child, "6")
    enter(child, "print(\"once\")")
    line_out(child, "once")
    enter(child, "when add(1, 1) > 0", "    print(\"positive\")", "otherwise",
          "    print(\"not\")", "")
    line_out(child, "positive")
    enter(child, "1 / 0")
    child.expect(r"<repl>:\d+:3: error: division by zero")
    enter(child, "missing + 1")
    child.expect("'missing' is not declared")
    # the REPL goes on, state intact, and the earlier print did not run again
    enter(child, "[greeting, add(3, 3)]")
    child.expect(r"\[\"hi\", 9\]\r\n")
    assert "once" not in child.before
    leave(child)
    child.close()
    assert child.exitstatus == 0
    assert "add(2, 3)" in (tmp_path / "history").read_text()       # history was kept


def test_labelled_value_under_labels_is_a_violation(tmp_path):
    child = spawn(tmp_path, "--labels")
    enter(child, "let card be private(\"4111\", \"customers\")")
    child.expect("syn>")
    enter(child, "card")
    child.expect(r"label_violation: print would reveal data labelled customers \(<repl>:2\)")
    enter(child, "len(card) + 0")
    child.expect("label_violation")
    enter(child, "len(declassify(card, \"count only\"))")
    line_out(child, "4")
    leave(child)
    child.close()
    assert child.exitstatus == 0


def test_without_prompt_toolkit_the_standard_readline_serves(tmp_path):
    hidden = tmp_path / "hide"
    (hidden / "prompt_toolkit").mkdir(parents=True)
    (hidden / "prompt_toolkit" / "__init__.py").write_text("raise ImportError('hidden')\n")
    child = spawn(tmp_path, PYTHONPATH=str(hidden))
    enter(child, "when true", "    print(\"in block\")", "")
    line_out(child, "in block")
    enter(child, "upper(\"ok\")")
    line_out(child, '"OK"')
    leave(child)
    child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "history").read_text()
    assert 'upper("ok")' in history and "+upper" not in history    # readline's format


def leave(child):
    child.expect("syn>")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def pipe(text, *args, cwd=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("SYN_LLM_URL", "SYN_LLM_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    return subprocess.run([SYN, "repl", *args], input=text, capture_output=True, text=True,
                          timeout=30, cwd=cwd, env=env)


def test_piped_session_keeps_values_and_runs_nothing_twice():
    r = pipe('let n be 0\nprint("side effect")\nfor each i in range(4)\n    set n to n + i\n\n'
             'n\nlet f be (x) => x + n\ntask twice(x)\n    give 2 * x\n\nf(1)\n'
             'task twice(x)\n    give 3 * x\n\ntwice(f(0))\nlet b be 1 / 0\nb\n')
    assert r.returncode == 0
    assert r.stdout == "side effect\n6\n7\n18\n"
    assert "division by zero" in r.stderr
    assert "'b' is not declared" in r.stderr      # a `let` that did not run is not kept


def test_an_entry_stopped_on_labelled_data_raises_the_label_for_the_session():
    # Whether the entry got as far as `set n to 1` depends on the secret: what it left in n
    # (and everything after) carries the secret's label, so it cannot reach stdout.
    entry = ('let s be private(true, "secret")\nlet n be 0\nwhen true\n    when s\n'
             '        fail("boom")\n    set n to 1\n\nn\n1 + 1\n')
    r = pipe(entry, "--labels", "--cap-set", "stdout")
    assert "(message withheld: labelled secret)" in r.stderr
    assert "later entries" not in r.stderr and "run under those labels" in r.stderr
    assert r.stdout == "" and "under a condition on data labelled secret" in r.stderr
    r = pipe(entry, "--labels", "--cap-set", "stdout,stdout=secret")
    assert r.stdout == "0\n2\n"
    r = pipe("let n be 0\nfail(\"plain\")\nn\n", "--labels", "--cap-set", "stdout")
    assert r.stdout == "0\n" and "run under" not in r.stderr     # no label: nothing raised
    # Refused while showing a value: nothing was left set by then, so nothing is raised.
    r = pipe('let s be private(1, "secret")\ns\n2\n', "--labels", "--cap-set", "stdout")
    assert r.stdout == "2\n" and "run under" not in r.stderr


def test_run_options_apply():
    r = pipe('require net("example.com")\n1 + 1\n', "--cap-set", "stdout")
    assert "does not grant: net(\"example.com\")" in r.stderr
    assert r.stdout == "2\n"                       # the refused require was not kept
    r = pipe("1\n", "--cap-set", "bogus")
    assert r.returncode == 2 and "'bogus' is not a capability" in r.stderr
    r = pipe("let i be 0\nwhile true\n    set i to i + 1\n\ni\n", "--max-steps", "1000")
    assert "step limit (1000, --max-steps) reached" in r.stderr
    assert r.stdout.strip().isdigit()              # the loop's progress was kept


def test_host_tools_and_provider_settings(tmp_path):
    (tmp_path / "repltools.py").write_text(
        "import synsema\n\n\n@synsema.tool\ndef shout(text: str) -> str:\n"
        "    \"\"\"Upper-case a text.\"\"\"\n    return text.upper() + '!'\n")
    session = 'require tool("shout")\nlet s be host_tool("shout")\ns("hi")\ns("again")\n'
    r = pipe(session, "--tools", "repltools:shout", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, '"HI!"\n"AGAIN!"\n', "")
    r = pipe(session, "--tools", "repltools:shout", "--cap-set", "stdout", cwd=tmp_path)
    assert 'does not grant: tool("shout")' in r.stderr
    r = pipe("require llm\nllm_available()\n", "--llm-url", "http://127.0.0.1:9",
             cwd=tmp_path)
    assert r.stdout == "true\n"
    assert pipe("require llm\nllm_available()\n", cwd=tmp_path).stdout == "false\n"


def test_mcp_servers_are_the_sessions(tmp_path):
    # Started once, by the first entry that reaches a host tool; a task value kept in a
    # variable keeps calling the same server in later entries; stopped at the end.
    fixture = f"{sys.executable} {Path(__file__).parent / 'mcp_server_fixture.py'}"
    r = pipe('require tool("mail.*")\nlet pid be host_tool("mail.pid")\nlet a be pid()\n'
             'pid() == a\nlet b be host_tool("mail.pid")()\nb == a\nprint(a)\n',
             "--mcp", f"mail={fixture}", cwd=tmp_path)
    assert (r.returncode, r.stdout.splitlines()[:2], r.stderr) == (0, ["true", "true"], "")
    server = int(r.stdout.splitlines()[2])
    try:                            # the session's end stopped it (gone, or a zombie
        with open(f"/proc/{server}/stat") as fh:        # nobody has reaped yet)
            assert fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        pass


@pytest.mark.parametrize("lines, more", [
    (["task f()"], True), (["task f()", "    give 1"], True),
    (["task f()", "    give 1", ""], False), (["let x be [1,"], True),
    (["let x be [1,", "2]"], False), (['print("(")'], False), (["f(1) -- ("], False),
])
def test_needs_more(lines, more):
    assert needs_more(lines) is more


def test_ctrl_c_stops_the_running_entry_and_keeps_the_session(tmp_path):
    # Once Ctrl-C ended the whole session (exit 130, every value lost).
    child = spawn(tmp_path)
    enter(child, "let n be 1")
    child.expect("syn>")
    enter(child, "task spin()", "    let i be 0", "    while true", "        set i to i + 1", "")
    child.expect("syn>")
    enter(child, "set n to 2")
    child.expect("syn>")
    enter(child, "when true", "    set n to 100", "    spin()", "")
    child.expect(r"\.\.\.")             # the blank line that ends the entry
    import time
    time.sleep(1.5)                     # it runs
    child.sendintr()
    child.expect("interrupted: the entry was stopped")
    enter(child, "n")
    line_out(child, "2")                # as before the entry: its `set n to 100` not kept
    enter(child, "n + 1")
    line_out(child, "3")
    leave(child)
    child.close()
    assert child.exitstatus == 0


def test_a_block_is_recalled_from_history_as_one_entry_and_lines_indent(tmp_path):
    child = spawn(tmp_path)
    # typed without indentation: each line after a header is indented for it
    child.sendline("task twice(x)")
    child.expect(r"\.\.\.")
    child.sendline("let y be x * 2")
    child.expect(r"\.\.\.")
    child.sendline("when y > 100")
    child.expect(r"\.\.\.")
    child.sendline("give 100")
    child.expect(r"\.\.\.")
    child.sendline("\x15    give y")     # back to the task's level
    child.expect(r"\.\.\.")
    child.sendline("")
    child.expect("syn>")
    enter(child, "twice(21)")
    line_out(child, "42")
    enter(child, "twice(80)")
    line_out(child, "100")
    enter(child, "task twice(x)", "    give x * 3", "")
    child.expect("syn>")
    enter(child, "twice(1)")
    line_out(child, "3")
    # Up twice: the last block, whole (one history entry); Enter at its end runs it again
    child.send("\x1b[A")
    child.expect("twice\\(1\\)")
    child.send("\x1b[A")
    child.expect(r"give x \* 3")
    child.sendline("")
    child.expect("syn>")
    enter(child, "twice(5)")
    line_out(child, "15")
    leave(child)
    child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "history").read_text()
    assert "\n+task twice(x)\n+    give x * 3\n" in history        # one entry of two lines
