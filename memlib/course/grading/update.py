"""Updating: a regrade of some students or notebooks written into the gradebook and feedback already there.

``grade ... --student NAME --assignment 03 --update`` runs only those notebooks; this stage
replaces exactly their rows in the existing gradebook (every other row stays as it was,
in its place) and their sections in the students' feedback files (the other notebooks'
sections stay, the total is counted again from the gradebook). The instructor's overrides
live in their own audit file (`memlib.course.overrides`) and are not touched.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from memlib.course.grading.inert import csv_text
from memlib.course.grading.model import CSV_COLUMNS, GradeSetupError, _num
from memlib.course.grading.report import GradeReport, _feedback_stems, _feedback_text

_FENCE_RE = re.compile(r"^`{3,}$")
_TOTAL_RE = re.compile(r"^Total: .* points$")


def read_gradebook_rows(path: Path) -> list[dict[str, str]]:
    """The rows of an existing gradebook, as written; GradeSetupError when it is not one."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
    except FileNotFoundError:
        raise GradeSetupError(f"--update: {path} does not exist; grade the class once without --update") from None
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise GradeSetupError(f"--update: {path} cannot be read ({error})") from None
    if tuple(reader.fieldnames or ()) != CSV_COLUMNS:
        raise GradeSetupError(f"--update: {path} is not a gradebook written by `python -m memlib grade`")
    return rows


def updated_rows(existing: list[dict[str, str]], report: GradeReport) -> list[dict[str, str]]:
    """`existing` with the rows of every (student, notebook) graded in `report` replaced by the new ones."""
    new: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in report.rows:
        line = row.as_csv()
        new.setdefault((line["student"], line["notebook"]), []).append(line)
    out: list[dict[str, str]] = []
    placed: set[tuple[str, str]] = set()
    for line in existing:
        key = (line["student"], line["notebook"])
        if key not in new:
            out.append(line)
        elif key not in placed:
            out.extend(new[key])
            placed.add(key)
    for key, lines in new.items():  # a notebook the gradebook did not have yet
        if key not in placed:
            out.extend(lines)
    return out


def write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def _sections(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """A feedback file's head (title and total) and its notebook sections by notebook name, in order.

    A line is a section heading only outside a code fence: printed output inside a
    fence may look like anything (`memlib.course.grading.inert.markdown_fence`).
    """
    head: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] = head
    fence = ""
    for line in text.splitlines():
        if fence:
            fence = "" if line == fence else fence
        elif _FENCE_RE.match(line):
            fence = line
        elif line.startswith("## "):
            current = sections.setdefault(line[3:].split(": ", 1)[0], [])
        current.append(line)
    return head, sections


def update_feedback(folder: Path, report: GradeReport, rows: list[dict[str, str]]) -> list[Path]:
    """Rewrite the feedback file of each student in `report`: their regraded notebooks' sections replaced."""
    folder.mkdir(parents=True, exist_ok=True)
    stems = _feedback_stems(set(report.class_students) | set(report.students))
    written = []
    for student in report.students:
        path = folder / f"{stems[student]}.md"
        fresh_head, fresh = _sections(_feedback_text(student, [r for r in report.results if r.student == student]))
        old_head, sections = _sections(path.read_text(encoding="utf-8")) if path.exists() else ([], {})
        sections.update(fresh)
        mine = [r for r in rows if r["student"] == csv_text(student)]
        total = sum(float(r["points"]) for r in mine)
        most = sum(float(r["max_points"]) for r in mine)
        head = [f"Total: {_num(total)} / {_num(most)} points" if _TOTAL_RE.match(line) else line
                for line in (old_head or fresh_head)]
        lines = head + [line for section in sections.values() for line in section]
        path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
        written.append(path)
    return written
