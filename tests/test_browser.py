"""Every solution and every student notebook, run in JupyterLab in a real browser (headless Debian Chromium).

For each ``solutions/*.ipynb`` present when the tests run: open it in a
throwaway JupyterLab, Run ▸ Run All Cells, wait for the kernel to go idle,
then assert that no cell shows an error, that every widget rendered (its DOM
nodes, and a plotly plot inside each memlib explorer), that the explorers and
quizzes the notebook builds are on the page, and that one interaction per
widget changes what is shown (step the ContextStepper or TraceViewer, type a
query into the RetrievalExplorer, answer a quiz question). A screenshot of the
whole notebook and one per widget land in artifacts/screenshots/ (git-ignored).

For each released ``notebooks/*.ipynb`` (unsolved, as a student opens it):
Run All must reach the last cell. Every code cell executed, no cell shows an
error, the cells that show a failed check are exactly the graded cells, each
failure is a few lines (message and hint, no traceback), and every widget
rendered (the cells after an exercise fall back to memlib's reference).

Run with ``python -m pytest -m browser``. Skips, saying how to install it,
where /usr/bin/chromium or Playwright is missing (``.ci/browser.sh`` installs
both). Never downloads a browser.

The launch checks at the end need no browser (they are not marked): the Colab
setup cell does nothing outside Colab and, on Colab, installs memlib from the
repository without upgrading anything or restarting; memlib's ranges admit
Colab's ipywidgets and plotly; every student notebook carries its own badge
and the setup cell; Binder's runtime.txt names a Python that memlib supports.
(That the wheel holds every module is tests/test_packaging.py's.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import types
from collections import Counter
from pathlib import Path

import pytest

from browser_support import CHROMIUM, CHROMIUM_ARGS, JupyterLabServer, NotebookPage, classify, missing_requirements
from pg_server import skip_or_fail  # the suite's rule: skip with the reason, fail under CI=true
from conftest import NOTEBOOKS, ROOT, SOLUTIONS

SOLUTION_FILES = sorted(SOLUTIONS.glob("[0-9]*.ipynb"))
STUDENT_NOTEBOOKS = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
#: Lines a displayed check failure may take: what is wrong, the hint (wrapped), the "keeps running" note.
MAX_FAILURE_LINES = 6
SCREENSHOTS = Path(os.environ.get("MEMLIB_SCREENSHOTS", ROOT / "artifacts" / "screenshots"))
#: Per notebook: opening, Run All and the interactions (a notebook runs in < 20 s under nbval).
RUN_TIMEOUT_S = 120

# What a notebook's code builds, and how the widget shows up on the page.
EXPECTED_FROM_SOURCE = {
    "ContextStepper": re.compile(r"\bContextStepper\("),
    "TraceViewer": re.compile(r"\bTraceViewer\("),
    "RetrievalExplorer": re.compile(r"\bRetrievalExplorer\("),
    "Quiz": re.compile(r"\bshow_quiz\("),
}
EXPLORERS = ("ContextStepper", "TraceViewer", "RetrievalExplorer")
# A cell that shows a static plotly figure: fig.show(), display(<...fig...>), or a memlib.viz figure builder.
STATIC_FIGURE = re.compile(
    r"\.show\(\s*\)|display\(\s*\w*fig\w*|"
    r"\b(?:context_bar|usage_bar|token_timeline|eviction_comparison|score_bars|recall_at_k_curve|block_fill_bars)\(")


def _code_sources(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    sources = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            # Comments do not build widgets.
            sources.append("\n".join(line.split("#", 1)[0] for line in source.splitlines()))
    return sources


def expectations(path: Path) -> tuple[set[str], bool]:
    """(widget kinds the notebook builds, whether it shows a static figure), read from its code."""
    code = "\n".join(_code_sources(path))
    kinds = {kind for kind, pattern in EXPECTED_FROM_SOURCE.items() if pattern.search(code)}
    return kinds, bool(STATIC_FIGURE.search(code))


# -- fixtures -------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab():
    reason = missing_requirements()
    if reason:
        skip_or_fail(reason)
    with JupyterLabServer(SOLUTION_FILES + STUDENT_NOTEBOOKS) as server:
        yield server


@pytest.fixture(scope="module")
def browser_context(lab):
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="memlib-chromium-") as user_data_dir, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            user_data_dir,  # a new, empty profile every run
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(30_000)
        try:
            yield context
        finally:
            context.close()


# -- the test -------------------------------------------------------------------


@pytest.mark.browser
# Two groups: under `-n auto --dist loadgroup` each runs on one worker, with that worker's own
# JupyterLab and Chromium, while the other tests fill the other workers.
@pytest.mark.xdist_group("browser-solutions")
@pytest.mark.parametrize("path", SOLUTION_FILES, ids=[p.stem for p in SOLUTION_FILES])
def test_notebook_runs_and_its_widgets_react_in_a_real_browser(path, lab, browser_context):
    started = time.monotonic()
    expected_kinds, expects_static_figure = expectations(path)
    page = browser_context.new_page()
    notebook = NotebookPage(page, lab.url, lab.path_of(path))
    problems: list[str] = []
    found: list[tuple[object, str]] = []
    notes: list[str] = []
    try:
        notebook.open()
        state = notebook.run_all(timeout_s=RUN_TIMEOUT_S)

        for error in notebook.errors():
            problems.append(f"cell {error['cell']} shows an error output ({error['kind']}):\n{error['text']}")
        if state["executed"] != state["codeCells"]:
            problems.append(f"only {state['executed']} of {state['codeCells']} code cells ran")

        kinds: Counter[str] = Counter()
        for handle in notebook.widget_outputs():
            cell, description = notebook.cell_of(handle), notebook.describe(handle)
            kind = classify(description)
            kinds[kind] += 1
            found.append((handle, kind))
            where = f"cell {cell}, {kind}"
            if description["widgetNodes"] == 0 or description["placeholder"]:
                problems.append(f"{where}: the widget did not render ({description['text']!r})")
                continue
            if kind in EXPLORERS and description["plots"] == 0:
                problems.append(f"{where}: no plotly plot inside the explorer")
            what, changed = notebook.exercise(handle, kind)
            notes.append(f"{where}: {what}")
            if not changed:
                problems.append(f"{where}: {what}, but what the widget shows did not change")

        for kind in sorted(expected_kinds - set(kinds)):
            problems.append(f"the notebook builds a {kind} but none is on the page")
        static_plots = notebook.plots_outside_widgets()
        if expects_static_figure and static_plots == 0:
            problems.append("the notebook shows a plotly figure but no plot rendered outside the widgets")
        empty = notebook.page.evaluate("""() => [...document.querySelectorAll(
            '.jp-NotebookPanel:not(.lm-mod-hidden) .js-plotly-plot')].filter(p => !p.querySelector('svg.main-svg')).length""")
        if empty:
            problems.append(f"{empty} plotly plot(s) on the page have no drawing (svg.main-svg)")
        problems.extend(notebook.console_errors)
        notes.append(f"widgets {dict(kinds)}, static plots {static_plots}")
    except Exception as error:  # a timeout or a missing element: keep the screenshot, then report
        problems.append(f"{type(error).__name__}: {error}")
    finally:
        try:
            notebook.screenshots(SCREENSHOTS, path.stem, found)
        except Exception as error:  # the screenshot must not hide the real failure
            notes.append(f"screenshot failed: {error}")
        page.close()
        lab.shutdown_kernels()
    seconds = time.monotonic() - started
    print(f"{path.name}: {seconds:.1f} s; " + "; ".join(notes))
    assert not problems, (f"{path.name} in JupyterLab ({seconds:.0f} s, screenshots in "
                          f"{SCREENSHOTS}/{path.stem}*.png):\n- " + "\n- ".join(problems))


def graded_cell_numbers(path: Path) -> set[int]:
    """1-based positions of the graded cells (as the page numbers its cells)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return {i for i, cell in enumerate(cells, start=1) if "graded" in cell.get("metadata", {}).get("tags", [])}


