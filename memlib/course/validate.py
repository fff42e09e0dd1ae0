"""See your grade before you hand in: the grader, run on one notebook, saying what it would give.

``python -m memlib validate NOTEBOOK [--release FOLDER] [--sandbox auto|bwrap|none]`` or, from a
cell, ``from memlib.course.validate import validate; validate("01_context_window.ipynb")``.

It runs the same grader as ``python -m memlib grade`` (`memlib.course.grade.grade`) on the
saved notebook: a fresh kernel, Restart & Run All order, every graded cell checked by the
checker process, and prints one line per graded cell with the points, the reason and the
grader's notes. So what it prints is what the instructor's gradebook will say, including:

* Run All order: a graded cell checks the answer as defined *above* it, where your notebook
  has the graded cell. An answer written again in a cell further down (even right below the
  check, the stub left above it) is not what the check sees; the note says "your answer ... is
  defined after its check" and names the cell;
* review flags read from the notebook's source (`memlib.course.grading.provenance`).

Without ``--release`` the notebook is its own release (its written answers' cells read as their question
and the stub, so what is written below the question is the answer): the points and reasons are the
grader's, but it cannot tell the release's cells from yours, so it gives the flags about what
your answer is made of and leaves out those about code that hides what it runs (the release's
own setup cell would raise them); ``--release notebooks/`` (a pristine copy) gives them all.
Save the notebook first: validate reads the file, not the open kernel.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from memlib.course.status import MISSING, PASSED

__all__ = ["validate", "main", "ValidateError"]


class ValidateError(ValueError):
    """The notebook cannot be validated (the message says why)."""


def _own_release(notebook: Path, folder: Path) -> Path:
    """The notebook as its own release, in `folder` (the grader wants a release folder it can list)."""
    from memlib.course.grading.collect import read_submission_notebook

    try:
        nb, problem, _ = read_submission_notebook(notebook.read_bytes())
    except OSError as error:
        raise ValidateError(f"cannot read {notebook.name}: {error.strerror or error}") from None
    if nb is None:
        raise ValidateError(f"cannot read {notebook.name}: {problem}")
    import nbformat

    from memlib.course.written import STUB, written_meta

    for cell in nb.cells:
        if cell.get("cell_type") == "markdown" and written_meta(cell) is not None:
            # the released cell is the question (a heading, a blank line, the question) and the stub: what the
            # student wrote below the question is their answer, not the release's text
            cell.source = "\n".join(str(cell.source).split("\n")[:3] + ["", STUB])
    folder.mkdir(parents=True, exist_ok=True)
    released = folder / notebook.name
    nbformat.write(nb, str(released))
    return folder


def validate(notebook: str | os.PathLike, release: str | os.PathLike | None = None, *, sandbox: str = "auto",
             timeout: float = 300.0, out=None) -> list:
    """Grade `notebook` as the grader will and print what it gives; returns the gradebook rows.

    Inside a kernel the grader itself runs (``MEMLIB_STRICT_CHECKS`` is set there) it prints that
    it is skipped and returns []: a notebook that validates itself is not graded twice.
    """
    from memlib.course.grade import GradeSetupError, grade
    from memlib.course.grading.inert import terminal_line

    write = out or (lambda text: print(text))
    if os.environ.get("MEMLIB_STRICT_CHECKS"):
        write("validate: skipped (this notebook is being graded right now)")
        return []
    path = Path(notebook)
    if path.suffix != ".ipynb" or not path.is_file():
        raise ValidateError(f"{str(path)!r} is not a saved notebook (.ipynb file); save it and pass its path")
    scratch = Path(tempfile.mkdtemp(prefix="memlib-validate-"))
    try:
        folder = Path(release) if release is not None else _own_release(path, scratch / "release")
        student = scratch / "you"
        student.mkdir()
        shutil.copyfile(path, student / path.name)
        try:
            report = grade([student], folder, sandbox=sandbox, timeout=timeout,
                           warn=lambda text: None if sandbox == "auto" else write(text))
        except GradeSetupError as error:
            raise ValidateError(str(error)) from None
        rows = [r for r in report.rows if r.status != MISSING]
        if not rows:
            raise ValidateError(f"{path.name} matches no released notebook with graded cells"
                                + (f" in {folder}" if release is not None else ""))
        for row in rows:
            write(terminal_line(f"{row.grade_id}: {row.points:g}/{row.max_points:g} {row.status}"
                                + (f" - {row.reason}" if row.reason else "")))
        total, most = sum(r.points for r in rows), sum(r.max_points for r in rows)
        write(f"{path.name}: {total:g} of {most:g} points, graded as `python -m memlib grade` will "
              f"(Restart & Run All order)")
        return rows
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib validate``: exit 0 when every graded cell passed, 1 when one did not, 2 when it could not run."""
    parser = argparse.ArgumentParser(prog="python -m memlib validate",
                                     description="Grade one notebook as the instructor's grader will, and say why.")
    parser.add_argument("notebook", help="your saved notebook (.ipynb)")
    parser.add_argument("--release", default=None, help="the released notebooks (default: the notebook itself)")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto")
    parser.add_argument("--timeout", type=float, default=300.0, help="time limit for the notebook, seconds")
    args = parser.parse_args(argv)
    try:
        rows = validate(args.notebook, args.release, sandbox=args.sandbox, timeout=args.timeout)
    except ValidateError as error:
        print(f"validate could not run: {error}", file=sys.stderr)
        return 2
    return 0 if rows and all(r.status == PASSED for r in rows) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
