"""The checking kit behind graded cells: `CheckFailed`, `@graded`, `expect`.

A graded cell imports its check *inside the cell* and calls it on the student's
answer, e.g. ``from memlib.course.checks import check_bm25; check_bm25(BM25)``.
A check asserts invariants and compares with a reference; it prints one
``PASS`` line per thing it verified and raises `CheckFailed` (an
`AssertionError`, so nbval and pytest treat it as a failure) with a message
that says what is wrong and where to look.

How an unsolved notebook still runs to its last cell (Run All)
----------------------------------------------------------------
Front ends stop Run All at the first cell whose ``execute_reply`` has status
"error" (JupyterLab 4 and Colab alike; Colab does not read cell tags, so a
``raises-exception`` tag cannot be the answer). A failing check therefore
must not raise when a student runs their notebook, and must raise whenever a
program runs it (nbval, ``python -m memlib grade``, nbgrader, otter,
papermill, ``jupyter nbconvert --execute``). A failed check keeps going,
*displaying* its failure (message and hint, a few lines, marked
``memlib-check-failed``) so that the cell completes and the next cells run,
only when all of these hold; otherwise it raises `CheckFailed`:

1. the notebook's setup cell ran: the release stamps the first code cell of
   every notebook (tagged ``colab-setup`` and ``nbval-skip``) with a call to
   `keep_going_after_failures`;
2. the code runs in an IPython kernel, and the ``execute_request`` that runs
   the failing graded cell has ``allow_stdin: true``, i.e. a person is there
   to answer ``input()``. ipykernel keeps that flag of the current request
   (``kernel._allow_stdin``, set again for every request). JupyterLab (and
   Notebook 7 and Binder, which are JupyterLab), the classic Notebook, Colab
   and VS Code allow stdin on the cells they run, since ``input()`` works
   there. Every runner built on nbclient (``nbconvert --execute``,
   papermill, nbgrader, ``jupyter execute``, and otter, which grades through
   nbconvert) sets ``allow_stdin = False``, and so do nbval and the course
   grader;
3. no runner says it is running the kernel: ``MEMLIB_STRICT_CHECKS=1`` (the
   grader sets it in its kernels) or ``NBGRADER_EXECUTION`` (nbgrader sets it
   while it autogrades or validates) is not in the environment.

So the setup cell may run anywhere: under a runner the graded cell still
fails, as an error, and the run stops there (or records the error, for a
runner that allows errors). The limits: a front end that runs cells without
stdin (a notebook extension that executes cells in the background, a
custom client) gets strict checks even after the setup cell, which costs a
student nothing but a stop at the first unsolved exercise; and a terminal
IPython session (no kernel) is always strict.

What a student can and cannot do with it. Running the setup cell, or calling
`keep_going_after_failures` anywhere, changes nothing under a runner
(condition 2). A cell that sets ``_mode`` by hand does not either. Code that
patches this module (``checking.failures_raise = ...``) or the kernel can
make a graded cell pass under a runner that does nothing against it
(nbgrader, papermill): the student's code runs in the kernel that runs the
checks, and no check can stop that from inside. The course grader does not
run checks in the student's kernel at all: it runs each check in a checker
process of its own, which calls the answer in the kernel through plain data
(`memlib.course.checker`).

A failure that is raised renders short too: `CheckFailed._render_traceback_`
gives IPython two lines (what, hint) instead of a traceback through
memlib's internals, and a third for an answer that earns partial credit (how
many cases it got right). The full traceback, including the student's exception
that caused the failure, is one flag away for instructors:
``MEMLIB_FULL_TRACEBACK=1`` or `show_full_tracebacks()`. Students are not
told about the flag (the README's grading section and the instructor guide
are): a student needs what is wrong and what to try, not a switch.

Inside a check, any exception the student's code raises becomes a
`CheckFailed` that names the exception and where it was raised ("your answer
crashed"); the release's stub (``NotImplementedError("Exercise N: ...")``)
alone is reported as "not solved yet". When a check sees the student's code
call memlib's own reference implementation of the exercise (the
``references`` of `graded`), it prints the line `reference_note` writes
and records it in `REFERENCE_CALLS`, so the gradebook can note it.

This module does not run notebooks or award points (that is
`memlib.course.grade`) and does not hold solutions beyond calling memlib's
reference implementations.

The exercise checks themselves live in `memlib.course.checks`, one module
per exercise (``nbNN_<topic>.py``), which import this kit; the package
gathers them, so a graded cell imports from one place.
"""

