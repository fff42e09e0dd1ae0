"""Review: the notes that flag a check whose points may have been tampered with.

A check that passed in the notebook as handed in and not in the clean re-run
(or the other way round), and an exercise or added cell that reaches into the
checking machinery, get a ``review:`` note. These are evidence for a person
to look at; this module changes no points and cannot prove tampering.
"""

from __future__ import annotations

import collections

from memlib.course import tamper
from memlib.course.grading.model import ERROR, PASSED, Assignment, _Outcome


def _review_notes(assignment: Assignment, used: dict[str, list[str]],
                  added: list[tuple[int, str]]) -> dict[str, list[str]]:
    """grade_id -> review notes for exercise and added cells that reach into the checking machinery."""
    exercise_at = {key: index for index, key in tamper.release_exercises(assignment.nb).items()}
    notes: dict[str, list[str]] = collections.defaultdict(list)
    modules = tamper.check_modules(g.source for g in assignment.graded)
    suspects = [(exercise_at.get(key, -1), f"the cell of exercise {key}", sources) for key, sources in used.items()]
    suspects += [(anchor, "a cell the student added", [source]) for anchor, source in added]
    for at, which, sources in suspects:
        labels: list[str] = []
        for source in sources:
            labels += [label for label in tamper.reaches_in(source, modules) if label not in labels]
        if not labels:
            continue
        # a patch can fool any check that runs after it
        for graded in [g for g in assignment.graded if g.index > at] or assignment.graded[-1:]:
            note = f"review: {which} reaches into the checking machinery ({', '.join(labels)})"
            if note not in notes[graded.grade_id]:
                notes[graded.grade_id].append(note)
    return notes


def _rerun_notes(assignment: Assignment, full: dict[str, _Outcome], clean: dict[str, _Outcome],
                 missing: list[str]) -> dict[str, list[str]]:
    """grade_id -> a review note for each check that passed in one run and failed in the other."""
    notes: dict[str, list[str]] = {}
    for graded in assignment.graded:
        mine, theirs = full[graded.grade_id], clean[graded.grade_id]
        if (mine.status == PASSED) != (theirs.status == PASSED) and ERROR not in (mine.status, theirs.status):
            handed_in = "passed" if mine.status == PASSED else f"failed ({mine.reason})"
            lost = f"; exercise(s) {', '.join(missing)} not found in the notebook" if missing else ""
            notes.setdefault(graded.grade_id, []).append(
                f"review: as handed in this check {handed_in}; with only the exercise and added cells "
                f"in the release it {'passed' if theirs.status == PASSED else 'failed'}{lost}"
            )
    return notes
