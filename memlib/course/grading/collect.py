"""Collecting: the release's graded assignments and each student's notebooks.

Finds the submissions (folders, zips, single notebooks, LMS downloads), the
notebooks inside them without following a symbolic link or opening a special
file, reads each leniently (`read_submission_notebook`), decides which
assignment it is, and plans one job per student x assignment. It never runs
or changes a notebook and never writes to the submission.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import json
import os
import re
import stat
import sys
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import nbformat

from memlib.course import export
from memlib.course.checker import graded_call
from memlib.course.late import Lateness
from memlib.course.grading.inert import small_metadata
from memlib.course.grading.model import Assignment, GradeSetupError, _cell_grade_id
from memlib.course.kernel_run import json_values
from memlib.course.release import graded_cells, source_checksum
from memlib.course.status import ERROR, MISSING
from memlib.course.written import WrittenCell, written_cells

MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024
#: At most this many JSON values (counted from its commas, arrays and objects) are parsed in one notebook: each
#: costs the grader's own process some 60 bytes, and 100 MB of empty lists would cost it 2 GB. A course notebook
#: holds far fewer (its outputs are the bulk, and clearing them is the fix).
MAX_JSON_VALUES = 5_000_000
#: At most this many characters of text are parsed in one notebook: Python keeps a text with one character
#: outside Latin-1 (an emoji) at 4 bytes a character, so a 71 MB file of such lines cost the grader 0.6 GB.
MAX_NOTEBOOK_CHARS = 32_000_000
MAX_ZIP_TOTAL_BYTES = 500 * 1024 * 1024
NAME_PREFIX_RE = re.compile(r"^(\d+)")


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
        written = written_cells(nb)
        if not graded and not written:
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
            try:
                graded_call(cell.source)  # the checker reads the check and the answer from it
            except ValueError as error:
                raise GradeSetupError(f"{file.name}, graded cell {cell.grade_id!r}: {error}") from None
        for answer in written:
            if answer.grade_id in owners:
                raise GradeSetupError(f"grade_id {answer.grade_id!r} appears in {owners[answer.grade_id]} and "
                                      f"{file.name}")
            owners[answer.grade_id] = file.name
        assignments.append(Assignment(file.name, nb, graded, _with_translations(written, file)))
    if not assignments:
        what = f" matching {', '.join(only)}" if wanted else ""
        raise GradeSetupError(f"no released notebook with graded cells{what} in {root}")
    return assignments


def _with_translations(written: list[WrittenCell], file: Path) -> list[WrittenCell]:
    """`written` with each cell's text in the translated releases beside `file` (notebooks/zh/<name>), so
    that a translated notebook's untouched question is not read as the student's answer."""
    texts: dict[str, list[str]] = {}
    for translated in sorted(file.parent.glob(f"*/{file.name}")):
        try:
            nb = nbformat.read(str(translated), as_version=4)
        except Exception:  # a damaged translation: its students' blank answers go to a person, nothing worse
            continue
        for cell in written_cells(nb):
            texts.setdefault(cell.grade_id, []).append(nb.cells[cell.index].source)  # nbformat joins the lines
    return [dataclasses.replace(w, translations=tuple(texts.get(w.grade_id, ()))) for w in written]


# --------------------------------------------------------------------------- reading submissions


@dataclass
class _Found:
    display: str  # path inside the submission, for messages
    data: bytes | None  # None: read from `origin` when needed
    error: str = ""
    zip_time: tuple[int, ...] | None = None  # the time a zip stores for the entry (local, no zone)
    lms_late: bool = False  # the LMS's download name says it was late (Canvas's _LATE_)
    #: where the bytes come from: ("file", path) or ("zip", zip path, the entry's position); a class's notebooks
    #: are not all held at once: each is read when its submission is planned, and again when its job runs
    origin: tuple = ()

    def read(self) -> bytes | None:
        """The notebook's bytes, read from where they were found (None, with `error` said, when they cannot be)."""
        if self.data is not None:
            return self.data
        try:
            if self.origin[:1] == ("file",):
                again = _read_regular(self.origin[1], self.display)
                self.error = again.error
                return again.data
            if self.origin[:1] == ("zip",):
                with zipfile.ZipFile(self.origin[1]) as archive:
                    return archive.read(archive.infolist()[self.origin[2]])  # by position: names can repeat
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, RuntimeError,
                NotImplementedError, KeyError) as error:
            self.error = f"cannot be read again ({error})"
        return None


@dataclass
class _Submission:
    student: str
    path: Path
    also: list[Path] = field(default_factory=list)  # the student's other files in an LMS download
    notes: list[str] = field(default_factory=list)  # what a person should know about the name


def _discover(paths: Iterable[str | Path]) -> list[_Submission]:
    submissions: list[_Submission] = []
    downloaded: dict[str, _Submission] = {}
    given: dict[str, str] = {}
    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):  # a dangling link is refused later, with a row
            raise GradeSetupError(f"submission {str(path)!r} does not exist")
        absolute = os.path.abspath(path)
        if absolute in given:
            raise GradeSetupError(f"submission {str(path)!r} is given twice (also as {given[absolute]!r}): "
                                  "pass each submission once")
        given[absolute] = str(path)
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
    _tell_apart(submissions)
    return submissions


