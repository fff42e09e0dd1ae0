"""Grading a class (memlib.course.grade): a sample class with every robustness case.

The class is built from the fixture assignment in tests/fixtures/course: a
complete solution, the blank release, partial and wrong answers, and one
student per broken-submission case from issue 6. It is graded once, in
parallel, and the exact gradebook is asserted.
"""

from __future__ import annotations

import ast
import copy
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import FIXTURE_COURSE, FIXTURE_NOTEBOOK, blank, solved
from conftest import cell_index as _cell_index
from conftest import write_notebook as _write
from memlib.course import grade as grading
from memlib.course.grade import (
    CSV_COLUMNS,
    Assignment,
    load_release,
    read_submission_notebook,
    restore_graded_cells,
)
from memlib.course.release import graded_cells, release

pytestmark = pytest.mark.grading

SOLUTIONS = FIXTURE_COURSE
NAME = FIXTURE_NOTEBOOK
CELL_TIMEOUT = 6  # short, to keep the loop cases quick; generous enough for a loaded 2-core machine

NOT_SOLVED_1 = "not solved yet: Exercise 1: return the sum of a and b"
NOT_SOLVED_2 = "not solved yet: Exercise 2: count the words of text (split on whitespace)"
REDEFINED = ("; review: read from the notebook's source: the notebook uses fixture_checks.check_words changed (an "
             "attribute of an imported module or class) (cell starting 'def check_add(f):')")


# --------------------------------------------------------------------------- building the class


@pytest.fixture(scope="module")
def one_assignment(tmp_path_factory) -> dict[str, Path]:
    """The fixture course released whole ("released"), and a release of assignment 01 alone with its checks
    ("release"): what these tests grade against."""
    root = tmp_path_factory.mktemp("course")
    released = root / "released"
    release(SOLUTIONS, released)
    grading_release = root / "release"  # only assignment 01 is graded here
    grading_release.mkdir()
    shutil.copy(released / NAME, grading_release / NAME)
    shutil.copy(SOLUTIONS / "fixture_checks.py", grading_release / "fixture_checks.py")
    return {"root": root, "released": released, "release": grading_release}


def _blank(one_assignment) -> nbformat.NotebookNode:
    return blank(one_assignment["released"])


def _solved(one_assignment) -> nbformat.NotebookNode:
    """The release with each stub replaced by the solution cell (what a good student hands in)."""
    return solved(one_assignment["released"])


def _graded_index(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("memlib", {}).get("grade_id") == grade_id)


def _insert_code(nb, before: str, source: str) -> nbformat.NotebookNode:
    nb.cells.insert(_cell_index(nb, before), nbformat.v4.new_code_cell(source))
    return nb


