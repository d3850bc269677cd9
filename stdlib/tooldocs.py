"""A host tool's docstring read for its descriptions: the first paragraph describes the
tool, and a parameter's description comes from Sphinx (`:param x:`), Google (`Args:`) or
NumPy (`Parameters` and dashes) sections."""

import re

_SPHINX = re.compile(r":(?:param|parameter|arg|argument|key|keyword)\s+"
                     r"(?:[^:]*?\s+)?\**(\w+)\s*:\s*(.*)")
_GOOGLE_HEADER = re.compile(r"(Args|Arguments|Parameters|Params|Keyword Args|"
                            r"Keyword Arguments|Other Parameters)\s*:\s*\Z")
_GOOGLE_ENTRY = re.compile(r"\**(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")
_NUMPY_HEADERS = ("Parameters", "Other Parameters", "Keyword Arguments")
_ANY_HEADER = re.compile(r"[A-Z][A-Za-z ]*:\s*\Z")


def parse_docstring(doc):
    """(description, {parameter: description}) of a cleaned docstring: the first
    paragraph, and the parameters of Sphinx fields, Google `Args:` and NumPy
    `Parameters` sections (the first description found for a name wins)."""
    lines = doc.expandtabs().splitlines()
    first = []
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith(":") or _ANY_HEADER.match(s) or _dashes(lines, i + 1):
            break
        first.append(s)
    params = {}
    for found in (_sphinx(lines), _google(lines), _numpy(lines)):
        for k, v in found.items():
            params.setdefault(k, v)
    return " ".join(first), params


def _indent(line):
    return len(line) - len(line.lstrip())


def _dashes(lines, i):
    return i < len(lines) and len(lines[i].strip()) >= 3 and set(lines[i].strip()) == {"-"}


def _entries(lines, start, is_entry, ends):
    """Collect `name: text` entries from lines[start:], continuation lines joined."""
    found, current, entry_indent = {}, None, None
    for i in range(start, len(lines)):
        line = lines[i]
        if not line.strip():
            continue
        if ends(i):
            break
        names, text = is_entry(line, entry_indent)
        if names is not None:
            entry_indent = _indent(line)
            current = [text] if text else []
            for n in names:
                found.setdefault(n, current)
        elif current is not None:
            current.append(line.strip())
    return {n: " ".join(parts) for n, parts in found.items()}


def _sphinx(lines):
    found = {}
    for i, line in enumerate(lines):
        m = _SPHINX.match(line.strip())
        if not m:
            continue
        parts = [m.group(2).strip()] if m.group(2).strip() else []
        for more in lines[i + 1:]:
            if not more.strip() or more.strip().startswith(":") or _indent(more) <= _indent(line):
                break
            parts.append(more.strip())
        found.setdefault(m.group(1), " ".join(parts))
    return found


def _google(lines):
    for i, line in enumerate(lines):
        if _GOOGLE_HEADER.match(line.strip()):
            base = _indent(line)

            def entry(text, indent, base=base):
                if indent is not None and _indent(text) > indent:
                    return None, None
                m = _GOOGLE_ENTRY.fullmatch(text.strip())
                return ([m.group(1)], m.group(2).strip()) if m else (None, None)
            return _entries(lines, i + 1, entry, lambda j: _indent(lines[j]) <= base)
    return {}


def _numpy(lines):
    for i, line in enumerate(lines):
        if line.strip() in _NUMPY_HEADERS and _dashes(lines, i + 1):
            base = _indent(line)

            def entry(text, indent, base=base):
                if _indent(text) > base:
                    return None, None
                names = text.split(":", 1)[0]
                return [n.strip().lstrip("*") for n in names.split(",")], ""
            return _entries(lines, i + 2, entry,
                            lambda j: _indent(lines[j]) <= base and _dashes(lines, j + 1))
    return {}
