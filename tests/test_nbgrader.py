"""nbgrader grades memlib's release as it is, and agrees with ``python -m memlib grade`` cell by cell.

The release writes nbgrader's cell metadata next to memlib's (see
`memlib.course.release`). The slow test builds an nbgrader course in a temp
folder from the fixture assignment (two graded cells), runs ``nbgrader
generate_assignment`` and ``nbgrader autograde`` on an unsolved, a solved and
a half-solved submission, reads the scores from nbgrader's gradebook, and
compares them with the gradebook CSV of ``python -m memlib grade`` on the same
three notebooks.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from memlib.course import checking
from memlib.course.release import NBGRADER_ID_UNSAFE_RE, graded_cells, release, release_notebook
from conftest import FIXTURE_COURSE, FIXTURE_NOTEBOOK, ROOT, blank, cell_index, solved, write_notebook
from test_runners import _require

pytestmark = pytest.mark.grading

ASSIGNMENT = "fixture"
# memlib's release is already the student version: nbgrader must not clear its exercise cells again
# (it would replace each whole cell, signature included, by its own stub).
NBGRADER_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "memlib-course"
c.ClearSolutions.enabled = False
c.Execute.timeout = 120
"""


def _nbgrader_meta(nb) -> list[tuple[str, dict]]:
    return [(c.cell_type, dict(c.metadata["nbgrader"])) for c in nb.cells if "nbgrader" in c.metadata]


def test_the_release_writes_nbgraders_metadata_and_nbgraders_validator_accepts_it(tmp_path):
    MetadataValidator = _require("nbgrader.nbgraderformat").MetadataValidator

    release(FIXTURE_COURSE, tmp_path)
    nb = nbformat.read(str(tmp_path / FIXTURE_NOTEBOOK), as_version=4)
    MetadataValidator().validate_nb(nb)
    assert _nbgrader_meta(nb) == [
        ("code", {"grade": False, "grade_id": "colab-setup", "locked": True, "schema_version": 3, "solution": False}),
        ("code", {"grade": False, "grade_id": "exercise-1", "locked": False, "schema_version": 3, "solution": True}),
        ("code", {"grade": True, "grade_id": "fixture-add", "locked": True, "points": 2, "schema_version": 3,
                  "solution": False}),
        ("code", {"grade": False, "grade_id": "exercise-2", "locked": False, "schema_version": 3, "solution": True}),
        ("code", {"grade": True, "grade_id": "fixture-words", "locked": True, "points": 3, "schema_version": 3,
                  "solution": False}),
    ]
    by_grade_id = {c.metadata["memlib"]["grade_id"]: c.metadata["nbgrader"] for c in nb.cells if "graded" in c.metadata.get("tags", [])}
    assert {g.grade_id: g.points for g in graded_cells(nb)} == {k: v["points"] for k, v in by_grade_id.items()}
    # the markdown answer gets none: nbgrader would demand a hand-graded cell
    assert all(c.cell_type == "code" for c in nb.cells if "nbgrader" in c.metadata)


