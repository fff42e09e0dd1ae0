"""Feedback to students in the forms an LMS takes in bulk, and one HTML page per student.

``python -m memlib grade feedback GRADEBOOK --feedback-in DIR --format html|moodle|canvas --out PATH
[--roster ROSTER.csv]`` reads the gradebook and the feedback files `grade` wrote and writes:

- ``html``: a folder with one page per student (``<student>.html``): their rows (points,
  status, reason, overrides and late penalties applied) and their feedback file, all as
  escaped text, so nothing a student wrote becomes markup.
- ``moodle``: a zip for the assignment's "Upload multiple feedback files in a zip". Moodle
  takes from each entry's name, split at ``_``, the participant id (second part) and a
  submission plugin (third and fourth), and files the rest as that participant's feedback
  (``mod/assign/feedback/file/importziplib.php``, ``is_valid_filename_for_import``). So each
  page is named ``<full name>_<participant id>_assignsubmission_file_feedback.html``: the
  participant id is the one in Moodle's download names, which the grader keeps in the
  student's name (``Ada Lovelace (moodle 12)``); a student without one is left out and listed.
- ``canvas``: a folder of ``<canvas user id>.html``, one per student, the form the Canvas
  Submission Comments API attaches to a student's submission (``POST /api/v1/courses/:course_id/
  assignments/:assignment_id/submissions/:user_id/comments/files``, Canvas's developer
  documentation, "Submission Comments"): Canvas has no upload of many comment files at once,
  so this is the nearest documented bulk path: one call per file, keyed by the user id that
  names the file. The user id comes from the Canvas download names (``lovelaceada (canvas
  12345)``) or the roster's ``id`` column.

This module reads and writes files only; it talks to no LMS.
"""

from __future__ import annotations

import argparse
import html
import sys
import zipfile
from pathlib import Path

from memlib.course import export, overrides
from memlib.course.grading.inert import _feedback_stems, terminal_text
from memlib.course.shards import ShardError, merge_gradebooks

__all__ = ["FORMATS", "for_student", "student_page", "write_feedback", "main"]

FORMATS = ("html", "moodle", "canvas")


def for_student(reason: str) -> str:
    """A row's reason as the student sees it: without the notes meant for the instructor (``review: ...``)."""
    return "; ".join(part for part in reason.split("; ") if not part.startswith("review:"))


def student_page(student: str, rows: list[dict[str, str]], feedback: str) -> str:
    """One student's HTML page: their gradebook rows as a table and their feedback file, all escaped. The
    review notes of the gradebook (a copy flag, a reference's use) are the instructor's: not on the page."""
    esc = html.escape
    total = sum(float(r["points"]) for r in rows)
    most = sum(float(r["max_points"]) for r in rows)
    cells = "".join(
        f"<tr><td>{esc(overrides.unquoted(r['notebook']))}</td><td>{esc(overrides.unquoted(r['grade_id']))}</td>"
        f"<td>{esc(r['points'])} / {esc(r['max_points'])}</td><td>{esc(r['status'])}</td>"
        f"<td>{esc(for_student(overrides.unquoted(r['reason'])))}</td></tr>" for r in rows)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Feedback for {esc(student)}</title>"
            "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "td,th{border:1px solid #999;padding:.3em;vertical-align:top}table{border-collapse:collapse}"
            "pre{white-space:pre-wrap;background:#f4f4f4;padding:1em}</style></head><body>\n"
            f"<h1>Feedback for {esc(student)}</h1>\n<p>Total: {total:g} / {most:g} points</p>\n"
            "<table><tr><th>notebook</th><th>check</th><th>points</th><th>status</th><th>why</th></tr>"
            f"{cells}</table>\n<h2>Details, as graded (before any later score or override)</h2>\n"
            f"<pre>{esc(feedback)}</pre>\n</body></html>\n")


def _canvas_id(student: str, roster: dict[str, dict[str, str]]) -> str:
    key = export.KEY_RE.match(student)
    if key and key["lms"] == "canvas":
        return key["id"]
    return roster.get(student, {}).get("id", "")