@pytest.mark.browser
@pytest.mark.xdist_group("browser-students")
@pytest.mark.parametrize("path", STUDENT_NOTEBOOKS, ids=[p.stem for p in STUDENT_NOTEBOOKS])
def test_run_all_reaches_the_last_cell_of_an_unsolved_student_notebook(path, lab, browser_context):
    started = time.monotonic()
    page = browser_context.new_page()
    notebook = NotebookPage(page, lab.url, lab.path_of(path))
    problems: list[str] = []
    notes: list[str] = []
    try:
        notebook.open()
        state = notebook.run_all(timeout_s=RUN_TIMEOUT_S)
        if state["executed"] != state["codeCells"]:
            problems.append(f"Run All stopped: only {state['executed']} of {state['codeCells']} code cells ran")
        for error in notebook.errors():
            problems.append(f"cell {error['cell']} shows an error output ({error['kind']}):\n{error['text']}")
        failures = notebook.check_failures()
        graded = graded_cell_numbers(path)
        failed = {f["cell"] for f in failures}
        for cell in sorted(failed - graded):
            problems.append(f"cell {cell} is not graded but shows a failed check")
        for cell in sorted(graded - failed):
            problems.append(f"graded cell {cell} (unsolved) does not show its failure")
        for failure in failures:
            lines = [line for line in failure["text"].splitlines() if line.strip()]
            if len(lines) > MAX_FAILURE_LINES or "Traceback" in failure["text"]:
                problems.append(f"cell {failure['cell']}: the failure takes {len(lines)} lines:\n{failure['text']}")
            if "not solved yet" not in failure["text"]:
                problems.append(f"cell {failure['cell']}: the failure does not say 'not solved yet':\n{failure['text']}")
        for handle in notebook.widget_outputs():
            description = notebook.describe(handle)
            if description["widgetNodes"] == 0 or description["placeholder"]:
                problems.append(f"cell {notebook.cell_of(handle)}: a widget did not render ({description['text']!r})")
        problems.extend(notebook.console_errors)
        notes.append(f"{state['executed']}/{state['codeCells']} code cells ran, failures shown in cells "
                     f"{sorted(failed)}, graded cells {sorted(graded)}")
    except Exception as error:  # a timeout or a missing element: keep the screenshot, then report
        problems.append(f"{type(error).__name__}: {error}")
    finally:
        try:
            notebook.screenshots(SCREENSHOTS, f"student-{path.stem}", [])
        except Exception as error:
            notes.append(f"screenshot failed: {error}")
        page.close()
        lab.shutdown_kernels()
    seconds = time.monotonic() - started
    print(f"notebooks/{path.name}: {seconds:.1f} s; " + "; ".join(notes))
    assert not problems, (f"notebooks/{path.name} in JupyterLab ({seconds:.0f} s, screenshot "
                          f"{SCREENSHOTS}/student-{path.stem}.png):\n- " + "\n- ".join(problems))


