"""Grade a class: run every submission in a fresh, sandboxed kernel and write a gradebook.

``python -m memlib grade SUBMISSIONS... --release notebooks/ --out grades.csv
[-j N] [--timeout S] [--cell-timeout S] [--feedback DIR] [--sandbox auto|bwrap|none]``

Each SUBMISSION is one student: a folder, a ``.zip`` or a single ``.ipynb``
(the student's name is the folder / zip / file name). For every released
notebook that has graded cells, the grader

1. finds the student's copy (by the release's ``memlib.assignment`` notebook
   metadata, else by the grade_ids inside, else by file name), refusing
   symbolic links and special files;
2. reads it leniently (non-UTF-8 bytes are replaced, nbformat 3 is converted)
   and works on a copy in a scratch folder: the submission is never modified;
3. rebuilds the notebook: outputs dropped, every cell that is a copy of a
   graded cell (by its grade_id metadata or its exact source, never its cell
   id) removed, and every graded cell of the release put back just before the
   release cell that follows it;
4. runs its code cells in a new kernel (`memlib.course.kernel_run`), confined
   by bubblewrap when available (`memlib.course.sandbox`), with a per-cell and
   a per-notebook time limit. The outcome of a graded cell is what the grader
   itself reads back from the kernel: the cell's ``execute_reply`` and its
   error output. Nothing the kernel can write (a file, a variable, a module)
   is ever read back, and the only process the grader signals is the one it
   started;
5. runs the release once more with only the student's exercise cells and the
   cells they added put in (`memlib.course.tamper`), unless that is exactly the
   notebook it just ran: points follow this clean run, a check whose outcome
   differs is flagged ``review:``, and so is an exercise or added cell that
   reaches into the checking machinery;
6. writes one gradebook row per student x graded cell: student, notebook,
   grade_id, points, max_points, status (passed / failed / error / missing),
   reason; text cells that a spreadsheet would read as a formula are quoted.

When the kernel dies (``os._exit``, a crash, a cell that ignores its
interrupt) the later graded cells cannot run and are failed with a reason
naming the cell where it died.

What this does not protect against: without the sandbox, student code runs
with the grader's permissions (files, network, environment, processes). With
it, a student can still patch the interpreter inside their own kernel; the
clean re-run and the review flags make that visible, they cannot make it
impossible. See the README, "What the grader protects against".
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import copy
import csv
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import nbformat

from memlib._util import one_line
from memlib.course import export, kernel_run, shards, tamper
from memlib.course.checking import REFERENCE_NOTE
from memlib.course.kernel_run import CellRun, NotebookRun
from memlib.course.release import TAG_GRADED, GradedCell, graded_cells, source_checksum
from memlib.course.sandbox import Limits, Sandbox, SandboxError, resolve
from memlib.course.shards import csv_text as _csv_text

__all__ = [
    "GradeSetupError",
    "Assignment",
    "Row",
    "NotebookResult",
    "GradeReport",
    "load_release",
    "read_submission_notebook",
    "restore_graded_cells",
    "grade",
    "main",
    "CSV_COLUMNS",
]

CSV_COLUMNS = ("student", "notebook", "grade_id", "points", "max_points", "status", "reason")
PASSED, FAILED, ERROR, MISSING = "passed", "failed", "error", "missing"

MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024
MAX_ZIP_TOTAL_BYTES = 500 * 1024 * 1024
STDOUT_TAIL_CHARS = 2000
REASON_CHARS = 400
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
NAME_PREFIX_RE = re.compile(r"^(\d+)")


class GradeSetupError(RuntimeError):
    """The grader itself cannot run (bad release folder, missing kernel, no sandbox when one is required, unwritable output)."""


# --------------------------------------------------------------------------- data


@dataclass
class Assignment:
    """One released notebook with graded cells."""

    name: str  # file name in the release, e.g. "03_archival.ipynb"
    nb: nbformat.NotebookNode = field(repr=False)
    graded: list[GradedCell] = field(repr=False)

    @property
    def stem(self) -> str:
        return Path(self.name).stem

    @property
    def max_points(self) -> float:
        return sum(g.points for g in self.graded)

    def __repr__(self) -> str:
        ids = ", ".join(g.grade_id for g in self.graded)
        return f"Assignment({self.name!r}, graded=[{ids}], max_points={self.max_points:g})"


@dataclass
class Row:
    """One gradebook line: one student x one graded cell."""

    student: str
    notebook: str
    grade_id: str
    points: float
    max_points: float
    status: str
    reason: str = ""

    def as_csv(self) -> dict[str, str]:
        return {
            "student": _csv_text(self.student),
            "notebook": _csv_text(self.notebook),
            "grade_id": _csv_text(self.grade_id),
            "points": _num(self.points),
            "max_points": _num(self.max_points),
            "status": self.status,
            "reason": _csv_text(self.reason),
        }

    def __repr__(self) -> str:
        return (
            f"Row({self.student!r}, {self.notebook!r}, {self.grade_id!r}, "
            f"{_num(self.points)}/{_num(self.max_points)}, {self.status!r})"
        )


@dataclass
class CheckDetail:
    """What the student sees about one graded cell in their feedback file."""

    grade_id: str
    status: str
    message: str = ""
    traceback: str = ""
    stdout: str = ""


@dataclass
class NotebookResult:
    """Everything about grading one student's copy of one assignment."""

    student: str
    assignment: Assignment
    submitted_as: str = ""  # the file that was graded, relative to the submission
    rows: list[Row] = field(default_factory=list)
    details: list[CheckDetail] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    other_errors: list[str] = field(default_factory=list)  # ungraded cells that raised
    seconds: float = 0.0
    grader_error: bool = False
    reran: bool = False  # the clean re-run was needed (the notebook differs from the release beyond its exercises)
    handed_in: dict[str, str] = field(default_factory=dict)  # grade_id -> status in the run of the notebook as handed in

    @property
    def points(self) -> float:
        return sum(r.points for r in self.rows)

    @property
    def review(self) -> list[Row]:
        return [r for r in self.rows if "review:" in r.reason]

    def __repr__(self) -> str:
        return (
            f"NotebookResult({self.student!r}, {self.assignment.name!r}, "
            f"{_num(self.points)}/{_num(self.assignment.max_points)}, {self.seconds:.1f}s)"
        )


