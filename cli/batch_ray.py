"""`syn batch --engine ray`: the chunks of items of cli.batch run by a pool of Ray actors,
each a cli.batch.Worker that loads the program once. The parent (cli.batch) is the same
for both engines: it reads the inputs, schedules, writes the results file, resumes and
sets the exit code, so both engines give the same file item for item. At most `room`
chunks are in flight (backpressure), and each result is taken as it finishes and its
object reference dropped, so Ray's object store does not grow with the dataset.

Shipped to the cluster: the payload (the .synb bytes, the source lines, the run options)
as the actors' argument, and the module of every `--tools MODULE:NAME` as a Ray
`py_modules` runtime environment, so a worker on another machine imports the same tools.
Synsema itself must be installed where the workers run (docs/batch.md)."""

import sys

from synsema.cli import runner
from synsema.cli.batch_files import Stop

INSTALL = ("usage error: --engine ray needs Ray, an optional extra: "
           "pip install 'synsema[ray]'")


def _ray():
    try:
        import ray
    except ImportError:
        raise Stop(INSTALL, runner.EXIT_USAGE) from None
    return ray


class RayEngine:
    def __init__(self, payload, jobs, address, worker):
        ray = self.ray = _ray()
        self.started = not ray.is_initialized()
        if self.started:
            # Ray uploads local modules only for a whole job, given to ray.init; a host
            # program that started Ray itself ships its tools in its own runtime_env.
            modules = _tool_modules(payload["values"])
            settings = dict(include_dashboard=False, logging_level="ERROR",
                            log_to_driver=bool(payload["values"].get("trace")),
                            runtime_env={"py_modules": modules} if modules else None)
            if address is None:
                # A cluster of this machine alone: its node address is the loopback one.
                ray.init(num_cpus=jobs, _node_ip_address="127.0.0.1", **settings)
            else:
                ray.init(address=address, **settings)
        workers = jobs or max(1, int(ray.cluster_resources().get("CPU", 1)))
        actor = ray.remote(num_cpus=1)(worker)
        self.actors = [actor.remote(payload) for _ in range(workers)]
        self.load = {i: 0 for i in range(workers)}      # items queued per actor
        self.room = 2 * workers
        self.running = {}                                # object ref -> (key, actor index)

    def submit(self, key, chunk):
        i = min(self.load, key=self.load.get)
        self.load[i] += 1
        self.running[self.actors[i].run_chunk.remote(chunk)] = (key, i)

    def done(self, timeout=None):
        ray = self.ray
        ready = []
        while not ready:      # short waits, so Ctrl-C is seen at once
            ready, _ = ray.wait(list(self.running), num_returns=1,
                                timeout=0.5 if timeout is None else min(timeout, 0.5))
            if timeout is not None:
                break
        out = []
        for ref in ready:
            key, i = self.running.pop(ref)
            self.load[i] -= 1
            try:
                out.append((key, ray.get(ref)))
            except ray.exceptions.RayError as e:
                raise Stop(f"error: a Ray worker failed while running input lines {key[1]}: "
                           f"{type(e).__name__}: {str(e).splitlines()[0]}; the finished "
                           "results are kept: run again with --resume",
                           runner.EXIT_INTERNAL) from None
        return out

    def close(self, kill=False):
        for actor in self.actors:
            self.ray.kill(actor)
        if self.started:
            self.ray.shutdown()


def _tool_modules(values):
    """The files (or package folders) of the top-level modules of the --tools targets,
    already imported by the parent's check of the options."""
    names = {t.partition(":")[0].split(".")[0] for t in values.get("tools") or ()}
    paths = []
    for name in sorted(names - {"synsema"}):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            path = getattr(module, "__path__", None)
            paths.append(list(path)[0] if path else module.__file__)
    return paths
