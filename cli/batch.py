"""`syn batch`: one task of a program called with every line of a JSON-lines file, on a
local process pool (the default) or on a Ray cluster (`--engine ray`, cli.batch_ray).
docs/batch.md is the user's page; the decisions that shape this module:

* The parent reads the inputs and the results file, schedules items and writes every
  result line; workers only run items. Each worker decodes the compiled program (the
  .synb bytes the parent made) and loads the host tools once, then serves many items.
* The results file is the journal: a result is appended with one os.write as soon as its
  item finishes, so a crash or Ctrl-C loses no finished result and `--resume` continues
  from it. Only when every input has its result is the file put in input order: a sorted
  copy is written beside it and renamed over it (atomic, so at every moment the file holds
  each finished result exactly once).
* At most `2 x workers` items are in flight, so the batch token budget and --fail-fast
  stop scheduling within a few items, and memory stays flat on huge inputs.
"""

import io
import json
import os
import signal
import sys
import threading
import time

from synsema import api
from synsema.cli import runner
from synsema.cli.files import calls_models, program_files, same_file, written_files_error
from synsema.cli.options import ENTRY_OPTIONS, RUN_OPTIONS
from synsema.vm import errors as E
from synsema.vm.values import Labeled

STATUSES = ("ok", "error", "refused", "label_violation", "limit")

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
BOM = "\ufeff".encode("utf-8")    # a byte-order mark some editors put at a file's start


class Stop(Exception):
    """The batch cannot go on: `message` is printed, `code` is the exit code."""

    def __init__(self, message, code):
        super().__init__(message)
        self.message, self.code = message, code


# ---- the worker side ----------------------------------------------------------------------

class Worker:
    """One loaded program serving many items (a pool process or a Ray actor)."""

    def __init__(self, payload):
        from synsema.cli.report import Source
        from synsema.vm.codec import decode
        self.program = api.Program(decode(payload["synb"]),
                                   Source(payload["name"], payload["lines"]))
        self.task = payload["task"]
        values = payload["values"]
        self.settings = item_settings(values)
        self.ceiling = _ceiling(values, self.program)
        self.args_labels = tuple(values.get("args_label") or ())
        self.index = self.program._task_index(self.task)
        params = self.program._program.functions[self.index].params
        self.takes_id = any(p.name == "id" for p in params)

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

    def _call(self, args, out, result_to, box):
        """Program._execute, the VM kept in `box` for the tokens and tool calls of an item
        that failed half-way: they count against the batch budget all the same."""
        return self.program._execute(self.task, args, out, args_labels=self.args_labels,
                                     result_to=result_to, box=box, **self.settings)[1]


def item_settings(values):
    """The api keywords of one item's run: the run options, its token limit from
    --item-max-tokens (--max-tokens is the batch's budget)."""
    settings = runner.settings(values)
    settings.update(max_tokens=values.get("item_max_tokens"), token_flag="--item-max-tokens")
    return settings


def _ceiling(values, program):
    """The host ceiling of the run options (checked already), for the results file."""
    from synsema.vm.caps import Ceiling
    return Ceiling.for_program(values.get("cap_set"), program._program.requires)


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


def _run_local(args):
    return _worker.run(args)


class LocalEngine:
    """A process pool on this machine."""

    def __init__(self, payload, jobs):
        from concurrent.futures import ProcessPoolExecutor
        self.pool = ProcessPoolExecutor(jobs, initializer=_init_local, initargs=(payload,))
        self.room = 2 * jobs
        self.running = {}           # future -> key

    def submit(self, key, args):
        self.running[self.pool.submit(_run_local, args)] = key

    def done(self):
        """[(key, result)] of the items that finished (waits for at least one)."""
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool
        finished, _ = wait(self.running, return_when=FIRST_COMPLETED)
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
                           "ran out of memory) while running input line "
                           f"{key[0]}; the finished results are kept: run again with "
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
    """`syn batch PATH --call TASK INPUTS -o OUTPUT`; returns the exit code."""
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
    payload = _payload(program, task, values)
    _check_output(output, _read_files(path, program, inputs))
    items = read_inputs(inputs)
    done = read_results(output, items) if values.get("resume") else _fresh(output)
    todo = [(line, args) for line, args in items if line not in done]
    writer = Writer(output, done, len(todo), start)
    engine, clean = None, False
    try:
        if any(not isinstance(args, BadInput) for _, args in todo):
            engine = _engine(values, payload, len(todo))
        stopped = _drive(engine, todo, writer, values)
        clean = True
    except KeyboardInterrupt:
        writer.close()
        runner.err(writer.summary(len(items)) + "; interrupted: run again with --resume "
                   "to finish")
        return EXIT_INTERRUPTED
    finally:
        if engine is not None:
            engine.close(kill=not clean)
        writer.close()
    complete = len(writer.statuses) == len(items)
    if complete:
        _in_input_order(output)
    text = writer.summary(len(items))
    if stopped == "budget":
        used = "" if writer.withheld else f" ({writer.tokens} used)"
        text += (f"; token budget of {values['max_tokens']} spent{used}: "
                 f"{len(items) - len(writer.statuses)} items not run, --resume runs them")
    elif stopped == "fail-fast":
        text += "; stopped at the first item that failed (--fail-fast)"
    runner.err(text)
    failed = any(s != "ok" for s in writer.statuses.values())
    if stopped == "fail-fast" or (values.get("strict") and failed):
        return runner.EXIT_ERROR
    return runner.EXIT_LIMIT if stopped == "budget" else runner.EXIT_OK


