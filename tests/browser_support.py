"""Helpers for the real-browser tests: a throwaway JupyterLab server and a page driver.

`JupyterLabServer` starts JupyterLab on 127.0.0.1 on a free port with fresh
config, runtime, settings, workspace and IPython dirs (the announcements
toast and the update check are switched off there), no token, serving a
folder of copies so autosave never touches the repository. `NotebookPage`
drives one notebook in Chromium through Playwright: run all cells, wait for
the kernel, find error outputs and widgets, and exercise each widget once.

This module does not decide what a notebook must contain (tests/test_browser.py
does) and never downloads a browser: it uses Debian's /usr/bin/chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = os.environ.get("MEMLIB_CHROMIUM", "/usr/bin/chromium")
# As DESIGN.md §7: without the background-networking flags Chromium keeps
# trying to reach Google's hosts, which this machine's closed network refuses.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
INSTALL_HINT = (
    "the browser tests need Debian's Chromium at {path} and Playwright for Python: "
    "`apt-get update && apt-get install -y chromium` and `pip install playwright` "
    "(never `playwright install`; .ci/browser.sh does both)"
)

#: JupyterLab user settings written into the throwaway settings dir.
LAB_SETTINGS = {
    # No "Would you like to receive official Jupyter news?" toast over the page,
    # no request to the news feed or the update check.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
    # Attach every cell to the DOM, so outputs below the fold exist to be
    # inspected and the full-notebook screenshot shows them.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        # No blank page after the last cell: the screenshot's height is the notebook's.
        "scrollPastEnd": False,
    },
    # Autosave off: the server serves copies anyway, but nothing needs writing.
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {
        "autosave": False,
    },
}


def missing_requirements() -> str | None:
    """Why the browser tests cannot run here (None when they can)."""
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        return INSTALL_HINT.format(path=CHROMIUM)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return INSTALL_HINT.format(path=CHROMIUM)
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        return "the browser tests need JupyterLab: pip install -r requirements.txt"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class JupyterLabServer:
    """JupyterLab on 127.0.0.1 serving `notebooks` (copied into a temp folder), with throwaway dirs.

    Use as a context manager; `url` is the base URL (no token needed). A
    notebook is served as ``<its folder's name>/<file name>`` (`path_of`).
    The venv's data path is kept (it holds the widget and plotly lab extensions).
    """

    def __init__(self, notebooks: list[Path], *, startup_timeout: float = 60.0):
        self.notebooks = [Path(p) for p in notebooks]
        self.startup_timeout = startup_timeout
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp: Path | None = None
        self.root: Path | None = None
        self.log_path: Path | None = None
        self._proc: subprocess.Popen | None = None
        self._log = None

    def __repr__(self) -> str:
        state = "running" if self._proc and self._proc.poll() is None else "stopped"
        return f"JupyterLabServer({self.url}, {len(self.notebooks)} notebooks, {state})"

    def _write_settings(self, config_dir: Path) -> None:
        settings_dir = config_dir / "lab" / "user-settings"
        for relative, value in LAB_SETTINGS.items():
            path = settings_dir / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value, indent=1), encoding="utf-8")

    def start(self) -> "JupyterLabServer":
        self.tmp = Path(tempfile.mkdtemp(prefix="memlib-browser-"))
        self.root = self.tmp / "root"
        self.root.mkdir()
        for notebook in self.notebooks:
            # Each notebook keeps its folder (solutions/, notebooks/): both sets share file names.
            target = self.root / notebook.parent.name / notebook.name
            target.parent.mkdir(exist_ok=True)
            shutil.copy2(notebook, target)
        config_dir = self.tmp / "config"
        self._write_settings(config_dir)
        env = dict(os.environ)
        env.update({
            "JUPYTER_CONFIG_DIR": str(config_dir),
            "JUPYTER_RUNTIME_DIR": str(self.tmp / "runtime"),
            # The user data dir only holds the notebook-signing key here; the
            # lab extensions (widgets, plotly) stay found under sys.prefix.
            "JUPYTER_DATA_DIR": str(self.tmp / "data"),
            "JUPYTERLAB_SETTINGS_DIR": str(config_dir / "lab" / "user-settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(self.tmp / "workspaces"),
            "IPYTHONDIR": str(self.tmp / "ipython"),
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        })
        # Kernels run on this interpreter (the one with memlib), also when the
        # venv is not activated: a kernelspec saying "python" resolves via PATH.
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        cmd = [
            sys.executable, "-m", "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.allow_remote_access=False",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            # The "pypi" extension manager would query the package index from the page.
            "--LabApp.extension_manager=readonly",
            "--ServerApp.terminals_enabled=False",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")  # CI runs as root in a throwaway machine
        self.log_path = self.tmp / "jupyterlab.log"
        self._log = open(self.log_path, "wb")
        self._proc = subprocess.Popen(cmd, env=env, cwd=self.root, stdout=self._log, stderr=subprocess.STDOUT,
                                      start_new_session=True)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self._proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f"JupyterLab did not answer on {self.url} within {self.startup_timeout:.0f} s:\n"
                           f"{self.log_tail()}")

    @staticmethod
    def path_of(notebook: Path) -> str:
        """Where the server serves `notebook` (relative to its root), e.g. 'notebooks/03_archival_bm25.ipynb'."""
        return f"{Path(notebook).parent.name}/{Path(notebook).name}"

    def api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(f"{self.url}{path}", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Stop every running kernel (between notebooks, so two never compete for the 2 cores)."""
        for kernel in self.api("/api/kernels") or []:
            try:
                self.api(f"/api/kernels/{kernel['id']}", method="DELETE")
            except urllib.error.URLError:
                pass

    def log_tail(self, lines: int = 40) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            # The server runs in its own session: signal the group so its kernels go too.
            try:
                os.killpg(self._proc.pid, signal.SIGTERM)
                self._proc.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self._proc.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __enter__(self) -> "JupyterLabServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# -- driving one notebook ------------------------------------------------------

