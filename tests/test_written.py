"""Written answers (memlib.course.written): released as nbgrader's manual answers, graded by a person.

The fixture course's "Why split on whitespace?" cell is made a written answer in a copy of
the solutions; the class is graded for real, the answers get gradebook rows to score, and
`grade score` records the points as overrides that every export applies.
"""

from __future__ import annotations

import copy
import csv
import shutil
from pathlib import Path

import nbformat
import pytest

from conftest import FIXTURE_COURSE, FIXTURE_NOTEBOOK, solved, write_notebook
from memlib.course import export, grade as grading, overrides, written
from memlib.course.release import ReleaseError, release, release_notebook

pytestmark = pytest.mark.grading

WHY = {"written": "fixture-why", "points": 2}


def _solution() -> dict:
    nb = nbformat.read(str(FIXTURE_COURSE / FIXTURE_NOTEBOOK), as_version=4)
    cell = next(c for c in nb["cells"] if c.get("id") == "fx-07")
    cell["metadata"] = nbformat.from_dict({"memlib": dict(WHY), "tags": ["written"]})
    return nb


@pytest.fixture(scope="module")
def written_course(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("written")
    solutions = root / "solutions"
    shutil.copytree(FIXTURE_COURSE, solutions)
    nbformat.write(_solution(), str(solutions / FIXTURE_NOTEBOOK))
    released = root / "release"
    release(solutions, released)
    shutil.copy(solutions / "fixture_checks.py", released / "fixture_checks.py")
    return {"root": root, "release": released}


def test_the_release_makes_a_written_cell_nbgraders_manually_graded_answer(written_course) -> None:
    nb = nbformat.read(str(written_course["release"] / FIXTURE_NOTEBOOK), as_version=4)
    cell = next(c for c in nb.cells if c.get("metadata", {}).get("memlib", {}).get("written"))
    assert "Because words" not in cell.source and written.STUB in cell.source
    assert cell.metadata["nbgrader"] == {"grade": True, "solution": True, "locked": False, "points": 2,
                                         "grade_id": "fixture-why", "schema_version": 3}
    assert written.written_cells(nb) == [written.WrittenCell("fixture-why", 2.0, nb.cells.index(cell), cell.id)]


@pytest.mark.parametrize("change,message", [
    (lambda c: c["metadata"].update(tags=[]), "is not tagged 'written'"),
    (lambda c: c["metadata"].update(memlib={}), "has no metadata"),
    (lambda c: c.update(cell_type="code", outputs=[], execution_count=None), "is a markdown cell"),
    (lambda c: c["metadata"]["memlib"].update(points=0), "must be a positive number"),
    (lambda c: c["metadata"]["memlib"].update(written="no spaces allowed"), "written grade id"),
    (lambda c: c.update(source="Why split on whitespace?"), "has no model answer"),
], ids=["untagged", "no-metadata", "code-cell", "zero-points", "bad-id", "no-region"])
def test_bad_input_a_written_cell_that_breaks_the_convention_is_refused(change, message) -> None:
    nb = _solution()
    change(next(c for c in nb["cells"] if c.get("id") == "fx-07"))
    with pytest.raises(ReleaseError, match=message):
        release_notebook(copy.deepcopy(nb), FIXTURE_NOTEBOOK, warn=False)


@pytest.fixture(scope="module")
def graded(written_course) -> dict[str, Path]:
    root, released = written_course["root"], written_course["release"]
    subs = root / "submissions"
    ada = solved(released)
    for cell in ada.cells:
        if cell.get("metadata", {}).get("memlib", {}).get("written"):
            cell.source = "## Exercise 2\n\nWords are what the spaces separate; =HYPERLINK(\"x\") is text."
    write_notebook(subs / "ada", ada)
    write_notebook(subs / "bea", solved(released))  # the written cell as handed out
    out = root / "grading" / "grades.csv"
    assert grading.main([str(subs / "ada"), str(subs / "bea"), "--release", str(released), "--out", str(out),
                         "--quiet", "--cell-timeout", "30", "--feedback", str(root / "feedback")]) == 0
    return {"root": root, "out": out}


def _rows(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {(r["student"], r["grade_id"]): r for r in csv.DictReader(handle)}


def test_a_huge_written_answer_is_read_only_as_far_as_the_row_needs() -> None:
    import tracemalloc

    huge = "word " * 4_000_000  # 20 MB; reading a 90 MB answer whole once took the grader to 2.5 GB
    tracemalloc.start()
    try:
        status, reason = written.answer_row(huge, "")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == written.MANUAL and len(reason) < written.ANSWER_CHARS + 100
    assert peak < 5_000_000  # bytes; split whole, these 4,000,000 words took hundreds of MB


def test_each_written_answer_is_a_row_to_score_with_the_answer_beside_it(graded) -> None:
    rows = _rows(graded["out"])
    ada, bea = rows[("ada", "fixture-why")], rows[("bea", "fixture-why")]
    assert (ada["status"], ada["points"], ada["max_points"]) == ("manual", "0", "2")
    assert "needs manual grading" in ada["reason"] and "Words are what the spaces separate" in ada["reason"]
    assert "Exercise 2" not in ada["reason"]  # the heading is the release's, not the answer
    assert (bea["status"], bea["points"]) == ("failed", "0") and "left blank" in bea["reason"]
    assert rows[("ada", "fixture-add")]["status"] == "passed"
    assert "fixture-why" in (graded["root"] / "feedback" / "ada.md").read_text(encoding="utf-8")


def test_scores_are_recorded_as_overrides_and_every_export_applies_them(graded, capsys) -> None:
    root, book = graded["root"], graded["out"]
    todo = root / "todo.csv"
    assert written.main([str(book), "--template", str(todo)]) == 0
    with todo.open(newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    assert [(r["student"], r["grade_id"], r["points"]) for r in lines] == [("ada", "fixture-why", "")]
    assert "Words are what the spaces separate" in lines[0]["answer"]
    scores = root / "scores.csv"
    scores.write_text("student,grade_id,points,reason\nada,fixture-why,1.5,right idea; no example\n",
                      encoding="utf-8")
    assert written.main([str(book), "--from", str(scores), "--by", "TA Grace"]) == 0
    (recorded,) = overrides.read_overrides(book)
    assert (recorded.student, recorded.grade_id, recorded.points, recorded.by) == ("ada", "fixture-why", 1.5,
                                                                                    "TA Grace")
    wide = root / "wide.csv"
    assert export.main([str(book), "--format", "csv-wide", "--out", str(wide)]) == 0
    with wide.open(newline="", encoding="utf-8") as handle:
        table = {r["student"]: r for r in csv.DictReader(handle)}
    assert table["ada"]["01_fixture"] == "6.5" and table["bea"]["01_fixture"] == "5"  # 2 + 3 + 1.5; 2 + 3 + 0
    assert written.main([str(book), "--template", str(todo)]) == 0
    assert "0 written answer(s) to score" in capsys.readouterr().out


@pytest.mark.parametrize("text,message", [
    ("student,grade_id,points\nzed,fixture-why,1\n", "has no written answer"),
    ("student,grade_id,points\nada,fixture-add,1\n", "has no written answer"),
    ("student,grade_id,points\nada,fixture-why,lots\n", "is not a number"),
    ("student,grade_id,points\nada,fixture-why,3\n", "not between 0 and 2"),
    ("student,grade_id\nada,fixture-why\n", "the columns are"),
    ("student,grade_id,points\nada,fixture-why,\n", "scores nothing"),
    ("student,grade_id,points\nada,fixture-why,1\nada,fixture-why,9\n", "line 3"),
], ids=["unknown-student", "a-check-row", "not-a-number", "too-many", "no-points-column", "nothing", "second-line"])
def test_bad_input_a_scores_file_records_nothing(graded, tmp_path, capsys, text, message) -> None:
    book = tmp_path / "grades.csv"
    shutil.copy(graded["out"], book)
    scores = tmp_path / "scores.csv"
    scores.write_text(text, encoding="utf-8")
    assert written.main([str(book), "--from", str(scores)]) == 2
    assert message in capsys.readouterr().err
    assert not overrides.audit_path(book).exists()


def test_bad_input_no_gradebook_or_no_scores_file(tmp_path, capsys) -> None:
    assert written.main([str(tmp_path / "nowhere.csv"), "--from", str(tmp_path / "s.csv")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    book = tmp_path / "grades.csv"
    book.write_text("a,b\n1,2\n", encoding="utf-8")
    assert written.main([str(book), "--from", str(tmp_path / "s.csv")]) == 2
    assert "not a gradebook" in capsys.readouterr().err


def test_every_core_notebook_asks_one_written_question_in_english_and_chinese() -> None:
    root = Path(__file__).resolve().parents[1]
    core = ("00", "01", "02", "03", "04", "06", "07", "08")
    ids = set()
    for number in core:
        (english,) = (root / "notebooks").glob(f"{number}_*.ipynb")
        chinese = root / "notebooks" / "zh" / english.name
        for path in (english, chinese):
            nb = nbformat.read(str(path), as_version=4)
            cells = written.written_cells(nb)
            assert len(cells) == 1 and cells[0].points == 1, path
            source = nb.cells[cells[0].index].source
            assert "BEGIN SOLUTION" not in source and any(stub in source for stub in ("*Your answer here.*",
                                                                                     "*在这里写下你的答案。*")), path
            ids.add(cells[0].grade_id)
        assert "用自己的话说" in nbformat.read(str(chinese), as_version=4).cells[cells[0].index].source
    assert len(ids) == len(core)  # one grade id per notebook, the same in both languages


def test_a_chinese_answer_is_told_apart_from_the_chinese_question_and_stub() -> None:
    released = "### 用自己的话说\n\n为什么？两三句话就够了。\n\n*在这里写下你的答案。*"
    assert written.answer_row(released, released)[0] == "failed"
    status, reason = written.answer_row(released.replace("*在这里写下你的答案。*", "因为窗口有限。"), released)
    assert status == "manual" and reason.endswith("因为窗口有限。")


def test_a_chinese_notebooks_untouched_question_is_a_blank_answer_to_the_grader() -> None:
    """The grader grades against the English release; the Chinese question comes from the release's zh/ twin."""
    from memlib.course.grade import load_release

    root = Path(__file__).resolve().parents[1]
    (assignment,) = load_release(root / "notebooks", ["01"])
    (cell,) = assignment.written
    chinese = nbformat.read(str(root / "notebooks" / "zh" / assignment.name), as_version=4)
    question = chinese.cells[cell.index].source
    released = "\n".join((assignment.nb.cells[cell.index].source, *cell.translations))
    assert written.answer_row(question, released) == (
        "failed", "written answer: left blank (the cell still says 'Your answer here')")
    status, reason = written.answer_row(question.replace("*在这里写下你的答案。*", "因为稀释。"), released)
    assert status == "manual" and reason.endswith("因为稀释。")


def test_the_class_summary_counts_the_answers_to_score(written_course, tmp_path, capsys) -> None:
    released = written_course["release"]
    nb = solved(released)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("memlib", {}).get("written"):
            cell.source += "\n\nBecause spaces separate words."
    write_notebook(tmp_path / "dee", nb)
    assert grading.main([str(tmp_path / "dee"), "--release", str(released), "--out", str(tmp_path / "g.csv"),
                         "--quiet", "--cell-timeout", "30"]) == 0
    assert "1 written answer(s) to score" in capsys.readouterr().out


def test_bad_input_a_template_needs_a_gradebook_and_never_overwrites_it(graded, tmp_path, capsys) -> None:
    assert written.main([str(tmp_path / "nowhere.csv"), "--template", str(tmp_path / "t.csv")]) == 2
    assert "no template written" in capsys.readouterr().err and not (tmp_path / "t.csv").exists()
    book = tmp_path / "grades.csv"
    shutil.copy(graded["out"], book)
    before = book.read_bytes()
    assert written.main([str(book), "--template", str(book)]) == 2
    assert "is the gradebook" in capsys.readouterr().err and book.read_bytes() == before


def test_a_name_that_starts_like_a_formula_can_be_scored_and_exported(graded, tmp_path) -> None:
    # the gradebook quotes "=ada" as "'=ada"; the template, the scores file and the roster must still find her
    with graded["out"].open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["student"] = "'=ada" if row["student"] == "ada" else row["student"]
    book = tmp_path / "grades.csv"
    with book.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    todo = tmp_path / "todo.csv"
    assert written.main([str(book), "--template", str(todo)]) == 0
    filled = todo.read_text(encoding="utf-8").replace(",fixture-why,,", ",fixture-why,2,", 1)
    (tmp_path / "scores.csv").write_text(filled, encoding="utf-8")
    assert written.main([str(book), "--from", str(tmp_path / "scores.csv"), "--by", "TA"]) == 0
    roster = tmp_path / "roster.csv"
    roster.write_text("student,name,id,email\n=ada,Ada,1,a@example.edu\nbea,Bea,2,b@example.edu\n", encoding="utf-8")
    out = tmp_path / "moodle.csv"
    assert export.main([str(book), "--format", "moodle", "--roster", str(roster), "--out", str(out)]) == 0
    with out.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    assert ["Ada", "a@example.edu", "1", "7"] in table, table  # 2 + 3 + the written 2