@dataclass
class GradeReport:
    """The result of grading a class: rows, per-notebook details, timing."""

    results: list[NotebookResult]
    assignments: list[Assignment]
    seconds: float = 0.0
    jobs: int = 1
    notebooks_run: int = 0
    shard: shards.Shard | None = None
    not_handed_in: list[str] = field(default_factory=list)  # released, but nobody handed them in
    sandbox: str = ""

    @property
    def reruns(self) -> int:
        return sum(1 for r in self.results if r.reran)

    @property
    def rows(self) -> list[Row]:
        return [row for result in self.results for row in result.rows]

    @property
    def students(self) -> list[str]:
        return sorted({r.student for r in self.results})

    @property
    def grader_errors(self) -> int:
        return sum(1 for r in self.results if r.grader_error)

    def write_csv(self, path: str | Path) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for row in self.rows:
                writer.writerow(row.as_csv())

    def write_feedback(self, folder: str | Path) -> list[Path]:
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        by_student: dict[str, list[NotebookResult]] = collections.defaultdict(list)
        for result in self.results:
            by_student[result.student].append(result)
        used: set[str] = set()
        for student, results in sorted(by_student.items()):
            stem = _safe_filename(student)
            while stem.lower() in used:  # "a b" and "a_b" must not share a file
                stem += "_"
            used.add(stem.lower())
            path = out / f"{stem}.md"
            path.write_text(_feedback_text(student, results), encoding="utf-8")
            written.append(path)
        return written

    def summary(self) -> str:
        return _summary_text(self)

    def __repr__(self) -> str:
        return (
            f"GradeReport(students={len(self.students)}, rows={len(self.rows)}, "
            f"notebooks_run={self.notebooks_run}, seconds={self.seconds:.1f})"
        )


# --------------------------------------------------------------------------- release


def load_release(path: str | Path, only: Iterable[str] = ()) -> list[Assignment]:
    """The graded assignments of a release folder (or of one released notebook).

    `only` restricts to assignment names or stems (``03`` prefixes work too).
    """
    root = Path(path)
    if root.is_file():
        files = [root]
    elif root.is_dir():
        files = sorted(p for p in root.glob("*.ipynb") if p.is_file())
    else:
        raise GradeSetupError(f"release {str(root)!r} does not exist; pass the folder written by `python -m memlib release`")
    wanted = [w.lower() for w in only]
    assignments = []
    owners: dict[str, str] = {}
    for file in files:
        try:
            nb = nbformat.read(str(file), as_version=4)
        except Exception as error:
            raise GradeSetupError(f"cannot read released notebook {file}: {error}; re-run the release") from None
        graded = graded_cells(nb)
        if not graded:
            continue
        if wanted and not any(file.name.lower() == w or file.stem.lower() == w or file.stem.lower().startswith(w) for w in wanted):
            continue
        for cell in graded:
            if cell.checksum and cell.checksum != source_checksum(cell.source):
                print(
                    f"warning: graded cell {cell.grade_id!r} in {file} does not match its checksum: "
                    "the release was edited by hand; re-run the release",
                    file=sys.stderr,
                )
            if cell.grade_id in owners:
                raise GradeSetupError(f"grade_id {cell.grade_id!r} appears in {owners[cell.grade_id]} and {file.name}")
            owners[cell.grade_id] = file.name
        assignments.append(Assignment(file.name, nb, graded))
    if not assignments:
        what = f" matching {', '.join(only)}" if wanted else ""
        raise GradeSetupError(f"no released notebook with graded cells{what} in {root}")
    return assignments


# --------------------------------------------------------------------------- reading submissions


@dataclass
class _Found:
    display: str  # path inside the submission, for messages
    data: bytes | None
    error: str = ""


@dataclass
class _Submission:
    student: str
    path: Path
    also: list[Path] = field(default_factory=list)  # the student's other files in an LMS download


def _discover(paths: Iterable[str | Path]) -> list[_Submission]:
    submissions: list[_Submission] = []
    downloaded: dict[str, _Submission] = {}
    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):  # a dangling link is refused later, with a row
            raise GradeSetupError(f"submission {str(path)!r} does not exist")
        # Canvas and Moodle name every file (or folder) of a download after its student:
        # those files are one student, known by name and LMS id (memlib.course.export)
        lms_student = export.download_student(path.name)
        if lms_student in downloaded:
            downloaded[lms_student].also.append(path)
            continue
        name = lms_student or (path.name if path.is_dir() else path.stem)
        submissions.append(_Submission(name or str(path), path))
        if lms_student:
            downloaded[lms_student] = submissions[-1]
    # two submissions with the same name (alice/ and alice.zip) keep their extension
    counts = collections.Counter(s.student for s in submissions)
    for submission in submissions:
        if counts[submission.student] > 1:
            submission.student = submission.path.name
    return submissions


def _skip_part(part: str) -> bool:
    return part.startswith(".") or part == "__MACOSX"


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _read_regular(path: Path, display: str) -> _Found:
    """The bytes of a regular file, opened without following a link (a link swapped in meanwhile fails too)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        return _Found(display, None, f"cannot be read ({error.strerror})")
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return _Found(display, None, f"refused: {_kind_of(info.st_mode)}")
        if info.st_size > MAX_NOTEBOOK_BYTES:
            return _Found(display, None, f"file is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
        return _Found(display, handle.read(MAX_NOTEBOOK_BYTES + 1))


def _collect(submission: _Submission) -> tuple[list[_Found], list[str]]:
    """The notebooks of one submission. Symbolic links and special files are refused with a note,
    never followed: a link could name the instructor's solutions or any file the grader can read."""
    path = submission.path
    notes: list[str] = []
    found: list[_Found] = []
    top = path.lstat()
    if not (stat.S_ISDIR(top.st_mode) or stat.S_ISREG(top.st_mode)):
        notes.append(f"refused {path.name}: {_kind_of(top.st_mode)}")
    elif stat.S_ISDIR(top.st_mode):
        refused: list[str] = []
        for folder, dirs, files in os.walk(path, followlinks=False):
            here = Path(folder)
            for name in sorted(dirs):
                if (here / name).is_symlink():
                    refused.append(f"{(here / name).relative_to(path)} ({_kind_of(stat.S_IFLNK)})")
            dirs[:] = sorted(d for d in dirs if not _skip_part(d) and not (here / d).is_symlink())
            for name in sorted(files):
                file = here / name
                relative = file.relative_to(path)
                mode = file.lstat().st_mode
                if not stat.S_ISREG(mode):
                    if not _skip_part(name):
                        refused.append(f"{relative} ({_kind_of(mode)})")
                    continue
                if name.lower().endswith(".ipynb") and not _skip_part(name):
                    found.append(_read_regular(file, str(relative)))
        found.sort(key=lambda f: f.display)
        if refused:
            notes.append(f"refused {', '.join(refused)}: only regular files are graded")
        if not found:
            notes.append(f"no notebook found in {path.name}/")
    elif path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                total = 0
                for info in sorted(archive.infolist(), key=lambda i: i.filename):
                    parts = Path(info.filename).parts
                    if info.is_dir() or not info.filename.lower().endswith(".ipynb") or any(_skip_part(p) for p in parts):
                        continue
                    if stat.S_ISLNK(info.external_attr >> 16):
                        notes.append(f"refused {info.filename}: a symbolic link")
                        continue
                    total += info.file_size
                    if info.file_size > MAX_NOTEBOOK_BYTES or total > MAX_ZIP_TOTAL_BYTES:
                        found.append(_Found(info.filename, None, "file too large after unzipping"))
                        continue
                    found.append(_Found(info.filename, archive.read(info)))
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as error:
            notes.append(f"{path.name} is not a readable zip file ({error})")
        else:
            if not found:
                notes.append(f"no notebook found in {path.name}")
    elif path.suffix.lower() == ".ipynb":
        found.append(_read_regular(path, path.name))
    else:
        notes.append(f"{path.name} is not a folder, a .zip or a .ipynb file")
    return found, notes