from __future__ import annotations

import functools
import html
import math
import os
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from memlib.course.exercise import EXERCISE_NAME, Exercise
from memlib.course.lang import say
from memlib.course.watch import ReferenceWatch, is_library_file

__all__ = [
    "is_class",
    "CheckFailed",
    "Check",
    "CHECKS",
    "REFERENCE_CALLS",
    "reference_note",
    "STRICT_ENV",
    "RUNNER_ENVS",
    "FULL_TRACEBACK_ENV",
    "graded",
    "expect",
    "expect_equal",
    "passed",
    "keep_going_after_failures",
    "strict_checks",
    "failures_raise",
    "show_full_tracebacks",
    "is_exercise_stub",
    "FRESH_SEED_ENV",
    "fresh_random",
    "private_cases",
    "Cases",
    "PARTIAL_FLOOR",
    "judge_fixed_then_fresh",
    "judge_parts",
]

#: Set to 1 in a kernel's environment to make every failed check raise (the grader can set it).
STRICT_ENV = "MEMLIB_STRICT_CHECKS"
#: Set by programs that run notebooks in the kernels they start (nbgrader: autograde, validate): strict mode.
RUNNER_ENVS = ("NBGRADER_EXECUTION",)
#: Set by the grader in its checker processes only (never in a kernel): the seed of this grading run's
#: fresh cases, which a check draws next to the fixed ones a student's own check shows.
FRESH_SEED_ENV = "MEMLIB_FRESH_SEED"
#: Set by the grader in its checker processes only, when the instructor gives ``--private-cases DIR``: the
#: folder of the instructor's own case files (``DIR/<grade_id>.json``), which no kernel can read.
PRIVATE_CASES_ENV = "MEMLIB_PRIVATE_CASES"
#: Set to 1 to see the full traceback of a failed check (for instructors).
FULL_TRACEBACK_ENV = "MEMLIB_FULL_TRACEBACK"
#: grade_id -> the reference implementations the last run of its check saw the answer call.
REFERENCE_CALLS: dict[str, tuple[str, ...]] = {}

# The release's stub: raise NotImplementedError("Exercise 2: ...") (see memlib.course.release).
_STUB_MESSAGE = re.compile(rf"^Exercise (?:{EXERCISE_NAME}):")

_mode = {"keep_going": False, "full_tracebacks": False}


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def keep_going_after_failures() -> None:
    """Let Run All continue past a failed check in this interactive session.

    Called by the stamped setup cell. It takes effect only for cells that a
    front end with a person at it runs (their ``execute_request`` allows
    stdin) and never under a runner (see the module docstring and
    `failures_raise`). Outside an IPython kernel it does nothing. Returns
    None so the setup cell shows no output.
    """
    if _shell() is not None:
        _mode["keep_going"] = True


def fresh_random(grade_id: str) -> Any:
    """This grading run's random source for `grade_id`'s fresh cases; None outside the grader's checker.

    A student's own check (in their kernel) runs the fixed cases only; the grader's checker adds
    cases drawn from a seed it chose for the run and never sent to a kernel, so an answer cannot
    be a table of precomputed results.
    """
    import random

    seed = os.environ.get(FRESH_SEED_ENV, "")
    if not seed.isdigit():
        return None
    return random.Random(f"{seed}:{grade_id}")


def private_cases(grade_id: str) -> Path | None:
    """The instructor's private case file for `grade_id` in this grading run, or None (also outside the grader)."""
    folder = os.environ.get(PRIVATE_CASES_ENV, "")
    if not folder or fresh_random(grade_id) is None:
        return None
    path = Path(folder) / f"{grade_id}.json"
    return path if path.is_file() else None


#: Partial credit starts above this share of cases right (in each set: fixed, and fresh when drawn).
PARTIAL_FLOOR = 0.5


