"""Mutation testing of the graded checks (memlib.course.mutation): every non-equivalent mutant is killed.

The full run is marked slow (about 90 s): ``python -m pytest tests/test_mutation.py -m slow``; the report
itself is ``python -m memlib.course.mutation``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memlib.course import mutation
from memlib.course.checking import graded

GRADE_IDS = sorted(mutation.EXERCISES)


@pytest.fixture(autouse=True)
def _solutions_of_this_checkout(monkeypatch):
    # memlib may be an installed wheel (the Colab profile): the solutions are this checkout's.
    monkeypatch.setattr(mutation, "ROOT", Path(__file__).resolve().parents[1])


def test_every_operator_produces_mutants_somewhere():
    operators = {m.operator for gid in GRADE_IDS for m in mutation.mutants(mutation.EXERCISES[gid])}
    assert {"compare", "constant", "binop", "swap-args", "drop", "negate", "return", "mutate-input",
            "keep-state"} <= operators, operators


def test_mutant_descriptions_are_unique_and_stable():
    for gid in GRADE_IDS:
        first = [m.description for m in mutation.mutants(mutation.EXERCISES[gid])]
        assert len(first) == len(set(first)), gid
        assert first == [m.description for m in mutation.mutants(mutation.EXERCISES[gid])]


def test_a_check_that_accepts_everything_lets_every_mutant_survive(monkeypatch):
    @graded("test-lenient")
    def check_lenient(answer):
        return None

    import memlib.course.checks as checks

    monkeypatch.setattr(checks, "check_lenient", check_lenient, raising=False)
    exercise = mutation.Exercise("test-lenient", "01_context_window", "check_lenient", lambda ns: ns["how_many_fit"])
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
    broken = mutation.Exercise("07-guard", "07_memory_poisoning", "check_guard", lambda ns: ns["my_scan"],
                               setup_cells=("no-such-cell",))
    with pytest.raises(LookupError, match="no-such-cell"):
        mutation.setup_source(broken)
