"""Grading at scale: shards, their merge, grading what was handed in, item analysis.

The sample class is built from the fixture course in tests/fixtures/course
(two tiny assignments), so grading it takes seconds, not minutes.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from memlib.course import grade as grading
from memlib.course import item_analysis, shards
from conftest import answered, blank

pytestmark = pytest.mark.grading

ADD, WORDS = "01_fixture.ipynb", "02_other.ipynb"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1")


# --------------------------------------------------------------------------- plain units


def test_parse_shard() -> None:
    assert shards.parse_shard("2/4") == shards.Shard(2, 4) and str(shards.parse_shard(" 1 / 1 ")) == "1/1"
    for bad in ("0/4", "5/4", "1/0", "a/4", "3", "-1/4", ""):
        with pytest.raises(shards.ShardError, match="K"):
            shards.parse_shard(bad)


def test_shard_depends_only_on_the_name_and_spreads_evenly() -> None:
    names = [f"student{i:04d}" for i in range(2000)]
    before = {name: shards.shard_of(name, 8) for name in names}
    after = {name: shards.shard_of(name, 8) for name in reversed(names[5:] + ["newcomer", "late"])}
    assert all(after[name] == before[name] for name in names[5:])  # students came and went; nobody moved
    sizes = [list(before.values()).count(k) for k in range(1, 9)]
    assert min(sizes) > 2000 / 8 * 0.8 and max(sizes) < 2000 / 8 * 1.2, sizes
    assert shards.shard_of("Zoë", 4) == shards.shard_of("Zoë", 4) and 1 <= shards.shard_of("", 4) <= 4
    shard = shards.Shard(3, 8)
    assert [n for n in names if shard.holds(n)] == [n for n in names if before[n] == 3]


def _gradebook(path: Path, rows: list[tuple]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(grading.CSV_COLUMNS)
        writer.writerows(rows)
    return path


def test_merge_refuses_overlapping_or_mismatched_shards(tmp_path: Path, capsys) -> None:
    a = _gradebook(tmp_path / "a.csv", [("ada", ADD, "fixture-add", 2, 2, "passed", "")])
    b = _gradebook(tmp_path / "b.csv", [("ada", ADD, "fixture-words", 0, 3, "failed", "x")])
    out = tmp_path / "merged.csv"
    assert shards.main([str(a), str(b), "--out", str(out)]) == 2
    assert "'ada' is in both" in capsys.readouterr().err and not out.exists()
    (tmp_path / "c.csv").write_text("student,points\nbob,1\n", encoding="utf-8")
    assert shards.main([str(a), str(tmp_path / "c.csv"), "--out", str(out)]) == 2
    assert "not a gradebook" in capsys.readouterr().err
    (tmp_path / "f1").mkdir(), (tmp_path / "f2").mkdir()
    (tmp_path / "f1" / "ada.md").write_text("one"), (tmp_path / "f2" / "ada.md").write_text("two")
    assert shards.main([str(a), "--out", str(out), "--feedback-in", str(tmp_path / "f1"), str(tmp_path / "f2"),
                        "--feedback", str(tmp_path / "fb")]) == 2
    assert "different feedback files" in capsys.readouterr().err and not (tmp_path / "fb").exists()


def test_item_analysis_groups_reasons_and_ignores_notes(tmp_path: Path, capsys) -> None:
    rows = [
        ("ada", ADD, "fixture-add", 2, 2, "passed", "note: graded cell was edited; restored from the release"),
        ("bob", ADD, "fixture-add", 0, 2, "failed", "add(2, 3) is -1, expected 5"),
        ("cy", ADD, "fixture-add", 0, 2, "failed", "add(2, 3) is 6, expected 5; note: graded x.ipynb as 01"),
        ("dan", ADD, "fixture-add", 0, 2, "failed", "add(2, 3) is -1, expected 5"),
        ("eve", ADD, "fixture-add", 0, 2, "failed", "timed out after 60 s (an infinite loop?)"),
        ("fay", ADD, "fixture-add", 0, 2, "error", "01_fixture.ipynb: not valid JSON"),
        ("gus", ADD, "fixture-add", 0, 2, "missing", "no notebook for 01_fixture.ipynb in the submission"),
        ("ada", ADD, "fixture-words", 3, 3, "passed", ""),
    ]
    book = _gradebook(tmp_path / "grades.csv", rows)
    add, words = item_analysis.analyse(item_analysis.read_gradebooks([book]))
    assert (add.grade_id, add.students, add.ran, add.counts["error"], add.counts["missing"]) == ("fixture-add", 7, 5, 1, 1)
    assert add.pass_rate == pytest.approx(1 / 5)
    assert add.reasons == [("add(2, 3) is -1, expected 5", 3), ("timed out after 60 s (an infinite loop?)", 1)]
    assert (words.pass_rate, words.reasons) == (1.0, [])
    assert item_analysis.main([str(book), "--out", str(tmp_path / "items")]) == 0
    with (tmp_path / "items" / "items.csv").open(newline="", encoding="utf-8") as handle:
        first = next(csv.DictReader(handle))
    assert (first["pass_rate"], first["reason_1"], first["count_1"], first["reason_3"]) == (
        "0.200", "add(2, 3) is -1, expected 5", "3", "")
    page = (tmp_path / "items" / "items.html").read_text(encoding="utf-8")
    assert 'src="plotly.min.js"' in page and "add(2, 3) is -1, expected 5 <b>(3)</b>" in page
    assert (tmp_path / "items" / "plotly.min.js").stat().st_size > 1_000_000  # offline: plotly.js beside the page
    assert "20% of 5 passed" in capsys.readouterr().out.replace("  ", " ")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    assert item_analysis.main([str(tmp_path / "bad.csv"), "--out", str(tmp_path / "x")]) == 2


# --------------------------------------------------------------------------- a real class, graded


def _hand_in(folder: Path, *notebooks: tuple[str, nbformat.NotebookNode]) -> Path:
    folder.mkdir(parents=True)
    for name, nb in notebooks:
        nbformat.write(nb, str(folder / name))
    return folder


def _sample_class(course) -> list[Path]:
    sub = course["root"] / "submissions"
    both = {"def add": "solution", "class WordCounter": "solution"}
    minus = "def add(a, b):\n    return a - b"
    times = "def add(a, b):\n    return a * b"
    space = "class WordCounter:\n    def count(self, text):\n        return len(text.split(' '))"
    return [
        _hand_in(sub / "ada", (ADD, answered(course["release"], ADD, **both)), (WORDS, answered(course["release"], WORDS, **{"def double": "solution"}))),
        _hand_in(sub / "bob", (ADD, blank(course["release"], ADD))),
        _hand_in(sub / "cy", (ADD, answered(course["release"], ADD, **{**both, "def add": minus}))),
        _hand_in(sub / "dan", (ADD, answered(course["release"], ADD, **{**both, "def add": times}))),
        _hand_in(sub / "eve", (ADD, answered(course["release"], ADD, **{**both, "class WordCounter": space}))),
        _hand_in(sub / "fay", (ADD, answered(course["release"], ADD, **{"def add": "solution"}))),
        _hand_in(sub / "gus", (WORDS, blank(course["release"], WORDS))),
        _hand_in(sub / "hal", (ADD, answered(course["release"], ADD, **{**both, "def add": minus}))),
        _hand_in(sub / "empty", ),
    ]


def _grade_command(course, students: list[Path], out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "memlib", "grade", *map(str, students), "--release", str(course["release"]),
            "--out", str(out), "--feedback", str(out.with_suffix("")) + "-feedback", "--quiet",
            "--cell-timeout", "30", *extra]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def sharded(course) -> dict:
    students = _sample_class(course)
    out = course["root"] / "out"
    out.mkdir()
    whole = subprocess.Popen(_grade_command(course, students, out / "all.csv", "-j", "2"), env=_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    parts = [subprocess.Popen(_grade_command(course, students, out / f"shard-{k}.csv", "--shard", f"{k}/4"),
                              env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for k in range(1, 5)]
    logs = [process.communicate(timeout=600)[0] for process in [whole, *parts]]
    codes = [process.returncode for process in [whole, *parts]]
    assert codes == [0] * 5, logs
    merge = subprocess.run(
        [sys.executable, "-m", "memlib", "grade", "merge", *(str(out / f"shard-{k}.csv") for k in range(1, 5)),
         "--out", str(out / "merged.csv"), "--feedback-in", *(str(out / f"shard-{k}-feedback") for k in range(1, 5)),
         "--feedback", str(out / "merged-feedback")],
        env=_env(), capture_output=True, text=True, timeout=120)
    assert merge.returncode == 0, merge.stderr
    return {"out": out, "logs": logs, "merge": merge.stdout, "students": students}


@pytest.mark.slow
def test_four_shards_merge_to_the_unsharded_gradebook_row_for_row(sharded) -> None:
    out = sharded["out"]
    whole, merged = _rows(out / "all.csv"), _rows(out / "merged.csv")
    assert merged == whole
    assert (out / "merged.csv").read_bytes() == (out / "all.csv").read_bytes()
    per_shard = [{r["student"] for r in _rows(out / f"shard-{k}.csv")} for k in range(1, 5)]
    assert sum(map(len, per_shard)) == len({r["student"] for r in whole}) == 9  # each student in one shard
    assert sum(1 for students in per_shard if students) >= 2  # the hash really split the class
    for k, students in enumerate(per_shard, start=1):
        assert all(shards.shard_of(s, 4) == k for s in students)
    feedback = sorted(p.name for p in (out / "merged-feedback").glob("*.md"))
    assert feedback == sorted(p.name for p in (out / "all-feedback").glob("*.md"))
    for name in feedback:
        assert (out / "merged-feedback" / name).read_text() == (out / "all-feedback" / name).read_text()
    assert "9 student(s)" in sharded["merge"]
    assert "shard 1/4" in sharded["logs"][1]


@pytest.mark.slow
def test_the_sample_class_gradebook_and_its_item_analysis(sharded, tmp_path: Path) -> None:
    rows = {(r["student"], r["grade_id"]): (r["status"], r["points"]) for r in _rows(sharded["out"] / "all.csv")}
    assert rows[("ada", "fixture-add")] == ("passed", "2") and rows[("ada", "fixture-other")] == ("passed", "1")
    assert rows[("gus", "fixture-add")][0] == "missing" and rows[("gus", "fixture-other")][0] == "failed"
    assert rows[("bob", "fixture-other")][0] == "missing"  # 02 was handed in by some, so it has rows for all
    items = item_analysis.analyse(item_analysis.read_gradebooks([sharded["out"] / "all.csv"]))
    by_id = {item.grade_id: item for item in items}
    add, words, other = by_id["fixture-add"], by_id["fixture-words"], by_id["fixture-other"]
    assert (add.counts["passed"], add.ran, add.counts["missing"]) == (3, 7, 2)  # ada, eve, fay of 7; gus, empty
    assert add.reasons[0] == ("add(2, 3) is -1, expected 5", 3)  # cy, hal (a - b) and dan (a * b: 6) together
    assert words.counts["passed"] == 4 and ("WordCounter().count('a b c') is 4, expected 3", 1) in words.reasons
    assert (other.counts["passed"], other.ran, other.counts["missing"]) == (1, 2, 7)
    assert item_analysis.main([str(sharded["out"] / "all.csv"), "--out", str(tmp_path)]) == 0


@pytest.mark.slow
def test_only_assignments_someone_handed_in_get_rows(course, tmp_path: Path, capsys) -> None:
    student = _hand_in(tmp_path / "sub" / "solo", (ADD, answered(course["release"], ADD, **{"def add": "solution",
                                                                               "class WordCounter": "solution"})))
    out = tmp_path / "g.csv"
    feedback = tmp_path / "fb"
    assert grading.main([str(student), "--release", str(course["release"]), "--out", str(out), "--quiet",
                         "--feedback", f"{feedback}/"]) == 0
    printed = capsys.readouterr().out
    assert [(r["notebook"], r["status"]) for r in _rows(out)] == [(ADD, "passed"), (ADD, "passed")]
    assert "Total: 5 / 5 points" in (feedback / "solo.md").read_text()
    assert f"Nobody handed in {WORDS}" in printed
    assert f"feedback: {feedback}{os.sep}\n" in printed + "\n" and f"{feedback}//" not in printed
    assert grading.main([str(student), "--release", str(course["release"]), "--out", str(out), "--quiet",
                         "--all-assignments"]) == 0
    assert [(r["notebook"], r["status"]) for r in _rows(out)] == [(ADD, "passed"), (ADD, "passed"), (WORDS, "missing")]
