"""Late work: due dates, hand-in times from zips and Canvas names, the penalty row, graded for real."""

from __future__ import annotations

import csv
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from conftest import FIXTURE_NOTEBOOK, solved, write_notebook
from memlib.course import export, grade as grading, overrides
from memlib.course.late import LateError, LatePolicy, assess, read_due_dates

pytestmark = pytest.mark.grading

DUE = datetime(2026, 10, 5, 23, 59, tzinfo=timezone(timedelta(hours=2)))


def _zip(path: Path, nb: nbformat.NotebookNode, when: tuple[int, ...]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo(FIXTURE_NOTEBOOK, date_time=when), nbformat.writes(nb))
    return path


def test_the_policy_counts_days_or_parts_of_one_after_the_grace():
    policy = LatePolicy(per_day=10, cap=25, grace_minutes=15)
    assert assess(DUE, policy, zip_time=(2026, 10, 5, 23, 0, 0)).days == 0
    assert assess(DUE, policy, zip_time=(2026, 10, 6, 0, 14, 0)).days == 0  # within the grace
    late = assess(DUE, policy, zip_time=(2026, 10, 6, 0, 15, 0))
    assert (late.days, late.penalty, late.late) == (1, 10, True)
    assert assess(DUE, policy, zip_time=(2026, 10, 7, 12, 0, 0)).penalty == 20
    assert assess(DUE, policy, zip_time=(2026, 11, 5, 0, 0, 0)).penalty == 25  # the cap
    flagged = assess(DUE, policy, lms_late=True)
    assert (flagged.days, flagged.submitted) == (1, None) and "Canvas's _LATE_" in flagged.note()
    unknown = assess(DUE, policy)
    assert not unknown.late and "time unknown" in unknown.note()
    # the zip's time says how late when it agrees with the flag; whoever made the zip set that time, so it
    # cannot make a notebook Canvas calls late on time (a forged early time was "on time" before)
    assert assess(DUE, policy, zip_time=(2026, 10, 8, 12, 0, 0), lms_late=True).days == 3
    forged = assess(DUE, policy, zip_time=(2026, 10, 5, 0, 0, 0), lms_late=True)
    assert (forged.days, forged.penalty) == (1, 10) and "over the zip's earlier time" in forged.note()
    for bad in ({"per_day": -1}, {"cap": 101}, {"grace_minutes": -5}):
        with pytest.raises(LateError):
            LatePolicy(**bad)


def test_due_date_files_that_cannot_be_used(tmp_path):
    def due(text: str) -> Path:
        path = tmp_path / "due.csv"
        path.write_text(text, encoding="utf-8")
        return path

    assert read_due_dates(due("assignment,due\n01,2026-10-05T23:59+02:00\n")) == {"01": DUE}
    for text, message in [
        ("assignment,when\n01,2026-10-05T23:59+02:00\n", "the columns are assignment,due"),
        ("assignment,due\n01,2026-10-05T23:59\n", "has no UTC offset"),
        ("assignment,due\n01,next friday\n", "is not an ISO 8601 time"),
        ("assignment,due\n01,2026-10-05T23:59+02:00\n01,2026-10-06T23:59+02:00\n", "empty or given twice"),
        ("assignment,due\n", "has no assignments"),
    ]:
        with pytest.raises(LateError, match=message):
            read_due_dates(due(text))
    with pytest.raises(LateError, match="cannot read"):
        read_due_dates(tmp_path / "nowhere.csv")