def write_feedback(gradebook: Path, feedback_in: Path, fmt: str, out: Path,
                   roster: list[dict[str, str]] | None = None) -> tuple[list[str], dict[str, str]]:
    """Write `fmt` to `out`; (names written, students left out -> why). ExportError when nothing can be written."""
    if fmt not in FORMATS:
        raise export.ExportError(f"unknown format {fmt!r}: choose {', '.join(FORMATS)}")
    if not feedback_in.is_dir():
        raise export.ExportError(f"feedback folder {feedback_in} does not exist: pass grade's --feedback folder")
    try:
        _, rows = merge_gradebooks([gradebook])
        rows, _ = overrides.apply(rows, overrides.read_overrides(gradebook))
    except (ShardError, overrides.OverrideError) as error:
        raise export.ExportError(str(error)) from None
    by_student: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_student.setdefault(overrides.unquoted(row["student"]), []).append(row)
    if not by_student:
        raise export.ExportError(f"{gradebook} has no rows: nothing to send")
    stems = _feedback_stems(set(by_student))
    people = {r["student"]: r for r in roster or [] if r.get("student")}
    pages: dict[str, str] = {}  # file name -> page
    left_out: dict[str, str] = {}
    for student, mine in sorted(by_student.items()):
        source = feedback_in / f"{stems[student]}.md"
        if not source.is_file():
            left_out[student] = f"no feedback file {source.name} in {feedback_in}"
            continue
        page = student_page(student, mine, source.read_text(encoding="utf-8"))
        if fmt == "html":
            pages[f"{stems[student]}.html"] = page
        elif fmt == "moodle":
            key = export.KEY_RE.match(student)
            if not (key and key["lms"] == "moodle"):
                left_out[student] = "not from a Moodle download: its participant id is unknown"
                continue
            pages[f"{key['name']}_{key['id']}_assignsubmission_file_feedback.html"] = page
        else:
            user_id = _canvas_id(student, people)
            if not user_id.isdigit():
                left_out[student] = "no Canvas user id (not from a Canvas download, and no roster id)"
                continue
            pages[f"{user_id}.html"] = page
    if not pages:
        raise export.ExportError(f"no student could be written as {fmt}: " + "; ".join(
            f"{s}: {why}" for s, why in list(left_out.items())[:3]))
    if fmt == "moodle":
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, page in pages.items():
                archive.writestr(name, page)
    else:
        out.mkdir(parents=True, exist_ok=True)
        for name, page in pages.items():
            (out / name).write_text(page, encoding="utf-8")
    return sorted(pages), left_out


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade feedback``: 0 written, 1 written without some students, 2 nothing written."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade feedback",
        description="Write the students' feedback as HTML pages, a Moodle feedback-files zip, or Canvas "
                    "per-user files (see memlib.course.feedback_export).",
    )
    parser.add_argument("gradebook", type=Path, help="the gradebook CSV (from grade or grade merge)")
    parser.add_argument("--feedback-in", required=True, type=Path, help="the folder grade --feedback wrote")
    parser.add_argument("--format", required=True, metavar="|".join(FORMATS), help="what to write")
    parser.add_argument("--roster", type=Path, default=None, help="roster CSV (canvas: its id column is the user id)")
    parser.add_argument("--out", required=True, type=Path, help="a folder (html, canvas) or a .zip (moodle)")
    args = parser.parse_args(argv)
    try:
        if args.format == "moodle" and args.out.suffix.lower() != ".zip":
            raise export.ExportError(f"--out {args.out}: Moodle takes a .zip")
        roster = export.read_roster(args.roster, "csv-wide") if args.roster is not None else None
        written, left_out = write_feedback(args.gradebook, args.feedback_in, args.format, args.out, roster)
    except (export.ExportError, OSError) as error:
        print(f"feedback not written: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} student(s) to {args.out}")
    for student, why in left_out.items():
        print(terminal_text(f"left out {student!r}: {why}"), file=sys.stderr)
    return 1 if left_out else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
