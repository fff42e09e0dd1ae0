"""The Chinese core track in JupyterLab in a real browser (headless Debian Chromium), solved and unsolved.

The solved notebooks are the solutions translated by the same catalogues
(`memlib.course.translation.solved_notebook`), written into a throwaway
folder; the unsolved ones are ``notebooks/zh/`` as released. In a front end the
setup cell runs, so the checks speak Chinese: a solved notebook shows each
check's closing line in Chinese and no error; an unsolved one runs to its last
cell and shows, at exactly its graded cells, a short failure saying in Chinese
that the exercise is not solved yet. Widgets must render, as in
``tests/test_browser.py`` (whose helpers this file uses). Run with
``python -m pytest -m browser tests/test_browser_zh.py``; skips, saying how to
install it, where Chromium or Playwright is missing.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from browser_support import CHROMIUM, CHROMIUM_ARGS, JupyterLabServer, NotebookPage, missing_requirements
from pg_server import skip_or_fail  # the suite's rule: skip with the reason, fail under CI=true
from conftest import NOTEBOOKS, ROOT, SOLUTIONS
from test_browser import MAX_FAILURE_LINES, RUN_TIMEOUT_S, SCREENSHOTS, graded_cell_numbers

ZH = sorted((NOTEBOOKS / "zh").glob("[0-9]*.ipynb"))


@pytest.fixture(scope="module")
def lab_zh():
    reason = missing_requirements()
    if reason:
        skip_or_fail(reason)
    from memlib.course.release import _read_solution, render_notebook
    from memlib.course.translation import read_catalogue, solved_notebook

    with tempfile.TemporaryDirectory(prefix="memlib-zh-") as tmp:
        solved = Path(tmp) / "solutions_zh"
        solved.mkdir()
        for path in ZH:
            entries = read_catalogue(ROOT / "i18n" / "zh" / f"{path.stem}.po")
            nb = solved_notebook(_read_solution(SOLUTIONS / path.name), entries, "zh")
            (solved / path.name).write_text(render_notebook(nbformat.from_dict(nb)), encoding="utf-8")
        with JupyterLabServer(sorted(solved.glob("*.ipynb")) + ZH) as server:
            server.solved = solved
            yield server


@pytest.fixture(scope="module")
def browser_zh(lab_zh):
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="memlib-chromium-") as user_data_dir, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            user_data_dir, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        try:
            yield context
        finally:
            context.close()


def _outputs_text(notebook: NotebookPage) -> str:
    return notebook.page.evaluate("""() => [...document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output')].map(o => o.innerText).join('\\n')""")


def _run(lab, browser, path: Path, label: str, inspect) -> None:
    started = time.monotonic()
    page = browser.new_page()
    notebook = NotebookPage(page, lab.url, lab.path_of(path))
    problems: list[str] = []
    try:
        notebook.open()
        state = notebook.run_all(timeout_s=RUN_TIMEOUT_S)
        if state["executed"] != state["codeCells"]:
            problems.append(f"Run All stopped: only {state['executed']} of {state['codeCells']} code cells ran")
        for handle in notebook.widget_outputs():
            description = notebook.describe(handle)
            if description["widgetNodes"] == 0 or description["placeholder"]:
                problems.append(f"cell {notebook.cell_of(handle)}: a widget did not render ({description['text']!r})")
        problems += inspect(notebook)
        problems.extend(notebook.console_errors)
    except Exception as error:  # a timeout or a missing element: keep the screenshot, then report
        problems.append(f"{type(error).__name__}: {error}")
    finally:
        try:
            notebook.screenshots(SCREENSHOTS, f"{label}-{path.stem}", [])
        except Exception:
            pass
        page.close()
        lab.shutdown_kernels()
    seconds = time.monotonic() - started
    assert not problems, f"{label}/{path.name} in JupyterLab ({seconds:.0f} s):\n- " + "\n- ".join(problems)


@pytest.mark.browser
@pytest.mark.parametrize("path", ZH, ids=[p.stem for p in ZH])
def test_a_solved_chinese_notebook_runs_and_its_checks_pass_in_chinese(path, lab_zh, browser_zh):
    graded = graded_cell_numbers(path)

    def inspect(notebook: NotebookPage) -> list[str]:
        found = [f"cell {e['cell']} shows an error output ({e['kind']}):\n{e['text']}" for e in notebook.errors()]
        found += [f"cell {f['cell']} shows a failed check:\n{f['text']}" for f in notebook.check_failures()]
        passed = _outputs_text(notebook).count("的检查全部通过")
        if passed != len(graded):
            found.append(f"{passed} closing '…的检查全部通过' lines for {len(graded)} graded cells")
        return found

    _run(lab_zh, browser_zh, lab_zh.solved / path.name, "solutions_zh", inspect)


@pytest.mark.browser
@pytest.mark.parametrize("path", ZH, ids=[p.stem for p in ZH])
def test_run_all_reaches_the_last_cell_of_an_unsolved_chinese_notebook(path, lab_zh, browser_zh):
    graded = graded_cell_numbers(path)

    def inspect(notebook: NotebookPage) -> list[str]:
        found = [f"cell {e['cell']} shows an error output ({e['kind']}):\n{e['text']}" for e in notebook.errors()]
        failures = notebook.check_failures()
        failed = {f["cell"] for f in failures}
        found += [f"cell {cell} is not graded but shows a failed check" for cell in sorted(failed - graded)]
        found += [f"graded cell {cell} (unsolved) does not show its failure" for cell in sorted(graded - failed)]
        for failure in failures:
            lines = [line for line in failure["text"].splitlines() if line.strip()]
            if len(lines) > MAX_FAILURE_LINES or "Traceback" in failure["text"]:
                found.append(f"cell {failure['cell']}: the failure takes {len(lines)} lines:\n{failure['text']}")
            if "还没有作答" not in failure["text"] or "提示：" not in failure["text"]:
                found.append(f"cell {failure['cell']}: the failure is not in Chinese:\n{failure['text']}")
        return found

    _run(lab_zh, browser_zh, path, "zh", inspect)
