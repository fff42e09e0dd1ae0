"""Grading time per notebook: checks in a checker process against checks in the kernel.

For each course notebook, one student hands in the solution; it is graded
alone by ``python -m memlib grade --sandbox none -j 1`` with this checkout and
with an earlier one (``--before``, e.g. ``git worktree add /tmp/v0.2.0 v0.2.0``,
whose grader ran each check inside the student's kernel), each with its own
release folder, alternating between the two so that load on the machine hits
both alike. Reports the median wall time per notebook and the ratio. No
sandbox, because a sandboxed kernel imports the memlib installed in the
virtualenv, which would be the same for both; the sandbox's own cost is
measured apart (`grading_sandbox.py`) and is small.

    python benchmarks/grading_checks.py --before /tmp/v0.2.0 [--rounds 3] [--only 05 07]
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def grade_once(checkout: Path, notebook: str, scratch: Path) -> tuple[float, str]:
    """Seconds to grade the solution of `notebook` with `checkout`'s grader, and its gradebook statuses."""
    student = scratch / "student"
    shutil.rmtree(scratch, ignore_errors=True)
    student.mkdir(parents=True)
    shutil.copy(checkout / "solutions" / notebook, student / notebook)
    out = scratch / "grades.csv"
    env = dict(os.environ, PYTHONPATH=str(checkout))
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "memlib", "grade", str(student), "--release",
                           str(checkout / "notebooks"), "--assignment", notebook, "--out", str(out),
                           "--sandbox", "none", "-j", "1", "--quiet"],
                          env=env, cwd=str(scratch), capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1):  # 1: a grader error in a row, which the statuses show
        raise RuntimeError(f"{checkout}: grading {notebook} failed: {done.stderr[-2000:]}")
    with out.open(newline="", encoding="utf-8") as handle:
        statuses = ",".join(row["status"] for row in csv.DictReader(handle))
    if done.returncode == 1:
        statuses += " (grader error)"
    return seconds, statuses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the earlier version")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=[], help="notebook number prefixes, e.g. 05 07")
    args = parser.parse_args(argv)
    notebooks = sorted(p.name for p in (ROOT / "solutions").glob("0[1-9]_*.ipynb")
                       if not args.only or p.name[:2] in args.only)
    times: dict[tuple[str, str], list[float]] = {}
    statuses: dict[tuple[str, str], str] = {}
    with tempfile.TemporaryDirectory(prefix="memlib-grading-bench-") as folder:
        for _ in range(args.rounds):
            for notebook in notebooks:
                for label, checkout in (("before", args.before.resolve()), ("after", ROOT)):
                    seconds, status = grade_once(checkout, notebook, Path(folder) / label)
                    times.setdefault((notebook, label), []).append(seconds)
                    statuses[(notebook, label)] = status
    print(f"load average at the end: {os.getloadavg()[0]:.1f}; {args.rounds} round(s), medians in seconds\n")
    print("| notebook | before | after | after / before | gradebook before → after |")
    print("|---|---:|---:|---:|---|")
    for notebook in notebooks:
        before, after = (statistics.median(times[(notebook, label)]) for label in ("before", "after"))
        print(f"| {notebook[:2]} | {before:.1f} | {after:.1f} | {after / before:.2f} | "
              f"{statuses[(notebook, 'before')]} → {statuses[(notebook, 'after')]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
