"""Load or compile a program, build the VM's options from the run options, run it, and
turn every outcome into the exit code of SPEC section 13:

    0 success · 1 compile/runtime error, failed test, invalid .synb · 2 usage ·
    3 start refused by the ceiling, or label_violation · 4 resource limit · 70 internal
"""

import os
import sys
import threading

from synsema.cli.report import Source, compile_error, runtime_error
from synsema.vm.errors import (CompileError, InvalidProgram, LabelViolation, LimitReached,
                               StartRefused, SynError)

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_REFUSED, EXIT_LIMIT, EXIT_INTERNAL = 0, 1, 2, 3, 4, 70


class Usage(Exception):
    """A bad option value found after parsing (exit 2)."""


def err(text):
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def read_source(path):
    """(text, None) or (None, exit code) after printing why the file cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        err(f"error: {path} is a folder, not a .syn file")
        return None, EXIT_USAGE
    except OSError as e:
        err(f"error: cannot read {path}: {e.strerror or e}")
        return None, EXIT_USAGE
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        err(f"{os.path.basename(path)}:{line}: error: the file is not valid UTF-8 "
            f"(byte {e.start}); save it as UTF-8")
        return None, EXIT_ERROR
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def compile_file(path):
    """(program, source) or (None, exit code) after printing the compile error."""
    text, code = read_source(path)
    if text is None:
        return None, code
    from synsema.compiler import compile_source
    name = os.path.basename(path)
    source = Source(name, text.splitlines())
    try:
        return compile_source(text, name), source
    except CompileError as e:
        err(compile_error(e, source))
        return None, EXIT_ERROR


def load_synb(path):
    """(program, source) or (None, exit code) after printing why the file is refused."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        err(f"error: {path} is a folder, not a .synb file")
        return None, EXIT_USAGE
    except OSError as e:
        err(f"error: cannot read {path}: {e.strerror or e}")
        return None, EXIT_USAGE
    from synsema.vm.codec import decode
    try:
        program = decode(data)
    except InvalidProgram as e:
        err(f"not a valid .synb: {e.reason}")
        return None, EXIT_ERROR
    return program, Source.beside(path, program.source_name)


def vm_options(values, program):
    """vm.machine.Options from the run options; raises Usage for a bad value."""
    from synsema.vm.caps import Ceiling, CeilingError
    from synsema.vm.machine import Options
    ceiling = None
    if values.get("cap_set") is not None:
        try:
            ceiling = Ceiling.parse(values["cap_set"])
        except CeilingError as e:
            raise Usage(str(e)) from None
    audit = None
    if values.get("audit"):
        from synsema.vm.audit import Audit
        try:
            audit = Audit(values["audit"])
        except OSError as e:
            raise Usage(f"--audit: cannot open {values['audit']}: {e.strerror or e}") from None
    llm = provider_from(values) if uses_llm(program) else None
    return Options(labels=values.get("labels", False), ceiling=ceiling,
                   max_steps=values.get("max_steps"), timeout=values.get("timeout"),
                   max_depth=values.get("max_depth") or 1000, audit=audit, llm=llm,
                   trace=values.get("trace", False))


def uses_llm(program):
    """Can this program reach a model at all? Only with `require llm` (at top level or in
    a task); without it every model builtin is refused, so the provider settings are not
    even read (a shell with both OPENAI_API_KEY and ANTHROPIC_API_KEY set must not stop a
    program that never calls a model)."""
    return any(cap[0] == "llm" for cap in program.requires) or any(
        cap[0] == "llm" for f in program.functions for cap in f.requires)


def provider_from(values):
    env = os.environ
    keys = ("llm_url", "llm_api", "llm_model", "cassette", "cassette_mode")
    configured = any(values.get(k) for k in keys) or any(
        env.get(k) for k in ("SYN_LLM_URL", "SYN_LLM_API", "SYN_LLM_MODEL", "SYN_LLM_KEY",
                             "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SYN_LLM_CASSETTE"))
    if not configured:
        return None        # offline: do not even import the provider code
    from synsema.stdlib.llm import Provider, config_from
    try:
        config = config_from(dict(env), url=values.get("llm_url"), api=values.get("llm_api"),
                             model=values.get("llm_model"), cassette=values.get("cassette"),
                             cassette_mode=values.get("cassette_mode"))
    except ValueError as e:
        raise Usage(str(e)) from None
    return Provider(config) if config is not None else None


def make_vm(program, values):
    """(vm, None) or (None, exit code) after printing why the run cannot start."""
    from synsema.vm.machine import VM
    try:
        opts = vm_options(values, program)
        return VM(program, opts), None
    except Usage as e:
        err(f"usage error: {e}")
        return None, EXIT_USAGE
    except StartRefused as e:
        err("error: the program requires capabilities the host ceiling (--cap-set) does not "
            f"grant: {', '.join(e.missing)}; the program does not start")
        return None, EXIT_REFUSED


def outcome(e, source):
    """Print an error that ended a run; return its exit code."""
    from synsema.vm.machine import InternalError
    if isinstance(e, InternalError):
        err(runtime_error(e, source))
        err("internal error: this is a bug in syn, not in your program; please report it "
            "with the program that shows it")
        if os.environ.get("SYN_DEBUG") and getattr(e, "original", None) is not None:
            import traceback
            traceback.print_exception(e.original)
        return EXIT_INTERNAL
    err(runtime_error(e, source))
    if isinstance(e, LabelViolation):
        return EXIT_REFUSED
    if isinstance(e, LimitReached):
        return EXIT_LIMIT
    return EXIT_ERROR


def run_vm(vm, source):
    """Run the top level; the exit code."""
    try:
        in_big_stack(vm.run_main)
    except SynError as e:
        return outcome(e, source)
    finally:
        flush()
    return EXIT_OK


def flush():
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass


def in_big_stack(fn):
    """Run fn in a thread with a large stack, so deep (but limited) Synsema recursion
    through builtins never overflows the C stack; re-raise what it raised."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the caller's thread
            box["error"] = e

    depth = 1000
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000 + depth))
    old = threading.stack_size()
    try:
        threading.stack_size(512 * 1024 * 1024)
    except (ValueError, RuntimeError):
        return fn()
    try:
        t = threading.Thread(target=target, name="synsema")
        t.start()
    finally:
        threading.stack_size(old)
    try:
        t.join()
    except KeyboardInterrupt:
        raise
    if "error" in box:
        raise box["error"]
    return box.get("value")
