"""Every course notebook: released in sync, solutions pass under nbval, student copies fail only where graded.

Generic over ``solutions/*.ipynb``: a new notebook is covered as soon as it is
added. The two nbval runs (solutions and the released student notebooks) start
together in two subprocesses, so the slow part runs in parallel. Results are
mapped back to cells by their metadata (``memlib.grade_id``) and cell id,
never by nbval's "Cell N" numbering, which shifts with every added cell and
between nbval versions (the same reason `memlib.course.grade` keys by grade_id).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from memlib.course.release import EXERCISE_RE, check_release_current, graded_cells
from conftest import NOTEBOOKS, ROOT, SOLUTIONS

#: Which notebooks to execute (all by default); e.g. MEMLIB_NOTEBOOK_GLOB="0[0-4]_*.ipynb" while authoring.
NOTEBOOK_GLOB = os.environ.get("MEMLIB_NOTEBOOK_GLOB", "*.ipynb")
SOLUTION_FILES = sorted(SOLUTIONS.glob(NOTEBOOK_GLOB))
#: The Chinese notebooks (released from i18n/zh/*.po), run with the checks speaking Chinese.
NOTEBOOKS_ZH = NOTEBOOKS / "zh"
ZH_FILES = sorted(p for p in NOTEBOOKS_ZH.glob(NOTEBOOK_GLOB)) if NOTEBOOKS_ZH.is_dir() else []
#: Which nbval runs to start (all by default); e.g. MEMLIB_NBVAL_RUNS="notebooks_zh,solutions_zh" while translating.
NBVAL_RUNS = os.environ.get("MEMLIB_NBVAL_RUNS", "solutions,notebooks,notebooks_zh,solutions_zh").split(",")
#: Time limit for one cell, and for one whole nbval run over a folder.
CELL_TIMEOUT = 120
# four nbval runs start their kernels at once beside the other tests: nbval's 60 s is too short on a busy
# 2-core machine (seen: every cell of one notebook 'Kernel didn't respond in 60 seconds')
KERNEL_START_TIMEOUT = 240
RUN_TIMEOUT = 1200

pytestmark = [pytest.mark.notebooks, pytest.mark.slow]

# A pytest plugin for the child process: one JSON line per nbval item, with the
# notebook, the cell's id and grade_id, the outcome, the error and the time.
RECORDER = textwrap.dedent(
    '''
    import json, os

    import pytest

    _OUT = open(os.environ["MEMLIB_NBVAL_RECORD"], "a", encoding="utf-8")


    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        report = outcome.get_result()
        cell = getattr(item, "cell", None)
        if cell is None:
            return
        if call.when != "call" and report.outcome == "passed":
            return
        meta = cell.get("metadata", {}) or {}
        memlib = meta.get("memlib", {}) if isinstance(meta.get("memlib"), dict) else {}
        record = {
            "notebook": os.path.basename(str(getattr(item, "path", getattr(item, "fspath", "")))),
            "cell_id": cell.get("id"),
            "grade_id": memlib.get("grade_id"),
            "tags": meta.get("tags", []),
            "when": call.when,
            "outcome": report.outcome,
            "seconds": round(call.duration, 3),
            "head": (cell.get("source") or "").strip().splitlines()[0][:80] if (cell.get("source") or "").strip() else "",
            # nbval's exception only says "Cell execution caused an exception"; the
            # report's text holds the cell's traceback with the check's message.
            "message": report.longreprtext[-3000:] if report.failed else "",
        }
        _OUT.write(json.dumps(record) + "\\n")
        _OUT.flush()
    '''
)


def _nbval_command(folder: Path, names: list[str]) -> list[str]:
    files = [str(folder / name) for name in names]
    return [
        sys.executable, "-m", "pytest", "--nbval-lax", *files,
        "-p", "no:cacheprovider", "-p", "memlib_nbval_recorder", "--nbval-current-env",
        f"--nbval-cell-timeout={CELL_TIMEOUT}", f"--nbval-kernel-startup-timeout={KERNEL_START_TIMEOUT}",
        "-q", "--tb=no", "--color=no",
        "-o", "addopts=", "--rootdir", str(ROOT),
    ]


@pytest.fixture(scope="module")
def nbval_runs(tmp_path_factory):
    """Start nbval over solutions/, notebooks/ and the Chinese notebooks at once; wait for all; return their records.

    The Chinese runs set ``MEMLIB_LANG=zh`` (in a front end, the setup cell, which nbval skips, does
    that): the unsolved notebooks of notebooks/zh/, and their solved twins, the solutions translated
    by the same catalogues into a temporary folder.
    """
    assert SOLUTION_FILES, f"no solutions/{NOTEBOOK_GLOB} to run"
    work = tmp_path_factory.mktemp("nbval")
    (work / "memlib_nbval_recorder.py").write_text(RECORDER, encoding="utf-8")
    solved_zh = work / "solutions_zh"
    folders = {"solutions": (SOLUTIONS, [p.name for p in SOLUTION_FILES], {}),
               "notebooks": (NOTEBOOKS, [p.name for p in SOLUTION_FILES], {}),
               "notebooks_zh": (NOTEBOOKS_ZH, [p.name for p in ZH_FILES], {"MEMLIB_LANG": "zh"}),
               "solutions_zh": (solved_zh, [p.name for p in ZH_FILES], {"MEMLIB_LANG": "zh"})}
    if "solutions_zh" in NBVAL_RUNS:
        _write_solved_zh(solved_zh)
    started = {}
    for name, (folder, names, extra_env) in folders.items():
        if name not in NBVAL_RUNS or not names:
            continue
        record = work / f"{name}.jsonl"
        record.touch()
        env = dict(os.environ, MEMLIB_NBVAL_RECORD=str(record), **extra_env,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(work), os.environ.get("PYTHONPATH")])))
        log = open(work / f"{name}.log", "w", encoding="utf-8")
        process = subprocess.Popen(_nbval_command(folder, names), cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
        started[name] = (process, record, log, work / f"{name}.log")
    runs = {}
    for name, (process, record, log, log_path) in started.items():
        try:
            process.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        records = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line.strip()]
        runs[name] = {"returncode": process.returncode, "records": records,
                      "log": log_path.read_text(encoding="utf-8", errors="replace")[-4000:]}
    return runs


def _write_solved_zh(folder: Path) -> None:
    """The solutions of the Chinese notebooks, their markdown translated, as a student who solved them has them."""
    from memlib.course.release import _read_solution, render_notebook
    from memlib.course.translation import read_catalogue, solved_notebook

    folder.mkdir(exist_ok=True)
    for path in ZH_FILES:
        entries = read_catalogue(ROOT / "i18n" / "zh" / f"{path.stem}.po")
        solved = solved_notebook(_read_solution(SOLUTIONS / path.name), entries, "zh")
        (folder / path.name).write_text(render_notebook(nbformat.from_dict(solved)), encoding="utf-8")


def _run(nbval_runs, name: str) -> dict:
    assert name in nbval_runs, f"the nbval run {name!r} was not started (MEMLIB_NBVAL_RUNS={','.join(NBVAL_RUNS)})"
    return nbval_runs[name]


def _failures(records: list[dict]) -> list[dict]:
    return [r for r in records if r["outcome"] == "failed"]


def _describe(record: dict) -> str:
    message = record["message"].strip().splitlines()
    last = next((line for line in reversed(message) if line.strip()), "")
    return f"{record['notebook']} cell {record['cell_id']} ({record['head']!r}): {last[:300]}"


def _exercise_number(source: str) -> str | None:
    for line in source.splitlines():
        match = EXERCISE_RE.match(line)
        if match:
            return match.group("number")
    return None


# -- (1) the release is current ------------------------------------------------------


def test_student_notebooks_are_a_fresh_release():
    problems = check_release_current(SOLUTIONS, NOTEBOOKS)
    assert not problems, "\n".join(problems)


# -- (4) exercises and stubs, statically ------------------------------------------------


@pytest.mark.parametrize("path", SOLUTION_FILES, ids=lambda p: p.name)
def test_every_exercise_stub_raises_with_its_number(path):
    released = NOTEBOOKS / path.name
    assert released.exists(), f"{released} is missing: run `python -m memlib release solutions/ notebooks/`"
    nb = nbformat.read(released, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        number = _exercise_number(cell.source)
        if number is None:
            continue
        raises = [
            node for node in ast.walk(ast.parse(cell.source))
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
            and getattr(node.exc.func, "id", None) == "NotImplementedError"
        ]
        messages = [ast.literal_eval(r.exc.args[0]) for r in raises if r.exc.args]
        assert messages, f"{path.name} cell {cell.id}: the stub of exercise {number} does not raise NotImplementedError"
        for message in messages:
            assert message.startswith(f"Exercise {number}: "), (
                f"{path.name} cell {cell.id}: stub message {message!r} should start with 'Exercise {number}: '")
            assert len(message) > len(f"Exercise {number}: ") + 10, f"{path.name}: say what to do in {message!r}"


@pytest.mark.parametrize("path", SOLUTION_FILES, ids=lambda p: p.name)
def test_each_exercise_is_followed_by_its_graded_cell(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        if _exercise_number(cell.source) is None or "### BEGIN SOLUTION" not in cell.source:
            continue
        following = code[i + 1] if i + 1 < len(code) else None
        assert following is not None and "graded" in following.metadata.get("tags", []), (
            f"{path.name} cell {cell.id}: the cell after an exercise must be its graded check")


@pytest.mark.parametrize("path", SOLUTION_FILES, ids=lambda p: p.name)
def test_graded_cells_call_the_check_of_their_grade_id(path):
    import memlib.course.checks as checks

    for graded in graded_cells(nbformat.read(path, as_version=4)):
        assert graded.grade_id in checks.CHECKS, (
            f"{path.name}: no check is registered for grade_id {graded.grade_id!r}; "
            "decorate the check with @graded(<the record of that grade_id>)")
        imported = [alias.name for node in ast.parse(graded.source).body if isinstance(node, ast.ImportFrom)
                    and node.module == "memlib.course.checks" for alias in node.names]
        ids = {getattr(getattr(checks, name, None), "grade_id", None) for name in imported}
        assert graded.grade_id in ids, (
            f"{path.name}: the graded cell {graded.grade_id!r} imports {imported}, whose checks are registered "
            f"as {sorted(i for i in ids if i)}; use the check of this grade_id")


# -- (2) solutions pass ----------------------------------------------------------------


def test_solutions_pass_under_nbval(nbval_runs):
    run = _run(nbval_runs, "solutions")
    assert run["records"], f"nbval recorded nothing over solutions/:\n{run['log']}"
    failed = _failures(run["records"])
    assert not failed, "solution cells failed:\n" + "\n".join(_describe(r) for r in failed)
    assert run["returncode"] == 0, run["log"]
    seen = {r["notebook"] for r in run["records"]}
    assert seen == {p.name for p in SOLUTION_FILES}


# -- (3) student notebooks fail exactly at their graded cells -------------------------------


def test_student_notebooks_fail_exactly_at_graded_cells(nbval_runs):
    run = _run(nbval_runs, "notebooks")
    assert run["records"], f"nbval recorded nothing over notebooks/:\n{run['log']}"
    failed = _failures(run["records"])
    ungraded = [r for r in failed if not r["grade_id"]]
    assert not ungraded, "cells that are not graded failed in the student notebooks:\n" + "\n".join(
        _describe(r) for r in ungraded)
    expected = {(p.name, g.grade_id) for p in sorted(NOTEBOOKS / s.name for s in SOLUTION_FILES)
                for g in graded_cells(nbformat.read(p, as_version=4))}
    failed_ids = {(r["notebook"], r["grade_id"]) for r in failed}
    passing = expected - failed_ids
    assert not passing, f"graded cells that pass without a solution (is a stub missing?): {sorted(passing)}"
    assert failed_ids == expected


def test_unsolved_graded_cells_say_which_exercise(nbval_runs):
    numbers = {}
    for path in sorted(NOTEBOOKS / s.name for s in SOLUTION_FILES):
        nb = nbformat.read(path, as_version=4)
        last = None
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            last = _exercise_number(cell.source) or last
            grade_id = (cell.metadata.get("memlib") or {}).get("grade_id")
            if grade_id and last is not None:
                numbers[(path.name, grade_id)] = last
    for r in _failures(_run(nbval_runs, "notebooks")["records"]):
        number = numbers.get((r["notebook"], r["grade_id"]))
        if number is not None:
            assert f"not solved yet: Exercise {number}:" in r["message"], _describe(r)


# -- (5) the Chinese notebooks: solved they pass, unsolved they fail at their graded cells, in Chinese ----------


def test_chinese_solutions_pass_under_nbval(nbval_runs):
    run = _run(nbval_runs, "solutions_zh")
    assert run["records"], f"nbval recorded nothing over the solved Chinese notebooks:\n{run['log']}"
    failed = _failures(run["records"])
    assert not failed, "solved Chinese cells failed:\n" + "\n".join(_describe(r) for r in failed)
    assert run["returncode"] == 0, run["log"]
    assert {r["notebook"] for r in run["records"]} == {p.name for p in ZH_FILES}


def test_chinese_notebooks_fail_exactly_at_graded_cells_and_say_so_in_chinese(nbval_runs):
    run = _run(nbval_runs, "notebooks_zh")
    assert run["records"], f"nbval recorded nothing over notebooks/zh/:\n{run['log']}"
    failed = _failures(run["records"])
    ungraded = [r for r in failed if not r["grade_id"]]
    assert not ungraded, "cells that are not graded failed in the Chinese notebooks:\n" + "\n".join(
        _describe(r) for r in ungraded)
    expected = {(p.name, g.grade_id) for p in ZH_FILES for g in graded_cells(nbformat.read(p, as_version=4))}
    assert {(r["notebook"], r["grade_id"]) for r in failed} == expected
    for r in failed:
        assert "还没有作答：Exercise " in r["message"] and "提示：" in r["message"], _describe(r)
