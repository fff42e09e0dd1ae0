"""A failed check is an error under every program that runs a notebook, and only a student's Run All keeps going.

The kernel test sends ``execute_request`` messages to a real IPython kernel
(jupyter_client's KernelManager) with and without ``allow_stdin``: JupyterLab,
Colab and VS Code allow stdin, every nbclient-based runner does not. The
runner tests execute an unsolved student notebook, stamped setup cell
included, under ``jupyter nbconvert --execute``, nbclient and papermill, and
assert that each stops at the graded cell with `CheckFailed` as the error.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from memlib.course import checking
from memlib.course.release import colab_setup_source, graded_cells
from pg_server import skip_or_fail  # skip with the reason; fail under CI=true

ROOT = Path(__file__).resolve().parents[1]
UNSOLVED = ROOT / "notebooks" / "03_archival_bm25.ipynb"
NOT_SOLVED = "not solved yet: Exercise 2:"
CELL_TIMEOUT = 120

STUB = 'def how_many_fit(messages, window, system_prompt="", reserve=0):\n    raise NotImplementedError("Exercise 0: do it")\n'
GRADED = "from memlib.course.checks import check_token_budget\n\ncheck_token_budget(how_many_fit)"


def _kernel_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (checking.STRICT_ENV, *checking.RUNNER_ENVS)}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return {**env, **extra}


@pytest.fixture(scope="module")
def kernel():
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    km.start_kernel(env=_kernel_env())
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def execute(kc, code: str, *, allow_stdin: bool) -> tuple[str, list[tuple[str, dict]]]:
    """(execute_reply status, [(iopub msg_type, content)]) of one execute_request with the given allow_stdin."""
    for _ in range(50):
        msg_id = kc.execute(code, store_history=True, allow_stdin=allow_stdin, stop_on_error=False)
        reply = kc.get_shell_msg(timeout=CELL_TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=CELL_TIMEOUT)
        outputs = []
        while True:
            msg = kc.get_iopub_msg(timeout=CELL_TIMEOUT)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            if msg["msg_type"] in ("stream", "error", "display_data", "execute_result"):
                outputs.append((msg["msg_type"], msg["content"]))
        if reply["content"]["status"] != "aborted":  # a request that reached the kernel right after an error
            return reply["content"]["status"], outputs
        time.sleep(0.1)
    raise AssertionError(f"the kernel aborted {code[:60]!r} 50 times")


def _strict(kc, code: str = GRADED, *, allow_stdin: bool) -> bool:
    """True when the graded cell failed as an error; False when it completed and displayed the failure."""
    status, outputs = execute(kc, code, allow_stdin=allow_stdin)
    if status == "error":
        error = next(c for t, c in outputs if t == "error")
        assert error["ename"] == "CheckFailed" and "not solved yet: Exercise 0" in error["traceback"][0]
        return True
    assert status == "ok", outputs
    shown = [c for t, c in outputs if t == "display_data"]
    assert len(shown) == 1 and "memlib-check-failed" in shown[0]["data"]["text/html"], outputs
    return False


def test_a_failed_check_keeps_going_only_for_a_request_that_allows_stdin_after_the_setup_cell(kernel):
    assert execute(kernel, STUB, allow_stdin=True)[0] == "ok"
    # before the setup cell: strict for everyone
    assert _strict(kernel, allow_stdin=True) and _strict(kernel, allow_stdin=False)
    # a runner (no stdin) runs the setup cell too: still strict
    assert execute(kernel, colab_setup_source(), allow_stdin=False)[0] == "ok"
    assert _strict(kernel, allow_stdin=False)
    # a front end with a person at it (JupyterLab, Colab, VS Code) keeps going; the flag is per request
    assert not _strict(kernel, allow_stdin=True)
    assert _strict(kernel, allow_stdin=False)
    assert not _strict(kernel, allow_stdin=True)
    # nbgrader's marker and the grader's variable win over stdin
    for name, value in (("NBGRADER_EXECUTION", "autograde"), (checking.STRICT_ENV, "1")):
        assert execute(kernel, f"import os; os.environ[{name!r}] = {value!r}", allow_stdin=True)[0] == "ok"
        assert _strict(kernel, allow_stdin=True), name
        assert execute(kernel, f"del os.environ[{name!r}]", allow_stdin=True)[0] == "ok"
    assert not _strict(kernel, allow_stdin=True)
    # a student's cell that sets the switch by hand changes nothing for a runner
    assert execute(kernel, "import memlib.course.checking as k\nk._mode['keep_going'] = True", allow_stdin=False)[0] == "ok"
    assert _strict(kernel, allow_stdin=False)


def test_outside_a_kernel_the_switch_does_nothing():
    checking.keep_going_after_failures()
    assert checking.failures_raise()


def test_runner_variables_make_checks_strict(monkeypatch):
    for name in (checking.STRICT_ENV, *checking.RUNNER_ENVS):
        monkeypatch.delenv(name, raising=False)
    assert checking._runner_env() is None
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    assert checking._runner_env() == "NBGRADER_EXECUTION" and checking.failures_raise()
    monkeypatch.setenv("NBGRADER_EXECUTION", "0")
    assert checking._runner_env() is None


# -- real runners on an unsolved student notebook ---------------------------------------


def _require(module: str):
    """Import `module` (pinned in requirements-test.txt); skip saying so, or fail under CI=true, when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        skip_or_fail(f"{module.split('.')[0]} is not installed: pip install -r requirements-test.txt")


