"""Self-check quizzes at the end of each notebook: the questions, the checking and the widget.

``show_quiz("03")`` shows notebook 03's quiz: per question a set of radio
buttons, a Check button and feedback for the chosen answer. The logic (is this
answer right, what feedback to give) is plain Python in `Question` and `Quiz`,
so it is tested without a browser; without ipywidgets the quiz prints as text
and is answered with ``quiz.answer(1, "b")``.

The widget uses only ipywidgets APIs present in both 7.7.1 (Colab) and 8.x:
HTML, RadioButtons, Button, VBox, Layout, ``on_click``. It does not record or
send scores anywhere.

A quiz counts only when the instructor switches it on (``grade --quiz-points``,
`memlib.course.grading.quizzes`). Then the answers that count are the ones the
student writes into the quiz cell, ``show_quiz("03", answers="cab")`` (one letter
per question, ``-`` for one left out): the cell's source is saved with the
notebook wherever it runs, while a widget's clicks are not (Jupyter saves no
widget state by default, and what a button's callback prints is not a cell
output). With `answers`, the cell also prints the feedback for each answer.

Quiz data: ``data/quizzes/NN.json``, an object ``{"notebook": "NN", "title":
..., "questions": [...]}`` (or a bare list) whose questions have ``question``,
``options``, ``answer`` (0-based index into options), ``explanation`` and
optionally ``feedback`` (one text per option, shown when that option is
chosen: why that distractor is wrong). `load_quiz` is the one loader (the
datasets' ``load("quiz", notebook=...)`` is the same) and `notebook_id` the one
reading of a notebook's name: "03", 3 and "03_archival_bm25" are notebook 03.

In a Chinese notebook (``memlib.course.lang.use_language("zh")``) a quiz speaks
Chinese: ``data/quizzes/zh/NN.json`` holds the Chinese text of each question of
``NN.json``, in the same order, with the same options in the same order, and the
English question it translates (``"en"``). The English file stays the one source of
the quiz's structure (which option is right, how many there are); the Chinese file
adds only words, so a quiz gives the same verdicts in both languages. A question
whose English changed since it was translated (its ``"en"`` no longer matches) is
shown in English until the translation is brought up to date.

The notebooks import all this from `memlib.course.quiz`, which re-exports it.
"""


from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from memlib._util import is_int, shorten
from memlib.data_files import read_text
from memlib.labels import chinese, label

__all__ = ["Question", "Feedback", "Quiz", "QUIZ_NOTEBOOKS", "notebook_id", "load_quiz", "in_chinese",
           "parse_answers", "show_quiz"]

#: The notebooks that end with a quiz (data/quizzes/NN.json), in course order.
QUIZ_NOTEBOOKS = ("00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14")

LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: After this many wrong tries on a question, the feedback reveals the answer.
REVEAL_AFTER = 2


@dataclass(frozen=True)
class Feedback:
    """What the student is told after checking one answer."""

    correct: bool
    text: str
    choice: int | None = None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Feedback(correct={self.correct}, text={self.text!r})"


