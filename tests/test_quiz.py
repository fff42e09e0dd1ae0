"""Quizzes (memlib.course.quiz): the logic as plain Python, the widget headless."""

from __future__ import annotations

import builtins
import os
import subprocess
import sys

import pytest

from memlib.course import quiz as quiz_module
from memlib.course.quiz import REVEAL_AFTER, Feedback, Question, Quiz, load_quiz, show_quiz

QUESTIONS = [
    {
        "question": "Where do evicted messages go?",
        "options": ["Nowhere", "Recall storage", "The system prompt"],
        "answer": 1,
        "explanation": "Every message stays searchable in recall storage.",
    },
    {
        "question": "What is 2 + 2?",
        "options": ["3", "4"],
        "answer": 1,
        "explanation": "",
        "feedback": ["Off by one.", "Yes."],
    },
]


def test_right_answer_gives_the_explanation() -> None:
    question = Question.from_data(QUESTIONS[0])
    feedback = question.check(1)
    assert feedback == Feedback(True, "Correct. Every message stays searchable in recall storage.", 1)


def test_choices_by_index_letter_or_text() -> None:
    question = Question.from_data(QUESTIONS[0])
    assert question.choice_index(2) == 2
    assert question.choice_index("B") == 1
    assert question.choice_index(" recall storage ") == 1
    assert question.choice_index("z") is None and question.choice_index(7) is None and question.choice_index(True) is None


def test_wrong_answers_get_hints_then_the_answer() -> None:
    quiz = Quiz(QUESTIONS)
    first = quiz.answer(1, "a")
    assert not first.correct and first.text == "Not quite. Read the question again and try another option."
    assert REVEAL_AFTER == 2
    second = quiz.answer(1, "c")
    assert second.text == (
        "Not quite. The answer is b) Recall storage. Every message stays searchable in recall storage."
    )
    assert quiz.answer(1, "b").correct
    assert quiz.score == (1, 2)


def test_per_option_feedback() -> None:
    quiz = Quiz(QUESTIONS)
    assert quiz.answer(2, 0).text == "Not quite. Off by one."
    assert quiz.answer(2, "4").text == "Correct."


def test_no_choice_asks_to_pick_one() -> None:
    quiz = Quiz(QUESTIONS)
    feedback = quiz.answer(1, None)
    assert not feedback.correct and feedback.text == "Pick one of the options (a, b, c) first."
    assert quiz.tries[1] == []  # not counted as a wrong try


@pytest.mark.parametrize(
    "data, message",
    [
        ({"question": "q", "options": ["a"], "answer": 0}, "at least 2 options"),
        ({"question": "q", "options": ["a", "b"], "answer": 2}, "0-based index"),
        ({"question": "q", "options": ["a", "b"], "answer": True}, "0-based index"),
        ({"question": "q", "options": ["a", "b"]}, "missing answer"),
        ({"question": "q", "options": ["a", "b"], "answer": 0, "feedback": ["x"]}, "one text per option"),
    ],
)
def test_bad_question_data_is_explained(data, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Question.from_data(data)


def test_unknown_question_number() -> None:
    with pytest.raises(IndexError, match="questions 1..2"):
        Quiz(QUESTIONS).answer(3, "a")


def test_text_fallback_lists_options_and_how_to_answer() -> None:
    text = Quiz(QUESTIONS, title="Eviction").text()
    assert text.startswith("Eviction\n\n1. Where do evicted messages go?\n   a) Nowhere\n   b) Recall storage")
    assert 'quiz.answer(1, "b")' in text


def test_widget_checks_the_selected_answer() -> None:
    pytest.importorskip("ipywidgets")
    quiz = Quiz(QUESTIONS, title="Eviction <3>")
    box = quiz.widget()
    assert "&lt;3&gt;" in box.children[0].value  # titles are escaped
    parts = box.children[1].quiz_parts
    parts["button"].click()
    assert "Pick one of the options" in parts["result"].value
    parts["choices"].value = 1
    parts["button"].click()
    assert "Correct." in parts["result"].value and "#1a7f37" in parts["result"].value
    assert quiz.score == (1, 2)


def test_widget_without_ipywidgets_falls_back_to_text(monkeypatch, capsys) -> None:
    real_import = builtins.__import__

    def no_ipywidgets(name, *args, **kwargs):
        if name == "ipywidgets" or name.startswith("ipywidgets."):
            raise ImportError("No module named 'ipywidgets'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ipywidgets)
    quiz = Quiz(QUESTIONS)
    with pytest.raises(ImportError, match="quiz.answer"):
        quiz.widget()
    quiz._ipython_display_()
    assert "1. Where do evicted messages go?" in capsys.readouterr().out


def test_course_quizzes_load_and_are_answerable() -> None:
    from memlib.datasets import QUIZ_NOTEBOOKS

    for number in QUIZ_NOTEBOOKS:
        title, questions = load_quiz(number)
        assert questions, f"quiz {number} is empty"
        quiz = Quiz(questions, title=title)
        for index, question in enumerate(quiz.questions, start=1):
            assert quiz.answer(index, question.answer).correct
    assert repr(Quiz.load("03_archival")).startswith("Quiz(")


def test_load_quiz_without_datasets_module(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "memlib.datasets", None)  # import fails -> importlib.resources path
    title, questions = load_quiz("03")
    assert questions and all(isinstance(q, Question) for q in questions)


def test_show_quiz_prints_outside_jupyter(capsys) -> None:
    load_quiz("00")
    assert show_quiz("00") is None
    assert "1. " in capsys.readouterr().out


def test_bad_notebook_name() -> None:
    with pytest.raises(ValueError, match="notebook number"):
        load_quiz("archival")
    assert quiz_module._notebook_id(3) == "03" and quiz_module._notebook_id("3_x") == "03"


@pytest.mark.skipif(
    not os.environ.get("MEMLIB_IPYWIDGETS7"),
    reason="set MEMLIB_IPYWIDGETS7 to a folder with ipywidgets 7.7.1 (and ipython_genutils) unpacked",
)
def test_widget_on_ipywidgets_7() -> None:
    code = (
        "import ipywidgets; assert ipywidgets.__version__.startswith('7.'), ipywidgets.__version__\n"
        "from memlib.course.quiz import Quiz\n"
        "q = Quiz([{'question': 'q', 'options': ['a', 'b'], 'answer': 1}])\n"
        "parts = q.widget().children[0].quiz_parts\n"
        "parts['choices'].value = 1; parts['button'].click()\n"
        "assert 'Correct.' in parts['result'].value\n"
    )
    env = dict(os.environ, PYTHONPATH=os.environ["MEMLIB_IPYWIDGETS7"])
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)
