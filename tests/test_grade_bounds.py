"""The host bounded per student: output per notebook (errors and tiny outputs counted too), the wire's decode cost, the checker's memory.

Real kernels and real checker processes; the numbers are the module constants the README states.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path
from queue import Empty

import nbformat
import pytest

from conftest import cell_index, solved, write_notebook
from memlib.course import checker, kernel_run, sandbox as sandboxing, wire
from memlib.course.kernel_run import ERROR, OK, run_notebook

pytestmark = pytest.mark.grading


def _cells(*sources: str) -> dict:
    return {"cells": [{"cell_type": "code", "source": s, "metadata": {}} for s in sources]}


def test_output_is_capped_per_notebook_not_only_per_cell(tmp_path: Path) -> None:
    sandbox, _ = sandboxing.resolve("auto")
    nb = _cells(*["print('x' * 300_000)"] * 10, "1 / 0", "print('last')")
    run = run_notebook(nb, sandbox, tmp_path, [], cell_timeout=30, timeout=300, output_cap=400_000,
                       notebook_output_cap=1_000_000)
    kept = sum(len(o.get("text", "")) for c in run.cells for o in c.outputs if o["output_type"] == "stream")
    assert kept <= 1_000_000 + 1_000  # the cut notes
    assert all(c.status == OK for c in run.cells[:10]) and sum(c.output_chars for c in run.cells[:10]) >= 3_000_000
    assert "the notebook's cells printed 1,000,000 characters in all" in "".join(
        o.get("text", "") for o in run.cells[5].outputs)
    # past the cap an error is still there for the student to read, short
    error = run.cells[10]
    assert error.status == ERROR and error.ename == "ZeroDivisionError"
    assert run.cells[11].status == OK


def test_the_first_cell_of_a_new_kernel_keeps_its_output(tmp_path: Path) -> None:
    """The grader starts a cell only once iopub carries the kernel's messages: before its subscription
    reached the kernel, what the kernel published was lost (one first cell in five lost its whole print,
    and CI failed on it). A fresh kernel each time; the old code lost at least one of eight about 83 % of runs."""
    sandbox, _ = sandboxing.resolve("auto")
    for attempt in range(8):
        run = run_notebook(_cells("print('x' * 300_000)"), sandbox, tmp_path / str(attempt), [], cell_timeout=30,
                           timeout=120)
        assert run.cells[0].output_chars == 300_001, attempt


LATE_SECONDS = 1.5  # how late each iopub message arrives


def test_output_that_arrives_after_the_reply_is_kept(tmp_path: Path, monkeypatch) -> None:
    """The execute reply (shell socket) can come before the cell's output (iopub socket): the grader waits
    for the cell's idle status, not a fixed second after the reply."""
    from jupyter_client.blocking import BlockingKernelClient

    class Late(BlockingKernelClient):  # the real client, each iopub message held back LATE_SECONDS
        def get_iopub_msg(self, timeout=None):
            held = self.__dict__.setdefault("_held", [])
            try:
                held.append((time.monotonic(), super().get_iopub_msg(timeout=0)))
            except Empty:
                pass
            if held and time.monotonic() - held[0][0] >= LATE_SECONDS:
                return held.pop(0)[1]
            time.sleep(timeout or 0)
            raise Empty

    monkeypatch.setattr("jupyter_client.blocking.BlockingKernelClient", Late)
    sandbox, _ = sandboxing.resolve("auto")
    run = run_notebook(_cells("print('x' * 300_000)", "print('y')"), sandbox, tmp_path, [], cell_timeout=30,
                       timeout=120)
    assert [(c.status, c.output_chars) for c in run.cells] == [(OK, 300_001), (OK, 2)]
    assert run.cells[1].stdout == "y\n"


# A cell that sends error outputs in a loop, each with a ~6 KB message and traceback (attack3's x01b).
ERROR_FLOOD = """import sys, time
ip = get_ipython()
try:
    raise ValueError("E" * 1000)
except ValueError:
    etype, evalue, tb = sys.exc_info()
stb = ["T" * 1000] * 5
sent, started = 0, time.time()
while time.time() - started < SECONDS:
    ip._showtraceback(etype, evalue, stb)
    sent += 1
print("sent", sent)
"""


