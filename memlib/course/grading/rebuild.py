"""Rebuilding: the notebook the grader runs, made from the student's copy.

Outputs dropped, every copy of a graded cell removed, the release's graded
cells put back in place, and the grader's first cell that caps printed
output. A graded cell goes back where the student's notebook has it (when its
copy is there once and unedited: the notebook's own Restart & Run All order,
so an answer written only in a cell below its check is not seen by it, and
the reason says so), else just before the release cell that follows it; and,
when the student moved their answer into a cell further down (and deleted
the exercise cell, so nothing above the check defines it), just after the
first cell that defines it: an answer is found by what it defines. It works on a copy and does
not run anything or judge the student's code.
"""

from __future__ import annotations

import ast
import collections
import copy
import re

import nbformat

from memlib.course.checker import graded_call
from memlib.course.grading.inert import CELL_READ_LIMIT_CHARS
from memlib.course.grading.model import Assignment, _cell_grade_id
from memlib.course.release import TAG_GRADED, GradedCell, source_checksum
from memlib._util import parse_python


# --------------------------------------------------------------------------- restoring graded cells


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
    own: dict[str, int] = {}  # grade_id -> how many of the student's own cells came before its copy
    for original in submission.get("cells", []):
        cell = copy.deepcopy(original)  # (its metadata was cut to size when the notebook was read: collect.py)
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
                own[grade_id] = len(kept)
                if source_checksum(source) != source_checksum(release_graded[grade_id].source):
                    edited.add(grade_id)
            continue  # every claimed graded cell goes; the release's copy comes back below
        # a student cell cannot carry grading metadata
        metadata = {k: v for k, v in cell.get("metadata", {}).items() if k != "memlib"}
        if tags:
            metadata["tags"] = [t for t in tags if isinstance(t, str) and t != TAG_GRADED]
        cell["metadata"] = metadata
        kept.append(cell)

    result: list[dict] = list(kept)
    origin: list[int | None] = list(range(len(kept)))  # which of `kept` each cell of `result` is (None: graded)
    floor = 0  # graded cells stay in release order
    for graded in assignment.graded:
        usual = _position_for(graded, release_cells, result, floor)
        # The notebook's own order when the student's copy is there, once and unedited: graded as a
        # Restart & Run All of that notebook runs it (an answer written only below it is not seen).
        if seen[graded.grade_id] == 1 and graded.grade_id not in edited:
            at = own[graded.grade_id]
            place = origin.index(at) if at < len(kept) else len(result)
            usual = place if place >= floor else usual
        position = _after_definition(graded, result, usual)
        restored = copy.deepcopy(graded.cell)
        restored["outputs"] = []
        restored["execution_count"] = None
        result.insert(position, restored)
        origin.insert(position, None)
        floor = usual + 1 if position == usual else usual  # a moved check does not push the next ones down

    repairs: dict[str, list[str]] = {}
    for graded in assignment.graded:
        later = _defined_after_check(graded, result)
        if later:
            repairs.setdefault(graded.grade_id, []).append(later)
    for grade_id in release_graded:
        notes = []
        if seen[grade_id] == 0:
            notes.append("graded cell was deleted; re-inserted from the release")
        elif seen[grade_id] > 1:
            notes.append(f"graded cell was duplicated ({seen[grade_id]} copies); extra copies removed")
        if grade_id in edited:
            notes.append("graded cell was edited; restored from the release")
        if notes:
            repairs.setdefault(grade_id, []).extend(notes)

    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "memlib": {"assignment": assignment.stem},
    }
    _unique_ids(result)
    nb.cells = [nbformat.from_dict(c) for c in result]
    return nb, repairs


def _answer_names(graded: GradedCell) -> set[str]:
    """The names the graded cell's answer expression reads (``MySummarizer()`` -> {"MySummarizer"})."""
    return _answer_names_of(graded.source)


def _answer_names_of(source: str) -> set[str]:
    try:
        expression = parse_python(graded_call(source).answer, mode="eval")
    except (ValueError, SyntaxError):
        return set()
    return {node.id for node in ast.walk(expression) if isinstance(node, ast.Name)}


def _defines(cell: dict, names: set[str]) -> bool:
    """True when the code cell binds one of `names` at its top level (def, class, assignment, import)."""
    if cell.get("cell_type") != "code" or _cell_grade_id(cell):
        return False
    if len(cell.get("source", "")) > CELL_READ_LIMIT_CHARS:  # not parsed on the host (grading.inert)
        return False
    try:
        tree = parse_python(cell.get("source", ""))
    except (SyntaxError, ValueError, RecursionError, SystemError, MemoryError):  # not Python, or too deep to read
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in names:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((alias.asname or alias.name.split(".")[0]) in names for alias in node.names):
                return True
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for target in targets:
            if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(target)):
                return True
    return False


def _after_definition(graded: GradedCell, cells: list[dict], position: int) -> int:
    """`position`, unless no cell before it defines the answer and one after it does: then just after that one."""
    names = _answer_names(graded)
    if not names or any(_defines(cell, names) for cell in cells[:position]):
        return position
    later = [i for i in range(position, len(cells)) if _defines(cells[i], names)]
    return later[0] + 1 if later else position


def _defined_after_check(graded: GradedCell, cells: list[dict]) -> str:
    """The note for an answer defined again below its graded cell ('' when it is not).

    Graded in Restart & Run All order, the check sees the definition above it, as a
    student who restarts the kernel and runs all cells does; the later one is never checked.
    """
    names = _answer_names(graded)
    at = next((i for i, c in enumerate(cells) if _cell_grade_id(c) == graded.grade_id), None)
    if not names or at is None:
        return ""
    # an answer built up over several exercises (05's decider) is checked again further down: the last check counts
    checked_again = any(_cell_grade_id(c) and _cell_grade_id(c) != graded.grade_id
                        and names & _answer_names_of(str(c.get("source", ""))) for c in cells[at + 1:])
    later = [c for c in cells[at + 1:] if _defines(c, names)]
    if not later or checked_again:
        return ""
    head = next((line.strip() for line in str(later[0].get("source", "")).splitlines() if line.strip()), "")[:60]
    shown = ", ".join(f"`{n}`" for n in sorted(names))
    return (f"your answer {shown} is defined after its check (again in the cell starting {head!r}); graded in "
            "Restart & Run All order, the check sees the definition above it: move your answer up into the "
            "exercise's cell")


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

    # Where the student's copy is gone, edited or duplicated: "just before the
    # release cell that follows", after every cell the student added there.
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
del _grader_cap_output
# the kernel's side of graded calls notes the kernel's own threads now, before the notebook can start any
__import__("memlib.course.serve")"""


def _prelude_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(PRELUDE_SOURCE)
    cell.id = "grader-prelude"
    cell.metadata = {"memlib": {"grader": "prelude"}}
    return cell
