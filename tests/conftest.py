"""What several test files share: the repository's folders, the fixture course, and notebooks built from it.

The fixture course (tests/fixtures/course/solutions) is a two-notebook course with its
own checks; the release, grading, export and nbgrader tests build students' notebooks
from its release: `blank` (as handed out), `solved` (each stub replaced by its
solution cell, what a good student hands in) and `answered` (chosen cells replaced).
Test files import the names from here (``from conftest import ROOT``); the `course`
fixture is found by pytest itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The course's own notebooks: the authors' solutions and the released student versions.
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: The small course the release and grading tests use, and its first notebook.
FIXTURE_COURSE = FIXTURES / "course" / "solutions"
FIXTURE_NOTEBOOK = "01_fixture.ipynb"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict[str, Path]:
    """The fixture course released into a temporary folder, with its checks beside it: {"root", "release"}."""
    from memlib.course.release import release

    root = tmp_path_factory.mktemp("course")
    released = root / "release"
    release(FIXTURE_COURSE, released)
    shutil.copy(FIXTURE_COURSE / "fixture_checks.py", released / "fixture_checks.py")
    return {"root": root, "release": released}


def blank(released: Path, name: str = FIXTURE_NOTEBOOK) -> nbformat.NotebookNode:
    """The released notebook `name` as a student gets it."""
    return nbformat.read(str(released / name), as_version=4)


def _solutions(name: str) -> dict[str, str]:
    return {c.id: c.source for c in nbformat.read(str(FIXTURE_COURSE / name), as_version=4).cells}


def solved(released: Path, name: str = FIXTURE_NOTEBOOK) -> nbformat.NotebookNode:
    """The release with each stub replaced by its solution cell (what a good student hands in)."""
    nb, solution = blank(released, name), _solutions(name)
    for cell in nb.cells:
        if "NotImplementedError" in cell.source:
            cell.source = solution[cell.id]
    return nb


def answered(released: Path, name: str, **answers: str) -> nbformat.NotebookNode:
    """The release with the cells that start with each key replaced by its value ("solution": the solution cell)."""
    nb, solution = blank(released, name), _solutions(name)
    for cell in nb.cells:
        for start, source in answers.items():
            if cell.source.startswith(start):
                cell.source = solution[cell.id] if source == "solution" else source
    return nb


def cell_index(nb: nbformat.NotebookNode, startswith: str) -> int:
    """The index of the first cell whose source starts with `startswith`."""
    return next(i for i, c in enumerate(nb.cells) if c.source.startswith(startswith))


def write_notebook(folder: Path, nb: nbformat.NotebookNode, name: str = FIXTURE_NOTEBOOK) -> Path:
    """`nb` written as folder/name (the folder is made); the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    nbformat.write(nb, str(path))
    return path


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """Under ``-n auto --dist loadgroup``, the tests that share a module-scoped fixture run on one worker.

    loadgroup hands out every test without an ``xdist_group`` mark on its own, so the tests of one
    module land on both workers and each worker builds the module's fixtures again (a graded class,
    four nbval runs, the course site). Those tests get their module as their group, before
    pytest-xdist reads the marks (``tryfirst``); tests that share nothing stay free to go anywhere.
    """
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        info = getattr(item, "_fixtureinfo", None)
        definitions = info.name2fixturedefs.values() if info is not None else ()
        if any(defs and defs[-1].scope == "module" for defs in definitions):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    # Whole modules move, each in its own order (a module's fixtures are built once, its tests run as written).
    rank: dict[str, tuple[int, int]] = {}
    for item in items:
        rank[_module(item)] = min(rank.get(_module(item), (2, 0)), _cost_rank(item))
    items.sort(key=lambda item: rank[_module(item)])  # stable


#: The modules whose tests cost the most, most first (CI's --durations: the differential test ~300 s for 07
#: alone, the site's build ~250 s, the four nbval runs ~190 s, the red-team class ~130 s). xdist hands work
#: out in collection order; these go first, then the other modules with slow or browser tests, so that the
#: run does not end with one worker alone on a long test while the other idles.
COSTLIEST = ("test_grade_matches_kernel", "test_site", "test_notebooks", "test_grade_redteam")


def _module(item) -> str:
    return item.module.__name__ if getattr(item, "module", None) is not None else ""


def _cost_rank(item) -> tuple[int, int]:
    if _module(item) in COSTLIEST:
        return (0, COSTLIEST.index(_module(item)))
    if item.get_closest_marker("slow") or item.get_closest_marker("browser"):
        return (1, 0)
    return (2, 0)


def honest_alternatives(release: dict) -> list[tuple[str, dict, object]]:
    """(file name, notebook, assignment) for each answer under tests/alternatives, in the released notebook
    of its exercise just before the graded cell, as a student who solved it would hand it in.

    `release` is {notebook number: Assignment} (`memlib.course.grade.load_release`)."""
    import copy

    by_id = {g.grade_id: (a, g) for a in release.values() for g in a.graded}
    found = []
    for path in sorted((ROOT / "tests" / "alternatives").rglob("*.py")):
        grade_id = path.relative_to(ROOT / "tests" / "alternatives").parts[0]
        if grade_id not in by_id:
            continue
        assignment, graded = by_id[grade_id]
        nb = copy.deepcopy(assignment.nb)
        nb.cells.insert(graded.index, {"cell_type": "code", "source": path.read_text(encoding="utf-8"),
                                       "metadata": {}, "outputs": [], "execution_count": None})
        found.append((path.name, nb, assignment))
    return found
