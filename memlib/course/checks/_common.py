"""Small helpers shared by the exercise checks (never a reference solution)."""

from __future__ import annotations

import numbers
from typing import Any, Callable

from memlib._util import quote, shown
from memlib.course.checking import CheckFailed, _student_frame, is_exercise_stub


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def is_whole_number(value: Any) -> bool:
    """True for what Python counts as a whole number (an int, numpy's int64 ...), never a bool or a float."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _short(value: Any, width: int = 60) -> str:
    return shown(value, width)


def _call(fn: Callable, args: tuple, kwargs: dict | None = None, *, where: str) -> Any:
    """Call the student's code; an exception becomes a CheckFailed that says on what input.

    The release's stub passes through: `graded` turns it into "not solved yet".
    """
    try:
        return fn(*args, **(kwargs or {}))
    except CheckFailed:
        raise
    except Exception as exc:
        if is_exercise_stub(exc):
            raise
        frame = _student_frame(exc)
        at = f"; in {frame.name}, line {frame.lineno}: {frame.line.strip()}" if frame and frame.line else ""
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise CheckFailed(
            f"your answer crashed with {detail} ({where}{at})",
            "run your function on that input in a cell of its own to see the full traceback",
        ) from exc


def _as_callable(answer: Any, what: str) -> Callable:
    if not callable(answer):
        raise CheckFailed(
            f"expected your function {what}, got {type(answer).__name__} {_short(answer)}",
            f"pass the function itself, e.g. check(...)({what.split('(')[0]}) without calling it",
        )
    return answer


def _short_text(text: Any, width: int = 60) -> str:
    return quote(text, width)

