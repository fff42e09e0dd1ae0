"""Reporting: gradebook rows, the CSV, feedback files, the class summary, progress.

Turns each graded cell's outcome into a row (points, status, reason and its
notes) and writes what people read: the gradebook, one feedback file per
student, the summary printed at the end and the progress line. It runs
nothing and decides no outcome.
"""

from __future__ import annotations

import collections
import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlib.course import shards
from memlib.course.grading.inert import _feedback_stems, markdown_code, markdown_fence, markdown_text, terminal_line
from memlib.course.lang import MESSAGES, say
from memlib.course.grading.model import (
    CSV_COLUMNS,
    REASON_CHARS,
    Assignment,
    CheckDetail,
    NotebookResult,
    Row,
    _num,
    _one_line,
    _Outcome,
    _safe_filename,
)
from memlib.course.release import GradedCell
from memlib.course.status import ERROR, FAILED, MANUAL, MISSING, PASSED
from memlib.course.grading.quizzes import quiz_row
from memlib.course.written import answer_of, answer_row

if TYPE_CHECKING:
    from memlib.course.checking import Cases


# --------------------------------------------------------------------------- gradebook rows


def _fill_rows(result: NotebookResult, outcomes: dict[str, _Outcome], notes: dict[str, list[str]],
               all_or_nothing: frozenset[str] = frozenset()) -> None:
    for graded in result.assignment.graded:
        outcome = outcomes[graded.grade_id]
        points, reason, message = graded.points if outcome.status == PASSED else 0, outcome.reason, outcome.message
        cases = outcome.cases if outcome.status == FAILED else None
        if cases is not None and not {"all", graded.grade_id} & all_or_nothing:
            points = cases.points(graded.points)
            drawn = f", {cases.fresh_passed}/{cases.fresh_run} drawn" if cases.fresh_run else ""
            label = "partial credit" if points else "no partial credit"
            reason = f"{label}: {cases.passed}/{cases.run} cases right{drawn}: {reason}"
            message = f"{message}\n{partial_line(cases, result.language)}"
        row_notes = notes.get(graded.grade_id, []) + result.notes
        result.rows.append(_row(result, graded, points, outcome.status, _join(reason, row_notes)))
        result.details.append(CheckDetail(graded.grade_id, outcome.status, message, outcome.traceback,
                                          outcome.stdout))


def partial_line(cases: Cases, language: str = "en") -> str:
    """The feedback's line on partial credit, in the submission's language."""
    fresh = (say("fb_partial_fresh", language, passed=cases.fresh_passed, run=cases.fresh_run)
             if cases.fresh_run else "")
    key = "fb_partial" if cases.share() else "fb_partial_shown" if cases.right_only_where_shown else "fb_partial_none"
    return say(key, language, passed=cases.passed, run=cases.run, fresh=fresh, share=cases.share(),
               fresh_passed=cases.fresh_passed, fresh_run=cases.fresh_run)


def _row(result: NotebookResult, graded: GradedCell, points: float, status: str, reason: str) -> Row:
    return Row(result.student, result.assignment.name, graded.grade_id, points, graded.points, status, reason)


def _join(reason: str, notes: list[str]) -> str:
    parts = [reason] if reason else []
    parts += [n if n.startswith("review:") else f"note: {n}" for n in notes]
    return _one_line("; ".join(parts), limit=REASON_CHARS + 200 * len(notes))


def _rows_for_all(result: NotebookResult, status: str, reason: str) -> None:
    for graded in result.assignment.graded:
        result.rows.append(_row(result, graded, 0, status, _join(reason, result.notes)))
        result.details.append(CheckDetail(graded.grade_id, status, reason))
    for written in result.assignment.written:
        result.rows.append(Row(result.student, result.assignment.name, written.grade_id, 0, written.points, status,
                               _join(reason, result.notes)))
        result.details.append(CheckDetail(written.grade_id, status, reason))
    quiz = result.assignment.quiz
    if quiz is not None:
        result.rows.append(Row(result.student, result.assignment.name, quiz.grade_id, 0, quiz.points, status,
                               _join(reason, result.notes)))
        result.details.append(CheckDetail(quiz.grade_id, status, reason))


