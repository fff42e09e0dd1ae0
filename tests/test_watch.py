"""The kernel's reference watch (memlib.course.watch, memlib.course.serve): which code is the student's.

Attack 11 blinded it three ways, each with a reference fetched in a way the source reading did not follow:
a cell given a frozen module's kind of file name (ipykernel takes it from IPYKERNEL_CELL_NAME), a memlib
function that calls whatever it is handed (memlib.scaling.time_each), and a thread started before the
check (the watch profiles threads it sees start). Here each is shown to the watch alone, then graded.
"""

from __future__ import annotations

import csv
import json
import os
import threading
from pathlib import Path

import pytest
from test_grade_provenance import _submission

from memlib.course import serve
from memlib.course.watch import ReferenceWatch, is_library_file

ROOT = Path(__file__).resolve().parents[1]
SCAN = ["memlib.guard:scan"]


def _cell(code: str, filename: str) -> dict:
    """The namespace of a notebook whose one cell is `code`, compiled under `filename`."""
    notebook: dict = {}
    exec(compile(code, filename, "exec"), notebook)
    return notebook


def test_only_a_module_the_interpreter_froze_has_a_frozen_file_name() -> None:
    assert is_library_file("<frozen importlib._bootstrap>")
    assert not is_library_file("<frozen notes>") and not is_library_file("<frozen >")
    assert not is_library_file("<ipython-input-3-abc>")


@pytest.mark.parametrize("filename", ["<frozen notes>", os.__file__, "<ipython-input-1-x>"])
def test_the_notebooks_code_is_the_students_whatever_its_file_is_called(filename: str) -> None:
    notebook = _cell("from memlib.guard import scan\ndef my_scan(text):\n    return scan(text)", filename)
    watch = ReferenceWatch(SCAN, notebook=notebook)
    with watch:
        notebook["my_scan"]("water the plants")
    assert watch.used == ["memlib.guard.scan"]


def test_without_the_notebooks_namespace_a_library_file_name_would_pass_for_the_librarys() -> None:
    """What the namespace adds: judged by its file name alone, a cell compiled as os.py is the library's."""
    notebook = _cell("import sys\ndef here():\n    return sys._getframe()", os.__file__)
    frame = notebook["here"]()
    assert ReferenceWatch(SCAN, notebook=notebook).is_students(frame)
    assert not ReferenceWatch(SCAN, notebook={}).is_students(frame)


def test_memlib_code_that_calls_what_it_was_handed_does_not_stop_the_watch() -> None:
    notebook = _cell("from memlib.guard import scan\nfrom memlib.scaling import time_each\n"
                     "def my_scan(text):\n    time_each(scan, [text], 1)\n    return scan", "<ipython-input-1-x>")
    watch = ReferenceWatch(SCAN, notebook=notebook)
    with watch:
        notebook["my_scan"]("water the plants")
    assert watch.used == ["memlib.guard.scan"]


@pytest.mark.parametrize("code", [
    # attack 12: memlib's public code that calls the reference itself launders nothing
    "from memlib.evaluation import RulesGuard\ndef my_scan(text):\n    return RulesGuard().flags(text)",
    "from types import SimpleNamespace\nfrom memlib.scanner import quote_as_data\n"
    "def my_scan(text):\n    return quote_as_data(SimpleNamespace(id='n', text=text))",
])
def test_an_answer_that_reaches_the_reference_through_memlibs_public_code_is_noted(code: str) -> None:
    notebook = _cell(code, "<ipython-input-1-x>")
    watch = ReferenceWatch(SCAN, notebook=notebook)
    with watch:
        notebook["my_scan"]("water the plants")
    assert watch.used == ["memlib.guard.scan"]


def test_the_courses_own_code_calling_a_reference_is_not_the_students() -> None:
    """A check computes what is expected with the reference: under the watch, that is no call of the student's."""
    from memlib.course.checking import CheckFailed
    from memlib.course.checks.nb01_token_budget import _budget_cases, _judge_budgets, reference_how_many_fit

    watch = ReferenceWatch(["memlib.course.checks.nb01_token_budget:reference_how_many_fit"], notebook={})
    cases = _budget_cases()  # (this test's frame switches the watch on: like a check's wrapper, the walk's end)
    with watch:
        with pytest.raises(CheckFailed):
            _judge_budgets(lambda messages, window, system_prompt, reserve: 0, cases)  # the check's expected counts
        assert watch.used == []
        notebook = _cell("def mine(*args):\n    return reference(*args)", "<ipython-input-1-x>")
        notebook["reference"] = reference_how_many_fit
        notebook["mine"](*cases[0][1:])  # a notebook's own call: the student's
    assert watch.used == ["memlib.course.checks.nb01_token_budget.reference_how_many_fit"]


def test_the_courses_helpers_handed_a_reference_by_the_answer_do_not_hide_it() -> None:
    """Attack 14: the answer had the course's judge_parts call the reference (through C glue: map,
    list.extend), and the walk stopped at the course's frame. It ends only where the watch was switched on."""
    notebook = _cell("import functools\nfrom memlib.guard import scan\n"
                     "from memlib.course.checking import judge_parts\n"
                     "def my_scan(text):\n    out = []\n"
                     "    judge_parts([functools.partial(out.extend, map(scan, [text]))])\n    return out[0]",
                     "<ipython-input-1-x>")
    watch = ReferenceWatch(SCAN, notebook=notebook)
    with watch:
        notebook["my_scan"]("water the plants")
    assert watch.used == ["memlib.guard.scan"]


