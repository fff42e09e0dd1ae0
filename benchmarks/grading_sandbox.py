"""What the grader's protections cost: the same class graded with and without the sandbox.

The class is the one of grading_throughput.py (half the students hand in the
solution notebooks 02 and 03, half the blank release), except that every
other solved student also added a scratch cell of their own at the end: that
notebook is no longer the release plus exercise cells, so it gets the clean
re-run, and the table shows what that costs. Both sandbox modes are graded in
one run, in alternating order; the seconds per notebook are printed as a
markdown table.

    python benchmarks/grading_sandbox.py                 # 6 students, -j 2
    python benchmarks/grading_sandbox.py --students 10 --jobs 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading_throughput import ROOT, build_class  # noqa: E402

from memlib.course.grade import grade  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="alternate bwrap / none this many times")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        submissions = build_class(Path(tmp), args.students)
        for student in submissions[::4]:  # students 0, 4, 8...: solved, plus a scratch cell
            for path in student.glob("*.ipynb"):
                nb = nbformat.read(str(path), as_version=4)
                nb.cells.append(nbformat.v4.new_code_cell("# trying things out\nprint('scratch')"))
                nbformat.write(nb, str(path))
        for _ in range(args.rounds):
            for mode in ("bwrap", "none"):
                report = grade(submissions, ROOT / "notebooks", jobs=args.jobs, assignments=("02", "03"),
                               sandbox=mode, warn=lambda text: None)
                assert not report.grader_errors, report.summary()
                reran = [r.seconds for r in report.results if r.reran]
                once = [r.seconds for r in report.results if not r.reran]
                rows.append((mode, report.seconds, report.notebooks_run, len(reran),
                             statistics.mean(reran) if reran else 0.0, statistics.mean(once) if once else 0.0))
    print(f"{args.students} submissions of notebooks 02 and 03, -j {args.jobs}, {os.cpu_count()} CPUs, "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    print("\n| sandbox | total (s) | per notebook (s) | notebooks re-run | s per re-run notebook | "
          "s per notebook run once |\n|---|---:|---:|---:|---:|---:|")
    for mode, seconds, runs, reran, with_rerun, without in rows:
        print(f"| {mode} | {seconds:.1f} | {seconds / max(1, runs):.2f} | {reran} of {runs} | "
              f"{with_rerun:.2f} | {without:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
