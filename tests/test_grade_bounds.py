"""The host bounded per student: output per notebook, the wire's decode cost, the checker's memory.

Real kernels and real checker processes; the numbers are the module constants the README states.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memlib.course import checker, sandbox as sandboxing, wire
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