@dataclass(frozen=True)
class Cases:
    """How many of a check's cases an answer got right: what partial credit is made of.

    `passed`/`run` count the fixed cases (the ones a student's own check runs), `fresh_passed`/`fresh_run`
    the cases the grader's checker drew for this run (none in a student's kernel).
    """

    passed: int
    run: int
    fresh_passed: int = 0
    fresh_run: int = 0

    def share(self) -> float:
        """The share of the points these cases earn: the lower of the fixed and the fresh share, when it is
        more than `PARTIAL_FLOOR`; nothing otherwise.

        The lower, not the mean: an answer that is a table of the fixed cases' results gets every fixed
        case right and no fresh one, and must earn nothing; an answer that is wrong in one corner loses
        about as much of each. The floor: a table that answers 0 (or any constant) to what it does not
        know still gets the few fresh cases right whose answer is that constant (one or two of 01's six
        in most runs), and a mostly wrong answer is not partly right. And nothing when every fixed case
        is right and a drawn one is not (`right_only_where_shown`): a table of the fixed results with a
        rough answer for the rest looks exactly so, and a real answer that is right on every fixed
        case (they cover the contract's corners) is rarely wrong on a drawn one.
        """
        if self.right_only_where_shown:
            return 0.0
        fixed = self.passed / self.run if self.run else 0.0
        share = min(fixed, self.fresh_passed / self.fresh_run) if self.fresh_run else fixed
        return share if share > PARTIAL_FLOOR else 0.0

    @property
    def right_only_where_shown(self) -> bool:
        """Every fixed case right, some drawn case wrong."""
        return bool(self.fresh_run) and self.passed == self.run and self.fresh_passed < self.fresh_run

    def points(self, most: float) -> float:
        """The points these cases earn of `most`: their share, rounded down to a hundredth."""
        return math.floor(most * self.share() * 100 + 1e-9) / 100

    def to_list(self) -> list[int]:
        return [self.passed, self.run, self.fresh_passed, self.fresh_run]

    @classmethod
    def from_list(cls, values: object) -> "Cases | None":
        """The tally as it crossed from the checker process (None for anything else)."""
        if (not isinstance(values, (list, tuple)) or len(values) != 4
                or not all(type(v) is int and v >= 0 for v in values)):
            return None
        passed, run, fresh_passed, fresh_run = values
        if passed > run or fresh_passed > fresh_run or run == 0:
            return None
        return cls(passed, run, fresh_passed, fresh_run)


def judge_fixed_then_fresh(grade_id: str, judge: Callable[[Any], int], fresh_cases: Callable[[Any], Any],
                           fixed_cases: Any, size: Callable[[Any], int] = len) -> None:
    """Judge an answer on `fixed_cases`, then (in the grader's checker only) on `fresh_cases(rng)`.

    `judge(cases)` returns how many cases it ran when every one is right, and otherwise raises
    `CheckFailed`, with its `cases` tally when the answer is well-formed and only some results are
    wrong. The first failure is the one reported (so the grader says what the student's own check
    said); its tally is completed with the other set of cases, judged quietly, so partial credit
    counts both. `size(cases)` is how many cases a set counts as in the tally (by default its length;
    an exercise with `case_weights` counts its weights).
    """
    rng = fresh_random(grade_id)
    try:
        run = judge(fixed_cases)
    except CheckFailed as failure:
        if failure.cases is not None and rng is not None:
            fresh_passed, fresh_run = _quiet_count(judge, fresh_cases(rng), size)
            failure.cases = Cases(failure.cases.passed, failure.cases.run, fresh_passed, fresh_run)
        raise
    if rng is None:
        return
    try:
        judge(fresh_cases(rng))
    except CheckFailed as failure:
        if failure.cases is not None:
            failure.cases = Cases(run, run, failure.cases.passed, failure.cases.run)
        raise


