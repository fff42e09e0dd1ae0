"""The student repository holds no reference answer: every solution region of solutions/ is searched for in it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS
from pg_server import skip_or_fail  # the suite's rule: skip with the reason, fail under CI=true
from memlib.course import config, student_repo

pytestmark = pytest.mark.maintainer

SLUG = "memlib-course/memlib-students"


def _meaningful(text: str) -> list[str]:
    """Lines that carry content: stripped, without blanks, comments and the exercise markers."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _solution_regions() -> list[tuple[str, str]]:
    regions = []
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            for found in re.finditer(r"### BEGIN SOLUTION[^\n]*\n(.*?)\n[ \t]*### END SOLUTION", source, re.S):
                lines = _meaningful(found.group(1))
                if lines:
                    regions.append((f"{path.name}: {lines[0][:50]}", "\n".join(lines)))
    return regions


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        skip_or_fail("not a git checkout: the student repository is made from tracked files")
    out = tmp_path_factory.mktemp("student") / "repo"
    assert student_repo.main([str(out), "--slug", SLUG, "--root", str(ROOT)]) == 0
    return out


def test_it_holds_the_course_without_solutions_or_tests(student):
    top = sorted(p.name for p in student.iterdir())
    assert {"memlib", "data", "binder", "notebooks", "README.md", "pyproject.toml", "requirements.txt"} <= set(top)
    assert not {"solutions", "tests", "benchmarks", "site", ".ci"} & set(top)
    assert sorted(p.name for p in (student / "notebooks").glob("*.ipynb")) == \
        sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


def test_no_reference_answer_is_in_any_file(student):
    regions = _solution_regions()
    assert len(regions) >= 15, "the solution notebooks' regions were not found: the search would prove nothing"
    files = {}
    for path in student.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", errors="replace")
            if path.suffix == ".ipynb":  # the JSON of a notebook: search its cells' sources
                text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
            files[path.relative_to(student)] = "\n".join(_meaningful(text))
    found = [(where, str(name)) for where, region in regions for name, text in files.items() if region in text]
    assert not found, f"reference answers in the student repository: {found[:5]}"
    # and the search does find them where they are: the instructors' solutions
    solutions = "\n".join(_meaningful("\n".join(
        "".join(c["source"]) for p in SOLUTIONS.glob("*.ipynb") for c in json.loads(p.read_text())["cells"])))
    assert all(region in solutions for _, region in regions)


def test_its_launch_links_fetch_the_student_repository(student):
    text = (student / "notebooks" / "03_archival_bm25.ipynb").read_text(encoding="utf-8")
    assert f"github/{SLUG}/blob/" in text and f"git+https://github.com/{SLUG}@" in text
    assert config.REPO_SLUG not in text.replace(SLUG, "")
    assert f'REPO_SLUG = "{SLUG}"' in (student / "memlib" / "course" / "config.py").read_text(encoding="utf-8")
    assert f"mybinder.org/v2/gh/{SLUG}/" in (student / "README.md").read_text(encoding="utf-8")
    assert config.REPO_SLUG == "memlib-course/memlib", "writing it must not change this process's config"


def test_what_cannot_be_written_writes_nothing(tmp_path, capsys):
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("mine")
    plain = tmp_path / "plain"  # a folder that is no git checkout
    plain.mkdir()
    for argv, message in [
        ([str(full), "--slug", SLUG, "--root", str(ROOT)], "is not an empty folder"),
        ([str(tmp_path / "a"), "--slug", "not a slug", "--root", str(ROOT)], "is not a GitHub owner/name"),
        ([str(tmp_path / "b"), "--slug", config.REPO_SLUG, "--root", str(ROOT)], "needs its own"),
        ([str(tmp_path / "c"), "--slug", SLUG, "--root", str(plain)], "is not a git checkout"),
    ]:
        assert student_repo.main(argv) == 2
        assert message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "plain"] and (full / "x").read_text() == "mine"