# Scripts evaluated in the page. They read the DOM only; all clicking and
# typing goes through Playwright so it behaves like a person's input.
_JS_STATE = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return null;
  const indicator = panel.querySelector('.jp-Notebook-ExecutionIndicator');
  // An empty code cell gets no execution count, so it is not counted.
  const code = [...panel.querySelectorAll('.jp-Notebook .jp-CodeCell')]
    .filter(c => ((c.querySelector('.cm-content') || {}).textContent || '').trim() !== '');
  const prompts = code.map(c => (c.querySelector('.jp-InputPrompt') || {}).textContent || '');
  return {
    status: indicator ? indicator.getAttribute('data-status') : null,
    kernel: (panel.querySelector('.jp-KernelName') || {}).textContent || '',
    codeCells: code.length,
    running: prompts.filter(p => p.includes('*')).length,
    executed: prompts.filter(p => /\\[\\d+\\]/.test(p)).length,
  };
}"""

_JS_ERRORS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const found = [];
  const cells = [...panel.querySelectorAll('.jp-Notebook .jp-Cell')];
  cells.forEach((cell, index) => {
    const outs = cell.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"],' +
      '.jp-RenderedText[data-mime-type*="error"]');
    outs.forEach(o => found.push({cell: index + 1, kind: 'stderr', text: o.textContent.slice(0, 3000)}));
    // ipywidgets reports a view it could not build as plain text in the output area.
    cell.querySelectorAll('.jp-OutputArea-output').forEach(o => {
      const t = o.textContent || '';
      if (/Error displaying widget|Failed to load model class|model not found/.test(t))
        found.push({cell: index + 1, kind: 'widget', text: t.slice(0, 1000)});
    });
  });
  return found;
}"""

# Marks each displayed widget: an output element holding a widget view that is
# not itself inside a widget (an explorer's Output shows plots of its own).
_JS_MARK_WIDGETS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  let n = 0;
  panel.querySelectorAll('.jp-Notebook .jp-OutputArea-output').forEach(out => {
    out.removeAttribute('data-memlib-widget');
    const outer = out.parentElement && out.parentElement.closest('.jupyter-widgets');
    if (!outer && out.querySelector('.jupyter-widgets')) out.setAttribute('data-memlib-widget', String(n++));
  });
  return n;
}"""
_WIDGET_OUTPUTS = "[data-memlib-widget]"

# The failures that a graded cell displays instead of raising (memlib.course.checking).
_JS_CHECK_FAILURES = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const found = [];
  [...panel.querySelectorAll('.jp-Notebook .jp-Cell')].forEach((cell, index) => {
    cell.querySelectorAll('.memlib-check-failed').forEach(f => found.push({cell: index + 1, text: f.innerText}));
  });
  return found;
}"""