def _payload(program, task, values):
    """What every worker needs, as plain picklable data: the .synb bytes, the source lines
    (for error carets), the task and the run options. Every setting is checked here
    first, so a bad one is one usage error (exit 2), not one error per item."""
    from synsema.vm.codec import encode
    program._task_index(task)
    if values.get("address") and values.get("engine") != "ray":
        raise Stop("usage error: --address needs --engine ray", runner.EXIT_USAGE)
    settings = item_settings(values)
    # Started only to check the settings: each item starts and stops its own.
    api._release(api._options(program._program, None, **settings))
    if values.get("labels"):
        api._label_set(values.get("args_label") or ())   # the names, before any item runs
    values = dict(values)
    for key in ("audit", "cassette"):     # workers (Ray's above all) run elsewhere
        if values.get(key):
            values[key] = os.path.abspath(values[key])
    return {"synb": encode(program._program), "name": program._source.name,   # as errors say it
            "lines": program._source.lines, "task": task, "values": values}


class BadInput:
    """An input line that is not a JSON object: its item is an error, found by the parent."""

    def __init__(self, message):
        self.message = message

    def result(self):
        return {"status": "error", "error": self.message, "labels": [], "tokens": 0,
                "spent": 0, "tool_calls": [], "output": "", "seconds": 0.0}


