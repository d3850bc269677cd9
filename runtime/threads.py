"""A run on a thread of its own with a deep stack, under its time limit: the host's side
of a run (host tool calls served on the caller's thread) and the giving up on a run past
its deadline."""

import _thread
import sys
import time
from _queue import Empty, SimpleQueue   # queue's own; `queue` itself imports heapq and more

from synsema.stdlib.hostcall import VM_THREAD
from synsema.vm import errors as E
from synsema.vm.pystack import deep_recursion

_stack_lock = _thread.allocate_lock()      # threading.Lock()


# How long past its deadline a run may go before the one operation it is in (an
# arithmetic on a number of millions of digits, say) is given up on; the threads given up
# on (the `syn` command exits at once rather than wait for them at exit).
OVERTIME = 2.0
abandoned = []


class HostThread:
    """The host's side of a run in the VM's thread: host tool calls the run posts (from
    stdlib.hosttools.on_host_thread) are run here, on the thread that called, one at a
    time, while it waits for the run to end."""
    DONE = object()

    def __init__(self):
        self.queue = SimpleQueue()
        self.lock = _thread.allocate_lock()
        self.closed = False

    def post(self, fn, kwargs):
        """In the VM's thread: run fn(**kwargs) on the host's thread and give its result
        (or raise what it raised)."""
        import threading            # only for a host tool call: off the start-up path
        reply = {"done": threading.Event()}
        with self.lock:
            if self.closed:         # the host gave up on the run (its time limit)
                raise E.LimitExceeded("the run was given up on; no more host tool calls")
            self.queue.put((fn, kwargs, reply))
        # A call the host took but never ran (interrupted between taking and running it)
        # would leave this thread waiting for good: it looks again now and then.
        while not reply["done"].wait(0.25):
            if self.closed:
                raise E.LimitExceeded("the run was given up on; no more host tool calls")
        if "error" in reply:
            raise reply["error"]
        return reply["value"]

    def serve(self, item):
        fn, kwargs, reply = item
        try:
            reply["value"] = fn(**kwargs)
        except BaseException as e:  # noqa: BLE001 - raised in the VM's thread, as if there
            reply["error"] = e
        finally:
            reply["done"].set()

    def close(self):
        """No more calls will be served: the ones waiting fail, later ones are refused."""
        with self.lock:
            self.closed = True
        while True:
            try:
                item = self.queue.get_nowait()
            except Empty:
                return
            if item is not self.DONE:
                item[2]["error"] = E.LimitExceeded("the run was given up on; no more host "
                                                  "tool calls")
                item[2]["done"].set()


def in_big_stack(fn, vm=None):
    """Run fn in a thread with a large stack, so deep (but limited) Synsema recursion
    through builtins never overflows the C stack; re-raise what it raised. Host tools the
    run calls run on this (the caller's) thread meanwhile (HostThread), unless the run
    has a time limit.

    `vm`: the VM fn runs, whose --timeout the loop checks between instructions. One
    instruction can outlast it (Python cannot interrupt arithmetic on huge numbers): when
    the run is still going OVERTIME seconds after its deadline, the time limit is raised
    here, and the thread (a daemon, so the process can still exit) is left to finish."""
    box = {}
    host = HostThread()
    # call_async/run_async: the caller's event loop, where `async def` tools run
    # (hosttools.run_awaitable); given up on at the deadline or when the run is.
    loop = getattr(VM_THREAD, "loop", None)

    def gone():
        return vm is not None and (vm.abandoned or (
            vm.deadline is not None and time.monotonic() > vm.deadline))
    # With a time limit, tools stay in the VM's thread: this one must be free to give up
    # on a tool that blocks past the limit (Python cannot interrupt another thread).
    watch = vm is not None and vm.timeout is not None

    def target():
        if not watch:
            VM_THREAD.post = host.post
        VM_THREAD.loop, VM_THREAD.gone = loop, gone
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the caller's thread
            box["error"] = e
        finally:
            host.queue.put(host.DONE)

    with deep_recursion():
        # threading.stack_size is process-wide: set, start and restore under one lock, so
        # runs started from several threads at once never restore each other's value.
        with _stack_lock:
            old = _thread.stack_size()
            try:
                _thread.stack_size(512 * 1024 * 1024)
            except (ValueError, RuntimeError):
                t = None
            else:
                try:
                    t = _start(target)
                finally:
                    _thread.stack_size(old)
        if t is None:
            return fn()
        try:
            while True:
                try:
                    item = host.queue.get(timeout=0.25 if watch else None)
                except Empty:
                    deadline = vm.deadline
                    if deadline is not None and time.monotonic() > deadline + OVERTIME:
                        # The run may act no more: its next check (a loop's limit, a
                        # capability, a host tool) ends it. `syn` exits at once
                        # (cli/entry.py).
                        vm.abandoned = True
                        abandoned[:] = [x for x in abandoned if x.is_alive()] + [t]
                        raise vm.time_limit(" in one operation that could not be stopped "
                                            "(it goes on in the background)") from None
                    continue
                if item is host.DONE:
                    break
                host.serve(item)
        except BaseException:
            # Ctrl-C or the time limit: the run is left behind, and may act no more (its
            # next loop check, effect or tool call ends it).
            if vm is not None:
                vm.abandoned = True
            host.close()
            raise
        t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _start(target):
    """target() started on a thread of its own (a daemon), under the stack size set; the
    handle has join() and is_alive()."""
    threading = sys.modules.get("threading")
    if threading is not None:
        t = threading.Thread(target=target, name="synsema", daemon=True)
        t.start()
        return t
    return _BareThread(target)


class _BareThread:
    """A thread made with _thread, for a process that has not imported threading: `syn
    exec`, where threading (with the functools and types it imports) was a tenth of the
    start-up (issue 31). A host that has imported it gets a threading.Thread, which a
    debugger's or coverage's threading.settrace reaches."""

    def __init__(self, target):
        self._running = _thread.allocate_lock()
        self._running.acquire()

        def run():
            try:
                target()
            finally:
                self._running.release()
        _thread.start_new_thread(run, ())

    def is_alive(self):
        return self._running.locked()

    def join(self):
        with self._running:
            pass


async def in_worker(work):
    """Run work(box) in a thread of its own, this event loop serving its `async def` tools
    (Program.call_async, synsema.run_plan_async). Cancelled, it marks the run abandoned
    (its next step, effect or tool call ends it) and waits for it to stop, so no tool is
    left running unseen, then lets the cancellation through."""
    import asyncio
    loop = asyncio.get_running_loop()
    box = {}

    def worker():
        VM_THREAD.loop = loop
        try:
            return work(box)
        finally:
            VM_THREAD.loop = None
    future = loop.run_in_executor(None, worker)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        vm = box.get("vm")
        if vm is not None:
            vm.abandoned = True
        try:
            await asyncio.wait_for(asyncio.shield(future), OVERTIME * 5)
        except BaseException:  # noqa: BLE001 - the run's own end (given up) is expected
            pass
        raise
