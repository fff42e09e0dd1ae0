"""Late work in the gradebook: each notebook's lateness noted, and a penalty row for a late one.

The due dates and the policy are `memlib.course.late`'s. A late notebook keeps its checks'
rows as they were graded and gets one more row, grade id ``late-penalty``, status
``late``, worth 0 and holding minus the points the penalty takes. So every tool that sums
a student's rows (the exports, the feedback's totals) shows the penalised points, the checks'
own figures stay true for item analysis, and an instructor waives a penalty with
``grade override … --grade-id late-penalty --points 0``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from memlib.course import late
from memlib.course.grading.collect import _Job
from memlib.course.grading.model import Assignment, NotebookResult, Row, _num
from memlib.course.status import LATE

PENALTY_ID = "late-penalty"


def due_for(assignment: Assignment, dates: dict[str, datetime]) -> datetime | None:
    """The due date of `assignment`: a key equal to its name or stem, or a prefix of its stem (``03``)."""
    for key, due in dates.items():
        wanted = key.lower()
        if wanted in (assignment.name.lower(), assignment.stem.lower()) or assignment.stem.lower().startswith(wanted):
            return due
    return None


def assess_jobs(jobs: list[_Job], assignments: list[Assignment], dates: dict[str, datetime],
                policy: late.LatePolicy, warn: Callable[[str], None]) -> None:
    """Note each handed-in notebook's lateness on its job (and so in every row and the feedback).

    `assignments` are the whole release's (a due date of a notebook not graded in this run is not unused)."""
    unused = [key for key in dates if not any(due_for(a, {key: dates[key]}) for a in assignments)]
    if unused:
        warn(f"warning: due dates for {', '.join(unused)} match no graded notebook of the release; not used")
    for job in jobs:
        due = due_for(job.assignment, dates)
        if due is None or job.chosen is None or not job.readable:
            continue
        job.lateness = late.assess(due, policy, zip_time=job.chosen.zip_time, lms_late=job.chosen.lms_late)
        job.notes.append(job.lateness.note())


def penalise(result: NotebookResult, lateness: late.Lateness | None) -> None:
    """Add the penalty row to a late notebook's result."""
    if lateness is None or not lateness.late or not lateness.penalty:
        return
    taken = round(result.points * lateness.penalty / 100, 4)
    result.rows.append(Row(result.student, result.assignment.name, PENALTY_ID, -taken, 0, LATE,
                           f"{lateness.note()}: {_num(taken)} of {_num(result.points)} points taken"))
