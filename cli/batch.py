"""`syn batch`: one task of a program called with every line of a JSON-lines file, on a
local process pool (the default) or on a Ray cluster (`--engine ray`, cli.batch_ray).
docs/batch.md is the user's page; the decisions that shape this module:

* The parent streams the input lines (raw bytes, never parsed: cli.batch_files), sends
  them to the workers in chunks and writes every result line; workers decode the lines,
  run the items and hand back each result as its finished JSON line. Each worker decodes
  the compiled program (the .synb bytes the parent made) and loads the host tools once,
  then serves many chunks. A chunk is sized to take about CHUNK_SECONDS, so cheap items
  share the cost of a round trip and slow ones (a model call) go one by one.
* Memory is bounded by the work in flight, not by the dataset: at most `2 x workers`
  chunks run at once, and results that finish before an earlier chunk wait in a bounded
  buffer so that they are written in input order; a buffer that fills (one item far
  slower than the rest) is written out of order and the file sorted at the end.
* The results file is the journal: results are appended with os.write (a chunk's lines
  at once), so a crash or Ctrl-C loses at most the results waiting for an earlier item,
  and `--resume` continues from it. Each result carries the hash of its input line, so
  `--resume` refuses (or with --repair drops) results that do not match the inputs.
"""

import io
import json
import os
import signal
import sys
import threading
import time
from collections import deque

from synsema import api
from synsema.runtime import run
from synsema.cli import runner
from synsema.cli.batch_files import (STDIN, Earlier, Inputs, Stop, in_input_order,
                                     input_hash)
from synsema.cli.files import calls_models, program_files, same_file, written_files_error
from synsema.cli.options import ENTRY_OPTIONS, RUN_OPTIONS
from synsema.vm import errors as E
from synsema.vm.values import Labeled

# The options of `syn batch` beyond the run options (the table format of cli.options).
OPTIONS = [("--call", "call", "text", None,
            "The task to call, once per input line, with the line's keys as its named "
            "arguments (required).")] + [o for o in ENTRY_OPTIONS if o[1] == "args_label"] + [
    ("--jobs", "jobs", "int", None,
     "Workers: processes of the local pool (default: the number of cores), or Ray actors "
     "(default: the cluster's CPUs)."),
    ("--engine", "engine", "choice:local|ray", "local",
     "local: a process pool on this machine; ray: actors on a Ray cluster "
     "(pip install 'synsema[ray]')."),
    ("--address", "address", "text", None,
     "With --engine ray: the cluster to join (as ray.init takes it); default: start a "
     "local one."),
    ("--resume", "resume", "flag", False,
     "Keep the results already in the output file and run only the inputs without one."),
    ("--repair", "repair", "flag", False,
     "With --resume: drop the results that do not match the inputs (a second result of "
     "one line, a line the inputs do not have, another input's result) and run their "
     "items again, instead of refusing the file."),
    ("--fail-fast", "fail_fast", "flag", False,
     "Stop scheduling at the first item that is not ok; exit 1."),
    ("--strict", "strict", "flag", False, "Exit 1 when any item is not ok."),
    ("--max-tokens", "max_tokens", "int", None,
     "Token budget of the whole batch: once spent, no new item starts (exit 4)."),
    ("--item-max-tokens", "item_max_tokens", "int", None,
     "Token limit of each item: an item whose model calls take more ends with status "
     "limit."),
]

# The run options as batch takes them: each applies to every item (--max-requests too),
# except --max-tokens, which here is the whole batch's budget (--item-max-tokens is the
# run option's per item).
BATCH_RUN_OPTIONS = [o for o in RUN_OPTIONS if o[0] != "--max-tokens"]

EXIT_INTERRUPTED = 130
CHUNK_SECONDS = 0.05        # the work a chunk of items is sized to
MAX_CHUNK_ITEMS = 500
MAX_CHUNK_BYTES = 1 << 20   # a chunk takes one more line only below this (one line: 16 MB)
HELD_CHUNKS = 4             # x the chunks in flight: finished chunks waiting for an earlier one


