"""python -m memlib validate: the grade a student sees before handing in is the grade the grader gives.

An honest student on the real notebook 01, graded for real (bubblewrap): the stub left in place, the
correct answer written again in a new cell at the end, every cell id renamed. Restart & Run
All order: the check sees the stub, so 0 points, and both validate and the gradebook say why.
"""

from __future__ import annotations

import copy
import csv
from pathlib import Path

import nbformat
import pytest

from memlib.course import grade as grading
from memlib.course.validate import ValidateError, main, validate

pytestmark = pytest.mark.grading

ROOT = Path(__file__).resolve().parents[1]
NAME = "01_context_window.ipynb"


def _honest_control(folder: Path) -> Path:
    nb = nbformat.read(str(ROOT / "notebooks" / NAME), as_version=4)
    solved = nbformat.read(str(ROOT / "solutions" / NAME), as_version=4)
    answer = next(c for c in solved.cells if "def how_many_fit" in c.source)
    late = copy.deepcopy(answer)
    late.metadata = {}
    nb.cells.append(late)
    for index, cell in enumerate(nb.cells):
        cell.id = f"mine-{index}"
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / NAME))
    return folder / NAME


@pytest.mark.slow
def test_the_honest_control_gets_from_validate_what_the_grader_gives(tmp_path: Path, capsys) -> None:
    notebook = _honest_control(tmp_path / "ada")
    code = main([str(notebook), "--release", str(ROOT / "notebooks"), "--sandbox", "bwrap"])
    said = capsys.readouterr().out
    assert code == 1
    assert "01-token-budget: 0/2 failed" in said and "not solved yet" in said
    assert "your answer `how_many_fit` is defined after its check" in said
    out = tmp_path / "grades.csv"
    assert grading.main([str(tmp_path / "ada"), "--release", str(ROOT / "notebooks"), "--out", str(out),
                         "--sandbox", "bwrap", "--quiet", "--assignment", "01"]) == 0
    row = next(csv.DictReader(out.open(encoding="utf-8")))
    line = next(l for l in said.splitlines() if l.startswith("01-token-budget"))
    assert line == f"01-token-budget: {float(row['points']):g}/{float(row['max_points']):g} {row['status']} - {row['reason']}"
    # the notebook as its own release says the same
    rows = validate(notebook, sandbox="bwrap", out=lambda text: None)
    assert [(r.grade_id, r.points, r.status, r.reason) for r in rows] == [
        ("01-token-budget", float(row["points"]), row["status"], row["reason"]),
        # notebook 01's written answer, left as handed out (memlib.course.written)
        ("01-written-bigger-window", 0, "failed", "written answer: left blank (the cell still says 'Your answer here')")]


@pytest.mark.slow
def test_an_answer_right_below_its_check_fails_as_in_run_all(tmp_path: Path, capsys) -> None:
    # attack3's r4f: the stub left above the check, the answer in a new cell right below it
    nb = nbformat.read(str(ROOT / "notebooks" / NAME), as_version=4)
    solved = nbformat.read(str(ROOT / "solutions" / NAME), as_version=4)
    answer = copy.deepcopy(next(c for c in solved.cells if "def how_many_fit" in c.source))
    answer.metadata, answer.id = {}, "r4f-late"
    check = next(i for i, c in enumerate(nb.cells) if "graded" in c.metadata.get("tags", []))
    nb.cells.insert(check + 1, answer)
    (tmp_path / "bea").mkdir()
    nbformat.write(nb, str(tmp_path / "bea" / NAME))
    code = main([str(tmp_path / "bea" / NAME), "--release", str(ROOT / "notebooks"), "--sandbox", "bwrap"])
    said = capsys.readouterr().out
    assert code == 1 and "01-token-budget: 0/2 failed" in said
    assert "your answer `how_many_fit` is defined after its check (again in the cell starting" in said
    out = tmp_path / "grades.csv"
    assert grading.main([str(tmp_path / "bea"), "--release", str(ROOT / "notebooks"), "--out", str(out),
                         "--sandbox", "bwrap", "--quiet", "--assignment", "01"]) == 0
    row = next(csv.DictReader(out.open(encoding="utf-8")))
    line = next(l for l in said.splitlines() if l.startswith("01-token-budget"))
    assert line == f"01-token-budget: {float(row['points']):g}/{float(row['max_points']):g} {row['status']} - {row['reason']}"


def test_bad_input_gets_a_clear_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(ValidateError, match="not a saved notebook"):
        validate(tmp_path / "missing.ipynb")
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(ValidateError, match="not a saved notebook"):
        validate(tmp_path / "notes.txt")
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    assert main([str(broken), "--sandbox", "none"]) == 2
    assert "truncated" in capsys.readouterr().err
    plain = tmp_path / "plain.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), str(plain))
    with pytest.raises(ValidateError, match="no released notebook with graded cells"):
        validate(plain, sandbox="none")


def test_a_utf16_notebook_is_named_as_utf16(tmp_path: Path) -> None:
    text = (ROOT / "notebooks" / NAME).read_text(encoding="utf-8")
    nb, error, notes = grading.read_submission_notebook(text.encode("utf-16"))
    assert nb is not None and error == "" and "UTF-16" in notes[0]
    nb, error, notes = grading.read_submission_notebook(b"\xff\xfe" + b"\x00\xd8" * 3)
    assert nb is None and "UTF-16" in error


def test_inside_a_graded_kernel_validate_does_not_grade_again(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEMLIB_STRICT_CHECKS", "1")
    said: list[str] = []
    assert validate(tmp_path / "anything.ipynb", out=said.append) == [] and "skipped" in said[0]



def test_as_its_own_release_the_answer_flags_are_given(tmp_path: Path) -> None:
    from memlib.course.grade import load_release
    from memlib.course.grading.provenance import notebook_findings
    from memlib.course.validate import _own_release

    nb = nbformat.read(str(ROOT / "notebooks" / NAME), as_version=4)
    stub = next(c for c in nb.cells if "def how_many_fit" in c.source)
    stub.source = "from memlib.course.checks import reference_how_many_fit as how_many_fit"
    path = tmp_path / NAME
    nbformat.write(nb, str(path))
    (assignment,) = load_release(_own_release(path, tmp_path / "release"))
    assert [g.grade_id for g in assignment.graded] == ["01-token-budget"]
    found = notebook_findings(nb, assignment)
    assert "reference_how_many_fit" in found["01-token-budget"][0].what


@pytest.mark.slow
def test_as_its_own_release_a_written_answer_is_read_below_its_question(tmp_path: Path) -> None:
    """The fresh instructor's walk: without --release an answered written cell was reported blank."""
    nb = nbformat.read(str(ROOT / "notebooks" / NAME), as_version=4)
    cell = next(c for c in nb.cells if c.get("metadata", {}).get("memlib", {}).get("written"))
    cell.source = cell.source.replace("*Your answer here.*", "The model still sees each fact diluted among the rest.")
    folder = tmp_path / "ada"
    folder.mkdir()
    nbformat.write(nb, str(folder / NAME))
    rows = {r.grade_id: r for r in validate(folder / NAME, sandbox="bwrap", out=lambda text: None)}
    written = rows["01-written-bigger-window"]
    assert written.status == "manual" and written.reason.endswith(
        ": The model still sees each fact diluted among the rest.")
    with_release = {r.grade_id: r for r in validate(folder / NAME, ROOT / "notebooks", sandbox="bwrap",
                                                     out=lambda text: None)}
    assert with_release["01-written-bigger-window"].reason == written.reason
