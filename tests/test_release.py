"""Release: solution notebooks -> student notebooks (memlib.course.release)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from memlib.course import config
from memlib.course.release import (
    ReleaseError,
    ReleaseWarning,
    check_release_current,
    graded_cells,
    main,
    release,
    EXERCISE_RE,
    LINE_LIMIT,
    exercise_texts,
    release_notebook,
    source_checksum,
    stub_source,
)
from conftest import FIXTURE_COURSE, NOTEBOOKS, SOLUTIONS



def _exec_raises(source: str) -> str:
    """Run a stubbed definition, call what it defines, return the NotImplementedError message."""
    namespace: dict = {}
    exec(compile(source, "<stub>", "exec"), namespace)
    with pytest.raises(NotImplementedError) as info:
        if "add" in namespace:
            namespace["add"](1, 2)
        else:
            namespace["WordCounter"]().count("a b")
    return str(info.value)


@pytest.fixture
def released(tmp_path: Path) -> Path:
    out = tmp_path / "notebooks"
    release(FIXTURE_COURSE, out)
    return out


def _cells(path: Path) -> list[dict]:
    return nbformat.read(str(path), as_version=4).cells


def test_release_writes_one_student_notebook_per_solution(released: Path) -> None:
    assert sorted(p.name for p in released.iterdir()) == ["01_fixture.ipynb", "02_other.ipynb"]


def test_stubs_parse_and_raise_the_exercise_message(released: Path) -> None:
    sources = [c.source for c in _cells(released / "01_fixture.ipynb") if c.cell_type == "code"]
    add = next(s for s in sources if s.startswith("def add"))
    counter = next(s for s in sources if s.startswith("class WordCounter"))
    for stub in (add, counter):
        compile(stub, "<stub>", "exec")
        assert "### BEGIN SOLUTION" not in stub and "### END SOLUTION" not in stub
    assert "return a + b" not in add and "text.split()" not in counter
    assert _exec_raises(add) == "Exercise 1: return the sum of a and b"
    assert _exec_raises(counter) == "Exercise 2: count the words of text (split on whitespace)"
    # the stub keeps the region's indentation (8 spaces inside the method)
    assert '        raise NotImplementedError(' in counter
    # the instruction line stays for the student
    assert "### EXERCISE 1: return the sum of a and b" in add


def test_solution_only_cells_dropped_and_markdown_answers_blanked(released: Path) -> None:
    cells = _cells(released / "01_fixture.ipynb")
    assert not any("SECRET" in c.source for c in cells)
    assert not any("solution-only" in c.metadata.get("tags", []) for c in cells)
    markdown = next(c.source for c in cells if c.source.startswith("## Exercise 2"))
    assert "Because words" not in markdown and "*Your answer here.*" in markdown


def test_outputs_and_execution_counts_cleared(released: Path) -> None:
    for cell in _cells(released / "01_fixture.ipynb"):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
        assert "ExecuteTime" not in cell.metadata


def test_graded_cells_keep_metadata_and_get_a_checksum(released: Path) -> None:
    nb = nbformat.read(str(released / "01_fixture.ipynb"), as_version=4)
    graded = graded_cells(nb)
    assert [(g.grade_id, g.points) for g in graded] == [("fixture-add", 2), ("fixture-words", 3)]
    for g in graded:
        assert g.checksum == source_checksum(g.source)
        assert "graded" in g.cell.metadata["tags"]
        assert g.source.startswith("from fixture_checks import check_")
    assert nb.metadata["memlib"]["assignment"] == "01_fixture"
    solution = nbformat.read(str(FIXTURE_COURSE / "01_fixture.ipynb"), as_version=4)
    assert [c.source for c in solution.cells if "graded" in c.metadata.get("tags", [])] == [g.source for g in graded]


def test_colab_badge_and_setup_cell_stamped(released: Path) -> None:
    cells = _cells(released / "01_fixture.ipynb")
    badge_at = next(i for i, c in enumerate(cells) if "colab-badge" in c.metadata.get("tags", []))
    setup = cells[badge_at + 1]
    assert cells[badge_at].cell_type == "markdown"
    assert config.colab_url("notebooks/01_fixture.ipynb") in cells[badge_at].source
    assert config.REPO_SLUG in cells[badge_at].source
    assert setup.metadata["tags"] == ["colab-setup", "nbval-skip"]
    assert 'if "google.colab" in sys.modules:' in setup.source
    compile(setup.source, "<setup>", "exec")
    pip_line = next(line for line in setup.source.splitlines() if "pip" in line)
    assert pip_line.startswith("        ")  # pip runs only inside the Colab branch
    # a notebook without a colab-setup cell gets no badge
    assert not any("colab-badge" in c.metadata.get("tags", []) for c in _cells(released / "02_other.ipynb"))


def test_release_is_deterministic_and_idempotent(tmp_path: Path, released: Path) -> None:
    first = {p.name: p.read_bytes() for p in released.iterdir()}
    assert release(FIXTURE_COURSE, released) == []  # nothing changed, nothing rewritten
    other = tmp_path / "again"
    release(FIXTURE_COURSE, other)
    assert {p.name: p.read_bytes() for p in other.iterdir()} == first
    text = first["01_fixture.ipynb"].decode("utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert json.dumps(json.loads(text), sort_keys=True, indent=1, ensure_ascii=False) + "\n" == text
    # releasing a released notebook again changes nothing (no regions left to stub)
    nb = nbformat.read(str(released / "01_fixture.ipynb"), as_version=4)
    again = release_notebook(nb, "01_fixture.ipynb")
    assert [c.source for c in again.cells] == [c.source for c in nb.cells]


def test_check_release_current_reports_differences(tmp_path: Path, released: Path) -> None:
    assert check_release_current(FIXTURE_COURSE, released) == []
    target = released / "01_fixture.ipynb"
    nb = json.loads(target.read_text())
    nb["cells"][0]["source"] = ["# edited by hand\n"]
    target.write_text(json.dumps(nb))
    (released / "99_stray.ipynb").write_text("{}")
    (released / "02_other.ipynb").unlink()
    problems = check_release_current(FIXTURE_COURSE, released)
    assert len(problems) == 3
    assert any("01_fixture.ipynb differs from a fresh release" in p for p in problems)
    assert any("02_other.ipynb is missing" in p for p in problems)
    assert any("99_stray.ipynb has no solution" in p for p in problems)
    # the command line also stamps the solutions' Colab cells in place: give it a copy
    solutions = tmp_path / "solutions"
    shutil.copytree(FIXTURE_COURSE, solutions)
    assert main([str(solutions), str(released), "--check"]) == 1
    assert main([str(solutions), str(released)]) == 0
    assert main([str(solutions), str(released), "--check"]) == 1  # the stray is still there
    assert check_release_current(solutions, released) == ["%s has no solution %s; delete it or add the solution"
                                                           % (released / "99_stray.ipynb", solutions / "99_stray.ipynb")]


def test_stale_released_notebooks_are_removed(tmp_path: Path) -> None:
    src = tmp_path / "solutions"
    shutil.copytree(FIXTURE_COURSE, src)
    out = tmp_path / "notebooks"
    release(src, out)
    (src / "02_other.ipynb").unlink()
    (out / "notes.ipynb").write_text("{}")  # not ours: kept
    release(src, out)
    assert sorted(p.name for p in out.iterdir()) == ["01_fixture.ipynb", "notes.ipynb"]


def test_stub_source_indentation_and_multiple_regions() -> None:
    source = (
        "### EXERCISE 3: implement both helpers\n"
        "def f(x):\n"
        "\t### BEGIN SOLUTION\n"
        "\treturn x\n"
        "\t### END SOLUTION\n"
        "\n"
        "def g(x):\n"
        "    if x:\n"
        "        ### BEGIN SOLUTION\n"
        "        return 1\n"
        "        ### END SOLUTION\n"
        "    return 0\n"
    )
    stubbed, notes = stub_source(source)
    assert notes == []
    compile(stubbed, "<stub>", "exec")
    assert '\traise NotImplementedError("Exercise 3: implement both helpers")' in stubbed
    assert '        raise NotImplementedError("Exercise 3: implement both helpers")' in stubbed
    assert stubbed.endswith("    return 0\n")
    namespace: dict = {}
    exec(stubbed, namespace)
    assert namespace["g"](0) == 0
    with pytest.raises(NotImplementedError, match="Exercise 3"):
        namespace["g"](1)


@pytest.mark.parametrize("name", ["F", "2", "2b"])
def test_an_exercise_is_named_by_a_number_or_a_capital_letter(name) -> None:
    from memlib.course.checking import is_exercise_stub

    stubbed, _ = stub_source(f"def f():\n    ### EXERCISE {name}: flush\n    ### BEGIN SOLUTION\n    return 1\n"
                             "    ### END SOLUTION")
    namespace: dict = {}
    exec(stubbed, namespace)
    with pytest.raises(NotImplementedError) as info:
        namespace["f"]()
    assert str(info.value) == f"Exercise {name}: flush" and is_exercise_stub(info.value)
    assert not is_exercise_stub(NotImplementedError("Exercise FF: flush"))
    with pytest.raises(ValueError, match="EXERCISE N"):  # a word is not a name: the region has no exercise line
        stub_source("def f():\n    ### EXERCISE Flush: flush\n    ### BEGIN SOLUTION\n    return 1\n"
                    "    ### END SOLUTION")


def test_message_with_quotes_stays_a_valid_literal() -> None:
    stubbed, _ = stub_source('def f():\n    ### EXERCISE 4: return "ok" \\o/\n    ### BEGIN SOLUTION\n    return "ok"\n    ### END SOLUTION')
    namespace: dict = {}
    exec(stubbed, namespace)
    with pytest.raises(NotImplementedError) as info:
        namespace["f"]()
    assert str(info.value) == 'Exercise 4: return "ok" \\o/'


LONG_TASK = ("return the next ToolCall: store facts, save under pressure, search the archive, "
             'turn pages, answer with "quotes" and a \\ backslash, then cite what you found')


@pytest.mark.parametrize("indent", ["    ", "\t", " " * 12])
def test_long_exercise_lines_and_messages_wrap_and_keep_their_text(indent: str) -> None:
    source = (f"def f():\n{indent}### EXERCISE 2c: {LONG_TASK}\n{indent}### BEGIN SOLUTION\n"
              f"{indent}return 1\n{indent}### END SOLUTION\n")
    stubbed, _ = stub_source(source)
    assert max(len(line) for line in stubbed.splitlines()) <= LINE_LIMIT, stubbed
    assert len(stubbed.splitlines()) > 5  # it did wrap
    namespace: dict = {}
    exec(stubbed, namespace)
    with pytest.raises(NotImplementedError) as info:
        namespace["f"]()
    assert str(info.value) == f"Exercise 2c: {LONG_TASK}"
    # the wrapped comment reads back as the whole task, and releasing again changes nothing
    assert exercise_texts(stubbed) == [("2c", LONG_TASK)]
    assert stub_source(stubbed)[0] == stubbed


def test_an_authors_wrapped_exercise_line_is_one_message() -> None:
    source = ("def f():\n    ### EXERCISE 3: sort the scores and\n    ###             keep the top k\n"
              "    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n")
    stubbed, _ = stub_source(source)
    assert 'raise NotImplementedError("Exercise 3: sort the scores and keep the top k")' in stubbed
    # a "###" line that does not follow an exercise line is not part of it
    assert exercise_texts("###   not an exercise\n### EXERCISE 4: do it\nx = 1\n###   unrelated") == [("4", "do it")]


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("[0-9]*.ipynb")), ids=lambda p: p.name)
def test_what_the_release_writes_fits_a_laptop_screen(path: Path) -> None:
    """Every line the release writes into notebooks/ (exercise comments and stubs) fits in LINE_LIMIT.

    Lines the authors wrote elsewhere in the cells are theirs to keep short; this test covers the
    release's own.
    """
    released = nbformat.read(str(NOTEBOOKS / path.name), as_version=4)
    solution_lines = {line for cell in nbformat.read(str(path), as_version=4).cells
                      for line in cell.source.splitlines()}
    too_long = [f"{cell.id}: {line.strip()[:60]}... ({len(line)} characters)"
                for cell in released.cells if cell.cell_type == "code" and "exercise" in cell.metadata.get("memlib", {})
                for line in cell.source.splitlines()
                if len(line) > LINE_LIMIT and (line not in solution_lines or EXERCISE_RE.match(line))]
    assert not too_long, "\n".join(too_long)


@pytest.mark.parametrize(
    "source, message",
    [
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION", "no '### EXERCISE N"),
        ("### EXERCISE 1: x\ndef f():\n    ### BEGIN SOLUTION\n    return 1", "never closed"),
        ("### EXERCISE 1: x\n### END SOLUTION", "without a matching"),
        ("### EXERCISE 1: x\n### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside the region"),
        ("### EXERCISE 1: x\nvalue = (\n    ### BEGIN SOLUTION\n    1\n    ### END SOLUTION\n)", "does not parse"),
    ],
)
def test_broken_regions_are_reported_with_where_and_what(source: str, message: str) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    with pytest.raises(ReleaseError, match=message) as info:
        release_notebook(nb, "05_broken.ipynb")
    assert "05_broken.ipynb, cell 1" in str(info.value)


def test_top_level_region_is_a_warning() -> None:
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("### EXERCISE 1: set the budget\n### BEGIN SOLUTION\nbudget = 10\n### END SOLUTION")]
    )
    with pytest.warns(ReleaseWarning, match="top level"):
        out = release_notebook(nb, "05_x.ipynb")
    assert out.cells[0].source.endswith('raise NotImplementedError("Exercise 1: set the budget")')


def _graded(source: str, meta: dict | None, tags: list[str]) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata = {"tags": tags}
    if meta is not None:
        cell.metadata["memlib"] = meta
    return cell


@pytest.mark.parametrize(
    "cell, message",
    [
        (_graded("from m import check\ncheck()", None, ["graded"]), "has no metadata"),
        (_graded("from m import check\ncheck()", {"grade_id": "a", "points": 1}, []), "is not tagged 'graded'"),
        (_graded("from m import check\ncheck()", {"grade_id": "a b", "points": 1}, ["graded"]), "grade_id 'a b'"),
        (_graded("from m import check\ncheck()", {"grade_id": "a", "points": 0}, ["graded"]), "positive number"),
        (_graded("check_x(f)", {"grade_id": "a", "points": 1}, ["graded"]), "must import its check"),
        (_graded("from m import c\nc()", {"grade_id": "a", "points": 1}, ["graded", "nbval-skip"]), "cannot be tagged"),
    ],
)
def test_graded_cell_conventions_enforced(cell, message: str) -> None:
    nb = nbformat.v4.new_notebook(cells=[cell])
    with pytest.raises(ReleaseError, match=message):
        release_notebook(nb, "05_x.ipynb")


def test_duplicate_grade_ids_across_notebooks(tmp_path: Path) -> None:
    src = tmp_path / "solutions"
    src.mkdir()
    for name in ("01_a.ipynb", "02_b.ipynb"):
        cell = _graded("from m import check\ncheck()", {"grade_id": "same", "points": 1}, ["graded"])
        nbformat.write(nbformat.v4.new_notebook(cells=[cell]), str(src / name))
    with pytest.raises(ReleaseError, match="'same' is used in 01_a.ipynb and 02_b.ipynb"):
        release(src, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing written before the error


def test_cell_ids_are_deterministic_when_missing() -> None:
    cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_markdown_cell("hi")]
    nb = nbformat.v4.new_notebook(cells=cells)
    for cell in nb.cells:
        del cell["id"]
    nb.nbformat_minor = 4
    first = release_notebook(nb, "03_x.ipynb")
    second = release_notebook(nb, "03_x.ipynb")
    assert [c.id for c in first.cells] == [c.id for c in second.cells]
    assert len({c.id for c in first.cells}) == 2 and first.nbformat_minor == 5


def test_cli_reports_release_errors(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "nowhere"), str(tmp_path / "out")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_solutions_get_their_own_colab_cells_and_nothing_else_changes(tmp_path: Path) -> None:
    from memlib.course.release import check_solutions_stamped, stamp_solutions

    src = tmp_path / "solutions"
    shutil.copytree(FIXTURE_COURSE, src)
    before = {p.name: nbformat.read(p, as_version=4) for p in sorted(src.glob("*.ipynb"))}
    assert check_solutions_stamped(src), "the fixture's placeholders should count as not stamped"
    assert [p.name for p in stamp_solutions(src)] == ["01_fixture.ipynb"]
    assert check_solutions_stamped(src) == [] and stamp_solutions(src) == []
    after = nbformat.read(src / "01_fixture.ipynb", as_version=4)
    badge = next(c for c in after.cells if "colab-badge" in c.metadata.get("tags", []))
    assert config.colab_url("solutions/01_fixture.ipynb") in badge.source
    def others(cells):
        return [c for c in cells if not {"colab-badge", "colab-setup"} & set(c.metadata.get("tags", []))]

    assert others(after.cells) == others(before["01_fixture.ipynb"].cells)
