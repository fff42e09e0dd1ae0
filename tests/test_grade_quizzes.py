"""Quizzes as graded items (grading.quizzes): off by default, read from the quiz cell's answers when on."""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
import pytest

from conftest import solved, write_notebook
from memlib.course import export, grade as grading
from memlib.course.grading.quizzes import quiz_answers, quiz_item, quiz_row
from memlib.quiz import LETTERS, load_quiz, parse_answers, show_quiz

pytestmark = pytest.mark.grading

QUIZ = load_quiz("01")
RIGHT = "".join(LETTERS[q.answer] for q in QUIZ.questions)
WRONG_FIRST = LETTERS[(QUIZ.questions[0].answer + 1) % len(QUIZ.questions[0].options)] + RIGHT[1:]
ITEM = quiz_item("01_context_window", 0.5)


def _nb(*sources: str) -> dict:
    return {"cells": [{"cell_type": "code", "source": s, "metadata": {}, "outputs": []} for s in sources]}


def test_the_answers_are_read_from_the_quiz_cell_and_scored_per_question() -> None:
    assert ITEM is not None and ITEM.grade_id == "quiz-01" and ITEM.points == 0.5 * len(QUIZ)
    cell = f'from memlib.course.quiz import show_quiz\nshow_quiz("01", answers="{RIGHT}")'
    assert quiz_answers(_nb(cell), ITEM) == (RIGHT, "")
    assert quiz_row(_nb(cell), ITEM) == (ITEM.points, "passed", "")
    points, status, reason = quiz_row(_nb(cell.replace(RIGHT, WRONG_FIRST)), ITEM)
    assert (points, status) == (ITEM.points - 0.5, "failed") and "not right: question(s) 1" in reason
    assert RIGHT[0] not in reason.split("question(s)")[1]  # the right letter is not given away
    points, status, reason = quiz_row(_nb(cell.replace(RIGHT, "-" + RIGHT[1:])), ITEM)  # the first left out
    assert (points, status) == (ITEM.points - 0.5, "failed")
    # the second argument is the answers too, as show_quiz takes it (an honest student in attack 5 got 0)
    assert quiz_row(_nb(f'show_quiz("01", "{RIGHT}")'), ITEM) == (ITEM.points, "passed", "")


def test_the_host_parses_at_most_the_notebooks_read_limit_of_quiz_cells(monkeypatch) -> None:
    from memlib.course.grading import inert, quizzes

    parsed = []
    monkeypatch.setattr(quizzes, "parse_python", lambda source: parsed.append(len(source)) or __import__("ast").parse(""))
    junk = "x = 1  # show_quiz\n" * 5_000  # 95,000 characters, under the per-cell limit
    quiz_answers(_nb(*[junk] * 300), ITEM)  # an attack sent 300 such cells: 104 s of host time
    assert sum(parsed) <= inert.READ_LIMIT_CHARS and len(parsed) == inert.READ_LIMIT_CHARS // len(junk)


def test_bad_input_no_answers_a_computed_answer_or_a_malformed_one_earns_nothing_and_says_why() -> None:
    released = 'from memlib.course.quiz import show_quiz\nshow_quiz("01")'
    assert quiz_row(_nb(released), ITEM)[:2] == (0.0, "failed")
    assert 'answers="cab"' in quiz_row(_nb(released), ITEM)[2]
    assert "string literal" in quiz_row(_nb('x = "abc"\nshow_quiz("01", answers=x)'), ITEM)[2]
    assert "questions" in quiz_row(_nb(f'show_quiz("01", answers="{RIGHT}aaaa")'), ITEM)[2]
    assert "not a letter" in quiz_row(_nb('show_quiz("01", answers="a1")'), ITEM)[2]
    assert quiz_row(_nb("show_quiz(\"01\", answers=\"a\"\n"), ITEM)[:2] == (0.0, "failed")  # does not parse
    with pytest.raises(ValueError, match="string of letters"):
        parse_answers(["a"], 3)
    assert quiz_item("01_context_window", 0) is None and quiz_item("15_nothing", 1) is None


def test_show_quiz_with_answers_prints_the_feedback(capsys) -> None:
    show_quiz("01", answers=WRONG_FIRST)
    out = capsys.readouterr().out
    assert "1. Not quite." in out and f"{len(QUIZ) - 1} of {len(QUIZ)} answered correctly" in out
    with pytest.raises(ValueError, match="not a letter"):
        show_quiz("01", answers="?")


@pytest.fixture(scope="module")
def quiz_class(course, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("quizzes")
    released = course["release"]
    for student, answers in (("ada", RIGHT), ("bob", WRONG_FIRST), ("cy", None)):
        nb = solved(released)
        if answers is not None:
            nb.cells.append(nbformat.v4.new_code_cell(
                f'from memlib.course.quiz import show_quiz\n\nshow_quiz("01", answers="{answers}")'))
        write_notebook(root / "subs" / student, nb)
    class_ = [str(root / "subs" / s) for s in ("ada", "bob", "cy")]
    for name, extra in (("off", []), ("on", ["--quiz-points", "0.5"])):
        assert grading.main([*class_, "--release", str(released), "--assignment", "01", "--out",
                             str(root / f"{name}.csv"), "--quiet", "--cell-timeout", "30", *extra]) == 0
    return {"root": root, "class": class_, "release": released}


def _rows(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {(r["student"], r["grade_id"]): r for r in csv.DictReader(handle)}


def test_the_grader_counts_quizzes_only_when_switched_on(quiz_class) -> None:
    off, on = _rows(quiz_class["root"] / "off.csv"), _rows(quiz_class["root"] / "on.csv")
    assert not any(grade_id.startswith("quiz-") for _, grade_id in off)
    most = str(0.5 * len(QUIZ)).removesuffix(".0")
    got = {s: (on[(s, "quiz-01")]["points"], on[(s, "quiz-01")]["max_points"], on[(s, "quiz-01")]["status"])
           for s in ("ada", "bob", "cy")}
    assert got == {"ada": (most, most, "passed"),
                   "bob": (str(0.5 * len(QUIZ) - 0.5).removesuffix(".0"), most, "failed"),
                   "cy": ("0", most, "failed")}
    wide = quiz_class["root"] / "wide.csv"
    assert export.main([str(quiz_class["root"] / "on.csv"), "--format", "csv-wide", "--out", str(wide)]) == 0
    with wide.open(newline="", encoding="utf-8") as handle:
        table = {r["student"]: r for r in csv.DictReader(handle)}
    assert float(table["ada"]["01_fixture"]) == 5 + 0.5 * len(QUIZ)


def test_bad_input_negative_quiz_points_stop_grading_before_it_starts(quiz_class, capsys) -> None:
    out = quiz_class["root"] / "neg.csv"
    assert grading.main([*quiz_class["class"], "--release", str(quiz_class["release"]), "--out", str(out),
                         "--quiet", "--quiz-points", "-1"]) == 2
    assert "quiz points -1" in capsys.readouterr().err


def test_every_released_quiz_cell_says_how_to_answer_and_as_released_answers_nothing() -> None:
    root = Path(__file__).resolve().parents[1]
    checked = 0
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        item = quiz_item(path.stem, 1)
        if item is None:
            continue
        nb = nbformat.read(str(path), as_version=4)
        cell = next(c for c in nb.cells if c.cell_type == "code" and "show_quiz(" in c.source)
        assert f'show_quiz("{item.notebook}", answers="...")' in cell.source, path.name
        assert quiz_answers(nb, item)[0] is None, path.name  # the hint is a comment, not an answer
        checked += 1
    assert checked == 15
