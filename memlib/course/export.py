"""A gradebook an LMS imports, and the names LMS downloads give submissions.

``python -m memlib grade export GRADEBOOK --format canvas|moodle|csv-wide
[--roster ROSTER.csv] --out FILE`` turns the long gradebook of `python -m memlib
grade` (one row per student x graded cell) into a wide one: one row per
student, one column per notebook holding the sum of its points.

- ``canvas``: Canvas's gradebook import file. Columns Student, ID, SIS User
  ID, SIS Login ID, Section, then one column per notebook, and a
  "Points Possible" row under the header. Canvas finds a student by ID (its
  user id), else SIS User ID, else SIS Login ID, else the name.
- ``moodle``: for Moodle's "Import grades from CSV": the name, the identity
  fields the roster has (Email address, Username, ID number, User ID: map one
  of them to the user in the import form), then one column per notebook.
- ``csv-wide``: student, the roster's fields, one column per notebook, total.

A notebook nobody's rows show as handed in (every row of it ``missing``) is an
empty cell, which both LMSs read as "no grade"; a roster student with no rows
at all gets empty cells. A gradebook student the roster does not name is
listed on stderr and the exit code is 1 (the file holds everyone else); a
gradebook or roster that cannot be used is one line on stderr, exit 2, and
nothing is written. The instructor's overrides (``grade override``, kept next to
the gradebook) are applied to every format; one that matches no row is listed on
stderr and the exit code is 1.

Downloads: Canvas names each file ``<sortable name>[_LATE]_<user id>_<file
id>_<original name>`` and Moodle ``<full name>_<participant id>_assignsubmission_
<plugin>_<original name>`` (or a folder of that name without the original
name). `download_student` maps such a name to one student key,
``"<name> (canvas <user id>)"`` or ``"<name> (moodle <participant id>)"``,
which the grader uses as the student's name, so one student's files are graded
together. The export then matches a Canvas key to the roster's ``id`` and a
Moodle key to the roster's ``name``: Moodle's number is a participant id of
one assignment, not the user's id.

Late work (a gradebook graded with ``--due``, `memlib.course.grading.latework`):
the points already hold the penalty (its ``late-penalty`` row counts in the sum);
where a format can carry more, each notebook's lateness goes with it. ``csv-wide``
gets three columns per notebook after the total: ``<notebook> late`` (yes / no),
``<notebook> days late`` and ``<notebook> late penalty`` (points taken, after
overrides). ``moodle`` gets one ``<notebook> feedback`` column per notebook
("on time", or "late: 2 day(s), penalty 20 % of the points, 1.5 points taken"):
Moodle's "Import grades from CSV" maps any column either to a grade item or to
the feedback of one (the mapping ``feedback_<item id>``, read in
``grade/import/csv/classes/load_data.php``, `map_user_data_with_value`), so the
text reaches the student's grade feedback when the instructor maps it there. ``canvas`` gets nothing
more: in Canvas's gradebook import every column that is not an identity column or
a read-only total is an assignment, and a new column makes a new assignment
(Ohio State's Canvas guide, "Import CSV File for Carmen Grades": "New assignment
columns in the Gradebook generate new assignments"), and the file has no comment
column; the lateness reaches Canvas students on their feedback page
(``grade feedback --format canvas``). A gradebook graded without due dates
gets none of these columns.

Every text cell written is inert: control characters are shown as escapes and
a cell that would start a formula is quoted (`memlib.course.grading.inert.csv_text`,
the gradebook's own rule). This module reads and writes CSV only: it runs no
notebook, needs no extra and talks to no LMS (the instructor uploads the file).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from memlib.course import overrides, status
from memlib.course.grading.inert import csv_text, terminal_text
from memlib.course.shards import ShardError, merge_gradebooks

__all__ = [
    "DownloadName", "parse_download_name", "download_student", "original_name", "ExportError",
    "Gradebook", "Lateness", "read_gradebook", "read_roster", "export_table", "FORMATS", "ROSTER_COLUMNS", "main",
]

FORMATS = ("canvas", "moodle", "csv-wide")
#: Roster columns: the gradebook's name for the student, then LMS identities (see the README, section 6).
ROSTER_COLUMNS = ("student", "name", "id", "sis_user_id", "login_id", "section", "email", "username", "idnumber")
CANVAS_IDS = ("id", "sis_user_id", "login_id")
#: Roster column -> header in the Moodle file (Moodle's own labels; "id" is the Moodle user id).
MOODLE_IDS = {"email": "Email address", "username": "Username", "idnumber": "ID number", "id": "User ID"}
GRADEBOOK_COLUMNS = ("student", "notebook", "grade_id", "points", "max_points", "status")

# Canvas: the sortable name lowercased with everything but word characters removed; "_LATE"
# (or "_late") when the submission was late; the user id; the file's id; the student's file name.
CANVAS_RE = re.compile(r"^(?P<name>\w+?)(?P<late>_late)?_(?P<id>\d+)_\d+_(?P<original>.+)$", re.IGNORECASE)
# Moodle: the full name (its "_" turned into spaces), the participant id, the submission plugin;
# the file name follows, or nothing when the download puts each student in a folder.
MOODLE_RE = re.compile(r"^(?P<name>[^_/]+)_(?P<id>\d+)_assignsubmission_[a-z]+_(?P<original>.*)$")
KEY_RE = re.compile(r"^(?P<name>.+) \((?P<lms>canvas|moodle) (?P<id>\d+)\)$")
# What memlib.course.late.Lateness.note() writes into every row of a notebook graded with due dates.
LATE_NOTE_RE = re.compile(r"\blate: due [^;]*; (?P<days>\d+) day\(s\) late, penalty (?P<percent>\d+(?:\.\d+)?) %")
DATED_NOTE_RE = re.compile(r"\b(?:late: due |on time: due |due \S+; hand-in time unknown)")


class ExportError(ValueError):
    """A gradebook, roster or option the export cannot use (the message says why)."""


# --------------------------------------------------------------------------- download names


@dataclass(frozen=True)
class DownloadName:
    """What an LMS download's file (or folder) name says about its student."""

    lms: str  # "canvas" or "moodle"
    name: str  # Canvas: "lovelaceada"; Moodle: "Ada Lovelace"
    user_id: str  # Canvas: the user id; Moodle: the participant id of that assignment
    original: str  # the file name the student handed in ("" for a Moodle folder)
    late: bool = False  # Canvas marked the submission late

    @property
    def student(self) -> str:
        return f"{self.name} ({self.lms} {self.user_id})"


