"""Doc comments: the `--` comment lines right above a top-level `task`, which describe it
(the editor's hover, `syn serve --mcp`'s tool descriptions). A line `NAME: text` of a doc
comment, where NAME is one of the task's parameters, describes that parameter (lines
after it, up to the next such line, continue it); the lines before the first describe
the task:

    -- Look up the weather of a city.
    -- city: the city's name, as the user wrote it
    -- days: how many days ahead (0 is today)
    task forecast(city: text, days: number = 0)
"""

import re

_PARAM_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)\Z")


def doc_comment(lines, line):
    """The `--` comment lines right above line `line` (1-based) of `lines`, without their
    markers, as one text ("" when there are none)."""
    out = []
    i = line - 2
    while lines and 0 <= i < len(lines) and lines[i].strip().startswith("--"):
        out.append(lines[i].strip()[2:].strip())
        i -= 1
    return "\n".join(reversed(out))


def task_doc(lines, line, params):
    """(the task's description, {parameter: its description}) from the doc comment above
    line `line`; `params` are the task's parameter names."""
    description, described, current = [], {}, None
    for text in doc_comment(lines, line).splitlines():
        m = _PARAM_LINE.match(text)
        if m and m.group(1) in params:
            current = described.setdefault(m.group(1), [])
            if m.group(2):
                current.append(m.group(2))
        elif current is not None:
            if text:
                current.append(text)
        else:
            description.append(text)
    return ("\n".join(description).strip(),
            {name: " ".join(parts) for name, parts in described.items() if parts})