def judge_parts(parts: Sequence[Callable[[], object]]) -> None:
    """Run a check's parts in order, each a case of the partial-credit tally, and raise the first part's
    `CheckFailed` with the tally of the parts that passed.

    The first failure is the one reported, as when the check stopped there; the parts after it run
    quietly (what they print is dropped), and one that raises anything counts as a wrong part. An
    exception other than `CheckFailed` before any failure is the answer's own error: it propagates
    (as does a `TimeoutError`, a time limit, anywhere).
    """
    import contextlib
    import io

    first: CheckFailed | None = None
    right = 0
    for part in parts:
        try:
            if first is None:
                part()
            else:
                with contextlib.redirect_stdout(io.StringIO()):
                    part()
        except CheckFailed as failure:
            first = first or failure
            continue
        except TimeoutError:
            raise  # a time limit (mutation testing's alarm) stops the check, it is no wrong part
        except Exception:
            if first is None:
                raise
            continue
        right += 1
    if first is not None:
        first.cases = Cases(right, len(parts))
        raise first


def _quiet_count(judge: Callable[[Any], int], cases: Any, size: Callable[[Any], int] = len) -> tuple[int, int]:
    """(right, run) of `judge` on `cases`, printing nothing; a malformed result makes every case wrong."""
    import contextlib
    import io

    total = size(cases)
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            return judge(cases), total
        except CheckFailed as failure:
            return (failure.cases.passed, total) if failure.cases is not None else (0, total)


def strict_checks() -> None:
    """Make failed checks raise again (the grader's restored graded cells call this)."""
    _mode["keep_going"] = False


def _request_allows_stdin() -> bool:
    """True when the kernel's current ``execute_request`` said ``allow_stdin: true`` (a person is there)."""
    kernel = getattr(_shell(), "kernel", None)
    return getattr(kernel, "_allow_stdin", False) is True


def _runner_env() -> str | None:
    """The environment variable by which a runner says it runs this kernel, or None."""
    for name in (STRICT_ENV, *RUNNER_ENVS):
        if os.environ.get(name, "").strip() not in ("", "0"):
            return name
    return None


def failures_raise() -> bool:
    """True when a failed check raises `CheckFailed`; False when it only displays the failure.

    False only after `keep_going_after_failures`, in an IPython kernel, while
    it runs a request that allows stdin, with no runner's variable set.
    """
    if _runner_env() is not None:
        return True
    return not (_mode["keep_going"] and _shell() is not None and _request_allows_stdin())


def show_full_tracebacks(on: bool = True) -> None:
    """Show the full traceback of failed checks (instructors); ``MEMLIB_FULL_TRACEBACK=1`` does the same."""
    _mode["full_tracebacks"] = bool(on)


def _full_tracebacks() -> bool:
    return _mode["full_tracebacks"] or os.environ.get(FULL_TRACEBACK_ENV, "").strip() not in ("", "0")


def is_class(answer: object) -> bool:
    """True for a class, here or (while grading) in the student's kernel (`memlib.course.checker`)."""
    return isinstance(answer, type) or bool(getattr(type(answer), "__memlib_class__", False))


def is_exercise_stub(error: BaseException) -> bool:
    """True for the release's unsolved-exercise stub: NotImplementedError("Exercise N: ...")."""
    return isinstance(error, NotImplementedError) and bool(_STUB_MESSAGE.match(str(error)))


class CheckFailed(AssertionError):
    """A graded check found a problem in the student's answer.

    `what` says what is wrong ("document 3 ranks 7th, expected 2nd"), `hint`
    says where to look ("is idf using the document frequency?"). `cases`, when the
    answer was well-formed and only some of the check's cases came out wrong, says
    how many were right: the grader's partial credit, for an exercise whose record
    allows it.
    """

    def __init__(self, what: str, hint: str = "", grade_id: str = "", *, cases: Cases | None = None) -> None:
        self.what = what
        self.hint = hint
        self.grade_id = grade_id
        self.cases = cases
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"[{self.grade_id}] {self.what}" if self.grade_id else self.what
        return f"{text}\n{say('hint', hint=self.hint)}" if self.hint else text

    def __str__(self) -> str:
        return self._render()

    def __repr__(self) -> str:
        return f"CheckFailed(what={self.what!r}, hint={self.hint!r}, grade_id={self.grade_id!r})"

    def short_lines(self) -> list[str]:
        """The failure as a student sees it: what is wrong and the hint."""
        lines = [say("check_id_failed", grade_id=self.grade_id, what=self.what) if self.grade_id
                 else say("check_failed", what=self.what)]
        if self.hint:
            lines.append(say("hint", hint=self.hint))
        if self.cases is not None and self.cases.share():  # a partly right answer: how partly
            lines.append(say("cases_right", passed=self.cases.passed, run=self.cases.run))
        return lines

    def full_lines(self) -> list[str]:
        return "".join(traceback.format_exception(type(self), self, self.__traceback__)).splitlines()

    def _render_traceback_(self) -> list[str]:
        # IPython calls this instead of formatting a traceback through memlib's internals.
        if _full_tracebacks():
            return self.full_lines()
        red, bold, reset = "\x1b[0;31m", "\x1b[1m", "\x1b[0m"
        first, *rest = self.short_lines()
        return [f"{red}{bold}CheckFailed{reset}{red}: {first}{reset}", *rest]