def _build_class(one_assignment) -> Path:
    sub = one_assignment["root"] / "submissions"
    sub.mkdir()
    _write(sub / "complete", _solved(one_assignment))
    _write(sub / "blank", _blank(one_assignment))

    partial = _blank(one_assignment)
    partial.cells[_cell_index(partial, "def add")].source = _solved(one_assignment).cells[_cell_index(partial, "def add")].source
    _write(sub / "partial", partial)

    wrong = _solved(one_assignment)
    wrong.cells[_cell_index(wrong, "def add")].source = "def add(a, b):\n    return a - b"
    _write(sub / "wrong", wrong)

    (sub / "invalid_json").mkdir()
    (sub / "invalid_json" / NAME).write_text('{"cells": [}', encoding="utf-8")

    (sub / "truncated").mkdir()
    good = nbformat.writes(_solved(one_assignment))
    (sub / "truncated" / NAME).write_text(good[: len(good) // 2], encoding="utf-8")

    (sub / "nbformat3").mkdir()
    (sub / "nbformat3" / NAME).write_text(nbformat.writes(nbformat.convert(_solved(one_assignment), 3)), encoding="utf-8")

    other = nbformat.read(str(one_assignment["released"] / "02_other.ipynb"), as_version=4)
    _write(sub / "other_assignment", other)  # saved under the name of assignment 01

    edited = _blank(one_assignment)
    for grade_id in ("fixture-add", "fixture-words"):
        edited.cells[_graded_index(edited, grade_id)].source = "pass"
    _write(sub / "edited_to_pass", edited)

    deleted = _solved(one_assignment)
    del deleted.cells[_graded_index(deleted, "fixture-add")]
    _write(sub / "deleted", deleted)

    duplicated = _solved(one_assignment)
    at = _cell_index(duplicated, "def add")
    solved_copy = copy.deepcopy(duplicated.cells[at])
    solved_copy.id = "student-copy"
    duplicated.cells[at].source = _blank(one_assignment).cells[at].source  # the original stays a stub...
    duplicated.cells.insert(at + 1, solved_copy)  # ...and the duplicate below it is solved
    check = duplicated.cells[_graded_index(duplicated, "fixture-words")]
    check_copy = copy.deepcopy(check)
    check_copy.id = "student-check-copy"
    duplicated.cells.append(check_copy)
    _write(sub / "duplicated", duplicated)

    loop = _solved(one_assignment)
    loop.cells[_cell_index(loop, "def add")].source = "def add(a, b):\n    while True:\n        print(\"still thinking\")"
    _write(sub / "infinite_loop", loop)

    stubborn = _insert_code(
        _solved(one_assignment),
        "class WordCounter",
        "import time\nwhile True:\n    try:\n        time.sleep(0.1)\n    except KeyboardInterrupt:\n        pass",
    )
    _write(sub / "stubborn_loop", stubborn)

    _write(sub / "sys_exit", _insert_code(_solved(one_assignment), "def add", "import sys\nsys.exit()"))
    _write(sub / "os_exit", _insert_code(_solved(one_assignment), "class WordCounter", "import os\nos._exit(1)"))
    _write(sub / "huge_output", _insert_code(_solved(one_assignment), "def add", "print('x' * 50_000_000)"))

    (sub / "non_utf8").mkdir()
    text = nbformat.writes(_insert_code(_solved(one_assignment), "def add", "# caf\u00e9 au lait"))
    (sub / "non_utf8" / NAME).write_bytes(text.encode("utf-8").replace("caf\u00e9".encode("utf-8"), b"caf\xe9"))

    redefine = _insert_code(
        _blank(one_assignment),
        "from fixture_checks import check_add",
        "def check_add(f):\n    print('PASS')\n\n"
        "import fixture_checks\nfixture_checks.check_words = lambda cls: print('PASS')",
    )
    _write(sub / "redefine_check", redefine)

    (sub / "empty_folder").mkdir()

    with zipfile.ZipFile(sub / "zip_copy.zip", "w") as archive:
        archive.writestr("zip_copy/" + NAME, nbformat.writes(_solved(one_assignment)))
        archive.writestr("zip_copy/01_fixture-Copy1.ipynb", nbformat.writes(_blank(one_assignment)))
        archive.writestr("zip_copy/.ipynb_checkpoints/01_fixture-checkpoint.ipynb", "junk")
    with zipfile.ZipFile(sub / "zip_two.zip", "w") as archive:
        archive.writestr("a/" + NAME, nbformat.writes(_solved(one_assignment)))
        archive.writestr("b/" + NAME, nbformat.writes(_blank(one_assignment)))

    _write(sub / "renamed", _solved(one_assignment), name="my homework (1).ipynb")
    return sub


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def graded_class(one_assignment) -> dict:
    submissions = _build_class(one_assignment)
    before = _hashes(submissions)
    out = one_assignment["root"] / "grades.csv"
    feedback = one_assignment["root"] / "feedback"
    args = [str(p) for p in sorted(submissions.iterdir())]
    args += ["--release", str(one_assignment["release"]), "--out", str(out), "--feedback", str(feedback)]
    args += ["-j", "2", "--cell-timeout", str(CELL_TIMEOUT), "--timeout", "90", "--quiet"]
    code = grading.main(args)
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {"code": code, "rows": rows, "before": before, "after": _hashes(submissions),
            "feedback": feedback, "submissions": submissions}


P, F, E, M = "passed", "failed", "error", "missing"
UTF8_NOTE = "note: file is not valid UTF-8 (first bad byte at offset {offset}); bad bytes replaced by U+FFFD"
KERNEL_DEAD = (
    "not run: the kernel died earlier in the cell starting {head!r} (os._exit, a crash, "
    "running out of memory or a cell that could not be interrupted)"
)
TIMED_OUT = f"timed out after {CELL_TIMEOUT} s (an infinite loop or a very slow solution?)"


def _expected(graded_class) -> list[tuple]:
    offset = (graded_class["submissions"] / "non_utf8" / NAME).read_bytes().index(b"caf\xe9") + 3
    missing = "no notebook for 01_fixture.ipynb in the submission"
    return [
        ("blank", "fixture-add", 0, F, NOT_SOLVED_1),
        ("blank", "fixture-words", 0, F, NOT_SOLVED_2),
        ("complete", "fixture-add", 2, P, ""),
        ("complete", "fixture-words", 3, P, ""),
        ("deleted", "fixture-add", 2, P, "note: graded cell was deleted; re-inserted from the release"),
        ("deleted", "fixture-words", 3, P, ""),
        ("duplicated", "fixture-add", 2, P, ""),
        ("duplicated", "fixture-words", 3, P, "note: graded cell was duplicated (2 copies); extra copies removed"),
        ("edited_to_pass", "fixture-add", 0, F, NOT_SOLVED_1 + "; note: graded cell was edited; restored from the release"),
        ("edited_to_pass", "fixture-words", 0, F, NOT_SOLVED_2 + "; note: graded cell was edited; restored from the release"),
        ("empty_folder", "fixture-add", 0, M, missing + " (no notebook found in empty_folder/)"),
        ("empty_folder", "fixture-words", 0, M, missing + " (no notebook found in empty_folder/)"),
        ("huge_output", "fixture-add", 2, P, ""),
        ("huge_output", "fixture-words", 3, P, ""),
        ("infinite_loop", "fixture-add", 0, F, TIMED_OUT),
        ("infinite_loop", "fixture-words", 3, P, ""),
        ("invalid_json", "fixture-add", 0, E, "01_fixture.ipynb: not valid JSON (line 1, column 12: Expecting value)"),
        ("invalid_json", "fixture-words", 0, E, "01_fixture.ipynb: not valid JSON (line 1, column 12: Expecting value)"),
        ("nbformat3", "fixture-add", 2, P, "note: nbformat 3 notebook converted to nbformat 4"),
        ("nbformat3", "fixture-words", 3, P, "note: nbformat 3 notebook converted to nbformat 4"),
        ("non_utf8", "fixture-add", 2, P, UTF8_NOTE.format(offset=offset)),
        ("non_utf8", "fixture-words", 3, P, UTF8_NOTE.format(offset=offset)),
        ("os_exit", "fixture-add", 2, P, ""),
        # the student's own cell kills the kernel: the check after it cannot run
        ("os_exit", "fixture-words", 0, F, KERNEL_DEAD.format(head="import os")),
        ("other_assignment", "fixture-add", 0, M,
         missing + " (ignored 01_fixture.ipynb (its metadata says assignment '02_other'))"),
        ("other_assignment", "fixture-words", 0, M,
         missing + " (ignored 01_fixture.ipynb (its metadata says assignment '02_other'))"),
        ("partial", "fixture-add", 2, P, ""),
        ("partial", "fixture-words", 0, F, NOT_SOLVED_2),
        # a check redefined in the kernel is not the one that runs: the checker's is; the patch is flagged
        ("redefine_check", "fixture-add", 0, F, NOT_SOLVED_1 + REDEFINED),
        ("redefine_check", "fixture-words", 0, F, NOT_SOLVED_2 + REDEFINED),
        ("renamed", "fixture-add", 2, P,
         "note: graded my homework (1).ipynb as 01_fixture.ipynb (its metadata says assignment '01_fixture')"),
        ("renamed", "fixture-words", 3, P,
         "note: graded my homework (1).ipynb as 01_fixture.ipynb (its metadata says assignment '01_fixture')"),
        ("stubborn_loop", "fixture-add", 2, P, ""),
        # the student's own cell that ignores interrupts is killed: the check after it does not run
        ("stubborn_loop", "fixture-words", 0, F, KERNEL_DEAD.format(head="import time")),
        ("sys_exit", "fixture-add", 2, P, ""),
        ("sys_exit", "fixture-words", 3, P, ""),
        ("truncated", "fixture-add", 0, E,
         "01_fixture.ipynb: file is truncated (the JSON ends early at line {line}); ask for a fresh download"),
        ("truncated", "fixture-words", 0, E,
         "01_fixture.ipynb: file is truncated (the JSON ends early at line {line}); ask for a fresh download"),
        ("wrong", "fixture-add", 0, F, "add(2, 3) is -1, expected 5"),
        ("wrong", "fixture-words", 3, P, ""),
        ("zip_copy", "fixture-add", 2, P,
         "note: graded zip_copy/01_fixture.ipynb; ignored zip_copy/01_fixture-Copy1.ipynb"),
        ("zip_copy", "fixture-words", 3, P,
         "note: graded zip_copy/01_fixture.ipynb; ignored zip_copy/01_fixture-Copy1.ipynb"),
        ("zip_two", "fixture-add", 0, E,
         "ambiguous: 2 notebooks look like 01_fixture.ipynb (a/01_fixture.ipynb, b/01_fixture.ipynb); "
         "keep exactly one and grade again"),
        ("zip_two", "fixture-words", 0, E,
         "ambiguous: 2 notebooks look like 01_fixture.ipynb (a/01_fixture.ipynb, b/01_fixture.ipynb); "
         "keep exactly one and grade again"),
    ]


@pytest.mark.slow
def test_gradebook_is_exactly_as_expected(graded_class) -> None:
    rows = graded_class["rows"]
    assert list(rows[0].keys()) == list(CSV_COLUMNS)
    truncated_text = (graded_class["submissions"] / "truncated" / NAME).read_text()
    line = truncated_text.count("\n") + 1
    expected = []
    for student, grade_id, points, status, reason in _expected(graded_class):
        max_points = {"fixture-add": "2", "fixture-words": "3"}[grade_id]
        expected.append({
            "student": student, "notebook": NAME, "grade_id": grade_id, "points": str(points),
            "max_points": max_points, "status": status, "reason": reason.replace("{line}", str(line)),
        })
    assert len(rows) == len(expected)
    wrong = [f"{got['student']} {got['grade_id']}: got {got['points']} {got['status']} {got['reason']!r}, "
             f"want {want['points']} {want['status']} {want['reason']!r}" for got, want in zip(rows, expected) if got != want]
    assert not wrong, "\n".join(wrong)
    assert graded_class["code"] == 0


@pytest.mark.slow
def test_submissions_are_never_modified(graded_class) -> None:
    assert graded_class["before"] == graded_class["after"]


@pytest.mark.slow
def test_feedback_per_student(graded_class) -> None:
    folder = graded_class["feedback"]
    files = sorted(p.stem for p in folder.glob("*.md"))
    assert files == sorted({row["student"] for row in graded_class["rows"]})
    wrong = (folder / "wrong.md").read_text()
    assert "add(2, 3) is -1, expected 5" in wrong
    assert "Hint: return a + b (do not print it)" in wrong  # the hint is in the feedback, not the gradebook
    assert "Total: 3 / 5 points" in wrong
    complete = (folder / "complete.md").read_text()
    assert "PASS  add(2, 3) == 5" in complete and "PASS  all checks for fixture-words" in complete
    loop = (folder / "infinite_loop.md").read_text()
    assert "Where it failed in your code:" in loop and "while True" in loop
    assert "site-packages" not in loop and "fixture_checks.py" not in loop  # trimmed to the student's cells
    sys_exit = (folder / "sys_exit.md").read_text()
    assert "Other cells that raised an error" in sys_exit and "SystemExit" in sys_exit


def test_notebook_time_limit_kills_the_run(one_assignment, tmp_path: Path) -> None:
    nb = _solved(one_assignment)
    at = _cell_index(nb, "def add")
    nb.cells[at].source = "import time\ntime.sleep(600)\n" + nb.cells[at].source
    _write(tmp_path / "sleeper", nb)
    report = grading.grade([tmp_path / "sleeper"], one_assignment["release"], timeout=8, cell_timeout=120)
    assert [(r.grade_id, r.status) for r in report.rows] == [("fixture-add", F), ("fixture-words", F)]
    assert report.rows[0].reason.startswith("not run: the notebook exceeded its time limit of 8 s before this check")
    assert report.results[0].seconds < 30


def test_exit_codes_when_the_grader_cannot_run(one_assignment, tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "g.csv")
    assert grading.main(["x", "--release", str(tmp_path / "nowhere"), "--out", out]) == 2
    assert "does not exist" in capsys.readouterr().err
    empty_release = tmp_path / "empty"
    empty_release.mkdir()
    assert grading.main([str(tmp_path), "--release", str(empty_release), "--out", out]) == 2
    assert "no released notebook with graded cells" in capsys.readouterr().err
    assert grading.main([str(tmp_path / "missing"), "--release", str(one_assignment["release"]), "--out", out]) == 2
    assert "submission" in capsys.readouterr().err


# --------------------------------------------------------------------------- plain-Python units


def _assignment(one_assignment) -> Assignment:
    return load_release(one_assignment["release"])[0]


def test_load_release_lists_graded_cells(one_assignment) -> None:
    (assignment,) = load_release(one_assignment["release"])
    assert assignment.name == NAME and assignment.max_points == 5
    assert [g.grade_id for g in assignment.graded] == ["fixture-add", "fixture-words"]
    assert "fixture-add" in repr(assignment)


@pytest.mark.parametrize(
    "data, error",
    [
        (b"", "file is empty"),
        (b"  \n", "file is empty"),
        (b'{"cells": [', "file is truncated"),
        (b"[1, 2]", "not a Jupyter notebook"),
        (b'{"nbformat": 5, "cells": []}', "nbformat 5 is not supported"),
        (b'{"nbformat": 2, "worksheets": []}', "nbformat 2 is not supported"),
        (b"{'cells': []}", "not valid JSON"),
    ],
)
def test_read_submission_errors(data: bytes, error: str) -> None:
    nb, message, _ = read_submission_notebook(data)
    assert nb is None and error in message


def test_read_submission_bom_and_list_sources() -> None:
    raw = {"nbformat": 4, "nbformat_minor": 2, "metadata": {},
           "cells": [{"cell_type": "code", "source": ["a = 1\n", "b = 2"], "metadata": {}, "outputs": [{"x": 1}]}]}
    nb, error, notes = read_submission_notebook(b"\xef\xbb\xbf" + json.dumps(raw).encode())
    assert error == "" and notes == []
    assert nb.cells[0].source == "a = 1\nb = 2" and nb.cells[0].outputs == []


def test_restore_puts_graded_cells_back_in_place(one_assignment) -> None:
    assignment = _assignment(one_assignment)
    solved = _solved(one_assignment)
    del solved.cells[_graded_index(solved, "fixture-words")]
    solved.cells[_graded_index(solved, "fixture-add")].source = "pass"
    forged = nbformat.v4.new_code_cell("print('mine')")
    forged.metadata = {"memlib": {"grade_id": "fixture-add", "points": 99}, "tags": ["graded"]}
    solved.cells.insert(1, forged)
    before = copy.deepcopy(solved)
    restored, repairs = restore_graded_cells(solved, assignment)
    assert solved == before  # the input is not modified
    sources = [c.source for c in restored.cells]
    ids = [c.metadata.get("memlib", {}).get("grade_id") for c in restored.cells]
    assert [i for i in ids if i] == ["fixture-add", "fixture-words"]
    add_at, words_at = ids.index("fixture-add"), ids.index("fixture-words")
    assert sources[add_at - 1].startswith("def add") and sources[words_at - 1].startswith("class WordCounter")
    assert "print('mine')" not in sources
    assert restored.cells[add_at].source == graded_cells(_blank(one_assignment))[0].source  # the release's cell, as is
    assert repairs == {
        "fixture-add": ["graded cell was duplicated (2 copies); extra copies removed",
                        "graded cell was edited; restored from the release"],
        "fixture-words": ["graded cell was deleted; re-inserted from the release"],
    }


def test_an_answer_moved_down_into_a_new_cell_is_checked_after_it(one_assignment) -> None:
    assignment = _assignment(one_assignment)
    moved = _solved(one_assignment)
    at = next(i for i, c in enumerate(moved.cells) if c.source.startswith("def add"))
    solution = moved.cells.pop(at).source
    moved.cells.append(nbformat.v4.new_code_cell(solution))  # the exercise cell deleted, the answer at the end
    restored, _ = restore_graded_cells(moved, assignment)
    ids = [c.metadata.get("memlib", {}).get("grade_id") for c in restored.cells]
    add_at, words_at = ids.index("fixture-add"), ids.index("fixture-words")
    assert restored.cells[add_at - 1].source == solution  # checked once it is defined
    assert restored.cells[words_at - 1].source.startswith("class WordCounter")  # the other check stays in place
    # an answer defined where the exercise is keeps its usual place, even if redefined further down
    twice = _solved(one_assignment)
    twice.cells.append(nbformat.v4.new_code_cell("def add(a, b):\n    return 0"))
    restored, _ = restore_graded_cells(twice, assignment)
    ids = [c.metadata.get("memlib", {}).get("grade_id") for c in restored.cells]
    assert restored.cells[ids.index("fixture-add") - 1].source.startswith("def add(a, b):\n    \"\"\"")


def test_an_answer_only_below_its_check_is_graded_in_the_notebooks_own_order(one_assignment) -> None:
    # attack3's r4f: the stub left in the exercise cell, the answer in a new cell right below the
    # check. A Restart & Run All of that notebook checks the stub; so does the grader, and says why.
    assignment = _assignment(one_assignment)
    below = _blank(one_assignment)
    solution = next(c.source for c in _solved(one_assignment).cells if c.source.startswith("def add"))
    below.cells.insert(_graded_index(below, "fixture-add") + 1, nbformat.v4.new_code_cell(solution))
    restored, repairs = restore_graded_cells(below, assignment)
    ids = [c.metadata.get("memlib", {}).get("grade_id") for c in restored.cells]
    add_at = ids.index("fixture-add")
    assert "NotImplementedError" in restored.cells[add_at - 1].source  # the check sees the stub above it
    assert restored.cells[add_at + 1].source == solution  # the answer stays below, where the student put it
    (note,) = repairs["fixture-add"]
    assert note.startswith("your answer `add` is defined after its check (again in the cell starting 'def add")
    # a helper cell of the student's own after the check keeps the check where the notebook has it too
    helper = _solved(one_assignment)
    helper.cells.insert(_graded_index(helper, "fixture-add") + 1, nbformat.v4.new_code_cell("assert add(2, 3) == 5"))
    restored, repairs = restore_graded_cells(helper, assignment)
    sources = [c.source for c in restored.cells]
    ids = [c.metadata.get("memlib", {}).get("grade_id") for c in restored.cells]
    assert sources[ids.index("fixture-add") + 1] == "assert add(2, 3) == 5" and repairs == {}


def test_restore_without_cell_ids_uses_sources(one_assignment) -> None:
    assignment = _assignment(one_assignment)
    solved = _solved(one_assignment)
    for cell in solved.cells:
        cell.pop("id", None)
    solved.cells = [c for c in solved.cells if "graded" not in c.metadata.get("tags", [])]
    restored, _ = restore_graded_cells(solved, assignment)
    sources = [c.source for c in restored.cells]
    ids = [c.metadata.get("memlib", {}).get("grade_id") for c in restored.cells]
    assert sources[ids.index("fixture-add") + 1].startswith("## Exercise 2")
    assert ids[-2] == "fixture-words" and sources[-1] == "print('done')"
    assert len({c.id for c in restored.cells}) == len(restored.cells)


@pytest.mark.slow
def test_nbval_passes_solutions_and_fails_exactly_the_graded_cells_of_the_release(one_assignment) -> None:
    def run(folder: Path) -> dict[str, str]:
        report = one_assignment["root"] / f"{folder.name}-junit.xml"
        ini = one_assignment["root"] / "nbval.ini"
        ini.write_text("[pytest]\n")
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONDONTWRITEBYTECODE="1")
        subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "nbval.plugin", "-p", "no:cacheprovider", "--nbval-lax",
             "--nbval-current-env", "-q", "-c", str(ini), "--rootdir", str(folder), f"--junitxml={report}",
             str(folder / NAME)],
            capture_output=True, cwd=folder, timeout=120, env=env,
        )
        import xml.etree.ElementTree as ET

        outcome = {}
        for case in ET.parse(report).iter("testcase"):
            failed = case.find("failure") is not None or case.find("error") is not None
            outcome[case.get("name")] = "failed" if failed else "passed"
        return outcome

    student = one_assignment["root"] / "student-run"
    student.mkdir()
    shutil.copy(one_assignment["released"] / NAME, student / NAME)
    shutil.copy(SOLUTIONS / "fixture_checks.py", student)
    solution_results = run(SOLUTIONS)
    assert solution_results and set(solution_results.values()) == {"passed"}
    student_results = run(student)
    nb = nbformat.read(str(student / NAME), as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    failed = {name for name, outcome in student_results.items() if outcome == "failed"}
    graded_numbers = {f"Cell {i}" for i, c in enumerate(code_cells) if "graded" in c.metadata.get("tags", [])}
    assert failed == graded_numbers


REPO = Path(__file__).resolve().parent.parent
COURSE_SAMPLE = ("02", "03")


@pytest.mark.slow
def test_course_notebooks_grade_full_marks_for_solutions_and_zero_for_the_release(tmp_path: Path) -> None:
    """A sample class built from the course itself: the solutions get full marks, the blank release none."""
    solutions, notebooks = REPO / "solutions", REPO / "notebooks"
    picked = [p for p in sorted(notebooks.glob("*.ipynb")) if p.name[:2] in COURSE_SAMPLE] if notebooks.is_dir() else []
    assert picked and all((solutions / p.name).exists() for p in picked), "notebooks 02 and 03 must be released"
    for student, source in (("solution", solutions), ("blank", notebooks)):
        (tmp_path / student).mkdir()
        for path in picked:
            shutil.copy(source / path.name, tmp_path / student / path.name)
    report = grading.grade(
        [tmp_path / "blank", tmp_path / "solution"], notebooks, jobs=2, assignments=COURSE_SAMPLE, timeout=300
    )
    released = load_release(notebooks, COURSE_SAMPLE)
    expected_ids = [i for a in released for i in [g.grade_id for g in a.graded] + [w.grade_id for w in a.written]]
    written_ids = {w.grade_id for a in released for w in a.written}
    assert expected_ids and len(written_ids) == 2
    for student in ("blank", "solution"):
        rows = [r for r in report.rows if r.student == student]
        assert [r.grade_id for r in rows] == expected_ids
        for row in rows:
            if row.grade_id in written_ids:  # a person scores these (memlib.course.written)
                expected = ("manual", 0) if student == "solution" else ("failed", 0)
                assert (row.status, row.points) == expected, row
                continue
            if student == "solution":
                assert (row.status, row.points, row.reason) == ("passed", row.max_points, ""), row
            else:
                assert (row.status, row.points) == ("failed", 0), row
                assert row.reason.startswith("not solved yet: Exercise"), row
    assert not any(result.other_errors for result in report.results)  # nothing but graded cells failed


def test_the_gradebook_notes_an_answer_that_calls_the_reference(tmp_path: Path) -> None:
    """An exercise answered by calling memlib's own reference still passes, and its row says so."""
    notebooks = REPO / "notebooks"
    nb = nbformat.read(notebooks / "06_citations.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if "def answer_with_citations" in c.source]
    # the stub's raise may span several lines (the release wraps long messages)
    stub = next(node for node in ast.walk(ast.parse(cell.source)) if isinstance(node, ast.Raise))
    lines = cell.source.splitlines()
    # ... and prints 5,000 characters at every call: the note travels in the outcome, not in the output
    lines[stub.lineno - 1:stub.end_lineno] = ["    from memlib.citations import answer_from_store",
                                              "    print('x' * 5000)",
                                              "    return answer_from_store(question, store)"]
    cell.source = "\n".join(lines)
    _write(tmp_path / "borrower", nb, "06_citations.ipynb")
    report = grading.grade([tmp_path / "borrower"], notebooks, assignments=["06"], timeout=300)
    (row,) = [r for r in report.rows if r.grade_id == "06-citations"]
    assert row.status == "passed", row
    assert "memlib's reference implementation: memlib.citations.answer_from_store" in row.reason, row
    (detail,) = [d for d in report.results[0].details if d.grade_id == "06-citations"]
    assert detail.stdout.endswith("x" * 1000 + "\n"), detail.stdout[-200:]  # the output's tail is all x


def test_without_the_sandbox_grading_still_works_and_says_what_is_missing(one_assignment, tmp_path: Path) -> None:
    _write(tmp_path / "complete", _solved(one_assignment))
    _write(tmp_path / "blank", _blank(one_assignment))
    warnings: list[str] = []
    report = grading.grade([tmp_path / "blank", tmp_path / "complete"], one_assignment["release"], jobs=2,
                           sandbox="none", warn=warnings.append)
    assert [(r.student, r.grade_id, r.points, r.status) for r in report.rows] == [
        ("blank", "fixture-add", 0, F), ("blank", "fixture-words", 0, F),
        ("complete", "fixture-add", 2, P), ("complete", "fixture-words", 3, P),
    ]
    assert report.sandbox == "no sandbox"
    assert len(warnings) == 1 and "student code runs with your permissions" in warnings[0]


def test_a_release_whose_graded_cell_has_another_shape_is_refused_before_grading(one_assignment, tmp_path: Path) -> None:
    released = nbformat.read(str(one_assignment["release"] / NAME), as_version=4)
    at = next(i for i, c in enumerate(released.cells) if c.metadata.get("memlib", {}).get("grade_id") == "fixture-add")
    released.cells[at].source = "from fixture_checks import check_add\nassert add(2, 3) == 5"
    folder = tmp_path / "release"
    folder.mkdir()
    nbformat.write(released, str(folder / NAME))
    with pytest.raises(grading.GradeSetupError, match="fixture-add.*one call `check\\(answer\\)`"):
        grading.load_release(folder)


def test_a_check_that_asks_for_more_time_than_the_cell_limit_gets_it(monkeypatch) -> None:
    """07's check calls the student's guard about 2,600 times: its record's minimum, not a short cell limit,
    bounds it; every other check keeps the cell limit; the guides state the record's figure."""
    from memlib.course.exercise import exercises
    from memlib.course.grading import check

    minimum = exercises()["07-guard"].check_seconds
    assert minimum > 60
    given: dict[str, float] = {}

    class Stop(Exception):
        pass

    def record(call, execute, *, seconds, **_):
        given[call.function] = seconds
        raise Stop

    monkeypatch.setattr(check.checker, "run_check", record)
    for stem, function in (("07", "check_guard"), ("01", "check_token_budget")):
        (assignment,) = load_release(REPO / "notebooks", [stem])
        nb = nbformat.read(REPO / "notebooks" / assignment.name, as_version=4)
        (stand_in,) = check.stand_ins(nb, assignment, [], Path("unused"), cell_timeout=5.0).values()
        with pytest.raises(Stop):
            stand_in(lambda *a, **k: ("ok", "", []))
    assert given == {"check_guard": minimum, "check_token_budget": 5.0}
    for guide in ("README.md", "site/instructor.md"):
        assert f"at least {minimum:.0f} s" in (REPO / guide).read_text(encoding="utf-8"), guide
