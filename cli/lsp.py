"""`syn lsp`: the Synsema language server (pygls, from the `editor` extra) over stdio.

Every open document is compiled as it changes: a compile error becomes a diagnostic (its
message carries the compiler's "did you mean"). The resolver's annotations give what
the other features need: each name node's `ref` says which declaration it means, so
`Analysis` maps every use and declaration to one key and answers hover, go to
definition, completion and document symbols from there. While a document does not
compile, those features answer from its last version that did. Formatting is `syn fmt`
(compiler.format.format_source).

Positions: the compiler counts lines and columns from 1 in code points; LSP counts from 0
in UTF-16 code units (its default encoding); `_lsp_col` and `_our_col` convert.
"""

import re

from synsema.runtime.report import source_lines
from synsema.compiler.doc import doc_comment
from synsema.vm.errors import CompileError

SERVER_NAME = "synsema"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def member_before(text):
    """The name `m` when `text` ends in `m.` or `m["` (and the start of a key), else None.
    Read backwards from the end, in time linear in what it reads (a regex searched for
    `...$` tries every start: a line of one long identifier took quadratic time)."""
    i = len(text)
    while i and text[i - 1] in _WORD_CHARS:
        i -= 1
    if i and text[i - 1] == ".":
        i -= 1
    elif i and text[i - 1] == '"':
        i -= 1
        while i and text[i - 1] in " \t":
            i -= 1
        if not (i and text[i - 1] == "["):
            return None
        i -= 1
    else:
        return None
    while i and text[i - 1] in " \t":
        i -= 1
    end = i
    while i and text[i - 1] in _WORD_CHARS:
        i -= 1
    name = text[i:end]
    return name if name and not name[0].isdigit() else None


class Decl:
    """A declaration: a task, a test, a variable or a parameter."""
    __slots__ = ("name", "kind", "line", "col", "node")

    def __init__(self, name, kind, line, col, node):
        self.name, self.kind, self.line, self.col, self.node = name, kind, line, col, node


class Analysis:
    """What the editor features need of one version of a document that compiles."""

    def __init__(self, text, tree):
        self.lines = source_lines(text)     # numbered as the lexer numbers them
        self.decls = {}          # key -> Decl
        self.uses = []           # (line, col, end col, key), declarations included
        self.lambdas = {}        # lambda function index -> (parent, #params, captures)
        self.items = tree.items
        self.ranges = []         # (first line, last line, function index) of tasks/tests
        ends = [i.line - 1 for i in tree.items[1:]] + [len(self.lines)]
        for item, end in zip(tree.items, ends):
            self._item(item)
            if item.kind in ("task", "test") and item.func is not None:
                self.ranges.append((item.line, end, item.func))

    # ---- building ---------------------------------------------------------------------

    def key(self, func, ref):
        if ref is None or func is None:
            return None             # not resolved: a document that does not compile
        kind = ref[0]
        if kind != "local":
            return ref
        if func == 0:
            return ("global", ref[1])       # the top level's locals are the globals
        lam = self.lambdas.get(func)
        if lam is not None and ref[1] >= lam[1]:
            parent, nparams, captures = lam
            return self.key(parent, captures[ref[1] - nparams])
        return ("local", func, ref[1])

    def _declare(self, key, name, kind, line, col, node):
        if key is None:
            return
        self.decls.setdefault(key, Decl(name, kind, line, col, node))
        self.uses.append((line, col, col + len(name), key))

    def _item(self, item):
        k = item.kind
        if k == "task":
            f = item.func
            self._declare(("task", f), item.name, "task", item.line, item.name_col, item)
            for i, p in enumerate(item.params):
                self._declare(("local", f, i), p.name, "parameter", p.line, p.col, p)
                if p.default is not None:
                    self._visit(p.default, f)
            self._visit(item.body, f)
        elif k == "test":
            self._visit(item.body, item.func)
        elif k not in ("intent", "require"):
            self._visit(item, 0)

    def _visit(self, node, func):
        if isinstance(node, (list, tuple)):
            for child in node:
                self._visit(child, func)
            return
        if not hasattr(node, "kind"):
            return
        k = node.kind
        if k == "lambda":
            if node.func is None:
                return
            self.lambdas[node.func] = (func, len(node.params), node.captures)
            for i, (name, line, col) in enumerate(node.params):
                self._declare(("local", node.func, i), name, "parameter", line, col, node)
            self._visit(node.body, node.func)
            return
        if k == "name":
            if node.ref is None:
                return
            self.uses.append((node.line, node.col, node.col + len(node.name),
                              self.key(func, node.ref)))
            return
        if k in ("let", "foreach"):
            self._visit(node.iterable if k == "foreach" else node.value, func)
            self._declare(self.key(func, node.ref), node.name, "variable", node.line,
                          node.name_col, node)
            if k == "foreach":
                self._visit(node.body, func)
            return
        if k == "set" and node.ref is not None:
            self.uses.append((node.line, node.name_col, node.name_col + len(node.name),
                              self.key(func, node.ref)))
        if k == "try" and node.name is not None:
            self._visit(node.body, func)
            self._declare(self.key(func, node.ref), node.name, "variable", node.name_line,
                          node.name_col, node)
            self._visit(node.recover, func)
            return
        for field in node.fields:
            self._visit(getattr(node, field), func)

    # ---- answering --------------------------------------------------------------------

    def at(self, line, col):
        """The key of the name at (line, col), 1-based, or None."""
        for ln, start, end, key in self.uses:
            if ln == line and start <= col <= end:
                return key
        return None

    def hover(self, key):
        """Markdown for the thing `key` names, or None."""
        if key[0] == "builtin":
            from synsema.stdlib.host import load_all
            b = load_all()[key[1]]
            return f"```synsema\n{key[1]}(...)\n```\nbuiltin, {b.arity_text()}: {b.doc}"
        d = self.decls.get(key)
        if d is None:
            return None
        if d.kind == "task":
            header = self.lines[d.line - 1].strip()
            doc = self.doc_comment(d.line)
            return f"```synsema\n{header}\n```" + (f"\n{doc}" if doc else "")
        what = "parameter" if d.kind == "parameter" else "variable"
        if d.kind == "parameter" and getattr(d.node, "type", None):
            what += f" ({d.node.type})"
        return f"{what} `{d.name}`, declared at line {d.line}"

    def doc_comment(self, line):
        """The `--` comment lines right above a line, without their markers."""
        return doc_comment(self.lines, line)

    def function_at(self, line):
        for first, last, func in self.ranges:
            if first <= line <= last:
                return func
        return 0

    def visible(self, line):
        """The declarations a name at `line` can mean: tasks, top-level variables, and
        the parameters and the variables declared above it of the task or test around it."""
        func = self.function_at(line)
        for key, d in self.decls.items():
            if key[0] in ("task", "global") or (key[1] == func and (
                    d.line < line or d.kind == "parameter")):
                yield d

    def map_keys(self, name, line):
        """The text keys of the map literal a visible `let NAME be {...}` holds."""
        for d in self.visible(line):
            if d.name == name and getattr(d.node, "kind", None) == "let" and \
                    d.node.value.kind == "map":
                return [k.value for k, _ in d.node.value.pairs if k.kind == "text"]
        return []

    def symbols(self):
        """(name, kind, first line, last line, name line, name col) of the top level's
        tasks, tests and variables."""
        ends = [i.line - 1 for i in self.items[1:]] + [len(self.lines)]
        out = []
        for item, end in zip(self.items, ends):
            while end > item.line and not self.lines[end - 1].strip():
                end -= 1
            if item.kind == "task":
                out.append((item.name, "task", item.line, end, item.line, item.name_col))
            elif item.kind == "test":
                out.append((item.name, "test", item.line, end, item.line, item.col))
            elif item.kind == "let":
                out.append((item.name, "variable", item.line, end, item.line, item.name_col))
        return out