def parse_download_name(name: str) -> DownloadName | None:
    """The student of a Canvas or Moodle download name, or None for any other name.

    Example:
        >>> parse_download_name("lovelaceada_LATE_12345_67890_03_topic.ipynb")
        DownloadName(lms='canvas', name='lovelaceada', user_id='12345', original='03_topic.ipynb', late=True)
        >>> parse_download_name("Ada Lovelace_12_assignsubmission_file_").student
        'Ada Lovelace (moodle 12)'
        >>> parse_download_name("03_topic.ipynb") is None
        True
    """
    moodle = MOODLE_RE.match(name)
    if moodle:
        return DownloadName("moodle", moodle["name"].strip(), moodle["id"], moodle["original"])
    canvas = CANVAS_RE.match(name)
    if canvas:
        return DownloadName("canvas", canvas["name"], canvas["id"], canvas["original"], bool(canvas["late"]))
    return None


def download_student(name: str) -> str | None:
    """The grader's student key for a download name (``"lovelaceada (canvas 12345)"``), else None."""
    parsed = parse_download_name(name)
    return parsed.student if parsed else None


def original_name(display: str) -> str:
    """`display` with a download name's last part replaced by the file name the student handed in."""
    head, _, last = display.rpartition("/")
    parsed = parse_download_name(last)
    if parsed is None or not parsed.original:
        return display
    return f"{head}/{parsed.original}" if head else parsed.original


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Lateness:
    """One handed-in notebook's lateness as the gradebook says it."""

    days: int = 0  # 0: on time (or its time unknown)
    percent: float = 0.0  # the penalty the policy set
    taken: float = 0.0  # points the late-penalty row takes, after overrides (0 when waived)

    @property
    def late(self) -> bool:
        """Late by the note, or by a penalty row whose note was edited away."""
        return self.days > 0 or self.taken > 0

    def text(self) -> str:
        if not self.late:
            return "on time"
        if not self.days:
            return f"late: {_number(self.taken)} point(s) taken"
        return (f"late: {self.days} day(s), penalty {self.percent:g} % of the points, "
                f"{_number(self.taken)} point(s) taken")


