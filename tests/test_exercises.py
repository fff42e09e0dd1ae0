"""Exercise records (memlib.course.exercise): one per graded cell, and a new exercise is two files."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

import memlib.course.checks as checks
from memlib.course import mutation
from memlib.course.checker import graded_call
from memlib.course.exercise import exercises
from memlib.course.release import graded_cells, release

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"


def _graded_cells() -> list[tuple[str, dict]]:
    found = []
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell.get("metadata", {}).get("memlib", {}).get("grade_id"):
                found.append((path.stem, cell))
    return found


def test_every_graded_cell_has_exactly_one_record_and_every_record_a_cell() -> None:
    records = exercises()
    cells = _graded_cells()
    assert len(cells) == len(records) >= 9
    for notebook, cell in cells:
        meta = cell["metadata"]["memlib"]
        record = records.get(meta["grade_id"])
        assert record is not None, f"{notebook}: graded cell {meta['grade_id']!r} has no EXERCISE record"
        call = graded_call("".join(cell["source"]))
        assert (record.notebook, record.points, record.check, record.answer) == (
            notebook, meta["points"], call.function, call.answer), record
        check = getattr(checks, record.check)
        assert check.grade_id == record.grade_id and check.__module__ == record.module


def test_each_grade_id_is_written_once_in_memlib_in_its_record() -> None:
    import ast

    memlib_dir = Path(checks.__file__).resolve().parents[2]
    written: dict[str, list[str]] = {grade_id: [] for grade_id in exercises()}
    for path in sorted(memlib_dir.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in written:
                written[node.value].append(f"{path.relative_to(memlib_dir)}:{node.lineno}")
    for grade_id, record in exercises().items():
        assert len(written[grade_id]) == 1, f"{grade_id} is written in {written[grade_id]}: once, in its record"
        check = getattr(checks, record.check)
        module = __import__(record.module, fromlist=["_"])
        assert check.exercise in (getattr(module, "EXERCISES", None) or (module.EXERCISE,))
        assert (check.grade_id, check.references) == (record.grade_id, record.references)


def test_graded_refuses_what_is_not_a_record_or_a_grade_id() -> None:
    from memlib.course.checking import graded
    from memlib.course.exercise import Exercise

    with pytest.raises(TypeError, match="takes an Exercise record or a grade id, not int"):
        graded(7)
    record = Exercise(grade_id="96-twice-said", notebook="96", answer="a", points=1)
    with pytest.raises(TypeError, match="the record states the description and references"):
        graded(record, "said again here")


def _plain(text: str) -> str:
    """Text as a reader sees it, for finding a phrase: no bold marks, one space between words."""
    return " ".join(text.replace("**", "").split())


def _notebook_text(path: Path) -> str:
    return _plain("\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]))


def _unstated(record, text: str) -> list[str]:
    """The phrases of `record`'s contract that `text` does not contain."""
    return [phrase for phrase in record.contract if _plain(phrase) not in text]


def test_the_exercises_with_the_most_numbers_state_them_from_their_records() -> None:
    stated = {grade_id for grade_id, record in exercises().items() if record.contract}
    assert {"06-citations", "07-guard", "08-typed-core-memory"} <= stated, stated


@pytest.mark.parametrize("grade_id", sorted(g for g, r in exercises().items() if r.contract))
def test_the_exercise_text_states_what_its_check_checks(grade_id: str) -> None:
    record = exercises()[grade_id]
    for folder in (SOLUTIONS, SOLUTIONS.parent / "notebooks"):
        unstated = _unstated(record, _notebook_text(folder / f"{record.notebook}.ipynb"))
        assert not unstated, (f"{folder.name}/{record.notebook}: the check's record says {unstated}, "
                              "which the exercise's text does not")


def test_a_changed_number_in_the_text_is_found() -> None:
    record = exercises()["06-citations"]
    text = _notebook_text(SOLUTIONS / "06_citations.ipynb")
    changed = text.replace(_plain(record.contract[0]), _plain(record.contract[0]).replace("asks 12", "asks 9"))
    assert _unstated(record, text) == [] and _unstated(record, changed) == [record.contract[0]]


