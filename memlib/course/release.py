"""Release student notebooks from the solution notebooks, deterministically.

Conventions for notebook authors (solutions/ is the source of truth):

* Solution notebooks live in ``solutions/NN_topic.ipynb``; the release writes
  ``notebooks/NN_topic.ipynb`` (``python -m memlib release solutions/ notebooks/``).
* Exercise cells: the answer sits between a ``### BEGIN SOLUTION`` line and a
  ``### END SOLUTION`` line (any indentation, nothing else on those lines).
  Somewhere above the region, in the same cell, a line
  ``### EXERCISE N: <what to do>`` says what the student must do (N is a
  number, optionally with a small letter, or one capital letter). The release
  keeps that line (students read it as a comment) and replaces the region by a
  stub at the region's indentation::

      # Your code here: replace the next line.
      raise NotImplementedError("Exercise N: <what to do>")

  so the cell still parses and fails with guidance where it is used. Students
  read the notebook in a laptop-size JupyterLab, so the release wraps what it
  writes at `LINE_LIMIT` characters: a long ``### EXERCISE`` line goes on in
  ``###`` lines indented under its text (authors may write these too), and a
  long message becomes a parenthesised concatenation of string literals (the
  same text). An
  exercise should *define* something (a function, a class): a region at the
  top level of a cell raises when the cell runs and is reported as a warning.
  In a markdown cell a region becomes ``*Your answer here.*``. A released
  exercise cell carries ``{"memlib": {"exercise": "N"}}`` (its exercise
  numbers), which nbgrader's metadata (its solution cells) is written from.
* Cells tagged ``solution-only`` are dropped.
* Graded cells are tagged ``graded`` and carry the metadata
  ``{"memlib": {"grade_id": "<id>", "points": <number>}}``. They must import
  their check inside the cell (``from memlib.course.checks import check_x``)
  so a student who redefines ``check_x`` earlier does not fool the grader.
  The release keeps them verbatim and adds ``memlib.checksum``
  (``sha256:<hex>`` of the cell source) so tampering can be detected.
  grade_ids are unique across the whole course.
* Every code cell loses its outputs and execution count; volatile metadata
  (execution timings, saved widget state) is removed; the notebook gets
  ``{"memlib": {"assignment": "NN_topic", "version": ..., "content_hash": ...}}``:
  the assignment lets the grader recognise it under any file name, memlib's
  version and the hash of its graded cells say which release it is
  (`memlib.course.versions`).
* The first cell tagged ``colab-setup`` is stamped with the standard Colab
  install cell (it installs memlib only inside
  ``if "google.colab" in sys.modules``, tagged ``nbval-skip``; it also calls
  `memlib.course.checking.keep_going_after_failures`, so Run All in a
  student's front end continues past a failed graded cell while nbval, the
  grader and every other program that runs notebooks still fail it: see
  `memlib.course.checking`), and a markdown
  cell tagged ``colab-badge`` with the "Open in Colab" badge is stamped (or
  inserted just before it). Repository slug and branch come from
  `memlib.course.config`, the only place they are written down. The command
  line (`main`) stamps the same two cells into the solution notebooks too
  (`stamp_solutions`), each badge pointing at its own file.
* Every released notebook also carries nbgrader's cell metadata (schema 3)
  next to memlib's, so nbgrader can grade it as it is (README, "Grading with
  nbgrader or otter"): a graded cell is an autograder test
  (``grade: true``, its points, ``locked: true``), an exercise code cell an
  autograded answer (``solution: true``, editable), the setup cell read-only
  (``locked: true``: nbgrader restores it when it grades). nbgrader's
  grade_ids are memlib's with characters nbgrader refuses replaced by ``_``
  (``exercise-N`` for an exercise cell). Markdown answers get none unless
  they are written answers (below): nbgrader grades markdown only by hand. nbgrader metadata already in a
  solution notebook is replaced.
* Written answers, graded by a person: a markdown cell tagged ``written``
  with ``{"memlib": {"written": "<grade id>", "points": <number>}}`` and its
  model answer in a solution region (`memlib.course.written`). Its nbgrader
  metadata makes it a manually graded answer (``solution: true, grade: true``,
  its points), so nbgrader's formgrader shows it too.
* Output is stable JSON (sorted keys, one-space indent, trailing newline,
  deterministic cell ids), so `check_release_current` can compare
  ``notebooks/`` with a fresh release byte for byte.

This module does not execute notebooks (nbval does, in the test suite) and
does not grade (see `memlib.course.grade`).
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import json
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from memlib._util import is_number
from memlib.course import config, versions
from memlib.course.exercise import EXERCISE_NAME
from memlib.course.written import validate_written, written_meta

__all__ = [
    "ReleaseError",
    "ReleaseWarning",
    "GradedCell",
    "release",
    "release_notebook",
    "render_notebook",
    "check_release_current",
    "check_solutions_stamped",
    "stamp_solutions",
    "graded_cells",
    "source_checksum",
    "stub_source",
    "exercise_texts",
    "parser",
    "main",
]

BEGIN_RE = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION[ \t]*$")
END_RE = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")
EXERCISE_RE = re.compile(rf"^[ \t]*### EXERCISE (?P<number>{EXERCISE_NAME}):[ \t]*(?P<what>\S.*?)[ \t]*$")
#: A wrapped ``### EXERCISE`` line goes on in lines of ``###``, two or more blanks, then text.
EXERCISE_MORE_RE = re.compile(r"^[ \t]*###[ \t]{2,}(?P<more>\S.*?)[ \t]*$")
#: The longest line the release writes (a laptop-size JupyterLab shows about this many characters).
LINE_LIMIT = 88
GRADE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

TAG_GRADED = "graded"
TAG_SOLUTION_ONLY = "solution-only"
TAG_COLAB_SETUP = "colab-setup"
TAG_COLAB_BADGE = "colab-badge"
TAG_NBVAL_SKIP = "nbval-skip"

#: nbgrader's cell metadata schema the release writes, and the characters its grade_ids allow.
NBGRADER_SCHEMA_VERSION = 3
NBGRADER_ID_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]")

MARKDOWN_STUB = "*Your answer here.*"
#: Cell metadata keys that change on every run and would make the release non-deterministic.
VOLATILE_CELL_METADATA = ("execution", "ExecuteTime")
VOLATILE_NOTEBOOK_METADATA = ("widgets",)


class ReleaseError(ValueError):
    """A solution notebook breaks the release conventions (the message says where and how to fix it)."""


class ReleaseWarning(UserWarning):
    """A solution notebook is releasable but probably not what its author meant."""


@dataclass(frozen=True)
class GradedCell:
    """A graded cell as the grader sees it: where it is and what it is worth."""

    grade_id: str
    points: float
    source: str
    checksum: str
    index: int  # position among all cells of the released notebook
    cell: dict = field(repr=False, compare=False, hash=False, default_factory=dict)

    def __repr__(self) -> str:
        return f"GradedCell(grade_id={self.grade_id!r}, points={self.points:g}, index={self.index})"


def source_checksum(source: str) -> str:
    """``sha256:<hex>`` of a cell source, line endings normalised."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _where(name: str, index: int, source: str) -> str:
    first = source.strip().splitlines()[0][:60] if source.strip() else "<empty>"
    return f"{name}, cell {index + 1} ({first!r})"