@dataclass
class Gradebook:
    """A gradebook summed per student and notebook."""

    notebooks: list[str]  # in gradebook order, e.g. "03_archival.ipynb"
    max_points: dict[str, float]
    points: dict[str, dict[str, float | None]]  # student -> notebook -> points (None: not handed in)
    # overrides of the audit file that match no row of the gradebook (memlib.course.overrides)
    unapplied: list[overrides.Override] = field(default_factory=list)
    # student -> notebook -> lateness, for a gradebook graded with due dates (empty otherwise)
    lateness: dict[str, dict[str, Lateness]] = field(default_factory=dict)

    @property
    def dated(self) -> bool:
        return bool(self.lateness)


def read_gradebook(path: str | Path) -> Gradebook:
    """Sum a gradebook written by `python -m memlib grade` (or `grade merge`); ExportError if it is not one.

    The instructor's overrides (the audit file next to it, `memlib.course.overrides`) are applied.
    """
    try:
        columns, rows = merge_gradebooks([path])
        rows, unapplied = overrides.apply(rows, overrides.read_overrides(path))
    except (ShardError, overrides.OverrideError) as error:
        raise ExportError(str(error)) from None
    missing = [c for c in GRADEBOOK_COLUMNS if c not in columns]
    if missing:
        raise ExportError(f"{path} has no {', '.join(missing)} column: not a gradebook written by `python -m memlib grade`")
    if not rows:
        raise ExportError(f"{path} has no rows: nothing to export")
    notebooks: list[str] = []
    totals: dict[tuple[str, str], list[float]] = {}  # (student, notebook) -> [points, max_points]
    handed_in: set[tuple[str, str]] = set()
    late_days: dict[tuple[str, str], tuple[int, float]] = {}
    taken: dict[tuple[str, str], float] = {}
    dated = False
    for line, row in enumerate(rows, start=2):
        try:
            got, most = float(row["points"]), float(row["max_points"])
        except (TypeError, ValueError):
            raise ExportError(f"{path} row {line}: points {row['points']!r} / {row['max_points']!r} are not numbers: "
                              "not a gradebook written by `python -m memlib grade`") from None
        if row["status"] not in status.ROW:
            raise ExportError(f"{path} row {line}: status {row['status']!r} is not one of {', '.join(status.ROW)}")
        # the gradebook quotes a name that starts like a formula; the roster and the LMS know the name itself
        key = (overrides.unquoted(row["student"]), row["notebook"])
        if row["notebook"] not in notebooks:
            notebooks.append(row["notebook"])
        total = totals.setdefault(key, [0.0, 0.0])
        total[0] += got
        total[1] += most
        if row["status"] != status.MISSING:
            handed_in.add(key)
        reason = row.get("reason") or ""
        dated = dated or row["status"] == status.LATE or bool(DATED_NOTE_RE.search(reason))
        # the grader's notes close a reason; a student's text (an error message they raised) may come
        # before them and may look like a note, so the last one counts
        found = next(reversed(list(LATE_NOTE_RE.finditer(reason))), None)
        if found:
            late_days[key] = (int(found["days"]), float(found["percent"]))
        if row["status"] == status.LATE:
            taken[key] = taken.get(key, 0.0) - got
    max_points: dict[str, float] = {}
    for (student, notebook), (_, most) in totals.items():
        if max_points.setdefault(notebook, most) != most:
            raise ExportError(f"{path}: {notebook} is worth {max_points[notebook]:g} points for some students and "
                              f"{most:g} for {student!r}: grade everyone against one release")
    points: dict[str, dict[str, float | None]] = {}
    for (student, notebook), (summed, _) in totals.items():
        points.setdefault(student, {})[notebook] = summed if (student, notebook) in handed_in else None
    lateness: dict[str, dict[str, Lateness]] = {}
    if dated:
        for student, notebook in sorted(handed_in):
            days, percent = late_days.get((student, notebook), (0, 0.0))
            lateness.setdefault(student, {})[notebook] = Lateness(days, percent, round(taken.get((student, notebook),
                                                                                               0.0), 4))
    return Gradebook(notebooks, max_points, points, unapplied, lateness)