def read_inputs(path):
    """[(line number, Synsema argument map or BadInput)], blank lines left out. A line
    longer than runner.MAX_ARGS_BYTES (an endless one: /dev/zero) stops the batch."""
    name = path                 # as given, as errors name every file
    items = []
    try:
        with open(path, "rb") as fh:
            for number, raw in enumerate(iter(lambda: fh.readline(runner.MAX_ARGS_BYTES + 1),
                                              b""), 1):
                if len(raw) > runner.MAX_ARGS_BYTES:
                    raise Stop(f"usage error: {name}:{number}: the line is longer than "
                               f"{runner.LIMIT_TEXT}, the most an input line may hold",
                               runner.EXIT_USAGE)
                if number == 1:
                    raw = raw.removeprefix(BOM)     # as a .syn source may start with one
                if raw.strip():
                    items.append((number, _input(raw, f"{name}:{number}: error: the input")))
    except OSError as e:
        raise Stop(f"usage error: cannot read {path}: {e.strerror or e}",
                   runner.EXIT_USAGE) from None
    return items


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
    """[(what, path)] of the files a batch reads: the dataset, the program (and the source
    beside a .synb, which error carets read)."""
    return [("input dataset", inputs)] + [(what.removeprefix("the "), given) for what, given
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


def _fresh(output):
    if os.path.exists(output) and os.path.getsize(output) > 0:
        raise Stop(f"usage error: {output} already holds results: add --resume to continue "
                   "it, or remove it to start again", runner.EXIT_USAGE)
    return {}


def read_results(output, items):
    """--resume: {input line: status} of the results in `output`. A last line cut short
    (the batch was killed while writing it) is cut off, so its item runs again."""
    try:
        with open(output, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise Stop(f"usage error: cannot read {output}: {e.strerror or e}",
                   runner.EXIT_USAGE) from None
    end = data.rfind(b"\n") + 1
    if end < len(data):
        os.truncate(output, end)
    ids = {line: _ident(args) for line, args in items}
    done = {}
    for number, raw in enumerate(data[:end].splitlines(), 1):
        try:
            result = json.loads(raw)
            line, status = result["line"], result["status"]
            if type(line) is not int or status not in STATUSES:
                raise ValueError
        except (ValueError, TypeError, KeyError):
            raise Stop(f"usage error: {output}:{number}: not a result line of syn batch; "
                       "give --resume the results file of this batch", runner.EXIT_USAGE
                       ) from None
        if line not in ids or ids[line] != result.get("id"):
            raise Stop(f"usage error: {output}:{number}: the result of input line {line} "
                       f"(id {json.dumps(result.get('id'))}) does not match the inputs: it "
                       "was written for other inputs", runner.EXIT_USAGE)
        done[line] = status
    return done


def _engine(values, payload, n):
    jobs = values.get("jobs")
    if values.get("engine") == "ray":
        from synsema.cli.batch_ray import RayEngine
        return RayEngine(payload, jobs, values.get("address"))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return LocalEngine(payload, min(jobs or cores or 1, n))


class Writer:
    """Appends result lines to the results file (one os.write each: never half a line
    interleaved with another) and keeps the counts, the progress bar and the tokens."""

    def __init__(self, output, done, todo, start):
        try:
            self.fd = os.open(output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as e:
            raise Stop(f"usage error: cannot write {output}: {e.strerror or e}",
                       runner.EXIT_USAGE) from None
        self.output, self.start = output, start
        self.statuses = dict(done)
        self.earlier = len(done)
        self.tokens = 0
        self.withheld = False       # an item's count was withheld: so is the total
        self.bar = _progress(todo)

    def add(self, line, ident, result):
        spent = result.pop("spent")         # the budget's count, never written
        record = {"line": line, "id": ident, **result}
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            while data:
                data = data[os.write(self.fd, data):]
        except OSError as e:
            raise Stop(f"error: cannot write {self.output}: {e.strerror or e}; the results "
                       "written so far are kept", runner.EXIT_ERROR) from None
        self.statuses[line] = result["status"]
        self.tokens += spent
        self.withheld = self.withheld or result["tokens"] is None
        if self.bar is not None:
            self.bar.update(1)
            failed = sum(s != "ok" for s in self.statuses.values())
            self.bar.set_postfix_str(f"{failed} failed", refresh=False)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def summary(self, total):
        counts = {s: 0 for s in STATUSES}
        for s in self.statuses.values():
            counts[s] += 1
        parts = [f"{n} {s}" for s, n in counts.items() if n or s == "ok"]
        missing = total - len(self.statuses)
        if missing:
            parts.append(f"{missing} not run")
        seconds = time.monotonic() - self.start
        took = f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
        text = f"{total} items: {', '.join(parts)} in {took}"
        if self.earlier:
            text += f" ({self.earlier} done by an earlier run)"
        return text


def _progress(todo):
    """A tqdm bar on stderr when it is a terminal (done, failed, rate, ETA), else None."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        runner.err("(no progress bar: it needs tqdm, pip install 'synsema[batch]')")
        return None
    return tqdm(total=todo, file=sys.stderr, unit="item", dynamic_ncols=True)


def _drive(engine, todo, writer, values):
    """Run the items, at most engine.room at a time; returns None when every item ran,
    else why scheduling stopped: "budget" or "fail-fast"."""
    budget, fail_fast = values.get("max_tokens"), values.get("fail_fast")
    queue = iter(todo)
    stopped = None

    def finished(line, ident, result):
        nonlocal stopped
        writer.add(line, ident, result)
        if fail_fast and result["status"] != "ok":
            stopped = "fail-fast"
        elif budget is not None and writer.tokens >= budget and stopped is None:
            stopped = "budget"

    while True:
        while stopped is None and (engine is None or len(engine.running) < engine.room):
            item = next(queue, None)
            if item is None:
                break
            line, args = item
            if isinstance(args, BadInput):
                finished(line, None, args.result())
            else:
                engine.submit((line, _ident(args)), args)
        if engine is None or not engine.running:
            if stopped == "budget" and next(queue, None) is None:
                return None         # spent on the last items: every item ran
            return stopped
        for (line, ident), result in engine.done():
            finished(line, ident, result)


def _in_input_order(output):
    """Once every input has its result: the file's lines sorted by input line, written to
    a copy that replaces the file in one rename (cli.files: never a half-sorted file)."""
    with open(output, "rb") as fh:
        lines = fh.read().splitlines(keepends=True)
    try:
        keys = [json.loads(raw)["line"] for raw in lines]
        if any(type(k) is not int for k in keys):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        # Something else wrote to the file while the batch ran: its lines are left as
        # they are, with every result, rather than sorted in among them.
        raise Stop(f"error: {output} holds lines that are not results of this batch "
                   "(something else wrote to it while it ran): it is left in the order the "
                   "items finished", runner.EXIT_ERROR) from None
    if keys == sorted(keys):
        return
    from synsema.cli.files import replace_file
    try:
        replace_file(output, [raw for _, raw in sorted(zip(keys, lines), key=lambda p: p[0])])
    except OSError as e:
        raise Stop(f"error: cannot put {output} in input order: {e.strerror or e}; every "
                   "result is in it, in the order the items finished", runner.EXIT_ERROR
                   ) from None