def _pieces(text: str) -> list[str]:
    """`text` cut after each run of blanks: the pieces join back to exactly `text`."""
    return re.findall(r"\S+\s*|\s+", text)


def _pack(pieces: list[str], room: int) -> list[str]:
    """Consecutive pieces joined into lines of at most `room` characters (a longer piece stays whole)."""
    lines: list[str] = []
    for piece in pieces:
        if lines and len(lines[-1]) + len(piece.rstrip()) <= room:
            lines[-1] += piece
        else:
            lines.append(piece)
    return lines


def _exercise_comment_lines(line: str, marker: re.Match[str]) -> list[str]:
    """An ``### EXERCISE`` line (`marker` is its match), wrapped at `LINE_LIMIT` with its text going on under itself."""
    if len(line) <= LINE_LIMIT:
        return [line]
    head = line[:marker.start("what")]
    body = _pack(_pieces(marker.group("what")), LINE_LIMIT - len(head))
    indent = head[:len(head) - len(head.lstrip())]
    more = indent + "###" + " " * (len(head) - len(indent) - 3)
    return [head + body[0].rstrip()] + [more + part.rstrip() for part in body[1:]]


def _raise_lines(indent: str, message: str) -> list[str]:
    """``raise NotImplementedError(message)``, as string literals of at most `LINE_LIMIT` characters a line."""
    one_line = f"{indent}raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"
    if len(one_line) <= LINE_LIMIT:
        return [one_line]
    inner = indent + ("\t" if "\t" in indent else "    ")
    room = LINE_LIMIT - len(inner) - 2  # the two quotes
    # pack by the literal's length (an escaped quote or backslash takes two characters); each
    # literal keeps its trailing blank so the pieces join back to the message
    literals, current = [], ""
    for piece in _pieces(message):
        if current and len(json.dumps(current + piece, ensure_ascii=False)) - 2 > room:
            literals.append(current)
            current = ""
        current += piece
    literals.append(current)
    return ([f"{indent}raise NotImplementedError("]
            + [inner + json.dumps(part, ensure_ascii=False) for part in literals]
            + [f"{indent})"])