def _kept(outputs: list[dict]) -> int:
    """The characters of `outputs` as the caps count them (text, name, message, traceback lines)."""
    return sum(len(o.get("text", "")) + len(o.get("data", {}).get("text/plain", "")) + len(o.get("ename", ""))
               + len(o.get("evalue", "")) + sum(len(line) for line in o.get("traceback", [])) for o in outputs)


def test_every_kind_of_output_counts_toward_the_cap(tmp_path: Path) -> None:
    sandbox, _ = sandboxing.resolve("auto")
    nb = _cells("from IPython.display import display\nfor _ in range(5_000):\n    display(1)",  # a count, not a time:
                # a loaded machine displays fewer per second, and 5,000 tiny ones pass the cap whatever the load
                ERROR_FLOOD.replace("SECONDS", "2") + "raise KeyError('the last one')",
                "print('z' * 10_000)")
    run = run_notebook(nb, sandbox, tmp_path, [], cell_timeout=30, timeout=120, output_cap=100_000,
                       notebook_output_cap=150_000)
    displays, errors, after = run.cells
    # tiny displays: their number is bounded too (each counts OUTPUT_OVERHEAD_CHARS besides its text)
    assert displays.status == OK and len(displays.outputs) <= 100_000 // kernel_run.OUTPUT_OVERHEAD_CHARS + 1
    note = displays.outputs[-1]["text"]
    assert "[grader: output of this cell cut after 100,000 characters; " in note and "more outputs and" in note
    # the errors: at most what was left of the notebook's cap, one note, and the cell's last error, short
    assert errors.status == ERROR and errors.ename == "KeyError" and "the last one" in errors.evalue
    assert _kept(errors.outputs) <= 50_000 + kernel_run.CELL_EXTRA_CHARS
    assert "the notebook's cells printed 150,000 characters in all" in errors.outputs[-2]["text"]
    assert errors.outputs[-1]["ename"] == "KeyError" and errors.output_chars > 1_000_000
    # what was left of the notebook's cap, and no more
    assert after.status == OK and len(after.stdout) < 10_000
    assert "the notebook's cells printed 150,000 characters in all" in after.outputs[-1]["text"]
    assert sum(c.output_kept for c in run.cells) <= 150_000
    assert sum(_kept(c.outputs) for c in run.cells) <= 150_000 + 3 * kernel_run.CELL_EXTRA_CHARS


