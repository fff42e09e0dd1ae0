"""Versioned releases: the stamp every released notebook carries, and grading notebooks of another release.

The older release here is built as 0.2.0 was: no stamp in its metadata, and one graded
cell fewer (exercise 2 came later). A class of three (this release solved, the older
release solved, a notebook stamped by another version) is graded for real, once with
the current release only and once with the older release folder beside it.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import nbformat
import pytest

import memlib
from conftest import FIXTURE_COURSE, FIXTURE_NOTEBOOK, solved, write_notebook
from memlib.course import grade as grading
from memlib.course.grade import GradeSetupError
from memlib.course.release import graded_cells, release, release_notebook
from memlib.course.versions import Stamp, content_hash, difference, release_stamp, stamp_of

pytestmark = pytest.mark.grading


def _release_into(folder: Path, nb_source: nbformat.NotebookNode | None = None) -> Path:
    if nb_source is None:
        release(FIXTURE_COURSE, folder)
    else:
        folder.mkdir(parents=True)
        nbformat.write(release_notebook(nb_source, FIXTURE_NOTEBOOK), str(folder / FIXTURE_NOTEBOOK))
    shutil.copy(FIXTURE_COURSE / "fixture_checks.py", folder / "fixture_checks.py")
    for other in folder.glob("*.ipynb"):
        if other.name != FIXTURE_NOTEBOOK:
            other.unlink()
    return folder


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("releases")
    current = _release_into(root / "current")
    # the older release: without exercise 2's graded cell, and unstamped (as every release before 0.3.0)
    source = nbformat.read(str(FIXTURE_COURSE / FIXTURE_NOTEBOOK), as_version=4)
    source.cells = [c for c in source.cells if c.metadata.get("memlib", {}).get("grade_id") != "fixture-words"]
    old = _release_into(root / "old", source)
    nb = nbformat.read(str(old / FIXTURE_NOTEBOOK), as_version=4)
    del nb.metadata.memlib["version"], nb.metadata.memlib["content_hash"]
    nbformat.write(nb, str(old / FIXTURE_NOTEBOOK))
    return {"root": root, "current": current, "old": old}


def test_the_release_stamps_its_version_and_the_hash_of_its_graded_cells(releases):
    nb = nbformat.read(str(releases["current"] / FIXTURE_NOTEBOOK), as_version=4)
    stamp = stamp_of(nb)
    assert stamp == Stamp(memlib.__version__, content_hash(nb.cells)) == release_stamp(nb)
    assert [g.grade_id for g in graded_cells(nb)] == ["fixture-add", "fixture-words"]
    # prose and stubs do not count; a graded cell's source and points do
    changed = nbformat.from_dict(nb)
    changed.cells[0].source += "\nA typo fixed."
    assert content_hash(changed.cells) == stamp.content_hash
    graded = next(c for c in changed.cells if c.metadata.get("memlib", {}).get("grade_id") == "fixture-add")
    graded.metadata.memlib.points = 1
    assert content_hash(changed.cells) != stamp.content_hash
    # the older release has no stamp: it is known by the hash of its graded cells
    old = nbformat.read(str(releases["old"] / FIXTURE_NOTEBOOK), as_version=4)
    assert stamp_of(old) is None and release_stamp(old) == Stamp("", content_hash(old.cells))


def test_what_the_gradebook_says_about_another_release():
    current = Stamp("0.3.0", "sha256:" + "a" * 64)
    same = {"metadata": {"memlib": {"version": "0.3.0", "content_hash": current.content_hash}}, "cells": []}
    assert difference(same, current) == ""
    other = {"metadata": {"memlib": {"version": "0.2.5", "content_hash": "sha256:" + "b" * 64}}, "cells": []}
    assert difference(other, current) == "this notebook comes from release 0.2.5; graded against release 0.3.0"
    edited = {"metadata": {"memlib": {"version": "0.3.0", "content_hash": "sha256:" + "b" * 64}}, "cells": []}
    assert "release 0.3.0 with other graded cells (bbbbbbbbbbbb" in difference(edited, current)
    unstamped = {"metadata": {"memlib": {"assignment": "01_fixture"}}, "cells": []}
    assert difference(unstamped, current).startswith("this notebook carries no release stamp (released before")
    # a broken stamp is no stamp
    assert stamp_of({"metadata": {"memlib": {"version": 3, "content_hash": "md5:x"}}}) is None


def _grade(releases, submissions: list[Path], *older: Path) -> list[dict]:
    out = releases["root"] / f"grades-{len(older)}.csv"
    code = grading.main([*map(str, submissions), "--release", str(releases["current"]),
                         *[arg for folder in older for arg in ("--release", str(folder))],
                         "--out", str(out), "--quiet", "--cell-timeout", "30"])
    assert code == 0
    with out.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def class_of_three(releases) -> list[Path]:
    folder = releases["root"] / "submissions"
    write_notebook(folder / "now", solved(releases["current"]))
    write_notebook(folder / "then", solved(releases["old"]))
    stamped = solved(releases["current"])
    stamped.metadata.memlib["version"] = "0.2.5"
    stamped.metadata.memlib["content_hash"] = "sha256:" + "c" * 64
    write_notebook(folder / "stamped", stamped)
    return [folder / "now", folder / "stamped", folder / "then"]


@pytest.mark.slow
def test_a_notebook_of_another_release_is_named_in_every_row(releases, class_of_three):
    rows = _grade(releases, class_of_three)
    got = [(r["student"], r["grade_id"], r["points"], r["reason"]) for r in rows]
    unstamped = ("note: this notebook carries no release stamp (released before memlib 0.3.0, or its metadata "
                 f"was removed) and its graded cells differ from release {memlib.__version__}'s; graded against "
                 f"release {memlib.__version__}")
    other = f"note: this notebook comes from release 0.2.5; graded against release {memlib.__version__}"
    assert got == [
        ("now", "fixture-add", "2", ""),
        ("now", "fixture-words", "3", ""),
        ("stamped", "fixture-add", "2", other),
        ("stamped", "fixture-words", "3", other),
        # without its release, the older notebook gets today's graded cells back, and says why they were missing
        ("then", "fixture-add", "2", unstamped),
        ("then", "fixture-words", "3", "note: graded cell was deleted; re-inserted from the release; " + unstamped),
    ]


@pytest.mark.slow
def test_with_the_older_release_folder_its_notebooks_are_graded_against_it(releases, class_of_three):
    rows = _grade(releases, class_of_three, releases["old"])
    old_name = f"an unstamped release (graded cells {release_stamp(nbformat.read(str(releases['old'] / FIXTURE_NOTEBOOK), as_version=4)).short})"
    then = [(r["grade_id"], r["points"], r["max_points"], r["reason"]) for r in rows if r["student"] == "then"]
    assert then == [("fixture-add", "2", "2", f"note: this notebook comes from {old_name}; graded against that "
                                                 "release (old/)")]
    others = [(r["student"], r["points"]) for r in rows if r["student"] != "then"]
    assert others == [("now", "2"), ("now", "3"), ("stamped", "2"), ("stamped", "3")]


def test_an_older_release_that_grades_like_the_current_one_is_refused(releases, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(releases["current"], copy)
    submission = write_notebook(tmp_path / "sub" / "ada", solved(releases["current"])).parent
    with pytest.raises(GradeSetupError, match="has the graded cells of"):
        grading.grade([submission], releases["current"], older_releases=[copy], sandbox="none")
    with pytest.raises(GradeSetupError, match="does not exist"):
        grading.grade([submission], releases["current"], older_releases=[tmp_path / "nowhere"], sandbox="none")
