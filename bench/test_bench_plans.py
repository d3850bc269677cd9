"""Plans (SPEC 17): what a plan costs before it runs, and what the planner prompt costs.

* compile and check a plan of 20, 50 and 200 lines, uncached: what `run_plan` does with a
  text it has not seen (compiler plan mode, the runtime's check of the compiled plan:
  stdlib.plans._compiled without its cache). A model takes seconds to write 50 lines; the
  target is under 20 ms for 50 lines (issue 26). (The loader's bytecode verifier is not
  part of it: a plan is compiled in process, as `syn run` compiles a source, and its
  pre-bound `tools` global is one the verifier's rules do not know.)
* the planner prompt's size for a catalog of 10 host tools: characters, and tokens with a
  real tokenizer (OpenAI's o200k_base and cl100k_base vocabularies, through the
  `bpe-openai` package, the `bench` extra: `tiktoken` itself installs from pip but
  fetches its vocabulary from a server at first use, which this machine cannot reach);
  without it, an estimate of four characters a token, marked as one.
"""

import synsema
from synsema.stdlib import plans

from conftest import measure

SIZES = (20, 50, 200)
TARGET_MS_50 = 20.0

# A plan's building block: a task with a loop over records, conditions, a typed extract
# and a tool call, as a planner writes them (10 lines with its blank line).
BLOCK = '''\
task step_{k}(rows)
    let names be []
    for each row in rows
        when row["score"] > {k}
            set names to append(names, row["name"])
        otherwise when contains(row, "note")
            let who be extract(row["note"], "the person's name", "text")
            set names to append(names, who)
    give names

'''

MAIN = '''\
task main()
    let rows be tools["records.list"]("all")
    let found be []
'''


def generate(lines):
    """A plan of exactly `lines` lines: blocks, then main calling each of them."""
    out, n, k = [], 0, 0
    while n + 10 + 3 + (k + 1) + 1 <= lines:
        out.append(BLOCK.format(k=k))
        n += 10
        k += 1
    out.append(MAIN)
    n += 3
    calls = 0
    while n < lines - 1:
        out.append(f"    set found to found + step_{calls % max(k, 1)}(rows)\n"
                   if k else "    set found to append(found, len(rows))\n")
        n += 1
        calls += 1
    out.append('    give join(found, ", ")\n')
    return "".join(out)


def _compile_uncached(source):
    return plans._compiled.__wrapped__(source)


def _bench_compile(benchmark, report, lines):
    source = generate(lines)
    assert source.count("\n") == lines
    benchmark.group = "plans: compile and check, uncached"
    program = measure(benchmark, lambda: _compile_uncached(source), budget=2.0)
    assert not isinstance(program, Exception), program
    key = f"plans/compile/{lines}"
    median = report.median(key, benchmark)
    if median is not None:
        report.figure(f"plans: compile and check a {lines}-line plan", median * 1e3, "ms",
                      TARGET_MS_50 if lines == 50 else None)


def test_compile_plan_20_lines(benchmark, report):
    _bench_compile(benchmark, report, 20)


def test_compile_plan_50_lines(benchmark, report):
    _bench_compile(benchmark, report, 50)


def test_compile_plan_200_lines(benchmark, report):
    _bench_compile(benchmark, report, 200)


# ---- the planner prompt ---------------------------------------------------------------------

def ten_tools():
    """Ten host tools of a mail, bank, calendar and files assistant, with descriptions,
    parameter descriptions and return annotations, as a real catalog has them."""
    from dataclasses import dataclass

    @dataclass
    class Mail:
        sender: str
        subject: str
        body: str

    @dataclass
    class Event:
        title: str
        start: str
        attendees: list[str]

    def t(name, **kw):
        return synsema.tool(name=name, **kw)

    @t("mail.search", result_labels=["untrusted"])
    def search(query: str, limit: int = 10) -> list[Mail]:
        """Search the inbox.

        :param query: words to look for in sender, subject and body
        :param limit: the most mails to give
        """

    @t("mail.send", accepts={"body": ["untrusted"]})
    def send(to: str, subject: str, body: str) -> str:
        """Send a mail from the user's address.

        :param to: the recipient's address
        """

    @t("contacts.find")
    def find(name: str) -> dict[str, str]:
        """Look a person up in the user's address book.

        :param name: who, as the user calls them
        """

    @t("bank.balance")
    def balance() -> float:
        """The account's balance, in euros."""

    @t("bank.send_money", accepts={"amount": ["untrusted"], "subject": ["untrusted"]})
    def send_money(recipient: str, amount: float, subject: str) -> dict:
        """Send money from the user's account.

        :param recipient: the IBAN to pay
        :param amount: in euros
        """

    @t("bank.transactions", result_labels=["untrusted"])
    def transactions(days: int = 30) -> list[dict]:
        """The account's transactions of the last days, newest first."""

    @t("calendar.events", result_labels=["untrusted"])
    def events(day: str) -> list[Event]:
        """The user's calendar events on a day.

        :param day: the date, as YYYY-MM-DD
        """

    @t("calendar.create", accepts={"title": ["untrusted"]})
    def create(title: str, start: str, attendees: list[str]) -> str:
        """Create a calendar event.

        :param start: the start, as YYYY-MM-DD HH:MM
        """

    @t("files.read", result_labels=["untrusted"])
    def read(path: str) -> str:
        """Read a file from the user's drive."""

    @t("files.list")
    def listing(folder: str = "/") -> list[str]:
        """The files in a folder of the user's drive."""

    return [search, send, find, balance, send_money, transactions, events, create, read,
            listing]


REQUEST = ("Pay my landlord the rent she asks for in her last mail, and put the payment "
           "date in my calendar.")


def tokens(text):
    """{encoding: token count} with a real tokenizer, or None when none is installed."""
    try:
        import bpe_openai
    except ImportError:
        return None
    return {name: len(bpe_openai.get_encoding(name).encode(text))
            for name in ("o200k_base", "cl100k_base")}


def test_planner_prompt_size_for_ten_tools(benchmark, report):
    tools = ten_tools()
    assert len(tools) == 10
    benchmark.group = "plans: the planner prompt, 10 tools"
    messages = measure(benchmark, lambda: synsema.plan_messages(REQUEST, tools), budget=0.5)
    system, user = (m["content"] for m in messages)
    whole = system + "\n" + user
    counted = tokens(whole)
    report.figure("plans: planner prompt, 10 tools (characters)", len(whole), "chars")
    if counted is None:
        report.figure("plans: planner prompt, 10 tools (tokens, ESTIMATE chars/4)",
                      len(whole) / 4, "tokens",
                      note="no tokenizer: pip install -e '.[bench]' for real counts")
    else:
        for name, n in counted.items():
            report.figure(f"plans: planner prompt, 10 tools (tokens, {name})", n, "tokens",
                          note=f"the plan language {tokens(system)[name]}, the catalog "
                               f"and request {tokens(user)[name]}")
    print(f"\nplanner prompt, 10 tools: {len(whole)} characters "
          f"(system {len(system)}, user {len(user)}); tokens: "
          f"{counted or 'no tokenizer installed (estimate: %d)' % (len(whole) // 4)}")