@pytest.mark.slow
def test_an_error_flood_keeps_the_grader_and_executed_ipynb_bounded(course, tmp_path: Path) -> None:
    released = course["release"]
    nb = solved(released)
    nb.cells.insert(cell_index(nb, "def add"), nbformat.v4.new_code_cell(ERROR_FLOOD.replace("SECONDS", "6")))
    write_notebook(tmp_path / "submissions" / "flood", nb)
    write_notebook(tmp_path / "submissions" / "honest", solved(released))
    out, work = tmp_path / "grades.csv", tmp_path / "work"
    done = subprocess.run(
        [sys.executable, "-c", "import resource, sys\nfrom memlib.course.grade import main\ncode = main(sys.argv[1:])\n"
         "print('MAXRSS-KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\nsys.exit(code)",
         str(tmp_path / "submissions" / "flood"), str(tmp_path / "submissions" / "honest"), "--release", str(released),
         "--out", str(out), "--keep-work", str(work), "--cell-timeout", "60", "--timeout", "120", "--quiet"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {(r["student"], r["grade_id"]): (r["points"], r["status"])
            for r in csv.DictReader(out.open(encoding="utf-8"))}
    for grade_id in ("fixture-add", "fixture-words"):  # the honest answers in the flooded notebook keep their points
        assert rows[("flood", grade_id)] == rows[("honest", grade_id)] and rows[("flood", grade_id)][1] == "passed"
    (executed,) = work.glob("flood-*/as-handed-in/executed.ipynb")
    cells = [c for c in json.loads(executed.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    flood = next(c for c in cells if c["source"].startswith("import sys, time"))
    note = next(o["text"] for o in flood["outputs"] if o.get("name") == "stderr")
    dropped = int(note.split(" more outputs and ")[1].split(" characters dropped")[0].replace(",", ""))
    assert dropped > 10 * kernel_run.OUTPUT_CAP_CHARS  # the flood was real
    assert _kept(flood["outputs"]) <= kernel_run.OUTPUT_CAP_CHARS + kernel_run.CELL_EXTRA_CHARS
    assert sum(_kept(c["outputs"]) for c in cells) <= (kernel_run.NOTEBOOK_OUTPUT_CAP_CHARS
                                                       + len(cells) * kernel_run.CELL_EXTRA_CHARS)
    own = len(json.dumps([c["source"] for c in cells])) + 2_000 * len(cells)  # the cells themselves, roughly
    assert executed.stat().st_size <= own + 2 * kernel_run.OUTPUT_CAP_CHARS  # plain text: ~1 byte a character
    max_rss_mb = int(done.stdout.split("MAXRSS-KB")[1].split()[0]) / 1024
    # one student's harm stays under a gigabyte (this flood took the grader to 3.8 GB before the output caps
    # counted errors); what remains is the kernel's messages queued before the grader reads them, more on a
    # loaded machine (93 MB alone, 409 MB seen under a CI run)
    assert max_rss_mb < 1024, f"the grader grew to {max_rss_mb:.0f} MB"


METADATA_BOMB = """from IPython.display import publish_display_data
blob = [{}] * 8_000_000
for _ in range(3):
    publish_display_data({"text/plain": "ok"}, metadata={"m": blob})
print("after the bomb")"""


@pytest.mark.slow
def test_a_display_message_of_millions_of_values_is_dropped_unparsed(course, tmp_path: Path) -> None:
    """Attack 11: three display messages of 15 million empty objects each (under the 64 MiB message cap)
    took the grader's own process to 2.35 GB while it parsed them. A part of a message with more than
    MAX_MESSAGE_VALUES values is now dropped before parsing; the cell's other output and the notebook's
    points stay."""
    released = course["release"]
    nb = solved(released)
    nb.cells.insert(cell_index(nb, "def add"), nbformat.v4.new_code_cell(METADATA_BOMB))
    write_notebook(tmp_path / "submissions" / "bomb", nb)
    out, work = tmp_path / "grades.csv", tmp_path / "work"
    done = subprocess.run(
        [sys.executable, "-c", "import resource, sys\nfrom memlib.course.grade import main\ncode = main(sys.argv[1:])\n"
         "print('MAXRSS-KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\nsys.exit(code)",
         str(tmp_path / "submissions" / "bomb"), "--release", str(released), "--out", str(out),
         "--keep-work", str(work), "--quiet"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {r["grade_id"]: r["status"] for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert rows["fixture-add"] == rows["fixture-words"] == "passed"
    (executed,) = work.glob("bomb-*/as-handed-in/executed.ipynb")
    bomb = next(c for c in json.loads(executed.read_text(encoding="utf-8"))["cells"]
                if c["cell_type"] == "code" and c["source"].startswith("from IPython.display"))
    assert [o.get("text") for o in bomb["outputs"]] == ["after the bomb\n"]  # the three messages dropped
    max_rss_mb = int(done.stdout.split("MAXRSS-KB")[1].split()[0]) / 1024
    assert max_rss_mb < 500, f"the grader grew to {max_rss_mb:.0f} MB"  # one message parsed: ~600 MB


def test_a_part_of_a_message_is_parsed_only_under_its_count_of_values() -> None:
    import tracemalloc

    fine = json.dumps({"data": {"text/plain": "ok"}, "metadata": {"m": [{}] * 1000}}).encode()
    assert kernel_run._bounded_unpack(fine)["metadata"]["m"] == [{}] * 1000
    assert kernel_run._bounded_unpack('{"é": 1}'.encode()) == {"é": 1}
    bomb = b"[" + b",".join([b"{}"] * (kernel_run.MAX_MESSAGE_VALUES + 1)) + b"]"
    tracemalloc.start()
    try:
        dropped = kernel_run._bounded_unpack(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert dropped["dropped_by_grader"] and dropped["msg_type"] == "" and peak < 3 * len(bomb)


def test_a_message_is_bounded_in_items_before_it_is_parsed() -> None:
    many = "[" + ",".join(["[]"] * (wire.MAX_ITEMS // 2 + 1)) + "]"
    assert len(many) < wire.MAX_CHARS
    with pytest.raises(wire.WireError, match="items"):
        wire.loads(many)
    with pytest.raises(wire.WireError, match="characters"):
        wire.loads('"' + "a" * wire.MAX_CHARS + '"')
    assert wire.loads("[" + ",".join(["[]"] * 1000) + "]") == [[]] * 1000


def test_the_grader_forwards_a_reply_only_once_its_size_is_bounded() -> None:
    echo = subprocess.Popen([sys.executable, "-c", "import sys; print(sys.stdin.readline(), end='')"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    checker._forward(echo, "[" + ",".join(["[]"] * (wire.MAX_ITEMS + 1)) + "]")
    line, _ = echo.communicate(timeout=30)
    error = json.loads(line)["error"]
    assert "your answer returned a value of about" in error["message"] and "items" in error["message"]
    echo = subprocess.Popen([sys.executable, "-c", "import sys; print(sys.stdin.readline(), end='')"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    checker._forward(echo, '{"ok": 1}\n{"ok": 2}')  # two lines from a hostile kernel: one refused reply
    line, _ = echo.communicate(timeout=30)
    assert "more than one line" in json.loads(line)["error"]["message"]


def test_the_kernel_says_its_answer_is_too_large_before_sending_it() -> None:
    from memlib.course import serve

    text = serve._sized(wire.dumps([[]] * (wire.MAX_ITEMS + 1)))
    assert "your answer returned a value of about" in json.loads(text)["error"]["message"]


def test_the_checker_process_runs_under_its_memory_limit() -> None:
    code = ("import resource, sys\nfrom memlib.course.checker import _limit_memory\n"
            "_limit_memory(['--memory', str(512 * 2**20)])\n"
            "print(resource.getrlimit(resource.RLIMIT_AS)[0])\n"
            "try:\n    b = bytearray(800 * 2**20)\nexcept MemoryError:\n    print('MemoryError')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == [str(512 * 2**20), "MemoryError"], done.stderr
    assert checker.CHECKER_MEMORY == 2**30


def test_the_grader_starts_its_checker_with_the_limit(tmp_path: Path) -> None:
    import time

    process = checker._start_checker([], tmp_path)
    try:
        deadline = time.monotonic() + 30
        limit = ""
        while time.monotonic() < deadline and not limit:
            limits = Path(f"/proc/{process.pid}/limits").read_text()
            line = next(l for l in limits.splitlines() if l.startswith("Max address space"))
            limit = line.split()[3] if line.split()[3] != "unlimited" else ""
            time.sleep(0.05)
        assert limit == str(checker.CHECKER_MEMORY)
    finally:
        process.kill()
        process.wait()


def test_a_notebook_of_too_many_characters_is_refused_before_it_is_parsed() -> None:
    """Attack 12: three 71 MB notebooks, each line with an emoji (Python keeps such a text at 4 bytes a
    character), took the grader to 1.8 GB. Past MAX_NOTEBOOK_CHARS the file is refused unparsed."""
    from memlib.course.grading import collect

    cell = {"cell_type": "markdown", "metadata": {}, "source": "x" * (collect.MAX_NOTEBOOK_CHARS + 1)}
    data = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    nb, error, _ = collect.read_submission_notebook(data)
    assert nb is None and "more than the grader reads" in error and "clear its outputs" in error


def test_a_planned_notebook_is_read_again_when_its_job_runs_not_held(course, tmp_path) -> None:
    """Attack 13: nine 104 MB notebooks of one student, each under every cap, held (packed) for the whole run
    took the grader to 1.9 GB. A submission's files are read one at a time when planned, and again when
    their job runs: none is held in between."""
    import zipfile

    from memlib.course.grading import collect

    nb = solved(course["release"])
    path = write_notebook(tmp_path / "ada", nb)
    found = collect._Found(path.name, None, origin=("file", path))
    job = collect._Job("ada", None, found, readable=True)  # type: ignore[arg-type]
    assert job.notebook() == nb and found.data is None
    assert collect._Job("bo", None, None).notebook() is None  # type: ignore[arg-type]
    # a zip may name two entries alike: each is read again by its position
    other = solved(course["release"])
    other.cells[0].source = "another"
    archive = tmp_path / "grace.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("01.ipynb", nbformat.writes(nb))
        handle.writestr("01.ipynb", nbformat.writes(other))
    entries, _ = collect._collect(collect._Submission("grace", archive))
    assert [e.data for e in entries] == [None, None]
    assert [collect.read_submission_notebook(e.read())[0].cells[0].source for e in entries] == [
        nb.cells[0].source, "another"]