THROWAWAY_CHECK = '''"""A throwaway exercise's check (written by tests/test_exercises.py)."""

from memlib.course.checking import expect_equal, graded, passed
from memlib.course.exercise import Exercise

__all__ = ["check_triple"]


EXERCISE = Exercise(grade_id="99-triple", notebook="99_throwaway", answer="triple", points=1,
                    equivalent={"keep-state: triple -> remembers its result per len(x)":
                                "an int is its own key: remembering 3 * x per x still returns 3 * x"})


@graded(EXERCISE)
def check_triple(triple):
    """triple(x) returns 3 * x."""
    for x in (0, 1, -4, 7):
        expect_equal(triple(x), 3 * x, f"triple({x})", "return 3 * x")
    passed("triple(x) == 3 * x")
'''


def _throwaway_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    exercise = nbformat.v4.new_code_cell("def triple(x):\n    ### EXERCISE 1: return three times x\n"
                                         "    ### BEGIN SOLUTION\n    return 3 * x\n    ### END SOLUTION")
    check = nbformat.v4.new_code_cell("from memlib.course.checks import check_triple\n\ncheck_triple(triple)")
    check.metadata = {"memlib": {"grade_id": "99-triple", "points": 1}, "tags": ["graded"]}
    nb.cells = [nbformat.v4.new_markdown_cell("# 99 A throwaway exercise"), exercise, check]
    return nb


def test_a_new_exercise_is_two_files(tmp_path: Path, monkeypatch) -> None:
    # file 1: the check module with its record, in a folder the checks package searches
    folder = tmp_path / "more_checks"
    folder.mkdir()
    (folder / "nb99_throwaway.py").write_text(THROWAWAY_CHECK, encoding="utf-8")
    monkeypatch.setattr(checks, "__path__", [*checks.__path__, str(folder)])
    # file 2: the solution notebook
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(_throwaway_notebook(), str(solutions / "99_throwaway.ipynb"))

    record = exercises()["99-triple"]  # found, nothing registered by hand
    assert record.module == "memlib.course.checks.nb99_throwaway"
    released = tmp_path / "released"
    release(solutions, released)
    (graded,) = graded_cells(nbformat.read(str(released / "99_throwaway.ipynb"), as_version=4))
    assert graded.grade_id == "99-triple" and graded_call(graded.source).answer == record.answer
    # mutation testing runs on it as on any exercise
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setitem(mutation.EXERCISES, "99-triple", record)
    report = mutation.run("99-triple")
    assert report.reference_passes and len(report.killed) == 5 and not report.survived, report.render()
    assert [why for _, why in report.equivalent][-1].startswith("an int is its own key")  # the record's own list
    from memlib.course.checking import CHECKS

    CHECKS.pop("99-triple", None)


@pytest.mark.grading
def test_a_new_exercise_is_graded_by_memlib_grade_from_its_two_files(tmp_path: Path) -> None:
    """The same two files, with the check beside the notebook (as a course outside memlib keeps it): graded."""
    from memlib.course import grade as grading

    solutions, released = tmp_path / "solutions", tmp_path / "released"
    solutions.mkdir()
    (solutions / "throwaway_checks.py").write_text(THROWAWAY_CHECK, encoding="utf-8")
    nb = _throwaway_notebook()
    nb.cells[-1].source = "from throwaway_checks import check_triple\n\ncheck_triple(triple)"
    nbformat.write(nb, str(solutions / "99_throwaway.ipynb"))
    release(solutions, released)
    (released / "throwaway_checks.py").write_text(THROWAWAY_CHECK, encoding="utf-8")  # the check travels with it

    student = nbformat.read(str(released / "99_throwaway.ipynb"), as_version=4)
    for name, body in (("blank", None), ("solved", "    return 3 * x"), ("wrong", "    return x + x")):
        if body is not None:
            student.cells[1].source = "def triple(x):\n" + body
        (tmp_path / "class" / name).mkdir(parents=True)
        nbformat.write(student, str(tmp_path / "class" / name / "99_throwaway.ipynb"))
    report = grading.grade(sorted((tmp_path / "class").iterdir()), released, timeout=120, sandbox="none",
                           warn=lambda _: None)
    rows = {row.student: row for row in report.rows}
    assert {name: (row.grade_id, row.points, row.status) for name, row in rows.items()} == {
        "blank": ("99-triple", 0, "failed"), "solved": ("99-triple", 1, "passed"),
        "wrong": ("99-triple", 0, "failed")}
    assert "not solved yet" in rows["blank"].reason and "triple(1)" in rows["wrong"].reason
    from memlib.course.checking import CHECKS

    CHECKS.pop("99-triple", None)


