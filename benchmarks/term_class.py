"""A class of N students handing in notebook 01, graded end to end and exported, timed.

The class is what a week of a large course looks like in an LMS's "download all submissions"
(Canvas: one file per student, `lastfirst_id_submission_file`, `_LATE_` for late ones; Moodle:
`Full Name_id_assignsubmission_file_file`, a late one a zip whose time is after the due date):

- solved with answers written by other people (tests/alternatives/01-token-budget/correct_*);
- the blank release (unsolved);
- partly right (tests/alternatives' exact-fit mistake: a prompt of exactly `window` tokens is refused);
- late (solved; Canvas's `_LATE_` gives no time, so one day late; Moodle's zip a day and a half);
- from the older release (solved, the notebook unstamped as release 0.2.0's were);
- copied from the published solution.

Then, as an instructor's week goes: grade the class in one command (`--due`, `--solutions`,
`--feedback`, `-j`), override one student's points, regrade that student, export the gradebook
to Canvas and Moodle, and write the feedback files that LMS takes back (Moodle's feedback-files zip,
Canvas's per-user files).
Each step's wall time and the first lines of each export are printed; everything is checked
against what the class was built to be, so a wrong gradebook fails the run.

    python benchmarks/term_class.py --students 200 -j 2
    python benchmarks/term_class.py --students 40 --lms moodle       # as Moodle names a class
    python benchmarks/term_class.py --students 12 --keep /tmp/term   # keep the folder to look at
"""

from __future__ import annotations

import argparse
import collections
import csv
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat

from memlib.course.versions import stamp_metadata

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "01_context_window.ipynb"
GRADE_ID = "01-token-budget"
DUE = "2026-10-05T23:59+02:00"
LATE_ZIP_TIME = (2026, 10, 7, 12, 0, 0)  # a day and a half after DUE, in its time zone
# kind -> share of the class (the rest of the class, after rounding, is solved)
SHARES = {"unsolved": 0.15, "partly right": 0.15, "late": 0.10, "older release": 0.10, "copied": 0.10}



