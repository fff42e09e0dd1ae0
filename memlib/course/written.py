"""Written answers: markdown cells a person grades, and the command that records their points.

A solution notebook marks a written-answer cell as a markdown cell tagged ``written`` with
the metadata ``{"memlib": {"written": "<grade id>", "points": <number>}}`` and the model
answer between ``### BEGIN SOLUTION`` and ``### END SOLUTION``. The release replaces the
model answer by ``*Your answer here.*`` (as for every markdown region) and writes nbgrader's
metadata for a manually graded answer (``solution: true, grade: true``, its points), so
nbgrader's formgrader grades it too. A written cell is not a graded code cell: no check runs
it, and a release's content hash (`memlib.course.versions`) does not count it.

The grader gives each student one gradebook row per written cell, status ``manual``, 0 of its
points, and the student's answer (its start, on one line) in the reason; an answer still the
release's stub is ``failed`` ("left blank"). The instructor scores them with

``python -m memlib grade score GRADEBOOK --from scores.csv [--by WHO]``

where ``scores.csv`` has the columns ``student,grade_id,points`` and optionally ``reason``
(``grade score GRADEBOOK --template scores.csv`` writes that file with every row still to
score, the answer beside it). Each score is recorded as an override (`memlib.course.overrides`:
the audit file next to the gradebook, with when, why and who), so every export and feedback
page applies it and a regrade keeps it. The whole file is checked before anything is recorded:
one bad line (an unknown student or grade id, a row that is not a written answer, points out
of range or not a number) records nothing.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from memlib._util import is_number
from memlib.course import overrides
from memlib.course.grading.inert import csv_text, terminal_text
from memlib.course.lang import MESSAGES
from memlib.course.status import FAILED, MANUAL

__all__ = ["TAG_WRITTEN", "MANUAL", "WrittenCell", "written_meta", "validate_written", "written_cells",
           "answer_of", "ScoreError", "read_scores", "score", "template", "main"]

TAG_WRITTEN = "written"
GRADE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
STUB = "*Your answer here.*"
ANSWER_CHARS = 300
#: How much of a written answer the grader reads at all (blank or not, and its first ANSWER_CHARS).
ANSWER_READ_CHARS = 100_000


class ScoreError(ValueError):
    """A scores file or gradebook that cannot be used (the message says where and why)."""


@dataclass(frozen=True)
class WrittenCell:
    """A written-answer cell of a released notebook."""

    grade_id: str
    points: float
    index: int
    cell_id: str
    translations: tuple[str, ...] = ()  # the same cell in the release's translations (its question, its stub)


def _text(source: object) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def written_meta(cell: dict) -> dict | None:
    meta = cell.get("metadata", {}).get("memlib")
    if isinstance(meta, dict) and "written" in meta:
        return meta
    return None


def validate_written(cell: dict, where: str, error: type[Exception] = ValueError) -> None:
    """Raise `error` when `cell` is marked written (tag or metadata) but breaks the convention."""
    tags = cell.get("metadata", {}).get("tags", [])
    tags = tags if isinstance(tags, list) else []
    meta = written_meta(cell)
    if meta is None:
        if TAG_WRITTEN in tags:
            raise error(f'{where}: tagged {TAG_WRITTEN!r} but has no metadata {{"memlib": {{"written": <grade id>, '
                        '"points": ...}}}}')
        return
    if TAG_WRITTEN not in tags:
        raise error(f"{where}: has memlib.written metadata but is not tagged {TAG_WRITTEN!r}; add the tag")
    if cell.get("cell_type") != "markdown":
        raise error(f"{where}: a written answer is a markdown cell")
    grade_id = meta.get("written")
    if not isinstance(grade_id, str) or not GRADE_ID_RE.match(grade_id):
        raise error(f"{where}: written grade id {grade_id!r} must be a non-empty string of letters, digits, "
                    "'_', '.', '-'")
    points = meta.get("points")
    if not is_number(points) or not points > 0:
        raise error(f"{where}: points {points!r} for {grade_id!r} must be a positive number")
    if "### BEGIN SOLUTION" not in _text(cell.get("source", "")) and STUB not in _text(cell.get("source", "")):
        raise error(f"{where}: written answer {grade_id!r} has no model answer between '### BEGIN SOLUTION' and "
                    "'### END SOLUTION'")


def written_cells(nb: dict) -> list[WrittenCell]:
    """The written-answer cells of a (released) notebook, in notebook order."""
    found = []
    for index, cell in enumerate(nb.get("cells", [])):
        meta = written_meta(cell)
        tags = cell.get("metadata", {}).get("tags", [])
        if meta is None or not isinstance(tags, list) or TAG_WRITTEN not in tags:
            continue
        if not isinstance(meta.get("written"), str) or not is_number(meta.get("points")):
            continue
        found.append(WrittenCell(meta["written"], float(meta["points"]), index, str(cell.get("id", ""))))
    return found


def answer_of(nb: dict, written: WrittenCell) -> str | None:
    """The student's answer to `written` in their notebook (its metadata, else its cell id); None when absent."""
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "markdown"]
    for cell in cells:
        meta = written_meta(cell)
        if meta is not None and meta.get("written") == written.grade_id:
            return _text(cell.get("source", ""))
    for cell in cells:
        if written.cell_id and cell.get("id") == written.cell_id:
            return _text(cell.get("source", ""))
    return None