_JS_DESCRIBE_WIDGET = """(out) => {
  const labels = (sel) => [...out.querySelectorAll(sel)].map(e => (e.textContent || '').trim());
  return {
    widgetNodes: out.querySelectorAll('.jupyter-widgets, [class*="widget-"]').length,
    buttons: labels('button'),
    sliderLabels: labels('.widget-slider .widget-label, .widget-hslider .widget-label'),
    textLabels: labels('.widget-text .widget-label'),
    radios: out.querySelectorAll('.widget-radio-box input[type=radio]').length,
    plots: out.querySelectorAll('.js-plotly-plot').length,
    placeholder: /Loading widget/.test(out.textContent || ''),
    text: (out.innerText || '').slice(0, 400),
  };
}"""

# What a person sees of a widget's plots: title and axis texts, bar labels and bar geometry.
_JS_PLOT_SIGNATURE = """(out) => [...out.querySelectorAll('.js-plotly-plot')].map(p => {
  const texts = [...p.querySelectorAll('text')].map(t => t.textContent).join('|');
  const bars = [...p.querySelectorAll('.bars path, .point path')].map(b => b.getAttribute('d')).join(';');
  return texts + '#' + bars;
}).join('\\n')"""

_JS_BAR_COUNT = """(out) => out.querySelectorAll('.js-plotly-plot .bars path, .js-plotly-plot .point path').length"""


@dataclass
class WidgetReport:
    """What the test learned about one displayed widget."""

    cell: int
    kind: str
    plots: int
    interaction: str = ""
    changed: bool | None = None

    def __repr__(self) -> str:
        change = {True: "changed", False: "DID NOT CHANGE", None: "not exercised"}[self.changed]
        return f"WidgetReport(cell {self.cell}, {self.kind}, {self.plots} plot(s), {self.interaction!r}: {change})"


def classify(description: dict) -> str:
    """Which memlib explorer a widget is, from its visible controls."""
    buttons = " ".join(description["buttons"])
    if "step" in buttons and "turn" in description["sliderLabels"]:
        return "ContextStepper"
    if "next frame" in buttons:
        return "TraceViewer"
    if "query" in description["textLabels"]:
        return "RetrievalExplorer"
    if description["radios"] and "Check" in description["buttons"]:
        return "Quiz"
    return "widget"


