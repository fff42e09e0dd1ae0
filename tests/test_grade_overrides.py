"""Overrides and regrades, on a small class graded for real.

Three students hand in the fixture course's two notebooks (ada: both solved; bea: 01 as
handed out, 02 solved; cy: 01 half solved). The class is graded, an instructor overrides
one row, every export shows it; then bea hands in 01 again, solved, and only her 01 is
regraded into the same gradebook and feedback: her other rows, everyone else's, and the
override stay.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURE_NOTEBOOK, answered, blank, solved, write_notebook
from memlib.course import export, grade as grading, overrides

pytestmark = pytest.mark.grading

OTHER = "02_other.ipynb"
GRADE = ["--quiet", "--cell-timeout", "30"]


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _table(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("term")
    released = course["release"]
    subs = root / "submissions"
    write_notebook(subs / "ada", solved(released))
    write_notebook(subs / "ada", solved(released, OTHER), OTHER)
    write_notebook(subs / "bea", blank(released))
    write_notebook(subs / "bea", solved(released, OTHER), OTHER)
    write_notebook(subs / "cy", answered(released, FIXTURE_NOTEBOOK, **{"def add": "solution"}))
    out, feedback = root / "grading" / "grades.csv", root / "grading" / "feedback"
    class_ = [str(subs / name) for name in ("ada", "bea", "cy")]
    code = grading.main([*class_, "--release", str(released), "--out", str(out), "--feedback", str(feedback), *GRADE])
    assert code == 0
    roster = root / "roster.csv"
    roster.write_text("student,name,id,email\nada,Ada L,101,ada@example.edu\nbea,Bea K,102,bea@example.edu\n"
                      "cy,Cy T,103,cy@example.edu\n", encoding="utf-8")
    return {"root": root, "subs": subs, "out": out, "feedback": feedback, "roster": roster, "class": class_,
            "release": released}


def _points(rows: list[dict[str, str]]) -> dict[tuple[str, str], str]:
    return {(r["student"], r["grade_id"]): r["points"] for r in rows}


def test_the_class_as_graded(graded):
    assert _points(_read(graded["out"])) == {
        ("ada", "fixture-add"): "2", ("ada", "fixture-words"): "3", ("ada", "fixture-other"): "1",
        ("bea", "fixture-add"): "0", ("bea", "fixture-words"): "0", ("bea", "fixture-other"): "1",
        ("cy", "fixture-add"): "2", ("cy", "fixture-words"): "0", ("cy", "fixture-other"): "0",
    }


def test_a_bad_override_is_refused_and_records_nothing(graded, capsys):
    book = str(graded["out"])
    cases = [
        (["--student", "zed", "--grade-id", "fixture-add", "--points", "1", "--reason", "x"], "no student 'zed'"),
        (["--student", "bea", "--grade-id", "fixture-nope", "--points", "1", "--reason", "x"],
         "their rows are fixture-add, fixture-other, fixture-words"),
        (["--student", "bea", "--grade-id", "fixture-add", "--points", "3", "--reason", "x"],
         "points 3 are not between 0 and 2"),
        (["--student", "bea", "--grade-id", "fixture-add", "--points", "-1", "--reason", "x"], "not between 0 and 2"),
        (["--student", "bea", "--grade-id", "fixture-add", "--points", "1", "--reason", "  "], "give a --reason"),
    ]
    for argv, message in cases:
        assert overrides.main([book, *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("override not recorded: ") and message in err, err
    assert overrides.main([str(graded["root"] / "nothing.csv"), *cases[0][0]]) == 2
    assert "cannot be read" in capsys.readouterr().err
    assert not overrides.audit_path(graded["out"]).exists()


@pytest.mark.slow
def test_an_override_reaches_every_export_and_survives_a_regrade(graded, capsys):
    book, root = graded["out"], graded["root"]
    before = _read(book)
    assert overrides.main([str(book), "--student", "bea", "--grade-id", "fixture-add", "--points", "1.5",
                           "--reason", "stub ran, sum right by hand", "--by", "T. Ng"]) == 0
    assert "bea fixture-add 0 -> 1.5" in capsys.readouterr().out
    audit = _read(overrides.audit_path(book))
    assert [(a["student"], a["grade_id"], a["points"], a["graded_points"], a["by"]) for a in audit] == [
        ("bea", "fixture-add", "1.5", "0", "T. Ng")]
    assert _read(book) == before, "the gradebook stays the grader's; the audit file holds the override"

    def exports() -> dict[str, list[list[str]]]:
        tables = {}
        for fmt in export.FORMATS:
            target = root / f"{fmt}.csv"
            roster = ["--roster", str(graded["roster"])]
            assert export.main([str(book), "--format", fmt, *roster, "--out", str(target)]) == 0
            tables[fmt] = _table(target)
        return tables

    tables = exports()
    assert tables["canvas"][3] == ["Bea K", "102", "", "", "", "1.5", "1"]
    assert tables["moodle"][0] == ["Full name", "Email address", "User ID", "01_fixture", "02_other"]
    assert tables["moodle"][2] == ["Bea K", "bea@example.edu", "102", "1.5", "1"]
    assert tables["csv-wide"][2][0] == "bea" and tables["csv-wide"][2][-3:] == ["1.5", "1", "2.5"]

    # bea hands in 01 again, solved: only her 01 is regraded, into the same gradebook and feedback
    other_feedback = {p.name: p.read_bytes() for p in graded["feedback"].glob("*.md") if p.stem != "bea"}
    bea_before = (graded["feedback"] / "bea.md").read_text(encoding="utf-8")
    write_notebook(graded["subs"] / "bea", solved(graded["release"]))
    code = grading.main([*graded["class"], "--release", str(graded["release"]), "--out", str(book),
                         "--feedback", str(graded["feedback"]), "--student", "bea", "--assignment", "01",
                         "--update", *GRADE])
    assert code == 0
    after = _read(book)
    assert len(after) == len(before)
    changed = [(b, a) for b, a in zip(before, after) if b != a]
    assert [(a["student"], a["grade_id"], b["points"], a["points"]) for b, a in changed] == [
        ("bea", "fixture-add", "0", "2"), ("bea", "fixture-words", "0", "3")]
    assert {p.name: p.read_bytes() for p in graded["feedback"].glob("*.md") if p.stem != "bea"} == other_feedback
    bea = (graded["feedback"] / "bea.md").read_text(encoding="utf-8")
    assert "Total: 6 / 6 points" in bea and "Total: 1 / 6 points" in bea_before
    assert bea.count("## 01_fixture.ipynb: 5 / 5 points") == 1 and "## 02_other.ipynb: 1 / 1 points" in bea
    assert bea.index("## 01_fixture.ipynb") < bea.index("## 02_other.ipynb")

    # the override outlives the regrade: the latest word on a row is the instructor's
    tables = exports()
    assert tables["csv-wide"][2][-3:] == ["4.5", "1", "5.5"]
    assert tables["canvas"][3][-2:] == ["4.5", "1"]
    assert tables["moodle"][2][-2:] == ["4.5", "1"]


def test_update_needs_a_gradebook_and_student_needs_a_submission(graded, tmp_path, capsys):
    argv = [*graded["class"], "--release", str(graded["release"]), *GRADE]
    assert grading.main([*argv, "--out", str(tmp_path / "none.csv"), "--update"]) == 2
    assert "does not exist; grade the class once without --update" in capsys.readouterr().err
    not_a_book = tmp_path / "x.csv"
    not_a_book.write_text("a,b\n1,2\n", encoding="utf-8")
    assert grading.main([*argv, "--out", str(not_a_book), "--update"]) == 2
    assert "is not a gradebook" in capsys.readouterr().err and not_a_book.read_text() == "a,b\n1,2\n"
    assert grading.main([*argv, "--out", str(tmp_path / "g.csv"), "--student", "zed"]) == 2
    assert "no submission of 'zed'" in capsys.readouterr().err


def test_an_override_no_row_takes_is_named_by_the_export(graded, tmp_path, capsys):
    book = tmp_path / "grades.csv"
    shutil.copy(graded["out"], book)
    assert overrides.main([str(book), "--student", "cy", "--grade-id", "fixture-words", "--points", "3",
                           "--reason", "late fix accepted"]) == 0
    rows = _read(book)
    for row in rows:  # as if a regrade against another release had renamed the row
        if row["student"] == "cy" and row["grade_id"] == "fixture-words":
            row["grade_id"] = "fixture-count"
    with book.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    capsys.readouterr()
    assert export.main([str(book), "--format", "csv-wide", "--out", str(tmp_path / "w.csv")]) == 1
    assert "override not applied: 'cy' fixture-words" in capsys.readouterr().err


def _book(path: Path, rows: list[tuple[str, str, str, str, str, str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "notebook", "grade_id", "points", "max_points", "status", "reason"])
        writer.writerows(rows)
    return path


def test_a_grade_id_of_two_notebooks_is_overridden_in_the_one_named(tmp_path, capsys):
    """The fresh instructor's walk: an extension for one notebook's late penalty reached both notebooks."""
    book = _book(tmp_path / "grades.csv", [
        ("grace", "01_context_window.ipynb", "late-penalty", "-0.2", "0", "late", "1 day(s) late"),
        ("grace", "03_archival_bm25.ipynb", "late-penalty", "-0.4", "0", "late", "2 day(s) late")])
    with pytest.raises(overrides.OverrideError, match="in 2 notebooks .*name one with --notebook"):
        overrides.record(book, "grace", "late-penalty", 0, "extension", "me")
    assert overrides.main([str(book), "--student", "grace", "--grade-id", "late-penalty", "--points", "0",
                           "--reason", "extension granted", "--notebook", "03"]) == 0
    rows, unapplied = overrides.apply(_read(book), overrides.read_overrides(book))
    assert [(r["notebook"], r["points"]) for r in rows] == [("01_context_window.ipynb", "-0.2"),
                                                           ("03_archival_bm25.ipynb", "0")]
    assert unapplied == []
    with pytest.raises(overrides.OverrideError, match="no row 'late-penalty' for notebook '04'"):
        overrides.record(book, "grace", "late-penalty", 0, "extension", "me", notebook="04")


def test_a_written_score_does_not_carry_over_to_a_changed_answer(tmp_path):
    """The fresh instructor's walk: a resubmitted written answer, regraded, kept the old answer's score."""
    from memlib.course import written

    answer = "written answer, needs manual grading (grade score): {}"
    book = _book(tmp_path / "grades.csv", [
        ("linus", "03_archival_bm25.ipynb", "03-written-bm25-parts", "0", "1", "manual", answer.format("idf only"))])
    scores = tmp_path / "scores.csv"
    scores.write_text("student,grade_id,points,reason\nlinus,03-written-bm25-parts,0,names no part of BM25\n")
    written.score(book, scores, "me")
    rows, _ = overrides.apply(_read(book), overrides.read_overrides(book))
    assert rows[0]["reason"].startswith("override: 0 points") and written.template(book, tmp_path / "t.csv") == 0
    # the regrade of his new notebook rewrites his row with the new answer
    _book(book, [("linus", "03_archival_bm25.ipynb", "03-written-bm25-parts", "0", "1", "manual",
                  answer.format("idf weighs rare words; length normalisation evens long documents"))])
    rows, unapplied = overrides.apply(_read(book), overrides.read_overrides(book))
    assert rows[0]["points"] == "0" and rows[0]["reason"].startswith("written answer changed since it was scored")
    assert unapplied == [] and written.template(book, tmp_path / "t.csv") == 1
