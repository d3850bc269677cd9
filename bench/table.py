"""The Markdown table of bench/README.md ("Figures: the last full run") from
bench/results.json, which `pytest bench/ --benchmark-only` writes after a full run.

    .venv/bin/python bench/table.py            # print it
    .venv/bin/python bench/table.py --write    # replace the table in bench/README.md
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _figure(row):
    v, unit = row["value"], row["unit"]
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "lines/s":
        return f"{v:,.0f} lines/s"
    return f"{v:.2f} {unit}"


def table(results):
    out = ["| benchmark | figure | target | met |", "|---|---|---|---|"]
    for row in results["rows"]:
        met = "-" if row["ok"] is None else ("yes" if row["ok"] else "**no**")
        out.append(f"| {row['name']} | {_figure(row)} | {row['target'] or '-'} | {met} |")
    return "\n".join(out) + "\n"


def heading(results):
    load = results["load_average_at_end"][0]
    return (f"## Figures: the last full run ({results['date'][:10]}, Python "
            f"{results['python'].split()[0]}, {results['cpus']} CPUs, load average "
            f"{load:.2f} at the end)")


def main(argv):
    with open(os.path.join(HERE, "results.json")) as fh:
        results = json.load(fh)
    if not results.get("complete"):
        sys.exit("bench/results.json is not from a full run")
    if "--write" not in argv:
        sys.stdout.write(heading(results) + "\n\n" + table(results))
        return
    path = os.path.join(HERE, "README.md")
    with open(path) as fh:
        text = fh.read()
    text = re.sub(r"^## Figures: the last full run.*$", heading(results), text, count=1,
                  flags=re.M)
    text = re.sub(r"^\| benchmark \| figure \| target \| met \|\n(?:\|.*\n)+", table(results),
                  text, count=1, flags=re.M)
    with open(path, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