def read_submission_notebook(data: bytes) -> tuple[nbformat.NotebookNode | None, str, list[str]]:
    """Parse a submitted notebook leniently: ``(notebook or None, error, notes)``.

    Invalid JSON, a truncated file and unsupported nbformat versions give an
    error; bytes that are not UTF-8 are replaced (noted) and nbformat 3 is
    converted (noted), because the code inside is usually fine.
    """
    notes: list[str] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="replace")
        notes.append(f"file is not valid UTF-8 (first bad byte at offset {error.start}); bad bytes replaced by U+FFFD")
    if not text.strip():
        return None, "file is empty; ask for a fresh download", notes
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        # A notebook's JSON always ends with "}"; a file that stops anywhere
        # else was cut off (interrupted upload or save), which is worth saying.
        if not text.rstrip().endswith("}"):
            lines = text.count("\n") + 1
            return None, f"file is truncated (the JSON ends early at line {lines}); ask for a fresh download", notes
        return None, f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})", notes
    except RecursionError:
        return None, "not valid JSON (nested too deeply)", notes
    if not isinstance(raw, dict) or not ("cells" in raw or "worksheets" in raw):
        return None, "not a Jupyter notebook (the JSON has no cells)", notes
    major = raw.get("nbformat")
    try:
        if major == 3:
            nb = nbformat.reads(json.dumps(raw), as_version=4)
            notes.append("nbformat 3 notebook converted to nbformat 4")
        elif major == 4:
            nb = nbformat.from_dict(raw)
        else:
            return None, f"nbformat {major!r} is not supported (expected 4); open and save it in a current Jupyter", notes
        cells = [_clean_cell(cell) for cell in nb.get("cells", []) if isinstance(cell, dict)]
    except Exception as error:  # a notebook broken in a way nbformat cannot convert
        return None, f"notebook structure is broken ({type(error).__name__}: {error})", notes
    nb["cells"] = [c for c in cells if c is not None]
    return nb, "", notes


def _clean_cell(cell: dict) -> nbformat.NotebookNode | None:
    cell_type = cell.get("cell_type")
    if cell_type not in ("code", "markdown", "raw"):
        return None
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(str(s) for s in source)
    metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
    clean = {"cell_type": cell_type, "metadata": copy.deepcopy(metadata), "source": str(source)}
    if isinstance(cell.get("id"), str):
        clean["id"] = cell["id"]
    if cell_type == "code":
        clean["outputs"] = []
        clean["execution_count"] = None
    return nbformat.from_dict(clean)


def _cell_grade_id(cell: dict) -> str | None:
    meta = cell.get("metadata", {}).get("memlib")
    if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
        return meta["grade_id"]
    return None


def _identify(nb: dict | None, display: str, assignments: list[Assignment]) -> tuple[Assignment | None, str]:
    """Which assignment a submitted file is, and how we know (for messages)."""
    by_stem = {a.stem: a for a in assignments}
    if nb is not None:
        meta = nb.get("metadata", {}).get("memlib", {})
        claimed = meta.get("assignment") if isinstance(meta, dict) else None
        if isinstance(claimed, str) and claimed:
            return by_stem.get(claimed), f"its metadata says assignment {claimed!r}"
        owner = {g.grade_id: a for a in assignments for g in a.graded}
        votes = collections.Counter(owner[gid].stem for gid in map(_cell_grade_id, nb.get("cells", [])) if gid in owner)
        if votes:
            stem = votes.most_common(1)[0][0]
            return by_stem[stem], f"its graded cells belong to {stem!r}"
    stem = Path(display).stem.lower()
    for assignment in assignments:
        if stem == assignment.stem.lower() or stem.startswith(assignment.stem.lower()):
            return assignment, "its file name"
    number = NAME_PREFIX_RE.match(stem)
    if number:
        same = [a for a in assignments if (NAME_PREFIX_RE.match(a.stem) or [None, None])[1] == number.group(1)]
        if len(same) == 1:
            return same[0], "its number"
    return None, "neither its metadata nor its name matches a graded assignment"


# --------------------------------------------------------------------------- restoring graded cells