@dataclass(frozen=True)
class Question:
    """One multiple-choice question with its answer and explanation."""

    question: str
    options: tuple[str, ...]
    answer: int
    explanation: str = ""
    feedback: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not str(self.question).strip():
            raise ValueError("a quiz question needs non-empty 'question' text")
        if len(self.options) < 2:
            raise ValueError(f"question {self.question!r} needs at least 2 options, got {len(self.options)}")
        if not is_int(self.answer) or not 0 <= self.answer < len(self.options):
            raise ValueError(
                f"question {self.question!r}: answer must be the 0-based index of the right option "
                f"(0..{len(self.options) - 1}), got {self.answer!r}"
            )
        if self.feedback and len(self.feedback) != len(self.options):
            raise ValueError(f"question {self.question!r}: 'feedback' needs one text per option")

    @classmethod
    def from_data(cls, data: Any) -> "Question":
        """Build from a dict (quiz JSON) or any object with the same attributes."""
        get: Callable[..., Any] = (data.get if isinstance(data, dict)
                                   else (lambda key, default=None: getattr(data, key, default)))
        missing = [k for k in ("question", "options", "answer") if get(k) is None]
        if missing:
            raise ValueError(f"quiz question is missing {', '.join(missing)}: {data!r}")
        return cls(
            question=str(get("question")),
            options=tuple(str(o) for o in get("options")),
            answer=get("answer"),
            explanation=str(get("explanation", "") or ""),
            feedback=tuple(str(f) for f in (get("feedback", ()) or ())),
        )

    @property
    def correct(self) -> str:
        """The text of the right option."""
        return self.options[self.answer]

    def choice_index(self, choice: int | str | None) -> int | None:
        """Turn 0-based index, a letter ("b") or the option text into an index (None if unknown)."""
        if choice is None or isinstance(choice, bool):
            return None
        if isinstance(choice, int):
            return choice if 0 <= choice < len(self.options) else None
        text = str(choice).strip()
        if len(text) == 1 and text.lower() in LETTERS[: len(self.options)]:
            return LETTERS.index(text.lower())
        for index, option in enumerate(self.options):
            if option.strip().lower() == text.lower():
                return index
        return None

    def check(self, choice: int | str | None, wrong_tries: int = 0) -> Feedback:
        """Feedback for `choice`; after `REVEAL_AFTER` wrong tries it names the answer."""
        index = self.choice_index(choice)
        if index is None:
            letters = ", ".join(LETTERS[: len(self.options)])
            return Feedback(False, label("quiz_pick", letters=letters), None)
        if index == self.answer:
            return Feedback(True, _sentence(label("quiz_correct"), self.explanation), index)
        specific = self.feedback[index] if self.feedback else ""
        if wrong_tries + 1 >= REVEAL_AFTER:
            reveal = label("quiz_the_answer", letter=LETTERS[self.answer], option=self.options[self.answer])
            return Feedback(False, _sentence(label("quiz_not_quite"), specific, reveal, self.explanation), index)
        return Feedback(False, _sentence(label("quiz_not_quite"), specific or label("quiz_again")), index)

    def text(self, number: int = 1) -> str:
        lines = [f"{number}. {self.question}"]
        lines += [f"   {LETTERS[i]}) {option}" for i, option in enumerate(self.options)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        short = shorten(self.question, 50)
        return f"Question({short!r}, {len(self.options)} options)"


def _sentence(*parts: str) -> str:
    # Chinese sentences follow each other without a space
    return ("" if chinese() else " ").join(p.strip() for p in parts if p and p.strip())


@dataclass
class Quiz:
    """A list of questions plus the student's tries; shows itself as a widget in Jupyter."""

    questions: list[Question]
    title: str = ""
    notebook: str = ""
    tries: dict[int, list[int | None]] = field(default_factory=dict)  # question number -> choices tried

    def __init__(self, questions: Iterable[Any], title: str = "", notebook: str = "") -> None:
        self.questions = [q if isinstance(q, Question) else Question.from_data(q) for q in questions]
        if not self.questions:
            raise ValueError("a quiz needs at least one question")
        self.title = title
        self.notebook = notebook
        self.tries = {}
        self.last: dict[int, Feedback] = {}

    @classmethod
    def from_data(cls, raw: Any, notebook: str = "") -> "Quiz":
        """A quiz from its JSON data: ``{"notebook", "title", "questions"}`` or a bare list of questions."""
        if isinstance(raw, dict):
            return cls(raw.get("questions", []), title=str(raw.get("title", "") or ""),
                       notebook=str(raw.get("notebook", notebook) or notebook))
        return cls(raw, notebook=notebook)

    @classmethod
    def load(cls, notebook: str | int) -> "Quiz":
        """The quiz of notebook `notebook` ("03", 3 or "03_archival_bm25"), a fresh one on every call."""
        return load_quiz(notebook)

    def __len__(self) -> int:
        return len(self.questions)

    def question(self, number: int) -> Question:
        if not 1 <= number <= len(self.questions):
            raise IndexError(f"question {number} does not exist; this quiz has questions 1..{len(self.questions)}")
        return self.questions[number - 1]

    def answer(self, number: int, choice: int | str | None) -> Feedback:
        """Check `choice` (0-based index, letter or option text) for question `number` (1-based)."""
        question = self.question(number)
        tried = self.tries.setdefault(number, [])
        wrong = sum(1 for c in tried if c is not None and c != question.answer)
        feedback = question.check(choice, wrong_tries=wrong)
        if feedback.choice is not None:
            tried.append(feedback.choice)
        self.last[number] = feedback
        return feedback

    @property
    def score(self) -> tuple[int, int]:
        """(questions answered correctly, number of questions)."""
        right = sum(1 for number, fb in self.last.items() if fb.correct)
        return right, len(self.questions)

    def text(self) -> str:
        header = f"{self.title}\n\n" if self.title else ""
        body = "\n\n".join(q.text(i) for i, q in enumerate(self.questions, start=1))
        footer = "\n\n" + label("quiz_footer")
        return header + body + footer

    def widget(self) -> Any:
        """An ipywidgets VBox with one block per question (ImportError without ipywidgets)."""
        try:
            import ipywidgets as widgets  # optional: the quiz also works as text
        except ImportError as error:
            raise ImportError(
                "the quiz widget needs ipywidgets (pip install ipywidgets); "
                'without it, print(quiz.text()) and answer with quiz.answer(1, "b")'
            ) from error
        blocks = []
        if self.title:
            blocks.append(widgets.HTML(value=f"<h3>{html.escape(self.title)}</h3>"))
        for number, question in enumerate(self.questions, start=1):
            blocks.append(self._question_block(widgets, number, question))
        return widgets.VBox(children=blocks)

    def _question_block(self, widgets: Any, number: int, question: Question) -> Any:
        prompt = widgets.HTML(value=f"<b>{number}. {html.escape(question.question)}</b>")
        labels = [(f"{LETTERS[i]}) {option}", i) for i, option in enumerate(question.options)]
        choices = widgets.RadioButtons(options=labels, value=None, layout=widgets.Layout(width="auto"))
        button = widgets.Button(description=label("quiz_check"), layout=widgets.Layout(width="100px"))
        result = widgets.HTML(value="")

        def on_check(_: Any) -> None:
            feedback = self.answer(number, choices.value)
            colour = "#1a7f37" if feedback.correct else "#b35900"
            result.value = f'<span style="color:{colour}">{html.escape(feedback.text)}</span>'

        button.on_click(on_check)
        block = widgets.VBox(children=[prompt, choices, button, result])
        # kept for tests and for anyone scripting the widget
        block.quiz_parts = {"choices": choices, "button": button, "result": result, "check": on_check}
        return block

    def _ipython_display_(self) -> None:
        # IPython is there whenever Jupyter calls this; memlib does not need it otherwise.
        from IPython.display import display

        try:
            display(self.widget())
        except ImportError:
            print(self.text())

    def __repr__(self) -> str:
        right, total = self.score
        title = f"{self.title!r}, " if self.title else ""
        notebook = f"{self.notebook} " if self.notebook else ""
        return f"Quiz({notebook}{title}{total} questions, {right} answered correctly)"


# A notebook's number, alone or followed by the rest of its file name ("03_archival_bm25").
_NOTEBOOK_NAME = re.compile(r"(\d{1,2})(?:_\w*)?")


def notebook_id(notebook: object) -> str:
    """The two-digit id of a notebook that has a quiz, from "03", 3 or a name that starts "03_".

    The words after the number are not checked: "03_archival" names notebook 03
    as its file, 03_archival_bm25.ipynb, does.

    Example:
        >>> notebook_id(3), notebook_id("3"), notebook_id("03_archival")
        ('03', '03', '03')
    """
    number = None
    if isinstance(notebook, int) and not isinstance(notebook, bool):
        number = f"{notebook:02d}"
    elif isinstance(notebook, str):
        match = _NOTEBOOK_NAME.fullmatch(notebook.strip())
        number = match.group(1).zfill(2) if match else None
    if number not in QUIZ_NOTEBOOKS:
        raise ValueError(
            f"no quiz for notebook {notebook!r}; name it by its notebook number, one of {', '.join(QUIZ_NOTEBOOKS)} "
            "(a string like '03', an int like 3, or a notebook name like '03_archival_bm25')"
        )
    return number


def load_quiz(notebook: object) -> Quiz:
    """The quiz of a notebook (see `notebook_id`), a fresh one on every call.

    Not cached: a Quiz records the student's tries, so every caller gets its own.
    """
    number = notebook_id(notebook)
    raw = json.loads(read_text(f"quizzes/{number}.json"))
    if chinese():
        raw = in_chinese(raw, number)
    return Quiz.from_data(raw, number)


#: What a Chinese question may give; the rest (the answer, the sources) is the English file's.
_TRANSLATED = ("question", "options", "explanation", "feedback")


def in_chinese(raw: dict, number: str) -> dict:
    """Quiz data `raw` (an English quiz file) with the Chinese words of ``quizzes/zh/NN.json`` where it has them.

    A question keeps its English when the Chinese file has no entry for it, when the
    entry translates another English question, or when it gives another number of
    options or feedback texts.
    """
    try:
        zh = json.loads(read_text(f"quizzes/zh/{number}.json"))
    except FileNotFoundError:
        return raw
    translated = zh.get("questions", [])
    questions = []
    for i, question in enumerate(raw.get("questions", [])):
        entry = translated[i] if i < len(translated) else {}
        fits = (entry.get("en") == question["question"]
                and len(entry.get("options", ())) == len(question["options"])
                and len(entry.get("feedback", ())) == len(question.get("feedback", ())))
        questions.append({**question, **{k: entry[k] for k in _TRANSLATED if k in entry}} if fits else question)
    return {**raw, "title": zh.get("title") or raw.get("title", ""), "questions": questions}


def parse_answers(answers: object, questions: int) -> dict[int, str]:
    """question number (1-based) -> the letter chosen, from ``"cab"`` (``-`` or a blank: left out).

    ValueError, naming what is wrong, for anything else: not a string, more letters than questions,
    a character that is not a letter of the options.
    """
    if not isinstance(answers, str):
        raise ValueError(f"answers must be a string of letters, one per question (e.g. \"cab\"), "
                         f"not {type(answers).__name__}")
    letters = answers.replace(" ", "-").lower()
    if len(letters) > questions:
        raise ValueError(f"answers {answers!r} has {len(letters)} letters; this quiz has {questions} questions")
    chosen = {}
    for number, letter in enumerate(letters, start=1):
        if letter == "-":
            continue
        if letter not in LETTERS:
            raise ValueError(f"answers {answers!r}: {letter!r} (question {number}) is not a letter; "
                             "write one letter per question, '-' for one left out")
        chosen[number] = letter
    return chosen


def show_quiz(notebook: str | int, answers: str | None = None) -> None:
    """Display the quiz of notebook `notebook` (widget in Jupyter, text otherwise).

    With `answers` (``"cab"``: one letter per question), print the feedback for each one
    too: these are the answers a graded quiz reads from the cell (see the module docstring).
    Returns None so the quiz is not displayed twice when it is a cell's last
    line; use `Quiz.load(notebook)` to get the object.
    """
    quiz = Quiz.load(notebook)
    if answers is not None:
        chosen = parse_answers(answers, len(quiz))
        for number in range(1, len(quiz) + 1):
            feedback = quiz.answer(number, chosen.get(number)) if number in chosen else None
            print(f"{number}. {feedback.text if feedback else label('quiz_no_answer')}")
        right, total = quiz.score
        print(label("quiz_score", right=right, total=total))
    try:
        from IPython import get_ipython  # optional: outside Jupyter the quiz prints
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        quiz._ipython_display_()
    else:
        print(quiz.text())
