"""OpenTelemetry spans of a run (docs/observability.md): one for the run, one per model
call, one per tool call, named and attributed after the GenAI semantic conventions.

Imported only when a run has a TracerProvider (api._tracer_provider): without one, the
VM's `spans` is None and every hook is one `is None` test. The VM never imports this
module; the builtins that touch the world (stdlib.vmbuiltins, stdlib.hostcall) and the
API (api._execute) call it.

What goes into an attribute is what the host's stdout may show: label names, tool and
parameter names, outcomes, token counts -- and nothing that depends on labelled data the
ceiling's stdout= items do not cover (a token count of a labelled prompt, the tool a
labelled task value chose, an error message made from labelled data). A call under a
labelled condition has no span at all: that it happened depends on the data, as --trace
and --audit say nothing of it either. Arguments and results are never attributes.
"""

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from synsema import __version__

WITHHELD = "(withheld: labelled data)"


class Spans:
    """The spans of one run. Spans nest as the calls do (a host tool called inside a task
    run by call_tool is that tool call's child); the run's VM is one thread, so a stack
    says which span is open, and each child names its parent explicitly: the run's span
    is started in the host's thread, its children in the VM's."""

    def __init__(self, provider):
        self.tracer = provider.get_tracer("synsema", __version__)
        self.stack = []

    # ---- the run (api._execute) -----------------------------------------------------------

    def start_run(self, program, task, labels, cap_set):
        name = program.source_name
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name,
                 "synsema.labels_on": bool(labels)}
        if program.intent:
            attrs["gen_ai.agent.description"] = program.intent
        if task is not None:
            attrs["synsema.task"] = task
        if cap_set is not None:
            attrs["synsema.cap_set"] = cap_set
        # The host's current span (its own request, say) is the run's parent.
        span = self.tracer.start_span(f"invoke_agent {name}", kind=SpanKind.INTERNAL,
                                      attributes=attrs)
        self.stack.append(span)
        return span

    def end_run(self, vm, result_labels=(), error=None, message=None):
        """End the run's span: its token totals, the result's labels, or the error that
        ended it (`message`: its text as a guarded sink may show it, api.public_message)."""
        span = self.stack[0]
        del self.stack[:]
        if vm is not None:
            usage(span, vm, vm.llm, vm.token_labels)
            if vm.labels:
                span.set_attribute("synsema.result.labels", sorted(result_labels))
        if error is not None:
            span.set_attribute("error.type", type(error).__name__)
            span.set_attribute("synsema.exit_code", error.exit_code)
            span.set_status(Status(StatusCode.ERROR, message))
        else:
            span.set_attribute("synsema.exit_code", 0)
        span.end()

    # ---- a model call (stdlib.vmbuiltins) -------------------------------------------------

    def model(self, vm, builtin, labels, call):
        """call() -- the provider call of builtin `builtin`, whose input carries `labels`
        (the pc's included) -- in a `chat` span."""
        if unseen(vm):
            return call()
        cfg = vm.llm.config
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": cfg.api,
                 "gen_ai.request.model": cfg.model, "server.address": cfg.host,
                 "synsema.builtin": builtin}
        if cfg.cassette and not cfg.network:
            # only a tape answers: no server is reached (--trace says so too)
            del attrs["server.address"]
            attrs["synsema.cassette"] = str(cfg.cassette)
        if vm.labels:
            attrs["synsema.labels"] = sorted(labels)
        span = self._child(f"chat {cfg.model}", SpanKind.CLIENT, attrs)
        llm = vm.llm
        before = llm.tokens_in or 0, llm.tokens_out or 0
        try:
            answer = call()
        except BaseException as e:    # noqa: BLE001 - ended, and raised on
            usage(span, vm, llm, labels, before)
            self._fail(vm, span, e, labels)
            raise
        usage(span, vm, llm, labels, before)
        if type(answer) is dict and not hidden(vm, labels):
            span.set_attribute("synsema.step.kind", answer.get("kind", ""))
            if answer.get("kind") == "tool":
                span.set_attribute("synsema.step.tool", str(answer.get("name", "")))
        self._end(span)
        return answer

    # ---- a tool call (stdlib.hostcall, stdlib.vmbuiltins) ---------------------------------

    def tool(self, vm, name, kind, named, call):
        """call() -- a call of tool `name` (kind "host" or "task") -- in an `execute_tool`
        span. `named`: the labels of the task value that chose the tool (the name is then
        withheld unless the ceiling lets them out)."""
        if unseen(vm):
            return call()
        known = not hidden(vm, named)
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function",
                 "synsema.tool.kind": kind}
        attrs["gen_ai.tool.name"] = name if known else WITHHELD
        span = self._child(f"execute_tool {name}" if known else "execute_tool",
                           SpanKind.INTERNAL, attrs)
        try:
            result = call()
        except BaseException as e:    # noqa: BLE001 - ended, and raised on
            self._fail(vm, span, e, named)
            raise
        span.set_attribute("synsema.tool.outcome", "ok")
        self._end(span)
        return result

    def tool_record(self, vm, outcome, call_labels, named, refusal):
        """What stdlib.hostcall records of the host tool call running now: its outcome, the
        labels the call carries (the pc's, the task value's, the arguments'), and why a
        refusal refused: the parameter, the labels it carried and those it accepts, or the
        capability missing (label and parameter names, as the --audit line has them; the
        parameter withheld with the tool's name when a labelled task value chose it)."""
        if not self.stack or unseen(vm):
            return
        span = self.stack[-1]
        span.set_attribute("synsema.tool.outcome", outcome)
        if vm.labels:
            span.set_attribute("synsema.tool.call_labels", sorted(call_labels))
        secret = hidden(vm, named)
        for key, value in refusal.items():
            if secret and key in ("parameter", "reader"):
                value = WITHHELD
            span.set_attribute(f"synsema.refusal.{key}", value)

    # ---- shared ---------------------------------------------------------------------------

    def _child(self, name, kind, attrs):
        parent = trace.set_span_in_context(self.stack[-1]) if self.stack else None
        span = self.tracer.start_span(name, context=parent, kind=kind, attributes=attrs)
        self.stack.append(span)
        return span

    def _end(self, span):
        if self.stack and self.stack[-1] is span:
            self.stack.pop()
        span.end()

    def _fail(self, vm, span, exc, labels):
        """The span of a call that raised: the error's kind, and its message when nothing
        it was made from is withheld."""
        err_labels = getattr(exc, "labels", None) or frozenset()
        span.set_attribute("error.type", type(exc).__name__)
        message = getattr(exc, "message", None) or str(exc)
        if hidden(vm, labels | err_labels):
            message = "(message withheld: labelled data)"
        span.set_status(Status(StatusCode.ERROR, message))
        self._end(span)


def hidden(vm, labels):
    """Would an attribute made from data carrying `labels` (and the pc) show what the
    ceiling's stdout= items do not let out?"""
    return bool(vm.labels and vm.ceiling.blocked(labels | vm.pc))


def unseen(vm):
    """No span under a labelled condition the ceiling hides: that the call happened at
    all, and how often, depends on the data."""
    return bool(vm.labels and vm.pc and vm.ceiling.blocked(vm.pc))


def usage(span, vm, llm, labels, before=(0, 0)):
    """The input and output tokens spent since `before` (a labelled prompt's count is as
    labelled as the prompt: a model can set how long it answers)."""
    if llm is None or hidden(vm, labels):
        return
    # A count the provider's answers do not give (None) is left out, not written as 0.
    if llm.tokens_in is not None:
        span.set_attribute("gen_ai.usage.input_tokens", llm.tokens_in - before[0])
    if llm.tokens_out is not None:
        span.set_attribute("gen_ai.usage.output_tokens", llm.tokens_out - before[1])