def _fresh_import_prefix(source: str) -> str:
    """A first line for a graded cell that undoes patches of the checks it imports.

    The cell's own ``from ... import check_x`` already defeats a student who
    defines ``check_x`` earlier. `memlib.course.checks.ensure_unpatched`
    also reloads the module when ``module.check_x`` was replaced from a
    notebook cell; untouched modules are not reloaded, so classes the
    notebook got from them keep their identity.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    calls = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = tuple(alias.name for alias in node.names if alias.name.startswith("check"))
            if names:
                calls.append(f"_grader_ensure({node.module!r}, {', '.join(map(repr, names))})")
    if not calls:
        return ""
    return (
        "from memlib.course.checks import ensure_unpatched as _grader_ensure; "
        + "; ".join(calls)
        + "  # added by the grader\n"
    )


def restore_graded_cells(submission: dict, assignment: Assignment) -> tuple[nbformat.NotebookNode, dict[str, list[str]]]:
    """A gradable copy of `submission`: its own cells plus the release's graded cells.

    Returns the new notebook and, per grade_id, what had to be repaired
    (edited / deleted / duplicated). The submission object is not changed.
    """
    release_cells = assignment.nb.cells
    release_graded = {g.grade_id: g for g in assignment.graded}
    graded_sources = {g.source.strip(): g.grade_id for g in assignment.graded}
    seen: collections.Counter[str] = collections.Counter()
    edited: set[str] = set()
    kept: list[dict] = []
    for original in submission.get("cells", []):
        cell = copy.deepcopy(original)
        source = cell.get("source", "")
        tags = cell.get("metadata", {}).get("tags", [])
        tags = tags if isinstance(tags, list) else []
        # A copy of a graded cell is known by the release's metadata or by its
        # exact source, never by its cell id: an honest solution cell may carry
        # any id (a student who pasted it there), and must not be dropped.
        grade_id = _cell_grade_id(cell)
        if grade_id not in release_graded:
            grade_id = graded_sources.get(source.strip())
        if grade_id is not None or TAG_GRADED in tags:
            if grade_id is not None:
                seen[grade_id] += 1
                if source_checksum(source) != source_checksum(release_graded[grade_id].source):
                    edited.add(grade_id)
            continue  # every claimed graded cell goes; the release's copy comes back below
        # a student cell cannot carry grading metadata (its exercise name stays)
        metadata = {k: v for k, v in cell.get("metadata", {}).items() if k != "memlib"}
        exercise = tamper.exercise_key(cell)
        if exercise:
            metadata["memlib"] = {"exercise": exercise}
        if tags:
            metadata["tags"] = [t for t in tags if isinstance(t, str) and t != TAG_GRADED]
        cell["metadata"] = metadata
        kept.append(cell)

    result: list[dict] = list(kept)
    floor = 0  # graded cells stay in release order
    for graded in assignment.graded:
        position = _position_for(graded, release_cells, result, floor)
        restored = copy.deepcopy(graded.cell)
        restored["source"] = _fresh_import_prefix(graded.source) + graded.source
        restored["outputs"] = []
        restored["execution_count"] = None
        result.insert(position, restored)
        floor = position + 1

    repairs: dict[str, list[str]] = {}
    for grade_id in release_graded:
        notes = []
        if seen[grade_id] == 0:
            notes.append("graded cell was deleted; re-inserted from the release")
        elif seen[grade_id] > 1:
            notes.append(f"graded cell was duplicated ({seen[grade_id]} copies); extra copies removed")
        if grade_id in edited:
            notes.append("graded cell was edited; restored from the release")
        if notes:
            repairs[grade_id] = notes

    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "memlib": {"assignment": assignment.stem},
    }
    _unique_ids(result)
    nb.cells = [nbformat.from_dict(c) for c in result]
    return nb, repairs


def _same_cell(a: dict, b: dict) -> bool:
    if a.get("id") and a.get("id") == b.get("id"):
        return True
    source = a.get("source", "").strip()
    return bool(source) and a.get("cell_type") == b.get("cell_type") and source == b.get("source", "").strip()


def _position_for(graded: GradedCell, release_cells: list[dict], cells: list[dict], floor: int) -> int:
    def find(anchor: dict) -> int | None:
        for index in range(floor, len(cells)):
            if _same_cell(anchor, cells[index]):
                return index
        return None

    def is_graded(cell: dict) -> bool:
        return _cell_grade_id(cell) is not None

    # Prefer "just before the release cell that follows": the check then runs
    # after every cell the student added for this exercise (a duplicated and
    # solved exercise cell included).
    for index in range(graded.index + 1, len(release_cells)):
        if not is_graded(release_cells[index]):
            found = find(release_cells[index])
            if found is not None:
                return found
    for index in range(graded.index - 1, -1, -1):
        if not is_graded(release_cells[index]):
            found = find(release_cells[index])
            if found is not None:
                return found + 1
    return len(cells)


def _unique_ids(cells: list[dict]) -> None:
    seen: set[str] = set()
    for index, cell in enumerate(cells):
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not re.match(r"^[a-zA-Z0-9_-]{1,64}$", cell_id) or cell_id in seen:
            cell_id = f"grader-{index}"
            while cell_id in seen:
                cell_id += "x"
        cell["id"] = cell_id
        seen.add(cell_id)


# --------------------------------------------------------------------------- the grader's first cell

#: Characters of stdout / stderr kept per cell; the rest is dropped in the kernel.
OUTPUT_CAP_CHARS = 1_000_000

# The first cell of every graded notebook. It caps what each cell prints inside
# the kernel, so an honest runaway print loop sends little over the socket. It
# is a courtesy, not the limit: a cell can write around it (the underlying
# stream, its file descriptors), and the grader enforces its own cap on what
# it receives (kernel_run.OUTPUT_CAP_CHARS).
PRELUDE_SOURCE = f"""\
# Added by the grader: cap what each cell can print ({OUTPUT_CAP_CHARS:,} characters per stream).
def _grader_cap_output(limit={OUTPUT_CAP_CHARS}):
    import sys

    class CappedStream:
        def __init__(self, stream):
            self._stream, self._written, self._warned = stream, 0, False

        def write(self, text):
            room = limit - self._written
            self._written += len(text)
            if room > 0:
                self._stream.write(text[:room])
            if self._written > limit and not self._warned:
                self._warned = True
                self._stream.write(f"\\n[grader: output of this cell cut after {{limit}} characters]\\n")
            return len(text)

        def reset(self, *args):
            self._written, self._warned = 0, False

        def __getattr__(self, name):
            return getattr(self._stream, name)

    sys.stdout, sys.stderr = CappedStream(sys.stdout), CappedStream(sys.stderr)
    try:
        shell = get_ipython()  # noqa: F821 - defined inside IPython kernels
    except NameError:
        return
    shell.events.register("pre_run_cell", sys.stdout.reset)
    shell.events.register("pre_run_cell", sys.stderr.reset)


_grader_cap_output()
del _grader_cap_output"""


def _prelude_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(PRELUDE_SOURCE)
    cell.id = "grader-prelude"
    cell.metadata = {"memlib": {"grader": "prelude"}}
    return cell



# --------------------------------------------------------------------------- turning runs into rows


@dataclass
class _Outcome:
    """One graded cell's outcome in one run."""

    status: str  # PASSED / FAILED / ERROR
    reason: str = ""
    message: str = ""
    traceback: str = ""
    stdout: str = ""


def _heads(nb: dict) -> dict[int, str]:
    return {i: _first_line(c.get("source", "")) for i, c in enumerate(nb.get("cells", []))}