@pytest.fixture(scope="module")
def late_class(course, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("late")
    released = course["release"]
    nb = solved(released)
    subs = root / "submissions"
    _zip(subs / "ontime.zip", nb, (2026, 10, 5, 23, 0, 0))
    _zip(subs / "graced.zip", nb, (2026, 10, 6, 0, 10, 0))
    _zip(subs / "twodays.zip", nb, (2026, 10, 7, 12, 0, 0))
    _zip(subs / "month.zip", nb, (2026, 11, 5, 12, 0, 0))
    write_notebook(subs, nb, f"lovelaceada_LATE_12345_67890_{FIXTURE_NOTEBOOK}")
    write_notebook(subs / "folder", nb)
    due = root / "due.csv"
    due.write_text("assignment,due\n01_fixture,2026-10-05T23:59+02:00\n", encoding="utf-8")
    out = root / "grades.csv"
    code = grading.main([*map(str, sorted(subs.iterdir())), "--release", str(released), "--assignment", "01",
                         "--out", str(out), "--feedback", str(root / "feedback"), "--due", str(due),
                         "--late-per-day", "10", "--late-cap", "50", "--grace", "15", "--quiet",
                         "--cell-timeout", "30"])
    assert code == 0
    roster = root / "roster.csv"
    # Canvas's download names its student by user id: the roster's id for that row is Canvas's
    roster.write_text("student,name,id,email\n" + "".join(
        f"{s},{s.title()},{12345 if 'canvas' in s else 100 + i},{i}@example.edu\n"
        for i, s in enumerate(["folder", "graced", "lovelaceada (canvas 12345)", "month", "ontime", "twodays"])),
        encoding="utf-8")
    return {"root": root, "out": out, "roster": roster}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_late_notebooks_get_a_penalty_row_and_a_note_in_every_row(late_class):
    rows = _rows(late_class["out"])
    penalties = {r["student"]: (r["points"], r["max_points"], r["status"]) for r in rows
                 if r["grade_id"] == "late-penalty"}
    assert penalties == {"twodays": ("-1", "0", "late"), "lovelaceada (canvas 12345)": ("-0.5", "0", "late"),
                         "month": ("-2.5", "0", "late")}
    checks = [r for r in rows if r["grade_id"] != "late-penalty"]
    assert all(r["points"] == r["max_points"] for r in checks), "the checks' own rows keep their points"
    reason = {r["student"]: r["reason"] for r in checks if r["grade_id"] == "fixture-add"}
    assert reason["ontime"].startswith("note: on time: due 2026-10-05T23:59+02:00, handed in 2026-10-05T23:00+02:00")
    assert reason["graced"].startswith("note: on time: due")  # 11 minutes after, within the 15 of grace
    assert "late: due 2026-10-05T23:59+02:00, handed in 2026-10-07T12:00+02:00 (the zip's time for it); "\
           "2 day(s) late, penalty 20 % of the points" in reason["twodays"]
    assert "penalty 50 %" in reason["month"]  # 31 days, capped
    assert "late by Canvas's _LATE_ in the download name, time unknown: counted as 1 day" in \
        reason["lovelaceada (canvas 12345)"]
    assert "hand-in time unknown" in reason["folder"]
    feedback = (late_class["root"] / "feedback" / "twodays.md").read_text(encoding="utf-8")
    assert "Total: 4 / 5 points" in feedback and "Note: late: due 2026-10-05T23:59+02:00" in feedback


@pytest.mark.slow
def test_every_export_carries_the_penalty_and_an_override_waives_it(late_class, capsys):
    root, book = late_class["root"], late_class["out"]

    def column(fmt: str) -> dict[str, str]:
        target = root / f"{fmt}.csv"
        assert export.main([str(book), "--format", fmt, "--roster", str(late_class["roster"]),
                            "--out", str(target)]) == 0
        with target.open(newline="", encoding="utf-8") as handle:
            table = list(csv.reader(handle))
        at = table[0].index("01_fixture")
        return {row[0]: row[at] for row in table[1:] if row[0] != "Points Possible"}

    expected = {"Folder": "5", "Graced": "5", "Lovelaceada (Canvas 12345)": "4.5", "Month": "2.5", "Ontime": "5",
                "Twodays": "4"}
    assert column("canvas") == expected and column("moodle") == expected
    assert column("csv-wide") == {"folder": "5", "graced": "5", "lovelaceada (canvas 12345)": "4.5", "month": "2.5",
                                  "ontime": "5", "twodays": "4"}
    assert overrides.main([str(book), "--student", "twodays", "--grade-id", "late-penalty", "--points", "0",
                           "--reason", "extension granted by email"]) == 0
    assert column("canvas")["Twodays"] == "5" and column("moodle")["Twodays"] == "5"


def test_a_due_date_file_that_cannot_be_used_stops_grading_before_it_starts(course, tmp_path, capsys):
    bad = tmp_path / "due.csv"
    bad.write_text("assignment,due\n01,2026-10-05\n", encoding="utf-8")
    sub = write_notebook(tmp_path / "ada", solved(course["release"])).parent
    out = tmp_path / "grades.csv"
    assert grading.main([str(sub), "--release", str(course["release"]), "--out", str(out), "--due", str(bad)]) == 2
    assert "has no UTC offset" in capsys.readouterr().err and not out.exists()
    assert grading.main([str(sub), "--release", str(course["release"]), "--out", str(out),
                         "--late-per-day", "150"]) == 2
    assert "between 0 and 100" in capsys.readouterr().err


@pytest.mark.slow
def test_the_lateness_itself_reaches_csv_wide_and_moodle_from_a_real_grading_run(late_class):
    root, book = late_class["root"], late_class["out"]

    def table(fmt: str) -> dict[str, dict[str, str]]:
        target = root / f"lateness-{fmt}.csv"
        assert export.main([str(book), "--format", fmt, "--roster", str(late_class["roster"]),
                            "--out", str(target)]) == 0
        with target.open(newline="", encoding="utf-8") as handle:
            return {row.get("student") or row["Full name"]: row for row in csv.DictReader(handle)}

    wide = table("csv-wide")
    assert {s: (r["01_fixture late"], r["01_fixture days late"]) for s, r in wide.items()} == {
        "folder": ("no", "0"), "graced": ("no", "0"), "lovelaceada (canvas 12345)": ("yes", "1"),
        "month": ("yes", "31"), "ontime": ("no", "0"), "twodays": ("yes", "2")}
    assert wide["month"]["01_fixture late penalty"] == "2.5"
    moodle = table("moodle")
    assert moodle["Month"]["01_fixture feedback"] == "late: 31 day(s), penalty 50 % of the points, 2.5 point(s) taken"
    assert moodle["Ontime"]["01_fixture feedback"] == "on time"


def test_a_due_date_of_a_notebook_this_run_does_not_grade_is_not_called_unused(course, tmp_path):
    """The fresh instructor's walk: regrading one notebook (--assignment 03) warned that 01's date matched no
    graded notebook of the release, though the release has it."""
    subs = tmp_path / "subs"
    write_notebook(subs / "ada", solved(course["release"]))
    due = tmp_path / "due.csv"
    due.write_text("assignment,due\n01_fixture,2026-10-05T23:59+02:00\n02_other,2026-10-12T23:59+02:00\n"
                   "99_nothing,2026-10-19T23:59+02:00\n", encoding="utf-8")
    warned: list[str] = []
    grading.grade([subs / "ada"], course["release"], assignments=["01"], due_dates=read_due_dates(due),
                  warn=warned.append, cell_timeout=30)
    unused = [w for w in warned if "match no graded notebook" in w]
    assert len(unused) == 1 and "99_nothing" in unused[0] and "02_other" not in unused[0]
