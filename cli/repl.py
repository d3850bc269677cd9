"""`syn repl`: Synsema typed a line (or a block) at a time.

Design. The session is a transcript: every line typed has a number, as if the lines
were one file `<repl>`, so errors name positions that stay meaningful. Each entry is
compiled as a whole program laid out on those line numbers:

  * the items kept from earlier entries at their own lines: the latest definition of
    each task and test (an entry that defines a task again replaces it), `require`
    lines and the intent;
  * for each top-level variable an earlier entry set, `let x be __repl_get_x()` at the
    line of its original `let`, where the task `__repl_get_x` (appended after the
    transcript) gives `x` -- whose slot the REPL fills with the saved value before the
    program starts (tasks read top-level variables at run time). So a `let` keeps its
    value, labels included, and no earlier statement runs again: a print never repeats,
    a model or network call never happens twice;
  * the new entry at its own lines. When it ends with an expression, that expression
    becomes `let __repl_value be EXPR` followed by a print of its shown form (texts
    quoted), so showing a value is a stdout sink exactly like print (--labels).

Each entry runs in a fresh VM with the session's run options (limits count per entry).
After it runs, the top-level variables it set are saved (also when it stopped with an
error: what ran, ran). A task or lambda value kept in a variable keeps the code it had
when it was made: the new VM takes over the compiled code of the previous one.
An entry that does not compile, or whose `require` the ceiling refuses, changes nothing.
"""

import os
import sys

from synsema import api
from synsema.runtime import run
from synsema.runtime.threads import in_big_stack
from synsema.cli import runner
from synsema.runtime.report import Source, compile_error
from synsema.vm import errors as E
from synsema.vm.values import UNSET

NAME = "<repl>"
HEADERS = ("task", "test", "when", "otherwise", "while", "for", "try", "recover")
VALUE = "__repl_value"
_PREFIX = f"let {VALUE} be "
_SHOW = ["when __repl_value != nothing", "    print(__repl_shown(__repl_value))"]
_SHOWN_TASK = ["task __repl_shown(v)", "    let t be text([v])",
               "    give slice(t, 1, len(t) - 1)"]
_OPEN, _CLOSE = "([{", ")]}"


def bracket_depth(lines):
    """How many brackets the lines leave open (texts and `--` comments skipped)."""
    depth = 0
    for line in lines:
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if c == '"':
                i += 1
                while i < n and line[i] != '"':
                    i += 2 if line[i] == "\\" else 1
            elif line.startswith("--", i):
                break
            elif c in _OPEN:
                depth += 1
            elif c in _CLOSE:
                depth -= 1
            i += 1
    return depth


def next_indent(line):
    """The indentation of the line after `line` in an entry: the same, one level (four
    spaces) more after a block header."""
    indent = line[:len(line) - len(line.lstrip(" "))]
    words = line.split()
    if words and words[0] in HEADERS and bracket_depth([line]) <= 0:
        indent += "    "
    return indent


def needs_more(lines):
    """Whether an entry goes on: brackets still open, or a block (its first line is a
    header) not yet ended by a blank line."""
    if bracket_depth(lines) > 0:
        return True
    words = lines[0].split()
    return bool(words) and words[0] in HEADERS and lines[-1].strip() != ""