def exercise_texts(source: str) -> list[tuple[str, str]]:
    """(number, what to do) of each ``### EXERCISE`` line of a cell, its wrapped lines joined back.

    Example:
        >>> exercise_texts("### EXERCISE 2: sort the scores and\\n###             keep the top k\\nx = 1")
        [('2', 'sort the scores and keep the top k')]
    """
    found: list[list[str]] = []
    previous_was_exercise = False
    for line in source.splitlines():
        marker = EXERCISE_RE.match(line)
        more = EXERCISE_MORE_RE.match(line) if previous_was_exercise else None
        if marker:
            found.append([marker.group("number"), marker.group("what")])
        elif more:
            found[-1][1] += " " + more.group("more")
        previous_was_exercise = bool(marker or more)
    return [(number, what) for number, what in found]


def stub_source(source: str, *, cell_type: str = "code", where: str = "cell") -> tuple[str, list[str]]:
    """Replace every solution region of one cell's source by its stub.

    Returns the new source and a list of warnings. Raises `ReleaseError` for
    unbalanced markers or a code region without an ``### EXERCISE N:`` line.

    Example:
        >>> stub_source("def f():\\n    ### EXERCISE 1: return 1\\n    ### BEGIN SOLUTION\\n"
        ...             "    return 1\\n    ### END SOLUTION\\n")[0].splitlines()[-1]
        '    raise NotImplementedError("Exercise 1: return 1")'
    """
    out: list[str] = []
    notes: list[str] = []
    exercise: str | None = None
    inside_indent: str | None = None
    begin_line = 0
    previous_was_exercise = False
    for number, line in enumerate(source.splitlines(), start=1):
        marker = EXERCISE_RE.match(line)
        more = EXERCISE_MORE_RE.match(line) if previous_was_exercise and inside_indent is None else None
        previous_was_exercise = bool(marker or more)
        if more and exercise is not None:
            exercise += " " + more.group("more")
            out.append(line)
            continue
        if inside_indent is None:
            begin = BEGIN_RE.match(line)
            if begin:
                inside_indent = begin.group("indent")
                begin_line = number
                if cell_type == "markdown":
                    out.append(inside_indent + MARKDOWN_STUB)
                    continue
                if exercise is None:
                    raise ReleaseError(
                        f"{where}, line {number}: solution region has no '### EXERCISE N: <what to do>' "
                        "line above it in the same cell; add one so the stub can tell students what to do"
                    )
                if inside_indent == "":
                    notes.append(
                        f"{where}, line {number}: solution region at the top level of the cell; the stub "
                        "will raise as soon as the cell runs. Prefer an exercise that defines a function or class."
                    )
                out.append(f"{inside_indent}# Your code here: replace the next line.")
                out.extend(_raise_lines(inside_indent, exercise))
                continue
            if END_RE.match(line):
                raise ReleaseError(f"{where}, line {number}: '### END SOLUTION' without a matching '### BEGIN SOLUTION'")
            if marker:
                exercise = f"Exercise {marker.group('number')}: {marker.group('what')}"
                out.extend(_exercise_comment_lines(line, marker))
                continue
            out.append(line)
        else:
            if BEGIN_RE.match(line):
                raise ReleaseError(
                    f"{where}, line {number}: '### BEGIN SOLUTION' inside the region opened at line {begin_line}; "
                    "close the first region with '### END SOLUTION' before opening another"
                )
            if END_RE.match(line):
                inside_indent = None
            # lines inside the region are dropped: they are the solution
    if inside_indent is not None:
        raise ReleaseError(f"{where}, line {begin_line}: '### BEGIN SOLUTION' is never closed by '### END SOLUTION'")
    text = "\n".join(out)
    if source.endswith("\n") and out:
        text += "\n"
    return text, notes


