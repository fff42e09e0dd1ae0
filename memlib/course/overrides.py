"""Overrides: an instructor's points for one gradebook row, with a reason, kept in an audit file.

``python -m memlib grade override GRADEBOOK --student NAME --grade-id ID --points P --reason TEXT [--by WHO]``
appends one line to ``<gradebook>.overrides.csv`` next to the gradebook (``grades.csv`` ->
``grades.overrides.csv``): when, student, notebook, grade_id, points, the points the grader
gave, reason, by. Nothing is ever removed from that file; for a row overridden twice the
later line counts, and an override back to the grader's points is one more line.

The gradebook itself stays the grader's: a regrade rewrites it and leaves the audit file
alone, so an override survives any number of regrades. Every export (`memlib.course.export`:
Canvas, Moodle, csv-wide) reads the gradebook through `apply`, so all of them show the
overridden points. An override whose row a regrade no longer has (another release, a grade
id renamed) is not applied and the export says so.

This module reads and writes CSV only; it grades nothing.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from memlib.course.grading.inert import csv_text, terminal_text

__all__ = ["Override", "OverrideError", "COLUMNS", "audit_path", "unquoted", "read_overrides", "record", "apply", "main"]

COLUMNS = ("when", "student", "notebook", "grade_id", "points", "graded_points", "reason", "by")


class OverrideError(ValueError):
    """An override that cannot be recorded or an audit file that cannot be read (the message says why)."""


@dataclass(frozen=True)
class Override:
    """One line of the audit file."""

    when: str
    student: str
    notebook: str
    grade_id: str
    points: float
    graded_points: float
    reason: str
    by: str

    def note(self) -> str:
        """What the row's reason says about it."""
        return (f"override: {_num(self.points)} points (graded {_num(self.graded_points)}) by {self.by} "
                f"on {self.when[:10]}: {self.reason}")

    def __repr__(self) -> str:
        return f"Override({self.student!r}, {self.grade_id!r}, {_num(self.points)}, by={self.by!r})"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def audit_path(gradebook: str | Path) -> Path:
    """Where the overrides of `gradebook` are kept: ``grades.csv`` -> ``grades.overrides.csv``."""
    path = Path(gradebook)
    return path.with_name(f"{path.stem}.overrides.csv")


def unquoted(text: str) -> str:
    """Undo the gradebook's quoting of formula-like text, so names match what the grader wrote."""
    return text[1:] if text.startswith("'") and text[1:2] in ("=", "+", "-", "@") else text


def read_overrides(gradebook: str | Path) -> list[Override]:
    """Every override of `gradebook`, oldest first ([] when it has none)."""
    path = audit_path(gradebook)
    if not path.exists():
        return []
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise OverrideError(f"{path}: columns {reader.fieldnames} are not {list(COLUMNS)}: "
                                    "not an audit file written by `grade override`")
            lines = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise OverrideError(f"{path} cannot be read ({error})") from None
    found = []
    for number, line in enumerate(lines, start=2):
        try:
            points, graded = float(line["points"]), float(line["graded_points"])
        except (TypeError, ValueError):
            raise OverrideError(f"{path} line {number}: points {line['points']!r} is not a number") from None
        found.append(Override(line["when"], unquoted(line["student"]), unquoted(line["notebook"]),
                              unquoted(line["grade_id"]), points, graded, unquoted(line["reason"]), unquoted(line["by"])))
    return found


def _gradebook_rows(gradebook: Path) -> list[dict[str, str]]:
    try:
        with gradebook.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise OverrideError(f"gradebook {gradebook} cannot be read ({error})") from None
    if not {"student", "grade_id", "points", "max_points"} <= set(reader.fieldnames or ()):
        raise OverrideError(f"{gradebook} is not a gradebook written by `python -m memlib grade`")
    return rows