def read_roster(path: str | Path, fmt: str) -> list[dict[str, str]]:
    """The roster's rows (every known column, "" when absent); ExportError when it cannot serve `fmt`."""
    source = Path(path)
    try:
        with source.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle)
            lines = [(reader.line_num, row) for row in reader if row]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ExportError(f"cannot read roster {source}: {error}") from None
    if not lines:
        raise ExportError(f"roster {source} is empty: its first line names the columns ({', '.join(ROSTER_COLUMNS)})")
    header = [name.strip().lower() for name in lines[0][1]]
    unknown = [name for name in header if name not in ROSTER_COLUMNS]
    if unknown:
        raise ExportError(f"roster {source}: unknown column(s) {', '.join(map(repr, unknown))}; "
                          f"the columns are {', '.join(ROSTER_COLUMNS)}")
    if len(set(header)) != len(header):
        raise ExportError(f"roster {source} names a column twice: {', '.join(header)}")
    if not {"student", "id", "name"} & set(header):
        raise ExportError(f"roster {source} has no student, id or name column: nothing to find the gradebook's students by")
    needed = {"canvas": CANVAS_IDS, "moodle": tuple(MOODLE_IDS)}.get(fmt, ())
    if needed and not set(needed) & set(header):
        raise ExportError(f"roster {source} has none of the columns {', '.join(needed)}: {fmt} cannot tell who a row is")
    rows, numbers = [], []
    for number, values in lines[1:]:
        if len(values) != len(header):
            raise ExportError(f"roster {source} line {number} has {len(values)} fields, its header {len(header)}")
        row = {name: "" for name in ROSTER_COLUMNS}
        row.update({name: value.strip() for name, value in zip(header, values)})
        rows.append(row)
        numbers.append(number)
    if not rows:
        raise ExportError(f"roster {source} has no students, only its header")
    for column in ("student", "id", "sis_user_id", "login_id", "email", "username", "idnumber"):
        seen: dict[str, int] = {}
        for line, row in zip(numbers, rows):
            if row[column] and row[column] in seen:
                raise ExportError(f"roster {source}: {column} {row[column]!r} is on lines {seen[row[column]]} and {line}")
            seen.setdefault(row[column], line)
    if fmt == "canvas":
        for line, row in zip(numbers, rows):
            if not any(row[c] for c in CANVAS_IDS):
                raise ExportError(f"roster {source} line {line} has no id, sis_user_id or login_id: "
                                  "Canvas could not tell who it is")
    return rows


# --------------------------------------------------------------------------- matching and the table


@dataclass
class _Person:
    """One output row: the LMS identity and the gradebook students that are this person."""

    fields: dict[str, str]
    students: list[str] = field(default_factory=list)


