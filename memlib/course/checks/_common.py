"""Small helpers shared by the exercise checks (never a reference solution)."""

from __future__ import annotations

import numbers
from typing import Any, Callable

from memlib._util import quote, shown
from memlib.course.checking import CheckFailed, _student_frame, is_exercise_stub
from memlib.course.lang import bilingual


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
        at = bilingual(f"; in {frame.name}, line {frame.lineno}: {frame.line.strip()}",
                       f"；出错位置：{frame.name} 第 {frame.lineno} 行 `{frame.line.strip()}`") if frame and frame.line else ""
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise CheckFailed(
            bilingual(f"your answer crashed with {detail} ({where}{at})", f"你的答案运行出错：{detail}（{where}{at}）"),
            bilingual("run your function on that input in a cell of its own to see the full traceback",
                      "另开一个单元，用这个输入调用你的函数，就能看到完整的报错信息"),
        ) from exc


def _as_callable(answer: Any, what: str) -> Callable:
    if not callable(answer):
        raise CheckFailed(
            bilingual(f"expected your function {what}, got {type(answer).__name__} {_short(answer)}",
                      f"这里要的是你的函数 {what}，拿到的却是 {type(answer).__name__} {_short(answer)}"),
            bilingual(f"pass the function itself, e.g. check(...)({what.split('(')[0]}) without calling it",
                      f"传函数本身，不要调用它，例如 check(...)({what.split('(')[0]})"),
        )
    return answer


def _short_text(text: Any, width: int = 60) -> str:
    return quote(text, width)