def _tags(cell: dict) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return list(tags) if isinstance(tags, list) else []


def _grade_meta(cell: dict) -> dict | None:
    meta = cell.get("metadata", {}).get("memlib")
    if isinstance(meta, dict) and "grade_id" in meta:
        return meta
    return None


def _validate_graded(cell: dict, where: str) -> None:
    tags = _tags(cell)
    meta = _grade_meta(cell)
    if TAG_GRADED in tags and meta is None:
        raise ReleaseError(
            f'{where}: tagged {TAG_GRADED!r} but has no metadata {{"memlib": {{"grade_id": ..., "points": ...}}}}'
        )
    if meta is None:
        return
    if TAG_GRADED not in tags:
        raise ReleaseError(f"{where}: has memlib.grade_id metadata but is not tagged {TAG_GRADED!r}; add the tag")
    if cell.get("cell_type") != "code":
        raise ReleaseError(f"{where}: a graded cell must be a code cell")
    grade_id = meta.get("grade_id")
    if not isinstance(grade_id, str) or not GRADE_ID_RE.match(grade_id):
        raise ReleaseError(f"{where}: grade_id {grade_id!r} must be a non-empty string of letters, digits, '_', '.', '-'")
    points = meta.get("points")
    if not is_number(points) or not points > 0:
        raise ReleaseError(f"{where}: points {points!r} for {grade_id!r} must be a positive number")
    if TAG_SOLUTION_ONLY in tags or TAG_NBVAL_SKIP in tags:
        raise ReleaseError(f"{where}: a graded cell cannot be tagged {TAG_SOLUTION_ONLY!r} or {TAG_NBVAL_SKIP!r}")
    source = cell.get("source", "")
    if any(BEGIN_RE.match(line) for line in source.splitlines()):
        raise ReleaseError(f"{where}: a graded cell cannot contain a solution region; put the exercise in its own cell")
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise ReleaseError(f"{where}: graded cell does not parse as Python: {error}") from None
    if not any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in tree.body):
        raise ReleaseError(
            f"{where}: graded cell {grade_id!r} must import its check inside the cell "
            "(e.g. `from memlib.course.checks import check_x`), so a student's own `check_x` cannot replace it"
        )