def _match(book: Gradebook, roster: list[dict[str, str]]) -> tuple[list[_Person], dict[str, str]]:
    """Roster rows with their gradebook students, and the students no row names (-> why)."""
    people = [_Person(row) for row in roster]
    by_student = {p.fields["student"]: p for p in people if p.fields["student"]}
    by_id = {p.fields["id"]: p for p in people if p.fields["id"]}
    by_name: dict[str, list[_Person]] = {}
    for each in people:
        if each.fields["name"]:
            by_name.setdefault(each.fields["name"], []).append(each)
    unmatched: dict[str, str] = {}
    for student in book.points:
        key = KEY_RE.match(student)
        person = by_student.get(student)
        if person is None and key and key["lms"] == "canvas":
            person = by_id.get(key["id"])
        elif person is None and key:  # a Moodle participant id is not a user id: match the full name
            named = by_name.get(key["name"], [])
            person = named[0] if len(named) == 1 else None
            if len(named) > 1:
                unmatched[student] = f"{len(named)} roster rows are named {key['name']!r}; add a student column"
                continue
        if person is None:
            unmatched[student] = "no roster row has this student" + (
                f" (or id {key['id']})" if key and key["lms"] == "canvas" else
                f" (or the name {key['name']!r})" if key else "")
        else:
            person.students.append(student)
    return people, unmatched


def _without_roster(book: Gradebook, fmt: str) -> tuple[list[_Person], dict[str, str]]:
    """One person per gradebook student; for Canvas, the user id comes from the download name."""
    if fmt == "moodle":
        raise ExportError("moodle needs --roster with an email, username, idnumber or id column: Moodle's download "
                          "names carry only a participant number, which its import does not know")
    people, unmatched = [], {}
    for student in book.points:
        key = KEY_RE.match(student)
        fields = {name: "" for name in ROSTER_COLUMNS}
        fields.update(student=student, name=key["name"] if key else student)
        if fmt == "canvas":
            if not key or key["lms"] != "canvas":
                unmatched[student] = "no Canvas user id: not a Canvas download name, and no --roster"
                continue
            fields["id"] = key["id"]
        people.append(_Person(fields, [student]))
    if fmt == "canvas" and not people:
        raise ExportError("canvas needs --roster: no student in the gradebook comes from a Canvas download "
                          "(whose file names carry the user id)")
    return people, unmatched


def _points_of(book: Gradebook, person: _Person) -> dict[str, float | None]:
    """The person's points per notebook; two gradebook students who both handed in one notebook are an error."""
    merged: dict[str, float | None] = {notebook: None for notebook in book.notebooks}
    owner: dict[str, str] = {}
    for student in person.students:
        for notebook, value in book.points[student].items():
            if value is None:
                continue
            if merged[notebook] is not None:
                raise ExportError(f"{owner[notebook]!r} and {student!r} are the same roster row and both handed in "
                                  f"{notebook}: keep one, or tell them apart with the roster's student column")
            merged[notebook], owner[notebook] = value, student
    return merged


def _lateness_of(book: Gradebook, person: _Person) -> dict[str, Lateness]:
    """The person's lateness per handed-in notebook (`_points_of` has refused two owners of one notebook)."""
    merged: dict[str, Lateness] = {}
    for student in person.students:
        merged.update(book.lateness.get(student, {}))
    return merged


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _title(notebook: str) -> str:
    return Path(notebook).stem


