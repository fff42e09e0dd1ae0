"""Small helpers shared by the exercise checks (never a reference solution)."""

from __future__ import annotations

from typing import Any, Callable

from memlib.course.checking import CheckFailed


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _short(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _call(fn: Callable, args: tuple, kwargs: dict | None = None, *, where: str) -> Any:
    """Call the student's code; an exception becomes a CheckFailed that says on what input.

    NotImplementedError passes through: `graded` turns it into "not solved yet".
    """
    try:
        return fn(*args, **(kwargs or {}))
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as exc:
        raise CheckFailed(
            f"your code raised {type(exc).__name__}: {exc} ({where})",
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
    text = " ".join(str(text).split())
    return repr(text if len(text) <= width else text[: width - 1] + "…")

