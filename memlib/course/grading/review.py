"""Review: the notes a person should read beside a graded cell's points.

Two kinds, both from what the grader itself saw: the repairs of the graded
cells (edited, deleted or duplicated: restored from the release), and calls
from the answer into a reference implementation or into a check module's own
code, which the student's kernel noticed while the check called the answer.
The second is evidence, not proof: it is noticed inside the kernel, which the
student controls. This module changes no points.
"""

from __future__ import annotations

from memlib.course.grading.model import Assignment, _Outcome
from memlib.course.watch import UNWATCHED_THREAD


def review_notes(assignment: Assignment, repairs: dict[str, list[str]],
                 outcomes: dict[str, _Outcome]) -> dict[str, list[str]]:
    """grade_id -> the notes for its gradebook row."""
    notes = {grade_id: list(found) for grade_id, found in repairs.items()}
    for graded in assignment.graded:
        outcome = outcomes.get(graded.grade_id)
        if outcome is None:
            continue
        names = ", ".join(name for name in outcome.references if name != UNWATCHED_THREAD)
        if names:
            notes.setdefault(graded.grade_id, []).append(
                f"review: the answer calls memlib's reference implementation: {names}")
        if UNWATCHED_THREAD in outcome.references:
            notes.setdefault(graded.grade_id, []).append(
                "review: a thread the notebook started was running while the check called the answer; "
                "the kernel's watch does not see calls made there")
    return notes
