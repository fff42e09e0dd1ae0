"""The checking kit behind graded cells: `CheckFailed`, `@graded`, `expect`.

A graded cell imports its check *inside the cell* and calls it on the student's
answer, e.g. ``from memlib.course.checks import check_bm25; check_bm25(BM25)``.
A check asserts invariants and compares with a reference; it prints one
``PASS`` line per thing it verified and raises `CheckFailed` (an
`AssertionError`, so nbval and pytest treat it as a failure) with a message
that says what is wrong and where to look.

This module does not run notebooks or award points (that is
`memlib.course.grade`) and does not hold solutions beyond calling memlib's
reference implementations.

The exercise checks themselves live in `memlib.course.checks`, one module
per exercise (``nbNN_<topic>.py``), which import this kit; the package
gathers them, so a graded cell imports from one place.
"""

from __future__ import annotations

import functools
import importlib
import sys
from dataclasses import dataclass
from typing import Any, Callable

__all__ = [
    "CheckFailed",
    "Check",
    "CHECKS",
    "graded",
    "get_check",
    "run_check",
    "ensure_unpatched",
    "expect",
    "expect_equal",
    "passed",
]


class CheckFailed(AssertionError):
    """A graded check found a problem in the student's answer.

    `what` says what is wrong ("document 3 ranks 7th, expected 2nd"), `hint`
    says where to look ("is idf using the document frequency?").
    """

    def __init__(self, what: str, hint: str = "", grade_id: str = "") -> None:
        self.what = what
        self.hint = hint
        self.grade_id = grade_id
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"[{self.grade_id}] {self.what}" if self.grade_id else self.what
        return f"{text}\nHint: {self.hint}" if self.hint else text

    def __str__(self) -> str:
        return self._render()

    def __repr__(self) -> str:
        return f"CheckFailed(what={self.what!r}, hint={self.hint!r}, grade_id={self.grade_id!r})"


def passed(message: str) -> None:
    """Report one verified property as a ``PASS`` line in the cell output."""
    print(f"PASS  {message}")


def expect(condition: object, what: str, hint: str = "") -> None:
    """Raise `CheckFailed(what, hint)` unless `condition` is true."""
    if not condition:
        raise CheckFailed(what, hint)


def expect_equal(actual: Any, expected: Any, what: str, hint: str = "") -> None:
    """Raise `CheckFailed` unless ``actual == expected``; the message shows both.

    Example: expect_equal(f(2), 4, "f(2)") fails with "f(2) is 5, expected 4".
    """
    if actual != expected:
        raise CheckFailed(f"{what} is {actual!r}, expected {expected!r}", hint)


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


def graded(grade_id: str, description: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the check for `grade_id`.

    The wrapped check labels its `CheckFailed` with the grade_id, turns an
    unsolved stub (`NotImplementedError`) into a `CheckFailed` that says so,
    and prints a final ``PASS`` line when everything held.
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                result = function(*args, **kwargs)
            except CheckFailed as failure:
                if not failure.grade_id:
                    failure.grade_id = grade_id
                    failure.args = (str(failure),)
                raise
            except NotImplementedError as stub:
                # The stub's own message ("Exercise 2: ...") is the best guidance.
                detail = str(stub) or "the exercise stub still raises NotImplementedError"
                raise CheckFailed(
                    f"not solved yet: {detail}",
                    "replace the `raise NotImplementedError(...)` line with your solution, "
                    "run that cell, then run this one again",
                    grade_id,
                ) from stub
            passed(f"all checks for {grade_id}")
            return result

        existing = CHECKS.get(grade_id)
        # Re-registering the same function is fine: the grader reloads check
        # modules before each graded cell so a student cannot patch them.
        if existing is not None and _qualified(existing.function) != _qualified(function):
            raise ValueError(
                f"grade_id {grade_id!r} already has a check ({_qualified(existing.function)}); "
                "each graded cell needs its own grade_id"
            )
        run.grade_id = grade_id  # type: ignore[attr-defined]
        CHECKS[grade_id] = Check(grade_id, run, description or (function.__doc__ or "").strip())
        return run

    return decorate


def _qualified(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def get_check(grade_id: str) -> Check:
    """The check registered for `grade_id` (KeyError that lists the known ids)."""
    try:
        return CHECKS[grade_id]
    except KeyError:
        known = ", ".join(sorted(CHECKS)) or "none"
        raise KeyError(
            f"no check registered for grade_id {grade_id!r}; known: {known}. "
            "Did you import the module that defines it?"
        ) from None


def ensure_unpatched(module: str, *names: str) -> None:
    """Reload `module` when one of its check functions `names` was replaced from a notebook.

    The grader puts a call to this at the top of every graded cell it
    restores. A check whose ``__module__`` is a real module file is left
    alone (reloading would give that module's classes new identities); one
    that a student cell assigned (``module.check_x = lambda f: None``) comes
    from ``__main__`` or from a module without a file, and triggers a reload.
    """
    loaded = sys.modules.get(module)
    if loaded is None:
        return
    for name in names:
        function = getattr(loaded, name, None)
        owner = sys.modules.get(str(getattr(function, "__module__", None) or "__main__"))
        if not callable(function) or owner is None or owner.__name__ == "__main__" or not getattr(owner, "__file__", None):
            importlib.reload(loaded)
            return


def run_check(grade_id: str, *args: Any, **kwargs: Any) -> Any:
    """Run the check for `grade_id` on the student's answer."""
    return get_check(grade_id)(*args, **kwargs)
