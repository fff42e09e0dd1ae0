"""Exporting a gradebook to an LMS (memlib.course.export), and grading LMS downloads.

The file formats are checked against what Canvas and Moodle document for their
grade imports (each test says what, in its own words). Grading a Canvas-named
and a Moodle-named class of the fixture course (tests/fixtures/course) runs
ten small notebooks once, in one module fixture; the name mapping itself is
tested without running any.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from memlib.course import export, shards
from memlib.course import grade as grading
from memlib.course.grading import model
from conftest import blank, solved

ADD, OTHER = "01_fixture.ipynb", "02_other.ipynb"  # 01: fixture-add 2 + fixture-words 3 points; 02: fixture-other 1
GRADEBOOK_HEADER = ["student", "notebook", "grade_id", "points", "max_points", "status", "reason"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1")


def _write_csv(path: Path, rows: list[list]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def _read_csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _gradebook(path: Path, points: dict[str, tuple]) -> Path:
    """A gradebook as `grade` writes it: per student (add, words, other) points, None for a missing notebook."""
    rows = [GRADEBOOK_HEADER]
    for student, (add, words, other) in points.items():
        for notebook, grade_id, got, most in ((ADD, "fixture-add", add, 2), (ADD, "fixture-words", words, 3),
                                               (OTHER, "fixture-other", other, 1)):
            status = "missing" if got is None else ("passed" if got == most else "failed")
            rows.append([student, notebook, grade_id, got or 0, most, status, ""])
    return _write_csv(path, rows)


def _export(*argv) -> int:
    return export.main([str(a) for a in argv])


# --------------------------------------------------------------------------- download names


def test_canvas_download_names() -> None:
    parse = export.parse_download_name
    assert parse("lovelaceada_12345_67890_03_archival_bm25.ipynb") == export.DownloadName(
        "canvas", "lovelaceada", "12345", "03_archival_bm25.ipynb")
    late = parse("lovelaceada_LATE_12345_67891_03_archival_bm25.ipynb")
    assert (late.student, late.original, late.late) == ("lovelaceada (canvas 12345)", "03_archival_bm25.ipynb", True)
    assert parse("lovelaceada_late_12345_67891_a.ipynb").late  # newer Canvas writes it in lower case
    # a re-submitted file of the same name gets "-1" from Canvas; a name with digits and an underscore stays whole
    assert parse("lovelaceada_12345_67892_03_archival_bm25-1.ipynb").original == "03_archival_bm25-1.ipynb"
    assert parse("müllerjörg_2_3_x.zip").student == "müllerjörg (canvas 2)"
    assert parse("o_brienpat_12_34_01_a.ipynb").name == "o_brienpat"
    for plain in ("ada", "ada.zip", "03_archival_bm25.ipynb", "03_archival_bm25 (1).ipynb", "linus_2024.ipynb",
                  "12345_67890_x.ipynb", ""):
        assert parse(plain) is None, plain
    assert export.original_name("lovelaceada_12345_67890_03_x.ipynb") == "03_x.ipynb"
    assert export.original_name("sub/lovelaceada_12345_67890_03_x.ipynb") == "sub/03_x.ipynb"
    assert export.original_name("sub/03_x.ipynb") == "sub/03_x.ipynb"


def test_moodle_download_names() -> None:
    flat = export.parse_download_name("Ada Lovelace_12345_assignsubmission_file_03_archival_bm25.ipynb")
    assert flat == export.DownloadName("moodle", "Ada Lovelace", "12345", "03_archival_bm25.ipynb")
    folder = export.parse_download_name("Ada Lovelace_12345_assignsubmission_file_")
    assert (folder.student, folder.original) == ("Ada Lovelace (moodle 12345)", "")
    assert export.download_student("Ada Lovelace_12345_assignsubmission_onlinetext_") == "Ada Lovelace (moodle 12345)"
    assert export.download_student("Participant_88_assignsubmission_file_") == "Participant (moodle 88)"  # blind marking
    assert export.download_student("Ada Lovelace_12345_other_file_x.ipynb") is None
    assert export.original_name("Ada Lovelace_12345_assignsubmission_file_") == "Ada Lovelace_12345_assignsubmission_file_"


def test_a_full_name_shaped_like_a_download_name_stays_its_own_student() -> None:
    # Moodle writes the full name with its "_" turned into spaces (mod/assign, the download's file prefix), so a
    # student who names themself "Ada Lovelace_12345_assignsubmission_file_" gets a folder of their own
    moodle_writes = "Ada Lovelace 12345 assignsubmission file _67890_assignsubmission_file_"
    assert export.download_student(moodle_writes) == "Ada Lovelace 12345 assignsubmission file (moodle 67890)"
    assert export.download_student(moodle_writes) != export.download_student("Ada Lovelace_12345_assignsubmission_file_")


# --------------------------------------------------------------------------- a Canvas and a Moodle class


def _downloads(course, folder: str, files: dict[str, tuple[str, bool]]) -> list[Path]:
    """Write each `path: (released notebook, solved)` under `folder`; the paths a `grade` command is given."""
    root = course["root"] / folder
    for relative, (name, is_solved) in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write((solved if is_solved else blank)(course["release"], name), str(target))
    return sorted(root.iterdir())


CANVAS_CLASS = {  # 3 students x 2 notebooks; Grace's 01 came in late, Alan re-submitted his 01
    "lovelaceada_101_9001_01_fixture.ipynb": (ADD, True),
    "lovelaceada_101_9002_02_other.ipynb": (OTHER, True),
    "hoppergrace_LATE_102_9003_01_fixture.ipynb": (ADD, False),
    "hoppergrace_102_9004_02_other.ipynb": (OTHER, True),
    "turingalan_103_9006_01_fixture-1.ipynb": (ADD, True),
    "turingalan_103_9007_02_other.ipynb": (OTHER, False),
}
MOODLE_CLASS = {  # one student downloaded into a folder, one as flat files
    "Ada Lovelace_7_assignsubmission_file_/01_fixture.ipynb": (ADD, True),
    "Ada Lovelace_7_assignsubmission_file_/02_other.ipynb": (OTHER, False),
    "Grace Hopper_8_assignsubmission_file_01_fixture.ipynb": (ADD, False),
    "Grace Hopper_8_assignsubmission_file_02_other.ipynb": (OTHER, True),
}


def test_the_grader_maps_download_names_to_one_student_each(course) -> None:
    """No notebook runs here: what the grader plans for each file of the downloads."""
    assignments = grading.load_release(course["release"])
    for folder, files, students in (
        ("plan-canvas", CANVAS_CLASS, ["hoppergrace (canvas 102)", "lovelaceada (canvas 101)", "turingalan (canvas 103)"]),
        ("plan-moodle", MOODLE_CLASS, ["Ada Lovelace (moodle 7)", "Grace Hopper (moodle 8)"]),
    ):
        found = grading._discover(_downloads(course, folder, files))
        assert sorted(s.student for s in found) == students
        jobs = [job for submission in found for job in grading._plan(submission, assignments)]
        assert [(job.student, job.assignment.name) for job in jobs] == [
            (s.student, a.name) for s in found for a in assignments]  # one job per student and notebook
        assert not [job for job in jobs if job.status_if_not_run], [job.error for job in jobs]
        # the feedback names the file the student handed in, not the download's name for it
        assert {job.chosen.display for job in jobs} <= {ADD, OTHER, "01_fixture-1.ipynb"}
    # a plain class is untouched: folder and file names are the students
    plain = grading._discover(_downloads(course, "plan-plain", {"ada/01_fixture.ipynb": (ADD, False),
                                                                 "bob.ipynb": (ADD, False)}))
    assert [(s.student, s.also) for s in plain] == [("ada", []), ("bob", [])]


@pytest.fixture(scope="module")
def graded(course) -> dict[str, Path]:
    """Both classes graded for real, in parallel: ten notebook runs in all."""
    out = course["root"] / "graded"
    out.mkdir()
    runs = {}
    for name, files in (("canvas", CANVAS_CLASS), ("moodle", MOODLE_CLASS)):
        command = [sys.executable, "-m", "memlib", "grade", *map(str, _downloads(course, name, files)),
                   "--release", str(course["release"]), "--out", str(out / f"{name}.csv"), "--quiet",
                   "--cell-timeout", "30", "--sandbox", "none"]  # known notebooks: confinement is not under test
        runs[name] = subprocess.Popen(command, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    logs = {name: run.communicate(timeout=600)[0] for name, run in runs.items()}
    assert [run.returncode for run in runs.values()] == [0, 0], logs
    return {name: out / f"{name}.csv" for name in runs}


def _by_student(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    rows: dict[str, list[tuple[str, str, str]]] = {}
    for row in csv.DictReader(path.open(newline="", encoding="utf-8")):
        rows.setdefault(row["student"], []).append((row["grade_id"], row["status"], row["points"]))
    return rows


@pytest.mark.slow
def test_a_canvas_class_is_one_row_per_student_and_exports_without_a_roster(graded, tmp_path: Path) -> None:
    rows = _by_student(graded["canvas"])
    assert list(rows) == ["hoppergrace (canvas 102)", "lovelaceada (canvas 101)", "turingalan (canvas 103)"]
    assert not [r for student in rows.values() for r in student if r[1] == "missing"]
    assert rows["lovelaceada (canvas 101)"] == [("fixture-add", "passed", "2"), ("fixture-words", "passed", "3"),
                                                ("fixture-other", "passed", "1")]
    assert rows["hoppergrace (canvas 102)"][0][1:] == ("failed", "0")  # the late blank notebook was graded
    assert rows["turingalan (canvas 103)"][0][1:] == ("passed", "2")  # so was the re-submitted one
    out = tmp_path / "canvas-import.csv"
    assert _export(graded["canvas"], "--format", "canvas", "--out", out) == 0
    assert _read_csv(out) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_fixture", "02_other"],
        ["Points Possible", "", "", "", "", "5", "1"],
        ["hoppergrace", "102", "", "", "", "0", "1"],
        ["lovelaceada", "101", "", "", "", "5", "1"],
        ["turingalan", "103", "", "", "", "5", "0"],
    ]
    _assert_canvas_import_file(out)


@pytest.mark.slow
def test_a_moodle_class_is_one_row_per_student_and_exports_with_a_roster(graded, tmp_path: Path) -> None:
    rows = _by_student(graded["moodle"])
    assert list(rows) == ["Ada Lovelace (moodle 7)", "Grace Hopper (moodle 8)"]
    assert not [r for student in rows.values() for r in student if r[1] == "missing"]
    roster = _write_csv(tmp_path / "roster.csv", [
        ["name", "email", "idnumber"],
        ["Ada Lovelace", "ada@example.org", "S1"],
        ["Grace Hopper", "grace@example.org", "S2"],
        ["Alan Turing", "alan@example.org", ""],  # on the course, handed nothing in
    ])
    out = tmp_path / "moodle-import.csv"
    assert _export(graded["moodle"], "--format", "moodle", "--roster", roster, "--out", out) == 0
    assert _read_csv(out) == [
        ["Full name", "Email address", "ID number", "01_fixture", "02_other"],
        ["Ada Lovelace", "ada@example.org", "S1", "5", "0"],
        ["Grace Hopper", "grace@example.org", "S2", "0", "1"],
        ["Alan Turing", "alan@example.org", "", "", ""],
    ]
    _assert_moodle_import_file(out, identity="Email address")


# --------------------------------------------------------------------------- the documented formats


def _assert_canvas_import_file(path: Path) -> None:
    """What Canvas documents for a gradebook import file, checked on `path`.

    University guides to Canvas's grade import (Ohio State's "Import CSV File
    for Carmen Grades", after Canvas's own guide) ask for the layout of
    Canvas's gradebook export: the student's name, the Canvas ID and/or SIS
    User ID (one of the three is enough to find the student), the SIS Login
    ID, the Section, then one column per assignment. Canvas's importer (GradebookImporter in the canvas-lms source)
    takes the header only when its first cell names the Student and its second
    the ID, with the student-information columns ending at Section; a first cell
    saying "Points Possible" marks the row of the assignments' maximum points
    (used when an assignment is new); any other column is an assignment, found
    by its title (or a "(id)" at the end of it) or else created; a blank grade
    means no score.
    """
    rows = _read_csv(path)
    header, possible, students = rows[0], rows[1], rows[2:]
    assert "Student" in header[0] and "ID" in header[1]
    assert header[2:5] == ["SIS User ID", "SIS Login ID", "Section"]
    assert header[5:] and all(title and not title.endswith(")") for title in header[5:])
    assert "Points Possible" in possible[0] and all(float(p) > 0 for p in possible[5:])
    for row in students:
        assert len(row) == len(header)
        assert any(row[1:4]), row  # the ID, SIS User ID or SIS Login ID that finds the student
        assert all(cell == "" or float(cell) >= 0 for cell in row[5:]), row


def _assert_moodle_import_file(path: Path, identity: str) -> None:
    """What Moodle documents for "Import grades from CSV", checked on `path`.

    Moodle's grade import docs: the first line names the columns; in the import
    form, one column is mapped ("Map from") to the user field that finds the
    student ("Map to": userid, username, useridnumber or useremail) and each
    other column to a grade item (or a new one). Its importer (load_data.php in
    the Moodle source) stops the whole import at a row whose user it cannot
    find, and reads an empty cell (or "-") as no grade; anything else in a
    grade column must be a number.
    """
    rows = _read_csv(path)
    header, students = rows[0], rows[1:]
    column = header.index(identity)
    for row in students:
        assert len(row) == len(header) and row[column], row  # every row has the identity it is mapped by
        assert all(cell == "" or float(cell) >= 0 for cell in row[-2:]), row


def test_canvas_roster_matches_by_id_or_name_and_reports_who_is_left_out(tmp_path: Path, capsys) -> None:
    book = _gradebook(tmp_path / "grades.csv", {
        "lovelaceada (canvas 101)": (2, 3, 1),
        "grace": (2, 0, None),  # her own folder name: the roster's student column names her
        "mallory": (0, 0, 0),  # in no roster
        "turingalan (canvas 999)": (2, 3, 0),  # an id the roster does not have
    })
    roster = _write_csv(tmp_path / "roster.csv", [
        ["student", "name", "id", "sis_user_id", "login_id", "section"],
        ["", "Lovelace, Ada", "101", "S101", "ada", "A"],
        ["grace", "Hopper, Grace", "", "S102", "grace", "B"],
        ["", "Turing, Alan", "103", "", "", "A"],  # handed nothing in: empty cells, which Canvas reads as no score
    ])
    out = tmp_path / "canvas.csv"
    assert _export(book, "--format", "canvas", "--roster", roster, "--out", out) == 1
    assert _read_csv(out)[2:] == [
        ["Lovelace, Ada", "101", "S101", "ada", "A", "5", "1"],
        ["Hopper, Grace", "", "S102", "grace", "B", "2", ""],
        ["Turing, Alan", "103", "", "", "A", "", ""],
    ]
    _assert_canvas_import_file(out)
    captured = capsys.readouterr()
    assert "wrote" in captured.out and "3 student(s)" in captured.out
    assert "left out 'mallory' (01_fixture 0, 02_other 0): no roster row has this student" in captured.err
    assert "left out 'turingalan (canvas 999)' (01_fixture 5, 02_other 0): no roster row has this student (or id 999)" \
        in captured.err
    assert "2 gradebook student(s) are not in" in captured.err


def test_moodle_names_a_person_once_across_assignments_and_refuses_ambiguity(tmp_path: Path, capsys) -> None:
    """Moodle's number is a participant id per assignment: two downloads give one person two numbers."""
    book = _gradebook(tmp_path / "grades.csv", {
        "Ada Lovelace (moodle 7)": (2, 3, None),  # from the download of assignment 01
        "Ada Lovelace (moodle 31)": (None, None, 1),  # from the download of assignment 02
        "John Smith (moodle 9)": (0, 0, 0),
    })
    roster = _write_csv(tmp_path / "roster.csv", [
        ["name", "username"], ["Ada Lovelace", "ada"], ["John Smith", "js1"], ["John Smith", "js2"]])
    out = tmp_path / "moodle.csv"
    assert _export(book, "--format", "moodle", "--roster", roster, "--out", out) == 1
    assert _read_csv(out) == [["Full name", "Username", "01_fixture", "02_other"], ["Ada Lovelace", "ada", "5", "1"],
                              ["John Smith", "js1", "", ""], ["John Smith", "js2", "", ""]]
    assert "2 roster rows are named 'John Smith'; add a student column" in capsys.readouterr().err
    # the same person handing in one notebook twice is not guessed at
    clash = _gradebook(tmp_path / "clash.csv", {"Ada Lovelace (moodle 7)": (2, 3, None),
                                                "Ada Lovelace (moodle 31)": (0, 0, 1)})
    assert _export(clash, "--format", "moodle", "--roster", roster, "--out", tmp_path / "no.csv") == 2
    assert "both handed in 01_fixture.ipynb" in capsys.readouterr().err and not (tmp_path / "no.csv").exists()