def _quiz_row(result: NotebookResult, nb: dict) -> None:
    """The quiz's row, when the instructor counts quizzes (`memlib.course.grading.quizzes`)."""
    quiz = result.assignment.quiz
    if quiz is None:
        return
    points, status, reason = quiz_row(nb, quiz)
    result.rows.append(Row(result.student, result.assignment.name, quiz.grade_id, points, quiz.points, status,
                           _join(reason, result.notes)))
    result.details.append(CheckDetail(quiz.grade_id, status, reason))


def _written_rows(result: NotebookResult, nb: dict) -> None:
    """One row per written answer of the notebook: to be scored by a person (`memlib.course.written`)."""
    for written in result.assignment.written:
        released = result.assignment.nb.cells[written.index].get("source", "")
        released = "".join(released) if isinstance(released, list) else str(released)
        status, reason = answer_row(answer_of(nb, written), "\n".join((released, *written.translations)))
        result.rows.append(Row(result.student, result.assignment.name, written.grade_id, 0, written.points, status,
                               _join(reason, result.notes)))
        result.details.append(CheckDetail(written.grade_id, status, reason))


# --------------------------------------------------------------------------- the class


@dataclass
class GradeReport:
    """The result of grading a class: rows, per-notebook details, timing."""

    results: list[NotebookResult]
    assignments: list[Assignment]
    seconds: float = 0.0
    jobs: int = 1
    notebooks_run: int = 0
    shard: shards.Shard | None = None
    not_handed_in: list[str] = field(default_factory=list)  # released, but nobody handed them in
    sandbox: str = ""
    # every student of the class, graded in this shard or not: feedback file names are chosen
    # over all of them, so shards name a student's file alike and their folders merge
    class_students: list[str] = field(default_factory=list)

    @property
    def rows(self) -> list[Row]:
        return [row for result in self.results for row in result.rows]

    @property
    def students(self) -> list[str]:
        return sorted({r.student for r in self.results})

    @property
    def grader_errors(self) -> int:
        return sum(1 for r in self.results if r.grader_error)

    def write_csv(self, path: str | Path) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for row in self.rows:
                writer.writerow(row.as_csv())

    def write_feedback(self, folder: str | Path) -> list[Path]:
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        by_student: dict[str, list[NotebookResult]] = collections.defaultdict(list)
        for result in self.results:
            by_student[result.student].append(result)
        stems = _feedback_stems(set(self.class_students) | set(by_student))
        for student, results in sorted(by_student.items()):
            path = out / f"{stems[student]}.md"
            path.write_text(_feedback_text(student, results), encoding="utf-8")
            written.append(path)
        return written

    def summary(self) -> str:
        return _summary_text(self)

    def __repr__(self) -> str:
        return (
            f"GradeReport(students={len(self.students)}, rows={len(self.rows)}, "
            f"notebooks_run={self.notebooks_run}, seconds={self.seconds:.1f})"
        )


# --------------------------------------------------------------------------- text output


