"""What `syn outline` and `syn inspect` show: a program described as data."""

from synsema.vm.program import cap_text


def _params(func):
    from synsema.vm.program import Param
    return [{"name": p.name, "type": p.type, "optional": p.default != Param.NO_DEFAULT}
            for p in func.params]


def _schema(func):
    from synsema.stdlib.llm.convert import input_schema
    entry = {"name": func.name, "params": [p.spec() for p in func.params],
             "optional": [p.name for p in func.params if p.default]}
    schema = input_schema(entry)
    schema["additionalProperties"] = False
    return schema


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
        (f"{p['name']}: {p['type']}" if p["type"] else p["name"]) + (" = ..." if p["optional"] else "")
        for p in t["parameters"]) + ")"


def outline_text(data):
    lines = [f"{data['source']}"]
    if data["intent"] is not None:
        lines.append(f"  intent: {data['intent']}")
    if data["requires"]:
        lines.append(f"  requires: {', '.join(data['requires'])}")
    for t in data["tasks"]:
        req = f"  [requires {', '.join(t['requires'])}]" if t["requires"] else ""
        lines.append(f"  task {_signature(t)}  (line {t['line']}){req}")
    for t in data["tests"]:
        lines.append(f"  test \"{t['name']}\"  (line {t['line']})")
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
    lines = [f"format:   synb {m['format']} (Synsema {m['language']})",
             f"source:   {m['source']}",
             f"intent:   {m['intent'] if m['intent'] is not None else '(none)'}",
             f"requires: {', '.join(m['requires']) or '(nothing beyond stdout)'}",
             "tasks:"]
    for t in m["tasks"]:
        req = f"  [requires {', '.join(t['requires'])}]" if t["requires"] else ""
        lines.append(f"  {t['signature']}{req}")
    if not m["tasks"]:
        lines.append("  (none)")
    lines.append(f"tests:    {len(m['tests'])}")
    lines.append(f"sha256:   {m['sha256']}")
    lines.append(f"size:     {m['size']} bytes")
    return "\n".join(lines)