def test_csv_wide_with_and_without_a_roster(tmp_path: Path) -> None:
    book = _gradebook(tmp_path / "grades.csv", {"ada": (2, 3, 1), "bob": (0, 1.5, None)})
    out = tmp_path / "wide.csv"
    assert _export(book, "--format", "csv-wide", "--out", out) == 0
    assert _read_csv(out) == [["student", "01_fixture", "02_other", "total"], ["ada", "5", "1", "6"],
                              ["bob", "1.5", "", "1.5"]]
    roster = _write_csv(tmp_path / "roster.csv", [["student", "email", "section"], ["bob", "bob@example.org", "B"],
                                                   ["cy", "cy@example.org", "B"], ["ada", "ada@example.org", ""]])
    assert _export(book, "--format", "csv-wide", "--roster", roster, "--out", out) == 0
    assert _read_csv(out) == [
        ["student", "section", "email", "01_fixture", "02_other", "total"],
        ["bob", "B", "bob@example.org", "1.5", "", "1.5"],
        ["cy", "B", "cy@example.org", "", "", ""],
        ["ada", "", "ada@example.org", "5", "1", "6"],
    ]


def _dated_gradebook(path: Path) -> Path:
    """A gradebook graded with due dates: ada on time, bob 2 days late (20 %, 1 point taken), cy without 02."""
    late = ("note: late: due 2026-10-05T23:59+02:00, handed in 2026-10-07T12:00+02:00 (the zip's time for it); "
            "2 day(s) late, penalty 20 % of the points")
    ontime = "note: on time: due 2026-10-05T23:59+02:00, handed in 2026-10-05T23:00+02:00 (the zip's time for it)"
    return _write_csv(path, [
        GRADEBOOK_HEADER,
        ["ada", ADD, "fixture-add", 2, 2, "passed", ontime], ["ada", ADD, "fixture-words", 3, 3, "passed", ontime],
        ["ada", OTHER, "fixture-other", 1, 1, "passed", ontime],
        ["bob", ADD, "fixture-add", 2, 2, "passed", late], ["bob", ADD, "fixture-words", 3, 3, "passed", late],
        ["bob", ADD, "late-penalty", -1, 0, "late", late + ": 1 of 5 points taken"],
        ["bob", OTHER, "fixture-other", 1, 1, "passed", ontime],
        ["cy", ADD, "fixture-add", 0, 2, "failed", "wrong; " + ontime], ["cy", ADD, "fixture-words", 3, 3, "passed",
                                                                           ontime],
        ["cy", OTHER, "fixture-other", 0, 1, "missing", "no notebook"],
    ])


