"""A failed check stops nbval and the grader but not a student's Run All; it is short, and crashes say so.

The kernel tests drive a real IPython kernel through jupyter_client the way a
front end does (``execute_request`` with ``stop_on_error``), and look at the
``execute_reply`` status a front end's Run All stops on.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from memlib.course import checking
from memlib.course.checking import CheckFailed, graded
from memlib.course.checks import check_bm25, check_token_budget
from memlib.course.release import colab_setup_source

STUB = 'def how_many_fit(messages, window, system_prompt="", reserve=0):\n    raise NotImplementedError("Exercise 0: do it")\n'
GRADED = "from memlib.course.checks import check_token_budget\n\ncheck_token_budget(how_many_fit)"
AFTER = "print('the cell after the exercise ran')"


def _failure(check, answer) -> CheckFailed:
    with pytest.raises(CheckFailed) as info:
        check(answer)
    return info.value


# -- without a kernel ------------------------------------------------------------------


def test_outside_ipython_a_failed_check_raises_even_after_the_switch():
    checking.keep_going_after_failures()  # no IPython shell here: does nothing
    assert checking.failures_raise()
    _failure(check_token_budget, lambda *a, **k: 0)


def test_a_raised_failure_renders_in_two_lines_and_the_full_traceback_is_one_flag_away(monkeypatch):
    failure = _failure(check_bm25, lambda q, d, **kw: [0.0] * len(d))
    short = failure._render_traceback_()
    assert len(short) == 2 and "03-bm25" in short[0] and short[1].startswith("Hint: ")
    # the instructors' switch is in the README and the instructor guide, not in what students see
    assert not any(checking.FULL_TRACEBACK_ENV in line or "instructors" in line for line in short)
    monkeypatch.setenv(checking.FULL_TRACEBACK_ENV, "1")
    full = failure._render_traceback_()
    assert full[0].startswith("Traceback") and len(full) > 5


def test_a_crash_is_reported_as_a_crash_with_the_exception_and_where():
    def bm25_scores(query, docs, k1=1.5, b=0.75, epsilon=0.25):
        total = sum(len(d) for d in docs)
        return [total / 0] * len(docs)

    message = str(_failure(check_bm25, bm25_scores))
    assert "crashed with ZeroDivisionError" in message and "in bm25_scores, line" in message
    assert "not solved" not in message


def test_a_not_implemented_error_that_is_not_the_stub_is_a_crash():
    def how_many_fit(messages, window, system_prompt="", reserve=0):
        raise NotImplementedError("tokenizer for this model")

    message = str(_failure(check_token_budget, how_many_fit))
    assert "crashed with NotImplementedError: tokenizer for this model" in message


def test_an_exception_escaping_a_check_becomes_a_crash_report():
    @graded("test-escape")
    def check_escape(answer):
        answer()  # the check forgot _call: the wrapper still names the crash

    def answer():
        return {}["missing"]

    message = str(_failure(check_escape, answer))
    assert "your answer crashed with KeyError" in message and "in answer, line" in message
    checking.CHECKS.pop("test-escape")


def fit_by_hand(messages, window, system_prompt="", reserve=0):
    from memlib.context import MESSAGE_OVERHEAD
    from memlib.tokens import count

    used, kept = count(system_prompt) + reserve, 0
    for text in messages[::-1]:
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept


def test_the_watch_sees_past_a_profiler_and_into_a_thread_the_answer_starts(capsys):
    import cProfile
    import sys
    import threading

    from memlib.course.checks import nb01_token_budget as nb01

    def how_many_fit(messages, window, system_prompt="", reserve=0):
        out = []
        worker = threading.Thread(target=lambda: out.append(
            nb01.reference_how_many_fit(messages, window, system_prompt, reserve)))
        worker.start()
        worker.join()
        return out[0]

    profiler = cProfile.Profile()
    profiler.enable()  # a profiler set first used to keep the watch from installing itself
    # Python 3.11 hooks cProfile in as the profile function; 3.12 and later through sys.monitoring
    # (PEP 669), which leaves sys.getprofile() None and the watch's own hook free
    before = sys.getprofile()
    assert before is (profiler if sys.version_info < (3, 12) else None)
    try:
        check_token_budget(how_many_fit)
        assert sys.getprofile() is before  # given back when the check ends
    finally:
        profiler.disable()
    assert checking.REFERENCE_CALLS["01-token-budget"] == ("memlib.course.checks.nb01_token_budget.reference_how_many_fit",)


def test_a_reference_call_from_the_answer_is_noted(capsys):
    from memlib.course.checks import nb01_token_budget as nb01

    def how_many_fit(messages, window, system_prompt="", reserve=0):
        return nb01.reference_how_many_fit(messages, window, system_prompt, reserve)

    check_token_budget(how_many_fit)
    out = capsys.readouterr().out
    assert checking.reference_note(["memlib.course.checks.nb01_token_budget.reference_how_many_fit"]) in out
    assert checking.REFERENCE_CALLS["01-token-budget"]
    check_token_budget(fit_by_hand)  # the check calling its reference is not the answer's doing
    assert "reference implementation" not in capsys.readouterr().out
    assert checking.REFERENCE_CALLS["01-token-budget"] == ()


def test_a_reference_call_through_a_standard_library_wrapper_is_noted(capsys):
    """functools.singledispatch calls the reference from functools.py: the watch looks past it to the answer."""
    import functools

    from memlib.course.checks import nb01_token_budget as nb01

    wrapped = functools.singledispatch(nb01.reference_how_many_fit)

    def how_many_fit(messages, window, system_prompt="", reserve=0):
        return wrapped(messages, window, system_prompt, reserve)

    check_token_budget(how_many_fit)
    assert checking.REFERENCE_CALLS["01-token-budget"] == ("memlib.course.checks.nb01_token_budget.reference_how_many_fit",)
    check_token_budget(fit_by_hand)
    assert checking.REFERENCE_CALLS["01-token-budget"] == ()


def test_a_reference_inside_a_partial_or_a_partialmethod_of_the_students_class_is_noted():
    """Attack 7: the answer is the reference in a wrapper the check calls from its own frame (functools.partial,
    a partialmethod of the student's class): the answer itself is unwrapped, and a class that only inherits
    the reference class's methods (an honest subclass of Agent) is not read for them."""
    import functools

    from memlib.agent import Agent
    from memlib.course.checks import nb01_token_budget as nb01
    from memlib.course.watch import ReferenceWatch

    class MyAgent(Agent):
        step = functools.partialmethod(Agent.step)

    class HonestAgent(Agent):
        def step(self, user_text):
            return None

    def seen(answer, references):
        watch = ReferenceWatch(references)
        with watch:
            watch.inspect_answer([answer])
        return watch.used

    assert seen(functools.partial(nb01.reference_how_many_fit, reserve=0), ("memlib.course.checks."
                "nb01_token_budget:reference_how_many_fit",)) == ["memlib.course.checks.nb01_token_budget."
                                                                  "reference_how_many_fit"]
    assert seen(MyAgent, ("memlib.agent:Agent.step",)) == ["memlib.agent.Agent.step"]
    assert seen(HonestAgent, ("memlib.agent:Agent.step",)) == []
    assert seen(fit_by_hand, ("memlib.course.checks.nb01_token_budget:reference_how_many_fit",)) == []


# -- in a real kernel ------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel():
    from jupyter_client.manager import start_new_kernel

    env = {k: v for k, v in os.environ.items() if k not in (checking.STRICT_ENV, checking.FULL_TRACEBACK_ENV)}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    km, kc = start_new_kernel(kernel_name="python3", env=env)
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(kc, code: str) -> tuple[str, list[tuple[str, dict]]]:
    """(execute_reply status, [(iopub msg_type, content)]) of one cell, sent as Run All sends it.

    After a cell fails, ipykernel aborts the requests that reach it before its
    after-error window closes (a scheduled callback, so later on a loaded
    machine); an aborted cell never ran, so it is sent again, as a student
    would run it again.
    """
    for _ in range(50):
        status, outputs = _run_once(kc, code)
        if status != "aborted":
            return status, outputs
        time.sleep(0.1)
    raise AssertionError(f"the kernel aborted {code[:60]!r} 50 times")


def _run_once(kc, code: str) -> tuple[str, list[tuple[str, dict]]]:
    msg_id = kc.execute(code, store_history=True, stop_on_error=True)
    reply = kc.get_shell_msg(timeout=120)
    while reply["parent_header"].get("msg_id") != msg_id:  # a reply to the start-up handshake may come first
        reply = kc.get_shell_msg(timeout=120)
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        if msg["msg_type"] in ("stream", "error", "display_data", "execute_result"):
            outputs.append((msg["msg_type"], msg["content"]))
    return reply["content"]["status"], outputs


def test_in_a_kernel_strict_until_the_setup_cell_runs_then_run_all_keeps_going(kernel):
    assert run(kernel, STUB)[0] == "ok"
    # nbval and the grader skip the setup cell: the graded cell fails, short
    status, outputs = run(kernel, GRADED)
    assert status == "error"
    error = next(c for t, c in outputs if t == "error")
    assert error["ename"] == "CheckFailed" and len(error["traceback"]) == 2
    assert "not solved yet: Exercise 0: do it" in error["traceback"][0]
    # a student's Run All runs the setup cell first
    status, outputs = run(kernel, colab_setup_source())
    assert status == "ok" and outputs == [], outputs
    status, outputs = run(kernel, GRADED)
    assert status == "ok", outputs
    shown = [c for t, c in outputs if t == "display_data"]
    assert len(shown) == 1 and "memlib-check-failed" in shown[0]["data"]["text/html"]
    text = shown[0]["data"]["text/plain"]
    assert "not solved yet: Exercise 0: do it" in text and len(text.splitlines()) <= 4
    # students see what is wrong and the hint; the instructors' switch is not theirs to read
    assert checking.FULL_TRACEBACK_ENV not in shown[0]["data"]["text/html"] + text
    assert run(kernel, f"import os; os.environ[{checking.FULL_TRACEBACK_ENV!r}] = '1'")[0] == "ok"
    status, outputs = run(kernel, GRADED)
    full = next(c for t, c in outputs if t == "display_data")["data"]["text/plain"]
    assert status == "ok" and full.startswith("Traceback"), "the switch still shows the whole traceback"
    assert run(kernel, f"import os; del os.environ[{checking.FULL_TRACEBACK_ENV!r}]")[0] == "ok"
    assert run(kernel, AFTER)[0] == "ok"
    assert run(kernel, f"import os; os.environ[{checking.STRICT_ENV!r}] = '1'")[0] == "ok"
    assert run(kernel, GRADED)[0] == "error", "MEMLIB_STRICT_CHECKS=1 forces strict mode"
    assert run(kernel, f"import os; del os.environ[{checking.STRICT_ENV!r}]")[0] == "ok"
    # a crash in lenient mode is shown as a crash, and the cell still completes
    assert run(kernel, 'def how_many_fit(messages, window, system_prompt="", reserve=0):\n    return messages[99]\n')[0] == "ok"
    status, outputs = run(kernel, GRADED)
    assert status == "ok"
    text = next(c for t, c in outputs if t == "display_data")["data"]["text/plain"]
    assert "crashed with IndexError" in text and "in how_many_fit, line 2: return messages[99]" in text


def test_an_answer_that_is_the_reference_or_inherits_it_is_noted(capsys):
    from memlib.course.checks import check_summarizer
    from memlib.summarize import ExtractiveSummarizer

    class MySummarizer(ExtractiveSummarizer):
        pass  # inherits memlib's reference summarize

    check_summarizer(MySummarizer())
    assert checking.reference_note(["memlib.summarize.ExtractiveSummarizer"]) in capsys.readouterr().out
    from memlib.course.checks import nb01_token_budget as nb01

    check_token_budget(nb01.reference_how_many_fit)  # handing in the reference function itself
    assert checking.REFERENCE_CALLS["01-token-budget"] == ("memlib.course.checks.nb01_token_budget.reference_how_many_fit",)


@pytest.mark.slow
def test_the_grader_stays_strict_when_a_submission_switches_keep_going_on(tmp_path):
    import csv
    import json
    import subprocess

    root = Path(__file__).resolve().parents[1]
    nb = json.loads((root / "notebooks" / "03_archival_bm25.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if "colab-setup" in cell["metadata"].get("tags", []):
            cell["metadata"]["tags"] = []  # the setup cell would now run under nbval
    nb["cells"].insert(5, {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "id": "cheat",
                           "source": "import memlib.course.checking as k\nk._mode['keep_going'] = True"})
    (tmp_path / "cheat").mkdir()
    (tmp_path / "cheat" / "03_archival_bm25.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    out = tmp_path / "grades.csv"
    subprocess.run([sys.executable, "-m", "memlib", "grade", str(tmp_path / "cheat"), "--release",
                    str(root / "notebooks"), "--out", str(out)], check=False, timeout=600, capture_output=True)
    rows = {r["grade_id"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert rows["03-bm25"]["status"] == "failed" and rows["03-bm25"]["points"] == "0", rows["03-bm25"]
    assert rows["03-bm25"]["reason"].startswith("not solved yet: Exercise 2:")
