"""Item analysis of a gradebook: how the class did on each check, and why it failed.

``python -m memlib grade items grades.csv [more.csv...] --out items/`` reads
gradebooks written by `python -m memlib grade` (or `grade merge`) and writes

- ``items/items.csv``: one row per check (notebook, grade_id) with the number
  of students, how many passed / failed / could not be graded / handed nothing
  in, the pass rate among the students whose notebook ran, and the most common
  failure reasons with their counts;
- ``items/items.html``: the same as a small page with a plotly bar chart of the
  pass rates (plotly.js is written next to it, so it opens offline).

Failure reasons are grouped with their numbers blanked ("add(2, 3) is -1,
expected 5" and "add(2, 3) is 6, expected 5" are one reason: the same mistake
with different values); each group shows its most frequent exact wording.
Notes the grader adds ("note: graded cell was edited ...") and review flags
("review: ...") are not reasons; the ``review`` column counts the students
whose row carries a review flag, for a person to read in the gradebook, and
the ``copies`` column those among them whose answer matches the published
reference (`memlib.course.grading.copying`, ``grade --solutions``).

This module reads CSV only: no notebook runs, no extra needed.
"""

from __future__ import annotations

import argparse
import collections
import csv
import html
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from memlib.course.grading.inert import csv_text, terminal_line, terminal_text
from memlib.course.status import ERROR, FAILED, LATE, MISSING, PASSED

#: The words of a copy flag (memlib.course.grading.copying.COPY_FLAG; that module needs nbformat, this one not).
COPY_FLAG = "review: matches the published reference"

__all__ = ["Item", "analyse", "read_gradebooks", "write_csv", "write_html", "failure_reason", "main"]

TOP_REASONS = 3
NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")
CSV_COLUMNS = ["notebook", "grade_id", "max_points", "students", PASSED, FAILED, ERROR, MISSING,
               "pass_rate"] + [f"{what}_{n}" for n in range(1, TOP_REASONS + 1) for what in ("reason", "count")] + [
               "review", "copies"]


@dataclass
class Item:
    """One check across the class."""

    notebook: str
    grade_id: str
    max_points: str
    counts: collections.Counter = field(default_factory=collections.Counter)  # status -> students
    reasons: list[tuple[str, int]] = field(default_factory=list)  # (example wording, students), most common first
    review: int = 0  # students whose row carries a review flag
    copies: int = 0  # students whose row carries the flag of a copy of the reference

    @property
    def students(self) -> int:
        return sum(self.counts.values())

    @property
    def ran(self) -> int:
        """Students whose notebook ran this check (passed or failed)."""
        return self.counts[PASSED] + self.counts[FAILED]

    @property
    def pass_rate(self) -> float | None:
        return self.counts[PASSED] / self.ran if self.ran else None


def failure_reason(reason: str) -> str:
    """The reason of a gradebook row without the grader's notes."""
    parts = [part for part in reason.split("; ") if not part.startswith(("note: ", "review: "))]
    return "; ".join(parts).strip()


