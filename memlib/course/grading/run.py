"""Running: one grading job, the rebuilt notebook run once in a new kernel.

Runs the rebuilt notebook in a new kernel (`memlib.course.kernel_run`, in the
sandbox); at each graded cell the `check` stage stands in for the cell, so a
graded cell's outcome is the checker's verdict, and every other cell's is the
kernel's reply. Nothing the kernel writes is read back. Confinement is
`memlib.course.sandbox`'s; the gradebook text is `report`'s.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from memlib.course import kernel_run
from memlib.course.checker import CheckOutcome
from memlib.course.grading.check import CheckedCell, stand_ins, submission_language
from memlib.course.grading.collect import _Job
from memlib.course.grading.model import (
    STDOUT_TAIL_CHARS,
    Assignment,
    NotebookResult,
    _cell_grade_id,
    _first_line,
    _one_line,
    _Outcome,
    _safe_filename,
    _strip_ansi,
)
from memlib.course.grading.rebuild import _prelude_cell, restore_graded_cells
from memlib.course.grading.report import _fill_rows, _quiz_row, _rows_for_all, _written_rows
from memlib.course.grading.copying import Reference, copy_flags
from memlib.course.grading.provenance import notebook_findings, review_flags
from memlib.course.grading.review import review_notes
from memlib.course.kernel_run import CellRun, NotebookRun
from memlib.course.lang import say
from memlib.course.sandbox import Sandbox
from memlib.course.status import DIED, ERROR, FAILED, JUDGED, NOT_RUN, OK, PASSED, SKIPPED, TIMEOUT


# --------------------------------------------------------------------------- reading a run back


def _heads(nb: dict) -> dict[int, str]:
    return {i: _first_line(c.get("source", "")) for i, c in enumerate(nb.get("cells", []))}


def _failure_reason(cell: CellRun, cell_timeout: float) -> tuple[str, str, str]:
    """(gradebook reason, feedback message, trimmed traceback) for a cell that failed."""
    trace = _trim_traceback([_strip_ansi(line) for line in cell.traceback])
    ename, evalue = cell.ename, _strip_ansi(cell.evalue)
    if cell.status == DIED:
        text = "the kernel died while this cell ran (os._exit, a crash or running out of memory)"
        return text, text, ""
    if cell.status == TIMEOUT:
        text = f"timed out after {cell_timeout:g} s (an infinite loop or a very slow solution?)"
        return text, text, trace
    if ename == "SystemExit":
        text = "SystemExit: the code called sys.exit() or exit()"
        return text, text, trace
    return _one_line(f"{ename}: {evalue}"), f"{ename}: {evalue}", trace


def _source_flags(nb: dict, assignment: Assignment, support_modules: set[str], settings: _Settings
                  ) -> dict[str, list[str]]:
    """Review flags read from the notebook's source (provenance, copies). Evidence for a person: a source
    the reading cannot handle (a cell nested too deep for Python's parser, ...) is named, never a grader error."""
    flags: dict[str, list[str]] = {}
    try:
        readings = [review_flags(notebook_findings(nb, assignment, support_modules)),
                    copy_flags(nb, assignment, settings.references)]
    except (RecursionError, SystemError, MemoryError, ValueError) as error:
        note = (f"review: the grader could not read this notebook's source ({type(error).__name__}); "
                "read it yourself")
        return {graded.grade_id: [note] for graded in assignment.graded}
    for reading in readings:
        for grade_id, notes in reading.items():
            flags.setdefault(grade_id, []).extend(notes)
    return flags


#: The other cells that raised an error, at most this many named in the feedback (then how many more).
OTHER_ERRORS_SHOWN = 20


def _verdict(check: CheckOutcome, language: str = "en") -> _Outcome:
    """A graded cell's outcome as the checker said it: no message is parsed, no output searched."""
    stdout = check.output[-STDOUT_TAIL_CHARS:]
    if check.status == PASSED:
        return _Outcome(PASSED, stdout=stdout, references=check.references)
    if check.status == ERROR:
        reason = f"grader error: {_one_line(check.message)}"
        return _Outcome(ERROR, reason, reason, stdout=stdout, references=check.references)
    what = _strip_ansi(check.what or check.message)
    # the gradebook gets what is wrong; the feedback file gets the hint too
    feedback = f"{what}\n{say('hint', language, hint=_strip_ansi(check.hint))}" if check.hint else what
    return _Outcome(FAILED, _one_line(what), feedback, "", stdout, check.references, check.cases)


def _outcomes(assignment: Assignment, nb: dict, run: NotebookRun, cell_timeout: float,
              timeout: float) -> tuple[dict[str, _Outcome], list[str], bool]:
    """Per grade_id outcome of `run` over `nb`, the other cells that failed, and whether the grader failed."""
    heads = _heads(nb)
    where = {_cell_grade_id(c): i for i, c in enumerate(nb.get("cells", [])) if _cell_grade_id(c)}
    grader_cells = {i for i, c in enumerate(nb.get("cells", [])) if _is_grader_cell(c)}
    finished = [c for c in run.cells if c.status not in (NOT_RUN, SKIPPED)]
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
        elif isinstance(cell, CheckedCell) and cell.check is not None and cell.check.status in JUDGED:
            outcomes[graded.grade_id] = _verdict(cell.check, submission_language(nb))
            grader_failed = grader_failed or cell.check.status == ERROR
        elif cell.status == OK:
            outcomes[graded.grade_id] = _Outcome(PASSED, stdout=cell.stdout[-STDOUT_TAIL_CHARS:])
        elif cell.status == NOT_RUN and run.notebook_timed_out:
            last = heads.get(finished[-1].index, "") if finished else ""
            after = f"; the last cell that finished starts {last!r}" if last else ""
            reason = f"not run: the notebook exceeded its time limit of {timeout:g} s before this check{after}"
            outcomes[graded.grade_id] = _Outcome(FAILED, reason, reason)
        elif cell.status == NOT_RUN:
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
    failed = [c for c in run.cells if c.failed and c.status != NOT_RUN and c.index not in graded_at | grader_cells]
    for cell in failed[:OTHER_ERRORS_SHOWN]:
        reason, _, _ = _failure_reason(cell, cell_timeout)
        others.append(f"cell starting {heads.get(cell.index, '')!r}: {reason}")
    if len(failed) > OTHER_ERRORS_SHOWN:  # 60,000 failing cells must not make a feedback file of megabytes
        others.append(say("fb_more_errors", submission_language(nb), count=len(failed) - OTHER_ERRORS_SHOWN))
    return outcomes, others, grader_failed


def _trim_traceback(lines: list[str]) -> str:
    """Keep the frames from notebook cells (the student's code) and the final error line."""
    if not lines:
        return ""
    kept = [chunk.rstrip() for chunk in lines[1:-1] if chunk.lstrip().startswith(("Cell In[", "Input In[", "<ipython-input"))]
    return "\n".join(kept + [lines[-1].rstrip()])


# --------------------------------------------------------------------------- one notebook


@dataclass
class _Settings:
    sandbox: Sandbox
    support: list[Path]
    cell_timeout: float
    timeout: float
    references: dict[str, list[Reference]] = field(default_factory=dict)  # grade_id -> the published solution
    all_or_nothing: frozenset[str] = frozenset()  # grade ids (or "all") that get no partial credit
    private_cases: Path | None = None  # the instructor's folder of private case files (only checkers read it)


def _is_grader_cell(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("memlib", {})
    return isinstance(meta, dict) and "grader" in meta


def _run(nb: nbformat.NotebookNode, folder: Path, settings: _Settings, assignment: Assignment | None = None
         ) -> NotebookRun:
    """Run `nb`; with `assignment`, its graded cells are checked by the checker (`check.stand_ins`)."""
    instead = (stand_ins(nb, assignment, settings.support, folder / "checker", settings.cell_timeout,
                         settings.private_cases)
               if assignment is not None else None)
    run = kernel_run.run_notebook(nb, settings.sandbox, folder, settings.support,
                                  cell_timeout=settings.cell_timeout, timeout=settings.timeout, instead=instead)
    # what was run, with what the grader saw, for --keep-work
    kept = copy.deepcopy(nb)
    for cell_run in run.cells:
        cell = kept.cells[cell_run.index]
        cell.outputs = [nbformat.from_dict(o) for o in cell_run.outputs]
        cell.metadata["grader_run"] = {"status": cell_run.status, "seconds": round(cell_run.seconds, 3)}
    # no indentation: nested student metadata would otherwise grow by its depth in spaces on every line
    (folder / "executed.ipynb").write_text(json.dumps(kept, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "kernel.log").write_text(run.log_tail, encoding="utf-8")
    return run


def _grade_job(job: _Job, scratch: Path, settings: _Settings) -> NotebookResult:
    started = time.monotonic()
    result = NotebookResult(job.student, job.assignment, job.chosen.display if job.chosen else "", notes=list(job.notes))
    try:
        if job.status_if_not_run:
            _rows_for_all(result, job.status_if_not_run, job.error)
            return result
        nb = job.notebook()
        assert nb is not None
        result.language = submission_language(nb)
        assignment = job.assignment
        if job.support is not None:  # graded against an older release: its files, not the current one's
            settings = dataclasses.replace(settings, support=job.support)
        prepared, repairs = restore_graded_cells(nb, assignment)
        prepared.metadata["memlib"]["language"] = result.language  # the checks speak it (check.stand_ins)
        # read from the source the grader holds, outside the kernel: what the answer is made of, in the order
        # the cells run (a check the rebuild moves below its answer's definition is read there too)
        support_modules = {p.stem for p in settings.support if p.suffix == ".py"}
        source_flags = _source_flags(prepared, assignment, support_modules, settings)
        prepared.cells.insert(0, _prelude_cell())
        folder = Path(tempfile.mkdtemp(prefix=f"{_safe_filename(job.student)[:40]}-", dir=scratch))
        run = _run(prepared, folder / "as-handed-in", settings, assignment)
        outcomes, others, failed = _outcomes(assignment, prepared, run, settings.cell_timeout, settings.timeout)
        result.other_errors = others
        notes = review_notes(assignment, repairs, outcomes)
        for grade_id, flags in source_flags.items():
            notes.setdefault(grade_id, []).extend(flags)
        _fill_rows(result, outcomes, notes, settings.all_or_nothing)
        _written_rows(result, nb)
        _quiz_row(result, nb)
        result.grader_error = failed
        if run.notebook_timed_out:
            result.notes.append(f"notebook stopped after its time limit of {settings.timeout:g} s")
    except Exception as error:  # a bug in the grader must not stop the class
        result.rows = []
        result.details = []
        result.grader_error = True
        _rows_for_all(result, ERROR, f"grader error: {type(error).__name__}: {error}")
    finally:
        result.seconds = time.monotonic() - started
    return result
