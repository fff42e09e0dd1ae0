"""Small shared helpers: argument checks, shortened text for messages, time.

Every module validates its arguments, quotes bad input in error messages and
stamps times the same way, so those rules live here once: an int check that
refuses True and False, one ellipsis rule ("…", the result never longer than
asked), naive-UTC times. Private to memlib (the leading underscore): other
modules re-export what the course uses, such as `memlib.archival.utcnow` and
`memlib.recall.parse_day`. This module knows nothing about memory; it imports
only the standard library.
"""

from __future__ import annotations

import ast
import reprlib
import threading
from datetime import date, datetime, timedelta, timezone
from typing import Any, TypeGuard

__all__ = [
    "parse_python",
    "is_int", "is_number", "check_int_at_least", "check_positive_int", "check_bool", "check_fraction",
    "check_number_at_least", "check_page", "shorten", "one_line", "quote", "shown",
    "utcnow", "parse_when", "parse_day", "naive_utc", "TickClock",
]


# --- argument checks -----------------------------------------------------------

def is_int(value: object) -> TypeGuard[int]:
    """True for an int that is not a bool (True and False are ints to Python, never to memlib).

    Example:
        >>> is_int(3), is_int(True), is_int(3.0)
        (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[float]:  # to a type checker an int is a float too
    """True for an int or a float that is not a bool (NaN is a float: range checks must refuse it)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _hint(hint: str) -> str:
    return f" ({hint})" if hint else ""


def check_int_at_least(value, minimum: int, name: str, hint: str = "") -> int:
    """`value` if it is an int >= `minimum` (not a bool, not a float); else ValueError naming `name`.

    `hint` says what the number means, for the message.

    Example:
        >>> check_int_at_least(0, 0, "page", "the first page is 0")
        0
        >>> check_int_at_least(-1, 0, "page", "the first page is 0")
        Traceback (most recent call last):
        ...
        ValueError: page must be an int >= 0 (the first page is 0), got -1
    """
    if not is_int(value) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}{_hint(hint)}, got {shown(value)}")
    return value


def check_positive_int(value, name: str, hint: str = "") -> int:
    """`value` if it is an int >= 1 (not a bool); else ValueError naming `name`.

    Example:
        >>> check_positive_int(True, "top_k")
        Traceback (most recent call last):
        ...
        ValueError: top_k must be an int >= 1, got True
    """
    return check_int_at_least(value, 1, name, hint)