def _tell_apart(submissions: list[_Submission]) -> None:
    """A student is their submission's path: those that share a name are shown by their paths' shortest ends that differ.

    ``alice/`` and ``alice.zip`` become ``alice`` and ``alice.zip``; ``sec1/alice`` and
    ``sec2/alice`` become ``sec1/alice`` and ``sec2/alice``. A name no one else has stays
    as it is, so a class without homonyms gets the gradebook it always got.
    """
    parts = {id(s): Path(os.path.abspath(s.path)).parts[1:] for s in submissions}
    names = {id(s): s.student for s in submissions}
    depth = {id(s): 0 for s in submissions}  # 0: the name; k: the last k parts of the path

    def label(submission: _Submission) -> str:
        # one name spelled in composed (NFC) or decomposed (NFD) code points is one name: macOS writes
        # file names decomposed, an LMS export composed
        k = depth[id(submission)]
        return unicodedata.normalize("NFC", names[id(submission)] if k == 0 else
                                     "/".join(parts[id(submission)][-k:]))

    # the paths differ (no path is given twice), so their full lengths always tell them apart
    for _ in range(1 + max((len(p) for p in parts.values()), default=0)):
        groups: dict[str, list[_Submission]] = collections.defaultdict(list)
        for submission in submissions:
            groups[label(submission)].append(submission)
        clashes = [same for same in groups.values() if len(same) > 1]
        if not clashes:
            break
        for same in clashes:
            for submission in same:
                depth[id(submission)] += 1
    shown: dict[str, list[_Submission]] = collections.defaultdict(list)
    for submission in submissions:
        submission.student = label(submission)
        shown[submission.student].append(submission)
    # paths that differ only in how their letters are encoded: look-alikes a person must tell apart
    for same in (group for group in shown.values() if len(group) > 1):
        for number, submission in enumerate(same, start=1):
            depth[id(submission)] = 0  # no end of the paths tells them apart: the name, numbered
            submission.student = label(submission)
            submission.notes.append(f"review: look-alike name: {len(same)} submissions are named {submission.student!r} "
                                    "in different Unicode spellings (NFC/NFD); check which student this one is")
            submission.student = f"{submission.student} (look-alike {number})"


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
        return _Found(display, handle.read(MAX_NOTEBOOK_BYTES + 1), origin=("file", path))


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
                    found.append(_Found(str(relative), None, origin=("file", file)))  # read when planned
        found.sort(key=lambda f: f.display)
        if refused:
            notes.append(f"refused {', '.join(refused)}: only regular files are graded")
        if not found:
            notes.append(f"no notebook found in {path.name}/")
    elif path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                total = 0
                for position, info in sorted(enumerate(archive.infolist()), key=lambda p: p[1].filename):
                    parts = Path(info.filename).parts
                    if info.is_dir() or not info.filename.lower().endswith(".ipynb") or any(_skip_part(p) for p in parts):
                        continue
                    if stat.S_ISLNK(info.external_attr >> 16):
                        notes.append(f"refused {info.filename}: a symbolic link")
                        continue
                    total += info.file_size
                    if info.file_size > MAX_NOTEBOOK_BYTES or total > MAX_ZIP_TOTAL_BYTES:
                        found.append(_Found(info.filename, None, "file too large after unzipping",
                                            zip_time=info.date_time))
                        continue
                    with archive.open(info) as entry:  # read through (a broken entry says so here), not kept
                        while entry.read(1 << 20):
                            pass
                    found.append(_Found(info.filename, None, zip_time=info.date_time,  # read when planned
                                        origin=("zip", path, position)))
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, RuntimeError,
                NotImplementedError) as error:
            notes.append(f"{path.name} is not a readable zip file ({error})")
        else:
            if not found:
                notes.append(f"no notebook found in {path.name}")
    elif path.suffix.lower() == ".ipynb":
        found.append(_Found(path.name, None, origin=("file", path)))  # read when planned
    else:
        notes.append(f"{path.name} is not a folder, a .zip or a .ipynb file")
    return found, notes