def test_late_work_reaches_csv_wide_as_columns_and_moodle_as_feedback(tmp_path: Path) -> None:
    book = _dated_gradebook(tmp_path / "grades.csv")
    out = tmp_path / "wide.csv"
    assert _export(book, "--format", "csv-wide", "--out", out) == 0
    assert _read_csv(out) == [
        ["student", "01_fixture", "02_other", "total", "01_fixture late", "01_fixture days late",
         "01_fixture late penalty", "02_other late", "02_other days late", "02_other late penalty"],
        ["ada", "5", "1", "6", "no", "0", "0", "no", "0", "0"],
        ["bob", "4", "1", "5", "yes", "2", "1", "no", "0", "0"],
        ["cy", "3", "", "3", "no", "0", "0", "", "", ""],
    ]
    roster = _write_csv(tmp_path / "roster.csv", [["student", "email"], ["ada", "a@x.org"], ["bob", "b@x.org"],
                                                   ["cy", "c@x.org"]])
    assert _export(book, "--format", "moodle", "--roster", roster, "--out", out) == 0
    table = _read_csv(out)
    assert table[0] == ["Full name", "Email address", "01_fixture", "02_other", "01_fixture feedback",
                        "02_other feedback"]
    assert table[2] == ["bob", "b@x.org", "4", "1", "late: 2 day(s), penalty 20 % of the points, 1 point(s) taken",
                        "on time"]
    assert table[3][-2:] == ["on time", ""]
    # Canvas: a new column would be a new assignment; the file stays as Canvas reads it
    canvas_roster = _write_csv(tmp_path / "canvas.csv", [["student", "id"], ["ada", "1"], ["bob", "2"], ["cy", "3"]])
    assert _export(book, "--format", "canvas", "--roster", canvas_roster, "--out", out) == 0
    assert _read_csv(out)[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_fixture", "02_other"]
    assert _read_csv(out)[3][5:] == ["4", "1"]


def test_a_waived_penalty_is_late_with_nothing_taken(tmp_path: Path) -> None:
    from memlib.course import overrides

    book = _dated_gradebook(tmp_path / "grades.csv")
    assert overrides.main([str(book), "--student", "bob", "--grade-id", "late-penalty", "--points", "0",
                           "--reason", "extension"]) == 0
    out = tmp_path / "wide.csv"
    assert _export(book, "--format", "csv-wide", "--out", out) == 0
    assert _read_csv(out)[2] == ["bob", "5", "1", "6", "yes", "2", "0", "no", "0", "0"]


def test_bad_input_a_late_note_that_says_no_days_is_late_by_its_penalty_row_not_a_crash(tmp_path: Path) -> None:
    book = _write_csv(tmp_path / "grades.csv", [
        GRADEBOOK_HEADER, ["ada", ADD, "fixture-add", 2, 2, "passed", "note: late: due soon; many day(s) late"],
        ["ada", ADD, "late-penalty", -0.5, 0, "late", "by hand"]])
    out = tmp_path / "wide.csv"
    assert _export(book, "--format", "csv-wide", "--out", out) == 0
    assert _read_csv(out)[1] == ["ada", "1.5", "1.5", "yes", "0", "0.5"]


def test_student_controlled_text_is_inert(tmp_path: Path) -> None:
    # the gradebook already quotes a formula (grade uses the same csv_text); control characters show as escapes
    assert export.csv_text is shards.csv_text and model._csv_text is shards.csv_text
    book = _gradebook(tmp_path / "grades.csv", {
        "'=HYPERLINK(\"http://x\")": (2, 3, 1), "\x1b[31mred\x07": (0, 0, 0), "\r=1+1": (0, 0, 0),
        "@SUM(A1)\u202e": (0, 0, 0), "-2+3": (0, 0, 0), "+cmd|' /C calc'!A0": (0, 0, 0), "\tx": (0, 0, 0),
    })
    out = tmp_path / "wide.csv"
    assert _export(book, "--format", "csv-wide", "--out", out) == 0
    names = [row[0] for row in _read_csv(out)[1:]]
    assert sorted(names) == sorted(["'=HYPERLINK(\"http://x\")", "\\x1b[31mred\\x07", "\\x0d=1+1",
                                    "'@SUM(A1)\\u202e", "'-2+3", "'+cmd|' /C calc'!A0", "\\x09x"])
    roster = _write_csv(tmp_path / "roster.csv", [["student", "name", "id", "section"],
                                                   ["-2+3", "=Evil()", "5", "\x01@A"]])
    assert _export(book, "--format", "canvas", "--roster", roster, "--out", out) == 1
    assert _read_csv(out)[2][:5] == ["'=Evil()", "5", "", "", "\\x01@A"]


@pytest.mark.parametrize("case, argv, message", [
    ("missing gradebook", ["nowhere.csv", "--format", "canvas"], "cannot read gradebook"),
    ("not a gradebook", ["items.csv", "--format", "csv-wide"], "not a gradebook"),
    ("points not numbers", ["words.csv", "--format", "csv-wide"], "are not numbers"),
    ("no rows", ["header.csv", "--format", "csv-wide"], "has no rows"),
    ("unknown format", ["grades.csv", "--format", "blackboard"], "unknown format 'blackboard'"),
    ("roster without an id column", ["grades.csv", "--format", "canvas", "--roster", "names.csv"],
     "none of the columns id, sis_user_id, login_id"),
    ("roster without a way to match", ["grades.csv", "--format", "csv-wide", "--roster", "emails.csv"],
     "no student, id or name column"),
    ("duplicate roster ids", ["grades.csv", "--format", "canvas", "--roster", "twice.csv"],
     "id '101' is on lines 2 and 3"),
    ("roster row without an id", ["grades.csv", "--format", "canvas", "--roster", "blank-id.csv"],
     "line 3 has no id, sis_user_id or login_id"),
    ("unknown roster column", ["grades.csv", "--format", "csv-wide", "--roster", "typo.csv"], "unknown column(s) 'emial'"),
    ("roster without students", ["grades.csv", "--format", "csv-wide", "--roster", "header-only.csv"],
     "has no students, only its header"),
    ("ragged roster", ["grades.csv", "--format", "csv-wide", "--roster", "ragged.csv"], "line 3 has 1 fields"),
    ("moodle without a roster", ["grades.csv", "--format", "moodle"], "moodle needs --roster"),
    ("moodle identity incomplete", ["grades.csv", "--format", "moodle", "--roster", "holes.csv"],
     "filled for every roster row"),
    ("canvas without ids", ["grades.csv", "--format", "canvas"], "canvas needs --roster"),
    ("out is the input", ["grades.csv", "--format", "csv-wide", "--out", "grades.csv"], "is one of the input files"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, capsys, monkeypatch, case, argv,
                                                          message) -> None:
    monkeypatch.chdir(tmp_path)
    _gradebook(tmp_path / "grades.csv", {"ada": (2, 3, 1)})
    _write_csv(tmp_path / "items.csv", [["notebook", "grade_id", "pass_rate"], [ADD, "fixture-add", "0.5"]])
    _write_csv(tmp_path / "words.csv", [GRADEBOOK_HEADER, ["ada", ADD, "fixture-add", "two", "2", "passed", ""]])
    _write_csv(tmp_path / "header.csv", [GRADEBOOK_HEADER])
    _write_csv(tmp_path / "names.csv", [["student", "name"], ["ada", "Ada"]])
    _write_csv(tmp_path / "emails.csv", [["email"], ["ada@example.org"]])
    _write_csv(tmp_path / "twice.csv", [["student", "id"], ["ada", "101"], ["bob", "101"]])
    _write_csv(tmp_path / "blank-id.csv", [["student", "id", "login_id"], ["ada", "101", ""], ["bob", "", ""]])
    _write_csv(tmp_path / "typo.csv", [["student", "emial"], ["ada", "ada@example.org"]])
    _write_csv(tmp_path / "header-only.csv", [["student", "id"]])
    _write_csv(tmp_path / "ragged.csv", [["student", "email"], ["ada", "a@example.org"], ["bob"]])
    _write_csv(tmp_path / "holes.csv", [["student", "email", "username"], ["ada", "a@example.org", ""],
                                        ["bob", "", "bob"]])
    before = sorted(p.name for p in tmp_path.iterdir())
    if "--out" not in argv:
        argv = [*argv, "--out", "export/out.csv"]
    assert _export(*argv) == 2, case
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("export failed: "), (case, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before, case  # nothing written, no folder made
    assert (tmp_path / "grades.csv").read_text().startswith("student,notebook")


def test_the_command_is_a_grade_tool_that_needs_no_notebook_tooling(tmp_path: Path) -> None:
    """`python -m memlib grade export` runs with nbformat unimportable (the course extra not installed)."""
    book = _gradebook(tmp_path / "grades.csv", {"lovelaceada (canvas 101)": (2, 3, 1)})
    script = ("import sys; sys.modules['nbformat'] = None; from memlib.__main__ import main; "
              f"sys.exit(main(['grade', 'export', {str(book)!r}, '--format', 'canvas', '--out', {str(tmp_path / 'c.csv')!r}]))")
    done = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and _read_csv(tmp_path / "c.csv")[2] == ["lovelaceada", "101", "", "", "", "5", "1"]
    helped = subprocess.run([sys.executable, "-m", "memlib", "grade", "export", "--help"], env=_env(),
                            capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and "--roster" in helped.stdout