def record(gradebook: str | Path, student: str, grade_id: str, points: float, reason: str, by: str,
           when: datetime | None = None, notebook: str = "") -> Override:
    """Append an override of `student`'s row `grade_id` in `gradebook` to its audit file; the Override.

    Raises `OverrideError`, writing nothing, when the row is not in the gradebook,
    the points are not between 0 and the row's maximum, or the reason is empty. A grade id that more
    than one notebook has (``late-penalty``) needs `notebook`.
    """
    book = Path(gradebook)
    if not reason.strip():
        raise OverrideError("give a --reason: the audit file says why every override was made")
    if not by.strip():
        raise OverrideError("give --by: the audit file says who made every override")
    rows = _gradebook_rows(book)
    matching = [r for r in rows if unquoted(r["student"]) == student and unquoted(r["grade_id"]) == grade_id]
    if not matching:
        known = sorted({unquoted(r["grade_id"]) for r in rows if unquoted(r["student"]) == student})
        if known:
            raise OverrideError(f"{student!r} has no row {grade_id!r} in {book}; their rows are {', '.join(known)}")
        raise OverrideError(f"no student {student!r} in {book}: use the name in its student column")
    if notebook:
        matching = [r for r in matching if unquoted(r["notebook"]) in (notebook, f"{notebook}.ipynb")
                    or unquoted(r["notebook"]).startswith(f"{notebook}_")]
        if not matching:
            raise OverrideError(f"{student!r} has no row {grade_id!r} for notebook {notebook!r} in {book}")
    if len(matching) > 1:
        names = ", ".join(unquoted(r["notebook"]) for r in matching)
        raise OverrideError(f"{student!r} has a row {grade_id!r} in {len(matching)} notebooks ({names}): "
                            "name one with --notebook")
    row = matching[0]
    most = float(row["max_points"])
    if not 0 <= points <= most:
        raise OverrideError(f"points {_num(points)} are not between 0 and {_num(most)}, the most {grade_id} is worth")
    stamp = (when or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    override = Override(stamp, student, unquoted(row["notebook"]), grade_id, points, float(row["points"]),
                        " ".join(reason.split()), " ".join(by.split()))
    path = audit_path(book)
    new = not path.exists()
    if not new:
        read_overrides(book)  # refuse to append to a file that is not an audit file
    with path.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if new:
            writer.writerow(COLUMNS)
        writer.writerow([override.when, csv_text(override.student), csv_text(override.notebook),
                         csv_text(override.grade_id), _num(override.points), _num(override.graded_points),
                         csv_text(override.reason), csv_text(override.by)])
    return override


def apply(rows: list[dict[str, str]], overrides: list[Override]) -> tuple[list[dict[str, str]], list[Override]]:
    """`rows` (gradebook rows as read) with the overrides' points and notes; and the overrides no row matched.

    The latest override of a row counts. Points stay within the row's maximum:
    an override above a row's maximum after a regrade is not applied.
    """
    latest: dict[tuple[str, str, str], Override] = {}
    for override in overrides:
        latest[(override.student, override.notebook, override.grade_id)] = override
    used: set[tuple[str, str, str]] = set()
    applied = []
    for row in rows:
        key = (unquoted(row["student"]), unquoted(row.get("notebook", "")), unquoted(row["grade_id"]))
        wanted = latest.get(key)
        if wanted is not None and not scores_this_answer(wanted, row):
            used.add(key)
            row = {**row, "reason": f"written answer changed since it was scored: score it again; {row['reason']}"}
        elif wanted is not None and wanted.points <= float(row["max_points"]):
            used.add(key)
            reason = "; ".join(part for part in (wanted.note(), row.get("reason", "")) if part)
            row = {**row, "points": _num(wanted.points), "reason": reason}
        applied.append(row)
    return applied, [o for key, o in latest.items() if key not in used]


#: How a written answer's score names the answer it scored (memlib.course.written.score): a regrade of a
#: changed answer must not carry the old score over.
_ANSWER_MARK = re.compile(r"\[answer ([0-9a-f]{12})\]$")


def answer_mark(row: dict[str, str]) -> str:
    """The mark of the written answer a gradebook row shows (a hash of its text), for a score's reason."""
    answer = unquoted(row.get("reason", "")).partition("(grade score): ")[2]
    return f"[answer {hashlib.sha256(answer.encode('utf-8')).hexdigest()[:12]}]"


def scores_this_answer(override: Override, row: dict[str, str]) -> bool:
    """False when `override` scored a written answer and `row` now shows another one."""
    return not _ANSWER_MARK.search(override.reason) or override.reason.endswith(answer_mark(row))


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade override``: 0 recorded, 2 nothing recorded (one line on stderr says why)."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade override",
        description="Record an instructor's points for one gradebook row, with a reason, in the audit file "
                    "next to the gradebook (GRADEBOOK.overrides.csv). Every export applies it; regrades keep it.",
    )
    parser.add_argument("gradebook", type=Path, help="the gradebook CSV (from grade or grade merge)")
    parser.add_argument("--student", required=True, help="the student, as the gradebook's student column names them")
    parser.add_argument("--grade-id", required=True, help="the graded cell, e.g. 03-bm25")
    parser.add_argument("--notebook", default="", help="the notebook (e.g. 03 or 03_archival_bm25), when the "
                        "student has the grade id in several (late-penalty)")
    parser.add_argument("--points", required=True, type=float, help="the points the row gets")
    parser.add_argument("--reason", required=True, help="why (kept in the audit file and shown in every export)")
    parser.add_argument("--by", default="instructor", help="who made the override (default: instructor)")
    args = parser.parse_args(argv)
    try:
        override = record(args.gradebook, args.student, args.grade_id, args.points, args.reason, args.by,
                          notebook=args.notebook)
    except OverrideError as error:
        print(f"override not recorded: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    print(terminal_text(f"recorded in {audit_path(args.gradebook)}: {override.student} {override.grade_id} "
                        f"{_num(override.graded_points)} -> {_num(override.points)} ({override.reason})"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