def check_bool(value, name: str) -> bool:
    """`value` if it is True or False; 0, 1, None and "yes" are refused with a TypeError."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {shown(value)}")
    return value


def check_fraction(value, name: str, what: str = "a number") -> float:
    """`value` as a float if it is a number from 0 to 1 (not a bool, not NaN); else ValueError.

    `what` names the kind of number in the message ("a probability").
    """
    if not is_number(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be {what} between 0 and 1, got {shown(value)}")
    return float(value)


def check_number_at_least(value, minimum: float, name: str) -> float:
    """`value` if it is a number >= `minimum` (not a bool, not NaN); else ValueError."""
    if not is_number(value) or not value >= minimum:
        raise ValueError(f"{name} must be a number >= {minimum}, got {shown(value)}")
    return value


def check_page(top_k, page, default_k: int, name: str = "top_k") -> int:
    """Check one page of a paged search: `top_k` (None means `default_k`) and a 0-based `page`; returns top_k.

    Example:
        >>> check_page(None, 0, 5)
        5
        >>> check_page(3, 1.5, 5)
        Traceback (most recent call last):
        ...
        ValueError: page must be an int >= 0 (the first page is 0), got 1.5
    """
    top_k = check_positive_int(default_k if top_k is None else top_k, name)
    check_int_at_least(page, 0, "page", "the first page is 0")
    return top_k


# --- text for messages and reprs -------------------------------------------------

ELLIPSIS = "…"


def shorten(text: str, width: int) -> str:
    """`text` if it fits in `width` characters, else its start and "…": never longer than `width`.

    Example:
        >>> shorten("Ines prefers window seats", 10)
        'Ines pref…'
    """
    check_positive_int(width, "width")
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def one_line(text, width: int) -> str:
    """`text` with every run of white space (newlines too) folded to one space, then shortened."""
    return shorten(" ".join(str(text).split()), width)


def quote(text, width: int = 60) -> str:
    """`text` on one line, shortened, then quoted: for naming user text in a message.

    Example:
        >>> quote("a\\nlong   note about the vet", 12)
        "'a long note…'"
    """
    return repr(one_line(text, width))


class _BriefRepr(reprlib.Repr):
    """reprlib's limits, but an object's own repr is cut at its end, and one that raises is not hidden."""

    def repr_instance(self, x, level):
        return shorten(repr(x), self.maxother)


# Containers are shown three levels deep and a few items wide: a huge list costs nothing to describe.
_REPR = _BriefRepr()
_REPR.maxlevel = 3
_REPR.maxstring = _REPR.maxother = 80


def shown(value, width: int = 40) -> str:
    """A repr of any value for an error message: at most `width` characters, and it never raises.

    A string shows its start (a huge one is not copied whole); an object whose
    repr raises is named by its type.

    Example:
        >>> shown("x" * 100, 12)
        "'xxxxxxxxxx…"
        >>> shown([1, 2, 3])
        '[1, 2, 3]'
    """
    try:
        text = repr(value[:width]) if type(value) in (str, bytes) else _REPR.repr(value)
        if not isinstance(text, str):
            raise TypeError("repr returned a non-string")
    except Exception:  # a repr that raises or recurses: name the type instead
        return f"<{type(value).__name__} object>"
    return shorten(text, width)


# --- time ----------------------------------------------------------------------------

def utcnow() -> datetime:
    """Naive UTC now, to the second: every timestamp in memlib is naive UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def parse_when(when, what: str = "when") -> datetime:
    """A datetime, or an ISO date / datetime string (a trailing Z too), as a naive UTC datetime.

    Example:
        >>> parse_when("2024-03-01T10:00+02:00")
        datetime.datetime(2024, 3, 1, 8, 0)
    """
    if isinstance(when, datetime):
        return when.astimezone(timezone.utc).replace(tzinfo=None) if when.tzinfo else when
    if isinstance(when, str):
        text = when.strip()
        if text[-1:] in ("Z", "z"):  # Python 3.10's fromisoformat does not read "Z"
            text = text[:-1] + "+00:00"
        try:
            return parse_when(datetime.fromisoformat(text))
        except ValueError:
            pass
    raise ValueError(f"{what} must be a datetime or an ISO date like '2024-03-01', got {shown(when)}")


def parse_day(value, what: str) -> date:
    """A 'YYYY-MM-DD' string (or a date, or a datetime's day) as a date, with a helpful error.

    Example:
        >>> parse_day(" 2024-03-01 ", "start_date")
        datetime.date(2024, 3, 1)
    """
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return datetime.strptime(value.strip(), "%Y-%m-%d").date()
        except ValueError:
            pass
    raise ValueError(f"{what} must be a date written YYYY-MM-DD, like '2024-03-01'; got {shown(value)}")


def naive_utc(when: datetime) -> datetime:
    """`when` as naive UTC; one that carries a time zone is converted, so it still compares with the others."""
    if when.tzinfo is None:
        return when
    try:
        return when.astimezone(timezone.utc).replace(tzinfo=None)
    except OverflowError:  # within hours of year 1 or 9999: the zone cannot matter to a day filter
        return when.replace(tzinfo=None)


class TickClock:
    """A clock for runs that must print the same every time: each call is `step` (a minute) later.

    Example:
        >>> clock = TickClock(datetime(2026, 3, 2, 9, 0))
        >>> clock(), clock
        (datetime.datetime(2026, 3, 2, 9, 1), TickClock(2026-03-02 09:01))
    """

    def __init__(self, start: datetime = datetime(2026, 1, 5, 9, 0), step: timedelta = timedelta(minutes=1)) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now

    def __repr__(self) -> str:
        return f"TickClock({self.now:%Y-%m-%d %H:%M})"


_PARSE_LOCK = threading.Lock()


def parse_python(source: str, mode: str = "exec") -> Any:  # ast.Module, or ast.Expression for mode="eval"
    """`ast.parse(source, mode=mode)`, one thread at a time.

    CPython 3.11 keeps the AST builder's recursion depth per interpreter, not per thread: two
    threads parsing at once (the grader's jobs with ``-j 2``) can trip its own check and raise
    SystemError ("AST constructor recursion depth mismatch") in one of them, and in every parse
    after it.
    """
    with _PARSE_LOCK:
        return ast.parse(source, mode=mode)