# -- launch checks (no browser) -------------------------------------------------

#: What Colab ships (2026) and memlib must install next to without a restart.
COLAB_VERSIONS = {"ipywidgets": "7.7.1", "plotly": "5.24.1"}


def _run_setup_cell(monkeypatch, *, on_colab: bool) -> list[list[str]]:
    from memlib.course.release import colab_setup_source

    calls: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, *a, **k: calls.append(list(cmd)))
    if on_colab:
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    exec(compile(colab_setup_source(), "<colab-setup cell>", "exec"), {"__name__": "__main__"})
    return calls


def test_colab_setup_cell_does_nothing_outside_colab(monkeypatch):
    assert _run_setup_cell(monkeypatch, on_colab=False) == []


def test_colab_setup_cell_installs_memlib_from_the_repository_without_upgrades_or_a_restart(monkeypatch):
    from memlib.course import config
    from memlib.course.release import colab_setup_source

    calls = _run_setup_cell(monkeypatch, on_colab=True)
    assert len(calls) == 1, calls
    command = calls[0]
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert config.pip_requirement() in command
    # Upgrading what Colab already imported (ipywidgets, plotly, ...) is what forces a restart.
    assert not {"-U", "--upgrade", "--force-reinstall", "--upgrade-strategy=eager"} & set(command), command
    source = colab_setup_source()
    for restart in ("os.kill", "os._exit", "do_shutdown", "restart"):
        assert restart not in source.lower(), f"the setup cell must not restart the runtime ({restart})"


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+; CI runs 3.11
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_memlib_ranges_admit_colabs_ipywidgets_and_plotly():
    from packaging.requirements import Requirement

    requirements = {Requirement(line).name.lower(): Requirement(line) for line in _pyproject()["project"]["dependencies"]}
    for name, version in COLAB_VERSIONS.items():
        assert name in requirements, f"memlib should declare {name} (Colab ships {version})"
        assert requirements[name].specifier.contains(version), (
            f"pyproject.toml asks for {requirements[name]}, which would upgrade Colab's {name} {version} "
            "and force a runtime restart: keep the range loose")


def test_binder_runtime_names_a_python_memlib_supports():
    from packaging.specifiers import SpecifierSet

    text = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()  # repo2docker reads binder/
    match = re.fullmatch(r"python-(3\.\d+)", text)
    assert match, f"runtime.txt should read like 'python-3.11' (repo2docker's format), not {text!r}"
    assert SpecifierSet(_pyproject()["project"]["requires-python"]).contains(match.group(1) + ".0")


def test_every_student_notebook_has_its_own_colab_badge_and_the_setup_cell():
    from memlib.course import config
    from memlib.course.release import colab_setup_source

    released = sorted((ROOT / config.NOTEBOOKS_DIR).glob("[0-9]*.ipynb"))
    assert released, "no released notebooks: run python -m memlib release solutions/ notebooks/"
    for path in released:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = lambda cell: "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]  # noqa: E731
        badges = [c for c in cells if "colab-badge" in c.get("metadata", {}).get("tags", [])]
        assert badges and config.colab_url(f"{config.NOTEBOOKS_DIR}/{path.name}") in text(badges[0]), path.name
        first_code = next(c for c in cells if c["cell_type"] == "code")
        assert text(first_code) == colab_setup_source(), f"{path.name}: the first code cell is not the Colab setup"