# ---- the worker side ----------------------------------------------------------------------

class Worker:
    """One loaded program serving many items (a pool process or a Ray actor)."""

    def __init__(self, payload):
        from synsema.runtime.report import Source
        from synsema.vm.codec import decode
        self.program = api.Program(decode(payload["synb"]),
                                   Source(payload["name"], payload["lines"]))
        self.task = payload["task"]
        values = payload["values"]
        self.settings = item_settings(values)
        self.ceiling = _ceiling(values, self.program)
        self.args_labels = tuple(values.get("args_label") or ())
        self.index = run.task_index(self.program.compiled, self.task)
        params = self.program.compiled.functions[self.index].params
        self.takes_id = any(p.name == "id" for p in params)
        self.input_name = payload["input_name"]
        self.fail_fast = bool(values.get("fail_fast"))

    def run(self, args):
        """The result of one item (a dict without line and id); an api.Error (any way an
        item can fail) becomes its status and message."""
        start = time.perf_counter()
        if not self.takes_id:
            args = {k: v for k, v in args.items() if k != "id"}
        out, written, box = io.StringIO(), [], {}
        try:
            raw = self._call(args, out.write, written.append, box)
            result = {"status": "ok", "value": json.loads(written[0]) if written else None,
                      "labels": sorted(raw.l) if type(raw) is Labeled else []}
        except api.Error as e:
            # The results file is a sink the ceiling guards, like stdout.
            result = {"status": _status(e), "error": api.public_message(e, self.ceiling),
                      "labels": []}
        vm = box.get("vm")
        spent = vm.tokens_used if vm else 0
        # The count of a call with labelled data is the model's to set (how long it
        # answers): the results file shows it only when the ceiling lets those labels out.
        # The budget counts every token either way.
        shown = None if vm is not None and self.ceiling.blocked(vm.token_labels) else spent
        result.update(tokens=shown, spent=spent,
                      tool_calls=_public_calls(vm, self.ceiling),
                      output=out.getvalue(), seconds=round(time.perf_counter() - start, 6))
        return result

    def run_chunk(self, chunk):
        """[(line, status, tokens spent, count withheld, result line bytes)] of the items of
        `chunk` ([(line number, raw input line)]), and the seconds they took. With
        --fail-fast the chunk ends at its first item that is not ok: the rest are not run."""
        start = time.perf_counter()
        out = []
        for line, raw in chunk:
            out.append(self.item(line, raw))
            if self.fail_fast and out[-1][1] != "ok":
                break
        return out, time.perf_counter() - start

    def item(self, line, raw):
        args = _input(raw, f"{self.input_name}:{line}: error: the input")
        if isinstance(args, BadInput):
            result = args.result()
        else:
            try:
                result = self.run(args)
            except Exception as e:      # a defect, yet one item's: the others go on
                # Its text is not written: it may hold data the ceiling keeps from stdout.
                result = BadInput(f"internal error while running input line {line} "
                                  f"({type(e).__name__}; please report it): the other "
                                  "items go on").result()
        spent = result.pop("spent")     # the budget's count, never written
        record = {"line": line, "id": _ident(args), **result, "input_hash": input_hash(raw)}
        return line, result["status"], spent, result["tokens"] is None, _line_bytes(record)

    def _call(self, args, out, result_to, box):
        """runtime.run.execute, the VM kept in `box` for the tokens and tool calls of an
        item that failed half-way: they count against the batch budget all the same."""
        program = self.program
        return run.execute(program.compiled, program.source, self.task, args, out,
                           args_labels=self.args_labels, result_to=result_to, box=box,
                           **self.settings)[1]


def item_settings(values):
    """The api keywords of one item's run: the run options, its token limit from
    --item-max-tokens (--max-tokens is the batch's budget)."""
    settings = runner.settings(values)
    settings.update(max_tokens=values.get("item_max_tokens"), token_flag="--item-max-tokens")
    return settings


