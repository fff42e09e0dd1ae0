"""A released notebook opens in JupyterLab unmodified: no unsaved dot, and saving it changes no byte.

JupyterLab rewrites a notebook's kernelspec and language_info when its kernel
starts; the release writes them as JupyterLab does for `config.KERNEL_PYTHON`.
Under another Python only ``language_info.version`` may differ, and this test
then expects exactly that difference (and the dot).
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest

from browser_support import CHROMIUM, CHROMIUM_ARGS, JupyterLabServer, NotebookPage, missing_requirements
from memlib.course import config
from conftest import NOTEBOOKS

OPENED = ["00_welcome.ipynb", "03_archival_bm25.ipynb"]

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-students")]


def _expected_after_save(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"]["language_info"]["version"] = platform.python_version()  # what the kernel reports
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_released_notebooks_open_unmodified() -> None:
    problem = missing_requirements()
    if problem:
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    same_python = platform.python_version() == config.KERNEL_PYTHON
    paths = [NOTEBOOKS / name for name in OPENED]
    with JupyterLabServer(paths) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for path in paths:
                page = browser.new_page(viewport={"width": 1200, "height": 900})
                notebook = NotebookPage(page, server.url, server.path_of(path))
                notebook.open()
                page.wait_for_timeout(1500)  # kernel info has arrived (the kernel is idle); let Lab apply it
                dirty = page.evaluate("() => [...document.querySelectorAll('.lm-TabBar-tab.jp-mod-dirty')]"
                                      ".map(t => t.textContent.trim())")
                assert dirty == ([] if same_python else [path.name]), (path.name, dirty)
                page.click(".jp-NotebookPanel .jp-Notebook .jp-Cell")
                page.keyboard.press("Escape")
                page.keyboard.press("Control+s")
                saved = server.root / server.path_of(path)  # a copy with the released file's mtime
                for _ in range(40):  # the save is asynchronous: wait until the file is written
                    if saved.stat().st_mtime_ns != path.stat().st_mtime_ns:
                        break
                    page.wait_for_timeout(250)
                page.wait_for_timeout(500)
                assert saved.read_text(encoding="utf-8") == _expected_after_save(path), path.name
                server.shutdown_kernels()
                page.close()
        finally:
            browser.close()