def analyse(text):
    """(an Analysis or None, [every CompileError, in line order]): one compile per
    change, whose resolved tree the features read. A document that does not compile is
    analysed as far as it parses and resolves (compiler.problems: the lines that do not
    parse are skipped), so its own names still get hover, definition and completion."""
    from synsema.compiler import analyse_source, compile_tree
    try:
        tree, _ = compile_tree(text, "doc")
        errors = []
    except CompileError:
        tree, errors = analyse_source(text, "doc")
    if tree is None:
        return None, errors
    try:
        return Analysis(text, tree), errors
    except RecursionError:      # nested too deeply to walk: keep the last good analysis
        return None, errors


def format_text(text):
    """The formatted text (syn fmt), or None when it cannot be formatted or is already."""
    try:
        # As `syn fmt`: a document that does not compile is left as it is.
        from synsema.compiler import compile_source
        from synsema.cli.fmt import TooLarge, formatted
        compile_source(text, "document.syn")
        out = formatted(text, "<source>")   # no layout larger than a program may be
    except (CompileError, AssertionError, TooLarge):
        return None
    return None if out == text else out


def _lsp_col(line_text, col):
    """Our 1-based code-point column -> LSP's 0-based UTF-16 character offset."""
    return len(line_text[:max(col - 1, 0)].encode("utf-16-le")) // 2


def _our_col(line_text, character):
    """LSP's 0-based UTF-16 offset -> our 1-based code-point column."""
    units = 0
    for i, ch in enumerate(line_text):
        if units >= character:
            return i + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text) + 1


# ---- the server -----------------------------------------------------------------------------