def _display_failure(failure: CheckFailed) -> None:
    """Show a failure in the cell's output without raising (Run All keeps going)."""
    lines = failure.full_lines() if _full_tracebacks() else failure.short_lines()
    text = "\n".join(lines)
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - failures_raise() is True without IPython
        print(text)
        return
    first, *rest = lines
    body = "".join(f"<div>{html.escape(line)}</div>" for line in rest)
    display({
        "text/plain": text,
        "text/html": (
            '<div class="memlib-check-failed" style="border-left:4px solid #c62828;padding:4px 10px;'
            'background:#fdecea;color:#5f2120;font-family:monospace;white-space:pre-wrap">'
            f"<b>✗ {html.escape(first)}</b>{body}"
            f"<div style='color:#666'>{html.escape(say('keeps_running'))}</div></div>"
        ),
    }, raw=True)


def passed(message: str) -> None:
    """Report one verified property as a ``PASS`` line in the cell output."""
    print(say("pass", message=message))


def expect(condition: object, what: str, hint: str = "") -> None:
    """Raise `CheckFailed(what, hint)` unless `condition` is true."""
    if not condition:
        raise CheckFailed(what, hint)


def expect_equal(actual: Any, expected: Any, what: str, hint: str = "") -> None:
    """Raise `CheckFailed` unless ``actual == expected``; the message shows both.

    Example: expect_equal(f(2), 4, "f(2)") fails with "f(2) is 5, expected 4".
    """
    if actual != expected:
        raise CheckFailed(say("is_expected", what=what, actual=repr(actual), expected=repr(expected)), hint)


@dataclass(frozen=True)
class Check:
    """A registered check: the function behind one graded cell."""

    grade_id: str
    function: Callable[..., Any]
    description: str = ""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Check(grade_id={self.grade_id!r}, function={self.function.__qualname__})"


#: grade_id -> Check, filled by the `@graded` decorator.
CHECKS: dict[str, Check] = {}


def _student_frame(error: BaseException) -> traceback.FrameSummary | None:
    """The innermost frame of `error`'s traceback that is the student's code (None if there is none)."""
    remote = getattr(error, "frame", None)  # raised in the student's kernel while grading (memlib.course.wire)
    if isinstance(remote, tuple) and len(remote) == 3:
        return traceback.FrameSummary("<your code>", remote[1], remote[0], line=remote[2])
    frames = traceback.extract_tb(error.__traceback__)
    for frame in reversed(frames):
        if not is_library_file(frame.filename):
            return frame
    return None


def _crash(error: BaseException, grade_id: str) -> CheckFailed:
    """The CheckFailed for an exception that escaped the check: the student's code crashed."""
    frame = _student_frame(error)
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if frame is None:
        return CheckFailed(say("could_not_run", detail=detail), say("could_not_run_hint"), grade_id)
    line = f": {frame.line.strip()}" if frame.line else ""
    return CheckFailed(say("crashed", detail=detail, where=frame.name, line=frame.lineno, text=line),
                       say("crashed_hint"), grade_id)


