"""Grade a class: run every submission in a fresh, sandboxed kernel and write a gradebook.

``python -m memlib grade SUBMISSIONS... --release notebooks/ --out grades.csv
[-j N] [--timeout S] [--cell-timeout S] [--feedback DIR] [--sandbox auto|bwrap|none]``

Each SUBMISSION is one student: a folder, a ``.zip`` or a single ``.ipynb``
(the student's name is the folder / zip / file name; two submissions with one
name, ``sec1/alice`` and ``sec2/alice``, are shown by the shortest ends of their
paths that differ). For every released
notebook that has graded cells, the grader

1. finds the student's copy (by the release's ``memlib.assignment`` notebook
   metadata, else by the grade_ids inside, else by file name), refusing
   symbolic links and special files;
2. reads it leniently (non-UTF-8 bytes are replaced, nbformat 3 is converted)
   and works on a copy in a scratch folder: the submission is never modified;
3. rebuilds the notebook: outputs dropped, every cell that is a copy of a
   graded cell (by its grade_id metadata or its exact source, never its cell
   id) removed, and every graded cell of the release put back just before the
   release cell that follows it (or just after the first cell that defines the
   answer, when the student moved it further down);
4. runs its code cells in a new kernel (`memlib.course.kernel_run`), confined
   by bubblewrap when available (`memlib.course.sandbox`), with a per-cell and
   a per-notebook time limit. Graded cells are not run in the kernel: at each
   one, a checker process of the grader's (`memlib.course.checker`) runs the
   release's check and calls the student's answer in the kernel through plain
   data, so the student's code never shares a process with the check.
   Nothing the kernel can write (a file, a variable, a module) decides a
   point, and the only process the grader signals is the one it started;
5. notes for review what a person should read: repaired graded cells, what
   the answer is made of as the notebook's source says (the checks' code, a
   reference, a held-out split, code that hides what it runs: read before
   anything ran, `memlib.course.grading.provenance`), calls from the
   answer into reference code that the kernel noticed, and, given the
   published solutions (``--solutions``), an answer that is the reference up
   to names, comments and layout (`memlib.course.grading.copying`);
6. writes one gradebook row per student x graded cell: student, notebook,
   grade_id, points, max_points, status (passed / failed / error / missing),
   reason; text cells that a spreadsheet would read as a formula are quoted.

When the kernel dies (``os._exit``, a crash, a cell that ignores its
interrupt) the later graded cells cannot run and are failed with a reason
naming the cell where it died.

What this does not protect against: without the sandbox, student code runs
with the grader's permissions (files, network, environment, processes). With
it, an answer may still call correct code the kernel can import (memlib's own
implementations, rank_bm25): that is read from the notebook's source (and
noticed in the kernel) and flagged for review, not made impossible. See the README, "What the grader protects against".

Each stage is a module of `memlib.course.grading` (collect, rebuild, run,
check, review, report); this module ties them together and re-exports their names.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib
import os
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable

from memlib.course import late, shards
from memlib.course.grading import copying, latework, quizzes, releases, update
from memlib.course.late import LatePolicy
# The stages live in memlib.course.grading; the public names of `__all__` are importable from here.
from memlib.course.grading.collect import _discover, _plan, load_release, read_submission_notebook
from memlib.course.grading.inert import terminal_text
from memlib.course.grading.model import CSV_COLUMNS, Assignment, GradeSetupError, NotebookResult, Row
from memlib.course.status import MISSING
from memlib.course.grading.rebuild import restore_graded_cells
from memlib.course.grading.report import GradeReport, _Progress
from memlib.course.grading.run import _grade_job, _Settings
from memlib.course.sandbox import Limits, Sandbox, SandboxError, resolve

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
    older_releases: Iterable[str | Path] = (),
    only_students: Iterable[str] = (),
    due_dates: dict[str, datetime] | None = None,
    late_policy: LatePolicy | None = None,
    solutions: str | Path | None = None,
    quiz_points: float = 0.0,
    all_or_nothing: Iterable[str] = (),
    private_cases: str | Path | None = None,
) -> GradeReport:
    """Grade every submission against the release; see the module docstring.

    Only the assignments someone in the class handed in get rows, unless
    `all_assignments`; with `shard`, only that shard's students are run (the
    class as a whole still decides what was handed in, so shards agree).

    `sandbox` is ``"auto"`` (bubblewrap when it works here, else none with a
    warning), ``"bwrap"`` (required) or ``"none"``; warnings go to `warn`
    (default: stderr). A notebook whose graded cells are those of one of
    `older_releases` (release folders, `memlib.course.grading.releases`) is
    graded against that release; one from another release is graded against
    `release` with a note naming where it comes from. Raises `GradeSetupError`
    only when grading cannot start; every problem with a submission becomes
    gradebook rows. With `only_students` (names as the gradebook writes them),
    only their notebooks run: the class is still every submission, so names
    and shards stay as in a run of the whole class (a regrade). With
    `due_dates` (`memlib.course.late`), each notebook's lateness is noted and a
    late one gets a penalty row (`memlib.course.grading.latework`). With
    `solutions` (the folder of solution notebooks), an answer that is the
    published reference up to names, comments and layout gets a review flag
    (`memlib.course.grading.copying`); points do not change. With
    `quiz_points` > 0, each notebook's quiz is a graded item worth that many points
    per question (`memlib.course.grading.quizzes`). An exercise whose record allows partial credit
    (`memlib.course.exercise.Exercise.partial_credit`) gives a partly right answer the share of its points
    that its cases earn (`memlib.course.checking.Cases`), unless its grade id is in `all_or_nothing`
    (``"all"`` names every exercise). `private_cases` is a folder of the instructor's own case files,
    ``<grade_id>.json`` for the exercises whose record reads one (07's drawn notes: `read_private_cases`);
    only the checker processes are told of it.
    """
    started = time.monotonic()
    released = load_release(release, assignments)
    current = releases.read_release(release, released)
    older = releases.read_older(list(older_releases), current)
    if quiz_points < 0:
        raise GradeSetupError(f"quiz points {quiz_points:g} must be 0 (quizzes do not count) or more")
    for assignment in [*released, *(a for release_ in older for a in release_.assignments.values())]:
        assignment.quiz = quizzes.quiz_item(assignment.stem, quiz_points)
    students = _discover(submissions)
    only = set(only_students)
    unknown = sorted(only - {s.student for s in students})
    if unknown:
        raise GradeSetupError(f"no submission of {', '.join(map(repr, unknown))} among the submissions given: "
                              "pass the whole class and name students as the gradebook does")
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
    # a copy of the published solution, or of memlib's own reference implementations (students have memlib)
    references: dict[str, list[copying.Reference]] = {}
    if solutions is not None:
        published, library = copying.read_references(solutions, released), copying.library_references(released)
        references = {g: published.get(g, []) + library.get(g, []) for g in {*published, *library}}
    strict = frozenset(all_or_nothing)
    known = {g.grade_id for a in released for g in a.graded} | {"all"}
    if strict - known:
        raise GradeSetupError(f"--all-or-nothing {', '.join(sorted(strict - known))}: no graded exercise of this "
                              f"release has that grade id (they are {', '.join(sorted(known - {'all'}))}, or all)")
    private = read_private_cases(private_cases, released, release) if private_cases is not None else None
    settings = _Settings(confinement, current.support, cell_limit, float(timeout), references, strict, private)

    planned = [job for submission in students for job in _plan(submission, released)]
    for job in planned:
        releases.choose(job, current, older)
    if due_dates:
        # the release's every notebook: a date for one this run does not grade (--assignment) is still used
        latework.assess_jobs(planned, load_release(release, []) if assignments else released, due_dates,
                             late_policy or LatePolicy(),
                             warn or (lambda text: print(text, file=sys.stderr)))
    handed_in = {job.assignment.name for job in planned if job.status_if_not_run != MISSING}
    not_handed_in = [] if all_assignments else [a.name for a in released if a.name not in handed_in]
    planned = [job for job in planned if job.assignment.name not in not_handed_in
               and (shard is None or shard.holds(job.student)) and (not only or job.student in only)]
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
                latework.penalise(result, planned[futures[future]].lateness)
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
        class_students=[s.student for s in students],
    )


def read_private_cases(folder: str | Path, released: list[Assignment], release: str | Path) -> Path:
    """`folder` checked as the instructor's private cases: each file is ``<grade_id>.json`` of a released exercise
    whose record reads one (`memlib.course.exercise.Exercise.private_cases`) and reads without error, and no
    kernel can see the folder; GradeSetupError says what is wrong."""
    from memlib.course.exercise import exercises
    from memlib.course.sandbox import bound_for_kernels

    root = Path(folder)
    if not root.is_dir():
        raise GradeSetupError(f"--private-cases {str(root)!r} is not a folder")
    release_root = Path(release).resolve()
    release_root = release_root if release_root.is_dir() else release_root.parent
    resolved = root.resolve()
    if bound_for_kernels(resolved) or resolved == release_root or release_root in resolved.parents:
        raise GradeSetupError(f"--private-cases {str(root)!r} is where student kernels can read it (inside the "
                              "release, Python or the system): keep it in a folder of its own")
    readers = {grade_id: record.private_cases for grade_id, record in exercises().items() if record.private_cases}
    graded = {g.grade_id for a in released for g in a.graded}
    takers = sorted(readers.keys() & graded) or sorted(readers)
    files = sorted(root.iterdir())
    if not files:
        raise GradeSetupError(f"--private-cases {str(root)!r} holds no case file "
                              f"({', '.join(f'{t}.json' for t in takers)})")
    for path in files:
        grade_id = path.stem if path.suffix == ".json" else ""
        if grade_id not in readers:
            raise GradeSetupError(f"--private-cases: {path.name} is not <grade_id>.json of an exercise that takes "
                                  f"private cases ({', '.join(f'{t}.json' for t in takers)})")
        module, function = readers[grade_id].split(":")
        try:
            getattr(importlib.import_module(module), function)(path)
        except ValueError as error:
            raise GradeSetupError(f"--private-cases: {error}") from None
    return resolved


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib grade``: exit 0 when grading ran (whatever the grades), 2 when it could not."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib grade",
        description="Grade student notebooks against the release in sandboxed kernels and write a gradebook CSV.",
    )
    parser.add_argument("submissions", nargs="+", help="one folder, .zip or .ipynb per student")
    parser.add_argument("--release", required=True, action="append",
                        help="the released notebooks (folder or one notebook); given again, an older release "
                             "folder: a notebook whose graded cells are that release's is graded against it")
    parser.add_argument("--out", required=True, help="gradebook CSV to write")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="notebooks graded in parallel (default 1)")
    parser.add_argument("--timeout", type=float, default=300.0, help="time limit per notebook, seconds (default 300)")
    parser.add_argument("--cell-timeout", type=float, default=None,
                        help="time limit per cell, seconds (default min(60, timeout)); a check that calls the answer "
                             "many times (07's) gets at least its own minimum")
    parser.add_argument("--feedback", default=None, help="folder for one feedback file per student")
    parser.add_argument("--assignment", action="append", default=[], help="grade only this notebook (name, stem or number); repeatable")
    parser.add_argument("--keep-work", default=None, help="keep the notebooks as they were run (with outputs) and the kernels' logs in this folder")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto",
                        help="confine each kernel with bubblewrap: auto (when it works here, the default), "
                             "bwrap (required) or none (student code runs with your permissions)")
    parser.add_argument("--memory-limit", type=int, default=Limits.memory // 2**20, metavar="MB",
                        help="address space of each sandboxed kernel, MB (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--private-cases", default=None, metavar="DIR",
                        help="your own cases that no student has seen, read by the checks only (never by a kernel): "
                             "07-guard.json, templates of 07's drawn notes (see the instructor guide)")
    parser.add_argument("--shard", default=None, metavar="K/N",
                        help="grade only shard K of N (K from 1), chosen by a hash of each student's name; "
                             "join the shards with `python -m memlib grade merge`")
    parser.add_argument("--all-assignments", action="store_true",
                        help="rows for every released notebook, also those nobody handed in (as missing)")
    parser.add_argument("--student", action="append", default=[], metavar="NAME",
                        help="grade only this student (as the gradebook names them; pass the whole class); repeatable")
    parser.add_argument("--due", default=None, metavar="CSV",
                        help="due dates, a CSV of assignment,due (ISO 8601 with its UTC offset); see memlib.course.late")
    parser.add_argument("--late-per-day", type=float, default=10.0, metavar="PCT",
                        help="percent of a notebook's points taken per day (or part of one) late (default 10)")
    parser.add_argument("--late-cap", type=float, default=100.0, metavar="PCT",
                        help="the most percent a late notebook loses (default 100)")
    parser.add_argument("--grace", type=float, default=0.0, metavar="MINUTES",
                        help="minutes after the due time still on time (default 0)")
    parser.add_argument("--solutions", default=None, metavar="DIR",
                        help="the published solution notebooks (solutions/): flag for review an answer that is the "
                             "reference up to names, comments and layout (points unchanged)")
    parser.add_argument("--quiz-points", type=float, default=0.0, metavar="P",
                        help="count each notebook's quiz: P points per right answer, read from the quiz cell's "
                             "show_quiz(\"NN\", answers=\"cab\") (default 0: quizzes do not count)")
    parser.add_argument("--all-or-nothing", action="append", default=[], metavar="GRADE_ID",
                        help="no partial credit for this exercise (a grade id such as 03-bm25, or all); "
                             "repeatable. By default an exercise whose check counts cases gives a partly right "
                             "answer the share of its points that its cases earn")
    parser.add_argument("--update", action="store_true",
                        help="regrade into the existing --out gradebook (and --feedback folder): only the rows "
                             "and feedback sections of the notebooks graded now are replaced")
    args = parser.parse_args(argv)
    try:
        shard = shards.parse_shard(args.shard) if args.shard is not None else None
    except shards.ShardError as error:
        parser.error(str(error))
    if args.jobs < 1 or args.timeout <= 0 or (args.cell_timeout is not None and args.cell_timeout <= 0):
        parser.error("-j, --timeout and --cell-timeout must be positive")
    try:
        try:
            due_dates = late.read_due_dates(args.due) if args.due else None
            policy = LatePolicy(args.late_per_day, args.late_cap, args.grace)
        except late.LateError as error:
            raise GradeSetupError(str(error)) from None
        out = Path(args.out)
        existing = update.read_gradebook_rows(out) if args.update else None
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("a", encoding="utf-8"):
            pass  # fail now, not after an hour of grading, if the gradebook cannot be written
        report = grade(
            args.submissions,
            args.release[0],
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
            older_releases=args.release[1:],
            only_students=args.student,
            due_dates=due_dates,
            late_policy=policy,
            solutions=args.solutions,
            quiz_points=args.quiz_points,
            all_or_nothing=args.all_or_nothing,
            private_cases=args.private_cases,
        )
        if existing is not None:
            rows = update.updated_rows(existing, report)
            update.write_rows(out, rows)
            if args.feedback:
                update.update_feedback(Path(args.feedback), report, rows)
        else:
            report.write_csv(out)
            if args.feedback:
                report.write_feedback(args.feedback)
    except GradeSetupError as error:
        print(f"grading could not run: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"grading could not run: {terminal_text(str(error))}", file=sys.stderr)
        return 2
    print(report.summary())
    print(f"\nGradebook: {out}" + (f"; feedback: {Path(args.feedback)}{os.sep}" if args.feedback else ""))
    return 1 if report.grader_errors else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