def build_server():
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer

    from synsema import __version__
    from synsema.compiler.lexer import KEYWORDS
    from synsema.stdlib.host import load_all

    server = LanguageServer(SERVER_NAME, __version__,
                            text_document_sync_kind=T.TextDocumentSyncKind.Full)
    good = {}                # uri -> the last Analysis of a version that compiled

    def line_of(lines, n):
        return lines[n - 1] if 0 < n <= len(lines) else ""

    def position(lines, line, col):
        return T.Position(line=max(line - 1, 0), character=_lsp_col(line_of(lines, line), col))

    def refresh(uri):
        text = server.workspace.get_text_document(uri).source
        lines = source_lines(text)
        analysis, errors = analyse(text)
        diagnostics = []
        # A document that does not compile replaces the last analysis unless it knows
        # fewer names (recovery stopped early): then the features keep the last one.
        if analysis is not None and (not errors or uri not in good or
                                     len(analysis.decls) >= len(good[uri].decls)):
            good[uri] = analysis
        for e in errors:
            line = max(e.line, 1)
            word = _WORD.match(line_of(lines, line), max(e.col - 1, 0))
            end = e.col + (len(word.group()) if word else 1)
            diagnostics.append(T.Diagnostic(
                range=T.Range(start=position(lines, line, e.col), end=position(lines, line, end)),
                message=e.message, severity=T.DiagnosticSeverity.Error, source="syn"))
        server.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    def lookup(params):
        """(Analysis, key) of the name under the cursor, or (Analysis or None, None)."""
        a = good.get(params.text_document.uri)
        if a is None:
            return None, None
        line = params.position.line + 1
        text = server.workspace.get_text_document(params.text_document.uri).lines
        line_text = text[line - 1].rstrip("\r\n") if line <= len(text) else ""
        return a, a.at(line, _our_col(line_text, params.position.character))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params):
        refresh(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params):
        refresh(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params):
        good.pop(params.text_document.uri, None)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls, params):
        a, key = lookup(params)
        text = a.hover(key) if key is not None else None
        if text is None:
            return None
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params):
        a, key = lookup(params)
        d = a.decls.get(key) if key is not None else None
        if d is None:
            return None
        start = position(a.lines, d.line, d.col)
        end = position(a.lines, d.line, d.col + len(d.name))
        return T.Location(uri=params.text_document.uri, range=T.Range(start=start, end=end))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", '"']))
    def completion(ls, params):
        a = good.get(params.text_document.uri)
        line = params.position.line + 1
        doc_lines = server.workspace.get_text_document(params.text_document.uri).lines
        line_text = doc_lines[line - 1].rstrip("\r\n") if line <= len(doc_lines) else ""
        before = line_text[:_our_col(line_text, params.position.character) - 1]
        member = member_before(before)
        if member and a is not None:
            return T.CompletionList(is_incomplete=False, items=[
                T.CompletionItem(label=k, kind=T.CompletionItemKind.Field)
                for k in a.map_keys(member, line)])
        items = [T.CompletionItem(label=k, kind=T.CompletionItemKind.Keyword)
                 for k in KEYWORDS]
        items += [T.CompletionItem(label=n, kind=T.CompletionItemKind.Function, detail=b.doc)
                  for n, b in sorted(load_all().items())]
        if a is not None:
            for d in a.visible(line):
                if d.kind == "task":
                    items.append(T.CompletionItem(
                        label=d.name, kind=T.CompletionItemKind.Function,
                        detail=a.lines[d.line - 1].strip()))
                else:
                    items.append(T.CompletionItem(label=d.name,
                                                  kind=T.CompletionItemKind.Variable))
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls, params):
        a = good.get(params.text_document.uri)
        if a is None:
            return []
        kinds = {"task": T.SymbolKind.Function, "test": T.SymbolKind.Method,
                 "variable": T.SymbolKind.Variable}
        out = []
        for name, kind, first, last, nline, ncol in a.symbols():
            end = T.Position(line=last - 1, character=_lsp_col(line_of(a.lines, last),
                                                               len(line_of(a.lines, last)) + 1))
            sel = T.Range(start=position(a.lines, nline, ncol),
                          end=position(a.lines, nline, ncol + len(name)))
            out.append(T.DocumentSymbol(
                name=name, kind=kinds[kind], detail=kind, selection_range=sel,
                range=T.Range(start=T.Position(line=first - 1, character=0), end=end)))
        return out

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls, params):
        text = server.workspace.get_text_document(params.text_document.uri).source
        new = format_text(text)
        if new is None:
            return []
        lines = text.split("\n")
        end = T.Position(line=len(lines) - 1, character=_lsp_col(lines[-1], len(lines[-1]) + 1))
        return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0), end=end),
                           new_text=new)]

    return server


def main():
    """`syn lsp`: serve on stdin/stdout until the client says exit; the exit code."""
    import os
    import sys
    try:
        server = build_server()
    except ImportError as e:
        sys.stderr.write(f"error: syn lsp needs the editor extra ({e.name} is not "
                         "installed): pip install 'synsema[editor]'\n")
        return 1
    # pygls closes the stream it writes to at `exit`: give it its own handle on stdout,
    # so the command's usual flush at the end still finds sys.stdout open.
    with os.fdopen(os.dup(sys.stdout.fileno()), "wb") as out:
        server.start_io(sys.stdin.buffer, out)
    return 0
