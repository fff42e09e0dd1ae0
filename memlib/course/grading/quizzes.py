"""Quizzes as graded items, when the instructor switches them on (``grade --quiz-points P``).

Every notebook ends with a self-check quiz (`memlib.quiz`, ``data/quizzes/NN.json``). Off by
default, it counts with ``--quiz-points P``: each released notebook that has a quiz gets one
more gradebook row per student, grade id ``quiz-NN``, worth P points per question; a right
answer earns P. The answers are read from the student's notebook as handed in, before anything
runs: the ``answers`` of its ``show_quiz("NN", answers="cab")`` call, by keyword or as the second
argument as the function takes it (a string literal, one letter per question, ``-`` for one left out). Nothing the kernel does and no network is
involved, and a quiz cell left as released (no ``answers``) earns 0 with a reason saying how to
answer. Every question right is ``passed``; otherwise ``failed`` with the points earned and the
numbers of the questions missed (never the right letters: the student's feedback shows the
reason too).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from memlib.course.grading.inert import CELL_READ_LIMIT_CHARS, READ_LIMIT_CHARS
from memlib.course.status import FAILED, PASSED
from memlib.quiz import QUIZ_NOTEBOOKS, load_quiz, parse_answers
from memlib._util import parse_python

__all__ = ["QuizItem", "quiz_item", "quiz_answers", "quiz_row"]


@dataclass(frozen=True)
class QuizItem:
    """The quiz of one released notebook as a graded item."""

    grade_id: str  # "quiz-03"
    notebook: str  # "03"
    questions: int
    points_each: float

    @property
    def points(self) -> float:
        return self.questions * self.points_each


def quiz_item(stem: str, points_each: float) -> QuizItem | None:
    """The graded quiz of the notebook `stem` (``03_archival_bm25``), or None when it has none."""
    number = stem[:2]
    if not (number.isdigit() and number in QUIZ_NOTEBOOKS and points_each > 0):
        return None
    return QuizItem(f"quiz-{number}", number, len(load_quiz(number)), float(points_each))


def _text(source: object) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def quiz_answers(nb: dict, item: QuizItem) -> tuple[str | None, str]:
    """(the answers string, "") from the notebook's ``show_quiz`` call, or (None, why there is none)."""
    why = "no answers: write them into the quiz cell, e.g. show_quiz(\"%s\", answers=\"cab\")" % item.notebook
    found: str | None = None
    budget = READ_LIMIT_CHARS  # of source parsed on the host for this notebook, all cells together
    for cell in nb.get("cells", []):
        source = _text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or "show_quiz" not in source:
            continue
        if len(source) > min(CELL_READ_LIMIT_CHARS, budget):  # not parsed on the host
            continue
        budget -= len(source)
        try:
            tree = parse_python(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) ==
                    "show_quiz"):
                continue
            # show_quiz(notebook, answers=None): the answers by keyword or as the second argument
            given = [k.value for k in node.keywords if k.arg == "answers"] + node.args[1:2]
            for value in given:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found = value.value  # the last call in the notebook counts
                else:
                    why = "answers must be written as a string literal, e.g. answers=\"cab\""
    return (found, "") if found is not None else (None, why)


def quiz_row(nb: dict, item: QuizItem) -> tuple[float, str, str]:
    """(points, status, reason) of the quiz row of a handed-in notebook."""
    answers, why = quiz_answers(nb, item)
    if answers is None:
        return 0.0, FAILED, f"quiz: {why}"
    quiz = load_quiz(item.notebook)
    try:
        chosen = parse_answers(answers, len(quiz))
    except ValueError as error:
        return 0.0, FAILED, f"quiz: {error}"
    right = [n for n, letter in chosen.items() if quiz.question(n).choice_index(letter) == quiz.question(n).answer]
    missed = [n for n in range(1, len(quiz) + 1) if n not in right]
    points = len(right) * item.points_each
    if not missed:
        return points, PASSED, ""
    listed = ", ".join(str(n) for n in missed)
    return points, FAILED, f"quiz: {len(right)} of {len(quiz)} right; not right: question(s) {listed}"