def _unsolved(tmp_path: Path) -> Path:
    """The released notebook 03 in a folder of its own (what a student downloads), setup cell included."""
    target = tmp_path / UNSOLVED.name
    target.write_bytes(UNSOLVED.read_bytes())
    nb = nbformat.read(str(target), as_version=4)
    assert any("colab-setup" in c.metadata.get("tags", []) and "keep_going_after_failures()" in c.source
               for c in nb.cells), "the runners must meet the stamped setup cell"
    return target


def _assert_stopped_at_the_graded_cell(nb) -> None:
    """Every cell up to the graded one ran without error, the graded one raised CheckFailed, none after ran."""
    graded = graded_cells(nb)[0]
    errors = [(i, o) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert [i for i, _ in errors] == [graded.index], errors
    error = errors[0][1]
    assert error["ename"] == "CheckFailed" and NOT_SOLVED in error["evalue"], error
    setup = next(c for c in nb.cells if "colab-setup" in c.metadata.get("tags", []))
    assert setup.execution_count is not None, "the setup cell ran"
    after = [c for c in nb.cells[graded.index + 1:] if c.cell_type == "code" and c.execution_count is not None]
    assert after == [], "the run went on past the failed graded cell"


@pytest.mark.slow
def test_nbconvert_execute_fails_at_the_graded_cell(tmp_path):
    notebook = _unsolved(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", str(notebook),
         "--output-dir", str(tmp_path / "out"), f"--ExecutePreprocessor.timeout={CELL_TIMEOUT}"],
        env=_kernel_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode != 0, done.stderr[-2000:]
    assert "CheckFailed" in done.stderr and NOT_SOLVED in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / "out" / notebook.name).exists()  # nbconvert writes no notebook for a failed run


@pytest.mark.slow
def test_nbclient_fails_at_the_graded_cell(tmp_path, monkeypatch):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    for name in (checking.STRICT_ENV, *checking.RUNNER_ENVS):
        monkeypatch.delenv(name, raising=False)
    notebook = _unsolved(tmp_path)
    nb = nbformat.read(str(notebook), as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(CellExecutionError) as info:
        client.execute()
    assert info.value.ename == "CheckFailed"
    _assert_stopped_at_the_graded_cell(nb)


@pytest.mark.grading
@pytest.mark.slow
def test_papermill_fails_at_the_graded_cell(tmp_path, monkeypatch):
    papermill = _require("papermill")
    from papermill.exceptions import PapermillExecutionError

    for name in (checking.STRICT_ENV, *checking.RUNNER_ENVS):
        monkeypatch.delenv(name, raising=False)
    notebook = _unsolved(tmp_path)
    out = tmp_path / "out.ipynb"
    with pytest.raises(PapermillExecutionError) as info:
        papermill.execute_notebook(str(notebook), str(out), cwd=str(tmp_path), progress_bar=False,
                                   execution_timeout=CELL_TIMEOUT, kernel_name="python3")
    assert info.value.ename == "CheckFailed" and NOT_SOLVED in info.value.evalue
    _assert_stopped_at_the_graded_cell(nbformat.read(str(out), as_version=4))