def _utf16(data: bytes) -> str:
    """'utf-16' (with a byte order mark), 'utf-16-le' or 'utf-16-be' when `data` looks like UTF-16 text, else ''.

    A notebook starts with "{": in UTF-16 without a mark one of its first two bytes is 0."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    if len(data) >= 4 and data[1:2] == b"\x00" and data[3:4] == b"\x00" and data[:1] != b"\x00":
        return "utf-16-le"
    if len(data) >= 4 and data[:1] == b"\x00" and data[2:3] == b"\x00" and data[1:2] != b"\x00":
        return "utf-16-be"
    return ""


def read_submission_notebook(data: bytes) -> tuple[nbformat.NotebookNode | None, str, list[str]]:
    """Parse a submitted notebook leniently: ``(notebook or None, error, notes)``.

    Invalid JSON, a truncated file and unsupported nbformat versions give an
    error; bytes that are not UTF-8 are replaced (noted) and nbformat 3 is
    converted (noted), because the code inside is usually fine.
    """
    notes: list[str] = []
    utf16 = _utf16(data)
    if utf16:
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError as error:
            return None, (f"file is UTF-16 ({utf16}) but not valid UTF-16 (bad bytes at offset {error.start}); "
                          "save the notebook again from Jupyter, which writes UTF-8"), notes
        notes.append(f"file is UTF-16 ({utf16}), not UTF-8 as Jupyter writes notebooks; read as UTF-16")
        data = b""
    try:
        text = text if utf16 else data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="replace")
        notes.append(f"file is not valid UTF-8 (first bad byte at offset {error.start}); bad bytes replaced by U+FFFD")
    if not text.strip():
        return None, "file is empty; ask for a fresh download", notes
    if len(text) > MAX_NOTEBOOK_CHARS:
        return None, (f"the file holds {len(text):,} characters, more than the grader reads "
                      f"({MAX_NOTEBOOK_CHARS:,}); clear its outputs (Restart Kernel and Clear All Outputs) and save "
                      "it again"), notes
    values = json_values(text)
    if values > MAX_JSON_VALUES:
        return None, (f"the file holds some {values:,} JSON values, more than the grader reads ({MAX_JSON_VALUES:,}); "
                      "clear its outputs (Restart Kernel and Clear All Outputs) and save it again"), notes
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
    if not isinstance(raw.get("metadata", {}), dict):
        notes.append(f"the notebook's metadata is {type(raw['metadata']).__name__}, not an object: read as empty")
        raw["metadata"] = {}
    # before any conversion or copy: metadata the grader does not read is no cost of the student's to multiply
    raw["metadata"] = small_metadata(raw.get("metadata", {}), keep=("memlib", "kernelspec", "language_info"))
    for cell in raw.get("cells", []) if isinstance(raw.get("cells"), list) else []:
        if isinstance(cell, dict) and "metadata" in cell:
            cell["metadata"] = small_metadata(cell["metadata"], keep=("tags", "memlib", "nbgrader"))
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


# --------------------------------------------------------------------------- planning the jobs


@dataclass
class _Job:
    """One student x one assignment: the notebook to grade, or why it cannot be run."""

    student: str
    assignment: Assignment
    chosen: _Found | None
    readable: bool = False  # the chosen notebook parsed when the job was planned
    error: str = ""
    notes: list[str] = field(default_factory=list)
    status_if_not_run: str = ""
    support: list[Path] | None = None  # an older release's files, when it is graded against one
    lateness: Lateness | None = None  # against the assignment's due date, when it has one

    def notebook(self) -> nbformat.NotebookNode | None:
        """The notebook to grade, read and parsed again (None when there is none): a class's planned notebooks
        are not all held at once, and a parsed one can take four times its file (an emoji is 4 bytes)."""
        data = self.chosen.read() if self.readable and self.chosen is not None else None
        return read_submission_notebook(data)[0] if data is not None else None


def _flag_late(found: list[_Found], path: Path) -> None:
    """Canvas marks a late submission in its download name; every notebook of that file or zip carries it.

    The names inside a zip are the student's own, not Canvas's: only the zip's name says late (a file in
    it named like a download must neither hide nor invent Canvas's mark)."""
    outer = export.parse_download_name(path.name)
    for item in found:
        named = (None if item.zip_time is not None else export.parse_download_name(Path(item.display).name)) or outer
        item.lms_late = named is not None and named.late


def _plan(submission: _Submission, assignments: list[Assignment]) -> list[_Job]:
    found, notes = _collect(submission)
    notes = list(submission.notes) + notes
    _flag_late(found, submission.path)
    for path in submission.also:
        more, more_notes = _collect(_Submission(submission.student, path))
        _flag_late(more, path)
        found, notes = found + more, notes + more_notes
    for item in found:  # "lovelaceada_12345_67890_03_topic.ipynb" was handed in as "03_topic.ipynb"
        item.display = export.original_name(item.display)
    parsed = []
    unmatched: list[str] = []
    for item in found:  # one at a time: read, parsed, identified, let go (read again when its job runs)
        data = item.read() if not item.error else None
        nb, error, read_notes = (None, item.error, []) if data is None else read_submission_notebook(data)
        del data
        assignment, how = _identify(nb, item.display, assignments)
        if assignment is None:
            unmatched.append(f"{item.display} ({how})")
            continue
        parsed.append((assignment, item, nb is not None, error, read_notes, how))
        del nb
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
        _, item, readable, error, read_notes, how = chosen
        job_notes += read_notes
        if Path(item.display).name != assignment.name and not any("graded " in n for n in job_notes):
            job_notes.append(f"graded {item.display} as {assignment.name} ({how})")
        if not readable:
            jobs.append(_Job(submission.student, assignment, item, error=f"{item.display}: {error}",
                             notes=job_notes, status_if_not_run=ERROR))
        else:
            jobs.append(_Job(submission.student, assignment, item, readable=True, notes=job_notes))
    return jobs
