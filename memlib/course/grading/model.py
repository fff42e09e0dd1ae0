"""The grader's shared data: assignments, gradebook rows, results, outcomes.

Every stage of `memlib.course.grading` passes these around; the small text
helpers (numbers, one-line reasons, file names) are here so each stage writes
them the same way. This module reads and runs nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from memlib._util import one_line
from memlib.course.release import GradedCell
from memlib.course.grading.quizzes import QuizItem
from memlib.course.written import WrittenCell
from memlib.course.grading.inert import _safe_filename  # noqa: F401 (the grader's stages import it from here)
from memlib.course.grading.inert import csv_text as _csv_text

if TYPE_CHECKING:
    from memlib.course.checking import Cases

CSV_COLUMNS = ("student", "notebook", "grade_id", "points", "max_points", "status", "reason")

STDOUT_TAIL_CHARS = 2000
REASON_CHARS = 400
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class GradeSetupError(RuntimeError):
    """The grader itself cannot run (bad release folder, missing kernel, no sandbox when one is required, unwritable output)."""


# --------------------------------------------------------------------------- data


@dataclass
class Assignment:
    """One released notebook with graded cells."""

    name: str  # file name in the release, e.g. "03_archival.ipynb"
    nb: nbformat.NotebookNode = field(repr=False)
    graded: list[GradedCell] = field(repr=False)
    written: list[WrittenCell] = field(repr=False, default_factory=list)  # answers a person grades
    quiz: QuizItem | None = field(repr=False, default=None)  # the quiz, when grade --quiz-points counts it

    @property
    def stem(self) -> str:
        return Path(self.name).stem

    @property
    def max_points(self) -> float:
        return (sum(g.points for g in self.graded) + sum(w.points for w in self.written)
                + (self.quiz.points if self.quiz else 0))

    def __repr__(self) -> str:
        ids = ", ".join(g.grade_id for g in self.graded)
        return f"Assignment({self.name!r}, graded=[{ids}], max_points={self.max_points:g})"


@dataclass
class Row:
    """One gradebook line: one student x one graded cell."""

    student: str
    notebook: str
    grade_id: str
    points: float
    max_points: float
    status: str
    reason: str = ""

    def as_csv(self) -> dict[str, str]:
        return {
            "student": _csv_text(self.student),
            "notebook": _csv_text(self.notebook),
            "grade_id": _csv_text(self.grade_id),
            "points": _num(self.points),
            "max_points": _num(self.max_points),
            "status": self.status,
            "reason": _csv_text(self.reason),
        }

    def __repr__(self) -> str:
        return (
            f"Row({self.student!r}, {self.notebook!r}, {self.grade_id!r}, "
            f"{_num(self.points)}/{_num(self.max_points)}, {self.status!r})"
        )


@dataclass
class CheckDetail:
    """What the student sees about one graded cell in their feedback file."""

    grade_id: str
    status: str
    message: str = ""
    traceback: str = ""
    stdout: str = ""


@dataclass
class NotebookResult:
    """Everything about grading one student's copy of one assignment."""

    student: str
    assignment: Assignment
    submitted_as: str = ""  # the file that was graded, relative to the submission
    rows: list[Row] = field(default_factory=list)
    details: list[CheckDetail] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    other_errors: list[str] = field(default_factory=list)  # ungraded cells that raised
    seconds: float = 0.0
    grader_error: bool = False
    language: str = "en"  # the submission's (memlib.course.lang): its feedback is written in it

    @property
    def points(self) -> float:
        return sum(r.points for r in self.rows)

    @property
    def review(self) -> list[Row]:
        return [r for r in self.rows if "review:" in r.reason]

    def __repr__(self) -> str:
        return (
            f"NotebookResult({self.student!r}, {self.assignment.name!r}, "
            f"{_num(self.points)}/{_num(self.assignment.max_points)}, {self.seconds:.1f}s)"
        )


@dataclass
class _Outcome:
    """One graded cell's outcome in one run."""

    status: str  # memlib.course.status: PASSED / FAILED / ERROR
    reason: str = ""
    message: str = ""
    traceback: str = ""
    stdout: str = ""
    references: tuple[str, ...] = ()  # reference code the answer called while the check ran
    cases: Cases | None = None  # a failed check that counted its cases: how many were right (partial credit)


# --------------------------------------------------------------------------- helpers


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text)


def _first_line(source: str) -> str:
    for line in str(source).splitlines():
        if line.strip():
            return line.strip()[:60]
    return ""


def _one_line(text: str, limit: int = REASON_CHARS) -> str:
    return one_line(text, limit)


def _cell_grade_id(cell: dict) -> str | None:
    meta = cell.get("metadata", {}).get("memlib")
    if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
        return meta["grade_id"]
    return None
