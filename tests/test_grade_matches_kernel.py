"""The grade equals the student's own check, and both judge an answer as its author meant.

A student runs a graded cell in their kernel and sees PASS or a failure; `memlib grade`
runs the same check in a checker process and reaches the answer through the wire
(`memlib.course.checker`, `memlib.course.wire`). Every answer under tests/alternatives/
(written by people who never saw the checks: each `correct_*.py` meets the contract its
student notebook states and must be accepted, each `wrong_*.py` is a plausible mistake and
must be rejected), and answers that return numpy's numbers, float32 values, arrays and
tuples, is checked both ways in one real kernel: the two must agree on the verdict and on
the message, and the verdict must be the one the answer's author meant.

MEMLIB_ANSWER_SAMPLE=N checks only the first N correct and N wrong answers of each exercise
(by file name) and the number answers: the Colab profiles of CI run that sample on Colab's
Pythons and pins (the main run checks every answer).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from memlib.course import checker, kernel_run
from memlib.course.exercise import exercises
from memlib.course.sandbox import resolve

ALTERNATIVES = Path(__file__).resolve().parent / "alternatives"
VERDICT = "@@memlib-verdict "

#: Answers whose author meant them correct and that were judged wrong against the stub's contract
#: after a look at what they do (the check is right to reject them), with the reason.
JUDGED_WRONG: dict[tuple[str, str], str] = {
    ("05-policy", "correct_compact"):
        "replies with the first line of a note that shares any word with the question ('be', 'book'), so 33 of "
        "its 44 replies lack the answer although a search had returned the record holding it (its docstring says "
        "it answers with the whole hit; the code does not)",
}

#: Answers that return what Python counts as numbers but are not int, float or list: the in-kernel
#: check accepts them, so the grade must too. grade_id -> {name: the answer's source}.
NUMBER_ANSWERS = {
    "01-token-budget": {
        "correct_numpy_int": (
            "import numpy as np\n"
            "from memlib.context import MESSAGE_OVERHEAD\n"
            "from memlib.tokens import count\n\n"
            "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
            "    costs = np.array([count(m) + MESSAGE_OVERHEAD for m in messages][::-1], dtype=np.int64)\n"
            "    room = window - count(system_prompt) - reserve\n"
            "    if room < 0:\n"
            "        return np.int64(0)\n"
            "    return np.int64(np.searchsorted(np.cumsum(costs), room, side='right'))\n"),
    },
    "03-bm25": {
        "correct_np_log": "import numpy as np\n" + "{reference}".replace("math.log", "np.log"),
        "correct_numpy_array": "import numpy as np\n{reference}\n_plain = bm25_scores\n\n"
                               "def bm25_scores(*args, **kwargs):\n    return np.array(_plain(*args, **kwargs))\n",
        "correct_float32": "import numpy as np\n{reference}\n_plain = bm25_scores\n\n"
                           "def bm25_scores(*args, **kwargs):\n"
                           "    return [np.float32(s) for s in _plain(*args, **kwargs)]\n",
        "correct_tuple": "{reference}\n_plain = bm25_scores\n\n"
                         "def bm25_scores(*args, **kwargs):\n    return tuple(_plain(*args, **kwargs))\n",
    },
}


def _answers(grade_id: str, sample: int | None = None) -> list[tuple[str, str]]:
    """(name, source) of the answers to `grade_id`: the alternatives' files (all, or the first `sample`
    correct and `sample` wrong ones) and the number answers."""
    files = sorted((ALTERNATIVES / grade_id).glob("*.py"))
    if sample is not None:
        files = ([p for p in files if p.stem.startswith("correct_")][:sample]
                 + [p for p in files if not p.stem.startswith("correct_")][:sample])
    found = [(p.stem, p.read_text(encoding="utf-8")) for p in files]
    reference = _reference_bm25() if grade_id == "03-bm25" else ""
    return found + [(name, source.replace("{reference}", reference))
                    for name, source in NUMBER_ANSWERS.get(grade_id, {}).items()]


def _reference_bm25() -> str:
    """A plain-Python BM25 answer (one of the alternatives) to vary the return type of."""
    return (ALTERNATIVES / "03-bm25" / "correct_counter_loop.py").read_text(encoding="utf-8")


def _in_kernel(check: str, answer: str) -> str:
    """A cell that runs the graded cell's check in the kernel, as a student's Run All does, and prints its verdict."""
    return (f"import json as _json\nfrom memlib.course.checks import {check}\n"
            f"try:\n    {check}({answer})\n"
            f"except AssertionError as _failure:\n    print({VERDICT!r} + _json.dumps(['failed', str(_failure)]))\n"
            f"else:\n    print({VERDICT!r} + _json.dumps(['passed', '']))\n")


def _both_ways(grade_id: str, answers: list[tuple[str, str]], tmp_path: Path) -> dict[str, tuple[tuple, tuple]]:
    """name -> ((status, message) in the kernel, (status, message) from the checker), all in one kernel."""
    record = exercises()[grade_id]
    graded = f"from memlib.course.checks import {record.check}\n\n{record.check}({record.answer})"
    cells: list[str] = []
    where: dict[str, tuple[int, int]] = {}
    for name, source in answers:
        cells += ["get_ipython().run_line_magic('reset', '-f')", source, _in_kernel(record.check, record.answer)]
        cells.append(graded)
        where[name] = (len(cells) - 2, len(cells) - 1)
    outcomes: dict[int, checker.CheckOutcome] = {}
    call = checker.graded_call(graded)

    def stand_in(index: int):
        def run(execute):
            outcomes[index] = checker.run_check(call, execute, support=[], scratch=tmp_path / f"c{index}",
                                                seconds=300)
            return kernel_run.CellRun(index, kernel_run.OK)
        return run

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in cells]
    sandbox, _ = resolve("none")
    run = kernel_run.run_notebook(nb, sandbox, tmp_path / "job", [], cell_timeout=300, timeout=3000,
                                  instead={at: stand_in(at) for _, at in where.values()})
    found = {}
    for name, (own, graded_at) in where.items():
        printed = run.cell(own).stdout if run.cell(own) else ""
        line = next((x for x in printed.splitlines() if x.startswith(VERDICT)), None)
        mine = tuple(json.loads(line[len(VERDICT):])) if line else ("no verdict", printed[-300:])
        outcome = outcomes.get(graded_at)
        theirs = (outcome.status, outcome.message) if outcome else ("not run", "")
        found[name] = (mine, theirs)
    return found


#: The exercises whose alternatives are checked both ways (every one with a folder of answers).
GRADE_IDS = sorted(p.name for p in ALTERNATIVES.iterdir() if p.is_dir())


def test_every_exercise_has_five_correct_and_five_wrong_independent_answers():
    for grade_id in GRADE_IDS:
        stems = [p.stem for p in (ALTERNATIVES / grade_id).glob("*.py")]
        assert sum(s.startswith("correct_") for s in stems) >= 5, grade_id
        assert sum(s.startswith("wrong_") for s in stems) >= 5, grade_id


@pytest.mark.slow
@pytest.mark.parametrize("grade_id", GRADE_IDS)
def test_the_grade_says_what_the_students_own_check_said(grade_id: str, tmp_path: Path) -> None:
    sample = int(os.environ["MEMLIB_ANSWER_SAMPLE"]) if os.environ.get("MEMLIB_ANSWER_SAMPLE") else None
    answers = _answers(grade_id, sample)
    assert len(answers) >= (10 if sample is None else 2 * sample), f"{grade_id} has {len(answers)} answers"
    both = _both_ways(grade_id, answers, tmp_path)
    disagreements = {name: pair for name, pair in both.items() if pair[0] != pair[1]}
    assert not disagreements, "\n".join(
        f"{name}:\n  in the kernel: {mine}\n  graded:        {theirs}" for name, (mine, theirs) in disagreements.items())
    misjudged = {name: mine for name, (mine, _) in both.items()
                 if mine[0] != ("passed" if _meant_correct(grade_id, name) else "failed")}
    assert not misjudged, "\n".join(
        f"{name}: {'rejected' if _meant_correct(grade_id, name) else 'accepted'}: {mine[1]}"
        for name, mine in misjudged.items())


def _meant_correct(grade_id: str, name: str) -> bool:
    return name.startswith("correct_") and (grade_id, name) not in JUDGED_WRONG


def test_the_number_answers_are_correct_in_the_kernel() -> None:
    """The numpy, float32 and tuple answers above are right answers: the check accepts them where it runs."""
    from memlib.course import checks

    for grade_id, answers in NUMBER_ANSWERS.items():
        record = exercises()[grade_id]
        for name, source in _answers(grade_id)[-len(answers):]:
            namespace: dict = {}
            exec(compile(source, f"<{name}>", "exec"), namespace)
            getattr(checks, record.check)(eval(record.answer, namespace))