def read_gradebooks(paths: Iterable[str | Path]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for raw in paths:
        path = Path(raw)
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = {"student", "notebook", "grade_id", "status", "reason", "max_points"} - set(reader.fieldnames or [])
            if missing:
                raise ValueError(f"{path} is not a gradebook: no {', '.join(sorted(missing))} column")
            rows += list(reader)
    return rows


def analyse(rows: Iterable[dict[str, str]]) -> list[Item]:
    """One `Item` per check, in gradebook order (notebook, then the checks' order)."""
    items: dict[tuple[str, str], Item] = {}
    groups: dict[tuple[str, str], dict[str, collections.Counter]] = {}
    for row in rows:
        if row["status"] == LATE:
            continue  # a late penalty row, not a check (memlib.course.grading.latework)
        key = (row["notebook"], row["grade_id"])
        item = items.setdefault(key, Item(row["notebook"], row["grade_id"], row["max_points"]))
        item.counts[row["status"]] += 1
        item.review += "review: " in row["reason"]
        item.copies += COPY_FLAG in row["reason"]
        if row["status"] == FAILED:
            wording = failure_reason(row["reason"]) or "failed (no reason given)"
            by_shape = groups.setdefault(key, {})
            by_shape.setdefault(NUMBER_RE.sub("#", wording), collections.Counter())[wording] += 1
    for key, item in items.items():
        shapes = groups.get(key, {})
        ranked = sorted(shapes.values(), key=lambda words: (-sum(words.values()), words.most_common(1)[0][0]))
        item.reasons = [(words.most_common(1)[0][0], sum(words.values())) for words in ranked]
    return sorted(items.values(), key=lambda item: item.notebook)  # stable: checks keep their order


def _rate(item: Item) -> str:
    return "" if item.pass_rate is None else f"{item.pass_rate:.3f}"


def write_csv(items: list[Item], path: str | Path) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for item in items:
            row = {"notebook": item.notebook, "grade_id": item.grade_id, "max_points": item.max_points,
                   "students": item.students, "pass_rate": _rate(item), "review": item.review,
                   "copies": item.copies,
                   **{status: item.counts[status] for status in (PASSED, FAILED, ERROR, MISSING)}}
            for n, (reason, count) in enumerate(item.reasons[:TOP_REASONS], start=1):
                row[f"reason_{n}"], row[f"count_{n}"] = reason, count
            writer.writerow({column: csv_text(str(value)) for column, value in row.items()})


def figure(items: list[Item]):
    """A plotly bar chart: pass rate per check (among the students whose notebook ran it)."""
    import plotly.graph_objects as go

    labels = [f"{item.grade_id} ({item.notebook.removesuffix('.ipynb')})" for item in items]
    rates = [100 * (item.pass_rate or 0) for item in items]
    hover = [f"{item.counts[PASSED]} of {item.ran} passed; {item.counts[ERROR]} could not be graded, "
             f"{item.counts[MISSING]} handed nothing in" for item in items]
    fig = go.Figure(go.Bar(x=rates, y=labels, orientation="h", hovertext=hover, hoverinfo="text+x",
                           text=[f"{r:.0f} %" for r in rates], textposition="auto"))
    fig.update_layout(title="Pass rate per check", xaxis={"title": "% of students whose notebook ran", "range": [0, 100]},
                      yaxis={"autorange": "reversed"}, height=120 + 40 * len(items), margin={"l": 10, "r": 10})
    return fig


def write_html(items: list[Item], folder: str | Path, title: str = "Item analysis") -> Path:
    """``items.html`` in `folder`, with plotly.js beside it (``plotly.min.js``): no network needed to open it."""
    import plotly.io
    import plotly.offline

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plotly.min.js").write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
    chart = plotly.io.to_html(figure(items), include_plotlyjs="directory", full_html=False)
    rows = []
    for item in items:
        reasons = "".join(f"<li>{html.escape(reason)} <b>({count})</b></li>" for reason, count in item.reasons[:TOP_REASONS])
        rate = "–" if item.pass_rate is None else f"{100 * item.pass_rate:.0f} %"
        copies = f" ({item.copies} copies of the reference)" if item.copies else ""
        rows.append(
            f"<tr><td>{html.escape(item.notebook)}</td><td>{html.escape(item.grade_id)}</td>"
            f"<td>{item.counts[PASSED]} / {item.ran}</td><td>{rate}</td>"
            f"<td>{item.counts[ERROR]}</td><td>{item.counts[MISSING]}</td><td><ul>{reasons}</ul></td>"
            f"<td>{item.review}{copies}</td></tr>"
        )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:70em}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}} ul{{margin:0;padding-left:1.2em}}</style>
</head><body>
<h1>{html.escape(title)}</h1>
<p>Pass rate: among the students whose notebook ran the check. <i>Could not grade</i>: the file was broken
(invalid JSON, two candidates...). <i>Missing</i>: no notebook for that assignment.</p>
{chart}
<table><tr><th>notebook</th><th>check</th><th>passed</th><th>pass rate</th><th>could not grade</th>
<th>missing</th><th>most common failure reasons (students)</th><th>flagged for review</th></tr>
{chr(10).join(rows)}
</table></body></html>
"""
    path = out / "items.html"
    path.write_text(page, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade items``: exit 0 when written, 2 when a gradebook cannot be read."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade items",
        description="Per check: pass rate and most common failure reasons, as items.csv and items.html.",
    )
    parser.add_argument("gradebooks", nargs="+", type=Path, help="gradebook CSVs (from grade or grade merge)")
    parser.add_argument("--out", required=True, type=Path, help="folder for items.csv and items.html")
    args = parser.parse_args(argv)
    try:
        items = analyse(read_gradebooks(args.gradebooks))
        if not items:
            raise ValueError("the gradebook has no rows")
        write_csv(items, args.out / "items.csv")
        write_html(items, args.out)
    except (OSError, ValueError, UnicodeDecodeError, csv.Error) as error:
        print(f"item analysis failed: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    for item in items:
        rate = "  n/a" if item.pass_rate is None else f"{100 * item.pass_rate:4.0f}%"
        top = f"  most common failure: {item.reasons[0][0]} ({item.reasons[0][1]})" if item.reasons else ""
        top += f"  {item.review} flagged for review" if item.review else ""
        top += f" ({item.copies} as copies of the reference)" if item.copies else ""
        print(terminal_line(f"{item.notebook:<28} {item.grade_id:<22} {rate} of {item.ran} passed{top}"))
    print(f"wrote {args.out / 'items.csv'} and {args.out / 'items.html'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
