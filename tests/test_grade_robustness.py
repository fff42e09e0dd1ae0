"""Submissions that used to stop the whole class, or to get a late mark wrong, graded in one real run.

Found by the fifth outside attack (tests/attack5): a notebook whose metadata is null, a zip whose
compressed bytes are broken, a zip entry dated month 0, a file name whose bytes are not UTF-8 (each
of these stopped `memlib grade` before it wrote any gradebook), a zip in a Canvas download marked
late whose entry is named like an on-time download (the late mark was lost), an honest zip whose
entry's own name looks like a late download (an on-time student was penalised), and a reason that
forges a late note (it crashed `grade export`).
"""

from __future__ import annotations

import csv
import json
import os
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import FIXTURE_NOTEBOOK, solved, write_notebook
from memlib.course import export, grade as grading

pytestmark = pytest.mark.grading

DUE = "2026-10-05T23:59+00:00"
BEFORE_DUE = (2026, 10, 1, 12, 0, 0)


def _zip(path: Path, entry: str, data: bytes, when: tuple[int, ...] = BEFORE_DUE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo(entry, date_time=when), data)
    return path


def _break_deflate(path: Path) -> None:
    """Overwrite the middle of the zip's compressed bytes: its structure reads, its data does not."""
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + 8, start + min(info.compress_size, 200) - 8):
        raw[i] ^= 0x5A
    path.write_bytes(bytes(raw))


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("robust")
    released = course["release"]
    text = nbformat.writes(solved(released))
    subs = root / "submissions"
    write_notebook(subs / "honest", solved(released))
    noisy = solved(released)  # attack 10: 60,000 failing cells made a feedback file of 2.4 MB
    noisy.cells += [nbformat.v4.new_code_cell(f"raise ValueError('noise {i}')") for i in range(25)]
    write_notebook(subs / "noisy", noisy)
    null_metadata = json.loads(text)
    null_metadata["metadata"] = None
    (subs / "nullmeta").mkdir()
    (subs / "nullmeta" / FIXTURE_NOTEBOOK).write_text(json.dumps(null_metadata), encoding="utf-8")
    _break_deflate(_zip(subs / "corrupt.zip", FIXTURE_NOTEBOOK, text.encode() * 3))
    _zip(subs / "monthzero.zip", FIXTURE_NOTEBOOK, text.encode(), when=(2026, 0, 0, 0, 0, 0))
    bad = os.fsencode(subs) + b"/bad\xffname"
    os.mkdir(bad)
    with open(bad + b"/" + os.fsencode(FIXTURE_NOTEBOOK), "w", encoding="utf-8") as handle:
        handle.write(text)
    # Canvas marked it late; inside, a file named like an on-time Canvas download, dated before the due date
    _zip(subs / "mallory_LATE_4242_9999_submission.zip", f"mal_1_2_{FIXTURE_NOTEBOOK}", text.encode())
    # a plain zip, on time; inside, a name that reads like a late Canvas download
    _zip(subs / "trent.zip", "context_window_late_10_05_final.ipynb", text.encode())
    due = root / "due.csv"
    due.write_text(f"assignment,due\n01_fixture,{DUE}\n", encoding="utf-8")
    out = root / "grades.csv"
    code = grading.main([*map(str, sorted(subs.iterdir())), "--release", str(released), "--assignment", "01",
                         "--out", str(out), "--feedback", str(root / "feedback"), "--due", str(due), "--quiet",
                         "--cell-timeout", "30"])
    with out.open(newline="", encoding="utf-8") as handle:  # UTF-8 throughout, or this raises
        rows = list(csv.DictReader(handle))
    return {"code": code, "rows": rows, "out": out, "root": root}


def _of(graded: dict, prefix: str) -> list[dict[str, str]]:
    return [r for r in graded["rows"] if r["student"].startswith(prefix)]


def test_the_class_is_graded_and_honest_work_keeps_its_points(graded) -> None:
    assert graded["code"] == 0
    students = {r["student"] for r in graded["rows"]}
    assert len(students) == 8, students
    for name in ("honest", "nullmeta", "bad", "noisy"):
        checks = [r for r in _of(graded, name) if r["grade_id"] != "late-penalty"]
        assert checks and all(r["status"] == "passed" for r in checks), checks


def test_the_feedback_names_twenty_other_failing_cells_and_counts_the_rest(graded) -> None:
    (feedback,) = [p for p in (graded["root"] / "feedback").rglob("*") if p.is_file() and "noisy" in p.name
                   and p.suffix == ".md"]
    text = feedback.read_text(encoding="utf-8")
    assert text.count("ValueError: noise") == 20 and "... and 5 more cells that raised an error" in text


def test_each_broken_file_is_named_in_its_own_rows(graded) -> None:
    assert "metadata is NoneType, not an object" in _of(graded, "nullmeta")[0]["reason"]
    corrupt = _of(graded, "corrupt")
    assert corrupt and all(r["status"] == "missing" and "not a readable zip file" in r["reason"] for r in corrupt)
    month_zero = _of(graded, "monthzero")
    assert month_zero[0]["status"] == "passed" and "is no date (2026-0-0): time unknown" in month_zero[0]["reason"]
    assert not [r for r in month_zero if r["grade_id"] == "late-penalty"]
    assert "\\udcff" in _of(graded, "bad")[0]["student"], "the byte that is not UTF-8 is shown as an escape"


def test_canvas_late_mark_is_the_zips_name_not_its_entrys(graded) -> None:
    mallory = [r for r in graded["rows"] if "4242" in r["student"] or r["student"].startswith("mallory")]
    assert [r["grade_id"] for r in mallory if r["status"] == "late"] == ["late-penalty"], mallory
    trent = _of(graded, "trent")
    assert trent and not [r for r in trent if r["grade_id"] == "late-penalty"], trent


def test_a_reason_that_looks_like_a_late_note_cannot_break_or_steer_the_export(graded, tmp_path) -> None:
    forged = tmp_path / "forged.csv"
    rows = [dict(r) for r in graded["rows"]]
    victim = next(r for r in rows if r["student"] == "honest")
    victim["reason"] = "late: due soon; 1 day(s) late, penalty 1.2.3 %; late: due x; 9 day(s) late, penalty 90 %"
    with forged.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    book = export.read_gradebook(forged)
    assert book.lateness["honest"][FIXTURE_NOTEBOOK].days == 9  # the last note, as the grader writes it
    assert export.main([str(forged), "--format", "csv-wide", "--out", str(tmp_path / "wide.csv")]) == 0
