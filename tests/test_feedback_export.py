"""Feedback in bulk: HTML pages, Moodle's feedback-files zip, Canvas per-user files, from a class graded for real."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from conftest import FIXTURE_NOTEBOOK, blank, solved, write_notebook
from memlib.course import feedback_export, grade as grading, overrides

pytestmark = pytest.mark.grading

HOSTILE = "<i>eve"


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("feedback")
    released = course["release"]
    subs = root / "submissions"
    # as Moodle's and Canvas's "download all" name them, and a plain folder with markup in its name
    write_notebook(subs / "Ada Lovelace_12_assignsubmission_file_", solved(released))
    write_notebook(subs, blank(released), f"hopperg_LATE_4242_777_{FIXTURE_NOTEBOOK}")
    write_notebook(subs / HOSTILE, solved(released))
    out, feedback = root / "grades.csv", root / "feedback"
    code = grading.main([*map(str, sorted(subs.iterdir())), "--release", str(released), "--assignment", "01",
                         "--out", str(out), "--feedback", str(feedback), "--quiet", "--cell-timeout", "30"])
    assert code == 0
    return {"root": root, "out": out, "feedback": feedback}


def test_html_pages_escape_what_students_wrote_and_show_overrides(graded):
    assert overrides.main([str(graded["out"]), "--student", "hopperg (canvas 4242)", "--grade-id", "fixture-add",
                           "--points", "1", "--reason", "partly right"]) == 0
    target = graded["root"] / "html"
    assert feedback_export.main([str(graded["out"]), "--feedback-in", str(graded["feedback"]), "--format", "html",
                                 "--out", str(target)]) == 0
    pages = sorted(p.name for p in target.iterdir())
    assert pages == ["Ada_Lovelace_moodle_12.html", "hopperg_canvas_4242.html", "i_eve.html"]
    eve = (target / "i_eve.html").read_text(encoding="utf-8")
    assert "<i>eve" not in eve and "&lt;i&gt;eve" in eve and "Total: 5 / 5 points" in eve
    hopper = (target / "hopperg_canvas_4242.html").read_text(encoding="utf-8")
    assert "Total: 1 / 5 points" in hopper and "override: 1 points (graded 0)" in hopper
    assert "not solved yet: Exercise 1" in hopper  # the feedback file's text, as text


def test_moodle_zip_names_each_page_for_its_participant(graded, capsys):
    target = graded["root"] / "moodle.zip"
    assert feedback_export.main([str(graded["out"]), "--feedback-in", str(graded["feedback"]), "--format", "moodle",
                                 "--out", str(target)]) == 1  # two students are not from the Moodle download
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
        page = archive.read(names[0]).decode("utf-8")
    assert names == ["Ada Lovelace_12_assignsubmission_file_feedback.html"]
    # what Moodle's importer reads from the name: the participant id and a submission plugin
    parts = names[0].split("_", 4)
    assert (parts[1], parts[2], parts[3], parts[4]) == ("12", "assignsubmission", "file", "feedback.html")
    assert "Feedback for Ada Lovelace (moodle 12)" in page
    assert "not from a Moodle download" in capsys.readouterr().err


def test_canvas_files_are_named_for_the_user_id(graded, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student,id\n{HOSTILE},5151\n", encoding="utf-8")
    target = graded["root"] / "canvas"
    assert feedback_export.main([str(graded["out"]), "--feedback-in", str(graded["feedback"]), "--format", "canvas",
                                 "--roster", str(roster), "--out", str(target)]) == 1
    assert sorted(p.name for p in target.iterdir()) == ["4242.html", "5151.html"]
    assert re.search(r"left out 'Ada Lovelace \(moodle 12\)': no Canvas user id", capsys.readouterr().err)


def test_what_cannot_be_written_says_why(graded, tmp_path, capsys):
    book, fb = str(graded["out"]), str(graded["feedback"])
    for argv, message in [
        ([book, "--feedback-in", str(tmp_path / "none"), "--format", "html", "--out", str(tmp_path / "h")],
         "does not exist"),
        ([book, "--feedback-in", fb, "--format", "pdf", "--out", str(tmp_path / "h")], "unknown format 'pdf'"),
        ([book, "--feedback-in", fb, "--format", "moodle", "--out", str(tmp_path / "m")], "Moodle takes a .zip"),
        ([book, "--feedback-in", str(tmp_path), "--format", "html", "--out", str(tmp_path / "h")],
         "no student could be written"),
    ]:
        assert feedback_export.main(argv) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "h").exists() and not (tmp_path / "m").exists()


def test_the_instructors_review_notes_stay_off_the_students_page() -> None:
    """The fresh instructor's walk: a copy flag reached the student's page through the gradebook's reason."""
    from memlib.course.feedback_export import student_page

    row = {"notebook": "01_context_window.ipynb", "grade_id": "01-token-budget", "points": "2", "max_points": "2",
           "status": "passed",
           "reason": "graded 01.ipynb as 01_context_window.ipynb; review: matches the published reference"}
    page = student_page("ada", [row], "Total: 2 / 2")
    assert "graded 01.ipynb as 01_context_window.ipynb" in page and "review:" not in page
    assert "published reference" not in page
