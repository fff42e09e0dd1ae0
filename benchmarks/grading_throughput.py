"""Grading throughput: a class of N students handing in notebooks 02 and 03.

Half the class hands in the solutions, half the blank release, so both the
passing and the failing paths are timed. The class is graded with -j 1 and
-j 2 by `python -m memlib grade`, in one run, and the seconds per submission
are printed as a markdown table for benchmarks/README.md.

    python benchmarks/grading_throughput.py            # 30 students
    python benchmarks/grading_throughput.py --students 6
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ("02_eviction_summaries.ipynb", "03_archival_bm25.ipynb")


def build_class(folder: Path, students: int) -> list[Path]:
    paths = []
    for i in range(students):
        source = ROOT / ("solutions" if i % 2 == 0 else "notebooks")
        student = folder / f"student{i:02d}"
        student.mkdir()
        for name in NOTEBOOKS:
            shutil.copy(source / name, student / name)
        paths.append(student)
    return paths


def grade(submissions: list[Path], jobs: int, out: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memlib", "grade", *map(str, submissions), "--release",
                    str(ROOT / "notebooks"), "--out", str(out), "-j", str(jobs), "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        submissions = build_class(Path(tmp), args.students)
        rows = []
        for jobs in (1, 2):
            seconds = grade(submissions, jobs, Path(tmp) / f"grades-j{jobs}.csv")
            rows.append((jobs, seconds))
    print(f"{args.students} submissions of notebooks 02 and 03 ({2 * args.students} notebook runs), "
          f"{os.cpu_count()} CPUs, load average at the end {os.getloadavg()[0]:.1f}")
    print("\n| -j | total (s) | per submission (s) | per notebook (s) |\n|---:|---:|---:|---:|")
    for jobs, seconds in rows:
        print(f"| {jobs} | {seconds:.0f} | {seconds / args.students:.1f} | {seconds / (2 * args.students):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
