"""Two students with one name: a student is their submission's path, never only its last name.

`sec1/alice` and `sec2/alice` graded in one run get their own rows and feedback
files; a name nobody else has stays as it was. Shards pick and name students
alike, so their gradebooks and feedback folders merge into the unsharded run's,
and the export maps each to its own roster row.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import nbformat
import pytest

from memlib.course import export, shards
from memlib.course import grade as grading
from memlib.course.grade import GradeSetupError, _discover
from memlib.course.release import release

pytestmark = pytest.mark.grading

FIXTURES = Path(__file__).parent / "fixtures" / "course"
SOLUTIONS = FIXTURES / "solutions"
NAME = "01_fixture.ipynb"


def _make(root: Path, *paths: str) -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.endswith((".zip", ".ipynb")):
            target.write_bytes(b"")
        else:
            target.mkdir()


@pytest.mark.parametrize("given, shown", [
    (["sec1/alice", "sec2/alice", "sec2/bob"], ["sec1/alice", "sec2/alice", "bob"]),
    (["a/x/carol", "b/x/carol"], ["a/x/carol", "b/x/carol"]),  # as many parts as it takes
    (["c/dave", "c/dave.zip"], ["dave", "dave.zip"]),  # a folder and a zip keep telling apart by extension
    (["c/dave", "c/dave.zip", "d/dave"], ["c/dave", "dave.zip", "d/dave"]),
    (["sec1/erin.ipynb", "sec2/erin.zip", "frank.ipynb"], ["erin.ipynb", "erin.zip", "frank"]),
    (["sec1/gus", "sec2/gus/"], ["sec1/gus", "sec2/gus"]),
])
def test_homonyms_are_told_apart_by_their_paths(tmp_path: Path, monkeypatch, given, shown) -> None:
    _make(tmp_path, *given)
    monkeypatch.chdir(tmp_path)
    assert [s.student for s in _discover(given)] == shown


def test_lms_downloads_of_one_student_stay_one_student(tmp_path: Path, monkeypatch) -> None:
    files = ["sec1/lovelaceada_12345_1_01_fixture.ipynb", "sec1/lovelaceada_12345_2_02_other.ipynb",
             "sec2/lovelaceada_777_3_01_fixture.ipynb"]
    _make(tmp_path, *files)
    monkeypatch.chdir(tmp_path)
    found = _discover(files)
    assert [s.student for s in found] == ["lovelaceada (canvas 12345)", "lovelaceada (canvas 777)"]
    assert [p.name for p in found[0].also] == ["lovelaceada_12345_2_02_other.ipynb"]


def test_a_submission_given_twice_is_a_setup_error(tmp_path: Path, monkeypatch, capsys) -> None:
    _make(tmp_path, "sec1/alice")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GradeSetupError, match="is given twice .also as 'sec1/alice'.: pass each submission once"):
        _discover(["sec1/alice", str(tmp_path / "sec1" / "alice")])
    release(SOLUTIONS, tmp_path / "release")
    out = tmp_path / "grades.csv"
    assert grading.main(["sec1/alice", "sec1/./alice", "--release", str(tmp_path / "release"), "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("grading could not run: submission 'sec1/alice' is given twice")


@pytest.fixture(scope="module")
def homonyms(tmp_path_factory) -> dict:
    """sec1/alice solved everything, sec2/alice nothing; "p q" and "p_q" share a feedback file name."""
    root = tmp_path_factory.mktemp("homonyms")
    released = root / "released"
    release(SOLUTIONS, released)
    grading_release = root / "release"
    grading_release.mkdir()
    shutil.copy(released / NAME, grading_release / NAME)
    shutil.copy(SOLUTIONS / "fixture_checks.py", grading_release / "fixture_checks.py")
    blank = nbformat.read(str(released / NAME), as_version=4)
    solved = nbformat.read(str(released / NAME), as_version=4)
    solution = {c.id: c.source for c in nbformat.read(str(SOLUTIONS / NAME), as_version=4).cells}
    for cell in solved.cells:
        if "NotImplementedError" in cell.source:
            cell.source = solution[cell.id]
    sub = root / "submissions"
    for folder, nb in (("sec1/alice", solved), ("sec2/alice", blank), ("sec1/p q", solved), ("sec2/p_q", blank)):
        (sub / folder).mkdir(parents=True)
        nbformat.write(nb, str(sub / folder / NAME))
    students = [str(sub / s) for s in ("sec1/alice", "sec2/alice", "sec1/p q", "sec2/p_q")]
    # the homonyms, and the two feedback file names, fall in different shards of 2
    assert shards.shard_of("sec1/alice", 2) != shards.shard_of("sec2/alice", 2)
    assert shards.shard_of("p q", 2) != shards.shard_of("p_q", 2)
    out = root / "out"
    common = ["--release", str(grading_release), "--quiet", "--cell-timeout", "30"]
    codes = [grading.main([*students, *common, "--out", str(out / "all.csv"), "--feedback", str(out / "all"),
                           "-j", "2"])]
    for k in (1, 2):
        codes.append(grading.main([*students, *common, "--out", str(out / f"shard-{k}.csv"),
                                   "--feedback", str(out / f"shard-{k}"), "--shard", f"{k}/2"]))
    codes.append(shards.main([str(out / "shard-1.csv"), str(out / "shard-2.csv"), "--out", str(out / "merged.csv"),
                              "--feedback-in", str(out / "shard-1"), str(out / "shard-2"),
                              "--feedback", str(out / "merged")]))
    return {"root": root, "out": out, "codes": codes}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
def test_homonyms_get_their_own_rows_and_feedback(homonyms) -> None:
    assert homonyms["codes"] == [0, 0, 0, 0]
    rows = _rows(homonyms["out"] / "all.csv")
    points = {(r["student"], r["grade_id"]): (r["points"], r["status"]) for r in rows}
    assert points == {
        ("sec1/alice", "fixture-add"): ("2", "passed"), ("sec1/alice", "fixture-words"): ("3", "passed"),
        ("sec2/alice", "fixture-add"): ("0", "failed"), ("sec2/alice", "fixture-words"): ("0", "failed"),
        ("p q", "fixture-add"): ("2", "passed"), ("p q", "fixture-words"): ("3", "passed"),
        ("p_q", "fixture-add"): ("0", "failed"), ("p_q", "fixture-words"): ("0", "failed"),
    }
    feedback = _files(homonyms["out"] / "all")
    assert sorted(feedback) == ["p_q.md", "p_q_.md", "sec1_alice.md", "sec2_alice.md"]
    assert feedback["sec1_alice.md"].startswith(b"# Feedback for sec1/alice\n\nTotal: 5 / 5 points")
    assert feedback["sec2_alice.md"].startswith(b"# Feedback for sec2/alice\n\nTotal: 0 / 5 points")
    assert feedback["p_q.md"].startswith(b"# Feedback for p q\n")
    assert feedback["p_q_.md"].startswith(b"# Feedback for p_q\n")


@pytest.mark.slow
def test_shards_merge_to_the_unsharded_run_homonyms_included(homonyms) -> None:
    out = homonyms["out"]
    assert homonyms["codes"] == [0, 0, 0, 0]
    assert len(_rows(out / "shard-1.csv")) == len(_rows(out / "shard-2.csv")) == 4
    assert (out / "merged.csv").read_bytes() == (out / "all.csv").read_bytes()
    # each shard named "p q" and "p_q" as the whole class does, so the folders merge without a clash
    assert _files(out / "merged") == _files(out / "all")


@pytest.mark.slow
def test_the_export_maps_each_homonym_to_its_roster_row(homonyms, tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("student,name,id\nsec1/alice,Alice Adams,101\nsec2/alice,Alice Brown,102\n"
                      "p q,P Q,103\np_q,P Underscore,104\n", encoding="utf-8")
    out = tmp_path / "canvas.csv"
    assert export.main([str(homonyms["out"] / "all.csv"), "--format", "canvas", "--roster", str(roster),
                        "--out", str(out)]) == 0
    with out.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    assert [(row[0], row[1], row[5]) for row in table[2:]] == [
        ("Alice Adams", "101", "5"), ("Alice Brown", "102", "0"), ("P Q", "103", "5"), ("P Underscore", "104", "0")]