def _ceiling(values, program):
    """The host ceiling of the run options (checked already), for the results file."""
    from synsema.vm.caps import Ceiling
    return Ceiling.for_program(values.get("cap_set"), program.compiled.requires)


def _public_calls(vm, ceiling):
    """The host tool calls of an item as the results file may show them: name and outcome,
    never the arguments. A call made under a labelled branch, or with labelled arguments,
    that the ceiling does not let out is left out: that it happened (or was refused) would
    tell the branch, and leaving it out shows the same list whichever way it went."""
    if vm is None:
        return []
    return [{"name": name, "outcome": outcome}
            for (name, _, outcome), labels in zip(vm.tool_calls, vm.tool_call_labels)
            if not ceiling.blocked(labels)]


def _status(e):
    if isinstance(e, api.LabelViolation):
        return "label_violation"
    if isinstance(e, api.Refused):
        return "refused"
    if isinstance(e, api.LimitExceeded):
        return "limit"
    return "error"


_worker = None


def _init_local(payload):
    global _worker
    # Ctrl-C in a terminal reaches the whole process group: the parent alone decides what
    # it stops (it ends the workers itself), so a worker never dies half-way through
    # handing back a result.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = Worker(payload)
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True).start()


def _orphaned(parent):
    """End this worker once the parent is gone (killed with SIGKILL, say): the workers
    hold each other's ends of the pool's pipes, so none would ever see it close."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _run_local(chunk):
    return _worker.run_chunk(chunk)


def _line_bytes(record):
    """A result as its line of the file. A text that UTF-8 cannot hold (a lone surrogate
    a JSON escape made) is written escaped, as JSON allows, rather than not at all."""
    try:
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record) + "\n").encode("utf-8")


class LocalEngine:
    """A process pool on this machine."""

    def __init__(self, payload, jobs):
        from concurrent.futures import ProcessPoolExecutor
        self.pool = ProcessPoolExecutor(jobs, initializer=_init_local, initargs=(payload,))
        self.room = 2 * jobs
        self.running = {}           # future -> key

    def submit(self, key, chunk):
        self.running[self.pool.submit(_run_local, chunk)] = key

    def done(self, timeout=None):
        """[(key, run_chunk's answer)] of the chunks that finished (waits for one, or at
        most `timeout` seconds)."""
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool
        finished, _ = wait(self.running, timeout=timeout, return_when=FIRST_COMPLETED)
        out = []
        # In the order submitted (`finished` is a set): items that finish together are
        # written in input order, so a file a --fail-fast stop leaves unsorted is not
        # shuffled by chance.
        for fut in [f for f in self.running if f in finished]:
            key = self.running.pop(fut)
            try:
                out.append((key, fut.result()))
            except BrokenProcessPool:
                raise Stop("error: a worker process died (a host tool crashed it, or it "
                           "ran out of memory) while running input lines "
                           f"{key[1]}; the finished results are kept: run again with "
                           "--resume", runner.EXIT_INTERNAL) from None
        return out

    def close(self, kill=False):
        if kill:   # the pool has no public way to stop items that are running
            for proc in list(getattr(self.pool, "_processes", {}).values()):
                proc.terminate()
        manager = getattr(self.pool, "_executor_manager_thread", None)
        self.pool.shutdown(wait=not kill, cancel_futures=True)
        if kill and manager is not None:
            # Let the pool's manager thread finish closing its wake-up pipe now: at
            # interpreter exit, concurrent.futures wakes every manager through that pipe
            # without its lock, and a close racing that write is a traceback ("Bad file
            # descriptor" in threading._shutdown) after Ctrl-C.
            manager.join(timeout=10)


# ---- the parent side ----------------------------------------------------------------------

def run_batch(path, inputs, output, values):
    """`syn batch PATH --call TASK INPUTS -o OUTPUT`; returns the exit code. INPUTS `-` is
    standard input."""
    start = time.monotonic()
    try:
        return _batch(path, inputs, output, values, start)
    except Stop as e:
        runner.err(e.message)
        return e.code
    except api.Error as e:
        return runner.outcome(e)


def _batch(path, inputs, output, values, start):
    task = values.get("call")
    if task is None:
        raise Stop("usage error: syn batch needs --call TASK, the task each input line is "
                   "the arguments of", runner.EXIT_USAGE)
    if values.get("repair") and not values.get("resume"):
        raise Stop("usage error: --repair goes with --resume: it mends the results file a "
                   "batch continues", runner.EXIT_USAGE)
    if values.get("repair") and inputs == STDIN:
        raise Stop("usage error: --repair needs the inputs as a file: it reads them once "
                   "to check the results before any item runs, and standard input can be "
                   "read only once", runner.EXIT_USAGE)
    program, code = runner.open_program(path)
    if program is None:
        return code         # why was printed
    reads = [(f"the {what}", given) for what, given in _read_files(path, program, inputs)]
    refused = written_files_error(values, reads + [("the -o results file", output)],
                                  model=calls_models(program))
    if refused:             # --audit or the cassette: before _payload opens them
        raise Stop(refused, runner.EXIT_USAGE)
    if output == "":
        raise Stop("usage error: -o needs a file path, got an empty one", runner.EXIT_USAGE)
    source = Inputs(inputs)
    payload = _payload(program, task, values, source.name)
    _check_output(output, _read_files(path, program, inputs))
    source.measure()
    if values.get("resume"):
        earlier = Earlier(output, source, values.get("repair")).read()
        if source.regular and earlier.present:
            earlier.check_all()
            if sum(earlier.dropped.values()):
                runner.err(earlier.repaired_text())
    else:
        earlier = _fresh(output, source)
    todo = None if source.items is None else source.items - sum(earlier.counts().values())
    writer = Writer(output, earlier, todo, start)
    lines = _todo(source, earlier)
    run = Run(values, payload, writer, lines if source.regular else Feed(lines), todo)
    clean = False
    try:
        stopped = run.drive()
        clean = True
    except KeyboardInterrupt:
        run.close(kill=True)
        again = " (with the same input on standard input)" if source.stdin else ""
        runner.err(writer.summary(source.items) + "; interrupted: run again with --resume "
                   f"to finish{again}")
        return EXIT_INTERRUPTED
    finally:
        run.close(kill=not clean)
    if source.stdin and earlier.present and source.count is not None:
        earlier.check_end()     # read to its end: a result beyond it matches nothing
    complete = stopped is None and writer.done == source.items
    if complete and not writer.in_order:
        in_input_order(output)
    text = writer.summary(source.items)
    rest = f"{source.items - writer.done} items not run" if source.items is not None else \
        "the rest of standard input not read"
    again = " (with the same input on standard input)" if source.stdin else ""
    if stopped == "budget":
        used = "" if writer.withheld else f" ({writer.tokens} used)"
        text += (f"; token budget of {values['max_tokens']} spent{used}: {rest}, --resume "
                 f"runs them{again}")
    elif stopped == "fail-fast":
        text += "; stopped at the first item that failed (--fail-fast)"
    runner.err(text)
    failed = writer.done > writer.counts["ok"]
    if stopped == "fail-fast" or (values.get("strict") and failed):
        return runner.EXIT_ERROR
    return runner.EXIT_LIMIT if stopped == "budget" else runner.EXIT_OK


def _todo(source, earlier):
    """(line, raw) of every input line that has no result yet, streamed."""
    for number, raw in source.lines():
        if earlier.present and earlier.check(number, raw):
            continue            # its result is kept (and matches it)
        if raw.strip():
            yield number, raw


def _payload(program, task, values, input_name):
    """What every worker needs, as plain picklable data: the .synb bytes, the source lines
    (for error carets), the task, the run options and the input's name (for the errors of
    bad lines). Every setting is checked here first, so a bad one is one usage error
    (exit 2), not one error per item."""
    from synsema.vm.codec import encode
    run.task_index(program.compiled, task)
    if values.get("address") and values.get("engine") != "ray":
        raise Stop("usage error: --address needs --engine ray", runner.EXIT_USAGE)
    settings = item_settings(values)
    # Started only to check the settings: each item starts and stops its own.
    run.release(run.options(program.compiled, None, **settings))
    if values.get("labels"):
        run.label_set(values.get("args_label") or ())   # the names, before any item runs
    values = dict(values)
    for key in ("audit", "cassette"):     # workers (Ray's above all) run elsewhere
        if values.get(key):
            values[key] = os.path.abspath(values[key])
    return {"synb": encode(program.compiled), "name": program.source.name,   # as errors say it
            "lines": program.source.lines, "task": task, "values": values,
            "input_name": input_name}


class BadInput:
    """An input line that is not a JSON object: its item is an error, found by the worker."""

    def __init__(self, message):
        self.message = message

    def result(self):
        return {"status": "error", "error": self.message, "labels": [], "tokens": 0,
                "spent": 0, "tool_calls": [], "output": "", "seconds": 0.0}


def _input(raw, where):
    """The argument map of one input line, or the BadInput saying why it is not one."""
    from synsema.vm.jsonvalues import json_decode
    try:
        args = json_decode(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return BadInput(f"{where} is not valid UTF-8; save the file as UTF-8")
    except E.SynError as e:
        reason = e.message.removeprefix("json_decode: ")
        said = f"is {reason}" if reason.startswith("not valid JSON") else \
            f"cannot be read as JSON: {reason}"
        return BadInput(f"{where} {said}; each line must be one JSON object of the task's "
                        "named arguments")
    if type(args) is not dict:
        return BadInput(f"{where} is {runner.json_kind(args)}, not a JSON object of the "
                        'task\'s named arguments ({"name": value})')
    return args


def _ident(args):
    if isinstance(args, BadInput) or "id" not in args:
        return None
    from synsema.stdlib.hosttools import to_python
    return to_python(args["id"])


def _read_files(path, program, inputs):
    """[(what, path)] of the files a batch reads: the dataset (unless standard input), the
    program (and the source beside a .synb, which error carets read)."""
    dataset = [] if inputs == STDIN else [("input dataset", inputs)]
    return dataset + [(what.removeprefix("the "), given) for what, given
                      in program_files(path, program)]


def _check_output(output, reads):
    """The results file is appended to, read back (--resume, the final sort) and replaced:
    the program or the input dataset (`reads`: [(what, path)]) would be destroyed (with
    --resume too), a device or FIFO (`-o /dev/zero`) read without end, or replaced by a
    regular file."""
    import stat
    try:
        mode = os.stat(output).st_mode
    except OSError:
        return                  # not there yet (or unreadable: opening it will say)
    for what, given in reads:
        if os.path.exists(given) and same_file(given, output):
            raise Stop(f"usage error: -o {output} is the {what} {given}: the results would "
                       "overwrite it; give another results file", runner.EXIT_USAGE)
    if not stat.S_ISREG(mode):
        raise Stop(f"usage error: -o {output} is not a regular file (a device, FIFO or "
                   "folder); give a results file path", runner.EXIT_USAGE)


def _fresh(output, source):
    if os.path.exists(output) and os.path.getsize(output) > 0:
        raise Stop(f"usage error: {output} already holds results: add --resume to continue "
                   "it, or remove it to start again", runner.EXIT_USAGE)
    return Earlier(output, source, False)


def _in_input_order(output):
    in_input_order(output)


class Writer:
    """Appends result lines to the results file, in input order as far as the buffer of
    finished chunks allows (one os.write per chunk: never half a line interleaved with
    another), and keeps the counts, the progress bar and the tokens."""

    def __init__(self, output, earlier, todo, start):
        try:
            self.fd = os.open(output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as e:
            raise Stop(f"usage error: cannot write {output}: {e.strerror or e}",
                       runner.EXIT_USAGE) from None
        self.output, self.start = output, start
        self.counts = earlier.counts()
        self.earlier = self.done = sum(self.counts.values())
        self.last, self.in_order = earlier.last, earlier.in_order
        self.tokens = 0
        self.withheld = False       # an item's count was withheld: so is the total
        self.order = deque()        # chunks submitted and not written, in input order
        self.held = {}              # chunk -> its results, finished before an earlier one
        self.bar = _progress(todo)

    def expect(self, chunk):
        self.order.append(chunk)

    def add(self, chunk, results):
        for _, status, spent, withheld, _ in results:
            self.counts[status] += 1
            self.tokens += spent
            self.withheld = self.withheld or withheld
        self.done += len(results)
        self.held[chunk] = results
        while self.order and self.order[0] in self.held:
            self._write(self.held.pop(self.order.popleft()))
        if self.bar is not None:
            self.bar.update(len(results))
            self.bar.set_postfix_str(f"{self.done - self.counts['ok']} failed",
                                     refresh=False)

    def flush(self):
        """Write every finished chunk now, out of order if need be (the file is then sorted
        at the end): the buffer is full, or the batch stops."""
        for chunk in list(self.held):
            self.order.remove(chunk)
            self._write(self.held.pop(chunk))

    def _write(self, results):
        if not results:
            return
        data = b"".join(r[4] for r in results)
        for line, *_ in results:
            self.in_order = self.in_order and line > self.last
            self.last = line
        try:
            while data:
                data = data[os.write(self.fd, data):]
        except OSError as e:
            raise Stop(f"error: cannot write {self.output}: {e.strerror or e}; the results "
                       "written so far are kept", runner.EXIT_ERROR) from None

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def summary(self, total):
        parts = [f"{n} {s}" for s, n in self.counts.items() if n or s == "ok"]
        if total is not None and total > self.done:
            parts.append(f"{total - self.done} not run")
        seconds = time.monotonic() - self.start
        took = f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
        head = f"{total} items" if total is not None else \
            f"{self.done} items of standard input"
        text = f"{head}: {', '.join(parts)} in {took}"
        if self.earlier:
            text += f" ({self.earlier} done by an earlier run)"
        return text


def _progress(todo):
    """A tqdm bar on stderr when it is a terminal (done, failed, rate, ETA; without a total
    when the input is a stream), else None."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        runner.err("(no progress bar: it needs tqdm, pip install 'synsema[batch]')")
        return None
    return tqdm(total=todo, file=sys.stderr, unit="item", dynamic_ncols=True)


