"""`syn agent "REQUEST" --tools MODULE:NAME` (SPEC 17): a planning agent from the command
line. The planner model sees the request and the tools' catalog and writes a plan, a
Synsema program; the plan runs in plan mode under the run options (labels, ceiling,
limits), and its answer is printed, a stdout sink like any other. Built on
synsema.api_plans.agent, as `syn run` is built on the embedding API."""

from synsema import api
from synsema.api_plans import agent as run_agent, stderr_line
from synsema.cli import runner
from synsema.cli.entry import write_stdout
from synsema.cli.options import RUN_OPTIONS
from synsema.runtime.providers import env_provider

# A plan is a model's code: without a limit given, a plan that loops forever, or that
# calls a model in a loop, ends (exit 4) instead of running, and spending, for good.
# About 10,000,000 steps take a few seconds.
DEFAULT_MAX_STEPS = 10_000_000
DEFAULT_MAX_REQUESTS = 100


def _defaults(table):
    out = []
    for flag, dest, kind, default, help_ in table:
        if dest.startswith("mcp"):
            continue        # an MCP server's tools are known only once it runs: see below
        if dest == "max_steps":
            default = DEFAULT_MAX_STEPS
            help_ = help_ + " Default for syn agent: a plan is a model's code."
        elif dest == "max_requests":
            default = DEFAULT_MAX_REQUESTS
            help_ = help_ + " Default for syn agent: planning and the plan's model calls."
        elif dest == "tools":
            help_ = ("The tools the plan may call (and the planner sees): MODULE:NAME, a "
                     "function decorated with @synsema.tool, a list of them or a "
                     "synsema.Toolbox. Repeatable.")
        out.append((flag, dest, kind, default, help_))
    return out


# The run options of `syn run` (without --mcp: the capabilities of an agent, one
# tool("N") per tool, are settled before the run starts, and an MCP server's tools are
# known only after), then the agent's own.
AGENT_OPTIONS = _defaults(RUN_OPTIONS) + [
    ("--show-plan", "show_plan", "flag", False,
     "Print each plan's source to stderr (withheld when it is labelled beyond what the "
     "ceiling's stdout= items let out)."),
    ("--retries", "retries", "count", 2,
     "When the compiler rejects a plan, ask the planner again this many times, with the "
     "rejection (every error, with its position) as feedback."),
    ("--request-label", "request_label", "multi", (),
     "With --labels: label the request (data from customers, a mail, the web). The plan "
     "and its answer then carry the label. Repeatable."),
]


def agent(request, values):
    """Run `syn agent`; the exit code (SPEC 13's, as `syn run`'s)."""
    try:
        if not request.strip():
            raise api.UsageError('usage error: syn agent needs a request, what the agent '
                                 'should do: syn agent "REQUEST" --tools MODULE:NAME')
        if values.get("request_label") and not values.get("labels"):
            raise api.UsageError("usage error: --request-label needs --labels (without it "
                                 "no label is tracked)")
        settings = runner.settings(values)
        tools = settings.pop("tools")
        labels = settings.pop("labels")
        settings.pop("mcp_servers", None)
        _need_model(values)
        run_agent(request, tools=tools, labels=labels,
                  request_labels=values.get("request_label") or (),
                  retries=values.get("retries", 2),
                  show_plan=stderr_line if values.get("show_plan") else None,
                  write=write_stdout, settings=settings)
    except api.Error as e:
        return runner.outcome(e)
    return runner.EXIT_OK


def _need_model(values):
    """A planning agent plans with a model: with none configured, say how to give one
    (offline, every plan would be the one that gives "[no llm provider]")."""
    if env_provider(runner.llm_flags(values)) is None:
        raise api.UsageError(
            "usage error: syn agent needs a model to write its plan, and none is "
            "configured: set SYN_LLM_URL (any OpenAI-compatible server) or "
            "OPENAI_API_KEY / ANTHROPIC_API_KEY, give --llm-url URL, or replay a recorded "
            "run with --cassette FILE --cassette-mode replay")