def answer_row(answer: str | None, released: str = "") -> tuple[str, str]:
    """(status, reason) of a written answer's gradebook row before anyone scored it.

    The answer is what the student wrote: the lines of their cell that the released cell
    (`released`, with its question and its stub) does not hold.
    """
    if answer is None:
        return FAILED, "written answer: the cell is not in the notebook"
    answer = answer[:ANSWER_READ_CHARS]  # the row shows ANSWER_CHARS: reading a huge answer whole costs gigabytes
    given = {line.strip() for line in released.splitlines()} | {STUB} | set(MESSAGES["markdown_stub"].values())
    body = "\n".join(line for line in answer.splitlines() if line.strip() not in given)
    if not body.strip():
        return FAILED, "written answer: left blank (the cell still says 'Your answer here')"
    shown = " ".join(body.split())
    shown = shown if len(shown) <= ANSWER_CHARS else shown[:ANSWER_CHARS - 1] + "…"
    return MANUAL, f"written answer, needs manual grading (grade score): {shown}"


# --------------------------------------------------------------------------- scoring


def _gradebook(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ScoreError(f"gradebook {path} cannot be read ({error})") from None
    if not {"student", "grade_id", "points", "max_points", "status", "reason"} <= set(reader.fieldnames or ()):
        raise ScoreError(f"{path} is not a gradebook written by `python -m memlib grade`")
    return rows


def _written_rows(rows: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    return {(overrides.unquoted(r["student"]), overrides.unquoted(r["grade_id"])): r for r in rows
            if overrides.unquoted(r["reason"]).startswith("written answer") or r["status"] == MANUAL}


def read_scores(path: str | Path, gradebook: str | Path) -> list[tuple[str, str, float, str, str]]:
    """(student, grade_id, points, reason, notebook) per line of a scores file, each checked against the
    gradebook; the reason ends with the mark of the answer scored (`overrides.answer_mark`)."""
    source, book = Path(path), Path(gradebook)
    written = _written_rows(_gradebook(book))
    try:
        with source.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            lines = list(reader)
            columns = [c.strip().lower() for c in reader.fieldnames or ()]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ScoreError(f"cannot read scores {source}: {error}") from None
    if not {"student", "grade_id", "points"} <= set(columns):
        raise ScoreError(f"scores {source}: the columns are student,grade_id,points[,reason] "
                         f"(found {','.join(columns) or 'none'})")
    scores = []
    for number, raw in enumerate(lines, start=2):
        line = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k is not None}
        if not line.get("points"):
            continue  # a row of the template nobody scored yet
        # the template names a student as the gradebook does: quoted when the name starts like a formula
        key = (overrides.unquoted(line["student"]), overrides.unquoted(line["grade_id"]))
        if key not in written:
            raise ScoreError(f"scores {source} line {number}: {line['student']!r} has no written answer "
                             f"{line['grade_id']!r} in {book} (a check's row is changed with `grade override`)")
        try:
            points = float(line["points"])
        except ValueError:
            raise ScoreError(f"scores {source} line {number}: points {line['points']!r} is not a number") from None
        most = float(written[key]["max_points"])
        if not 0 <= points <= most:
            raise ScoreError(f"scores {source} line {number}: points {points:g} are not between 0 and {most:g}")
        # the score names the answer it scored: a resubmission's new answer is not scored by it
        reason = f"{line.get('reason') or 'written answer scored'} {overrides.answer_mark(written[key])}"
        scores.append((key[0], key[1], points, reason, overrides.unquoted(written[key]["notebook"])))
    if not scores:
        raise ScoreError(f"scores {source} scores nothing: fill in the points column")
    return scores


def score(gradebook: str | Path, scores_file: str | Path, by: str) -> list[overrides.Override]:
    """Record every score of `scores_file` as an override of `gradebook`; nothing when one line is wrong."""
    if not by.strip():
        raise ScoreError("give --by: the audit file says who scored every answer")
    scores = read_scores(scores_file, gradebook)
    try:
        overrides.read_overrides(gradebook)  # an audit file that cannot take more lines stops it here
        return [overrides.record(gradebook, student, grade_id, points, reason, by, notebook=notebook)
                for student, grade_id, points, reason, notebook in scores]
    except overrides.OverrideError as error:
        raise ScoreError(str(error)) from None


def template(gradebook: str | Path, out: str | Path) -> int:
    """Write a scores file listing every written answer still to score; how many rows it has."""
    rows = _gradebook(Path(gradebook))
    scored = {(o.student, o.grade_id): o for o in overrides.read_overrides(gradebook)}
    # an answer changed since it was scored (a resubmission, regraded) is to score again
    todo = [r for key, r in _written_rows(rows).items() if r["status"] == MANUAL
            and (key not in scored or not overrides.scores_this_answer(scored[key], r))]
    with Path(out).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "grade_id", "points", "max_points", "reason", "answer"])
        for row in todo:
            answer = overrides.unquoted(row["reason"]).partition("(grade score): ")[2]
            writer.writerow([row["student"], row["grade_id"], "", row["max_points"], "", csv_text(answer)])
    return len(todo)


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade score``: 0 recorded (or template written), 2 nothing recorded."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade score",
        description="Score the written answers of a gradebook from a CSV (student,grade_id,points[,reason]); "
                    "each score is recorded in the audit file next to the gradebook, as an override.",
    )
    parser.add_argument("gradebook", type=Path, help="the gradebook CSV (from grade or grade merge)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--from", dest="scores", type=Path, help="the scores CSV to record")
    action.add_argument("--template", type=Path, help="write a scores CSV with every answer still to score")
    parser.add_argument("--by", default="instructor", help="who scored (default: instructor)")
    args = parser.parse_args(argv)
    try:
        if args.template is not None:
            if args.template.resolve() == args.gradebook.resolve():
                raise ScoreError(f"--template {args.template} is the gradebook")
            count = template(args.gradebook, args.template)
            print(terminal_text(f"wrote {args.template}: {count} written answer(s) to score"))
            return 0
        recorded = score(args.gradebook, args.scores, args.by)
    except (ScoreError, overrides.OverrideError, OSError) as error:
        what = "no template written" if args.template is not None else "scores not recorded"
        print(f"{what}: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    print(terminal_text(f"recorded {len(recorded)} score(s) in {overrides.audit_path(args.gradebook)}"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