class Session:
    """The state of one REPL session; `entry(lines)` compiles and runs one entry.
    `out` receives what the program prints, `err` the error reports."""

    def __init__(self, values, out, err):
        self.settings = runner.settings(values)      # --tools loaded once, here
        self.out, self.err = out, err
        self.lines = []          # the transcript: every line typed, in order
        self.items = {}          # key -> (first line, [lines]): tasks, tests, requires, intent
        self.saved = {}          # variable -> (line of its let, value), in declaration order
        self.last_vm = None      # the code of the task and lambda values kept in variables
        # A bad option is reported now. The MCP servers are the session's: started by the
        # first entry that can reach a host tool, kept for the later ones (a task value
        # kept in a variable calls them), stopped by close().
        self.mcp = None
        # Labels: after an entry ends on an error carrying labels, where it stopped (which
        # variables it set) depends on that data, so every later entry runs under them.
        self.pc = E.EMPTY
        run.release(run.options(_compile(""), out, **self.settings))

    def entry(self, lines):
        start = len(self.lines) + 1
        self.lines.extend(lines)
        if not any(line.strip() and not line.strip().startswith("--") for line in lines):
            return
        from synsema.compiler.parser import parse
        from synsema.compiler.lexer import tokenize
        source = Source(NAME, self.lines)     # carets show what was typed
        try:
            # the layout compiled, less the rewriting for showing a value (not known yet)
            toks = tokenize("\n".join(self._layout(start, lines, {})), NAME)
            tree = parse(toks, NAME)
        except E.CompileError as e:
            return self._compile_failed(e, source, None)
        end = start + len(lines)
        own = [i for i in tree.items if start <= i.line < end]
        shown = None
        if own and own[-1].kind == "expr":
            shown = _last_line_start([t for t in toks if t[2] < end])
        new_items = self._new_items(own, start, lines)
        program_lines = self._layout(start, lines, new_items, shown)
        try:
            program = _compile("\n".join(program_lines))
        except E.CompileError as e:
            return self._compile_failed(e, source, shown)
        vm = self._run(program, source, shown)
        if vm is None or vm.abandoned:      # given up on: what it left is not kept
            return
        self.items.update(new_items)
        for item in own:
            if item.kind == "let":
                self.saved[item.name] = (item.line, UNSET)
        for name, (line, before) in list(self.saved.items()):
            value = vm.globals[program.globals.index(name)]
            if value is not UNSET:
                self.saved[name] = (line, value)
            elif before is UNSET:
                del self.saved[name]        # the entry stopped before this `let` ran
        self.last_vm = vm

    def _new_items(self, own, start, lines):
        """The items an entry adds or replaces, by key, with their lines."""
        new = {}
        ends = [i.line for i in own[1:]] + [start + len(lines)]
        for item, end in zip(own, ends):
            if item.kind in ("task", "test", "require", "intent"):
                key = (item.kind, item.name) if item.kind in ("task", "test") else \
                    (item.kind, item.line)
                new[key] = (item.line, lines[item.line - start:end - start])
        return new

    def _layout(self, start, lines, new_items, shown=None):
        """The program's lines: the kept items (less the ones new_items replaces) and the
        saved variables' lets at their own lines, then the entry (its expression to show
        rewritten), then the tasks the REPL adds."""
        out = [""] * (start - 1)
        items = dict(self.items)
        for key in new_items:
            items.pop(key, None)
        for first, text in items.values():
            out[first - 1:first - 1 + len(text)] = text
        for name, (line, _) in self.saved.items():
            out[line - 1] = f"let {name} be __repl_get_{name}()"
        entry = list(lines)
        if shown is not None:
            i = shown.line - start
            c = shown.col - 1
            entry[i] = entry[i][:c] + _PREFIX + entry[i][c:]
            entry += _SHOW
        out += entry
        for name in self.saved:
            out += [f"task __repl_get_{name}()", f"    give {name}"]
        if shown is not None:
            out += _SHOWN_TASK
        return out

    def _compile_failed(self, e, source, shown):
        _relocate_compile(e, shown)
        self.err(compile_error(e, source))

    def _run(self, program, source, shown):
        """Run one compiled entry; the VM, or None when the ceiling refused its start."""
        settings = self.settings
        if self.mcp is not None:    # the session's servers: their tools, not new servers
            settings = dict(settings, mcp_servers=None,
                            tools=[t for t in (settings["tools"], self.mcp.tools) if t])
        opts = run.options(program, self.out, **settings)
        if opts.mcp is not None:
            self.mcp, opts.mcp = opts.mcp, None
        try:
            try:
                vm = run.start(program, opts)
            except api.Refused as e:
                self.err(e.message + "\n")
                return None
            for name, (_, value) in self.saved.items():
                vm.globals[program.globals.index(name)] = value
            if self.last_vm is not None:
                _adopt(vm, self.last_vm, [v for _, v in self.saved.values()])
            try:
                in_big_stack(lambda: vm.run_main(self.pc), vm)
            except KeyboardInterrupt:
                # Ctrl-C stops this entry (the run is abandoned: it may act no more) and
                # nothing it did is kept: the session is as it was before it.
                self.err("\ninterrupted: the entry was stopped, and nothing it set is "
                         "kept\n")
                vm.abandoned = True
            except E.SynError as e:
                # Stopped while showing the value (the lines after the entry): every
                # variable was set by then, so what is kept does not depend on it.
                showing = shown is not None and bool(e.trace) and \
                    e.trace[-1][1] > len(source.lines)
                if showing:
                    # Every position of the REPL's own showing code reads as the shown
                    # expression's, whichever way its test of the value went: nothing in
                    # it depends on the labels, so it is not withheld.
                    e.secret_frames = 0
                _relocate_trace(e, shown, len(source.lines))
                self.err(run.failure(e, source, vm.ceiling).message + "\n")
                if vm.labels and e.labels - self.pc and not showing:
                    self.pc = self.pc | e.labels
                    self.err(f"note: that entry stopped on data labelled "
                             f"{', '.join(sorted(self.pc))}; the entries after it run under "
                             "those labels, since what it left set depends on them\n")
        finally:
            run.release(opts)      # its audit file
        return vm

    def close(self):
        """End the session: stop its MCP servers."""
        if self.mcp is not None:
            self.mcp.close()
            self.mcp = None


class _At:
    """Where the shown expression starts (line, col)."""
    __slots__ = ("line", "col")

    def __init__(self, line, col):
        self.line, self.col = line, col


def _last_line_start(toks):
    """The position of the first token of the last logical line: an expression node's
    own position is its operator's or its call's, not where the statement starts."""
    i = len(toks) - 1
    while i >= 0 and toks[i][0] in ("NEWLINE", "DEDENT"):
        i -= 1
    while i > 0 and toks[i - 1][0] not in ("NEWLINE", "INDENT", "DEDENT"):
        i -= 1
    return _At(toks[i][2], toks[i][3])