def _letters(i: int) -> str:
    """aa, ab, ... (Canvas's download names run the name's letters together)."""
    return chr(ord("a") + i // 26 % 26) + chr(ord("a") + i % 26)


def kinds(students: int) -> list[str]:
    plan = [kind for kind, share in SHARES.items() for _ in range(round(students * share))]
    plan += ["solved"] * (students - len(plan))
    random.Random(0).shuffle(plan)  # every stretch of the run meets every kind
    return plan


def build_class(folder: Path, students: int, lms: str) -> dict[str, str]:
    """Write the class's download files (as `lms` names them) into `folder`; gradebook name -> kind."""
    release = nbformat.read(str(ROOT / "notebooks" / NOTEBOOK), as_version=4)
    solution = nbformat.read(str(ROOT / "solutions" / NOTEBOOK), as_version=4)
    answers = sorted((ROOT / "tests" / "alternatives" / GRADE_ID).glob("correct_*.py"))
    mistake = (ROOT / "tests" / "alternatives" / GRADE_ID / "wrong_strict_less.py").read_text(encoding="utf-8")
    solved_cell = next(c.source for c in solution.cells if "def how_many_fit" in c.source)
    folder.mkdir(parents=True)
    roster = {}
    for i, kind in enumerate(kinds(students)):
        nb = nbformat.reads(nbformat.writes(release), as_version=4)
        cell = next(c for c in nb.cells if "def how_many_fit" in c.source)
        if kind == "partly right":
            cell.source = mistake
        elif kind == "copied":
            cell.source = solved_cell
        elif kind != "unsolved":
            cell.source = answers[i % len(answers)].read_text(encoding="utf-8")
        if kind == "older release":
            # as the previous release handed it out: its graded cell worded otherwise, stamped 0.2.1
            graded = next(c for c in nb.cells if "graded" in c.metadata.get("tags", []))
            graded.source = graded.source.replace("check_token_budget(how_many_fit)",
                                                  "check_token_budget(how_many_fit)  # 2 points")
            nb.metadata["memlib"] = stamp_metadata(nb.metadata["memlib"], nb.cells, version="0.2.1")
        user_id = 1000 + i
        if lms == "canvas":  # lastfirst[_LATE]_userid_submissionid_file
            name = f"learner{_letters(i)}"
            late = "_LATE" if kind == "late" else ""
            nbformat.write(nb, str(folder / f"{name}{late}_{user_id}_{5000 + i}_{NOTEBOOK}"))
        else:  # Full Name_participantid_assignsubmission_file_file; Moodle flags nothing late: a zip's time does
            name = f"Learner {_letters(i).title()}"
            prefix = f"{name}_{user_id}_assignsubmission_file_"
            if kind == "late":
                with zipfile.ZipFile(folder / f"{prefix}work.zip", "w") as archive:
                    archive.writestr(zipfile.ZipInfo(NOTEBOOK, date_time=LATE_ZIP_TIME), nbformat.writes(nb))
            else:
                nbformat.write(nb, str(folder / f"{prefix}{NOTEBOOK}"))
        roster[f"{name} ({lms} {user_id})"] = kind
    return roster


def run(step: str, timings: dict[str, float], *argv: str) -> str:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memlib", *argv], capture_output=True, text=True)
    timings[step] = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{step} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def check_gradebook(rows: list[dict[str, str]], roster: dict[str, str]) -> collections.Counter:
    """Each student's rows say what their kind is; returns (kind, status, points) counts."""
    seen: collections.Counter = collections.Counter()
    by_student = collections.defaultdict(dict)
    for row in rows:
        by_student[row["student"]][row["grade_id"]] = row
    assert set(by_student) == set(roster), set(by_student) ^ set(roster)
    for student, kind in roster.items():
        graded = by_student[student][GRADE_ID]
        points, reason = float(graded["points"]), graded["reason"]
        expected = {"unsolved": points == 0 and "not solved yet" in reason,
                    "partly right": 0 < points < float(graded["max_points"]) and reason.startswith("partial credit"),
                    "late": graded["status"] == "passed"
                    and by_student[student].get("late-penalty", {}).get("status") == "late",
                    "older release": graded["status"] == "passed" and "comes from" in reason,
                    "copied": graded["status"] == "passed" and "matches the published reference" in reason,
                    "solved": graded["status"] == "passed" and "review:" not in reason}[kind]
        assert expected, (student, kind, graded)
        seen[kind, graded["status"], points] += 1
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--lms", choices=("canvas", "moodle"), default="canvas",
                        help="whose download names the class comes in (and whose feedback files go back)")
    parser.add_argument("--keep", default=None, help="build the class in this folder and keep it")
    args = parser.parse_args(argv)
    if args.students < len(SHARES) + 1:
        parser.error(f"--students must be at least {len(SHARES) + 1}: one of each kind")
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memlib-term-"))
    if args.keep and root.exists():
        shutil.rmtree(root)
    timings: dict[str, float] = {}
    try:
        started = time.perf_counter()
        roster = build_class(root / "submissions", args.students, args.lms)
        timings["build the class"] = time.perf_counter() - started
        due = root / "due.csv"
        due.write_text(f"assignment,due\n01_context_window,{DUE}\n", encoding="utf-8")
        book, feedback = root / "grades.csv", root / "feedback"
        files = sorted(map(str, (root / "submissions").iterdir()))
        grade = ["grade", *files, "--release", str(ROOT / "notebooks"), "--out", str(book), "--feedback",
                 str(feedback), "--due", str(due), "--solutions", str(ROOT / "solutions"), "-j", str(args.jobs),
                 "--quiet"]
        summary = run("grade the class (one command)", timings, *grade)
        counts = check_gradebook(read_rows(book), roster)

        # a partly right student's appeal: full points by hand, then that student regraded
        appeal = next(s for s, kind in roster.items() if kind == "partly right")
        run("override one row", timings, "grade", "override", str(book), "--student", appeal, "--grade-id", GRADE_ID,
            "--points", "2", "--reason", "the exact-fit case was ambiguous in the week's handout")
        run("regrade one student", timings, *grade, "--student", appeal, "--update")
        counts_after = check_gradebook(read_rows(book), roster)
        assert counts_after == counts, (counts, counts_after)  # the other 199 rows are as they were

        people = root / "roster.csv"
        with people.open("w", encoding="utf-8", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(["student", "name", "id", "email", "idnumber"])
            for student in roster:
                name, user_id = student[:-1].split(f" ({args.lms} ")
                out.writerow([student, name, user_id, f"{name.replace(' ', '.').lower()}@example.edu", f"S{user_id}"])
        exports = {fmt: root / f"{fmt}.csv" for fmt in ("canvas", "moodle")}
        for fmt, path in exports.items():
            run(f"export to {fmt}", timings, "grade", "export", str(book), "--format", fmt, "--roster", str(people),
                "--out", str(path))
        # the feedback goes back through the LMS the class came from
        handback = root / ("moodle-feedback.zip" if args.lms == "moodle" else "canvas-feedback")
        run(f"feedback files for {args.lms}", timings, "grade", "feedback", str(book), "--feedback-in",
            str(feedback), "--format", args.lms, "--roster", str(people), "--out", str(handback))
        print(f"A class of {args.students} on {NOTEBOOK}, -j {args.jobs}:")
        for (kind, status, points), n in sorted(counts.items()):
            print(f"  {n:4d} {kind:14s} {status:8s} {points:g} points")
        print("wall time, seconds:")
        for step, seconds in timings.items():
            print(f"  {seconds:8.1f}  {step}")
        per = timings["grade the class (one command)"] / args.students
        print(f"  ({per:.2f} s per notebook, {args.jobs} at a time)")
        print("the grader's summary, first lines:\n  " + "\n  ".join(summary.strip().splitlines()[:8]))
        for fmt, path in exports.items():
            lines = path.read_text(encoding="utf-8").splitlines()
            print(f"{fmt} import file, first lines and the appeal's row:\n  " + "\n  ".join(
                lines[:4] + [line for line in lines if appeal.split(" (")[0] in line]))
            assert any(appeal.split(" (")[0] in line and ",2" in line for line in lines), f"{fmt}: override lost"
        if args.lms == "moodle":
            with zipfile.ZipFile(handback) as archive:
                names = archive.namelist()
        else:
            names = sorted(p.name for p in handback.iterdir())
        print(f"feedback for {args.lms}: {len(names)} files, e.g. {names[0]}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
