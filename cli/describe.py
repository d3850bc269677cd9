"""What `syn outline` and `syn inspect` show: a program described as data. The text
forms show every name and the intent through runtime.report.printable: they come from the
program (a .synb is anyone's data), and a newline or an escape sequence in them must not
fake or hide a line such as `requires:`."""

from synsema.runtime.report import printable as _p
from synsema.vm.program import cap_text


def _params(func):
    from synsema.vm.program import Param
    return [{"name": p.name, "type": p.type, "optional": p.default != Param.NO_DEFAULT}
            for p in func.params]


def _schema(func):
    """The JSON Schema of what `--call` (and `syn serve`) accept: call_tool's rules
    (SPEC 5). A model's catalog sends an untyped parameter as a string (SPEC 11); a
    caller may give it any JSON value, or leave it out (it arrives as nothing)."""
    # Built from the parameters as they are, not through the model catalog's reader
    # (stdlib.llm.convert.input_schema), which refuses names a model cannot be sent: any
    # program the loader accepts can be described.
    from synsema.stdlib.llm.convert import SCHEMAS
    from synsema.vm.program import Param
    properties, required = {}, []
    for p in func.params:
        if p.type == "task":
            continue            # a task value cannot be given as JSON
        properties[str(p.name)] = dict(SCHEMAS.get(p.type, {})) if p.type else {}
        if p.type and p.default == Param.NO_DEFAULT:
            required.append(str(p.name))
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


def outline(program):
    return {
        "source": program.source_name,
        "intent": program.intent,
        "requires": [cap_text(c) for c in program.requires],
        "tasks": [{"name": f.name, "line": f.line, "parameters": _params(f),
                   "input_schema": _schema(f), "requires": [cap_text(c) for c in f.requires]}
                  for f in program.tasks()],
        "tests": [{"name": name, "line": program.functions[i].line}
                  for name, i in program.tests],
    }


def _signature(t):
    return f"{t['name']}(" + ", ".join(
        (f"{p['name']}: {p['type']}" if p["type"] else f"{p['name']}")
        + (" = ..." if p["optional"] else "") for p in t["parameters"]) + ")"


def outline_text(data):
    lines = [_p(data['source'])]
    if data["intent"] is not None:
        lines.append(f"  intent: {_p(data['intent'])}")
    if data["requires"]:
        lines.append(f"  requires: {_p(', '.join(data['requires']))}")
    for t in data["tasks"]:
        req = f"  [requires {_p(', '.join(t['requires']))}]" if t["requires"] else ""
        lines.append(f"  task {_p(_signature(t))}  (line {t['line']}){req}")
    for t in data["tests"]:
        lines.append(f"  test \"{_p(t['name'])}\"  (line {t['line']})")
    return "\n".join(lines)


def manifest(program, size):
    from synsema.vm.codec import FORMAT_VERSION
    data = outline(program)
    return {"format": FORMAT_VERSION, "language": getattr(program, "level", None),
            "source": program.source_name, "intent": program.intent,
            "requires": data["requires"],
            "tasks": [{"name": t["name"], "signature": _signature(t), "requires": t["requires"]}
                      for t in data["tasks"]],
            "tests": [t["name"] for t in data["tests"]],
            "sha256": program.sha256, "size": size}


def manifest_text(m):
    lines = [f"format:   synb {m['format']} (Synsema {_p(m['language'])})",
             f"source:   {_p(m['source'])}",
             f"intent:   {_p(m['intent']) if m['intent'] is not None else '(none)'}",
             f"requires: {_p(', '.join(m['requires'])) or '(nothing beyond stdout)'}",
             "tasks:"]
    for t in m["tasks"]:
        req = f"  [requires {_p(', '.join(t['requires']))}]" if t["requires"] else ""
        lines.append(f"  {_p(t['signature'])}{req}")
    if not m["tasks"]:
        lines.append("  (none)")
    lines.append(f"tests:    {len(m['tests'])}")
    lines.append(f"sha256:   {m['sha256']}")
    lines.append(f"size:     {m['size']} bytes")
    return "\n".join(lines)