def export_table(book: Gradebook, fmt: str, roster: list[dict[str, str]] | None
                 ) -> tuple[list[list[str]], dict[str, str]]:
    """The rows of the file to write (header first) and the gradebook students left out (-> why)."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}: choose {', '.join(FORMATS)}")
    people, unmatched = _match(book, roster) if roster is not None else _without_roster(book, fmt)
    titles = [_title(n) for n in book.notebooks]
    rows: list[list[str]] = []
    if fmt == "canvas":
        rows.append(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *titles])
        rows.append(["Points Possible", "", "", "", "", *(_number(book.max_points[n]) for n in book.notebooks)])
        for person in people:
            f = person.fields
            points = _points_of(book, person)
            rows.append([f["name"] or f["student"], f["id"], f["sis_user_id"], f["login_id"], f["section"],
                         *(_number(points[n]) for n in book.notebooks)])
    elif fmt == "moodle":
        identities = [c for c in MOODLE_IDS if any(p.fields[c] for p in people)]
        complete = [c for c in identities if all(p.fields[c] for p in people)]
        if not complete:
            raise ExportError("no identity column (email, username, idnumber, id) is filled for every roster row: "
                              "Moodle's import stops at the first row it cannot find")
        feedback = [f"{t} feedback" for t in titles] if book.dated else []
        rows.append(["Full name", *(MOODLE_IDS[c] for c in identities), *titles, *feedback])
        for person in people:
            points = _points_of(book, person)
            late = _lateness_of(book, person)
            notes = [late[n].text() if n in late else "" for n in book.notebooks] if book.dated else []
            rows.append([person.fields["name"] or person.fields["student"], *(person.fields[c] for c in identities),
                         *(_number(points[n]) for n in book.notebooks), *notes])
    else:
        extra = [c for c in ROSTER_COLUMNS[1:] if roster is not None and any(p.fields[c] for p in people)]
        late_columns = [f"{t} {what}" for t in titles for what in ("late", "days late", "late penalty")
                        ] if book.dated else []
        rows.append(["student", *extra, *titles, "total", *late_columns])
        for person in people:
            points = _points_of(book, person)
            handed = [v for v in points.values() if v is not None]
            student = person.fields["student"] or "; ".join(person.students)
            late = _lateness_of(book, person)
            cells = []
            for notebook in book.notebooks if book.dated else []:
                each = late.get(notebook)
                cells += (["yes" if each.late else "no", str(each.days), _number(each.taken)] if each is not None
                          else ["", "", ""])
            rows.append([student, *(person.fields[c] for c in extra), *(_number(points[n]) for n in book.notebooks),
                         _number(sum(handed)) if handed else "", *cells])
    return [[csv_text(cell) for cell in row] for row in rows], unmatched


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade export``: 0 written, 1 written without some gradebook students, 2 nothing written."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade export",
        description="Write a gradebook of `python -m memlib grade` as a file Canvas or Moodle imports "
                    "(or a plain wide CSV): one row per student, one column per notebook.",
    )
    parser.add_argument("gradebook", type=Path, help="the gradebook CSV (from grade or grade merge)")
    parser.add_argument("--format", required=True, metavar="|".join(FORMATS), help="the file to write")
    parser.add_argument("--roster", type=Path, default=None,
                        help=f"CSV mapping the gradebook's students to LMS identities; columns: {', '.join(ROSTER_COLUMNS)}")
    parser.add_argument("--out", required=True, type=Path, help="the file to write")
    args = parser.parse_args(argv)
    try:
        if args.format not in FORMATS:
            raise ExportError(f"unknown format {args.format!r}: choose {', '.join(FORMATS)}")
        inputs = [args.gradebook] + ([args.roster] if args.roster else [])
        if any(args.out.resolve() == p.resolve() for p in inputs):
            raise ExportError(f"--out {args.out} is one of the input files")
        book = read_gradebook(args.gradebook)
        roster = read_roster(args.roster, args.format) if args.roster is not None else None
        rows, unmatched = export_table(book, args.format, roster)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows(rows)
    except (ExportError, OSError) as error:
        print(f"export failed: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    students = len(rows) - (2 if args.format == "canvas" else 1)
    possible = ", ".join(f"{_title(n)} {_number(book.max_points[n])}" for n in book.notebooks)
    print(f"wrote {args.out}: {students} student(s), {len(book.notebooks)} notebook(s) (points possible: {possible})")
    for student, why in unmatched.items():
        points = ", ".join(f"{_title(n)} {_number(v) or '-'}" for n, v in book.points[student].items())
        print(terminal_text(f"left out {student!r} ({points}): {why}"), file=sys.stderr)
    for override in book.unapplied:
        print(terminal_text(f"override not applied: {override.student!r} {override.grade_id} has no row in "
                            f"{args.gradebook} that can take {_number(override.points)} points (regraded against "
                            "another release?); record it again for the row it belongs to"), file=sys.stderr)
    if unmatched:
        print(f"{len(unmatched)} gradebook student(s) are not in {args.out}: add them to the roster and export again",
              file=sys.stderr)
    return 1 if unmatched or book.unapplied else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
