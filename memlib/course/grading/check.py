"""Checking: every graded cell's check, run in a checker process against the answer in the kernel.

The rebuilt notebook runs in the student's kernel up to each graded cell.
There the grader does not run the cell: `memlib.course.checker` reads the
release's copy of it (``from <module> import <check>`` then
``<check>(<answer>)``), starts a checker process that imports the check, and
lets the check call the answer in the kernel through plain data. The cell's
outcome is what the checker says; the kernel's own output for the cell is
only the answer's. Points never depend on anything the kernel can change
about the check, because the check is not there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from memlib.course import checker
from memlib.course.exercise import exercises
from memlib.course.grading.model import Assignment, _cell_grade_id
from memlib.course.kernel_run import CellRun, Execute
from memlib.course.lang import LANGUAGES, notebook_language
from memlib.course.status import cell_status

@dataclass
class CheckedCell(CellRun):
    """A graded cell the checker stood in for: how the kernel fared, and the checker's verdict as it said it."""

    check: checker.CheckOutcome | None = None


def graded_calls(assignment: Assignment) -> dict[str, checker.GradedCall]:
    """grade_id -> the check and answer of each graded cell (ValueError names a cell of another shape)."""
    calls = {}
    for graded in assignment.graded:
        try:
            calls[graded.grade_id] = checker.graded_call(graded.source)
        except ValueError as error:
            raise ValueError(f"{assignment.name}, graded cell {graded.grade_id!r}: {error}") from None
    return calls


def stand_ins(nb: dict, assignment: Assignment, support: list[Path], scratch: Path,
              cell_timeout: float, private_cases: Path | None = None) -> dict[int, Callable[[Execute], CellRun]]:
    """cell index -> what the grader does in place of that graded cell of `nb` (for `kernel_run.run_notebook`)."""
    calls = graded_calls(assignment)
    language = submission_language(nb)
    found: dict[int, Callable[[Execute], CellRun]] = {}
    for index, cell in enumerate(nb.get("cells", [])):
        grade_id = _cell_grade_id(cell)
        if grade_id in calls:
            seconds = max(cell_timeout, _check_minimums().get(grade_id, 0.0))
            found[index] = _stand_in(index, calls[grade_id], support, scratch / f"check-{index}", seconds, language,
                                     private_cases)
    return found


@functools.cache
def _check_minimums() -> dict[str, float]:
    """grade_id -> the least time its check gets (`Exercise.check_seconds`), for the checks that ask for one."""
    return {grade_id: record.check_seconds for grade_id, record in exercises().items() if record.check_seconds}


def submission_language(nb: dict) -> str:
    """The language a submission declares, English when it declares one the course does not speak.

    A student can edit their notebook's metadata; that must not stop the grader,
    and English is what every check's message exists in.
    """
    try:
        return notebook_language(nb)
    except ValueError:
        return LANGUAGES[0]


def _stand_in(index: int, call: checker.GradedCall, support: list[Path], scratch: Path,
              seconds: float, language: str, private_cases: Path | None) -> Callable[[Execute], CellRun]:
    def check(execute: Execute) -> CellRun:
        outcome = checker.run_check(call, execute, support=support, scratch=scratch, seconds=seconds,
                                    language=language, private_cases=private_cases)
        return cell_run(index, outcome)

    return check


def cell_run(index: int, outcome: checker.CheckOutcome) -> CheckedCell:
    """The graded cell's run: the kernel's status (it stops the notebook after a death), the verdict attached."""
    status = cell_status(outcome.status)
    # a timeout's traceback says where the answer was when it was stopped
    return CheckedCell(index, status, stdout=outcome.output, traceback=list(outcome.traceback), check=outcome)
