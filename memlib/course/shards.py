"""Grading a large class in shards, and merging the shards' gradebooks.

``python -m memlib grade SUBMISSIONS... --release notebooks/ --out shard-K.csv --shard K/N``
grades the students whose name hashes to shard K of N (K counts from 1). Every
shard gets the whole class on its command line and picks its own students, so
N machines (a Kubernetes Indexed Job, a CI matrix) need nothing but K and N.
A student's shard depends only on their name (SHA-256 of it, modulo N): adding
or removing other students never moves anyone to another shard.

``python -m memlib grade merge shard-*.csv --out grades.csv [--feedback-in DIR...
--feedback DIR]`` joins the shards' gradebooks into the one an unsharded run
writes (same columns, rows in the same order: by student, then notebook, with
each notebook's checks in release order), and copies the shards' feedback
files into one folder.

This module does not grade (see `memlib.course.grade`) and needs no notebook
tooling: merging works with memlib's runtime dependencies alone.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

# csv_text is the one rule for every CSV cell the grader writes; it stays importable from here
from memlib.course.grading.inert import csv_text, terminal_text

__all__ = ["Shard", "ShardError", "parse_shard", "shard_of", "merge_gradebooks", "merge_feedback", "csv_text", "main"]

SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A shard spec or a set of shard gradebooks that cannot be used (the message says why)."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1..count) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, student: str) -> bool:
        return shard_of(student, self.count) == self.index


def parse_shard(text: str) -> Shard:
    """``"2/4"`` -> Shard(2, 4); K counts from 1 (for a 0-based index, pass index + 1)."""
    match = SHARD_RE.match(str(text))
    if not match:
        raise ShardError(f"--shard {text!r}: expected K/N, e.g. 1/4 (K from 1 to N)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: K must be between 1 and N (N >= 1); "
                         "a Kubernetes JOB_COMPLETION_INDEX counts from 0, so pass $((JOB_COMPLETION_INDEX + 1))")
    return Shard(index, count)


def shard_of(student: str, count: int) -> int:
    """The shard (1..count) that grades `student`: a hash of the name, so it never depends on the others."""
    digest = hashlib.sha256(student.encode("utf-8", errors="surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
            return list(reader.fieldnames or []), rows
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ShardError(f"cannot read gradebook {path}: {error}") from None


def merge_gradebooks(paths: Iterable[str | Path]) -> tuple[list[str], list[dict[str, str]]]:
    """The columns and rows of the shards' gradebooks merged, in the unsharded run's order.

    Raises `ShardError` when the files have different columns or a student
    appears in two of them (the same shard given twice, or shards of different N).
    """
    columns: list[str] | None = None
    first: Path | None = None
    owner: dict[str, Path] = {}
    rows: list[dict[str, str]] = []
    for raw in paths:
        path = Path(raw)
        header, found = _read(path)
        if not header:
            raise ShardError(f"{path} is empty: not a gradebook written by `python -m memlib grade`")
        if "student" not in header or "notebook" not in header:
            raise ShardError(f"{path} has no student and notebook columns: not a gradebook")
        if columns is None:
            columns, first = header, path
        elif header != columns:
            raise ShardError(f"{path} has columns {header}, {first} has {columns}: grade both with the same memlib")
        for student in {row["student"] for row in found}:
            if student in owner:
                raise ShardError(f"student {student!r} is in both {owner[student]} and {path}: "
                                 "each shard must be given once, all from the same N")
            owner[student] = path
        rows += found
    if columns is None:
        raise ShardError("no gradebooks to merge")
    # A student's rows all come from one shard, already in release order:
    # a stable sort by (student, notebook) reproduces the unsharded order.
    rows.sort(key=lambda row: (row["student"], row["notebook"]))
    return columns, rows


def merge_feedback(folders: Iterable[str | Path], out: str | Path) -> list[Path]:
    """Copy every shard's ``<student>.md`` into `out`; two different files with one name are an error.

    Checks every name before copying anything, so a conflict leaves `out` as it was.
    """
    sources: dict[str, Path] = {}
    for raw in folders:
        folder = Path(raw)
        if not folder.is_dir():
            raise ShardError(f"feedback folder {folder} does not exist")
        for file in sorted(folder.glob("*.md")):
            other = sources.get(file.name)
            if other is not None and other.read_bytes() != file.read_bytes():
                raise ShardError(f"{file} and {other} are different feedback files with the same name")
            sources[file.name] = file
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, file in sorted(sources.items()):
        shutil.copyfile(file, target / name)
        written.append(target / name)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade merge``: exit 0 when merged, 2 when the shards cannot be merged."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade merge",
        description="Merge the gradebooks (and feedback folders) of `python -m memlib grade --shard K/N` runs.",
    )
    parser.add_argument("gradebooks", nargs="+", type=Path, help="the shards' gradebook CSVs")
    parser.add_argument("--out", required=True, type=Path, help="merged gradebook CSV to write")
    parser.add_argument("--feedback-in", nargs="+", default=[], type=Path, metavar="DIR",
                        help="the shards' feedback folders")
    parser.add_argument("--feedback", type=Path, default=None, help="folder to copy every feedback file into")
    args = parser.parse_args(argv)
    if bool(args.feedback_in) != bool(args.feedback):
        parser.error("--feedback-in and --feedback go together")
    try:
        columns, rows = merge_gradebooks(args.gradebooks)
        copied = merge_feedback(args.feedback_in, args.feedback) if args.feedback else []
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            # the shards' cells are inert already; a gradebook edited by hand may not be
            writer.writerows({column: csv_text(value or "") for column, value in row.items()} for row in rows)
    except (ShardError, OSError) as error:
        print(f"merge failed: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    students = len({row["student"] for row in rows})
    print(f"merged {len(args.gradebooks)} gradebook(s): {students} student(s), {len(rows)} row(s) -> {args.out}"
          + (f"; {len(copied)} feedback file(s) -> {args.feedback}" if args.feedback else ""))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
