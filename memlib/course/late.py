"""Late work: due dates, when a notebook was handed in, and the penalty a late one gets.

Due dates come from a small course file, one line per assignment (``--due due.csv``)::

    assignment,due
    03,2026-10-05T23:59+02:00
    04_memory_tools,2026-10-12T23:59+02:00

(the assignment as ``--assignment`` takes it: a number, a stem or a file name; the due time
in ISO 8601 with its UTC offset, so a due date means one instant wherever grading runs).

When a notebook was handed in is taken from what the submission itself holds, best first:

1. the time a zip stores for the notebook's entry (when the student zipped it; a zip
   stores local time without a zone, read here in the due date's offset);
2. Canvas's ``_LATE_`` in a download's file name: Canvas's word that it was late, with no
   time, so it counts as one day late. Whoever made a zip set its times, so a zip's time
   can make such a notebook later, never on time.

Moodle's download names carry no time and no late flag; a plain folder or notebook
carries nothing the grader trusts (file times change with every copy). Such a
notebook is graded as on time and the note says its time is unknown.

The policy (`LatePolicy`): ``--grace`` minutes after the due time are on time; then each
day or part of a day late takes ``--late-per-day`` percent of the notebook's points,
at most ``--late-cap`` percent. This module computes; the grader applies it to the rows.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

__all__ = ["LatePolicy", "Lateness", "LateError", "read_due_dates", "assess", "DAY"]

DAY = timedelta(days=1)


class LateError(ValueError):
    """A due-date file or a policy the grader cannot use (the message says why)."""


@dataclass(frozen=True)
class LatePolicy:
    """Percent of a notebook's points taken per day (or part of one) late, the most taken, and the grace."""

    per_day: float = 10.0
    cap: float = 100.0
    grace_minutes: float = 0.0

    def __post_init__(self) -> None:
        if not (0 <= self.per_day <= 100 and 0 <= self.cap <= 100 and self.grace_minutes >= 0):
            raise LateError(f"late policy: per day {self.per_day:g} % and cap {self.cap:g} % must be between 0 and "
                            f"100, grace {self.grace_minutes:g} minutes at least 0")

    def penalty(self, days: int) -> float:
        """Percent taken for `days` days late."""
        return min(self.cap, self.per_day * max(0, days))


@dataclass(frozen=True)
class Lateness:
    """When one notebook was handed in, against its due date, and what it costs."""

    due: datetime
    submitted: datetime | None
    source: str  # where `submitted` (or the late flag) comes from
    days: int  # days (or parts of one) late after the grace; 0 when on time or unknown
    penalty: float  # percent of the points taken

    @property
    def late(self) -> bool:
        return self.days > 0

    def note(self) -> str:
        """What the gradebook and the feedback say."""
        due = self.due.isoformat(timespec="minutes")
        if self.submitted is None and not self.late:
            return f"due {due}; hand-in time unknown ({self.source}): graded as on time"
        when = f"handed in {self.submitted.isoformat(timespec='minutes')} ({self.source})" if self.submitted else \
            f"late by {self.source}, time unknown: counted as 1 day"
        if not self.late:
            return f"on time: due {due}, {when}"
        return f"late: due {due}, {when}; {self.days} day(s) late, penalty {self.penalty:g} % of the points"


def read_due_dates(path: str | Path) -> dict[str, datetime]:
    """assignment key (as written) -> due instant; LateError for a file that cannot be used."""
    source = Path(path)
    try:
        with source.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            lines = list(reader)
            columns = [c.strip().lower() for c in reader.fieldnames or ()]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise LateError(f"cannot read due dates {source}: {error}") from None
    if columns != ["assignment", "due"]:
        raise LateError(f"due dates {source}: the columns are assignment,due (found {','.join(columns) or 'none'})")
    dates: dict[str, datetime] = {}
    for number, line in enumerate(lines, start=2):
        key, text = (line.get(c) or "" for c in reader.fieldnames or ())
        key, text = key.strip(), text.strip()
        try:
            due = datetime.fromisoformat(text)
        except ValueError:
            raise LateError(f"due dates {source} line {number}: {text!r} is not an ISO 8601 time "
                            "(e.g. 2026-10-05T23:59+02:00)") from None
        if due.tzinfo is None:
            raise LateError(f"due dates {source} line {number}: {text!r} has no UTC offset; write it as "
                            f"{text}+00:00 or with your offset, so it means one instant")
        if not key or key in dates:
            raise LateError(f"due dates {source} line {number}: assignment {key!r} is empty or given twice")
        dates[key] = due
    if not dates:
        raise LateError(f"due dates {source} has no assignments, only its header")
    return dates


def _zip_datetime(zip_time: tuple[int, ...], due: datetime) -> datetime | None:
    """A zip entry's local time, read in the due date's offset; None when its fields make no date (a zip's
    maker can write any bytes there, month 0 and day 0 among them)."""
    try:
        year, month, day, hour, minute, second = zip_time[:6]
        return datetime(year, month, day, hour, minute, second, tzinfo=due.tzinfo)
    except (ValueError, TypeError):
        return None


def assess(due: datetime, policy: LatePolicy, *, zip_time: tuple[int, ...] | None = None,
           lms_late: bool = False) -> Lateness:
    """The lateness of one notebook from what its submission holds (see the module docstring)."""
    submitted = _zip_datetime(zip_time, due) if zip_time is not None else None
    if zip_time is not None and submitted is None:
        reason = f"the zip's time for it is no date ({'-'.join(map(str, zip_time[:3]))}): time unknown"
        if lms_late:
            return Lateness(due, None, f"Canvas's _LATE_ in the download name; {reason}", 1, policy.penalty(1))
        return Lateness(due, None, reason, 0, 0.0)
    if submitted is not None:
        over = submitted - due - timedelta(minutes=policy.grace_minutes)
        days = math.ceil(over / DAY) if over > timedelta(0) else 0
        if lms_late and days == 0:
            # whoever made the zip set its time; the LMS's own word that it was late wins over it
            return Lateness(due, submitted, "Canvas's _LATE_ in the download name, over the zip's earlier time",
                            1, policy.penalty(1))
        return Lateness(due, submitted, "the zip's time for it", days, policy.penalty(days))
    if lms_late:
        return Lateness(due, None, "Canvas's _LATE_ in the download name", 1, policy.penalty(1))
    return Lateness(due, None, "no zip time or LMS late flag in the submission", 0, 0.0)