@dataclass
class NotebookPage:
    """One notebook open in JupyterLab in a Playwright page."""

    page: object
    base_url: str
    name: str
    console_errors: list[str] = field(default_factory=list)

    def open(self, timeout_s: float = 90) -> None:
        self.page.on("pageerror", lambda exc: self.console_errors.append(f"page error: {exc}"))
        # A workspace of its own per notebook: Lab would otherwise restore the
        # tabs of the previous page (and the command could go to the wrong one).
        workspace = re.sub(r"[^A-Za-z0-9_-]", "-", str(Path(self.name).with_suffix("")))
        self.page.goto(f"{self.base_url}/lab/workspaces/{workspace}/tree/{self.name}?reset",
                       wait_until="domcontentloaded",
                       timeout=timeout_s * 1000)
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=timeout_s * 1000)
        self.wait_for(lambda s: s and s["status"] == "idle" and "No Kernel" not in s["kernel"], timeout_s,
                      "the kernel to start")
        # Hide the file browser (View ▸ Show Left Sidebar) so screenshots show the notebook at full width.
        if self.page.query_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current"):
            self.page.click(".jp-NotebookPanel .jp-Notebook .jp-Cell")
            self.page.keyboard.press("Escape")
            self.page.keyboard.press("Control+b")

    def state(self) -> dict | None:
        return self.page.evaluate(_JS_STATE)

    def wait_for(self, predicate, timeout_s: float, what: str) -> dict:
        deadline = time.monotonic() + timeout_s
        state = None
        while time.monotonic() < deadline:
            state = self.state()
            if predicate(state):
                return state
            self.page.wait_for_timeout(250)
        raise TimeoutError(f"{self.name}: waited {timeout_s:.0f} s for {what}; last state {state}")

    def run_all(self, timeout_s: float = 120) -> dict:
        """Run ▸ Run All Cells from the menu bar, then wait until the kernel is idle and nothing is queued."""
        self.page.click('.lm-MenuBar-itemLabel:text-is("Run")')
        self.page.click('.lm-Menu-itemLabel:text-is("Run All Cells")')
        # Wait for the run to start (a queued prompt or a busy kernel), then for it to end.
        try:
            self.wait_for(lambda s: s["running"] > 0 or s["status"] != "idle" or s["executed"] > 0, 15,
                          "Run All to start")
        except TimeoutError:
            pass  # a notebook that runs instantly may already be done
        return self.wait_for(
            lambda s: s["running"] == 0 and s["status"] == "idle"
            and (s["executed"] == s["codeCells"] or self.errors()),
            timeout_s, "all cells to finish")

    def errors(self) -> list[dict]:
        return self.page.evaluate(_JS_ERRORS)

    def check_failures(self) -> list[dict]:
        """The failed checks shown on the page: [{cell (1-based), text}]."""
        return self.page.evaluate(_JS_CHECK_FAILURES)

    def widget_outputs(self) -> list:
        self.page.evaluate(_JS_MARK_WIDGETS)
        return self.page.query_selector_all(_WIDGET_OUTPUTS)

    def plots_outside_widgets(self) -> int:
        return self.page.evaluate("""() => [...document.querySelectorAll(
            '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .js-plotly-plot')]
            .filter(p => !p.closest('.jupyter-widgets')).length""")

    def cell_of(self, handle) -> int:
        return self.page.evaluate(
            """(out) => { const cells = [...document.querySelectorAll(
                   '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')];
               return cells.indexOf(out.closest('.jp-Cell')) + 1; }""", handle)

    def describe(self, handle) -> dict:
        return self.page.evaluate(_JS_DESCRIBE_WIDGET, handle)

    def plot_signature(self, handle) -> str:
        return self.page.evaluate(_JS_PLOT_SIGNATURE, handle)

    def wait_change(self, read, before, timeout_s: float = 15.0):
        """Poll `read()` until it differs from `before`; return the new value (or `before` on timeout)."""
        deadline = time.monotonic() + timeout_s
        value = read()
        while value == before and time.monotonic() < deadline:
            self.page.wait_for_timeout(200)
            value = read()
        return value

    def exercise(self, handle, kind: str) -> tuple[str, bool]:
        """Do one thing a student would do with the widget; return (what was done, whether the view changed)."""
        handle.scroll_into_view_if_needed()
        if kind in ("ContextStepper", "TraceViewer"):
            # Forward first; a viewer the notebook left on its last frame can only go back
            # (the stepper has no back button: one turn back with the slider's arrow key).
            forward = "step" if kind == "ContextStepper" else "next frame"
            done = []
            changed, note = self._click_and_watch(handle, forward, need_plot=True)
            done.append(note)
            if not changed and kind == "TraceViewer":
                changed, note = self._click_and_watch(handle, "back", need_plot=True)
                done.append(note)
            if not changed and kind == "ContextStepper":
                changed, note = self._slider_back_and_watch(handle)
                done.append(note)
            return ("; ".join(done), changed)
        if kind == "RetrievalExplorer":
            box = handle.query_selector(".widget-text input")
            old_query = box.input_value()
            query = self._new_query(handle, old_query)
            before = self.plot_signature(handle)
            box.fill(query)
            box.press("Enter")  # the query box updates on Enter (continuous_update=False)
            after = self.wait_change(lambda: self.plot_signature(handle), before)
            bars = self.page.evaluate(_JS_BAR_COUNT, handle)
            return (f"typed {query!r} (was {old_query!r}): {bars} bar(s)", after != before and bars > 0)
        if kind == "Quiz":
            before = handle.inner_text()
            handle.query_selector(".widget-radio-box input[type=radio]").check()
            handle.query_selector('button:has-text("Check")').click()
            after = self.wait_change(handle.inner_text, before)
            return ("picked the first answer of question 1 and pressed Check", after != before)
        # A widget this test does not know: press its buttons until one changes what is shown.
        for button in handle.query_selector_all("button"):
            label = (button.text_content() or "").strip()
            if label:
                changed, note = self._click_and_watch(handle, label, need_plot=False, timeout_s=5.0)
                if changed:
                    return (note, True)
        return ("no button of this widget changed what it shows", False)

    def _click_and_watch(self, handle, label: str, *, need_plot: bool, timeout_s: float = 6.0) -> tuple[bool, str]:
        """Click the button whose label contains `label`; wait for the text (and the plot) to change."""
        button = handle.query_selector(f'button:has-text("{label}")')
        if button is None:
            return (False, f"no '{label}' button")
        before_plot, before_text = self.plot_signature(handle), handle.inner_text()
        button.click()
        deadline = time.monotonic() + timeout_s
        while True:
            plot, text = self.plot_signature(handle), handle.inner_text()
            plot_changed, text_changed = plot != before_plot, text != before_text
            if (plot_changed or not need_plot) and text_changed or time.monotonic() > deadline:
                break
            self.page.wait_for_timeout(200)
        changed = text_changed and (plot_changed or not need_plot)
        return (changed, f"clicked '{label}': plot {'redrawn' if plot_changed else 'unchanged'}, "
                         f"text {'changed' if text_changed else 'unchanged'}")

    def _slider_back_and_watch(self, handle, timeout_s: float = 6.0) -> tuple[bool, str]:
        """Focus the slider's handle and press ArrowLeft (one turn back); wait for text and plot to change."""
        knob = handle.query_selector(".widget-slider .noUi-handle, .widget-slider .ui-slider-handle")
        if knob is None:
            return (False, "no slider handle to move")
        before_plot, before_text = self.plot_signature(handle), handle.inner_text()
        knob.focus()
        knob.press("ArrowLeft")
        deadline = time.monotonic() + timeout_s
        while True:
            plot, text = self.plot_signature(handle), handle.inner_text()
            if (plot != before_plot and text != before_text) or time.monotonic() > deadline:
                break
            self.page.wait_for_timeout(200)
        changed = plot != before_plot and text != before_text
        return (changed, f"slider one step back: plot {'redrawn' if plot != before_plot else 'unchanged'}, "
                         f"text {'changed' if text != before_text else 'unchanged'}")

    def _new_query(self, handle, old_query: str) -> str:
        """What a student might type next: another of the explorer's example questions, else a word it shows."""
        examples = self.page.evaluate(
            """(out) => [...out.querySelectorAll('.widget-dropdown')]
                 .filter(d => ((d.querySelector('.widget-label') || {}).textContent || '').trim() === 'examples')
                 .flatMap(d => [...d.querySelectorAll('select option')]
                                 .map(o => o.textContent.replace(/\u00a0/g, ' ').trim()))""",
            handle)
        for example in examples:
            if example and example != old_query.strip() and len(example) > 3:
                return example
        old = set(re.findall(r"\w+", old_query.lower()))
        words = [w.lower() for w in re.findall(r"[A-Za-z]{5,}", handle.inner_text())]
        for word in reversed(words):
            if word not in old and word not in {"query", "score", "scorer", "session", "source", "trust", "trusted",
                                                "untrusted", "unverified", "results", "matched", "examples"}:
                return word
        return "memory"

    def screenshots(self, folder: Path, stem: str, widgets: list[tuple[object, str]], *,
                    max_height: int = 15000) -> list[Path]:
        """Save the whole notebook as `stem`.png and each widget as `stem`.widget-N-kind.png.

        The notebook scrolls inside its own panel, so the window grows by what
        is hidden below for the shots (capped at `max_height` pixels).
        """
        folder.mkdir(parents=True, exist_ok=True)
        for old in [*folder.glob(f"{stem}.png"), *folder.glob(f"{stem}.widget-*.png")]:
            old.unlink()  # a widget that is gone must not leave its old picture behind
        size = self.page.viewport_size
        measure = """() => {
          const outer = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
          if (!outer) return 0;
          outer.scrollTop = 0;
          return outer.scrollHeight - outer.clientHeight; }"""
        try:
            # Some outputs lay out taller in a taller window: grow until nothing is hidden.
            height = size["height"]
            for _ in range(4):
                hidden = self.page.evaluate(measure)
                if hidden <= 0 or height >= max_height:
                    break
                height = min(height + hidden + 24, max_height)
                self.page.set_viewport_size({"width": size["width"], "height": height})
                self.page.wait_for_timeout(700)  # let plotly and Lumino relayout at the new size
            self.page.evaluate(measure)
            saved = [folder / f"{stem}.png"]
            self.page.screenshot(path=str(saved[0]))
            for number, (handle, kind) in enumerate(widgets, start=1):
                target = folder / f"{stem}.widget-{number}-{kind}.png"
                handle.screenshot(path=str(target))
                saved.append(target)
            return saved
        finally:
            self.page.set_viewport_size(size)