def test_the_graders_hook_runs_none_of_the_students_code() -> None:
    """Attack 15: `__name__` rebound to a str subclass ran the student's code inside the profile hook (which
    read the module's name with str()), where no call is seen. The hook reads it only when it is a str."""
    notebook = _cell("ran = []\nclass _Name(str):\n    def __str__(self):\n        ran.append(1)\n"
                     "        return '__main__'\n__name__ = _Name('__main__')\n"
                     "def tick():\n    pass\ndef my_scan(text):\n    tick()\n    return text", "<ipython-input-1-x>")
    watch = serve._watch(SCAN, [])
    watch.notebook = notebook
    with watch:
        notebook["my_scan"]("water the plants")
    assert notebook["ran"] == []


def test_a_thread_the_notebook_started_is_seen_while_it_lives() -> None:
    before = serve._notebook_threads()
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert serve._notebook_threads()
    finally:
        stop.set()
        worker.join(10)
    assert serve._notebook_threads() == before


def test_a_thread_of_the_kernels_own_packages_is_not_the_notebooks() -> None:
    """pyzmq starts its garbage collector thread with the first large message (seen under Colab's pins)."""
    from zmq.utils.garbage import GarbageCollector

    before = serve._notebook_threads()
    collector = GarbageCollector()
    collector.start()
    try:
        assert serve._notebook_threads() == before
        from IPython.lib.backgroundjobs import BackgroundJobFunc  # attack 13: IPython's class, the notebook's code

        job = BackgroundJobFunc.__new__(BackgroundJobFunc)  # (built outside a kernel, its __init__ fails)
        assert not serve._kernels(job)
        from zmq.utils.garbage import GarbageCollectorThread

        disguised = GarbageCollectorThread(collector)
        disguised.run = threading.Event().wait  # the class is the kernel's, what it runs is not
        assert not serve._kernels(disguised)
    finally:
        collector.stop()


# Attack 11's three blinders, each with a reference the reading sees (so the row is flagged either way):
# the watch's own note must be on the row too.
BLINDED = {
    "cell name": ("import os\nos.environ['IPYKERNEL_CELL_NAME'] = '<frozen notes>'",
                  "from memlib.course.checks.nb01_token_budget import reference_how_many_fit as _ref\n"
                  "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
                  "    return _ref(messages, window, system_prompt, reserve)",
                  "review: the answer calls memlib's reference implementation"),
    "trampoline": ("import functools\nfrom memlib.scaling import time_each\n"
                   "from memlib.course.checks.nb01_token_budget import reference_how_many_fit as _ref",
                   "def how_many_fit(messages, window, system_prompt='', reserve=0):\n    out = []\n"
                   "    # C glue only (list.extend, map, partial): the reference's caller is memlib's time_each\n"
                   "    time_each(out.extend, [map(functools.partial(_ref, messages, window, system_prompt), "
                   "[reserve])], 1)\n    return out[0]",
                   "review: the answer calls memlib's reference implementation"),
    "thread": ("import logging.handlers, queue, types\njobs, done = queue.Queue(), queue.Queue()\n"
               "from memlib.course.checks.nb01_token_budget import reference_how_many_fit as _ref\n"
               "listener = logging.handlers.QueueListener(jobs, types.SimpleNamespace(handle=lambda r: "
               "done.put(_ref(*r))))\nlistener.start()",
               "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
               "    jobs.put((list(messages), window, system_prompt, reserve))\n    return done.get(timeout=30)",
               "review: a thread the notebook started was running while the check called the answer"),
}


@pytest.mark.grading
@pytest.mark.slow
def test_the_graders_watch_sees_through_each_blinder(tmp_path: Path) -> None:
    from memlib.course import grade as grading

    folders = []
    for n, (setup, answer, _) in enumerate(BLINDED.values()):
        nb, assignment = _submission("01", setup)
        index = assignment.graded[0].index  # the setup cell sits here; the answer goes after it
        nb.cells.insert(index + 1, {"cell_type": "code", "source": answer, "metadata": {}, "outputs": [],
                                    "execution_count": None})
        folder = tmp_path / "class" / f"blind{n}"
        folder.mkdir(parents=True)
        (folder / assignment.name).write_text(json.dumps(nb), encoding="utf-8")
        folders.append(str(folder))
    out = tmp_path / "grades.csv"
    assert grading.main([*folders, "--release", str(ROOT / "notebooks"), "--out", str(out), "--sandbox", "bwrap",
                         "-j", "2", "--quiet", "--timeout", "900"]) == 0
    rows = {r["student"]: r for r in csv.DictReader(out.open(encoding="utf-8")) if r["grade_id"] == "01-token-budget"}
    for n, (name, (_, _, note)) in enumerate(BLINDED.items()):
        row = rows[f"blind{n}"]
        assert row["status"] == "passed" and note in row["reason"], (name, row)
