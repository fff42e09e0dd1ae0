"""The self-check quiz at the end of each notebook, where the notebooks import it from.

Each notebook's last cell runs ``from memlib.course.quiz import show_quiz``. The
quiz itself (the questions, their checking, the widget, the one loader and the
one reading of a notebook's name) is `memlib.quiz`, students' code like the rest
of memlib; this module re-exports it so that the notebooks' import stays as it is.
"""

from __future__ import annotations

from memlib.quiz import LETTERS, REVEAL_AFTER, Feedback, Question, Quiz, load_quiz, show_quiz  # noqa: F401

__all__ = ["Question", "Feedback", "Quiz", "load_quiz", "show_quiz"]
