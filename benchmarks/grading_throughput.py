"""Grading throughput: a class of N students handing in notebooks 02 and 03.

Half the class hands in the solutions, half the blank release, so both the
passing and the failing paths are timed. In one run, the same notebooks are
graded by `python -m memlib grade` with -j 1 and -j 2, and executed by plain
`jupyter nbconvert --execute --allow-errors` (one process per notebook, one or
two at a time): the floor any notebook runner pays. Then one -j 1 grading run
is kept (--keep-work) and each notebook's time is split into its phases:

- child start: the grading subprocess importing pytest, nbval and nbformat;
- kernel start: a fresh ipykernel until it answers (jupyter_client, measured apart);
- imports: memlib, its checks, plotly and ipywidgets imported in a fresh kernel
  (measured apart; the notebooks import them in their first cells that use them);
- the notebook's own cells without those imports, and the graded cells (the checks);
- the rest: collecting, kernel shutdown and process exit (wall minus the above).

    python benchmarks/grading_throughput.py            # 30 students
    python benchmarks/grading_throughput.py --students 6
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
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


def grade(submissions: list[Path], jobs: int, out: Path, keep_work: Path | None = None) -> float:
    started = time.perf_counter()
    extra = ["--keep-work", str(keep_work)] if keep_work else []
    subprocess.run([sys.executable, "-m", "memlib", "grade", *map(str, submissions), "--release",
                    str(ROOT / "notebooks"), "--out", str(out), "-j", str(jobs), "--quiet", *extra],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def nbconvert(submissions: list[Path], jobs: int, out: Path) -> float:
    """`jupyter nbconvert --execute` of every notebook of the class, `jobs` processes at a time."""
    out.mkdir(parents=True, exist_ok=True)

    def run(path: Path) -> None:
        # Next to the notebook, as the grader runs it (the kernel's working directory).
        subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                        "--allow-errors", "--output-dir", str(out / path.parent.name), str(path)],
                       check=True, capture_output=True, cwd=path.parent)

    notebooks = [student / name for student in submissions for name in NOTEBOOKS]
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(run, notebooks))
    return time.perf_counter() - started


def child_start_seconds(runs: int = 3) -> float:
    """What the grading subprocess imports before its first cell (as the grader starts it)."""
    code = ("import sys; sys.modules.setdefault('rfc3987_syntax', None); "
            "import pytest, nbval.plugin, nbformat, memlib.course.grade")
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


IMPORTS = "import memlib, memlib.viz, memlib.course.checks, memlib.course.quiz, plotly.graph_objects, ipywidgets"


def kernel_seconds(runs: int = 3) -> tuple[float, float]:
    """Median seconds to start a kernel until it answers, and to run IMPORTS in it."""
    from jupyter_client.manager import start_new_kernel

    starts, imports = [], []
    for _ in range(runs):
        started = time.perf_counter()
        manager, client = start_new_kernel(kernel_name="python3", stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL, cwd=str(ROOT / "notebooks"))
        starts.append(time.perf_counter() - started)
        printed: list[str] = []
        client.execute_interactive(f"import time as _t; _s = _t.perf_counter(); {IMPORTS}; print(_t.perf_counter() - _s)",
                                   output_hook=lambda msg: printed.append(msg["content"].get("text", "")), timeout=120)
        imports.append(float("".join(printed).strip() or "nan"))
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return statistics.median(starts), statistics.median(imports)


def phases(work: Path, notebooks: int) -> dict[str, float]:
    """Seconds per notebook spent in each kind of cell, from the notebooks the grader kept (first runs only)."""
    sums = {"grader prelude": 0.0, "notebook cells": 0.0, "graded cells": 0.0}
    for executed in work.rglob("as-handed-in/executed.ipynb"):
        for cell in json.loads(executed.read_text())["cells"]:
            run = cell.get("metadata", {}).get("grader_run")
            if cell["cell_type"] != "code" or not run:
                continue
            meta = cell["metadata"].get("memlib", {})
            kind = "grader prelude" if "grader" in meta else "graded cells" if "grade_id" in meta else "notebook cells"
            sums[kind] += run.get("seconds", 0.0)
    return {kind: seconds / notebooks for kind, seconds in sums.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    args = parser.parse_args(argv)
    runs = 2 * args.students
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        submissions = build_class(folder, args.students)
        rows = []
        for jobs in (1, 2):
            rows.append(("memlib grade", jobs, grade(submissions, jobs, folder / f"grades-j{jobs}.csv")))
            rows.append(("jupyter nbconvert --execute", jobs, nbconvert(submissions, jobs, folder / f"nbconvert-j{jobs}")))
        work = folder / "work"
        kept = grade(submissions, 1, folder / "grades-kept.csv", keep_work=work)
        cells = phases(work, runs)
        kernel_start, imports = kernel_seconds()
        split = {"child start (python, pytest, nbval)": child_start_seconds(), "kernel start": kernel_start,
                 "grader prelude": cells["grader prelude"], "imports (memlib, plotly, ipywidgets)": imports,
                 "the notebook's own cells, without those imports": cells["notebook cells"] - imports,
                 "graded cells (the checks)": cells["graded cells"]}
        split["the rest (collect, kernel shutdown, exit)"] = kept / runs - sum(split.values())
    print(f"{args.students} submissions of notebooks 02 and 03 ({runs} notebook runs), "
          f"{os.cpu_count()} CPUs, load average at the end {os.getloadavg()[0]:.1f}")
    print("\n| runner | -j | total (s) | per notebook (s) |\n|---|---:|---:|---:|")
    for runner, jobs, seconds in rows:
        print(f"| {runner} | {jobs} | {seconds:.0f} | {seconds / runs:.2f} |")
    print(f"\nWhere a notebook's time goes (memlib grade -j 1, {kept / runs:.2f} s per notebook in that run):\n")
    print("| phase | s per notebook | share |\n|---|---:|---:|")
    for phase, seconds in split.items():
        print(f"| {phase} | {seconds:.2f} | {100 * seconds / (kept / runs):.0f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