def colab_setup_source() -> str:
    """The standard first code cell: installs memlib on Colab only, and lets Run All pass a failed check.

    The cell is tagged ``nbval-skip`` (nbval and the grader do not run it).
    Where it runs, it lets a failed check keep going only in cells a
    student's front end runs; under nbgrader, papermill or ``nbconvert
    --execute`` a failed check still fails. See `memlib.course.checking`.
    """
    return (
        "# Colab only: install memlib (locally and on Binder it is already installed).\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        "    import subprocess\n"
        "\n"
        "    subprocess.run(\n"
        f'        [sys.executable, "-m", "pip", "install", "--quiet", {json.dumps(config.pip_requirement())}],\n'
        "        check=True,\n"
        "    )\n"
        "\n"
        "# Run All keeps going past an unsolved exercise: its graded cell shows what is wrong\n"
        "# and the cells below still run. (nbval and the grader skip this cell: there it fails.)\n"
        "from memlib.course.checking import keep_going_after_failures\n"
        "\n"
        "keep_going_after_failures()"
    )


def colab_badge_source(notebook_path: str) -> str:
    """Markdown for the "Open in Colab" badge of the notebook at `notebook_path` (repository-relative)."""
    return (
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        f"({config.colab_url(notebook_path)})"
    )


def _stamp_colab(cells: list[dict], notebook_path: str) -> None:
    setup_at = next(
        (i for i, c in enumerate(cells) if c.get("cell_type") == "code" and TAG_COLAB_SETUP in _tags(c)), None
    )
    if setup_at is None:
        return
    setup = cells[setup_at]
    setup["source"] = colab_setup_source()
    tags = _tags(setup)
    if TAG_NBVAL_SKIP not in tags:
        tags.append(TAG_NBVAL_SKIP)
    setup.setdefault("metadata", {})["tags"] = tags
    badge_source = colab_badge_source(notebook_path)
    badge = next((c for c in cells if TAG_COLAB_BADGE in _tags(c)), None)
    if badge is not None:
        badge["cell_type"] = "markdown"
        badge["source"] = badge_source
        badge.pop("outputs", None)
        badge.pop("execution_count", None)
    else:
        cells.insert(
            setup_at,
            {
                "cell_type": "markdown",
                "id": "colab-badge",
                "metadata": {"tags": [TAG_COLAB_BADGE]},
                "source": badge_source,
            },
        )


def _nbgrader_cells(cells: list[dict]) -> None:
    """Write nbgrader's metadata on the graded, exercise and setup cells; drop it everywhere else."""
    used: set[str] = set()

    def unique(grade_id: str) -> str:
        grade_id = NBGRADER_ID_UNSAFE_RE.sub("_", grade_id)
        candidate, n = grade_id, 1
        while candidate in used:
            n += 1
            candidate = f"{grade_id}-{n}"
        used.add(candidate)
        return candidate

    for cell in cells:
        metadata = cell.setdefault("metadata", {})
        metadata.pop("nbgrader", None)
        memlib_meta = metadata.get("memlib", {})
        if _grade_meta(cell) is not None and TAG_GRADED in _tags(cell):
            role = {"grade": True, "grade_id": unique(str(memlib_meta["grade_id"])), "locked": True,
                    "points": memlib_meta["points"], "solution": False}
        elif cell.get("cell_type") == "code" and isinstance(memlib_meta, dict) and memlib_meta.get("exercise"):
            role = {"grade": False, "grade_id": unique(f"exercise-{memlib_meta['exercise']}"), "locked": False,
                    "solution": True}
        elif cell.get("cell_type") == "markdown" and (answer := written_meta(cell)) is not None:
            role = {"grade": True, "grade_id": unique(str(answer["written"])), "locked": False,
                    "points": answer["points"], "solution": True}
        elif cell.get("cell_type") == "code" and TAG_COLAB_SETUP in _tags(cell):
            role = {"grade": False, "grade_id": unique(TAG_COLAB_SETUP), "locked": True, "solution": False}
        else:
            continue
        metadata["nbgrader"] = {**role, "schema_version": NBGRADER_SCHEMA_VERSION}