def _feedback_text(student: str, results: list[NotebookResult]) -> str:
    # each assignment in the language it was handed in; the head in English unless all of them agree
    head = results[0].language if len({r.language for r in results}) == 1 else "en"
    lines = [say("fb_title", head, student=markdown_text(student)), ""]
    total = sum(r.points for r in results)
    most = sum(r.assignment.max_points for r in results)
    lines += [say("fb_total", head, got=_num(total), most=_num(most)), ""]
    for result in results:
        code = result.language
        lines.append(say("fb_assignment", code, name=result.assignment.name, got=_num(result.points),
                         most=_num(result.assignment.max_points)))
        lines.append("")
        if result.submitted_as:
            lines.append(say("fb_file", code, file=markdown_code(result.submitted_as)))
        for note in result.notes:
            lines.append(say("fb_note", code, note=markdown_text(note)))
        lines.append("")
        rows = {r.grade_id: r for r in result.rows}
        for detail in result.details:
            row = rows[detail.grade_id]
            status = say(f"status_{detail.status}", code) if f"status_{detail.status}" in MESSAGES else detail.status
            lines.append(say("fb_check", code, grade_id=detail.grade_id, status=status, got=_num(row.points),
                             most=_num(row.max_points)))
            lines.append("")
            if detail.status != PASSED:
                lines += markdown_fence(detail.message or row.reason)
            if detail.traceback:
                lines.append(say("fb_where", code))
                lines += markdown_fence(detail.traceback)
            if detail.stdout.strip():
                lines.append(say("fb_output", code))
                lines += markdown_fence(detail.stdout.strip())
            extra = [n for n in row.reason.split("; ") if n.startswith("note: graded cell")]
            for note in extra:
                lines.append(f"- {markdown_text(note[6:])}")
            lines.append("")
        if result.other_errors:
            lines.append(say("fb_others", code))
            lines += [f"- {markdown_text(e)}" for e in result.other_errors]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _summary_text(report: GradeReport) -> str:
    per_notebook = report.seconds / max(1, report.notebooks_run)
    lines = [
        f"Graded {len(report.students)} student(s): {report.notebooks_run} notebook run(s) in {report.seconds:.1f} s "
        f"with -j {report.jobs} ({per_notebook:.1f} s per notebook)"
        + (f", shard {report.shard}" if report.shard else ""),
        f"Kernels ran in: {report.sandbox or 'no sandbox'}",
        "",
    ]
    if report.not_handed_in:
        lines += [f"Nobody handed in {', '.join(report.not_handed_in)}: no rows in the gradebook "
                  "(--all-assignments grades every released notebook)", ""]
    lines.append("Mean points per check:")
    for assignment in report.assignments:
        for graded in assignment.graded:
            rows = [r for r in report.rows if r.grade_id == graded.grade_id]
            if not rows:
                continue
            mean = sum(r.points for r in rows) / len(rows)
            passed = sum(1 for r in rows if r.status == PASSED)
            lines.append(
                f"  {assignment.name:<28} {graded.grade_id:<24} {mean:6.2f} / {_num(graded.points):<4} "
                f"({passed} of {len(rows)} passed)"
            )
    to_score = sum(1 for r in report.rows if r.status == MANUAL)
    if to_score:
        lines += ["", f"{to_score} written answer(s) to score: python -m memlib grade score GRADEBOOK "
                      "--template scores.csv, then --from scores.csv"]
    problems = [r for r in report.results if r.rows and all(row.status in (ERROR, MISSING) for row in r.rows)]
    if problems:
        lines += ["", "Could not grade:"]
        for result in problems:
            row = result.rows[0]
            lines.append(f"  {result.student:<20} {result.assignment.name:<28} {row.status}: {row.reason}")
    review = [row for result in report.results for row in result.review]
    if review:
        lines += ["", f"Review ({len(review)} check(s) with a note a person should read):"]
        for row in review:
            flags = "; ".join(part for part in row.reason.split("; ") if part.startswith("review:"))
            lines.append(f"  {row.student:<20} {row.grade_id:<24} {_num(row.points)}/{_num(row.max_points)} {flags}")
    if report.grader_errors:
        lines += ["", f"{report.grader_errors} notebook(s) hit a grader error: see the reasons above"]
    # names and reasons are the students' text: one line each, no escape sequence
    return "\n".join(terminal_line(line) for line in lines)


class _Progress:
    """A one-line progress bar on a terminal, one line per notebook otherwise."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, result: NotebookResult) -> None:
        self.show(done, total, f"{result.student} {result.assignment.name} "
                               f"{_num(result.points)}/{_num(result.assignment.max_points)}")

    def show(self, done: int, total: int, status: str) -> None:
        """Draw `done` of `total` with a status (also what `python -m memlib.course.mutation` shows)."""
        width = 30
        filled = int(width * done / max(1, total))
        bar = "#" * filled + "-" * (width - filled)
        elapsed = time.monotonic() - self.started
        line = f"[{bar}] {done}/{total} {elapsed:5.1f}s  {terminal_line(status)}"
        if self.tty:
            end = "\n" if done == total else ""
            self.stream.write("\r" + line[:120].ljust(120) + end)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