def graded(exercise: Exercise | str, description: str = "", *,
           references: Iterable[str] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the check for `exercise` (its record, or a bare grade id).

    A course check passes its `Exercise` record, which states the grade id, the description and
    the references (`description` and `references` are then not given); a check without a record
    (a test's small check) gives its grade id and may give the other two here.

    The wrapped check labels its `CheckFailed` with the grade_id, turns the
    unsolved stub into "not solved yet" and any other exception from the
    student's code into "your answer crashed", prints a final ``PASS`` line
    when everything held, and either raises the failure or (after
    `keep_going_after_failures`) displays it. `references` names memlib's
    reference implementations of the exercise ("module:qualname"); a call to
    one of them from the student's code is reported (`reference_note`).
    """

    record = exercise if isinstance(exercise, Exercise) else None
    if record is not None:
        if description or references:
            raise TypeError(f"@graded({record.grade_id!r} record): the record states the description and "
                            "references; give them there")
        grade_id, description, references = record.grade_id, record.description, record.references
    elif isinstance(exercise, str):
        grade_id = exercise
    else:
        raise TypeError(f"@graded takes an Exercise record or a grade id, not {type(exercise).__name__}")

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            watch = ReferenceWatch(references)
            problem: CheckFailed | None
            try:
                with watch:
                    watch.inspect_answer([*args, *kwargs.values()])
                    result = function(*args, **kwargs)
            except CheckFailed as failure:
                if not failure.grade_id:
                    failure.grade_id = grade_id
                    failure.args = (str(failure),)
                if record is None or not record.partial_credit:
                    failure.cases = None  # all or nothing: the record says so
                problem = failure
            except NotImplementedError as stub:
                if is_exercise_stub(stub):
                    # The stub's own message ("Exercise 2: ...") is the best guidance.
                    problem = CheckFailed(
                        say("not_solved", stub=stub),
                        say("not_solved_hint") + (say("not_solved_help", name=function.__name__)
                                                  if "Fixed:" in (function.__doc__ or "") else ""),
                        grade_id)
                else:
                    problem = _crash(stub, grade_id)
                problem.__cause__ = stub
            except Exception as error:  # the student's code (or its effect on memlib) raised
                problem = _crash(error, grade_id)
                problem.__cause__ = error
            else:
                problem = None
            _report_references(grade_id, watch.used)
            if problem is None:
                passed(say("all_checks", grade_id=grade_id))
                return result
            if failures_raise():
                earned = _nbgrader_partial_credit(record, problem)
                if earned is None:
                    raise problem
                print("\n".join(problem.short_lines()))
                return earned
            _display_failure(problem)
            return None

        existing = CHECKS.get(grade_id)
        # Re-registering the same function is fine: the grader reloads check
        # modules before each graded cell so a student cannot patch them.
        if existing is not None and _qualified(existing.function) != _qualified(function):
            raise ValueError(
                f"grade_id {grade_id!r} already has a check ({_qualified(existing.function)}); "
                "each graded cell needs its own grade_id"
            )
        run.grade_id = grade_id  # type: ignore[attr-defined]
        run.references = tuple(references)  # type: ignore[attr-defined]
        run.exercise = record  # type: ignore[attr-defined]
        CHECKS[grade_id] = Check(grade_id, run, description or (function.__doc__ or "").strip())
        return run

    return decorate


def _nbgrader_partial_credit(record: Exercise | None, problem: CheckFailed) -> float | None:
    """The points of a partly right answer when nbgrader autogrades, else None (the failure is raised).

    nbgrader takes a graded cell's value as its points when the cell raises nothing and writes nothing
    to stderr (`nbgrader.utils.determine_grade`), so the check prints the failure and returns the points.
    Only the fixed cases count there: nbgrader's kernel has no drawn cases. Its ``validate`` (the
    student's button) still sees the failure raised.
    """
    if os.environ.get("NBGRADER_EXECUTION") != "autograde" or record is None or problem.cases is None:
        return None
    return problem.cases.points(record.points) or None


def _report_references(grade_id: str, used: list[str]) -> None:
    REFERENCE_CALLS[grade_id] = tuple(used)
    if used:
        print(reference_note(used))


def reference_note(references: Iterable[str]) -> str:
    """The line a check prints when the answer calls memlib's reference implementations `references`, in the
    notebook's language (only words for the student: the gradebook takes the names from the outcome)."""
    return say("reference_note", names=", ".join(references))


def _qualified(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"
