"""memlib.course.status: one vocabulary for how a cell, a check and a gradebook row end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import memlib
from memlib.course import kernel_run, status
from memlib.course.checker import CheckOutcome

#: Words that only ever name a status: anywhere else in memlib they would be a second spelling of it.
STATUS_ONLY = {status.PASSED, status.FAILED, status.MISSING, status.NOT_RUN, status.SKIPPED,
               status.NOTEBOOK_TIMEOUT, status.MANUAL, status.LATE, status.DIED, status.TIMEOUT}
#: (module, word): where such a word is not a status, and why.
NOT_A_STATUS = {
    ("course/checking.py", "passed"): "the name of checking.passed() in __all__",
    ("course/lang.py", "passed"): "the word a feedback file shows a student",
    ("course/lang.py", "failed"): "the word a feedback file shows a student",
    ("course/lang.py", "missing"): "the word a feedback file shows a student",
    ("course/export.py", "late"): "Canvas's download names and the LMS columns' titles",
    ("llm.py", "timeout"): "a parameter's name",
}


def test_each_status_is_written_once_in_memlib():
    root = Path(memlib.__file__).parent
    found = set()
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where == "course/status.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in STATUS_ONLY:
                found.add((where, node.value))
    spelled_again = found - set(NOT_A_STATUS)
    assert not spelled_again, f"status words written outside memlib.course.status: {sorted(spelled_again)}"
    assert set(NOT_A_STATUS) <= found, f"no longer there (drop them): {sorted(set(NOT_A_STATUS) - found)}"


def test_the_cell_the_check_and_the_row_share_the_words():
    assert (kernel_run.OK, kernel_run.ERROR, kernel_run.TIMEOUT) == (status.OK, status.ERROR, status.TIMEOUT)
    assert set(status.LOST) <= set(status.CELL) & set(status.CHECK)
    assert set(status.JUDGED) <= set(status.CHECK) & set(status.ROW)


@pytest.mark.parametrize("check, cell", [
    (status.PASSED, status.OK), (status.FAILED, status.ERROR), (status.ERROR, status.ERROR),
    (status.TIMEOUT, status.TIMEOUT), (status.DIED, status.DIED), (status.NOTEBOOK_TIMEOUT, status.NOTEBOOK_TIMEOUT),
])
def test_a_checked_cell_gets_the_status_its_check_implies(check, cell):
    assert status.cell_status(check) == cell


@pytest.mark.parametrize("wrong", ["ok", "missing", "PASSED", "", None])
def test_a_word_that_is_no_checks_status_is_refused(wrong):
    with pytest.raises(ValueError, match="not a check's status"):
        status.cell_status(wrong)


def test_a_check_outcome_speaks_the_vocabulary():
    from memlib.course.grading.check import cell_run

    run = cell_run(3, CheckOutcome(status.FAILED, "bm25_scores returned 2 scores for 3 documents"))
    assert run.status == status.ERROR and run.check.status == status.FAILED


def test_the_lms_export_refuses_a_row_in_a_cells_words(tmp_path):
    from memlib.course.export import ExportError, read_gradebook

    book = tmp_path / "grades.csv"
    book.write_text("student,notebook,grade_id,points,max_points,status,reason\n"
                    "ana,01_context_window,01-token-budget,2,2,ok,\n", encoding="utf-8")
    with pytest.raises(ExportError, match="status 'ok' is not one of passed, failed, error, missing, late, manual"):
        read_gradebook(book)
    book.write_text(book.read_text(encoding="utf-8").replace(",ok,", ",passed,"), encoding="utf-8")
    assert read_gradebook(book)
