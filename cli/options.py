"""The run options of `syn run`, `syn exec` and `syn test`, defined once: the click
commands and the fast `syn exec` path (cli.entry) are both built from these tables."""

import os
import stat

from synsema.runtime import MAX_DEPTH

# (flag, dest, kind, default, help); kind: flag | text | multi (repeatable text) | int (>= 1) |
# int:MOST (1 to MOST) | count (>= 0) | number (seconds, see convert) | choice:a|b
RUN_OPTIONS = [
    ("--labels", "labels", "flag", False,
     "Track information-flow labels: private data may not reach stdout, the network or an "
     "unapproved model (SPEC section 10)."),
    ("--cap-set", "cap_set", "text", None,
     "The host ceiling, a comma list: stdout, stdout=LABEL, llm, llm@HOST, llm=LABEL@HOST, "
     "net=HOST, net=*.DOMAIN, net=LABEL@HOST, tool=NAME, tool=PREFIX.*, declassify=LABEL, "
     "or *. Without it: what the program declares, plus "
     "stdout and declassify (developer mode)."),
    ("--audit", "audit", "text", None,
     "Append one JSON line per declassification, capability use and label violation to "
     "this file."),
    ("--max-steps", "max_steps", "int", None,
     "Stop after about this many instructions (exit 4)."),
    ("--timeout", "timeout", "number", None,
     "Stop after this many seconds (exit 4); model calls wait no longer than what is left."),
    ("--max-requests", "max_requests", "int", None,
     "Allow at most this many model requests; the next one stops the run (exit 4)."),
    ("--max-tokens", "max_tokens", "int", None,
     "Stop once the run's model calls have taken more than this many tokens (exit 4)."),
    ("--max-depth", "max_depth", f"int:{MAX_DEPTH}", 1000,
     f"Maximum call depth, at most {MAX_DEPTH} (exit 4 beyond it)."),
    ("--llm-url", "llm_url", "text", None,
     "Model provider base URL (else SYN_LLM_URL); offline when none is configured."),
    ("--llm-api", "llm_api", "choice:openai|anthropic", None,
     "Provider wire format (else SYN_LLM_API; inferred from the URL)."),
    ("--llm-model", "llm_model", "text", None, "Model name (else SYN_LLM_MODEL)."),
    ("--llm-timeout", "llm_timeout", "number", None,
     "Seconds to wait for one model request (else SYN_LLM_TIMEOUT; default 60)."),
    ("--llm-max-retries", "llm_max_retries", "count", None,
     "Retries of a failed model request (else SYN_LLM_MAX_RETRIES; default 2)."),
    ("--cassette", "cassette", "text", None,
     "Record model exchanges to / replay them from this JSON-lines file "
     "(else SYN_LLM_CASSETTE)."),
    ("--cassette-mode", "cassette_mode", "choice:record|replay|auto", None,
     "record, replay (no network) or auto (replay what the tape has, record the rest)."),
    ("--trace", "trace", "flag", False,
     "Print each model decision, tool call and result to stderr."),
    ("--tools", "tools", "multi", (),
     "Host tools for the run: MODULE:NAME, a function decorated with @synsema.tool, a list "
     "of them or a synsema.Toolbox (the working directory is on the import path). "
     "Repeatable."),
    ("--mcp", "mcp", "multi", (),
     "An MCP server whose tools become host tools NAME.TOOL: NAME=COMMAND (stdio; the "
     "command line is shell-split) or NAME=URL (streamable HTTP). Repeatable; see "
     "docs/mcp.md."),
    ("--mcp-label", "mcp_label", "multi", (),
     "NAME=LABEL,...: the labels on MCP server NAME's results instead of the default "
     "mcp.NAME (NAME= for none: a server you trust). Repeatable."),
    ("--mcp-accepts", "mcp_accepts", "multi", (),
     "NAME.TOOL:PARAM=LABEL,...: labels that parameter of an MCP tool may carry (TOOL or "
     "PARAM may be *); by default none. Repeatable."),
    ("--mcp-timeout", "mcp_timeout", "number", None,
     "Seconds an MCP server may take to start and to answer each call (default 30)."),
]

# The entry point options of `syn run` and `syn exec` (SPEC 14).
ENTRY_OPTIONS = [
    ("--call", "call", "text", None,
     "After the top level, call this task and write its result as one line of JSON."),
    ("--args", "args", "text", None,
     "The task's named arguments as a JSON object (checked as call_tool checks them)."),
    ("--args-file", "args_file", "text", None, "Read the --args JSON object from this file."),
    ("--args-label", "args_label", "multi", (),
     "With --labels: label every argument with this label. Repeatable."),
]


def parse_fast(args):
    """Parse `syn exec`'s options + one path without click; None when anything is unusual
    (help, an unknown option, a bad value), so the caller falls back to click, which
    gives the proper message."""
    table = RUN_OPTIONS + ENTRY_OPTIONS
    by_flag = {flag: (dest, kind) for flag, dest, kind, _, _ in table}
    values = {dest: default for _, dest, _, default, _ in table}
    paths = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--"):
            flag, eq, inline = a.partition("=")
            if flag not in by_flag:
                return None
            dest, kind = by_flag[flag]
            if kind == "flag":
                if eq:
                    return None
                values[dest] = True
                i += 1
                continue
            if eq:
                raw = inline
            else:
                if i + 1 >= len(args):
                    return None
                raw = args[i + 1]
                i += 1
            i += 1
            if kind == "multi":
                values[dest] += (raw,)
                continue
            try:
                values[dest] = convert(kind, raw)
            except ValueError:
                return None
        elif a.startswith("-") and a != "-":
            return None
        else:
            paths.append(a)
            i += 1
    if len(paths) != 1 or _path_refused_by_click(paths[0]):
        return None
    return paths[0], values


def _path_refused_by_click(path):
    """Whether click.Path(dir_okay=False), the PROGRAM argument of `syn exec`, refuses
    `path` (a folder, a file it may not read): then click says so, in its words."""
    try:
        st = os.stat(path)
    except OSError:
        return False        # click takes a path that is not there; the loader says why
    except ValueError:
        return True         # a NUL in the path: whatever click does with it
    return stat.S_ISDIR(st.st_mode) or not os.access(path, os.R_OK)


# The longest limit a number option takes: "inf", "nan" or 1e300 are refused rather than
# read as "no limit" (leave the option out for that).
MAX_SECONDS = 30 * 24 * 3600


def convert(kind, raw):
    """The value of an option of `kind`; ValueError with the reason when it is not one."""
    base, _, most = kind.partition(":")
    if base in ("int", "count"):
        least = 1 if base == "int" else 0
        try:
            v = int(raw)
        except ValueError:
            raise ValueError(f"{raw!r} is not a whole number") from None
        if v < least:
            raise ValueError(f"{raw!r} is below {least}")
        if most and v > int(most):
            raise ValueError(f"{raw!r} is above {most}, the most it may be")
        return v
    if kind == "number":
        try:
            v = float(raw)
        except ValueError:
            raise ValueError(f"{raw!r} is not a number of seconds") from None
        if not 0 < v <= MAX_SECONDS:        # also false for nan
            raise ValueError(f"{raw!r} is not a number of seconds above 0 and at most "
                             f"{MAX_SECONDS} (30 days); leave the option out for no limit")
        return v
    if kind.startswith("choice:"):
        if raw not in kind[7:].split("|"):
            raise ValueError(raw)
    return raw