def _failure_reason(cell: CellRun, cell_timeout: float) -> tuple[str, str, str]:
    """(gradebook reason, feedback message, trimmed traceback) for a cell that failed."""
    trace = _trim_traceback([_strip_ansi(line) for line in cell.traceback])
    ename, evalue = cell.ename, _strip_ansi(cell.evalue)
    if cell.status == kernel_run.DIED:
        text = "the kernel died while this cell ran (os._exit, a crash or running out of memory)"
        return text, text, ""
    if cell.status == kernel_run.TIMEOUT:
        text = f"timed out after {cell_timeout:g} s (an infinite loop or a very slow solution?)"
        return text, text, trace
    if ename == "SystemExit":
        text = "SystemExit: the code called sys.exit() or exit()"
        return text, text, trace
    if ename == "CheckFailed" or ename.endswith(".CheckFailed"):
        detail = re.sub(r"^\[[^\]]+\]\s*", "", evalue)
        # the gradebook gets what is wrong; the hint goes to the feedback file
        return _one_line(detail.split("\nHint:")[0]), detail, ""
    return _one_line(f"{ename}: {evalue}"), f"{ename}: {evalue}", trace


def _outcomes(assignment: Assignment, nb: dict, run: NotebookRun, cell_timeout: float,
              timeout: float) -> tuple[dict[str, _Outcome], list[str], bool]:
    """Per grade_id outcome of `run` over `nb`, the other cells that failed, and whether the grader failed."""
    heads = _heads(nb)
    where = {_cell_grade_id(c): i for i, c in enumerate(nb.get("cells", [])) if _cell_grade_id(c)}
    grader_cells = {i for i, c in enumerate(nb.get("cells", [])) if _is_grader_cell(c)}
    finished = [c for c in run.cells if c.status not in (kernel_run.NOT_RUN, kernel_run.SKIPPED)]
    outcomes: dict[str, _Outcome] = {}
    grader_failed = False
    for graded in assignment.graded:
        index = where.get(graded.grade_id)
        cell = run.cell(index) if index is not None else None
        if run.start_error or cell is None:
            why = run.start_error or "the graded cell was not in the notebook"
            tail = run.log_tail.strip().splitlines()[-1:] if run.log_tail.strip() else []
            reason = f"grader error: {why}" + (f" ({tail[0][:200]})" if tail else "")
            outcomes[graded.grade_id] = _Outcome(ERROR, reason, reason)
            grader_failed = True
        elif cell.status == kernel_run.OK:
            outcomes[graded.grade_id] = _Outcome(PASSED, stdout=cell.stdout[-STDOUT_TAIL_CHARS:])
        elif cell.status == kernel_run.NOT_RUN and run.notebook_timed_out:
            last = heads.get(finished[-1].index, "") if finished else ""
            after = f"; the last cell that finished starts {last!r}" if last else ""
            reason = f"not run: the notebook exceeded its time limit of {timeout:g} s before this check{after}"
            outcomes[graded.grade_id] = _Outcome(FAILED, reason, reason)
        elif cell.status == kernel_run.NOT_RUN:
            head = heads.get(run.died_in, "") if run.died_in is not None else ""
            where_text = f" in the cell starting {head!r}" if head else ""
            reason = (f"not run: the kernel died earlier{where_text} (os._exit, a crash, running out of memory "
                      "or a cell that could not be interrupted)")
            outcomes[graded.grade_id] = _Outcome(FAILED, reason, reason)
        else:
            reason, message, trace = _failure_reason(cell, cell_timeout)
            outcomes[graded.grade_id] = _Outcome(FAILED, reason, message, trace, cell.stdout[-STDOUT_TAIL_CHARS:])
    others = []
    graded_at = set(where.values())
    for cell in run.cells:
        if cell.failed and cell.status != kernel_run.NOT_RUN and cell.index not in graded_at | grader_cells:
            reason, _, _ = _failure_reason(cell, cell_timeout)
            others.append(f"cell starting {heads.get(cell.index, '')!r}: {reason}")
    return outcomes, others, grader_failed


def _trim_traceback(lines: list[str]) -> str:
    """Keep the frames from notebook cells (the student's code) and the final error line."""
    if not lines:
        return ""
    kept = [chunk.rstrip() for chunk in lines[1:-1] if chunk.lstrip().startswith(("Cell In[", "Input In[", "<ipython-input"))]
    return "\n".join(kept + [lines[-1].rstrip()])


def _fill_rows(result: NotebookResult, outcomes: dict[str, _Outcome], notes: dict[str, list[str]]) -> None:
    for graded in result.assignment.graded:
        outcome = outcomes[graded.grade_id]
        points = graded.points if outcome.status == PASSED else 0
        row_notes = notes.get(graded.grade_id, []) + result.notes + _reference_note(outcome.stdout)
        result.rows.append(_row(result, graded, points, outcome.status, _join(outcome.reason, row_notes)))
        result.details.append(CheckDetail(graded.grade_id, outcome.status, outcome.message, outcome.traceback,
                                          outcome.stdout))


def _reference_note(stdout: str) -> list[str]:
    """The check's own line saying the answer used memlib's reference implementation (see checking.graded)."""
    for line in stdout.splitlines():
        if line.startswith(REFERENCE_NOTE):
            names = line[len(REFERENCE_NOTE):].split(" (the gradebook notes it)")[0]
            return [f"the answer uses memlib's reference implementation: {names}"]
    return []


def _row(result: NotebookResult, graded: GradedCell, points: float, status: str, reason: str) -> Row:
    return Row(result.student, result.assignment.name, graded.grade_id, points, graded.points, status, reason)


def _join(reason: str, notes: list[str]) -> str:
    parts = [reason] if reason else []
    parts += [n if n.startswith("review:") else f"note: {n}" for n in notes]
    return _one_line("; ".join(parts), limit=REASON_CHARS + 200 * len(notes))


def _rows_for_all(result: NotebookResult, status: str, reason: str) -> None:
    for graded in result.assignment.graded:
        result.rows.append(_row(result, graded, 0, status, _join(reason, result.notes)))
        result.details.append(CheckDetail(graded.grade_id, status, reason))


# --------------------------------------------------------------------------- one notebook


@dataclass
class _Job:
    student: str
    assignment: Assignment
    chosen: _Found | None
    nb: nbformat.NotebookNode | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)
    status_if_not_run: str = ""


@dataclass
class _Settings:
    sandbox: Sandbox
    support: list[Path]
    cell_timeout: float
    timeout: float


