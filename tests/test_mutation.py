"""Mutation testing of the graded checks (memlib.course.mutation): every non-equivalent mutant is killed.

The full run is marked slow (about 90 s): ``python -m pytest tests/test_mutation.py -m slow``; the report
itself is ``python -m memlib.course.mutation``.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from memlib.course import mutation
from memlib.course.checking import graded

pytestmark = pytest.mark.maintainer

GRADE_IDS = sorted(mutation.EXERCISES)


@pytest.fixture(autouse=True)
def _solutions_of_this_checkout(monkeypatch):
    # memlib may be an installed wheel (the Colab profile): the solutions are this checkout's.
    monkeypatch.setattr(mutation, "ROOT", Path(__file__).resolve().parents[1])


def test_every_operator_produces_mutants_somewhere():
    operators = {m.operator for gid in GRADE_IDS for m in mutation.mutants(mutation.EXERCISES[gid])}
    assert {"compare", "constant", "binop", "swap-args", "drop", "negate", "return", "mutate-input",
            "keep-state"} <= operators, operators


def test_a_notebook_with_two_exercises_mutates_the_one_before_each_graded_cell():
    assert "def flush(queue" in mutation.exercise_cell(mutation.EXERCISES["02-flush"])
    assert "class MySummarizer" in mutation.exercise_cell(mutation.EXERCISES["02-summarizer"])


def test_mutant_descriptions_are_unique_and_stable():
    for gid in GRADE_IDS:
        first = [m.description for m in mutation.mutants(mutation.EXERCISES[gid])]
        assert len(first) == len(set(first)), gid
        assert first == [m.description for m in mutation.mutants(mutation.EXERCISES[gid])]


def test_a_check_that_accepts_everything_lets_every_mutant_survive(monkeypatch):
    @graded("test-lenient")
    def check_lenient(answer):
        return None

    exercise = mutation.Exercise(grade_id="test-lenient", notebook="01_context_window", answer="how_many_fit",
                                 points=1, module=__name__, check="check_lenient")
    monkeypatch.setitem(globals(), "check_lenient", check_lenient)
    monkeypatch.setitem(mutation.EXERCISES, "test-lenient", exercise)
    report = mutation.run("test-lenient")
    assert report.reference_passes and not report.killed and len(report.survived) > 10
    assert report.kill_rate == 0.0
    from memlib.course.checking import CHECKS
    CHECKS.pop("test-lenient")


@pytest.mark.slow
@pytest.mark.parametrize("grade_id", GRADE_IDS)
def test_the_check_kills_every_non_equivalent_mutant_of_its_reference(grade_id):
    report = mutation.run(grade_id)
    print(report.render())
    assert report.reference_passes, f"{grade_id}: the check rejects the reference solution"
    assert not report.survived, report.render()
    listed = {d for g, d in mutation.EQUIVALENT if g == grade_id}
    generated = {m.description for m, _ in report.equivalent} | {m.description for m, _ in report.killed}
    assert listed <= generated, f"stale EQUIVALENT entries (killed now, or no longer generated): {listed - generated}"
    stale = listed & {m.description for m, _ in report.killed}
    assert not stale, f"listed as equivalent but killed: {stale}"


def test_setup_cells_run_before_the_exercise_and_a_missing_one_is_named():
    exercise = mutation.EXERCISES["07-guard"]
    assert "def decoded_payloads" in mutation.setup_source(exercise)  # the notebook's toolbox cell
    broken = mutation.Exercise(grade_id="07-guard", notebook="07_memory_poisoning", answer="my_scan", points=4,
                               setup_cells=("no-such-cell",), check="check_guard")
    with pytest.raises(LookupError, match="no-such-cell"):
        mutation.setup_source(broken)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_stderr_a_line_per_check_in_a_log_a_bar_on_a_terminal(capsys, monkeypatch):
    assert mutation.main(["01-token-budget", "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and "01-token-budget" in quiet.out

    assert mutation.main(["01-token-budget"]) == 0
    logged = capsys.readouterr()
    assert logged.out == quiet.out  # the report is the same; progress goes to stderr only
    (line,) = logged.err.splitlines()
    summary = re.fullmatch(r"\[#{30}\] (\d+)/(\d+) +[\d.]+s  check 1/1 01-token-budget: "
                           r"(\d+) killed, (\d+) equivalent, 0 survived", line)
    assert summary, line
    done, total, killed, equivalent = map(int, summary.groups())
    assert done == total == killed + equivalent > 10

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert mutation.main(["01-token-budget"]) == 0
    drawn = terminal.getvalue().split("\r")[1:]
    assert len(drawn) == total + 1  # before each mutant, then the check's summary
    assert drawn[0].startswith("[" + "-" * 30 + f"] 0/{total} ") and "check 1/1 01-token-budget: " in drawn[0]
    assert drawn[-1].endswith("\n") and re.fullmatch(summary.re, drawn[-1].rstrip())


def test_the_page_fault_script_mutates_apart_from_the_loop_and_the_decider():
    assert "class MyAgent(Agent)" in mutation.exercise_cell(mutation.EXERCISES["04-loop"])
    script = mutation.exercise_cell(mutation.EXERCISES["05-page-fault"])
    assert "def page_fault_calls" in script and "MyDecider" not in script