def test_nbgrader_ids_are_made_safe_and_unique_and_stale_metadata_is_replaced():
    MetadataValidator = _require("nbgrader.nbgraderformat").MetadataValidator

    def graded(grade_id: str, **metadata) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_code_cell("from m import check\ncheck()")
        cell.metadata = {"tags": ["graded"], "memlib": {"grade_id": grade_id, "points": 1.5}, **metadata}
        return cell

    exercise = nbformat.v4.new_code_cell("def f():\n    ### EXERCISE 2c: f\n    ### BEGIN SOLUTION\n    return 1\n"
                                         "    ### END SOLUTION\n    ### EXERCISE 2c: again\n    ### BEGIN SOLUTION\n"
                                         "    return 2\n    ### END SOLUTION\n")
    stale = nbformat.v4.new_code_cell("x = 1")
    stale.metadata["nbgrader"] = {"grade": True, "grade_id": "old", "points": 9, "locked": True, "solution": False,
                                  "schema_version": 3}
    nb = nbformat.v4.new_notebook(cells=[exercise, graded("a.b", nbgrader={"grade": False}), graded("a_b"), stale])
    out = release_notebook(nb, "05_x.ipynb")
    MetadataValidator().validate_nb(out)
    assert [c.metadata.get("nbgrader", {}).get("grade_id") for c in out.cells] == ["exercise-2c_2c", "a_b", "a_b-2", None]
    assert out.cells[1].metadata["nbgrader"]["points"] == 1.5 and out.cells[1].metadata["nbgrader"]["grade"] is True
    assert NBGRADER_ID_UNSAFE_RE.sub("_", "03-bm25") == "03-bm25"


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args[:4]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_nbgrader_autograde_and_memlib_grade_agree_cell_by_cell(tmp_path):
    Gradebook = _require("nbgrader.api").Gradebook

    released = tmp_path / "released"
    release(FIXTURE_COURSE, released)
    env = {k: v for k, v in os.environ.items() if k not in (checking.STRICT_ENV, *checking.RUNNER_ENVS)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")

    # the instructor's nbgrader course: memlib's release is nbgrader's source
    course = tmp_path / "course"
    source = course / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    shutil.copy(released / FIXTURE_NOTEBOOK, source / FIXTURE_NOTEBOOK)
    shutil.copy(FIXTURE_COURSE / "fixture_checks.py", source / "fixture_checks.py")
    (course / "nbgrader_config.py").write_text(NBGRADER_CONFIG, encoding="utf-8")
    nbgrader = [sys.executable, "-m", "nbgrader"]
    _run([*nbgrader, "generate_assignment", ASSIGNMENT, "--force"], course, env)
    students_copy = course / "release" / ASSIGNMENT  # what nbgrader hands out

    # three students, as test_grade builds them: nothing solved, everything, exercise 1 only
    half = blank(students_copy)
    half.cells[cell_index(half, "def add")].source = solved(students_copy).cells[cell_index(half, "def add")].source
    submissions = {"unsolved": blank(students_copy), "solved": solved(students_copy), "half": half}
    for student, nb in submissions.items():
        folder = course / "submitted" / student / ASSIGNMENT
        write_notebook(folder, nb)
        shutil.copy(FIXTURE_COURSE / "fixture_checks.py", folder / "fixture_checks.py")
        write_notebook(tmp_path / "memlib-submissions" / student, nb)

    _run([*nbgrader, "autograde", ASSIGNMENT, "--force"], course, env)
    nbgrader_scores: dict[str, dict[str, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in submissions:
            notebook = gradebook.find_submission_notebook(Path(FIXTURE_NOTEBOOK).stem, ASSIGNMENT, student)
            nbgrader_scores[student] = {g.name: g.score for g in notebook.grades}

    # the course grader on the same notebooks (bubblewrap would not see a checkout's memlib outside CI:
    # no sandbox here; the sandbox has its own tests)
    memlib_release = tmp_path / "memlib-release"
    memlib_release.mkdir()
    shutil.copy(released / FIXTURE_NOTEBOOK, memlib_release / FIXTURE_NOTEBOOK)
    shutil.copy(FIXTURE_COURSE / "fixture_checks.py", memlib_release / "fixture_checks.py")
    out = tmp_path / "grades.csv"
    _run([sys.executable, "-m", "memlib", "grade",
          *[str(tmp_path / "memlib-submissions" / s) for s in submissions],
          "--release", str(memlib_release), "--out", str(out), "--sandbox", "none", "--quiet"], ROOT, env)
    memlib_scores: dict[str, dict[str, float]] = {}
    with out.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            memlib_scores.setdefault(row["student"], {})[NBGRADER_ID_UNSAFE_RE.sub("_", row["grade_id"])] = float(row["points"])

    expected = {
        "unsolved": {"fixture-add": 0.0, "fixture-words": 0.0},
        "solved": {"fixture-add": 2.0, "fixture-words": 3.0},
        "half": {"fixture-add": 2.0, "fixture-words": 0.0},
    }
    assert memlib_scores == expected
    assert nbgrader_scores == memlib_scores