class Feed:
    """The lines of a stream (standard input, a pipe), read by a thread of their own into a
    bounded queue: a producer that pauses must not hold up the results of the items it
    sent already. What the reading raised (a line too long, a result that does not match)
    is raised where the lines are taken."""

    END = object()

    def __init__(self, lines):
        import queue
        self.queue = queue.Queue(maxsize=2 * MAX_CHUNK_ITEMS)
        self.ended = False
        threading.Thread(target=self._read, args=(lines,), daemon=True).start()

    def _read(self, lines):
        try:
            for item in lines:
                self.queue.put(item)
        except BaseException as e:  # noqa: BLE001 - raised in the batch's thread
            self.queue.put(e)
        self.queue.put(self.END)

    def take(self, block):
        """The next (line, raw); None when none is there yet (block=False); END at the
        end of the stream."""
        import queue
        if self.ended:
            return self.END
        try:
            item = self.queue.get(block=block)
        except queue.Empty:
            return None
        if item is self.END:
            self.ended = True
        elif isinstance(item, BaseException):
            self.ended = True
            raise item
        return item


class Run:
    """Schedules the chunks: at most engine.room in flight, the workers started with the
    first one (a batch with nothing to run starts none)."""

    def __init__(self, values, payload, writer, todo, count):
        self.values, self.payload, self.writer = values, payload, writer
        self.todo, self.count = todo, count
        self.engine = None
        self.size = 1               # items per chunk: grows once items are seen to be cheap
        # Under a token budget every item is its own chunk: the budget is checked as
        # items finish, so it stops scheduling within the items in flight.
        self.fixed = values.get("max_tokens") is not None

    def drive(self):
        """Run the items; returns None when every item ran, else why scheduling stopped:
        "budget" or "fail-fast"."""
        budget, fail_fast = self.values.get("max_tokens"), self.values.get("fail_fast")
        writer, stopped, number = self.writer, None, 0
        exhausted = False
        while True:
            while stopped is None and not exhausted and (
                    self.engine is None or len(self.engine.running) < self.engine.room):
                if self.engine is not None and \
                        len(writer.order) >= HELD_CHUNKS * self.engine.room:
                    writer.flush()      # one chunk far slower than the rest
                chunk = self._chunk(block=self.engine is None or not self.engine.running)
                if chunk is None:
                    break               # a stream with no line ready: collect meanwhile
                if not chunk:
                    exhausted = True
                    break
                if self.engine is None:
                    self.engine = _engine(self.values, self.payload, self.count)
                number += 1
                writer.expect(number)
                self.engine.submit((number, _lines_text(chunk)), chunk)
            if self.engine is None or not self.engine.running:
                writer.flush()          # what --fail-fast cut short leaves behind
                if stopped == "budget" and (exhausted or not self._chunk()):
                    return None         # spent on the last items: every item ran
                return stopped
            # From a stream, wait briefly: lines that arrive meanwhile are sent at once.
            wait = None if exhausted or stopped or not isinstance(self.todo, Feed) else 0.05
            for (key, _), (results, seconds) in self.engine.done(wait):
                writer.add(key, results)
                self._resize(seconds, len(results))
                if fail_fast and any(r[1] != "ok" for r in results):
                    stopped = "fail-fast"
                elif budget is not None and writer.tokens >= budget and stopped is None:
                    stopped = "budget"

    def _chunk(self, block=True):
        """The next chunk of items; [] at the end of the input; None when a stream has no
        line ready yet and block is False."""
        chunk, size = [], 0
        if isinstance(self.todo, Feed):
            while True:
                item = self.todo.take(block and not chunk)
                if item is None:
                    return chunk or None
                if item is Feed.END:
                    return chunk
                chunk.append(item)
                size += len(item[1])
                if len(chunk) >= self.size or size >= MAX_CHUNK_BYTES:
                    return chunk
        for item in self.todo:
            chunk.append(item)
            size += len(item[1])
            if len(chunk) >= self.size or size >= MAX_CHUNK_BYTES:
                break
        return chunk

    def _resize(self, seconds, n):
        if self.fixed or n == 0:
            return
        each = max(seconds / n, 1e-6)
        self.size = max(1, min(MAX_CHUNK_ITEMS, int(CHUNK_SECONDS / each)))

    def close(self, kill=False):
        try:
            if self.engine is not None:
                self.engine.close(kill=kill)
                self.engine = None
            self.writer.flush()     # what finished before an item that did not: kept
        finally:
            self.writer.close()


def _lines_text(chunk):
    first, last = chunk[0][0], chunk[-1][0]
    return str(first) if first == last else f"{first}-{last}"


def _engine(values, payload, n):
    jobs = values.get("jobs")
    if values.get("engine") == "ray":
        from synsema.cli.batch_ray import RayEngine
        return RayEngine(payload, jobs, values.get("address"), Worker)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = jobs or cores or 1
    return LocalEngine(payload, workers if n is None else max(1, min(workers, n)))