def _assign_ids(cells: list[dict], stem: str) -> None:
    # nbformat would invent random ids for cells without one; derive them
    # instead so two releases of the same solution are byte-identical.
    seen: set[str] = set()
    for index, cell in enumerate(cells):
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not re.match(r"^[a-zA-Z0-9_-]{1,64}$", cell_id) or cell_id in seen:
            cell_id = hashlib.sha1(f"{stem}:{index}".encode()).hexdigest()[:12]
            while cell_id in seen:
                cell_id = hashlib.sha1(cell_id.encode()).hexdigest()[:12]
        cell["id"] = cell_id
        seen.add(cell_id)


def release_notebook(
    solution: dict, name: str, *, notebooks_dir: str = config.NOTEBOOKS_DIR, warn: bool = True
) -> nbformat.NotebookNode:
    """The student version of one solution notebook (a new object; `solution` is not changed).

    `name` is the file name (``NN_topic.ipynb``); it names the assignment and
    the Colab badge target ``<notebooks_dir>/<name>``.
    """
    nb = copy.deepcopy(dict(solution))
    if nb.get("nbformat") != 4:
        raise ReleaseError(f"{name}: nbformat {nb.get('nbformat')} is not supported; save it with Jupyter (nbformat 4)")
    stem = Path(name).stem
    cells: list[dict] = []
    for index, original in enumerate(nb.get("cells", [])):
        cell = dict(copy.deepcopy(original))
        where = _where(name, index, cell.get("source", ""))
        tags = _tags(cell)
        if TAG_SOLUTION_ONLY in tags:
            continue
        _validate_graded(cell, where)
        validate_written(cell, where, ReleaseError)
        metadata = dict(cell.get("metadata", {}))
        for key in VOLATILE_CELL_METADATA:
            metadata.pop(key, None)
        cell["metadata"] = metadata
        if cell.get("cell_type") in ("code", "markdown"):
            source = cell.get("source", "")
            new_source, notes = stub_source(source, cell_type=cell["cell_type"], where=where)
            if new_source != source and cell["cell_type"] == "code":
                _assert_stub_parses(source, new_source, where)
                # names the exercise cell (nbgrader marks it a solution cell; Jupyter keeps cell metadata)
                numbers = [m.group("number") for m in map(EXERCISE_RE.match, source.splitlines()) if m]
                metadata["memlib"] = {**metadata.get("memlib", {}), "exercise": ",".join(numbers)}
            if warn:
                for note in notes:
                    warnings.warn(note, ReleaseWarning, stacklevel=2)
            cell["source"] = new_source
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        meta = _grade_meta(cell)
        if meta is not None:
            meta = dict(meta)
            meta["checksum"] = source_checksum(cell["source"])
            metadata["memlib"] = meta
        cells.append(cell)
    _stamp_colab(cells, f"{notebooks_dir}/{name}")
    _nbgrader_cells(cells)
    _assign_ids(cells, stem)
    nb["cells"] = cells
    metadata = dict(nb.get("metadata", {}))
    for key in VOLATILE_NOTEBOOK_METADATA:
        metadata.pop(key, None)
    memlib_meta = dict(metadata.get("memlib", {}))
    memlib_meta["assignment"] = stem
    metadata["memlib"] = versions.stamp_metadata(memlib_meta, cells)
    nb["metadata"] = metadata
    nb["nbformat_minor"] = max(int(nb.get("nbformat_minor", 5)), 5)  # cell ids need 4.5
    return nbformat.from_dict(nb)


def _assert_stub_parses(original: str, stubbed: str, where: str) -> None:
    try:
        compile(original, where, "exec")
    except SyntaxError:
        return  # IPython magics or a draft: nothing to compare against
    try:
        compile(stubbed, where, "exec")
    except SyntaxError as error:
        raise ReleaseError(
            f"{where}: the stubbed cell does not parse ({error.msg}, line {error.lineno}); "
            "put '### BEGIN SOLUTION' / '### END SOLUTION' around whole statements"
        ) from None