def _compile(text):
    from synsema.compiler import compile_source
    return compile_source(text, NAME)


def _relocate_compile(e, shown):
    """Compile errors on the line of a shown expression: the column the user typed."""
    for x in e.errors:
        if shown is not None and x.line == shown.line and x.col >= shown.col + len(_PREFIX):
            x.col -= len(_PREFIX)


def _relocate_trace(e, shown, last_line):
    """Positions the user can read: the column the user typed on the shown expression's
    line, and the lines the REPL added (showing the value) as the expression's."""
    def fix(line, col):
        if shown is None:
            return line, col
        if line > last_line:
            return shown.line, shown.col
        if line == shown.line and col >= shown.col + len(_PREFIX):
            return line, col - len(_PREFIX)
        return line, col
    e.trace = [(f, *fix(line, col)) for f, line, col in e.trace]


def _adopt(vm, old, values):
    """Let `vm` run the task and lambda values of earlier entries kept in `values`: it
    takes over the code the previous VM had decoded (which holds every earlier one)."""
    from synsema.vm.values import Closure
    todo = list(values)
    while todo:
        v = todo.pop()
        if type(v) is Closure:
            if v.func not in vm.decoded:
                for table in ("decoded", "pads", "owner", "positions", "words"):
                    merged = dict(getattr(old, table))
                    merged.update(getattr(vm, table))
                    setattr(vm, table, merged)
                return
            todo.extend(v.captures)
        elif type(v) is list:
            todo.extend(v)
        elif type(v) is dict:
            todo.extend(v.values())
        elif hasattr(v, "v"):           # a labelled value (--labels) holds its value in .v
            todo.append(v.v)


# ---- the terminal -------------------------------------------------------------------------

def _history_path():
    return os.environ.get("SYN_HISTORY") or os.path.join(os.path.expanduser("~"),
                                                         ".synsema_history")


def _reader():
    """read(prompt) -> line (EOFError at the end): prompt_toolkit's line editor and
    history when stdin is a terminal and the `editor` extra is installed, else the
    standard readline (a terminal) or plain lines without prompts (a pipe)."""
    if not sys.stdin.isatty():
        return lambda prompt: _plain_line()
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
    except ImportError:
        return _readline_reader()
    try:
        session = PromptSession(history=FileHistory(_history_path()))
    except OSError:
        session = PromptSession()
    # One prompt per entry, however many lines: history recalls a block as one unit.
    # Enter ends the entry unless it goes on (needs_more); then it opens the next line,
    # indented as the line above, one level more after a block header.
    from prompt_toolkit.key_binding import KeyBindings
    keys = KeyBindings()

    @keys.add("enter")
    def _(event):
        buffer = event.current_buffer
        lines = buffer.document.text_before_cursor.split("\n")
        if buffer.document.text_after_cursor.strip() or needs_more(lines):
            buffer.insert_text("\n" + next_indent(lines[-1]))
        else:
            buffer.validate_and_handle()

    def read_entry(prompt):
        return session.prompt(prompt, multiline=True, key_bindings=keys,
                              prompt_continuation=lambda width, line, soft: "...  ")
    read_entry.whole = True
    return read_entry


def _plain_line():
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _readline_reader():
    try:
        import readline
    except ImportError:
        return input
    import atexit
    path = _history_path()
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    atexit.register(lambda: _save_history(readline, path))
    return input


def _save_history(readline, path):
    try:
        readline.write_history_file(path)
    except OSError:
        pass


def main(values):
    """`syn repl`: read entries until the end of input (Ctrl-D); the exit code."""
    def write(text):
        sys.stdout.write(text)
        sys.stdout.flush()

    def error(text):
        sys.stdout.flush()
        sys.stderr.write(text)
        sys.stderr.flush()
    try:
        session = Session(values, write, error)
    except api.UsageError as e:
        runner.err(e.message)
        return runner.EXIT_USAGE
    try:
        return _loop(session, write, error)
    finally:
        session.close()


def _loop(session, write, error):
    read = _reader()
    if sys.stdin.isatty():
        from synsema import LANGUAGE_LEVEL
        write(f"Synsema {LANGUAGE_LEVEL} -- a block ends at a blank line; Ctrl-D leaves.\n")
    while True:
        lines = []
        ended = False
        try:
            if getattr(read, "whole", False):
                lines.extend(read("syn> ").split("\n"))
            else:
                lines.append(read("syn> "))
                while needs_more(lines):
                    lines.append(read("...  "))
        except KeyboardInterrupt:
            write("\n")             # Ctrl-C drops the entry being typed, as Python's REPL
            continue
        except EOFError:
            if sys.stdin.isatty():
                write("\n")
            ended = True            # a block the input ended inside still runs (below)
        if ended and not any(x.strip() for x in lines):
            return runner.EXIT_OK
        while lines and not lines[-1].strip():
            lines.pop()
        if lines:
            try:
                session.entry(lines)
            except KeyboardInterrupt:
                # Ctrl-C while it compiled: the entry is dropped, as one being typed.
                error("\ninterrupted\n")
        if ended:
            return runner.EXIT_OK

