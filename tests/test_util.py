"""memlib._util: the shared argument checks, text shortening and time helpers."""

import doctest
import math
from datetime import date, datetime, timedelta, timezone

import pytest

import memlib._util as util
from memlib._util import (
    TickClock, check_bool, check_fraction, check_int_at_least, check_number_at_least, check_page,
    check_positive_int, is_int, is_number, naive_utc, one_line, parse_day, parse_when, quote, shorten, shown,
    utcnow,
)

HUGE = 10 ** 100


def test_doctests():
    result = doctest.testmod(util)
    assert result.attempted >= 10 and result.failed == 0


def test_is_int_and_is_number_refuse_bools():
    assert is_int(0) and is_int(-5) and is_int(HUGE)
    assert not any(is_int(v) for v in (True, False, 1.0, "1", None))
    assert is_number(1) and is_number(1.5) and is_number(math.nan)
    assert not any(is_number(v) for v in (True, False, "1", None, 1j))


@pytest.mark.parametrize("bad", [True, False, 1.0, 2.5, "3", None, -1, 0, math.nan, math.inf, [1]])
def test_check_positive_int_refuses(bad):
    with pytest.raises(ValueError, match=r"^top_k must be an int >= 1, got "):
        check_positive_int(bad, "top_k")


def test_check_positive_int_accepts_and_returns():
    assert check_positive_int(1, "k") == 1
    assert check_positive_int(HUGE, "k") == HUGE


def test_check_int_at_least_names_the_minimum_and_the_hint():
    assert check_int_at_least(64, 64, "window") == 64
    with pytest.raises(ValueError, match=r"window must be an int >= 64 \(tokens\), got 63$"):
        check_int_at_least(63, 64, "window", "tokens")
    with pytest.raises(ValueError, match=r"page must be an int >= 0, got -1$"):
        check_int_at_least(-1, 0, "page")
    with pytest.raises(ValueError, match="got False"):
        check_int_at_least(False, 0, "page")


def test_error_messages_quote_huge_input_briefly():
    with pytest.raises(ValueError) as info:
        check_positive_int("x" * 1_000_000, "top_k")
    assert len(str(info.value)) < 100 and str(info.value).endswith("…")
    with pytest.raises(ValueError) as info:
        check_int_at_least(list(range(10 ** 6)), 0, "n")
    assert len(str(info.value)) < 100


@pytest.mark.parametrize("bad", [0, 1, None, "yes", "True", 1.0])
def test_check_bool_refuses_ints_and_strings(bad):
    with pytest.raises(TypeError, match=r"^read_only must be True or False, got "):
        check_bool(bad, "read_only")


def test_check_bool_accepts():
    assert check_bool(True, "x") is True and check_bool(False, "x") is False


def test_check_fraction():
    assert check_fraction(0, "p") == 0.0 and isinstance(check_fraction(1, "p"), float)
    for bad in (True, -0.1, 1.01, math.nan, math.inf, "0.5", None, HUGE):
        with pytest.raises(ValueError, match=r"^p must be a probability between 0 and 1, got "):
            check_fraction(bad, "p", "a probability")


def test_check_number_at_least():
    assert check_number_at_least(0, 0, "timeout") == 0 and check_number_at_least(2.5, 0, "timeout") == 2.5
    for bad in (-1, math.nan, True, None, "1"):
        with pytest.raises(ValueError, match=r"^timeout must be a number >= 0, got "):
            check_number_at_least(bad, 0, "timeout")


def test_check_page():
    assert check_page(None, 0, 5) == 5
    assert check_page(3, HUGE, 5) == 3
    with pytest.raises(ValueError, match=r"^page_size must be an int >= 1, got 0"):
        check_page(0, 0, 5, "page_size")
    with pytest.raises(ValueError, match=r"^top_k must be an int >= 1, got True"):
        check_page(True, 0, 5)
    for bad in (-1, True, 1.0, None, "0"):
        with pytest.raises(ValueError, match=r"^page must be an int >= 0 \(the first page is 0\)"):
            check_page(2, bad, 5)


def test_shorten_one_rule():
    assert shorten("abc", 3) == "abc"
    assert shorten("abcd", 3) == "ab…"
    assert shorten("", 1) == ""
    long = "x" * 10_000
    for width in (1, 2, 40, 9_999):
        assert len(shorten(long, width)) == width and shorten(long, width).endswith("…")
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError, match="width"):
            shorten("abc", bad)