def render_notebook(nb: dict) -> str:
    """Stable JSON text of a notebook: sorted keys, one-space indent, trailing newline.

    A Python notebook gets the kernel metadata JupyterLab would write when its
    kernel starts (ipykernel's display name, the kernel's ``language_info`` for
    `config.KERNEL_PYTHON`): JupyterLab rewrites exactly these on open and
    marks the notebook modified when they differ. Everything else in the file
    (key order, indent, ids, nbformat_minor, line lists) is already as it saves them.
    """
    node = nbformat.from_dict(copy.deepcopy(dict(nb)))
    metadata = node.setdefault("metadata", nbformat.NotebookNode())
    if metadata.get("kernelspec", {}).get("name", "python3") == "python3":
        metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
        metadata["language_info"] = {
            "codemirror_mode": {"name": "ipython", "version": 3},
            "file_extension": ".py",
            "mimetype": "text/x-python",
            "name": "python",
            "nbconvert_exporter": "python",
            "pygments_lexer": "ipython3",
            "version": config.KERNEL_PYTHON,
        }
    nbformat.validate(node)
    # nbformat stores multi-line strings as lists of lines; do the same so the
    # files diff nicely and match what Jupyter would save.
    text = nbformat.writes(node, version=4)
    return text if text.endswith("\n") else text + "\n"


def _solution_files(src_dir: Path) -> list[Path]:
    if not src_dir.is_dir():
        raise ReleaseError(f"solutions folder {str(src_dir)!r} does not exist")
    return sorted(p for p in src_dir.glob("*.ipynb") if p.is_file())


def _read_solution(path: Path) -> dict:
    try:
        return nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    except Exception as error:  # nbformat raises several types for broken JSON
        raise ReleaseError(f"{path}: cannot read the notebook ({error}); fix the file in Jupyter") from None


def _render_all(src_dir: Path, notebooks_dir: str) -> dict[str, str]:
    rendered: dict[str, str] = {}
    owners: dict[str, str] = {}
    for path in _solution_files(src_dir):
        nb = release_notebook(_read_solution(path), path.name, notebooks_dir=notebooks_dir)
        for graded in graded_cells(nb):
            if graded.grade_id in owners:
                raise ReleaseError(
                    f"grade_id {graded.grade_id!r} is used in {owners[graded.grade_id]} and {path.name}; "
                    "grade_ids must be unique across the course"
                )
            owners[graded.grade_id] = path.name
        rendered[path.name] = render_notebook(nb)
    return rendered


def release(src_dir: str | Path, dst_dir: str | Path, *, notebooks_dir: str = config.NOTEBOOKS_DIR) -> list[Path]:
    """Write the student version of every ``src_dir/*.ipynb`` into `dst_dir`.

    Files whose content is already current are left untouched; released
    notebooks in `dst_dir` whose solution no longer exists are removed (only
    files carrying the release's ``memlib.assignment`` metadata). Returns the
    paths written. Raises `ReleaseError` before writing anything if any
    solution breaks the conventions.
    """
    src, dst = Path(src_dir), Path(dst_dir)
    rendered = _render_all(src, notebooks_dir)
    dst.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in rendered.items():
        target = dst / name
        data = text.encode("utf-8")
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
            written.append(target)
    for stale in sorted(dst.glob("*.ipynb")):
        if stale.name not in rendered and _is_released(stale):
            stale.unlink()
    return written


def _stamped_solution(path: Path) -> str | None:
    """`path`'s text with its Colab badge and setup cell stamped; None when already current."""
    original = path.read_text(encoding="utf-8")
    nb = nbformat.reads(original, as_version=4)
    _stamp_colab(nb.cells, f"{path.parent.name}/{path.name}")
    text = nbformat.writes(nbformat.from_dict(nb))  # an inserted badge cell is a plain dict
    text = text if text.endswith("\n") else text + "\n"
    return None if text == original else text