def test_records_refuse_two_claims_on_one_grade_id(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "twice"
    folder.mkdir()
    for name in ("nb98_a", "nb98_b"):
        (folder / f"{name}.py").write_text(
            "from memlib.course.checking import graded\n"
            "from memlib.course.exercise import Exercise\n"
            "EXERCISE = Exercise(grade_id='98-twice', notebook='98', answer='a', points=1)\n"
            "@graded(EXERCISE)\ndef c(a):\n    pass\n")
    monkeypatch.setattr(checks, "__path__", [str(folder)])
    with pytest.raises(ValueError, match="'98-twice'"):  # two records, two checks: refused at the second
        exercises()
    from memlib.course.checking import CHECKS

    CHECKS.pop("98-twice", None)
    (folder / "nb98_b.py").write_text("X = 1\n")
    monkeypatch.delitem(__import__("sys").modules, "memlib.course.checks.nb98_b", raising=False)
    with pytest.raises(TypeError, match="nb98_b defines no EXERCISE"):
        exercises()


STEPS_CHECK = '''"""A throwaway exercise in two steps (written by tests/test_exercises.py)."""

from memlib.course.checking import expect_equal, graded, passed
from memlib.course.exercise import Exercise

__all__ = ["check_double", "check_quadruple"]


DOUBLE = Exercise(grade_id="97-double", notebook="97_steps", answer="double", points=1, cell="97-double")
QUADRUPLE = Exercise(grade_id="97-quadruple", notebook="97_steps", answer="quadruple", points=1,
                     setup_cells=("97-double",), cell="97-quadruple")


@graded(DOUBLE)
def check_double(double):
    for x in (0, 2, -5):
        expect_equal(double(x), 2 * x, f"double({x})", "return 2 * x")
    passed("double(x) == 2 * x")


@graded(QUADRUPLE)
def check_quadruple(quadruple):
    for x in (0, 2, -5):
        expect_equal(quadruple(x), 4 * x, f"quadruple({x})", "return double(double(x))")
    passed("quadruple(x) == 4 * x")


EXERCISES = (DOUBLE, QUADRUPLE)
'''


def test_an_exercise_in_steps_has_a_record_and_an_exercise_cell_per_step(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "steps"
    folder.mkdir()
    (folder / "nb97_steps.py").write_text(STEPS_CHECK, encoding="utf-8")
    monkeypatch.setattr(checks, "__path__", [*checks.__path__, str(folder)])
    nb = nbformat.v4.new_notebook()
    cells = [("97-double", "def double(x):\n    ### EXERCISE 1: twice x\n    ### BEGIN SOLUTION\n"
                           "    return 2 * x\n    ### END SOLUTION"),
             ("97-quadruple", "def quadruple(x):\n    ### EXERCISE 1: four times x\n    ### BEGIN SOLUTION\n"
                              "    return double(double(x))\n    ### END SOLUTION")]
    nb.cells = [nbformat.v4.new_markdown_cell("# 97 Steps")]
    for ident, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.id = ident
        nb.cells.append(cell)
    (tmp_path / "solutions").mkdir()
    nbformat.write(nb, str(tmp_path / "solutions" / "97_steps.ipynb"))

    records = exercises()
    assert records["97-double"].module == records["97-quadruple"].module == "memlib.course.checks.nb97_steps"
    assert "double(double(x))" in mutation.exercise_cell(records["97-quadruple"], tmp_path)
    assert "2 * x" in mutation.exercise_cell(records["97-double"], tmp_path)
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    for grade_id in ("97-double", "97-quadruple"):
        monkeypatch.setitem(mutation.EXERCISES, grade_id, records[grade_id])
    report = mutation.run("97-quadruple")  # the mutants are the second step's, run after the first's cell
    assert report.reference_passes and len(report.killed) == 2, report.render()
    assert all("double(double(x))" in m.description for m, _ in report.killed)
    missing = records["97-double"].__class__(**{**records["97-double"].__dict__, "cell": "97-nowhere"})
    with pytest.raises(LookupError, match="no exercise cell '97-nowhere'"):
        mutation.exercise_cell(missing, tmp_path)
    from memlib.course.checking import CHECKS

    CHECKS.pop("97-double", None)
    CHECKS.pop("97-quadruple", None)
