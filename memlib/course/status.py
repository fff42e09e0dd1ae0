"""How a cell, a check and a gradebook row can end: one vocabulary, written once.

Three things have a status, and they share these words:

- a cell the grader ran in the kernel (`memlib.course.kernel_run`): OK, ERROR, TIMEOUT, DIED,
  NOTEBOOK_TIMEOUT, NOT_RUN, SKIPPED;
- a check's outcome (`memlib.course.checker.CheckOutcome`): PASSED, FAILED, ERROR, TIMEOUT, DIED,
  NOTEBOOK_TIMEOUT;
- a gradebook row (`memlib.course.grading.model`): PASSED, FAILED, ERROR, MISSING, and the LMS
  exports' LATE (a penalty row) and MANUAL (a written answer to score).

A word means the same wherever it appears, with one difference of level: a check's or a row's
ERROR means nothing could be judged (never a wrong answer: that is FAILED), while a cell's ERROR is
a cell that raised, and a failed check raises in the student's kernel, so its cell is ERROR too
(`cell_status`).
"""

from __future__ import annotations

PASSED = "passed"  # the check accepted the answer
FAILED = "failed"  # the check rejected it (a wrong answer, an unsolved stub)
ERROR = "error"  # nothing could be judged: the cell raised, or the grader itself failed
MISSING = "missing"  # the graded cell or its notebook is not in the submission
TIMEOUT = "timeout"  # the cell's (or the check's) time ran out
DIED = "died"  # the kernel died
NOTEBOOK_TIMEOUT = "notebook-timeout"  # the notebook's own time limit ran out during the cell
OK = "ok"  # a cell that is not a check ran to its end
NOT_RUN = "not-run"  # a cell never reached (the kernel died or time ran out before it)
SKIPPED = "skipped"  # a cell the grader chose not to run
LATE = "late"  # a gradebook row that carries a late penalty
MANUAL = "manual"  # a gradebook row for a written answer the instructor scores

#: How a kernel run ended without an answer: a check's outcome keeps the cell's word for it.
LOST = (TIMEOUT, DIED, NOTEBOOK_TIMEOUT)
CELL = (OK, ERROR, TIMEOUT, DIED, NOTEBOOK_TIMEOUT, NOT_RUN, SKIPPED)
CHECK = (PASSED, FAILED, ERROR, TIMEOUT, DIED, NOTEBOOK_TIMEOUT)
ROW = (PASSED, FAILED, ERROR, MISSING, LATE, MANUAL)
#: A check that judged the answer (either way), or tried to and could not.
JUDGED = (PASSED, FAILED, ERROR)


def cell_status(check: str) -> str:
    """The status of the graded cell whose check ended with `check`: a judged answer is a cell that ran."""
    if check not in CHECK:
        raise ValueError(f"not a check's status: {check!r} (one of {', '.join(CHECK)})")
    if check == PASSED:
        return OK
    return check if check in LOST else ERROR