def test_one_line_and_quote_fold_white_space():
    assert one_line("a\n\tb   c", 10) == "a b c"
    assert one_line(12345, 3) == "12…"
    assert quote("it's\nhere", 40) == '"it\'s here"'
    assert quote("y" * 100, 10) == repr("y" * 9 + "…")


def test_shown_is_short_and_never_raises():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no repr for you")

    class NotAString:
        def __repr__(self):
            return 42

    class HostileStr(str):  # a str subclass is not sliced around its own repr
        def __repr__(self):
            raise RuntimeError("no repr for you")

    assert shown(Hostile()) == "<Hostile object>"
    assert shown(HostileStr("tool")) == "<HostileStr object>"
    assert shown(NotAString()) == "<NotAString object>"
    assert shown(None) == "None" and shown(True) == "True" and shown(2.5) == "2.5"
    nested: list = []
    nested.append(nested)
    assert len(shown(nested)) <= 40
    assert len(shown(list(range(10 ** 6)))) <= 40
    assert shown("z" * 10 ** 6, 20) == "'" + "z" * 18 + "…"
    assert shown(b"\x00" * 100, 10).startswith("b'\\x00")


def test_utcnow_is_naive_and_whole_seconds():
    now = utcnow()
    assert now.tzinfo is None and now.microsecond == 0
    assert abs(now - datetime.now(timezone.utc).replace(tzinfo=None)) < timedelta(seconds=5)


def test_parse_when():
    assert parse_when("2024-03-01") == datetime(2024, 3, 1)
    assert parse_when(" 2024-03-01T10:00:00Z ") == datetime(2024, 3, 1, 10)
    assert parse_when(datetime(2024, 3, 1, 12, tzinfo=timezone(timedelta(hours=-5)))) == datetime(2024, 3, 1, 17)
    for bad in ("yesterday", "", None, 20240301, True, date(2024, 3, 1), "Z"):
        with pytest.raises(ValueError, match=r"^created_at must be a datetime or an ISO date like '2024-03-01'"):
            parse_when(bad, "created_at")
    with pytest.raises(ValueError) as info:
        parse_when("9" * 100_000)
    assert len(str(info.value)) < 120


def test_parse_day():
    assert parse_day("2024-03-01", "d") == date(2024, 3, 1)
    assert parse_day(datetime(2024, 3, 1, 23, 59), "d") == date(2024, 3, 1)
    assert parse_day(date(2024, 3, 1), "d") == date(2024, 3, 1)
    for bad in ("2024-02-30", "03/01/2024", "", None, 20240301, True, "2024-03-01T10:00"):
        with pytest.raises(ValueError, match=r"^start_date must be a date written YYYY-MM-DD, like '2024-03-01'; got "):
            parse_day(bad, "start_date")
    with pytest.raises(ValueError) as info:
        parse_day("x" * 100_000, "start_date")
    assert len(str(info.value)) < 120


def test_naive_utc():
    plain = datetime(2024, 3, 1, 9)
    assert naive_utc(plain) is plain
    assert naive_utc(datetime(2024, 3, 1, 9, tzinfo=timezone(timedelta(hours=2)))) == datetime(2024, 3, 1, 7)
    # so close to year 1 that converting overflows: the zone is dropped rather than raising
    assert naive_utc(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))) == datetime(1, 1, 1)


def test_tick_clock_is_reproducible():
    a, b = TickClock(), TickClock()
    assert [a() for _ in range(3)] == [b() for _ in range(3)]
    clock = TickClock(datetime(2026, 3, 2, 9, 0), step=timedelta(seconds=30))
    assert clock() == datetime(2026, 3, 2, 9, 0, 30) and clock() == datetime(2026, 3, 2, 9, 1)
    assert repr(clock) == "TickClock(2026-03-02 09:01)"


def test_public_names_stay_importable_where_they_were():
    from memlib import archival, recall

    assert archival.utcnow is utcnow and archival.parse_when is parse_when and archival.check_page is check_page
    assert recall.parse_day is parse_day


def test_recall_imports_no_helpers_from_archival():
    import ast
    import inspect

    from memlib import recall

    tree = ast.parse(inspect.getsource(recall))
    from_archival = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "memlib.archival"
                     for a in n.names}
    assert not from_archival & set(util.__all__)