def _is_grader_cell(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("memlib", {})
    return isinstance(meta, dict) and "grader" in meta


def _executed_sources(nb: dict) -> list[str]:
    return [c.get("source", "") for c in nb.get("cells", [])
            if c.get("cell_type") == "code" and not kernel_run.is_skipped(c)]


def _run(nb: nbformat.NotebookNode, folder: Path, settings: _Settings) -> NotebookRun:
    run = kernel_run.run_notebook(nb, settings.sandbox, folder, settings.support,
                                  cell_timeout=settings.cell_timeout, timeout=settings.timeout)
    # what was run, with what the grader saw, for --keep-work
    kept = copy.deepcopy(nb)
    for cell_run in run.cells:
        cell = kept.cells[cell_run.index]
        cell.outputs = [nbformat.from_dict(o) for o in cell_run.outputs]
        cell.metadata["grader_run"] = {"status": cell_run.status, "seconds": round(cell_run.seconds, 3)}
    (folder / "executed.ipynb").write_text(json.dumps(kept, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (folder / "kernel.log").write_text(run.log_tail, encoding="utf-8")
    return run


def _review_notes(assignment: Assignment, used: dict[str, list[str]],
                  added: list[tuple[int, str]]) -> dict[str, list[str]]:
    """grade_id -> review notes for exercise and added cells that reach into the checking machinery."""
    exercise_at = {key: index for index, key in tamper.release_exercises(assignment.nb).items()}
    notes: dict[str, list[str]] = collections.defaultdict(list)
    modules = tamper.check_modules(g.source for g in assignment.graded)
    suspects = [(exercise_at.get(key, -1), f"the cell of exercise {key}", sources) for key, sources in used.items()]
    suspects += [(anchor, "a cell the student added", [source]) for anchor, source in added]
    for at, which, sources in suspects:
        labels: list[str] = []
        for source in sources:
            labels += [label for label in tamper.reaches_in(source, modules) if label not in labels]
        if not labels:
            continue
        # a patch can fool any check that runs after it
        for graded in [g for g in assignment.graded if g.index > at] or assignment.graded[-1:]:
            note = f"review: {which} reaches into the checking machinery ({', '.join(labels)})"
            if note not in notes[graded.grade_id]:
                notes[graded.grade_id].append(note)
    return notes


def _grade_job(job: _Job, scratch: Path, settings: _Settings) -> NotebookResult:
    started = time.monotonic()
    result = NotebookResult(job.student, job.assignment, job.chosen.display if job.chosen else "", notes=list(job.notes))
    try:
        if job.status_if_not_run:
            _rows_for_all(result, job.status_if_not_run, job.error)
            return result
        assert job.nb is not None
        assignment = job.assignment
        prepared, repairs = restore_graded_cells(job.nb, assignment)
        prepared.cells.insert(0, _prelude_cell())
        folder = Path(tempfile.mkdtemp(prefix=f"{_safe_filename(job.student)[:40]}-", dir=scratch))
        full_run = _run(prepared, folder / "as-handed-in", settings)
        full, others, full_failed = _outcomes(assignment, prepared, full_run, settings.cell_timeout, settings.timeout)
        result.other_errors = others
        result.handed_in = {grade_id: outcome.status for grade_id, outcome in full.items()}

        # The clean re-run: the release with only the student's exercise cells and added cells.
        clean_nb, missing, used = tamper.clean_notebook(
            assignment.nb, job.nb, tamper.check_modules(g.source for g in assignment.graded))
        clean_prepared, _ = restore_graded_cells(clean_nb, assignment)
        clean_prepared.cells.insert(0, _prelude_cell())
        notes = {gid: list(n) for gid, n in repairs.items()}
        if _executed_sources(clean_prepared) == _executed_sources(prepared):
            clean, clean_failed = full, full_failed  # the same cells: the first run was already clean
        else:
            result.reran = True
            clean_run = _run(clean_prepared, folder / "clean", settings)
            clean, _, clean_failed = _outcomes(assignment, clean_prepared, clean_run, settings.cell_timeout,
                                               settings.timeout)
            for graded in assignment.graded:
                mine, theirs = full[graded.grade_id], clean[graded.grade_id]
                if (mine.status == PASSED) != (theirs.status == PASSED) and ERROR not in (mine.status, theirs.status):
                    handed_in = "passed" if mine.status == PASSED else f"failed ({mine.reason})"
                    lost = f"; exercise(s) {', '.join(missing)} not found in the notebook" if missing else ""
                    notes.setdefault(graded.grade_id, []).append(
                        f"review: as handed in this check {handed_in}; with only the exercise and added cells "
                        f"in the release it {'passed' if theirs.status == PASSED else 'failed'}{lost}"
                    )
        for grade_id, extra in _review_notes(assignment, used, tamper.added_cells(assignment.nb, job.nb)).items():
            notes.setdefault(grade_id, []).extend(extra)
        _fill_rows(result, clean, notes)
        result.grader_error = clean_failed
        if full_run.notebook_timed_out:
            result.notes.append(f"notebook stopped after its time limit of {settings.timeout:g} s")
    except Exception as error:  # a bug in the grader must not stop the class
        result.rows = []
        result.details = []
        result.grader_error = True
        _rows_for_all(result, ERROR, f"grader error: {type(error).__name__}: {error}")
    finally:
        result.seconds = time.monotonic() - started
    return result



def _plan(submission: _Submission, assignments: list[Assignment]) -> list[_Job]:
    found, notes = _collect(submission)
    for path in submission.also:
        more, more_notes = _collect(_Submission(submission.student, path))
        found, notes = found + more, notes + more_notes
    for item in found:  # "lovelaceada_12345_67890_03_topic.ipynb" was handed in as "03_topic.ipynb"
        item.display = export.original_name(item.display)
    parsed = []
    unmatched: list[str] = []
    for item in found:
        nb, error, read_notes = (None, item.error, []) if item.data is None else read_submission_notebook(item.data)
        assignment, how = _identify(nb, item.display, assignments)
        if assignment is None:
            unmatched.append(f"{item.display} ({how})")
            continue
        parsed.append((assignment, item, nb, error, read_notes, how))
    jobs = []
    for assignment in assignments:
        candidates = [p for p in parsed if p[0] is assignment]
        job_notes = list(notes)
        if not candidates:
            reason = f"no notebook for {assignment.name} in the submission"
            extra = ([f"ignored {', '.join(unmatched)}"] if unmatched else []) + job_notes
            if extra:
                reason += " (" + "; ".join(extra) + ")"
            jobs.append(_Job(submission.student, assignment, None, error=reason, status_if_not_run=MISSING))
            continue
        chosen = candidates[0]
        if len(candidates) > 1:
            exact = [c for c in candidates if Path(c[1].display).name == assignment.name]
            names = ", ".join(c[1].display for c in candidates)
            if len(exact) != 1:
                reason = (
                    f"ambiguous: {len(candidates)} notebooks look like {assignment.name} ({names}); "
                    "keep exactly one and grade again"
                )
                jobs.append(_Job(submission.student, assignment, None, error=reason, status_if_not_run=ERROR))
                continue
            chosen = exact[0]
            others = ", ".join(c[1].display for c in candidates if c is not chosen)
            job_notes.append(f"graded {chosen[1].display}; ignored {others}")
        _, item, nb, error, read_notes, how = chosen
        job_notes += read_notes
        if Path(item.display).name != assignment.name and not any("graded " in n for n in job_notes):
            job_notes.append(f"graded {item.display} as {assignment.name} ({how})")
        if nb is None:
            jobs.append(_Job(submission.student, assignment, item, error=f"{item.display}: {error}",
                             notes=job_notes, status_if_not_run=ERROR))
        else:
            jobs.append(_Job(submission.student, assignment, item, nb=nb, notes=job_notes))
    return jobs


# --------------------------------------------------------------------------- the class


def grade(
    submissions: Iterable[str | Path],
    release: str | Path,
    *,
    jobs: int = 1,
    timeout: float = 300.0,
    cell_timeout: float | None = None,
    assignments: Iterable[str] = (),
    progress: Callable[[int, int, NotebookResult], None] | None = None,
    keep_work: str | Path | None = None,
    shard: shards.Shard | None = None,
    all_assignments: bool = False,
    sandbox: str | Sandbox = "auto",
    limits: Limits | None = None,
    warn: Callable[[str], None] | None = None,
) -> GradeReport:
    """Grade every submission against the release; see the module docstring.

    Only the assignments someone in the class handed in get rows, unless
    `all_assignments`; with `shard`, only that shard's students are run (the
    class as a whole still decides what was handed in, so shards agree).

    `sandbox` is ``"auto"`` (bubblewrap when it works here, else none with a
    warning), ``"bwrap"`` (required) or ``"none"``; warnings go to `warn`
    (default: stderr). Raises `GradeSetupError` only when grading cannot
    start; every problem with a submission becomes gradebook rows.
    """
    started = time.monotonic()
    released = load_release(release, assignments)
    release_root = Path(release) if Path(release).is_dir() else Path(release).parent
    support = sorted(p for p in release_root.iterdir() if p.is_file() and p.suffix != ".ipynb" and not p.name.startswith("."))
    students = _discover(submissions)
    cell_limit = float(cell_timeout) if cell_timeout is not None else min(60.0, float(timeout))
    try:
        import ipykernel  # noqa: F401  (checked here so a missing kernel is a setup error, not N rows)
        import jupyter_client  # noqa: F401
    except ImportError as error:
        raise GradeSetupError(f"{error.name} is not installed; pip install ipykernel jupyter_client") from None
    if isinstance(sandbox, Sandbox):
        confinement, warning = sandbox, ""
    else:
        try:
            confinement, warning = resolve(sandbox, limits)
        except SandboxError as error:
            raise GradeSetupError(str(error)) from None
    if warning:
        (warn or (lambda text: print(text, file=sys.stderr)))(warning)
    settings = _Settings(confinement, support, cell_limit, float(timeout))

    planned = [job for submission in students for job in _plan(submission, released)]
    handed_in = {job.assignment.name for job in planned if job.status_if_not_run != MISSING}
    not_handed_in = [] if all_assignments else [a.name for a in released if a.name not in handed_in]
    planned = [job for job in planned if job.assignment.name not in not_handed_in
               and (shard is None or shard.holds(job.student))]
    if keep_work is not None:
        scratch = Path(keep_work)
        scratch.mkdir(parents=True, exist_ok=True)
        cleanup = False
    else:
        scratch = Path(tempfile.mkdtemp(prefix="memlib-grade-"))
        cleanup = True
    results: list[NotebookResult | None] = [None] * len(planned)
    done = 0
    lock = threading.Lock()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
            futures = {
                pool.submit(_grade_job, job, scratch, settings): index
                for index, job in enumerate(planned)
            }
            for future in concurrent.futures.as_completed(futures):
                result = future.result()
                results[futures[future]] = result
                with lock:
                    done += 1
                    if progress is not None:
                        progress(done, len(planned), result)
    finally:
        if cleanup:
            shutil.rmtree(scratch, ignore_errors=True)
    order = {a.name: i for i, a in enumerate(released)}
    final = sorted((r for r in results if r is not None), key=lambda r: (r.student, order[r.assignment.name]))
    return GradeReport(
        results=final,
        assignments=released,
        seconds=time.monotonic() - started,
        jobs=max(1, int(jobs)),
        notebooks_run=sum(1 for job in planned if not job.status_if_not_run),
        shard=shard,
        not_handed_in=not_handed_in,
        sandbox=confinement.describe(),
    )


# --------------------------------------------------------------------------- text output


def _feedback_text(student: str, results: list[NotebookResult]) -> str:
    lines = [f"# Feedback for {student}", ""]
    total = sum(r.points for r in results)
    most = sum(r.assignment.max_points for r in results)
    lines += [f"Total: {_num(total)} / {_num(most)} points", ""]
    for result in results:
        lines.append(f"## {result.assignment.name}: {_num(result.points)} / {_num(result.assignment.max_points)} points")
        lines.append("")
        if result.submitted_as:
            lines.append(f"Graded file: `{result.submitted_as}`")
        for note in result.notes:
            lines.append(f"Note: {note}")
        lines.append("")
        rows = {r.grade_id: r for r in result.rows}
        for detail in result.details:
            row = rows[detail.grade_id]
            lines.append(f"### {detail.grade_id}: {detail.status} ({_num(row.points)} / {_num(row.max_points)})")
            lines.append("")
            if detail.status != PASSED:
                lines += _fenced(detail.message or row.reason)
            if detail.traceback:
                lines.append("Where it failed in your code:")
                lines += _fenced(detail.traceback)
            if detail.stdout.strip():
                lines.append("Output of the check:")
                lines += _fenced(detail.stdout.strip())
            extra = [n for n in row.reason.split("; ") if n.startswith("note: graded cell")]
            for note in extra:
                lines.append(f"- {note[6:]}")
            lines.append("")
        if result.other_errors:
            lines.append("Other cells that raised an error (not graded, but worth fixing):")
            lines += [f"- {e}" for e in result.other_errors]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _fenced(text: str) -> list[str]:
    return ["```", text.rstrip(), "```", ""]


def _summary_text(report: GradeReport) -> str:
    per_notebook = report.seconds / max(1, report.notebooks_run)
    lines = [
        f"Graded {len(report.students)} student(s): {report.notebooks_run} notebook run(s) in {report.seconds:.1f} s "
        f"with -j {report.jobs} ({per_notebook:.1f} s per notebook)"
        + (f", shard {report.shard}" if report.shard else "")
        + f"; {report.reruns} needed the clean re-run",
        f"Kernels ran in: {report.sandbox or 'no sandbox'}",
        "",
    ]
    if report.not_handed_in:
        lines += [f"Nobody handed in {', '.join(report.not_handed_in)}: no rows in the gradebook "
                  "(--all-assignments grades every released notebook)", ""]
    lines.append("Mean points per check:")
    for assignment in report.assignments:
        for graded in assignment.graded:
            rows = [r for r in report.rows if r.grade_id == graded.grade_id]
            if not rows:
                continue
            mean = sum(r.points for r in rows) / len(rows)
            passed = sum(1 for r in rows if r.status == PASSED)
            lines.append(
                f"  {assignment.name:<28} {graded.grade_id:<24} {mean:6.2f} / {_num(graded.points):<4} "
                f"({passed} of {len(rows)} passed)"
            )
    problems = [r for r in report.results if r.rows and all(row.status in (ERROR, MISSING) for row in r.rows)]
    if problems:
        lines += ["", "Could not grade:"]
        for result in problems:
            row = result.rows[0]
            lines.append(f"  {result.student:<20} {result.assignment.name:<28} {row.status}: {row.reason}")
    review = [row for result in report.results for row in result.review]
    if review:
        lines += ["", f"Review ({len(review)} check(s) where the notebook may have tampered with grading):"]
        for row in review:
            flags = "; ".join(part for part in row.reason.split("; ") if part.startswith("review:"))
            lines.append(f"  {row.student:<20} {row.grade_id:<24} {_num(row.points)}/{_num(row.max_points)} {flags}")
    if report.grader_errors:
        lines += ["", f"{report.grader_errors} notebook(s) hit a grader error: see the reasons above"]
    return "\n".join(lines)


class _Progress:
    """A one-line progress bar on a terminal, one line per notebook otherwise."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, result: NotebookResult) -> None:
        self.show(done, total, f"{result.student} {result.assignment.name} "
                               f"{_num(result.points)}/{_num(result.assignment.max_points)}")

    def show(self, done: int, total: int, status: str) -> None:
        """Draw `done` of `total` with a status (also what `python -m memlib.course.mutation` shows)."""
        width = 30
        filled = int(width * done / max(1, total))
        bar = "#" * filled + "-" * (width - filled)
        elapsed = time.monotonic() - self.started
        line = f"[{bar}] {done}/{total} {elapsed:5.1f}s  {status}"
        if self.tty:
            end = "\n" if done == total else ""
            self.stream.write("\r" + line[:120].ljust(120) + end)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


# --------------------------------------------------------------------------- helpers


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text)


def _first_line(source: str) -> str:
    for line in str(source).splitlines():
        if line.strip() and not line.startswith("from memlib.course.checks import ensure_unpatched"):
            return line.strip()[:60]
    return ""


def _one_line(text: str, limit: int = REASON_CHARS) -> str:
    return one_line(text, limit)


def _safe_filename(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return cleaned or "student"


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade``: exit 0 when grading ran (whatever the grades), 2 when it could not."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade",
        description="Grade student notebooks against the release in sandboxed kernels and write a gradebook CSV.",
    )
    parser.add_argument("submissions", nargs="+", help="one folder, .zip or .ipynb per student")
    parser.add_argument("--release", required=True, help="the released notebooks (folder or one notebook)")
    parser.add_argument("--out", required=True, help="gradebook CSV to write")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="notebooks graded in parallel (default 1)")
    parser.add_argument("--timeout", type=float, default=300.0, help="time limit per notebook, seconds (default 300)")
    parser.add_argument("--cell-timeout", type=float, default=None, help="time limit per cell, seconds (default min(60, timeout))")
    parser.add_argument("--feedback", default=None, help="folder for one feedback file per student")
    parser.add_argument("--assignment", action="append", default=[], help="grade only this notebook (name, stem or number); repeatable")
    parser.add_argument("--keep-work", default=None, help="keep the notebooks as they were run (with outputs) and the kernels' logs in this folder")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto",
                        help="confine each kernel with bubblewrap: auto (when it works here, the default), "
                             "bwrap (required) or none (student code runs with your permissions)")
    parser.add_argument("--memory-limit", type=int, default=Limits.memory // 2**20, metavar="MB",
                        help="address space of each sandboxed kernel, MB (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--shard", default=None, metavar="K/N",
                        help="grade only shard K of N (K from 1), chosen by a hash of each student's name; "
                             "join the shards with `python -m memlib grade merge`")
    parser.add_argument("--all-assignments", action="store_true",
                        help="rows for every released notebook, also those nobody handed in (as missing)")
    args = parser.parse_args(argv)
    try:
        shard = shards.parse_shard(args.shard) if args.shard is not None else None
    except shards.ShardError as error:
        parser.error(str(error))
    if args.jobs < 1 or args.timeout <= 0 or (args.cell_timeout is not None and args.cell_timeout <= 0):
        parser.error("-j, --timeout and --cell-timeout must be positive")
    try:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("a", encoding="utf-8"):
            pass  # fail now, not after an hour of grading, if the gradebook cannot be written
        report = grade(
            args.submissions,
            args.release,
            jobs=args.jobs,
            timeout=args.timeout,
            cell_timeout=args.cell_timeout,
            assignments=args.assignment,
            progress=None if args.quiet else _Progress(),
            keep_work=args.keep_work,
            shard=shard,
            all_assignments=args.all_assignments,
            sandbox=args.sandbox,
            limits=Limits(memory=args.memory_limit * 2**20),
        )
        report.write_csv(out)
        if args.feedback:
            report.write_feedback(args.feedback)
    except GradeSetupError as error:
        print(f"grading could not run: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"grading could not run: {error}", file=sys.stderr)
        return 2
    print(report.summary())
    print(f"\nGradebook: {out}" + (f"; feedback: {Path(args.feedback)}{os.sep}" if args.feedback else ""))
    return 1 if report.grader_errors else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