def stamp_solutions(src_dir: str | Path) -> list[Path]:
    """Stamp the Colab badge and setup cell into the solution notebooks themselves.

    Solution notebooks open in Colab too (instructors, or a student after the
    deadline), so they carry the same cells, pointing at their own path. Only
    those two cells change; everything else in the file is left as it is.
    """
    written = []
    for path in _solution_files(Path(src_dir)):
        text = _stamped_solution(path)
        if text is not None:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def check_solutions_stamped(src_dir: str | Path) -> list[str]:
    """Solution notebooks whose Colab cells are not current (empty when all are)."""
    return [f"{path} has an out-of-date Colab badge or setup cell; run `python -m memlib release`"
            for path in _solution_files(Path(src_dir)) if _stamped_solution(path) is not None]


def _is_released(path: Path) -> bool:
    try:
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(meta.get("memlib"), dict) and "assignment" in meta["memlib"]


def check_release_current(
    src_dir: str | Path, dst_dir: str | Path, *, notebooks_dir: str = config.NOTEBOOKS_DIR
) -> list[str]:
    """Differences between `dst_dir` and a fresh release of `src_dir` (empty when current)."""
    src, dst = Path(src_dir), Path(dst_dir)
    rendered = _render_all(src, notebooks_dir)
    problems: list[str] = []
    for name, text in rendered.items():
        target = dst / name
        if not target.exists():
            problems.append(f"{target} is missing; run `python -m memlib release {src} {dst}`")
            continue
        current = target.read_bytes().decode("utf-8", errors="replace")
        if current != text:
            line = next(
                (n for n, (a, b) in enumerate(zip(current.splitlines(), text.splitlines()), 1) if a != b),
                min(len(current.splitlines()), len(text.splitlines())) + 1,
            )
            problems.append(
                f"{target} differs from a fresh release (first difference at line {line}); "
                f"edit {src / name} instead and run `python -m memlib release {src} {dst}`"
            )
    for extra in sorted(dst.glob("*.ipynb")):
        if extra.name not in rendered:
            problems.append(f"{extra} has no solution {src / extra.name}; delete it or add the solution")
    return problems


def graded_cells(nb: dict) -> list[GradedCell]:
    """The graded cells of a (released) notebook, in notebook order."""
    found = []
    for index, cell in enumerate(nb.get("cells", [])):
        meta = _grade_meta(cell)
        if meta is None or TAG_GRADED not in _tags(cell):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        found.append(
            GradedCell(
                grade_id=str(meta["grade_id"]),
                points=float(meta.get("points", 0)),
                source=source,
                checksum=str(meta.get("checksum", "")),
                index=index,
                cell=cell,
            )
        )
    return found


def parser() -> argparse.ArgumentParser:
    """The command line of `main` (`memlib.course.release_all` reads the same)."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib release",
        description="Write student notebooks from the solution notebooks (see memlib.course.release).",
    )
    parser.add_argument("solutions", type=Path, help="folder of solution notebooks (solutions/)")
    parser.add_argument("notebooks", type=Path, help="folder to write the student notebooks into (notebooks/)")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if NOTEBOOKS differs from a fresh release"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib.course.release SOLUTIONS NOTEBOOKS [--check]``: the English notebooks only.

    ``python -m memlib release`` runs `memlib.course.release_all`, which releases the translations too.
    """
    args = parser().parse_args(argv)
    try:
        if args.check:
            problems = check_solutions_stamped(args.solutions) + check_release_current(args.solutions, args.notebooks)
            for problem in problems:
                print(problem)
            if not problems:
                print(f"{args.notebooks} is current with {args.solutions}, whose Colab cells are stamped")
            return 1 if problems else 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ReleaseWarning)
            written = stamp_solutions(args.solutions) + release(args.solutions, args.notebooks)
        for warning in caught:
            print(f"warning: {warning.message}", file=sys.stderr)
    except ReleaseError as error:
        print(f"release failed: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print(f"{len(written)} notebook(s) written, the others were already current")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
