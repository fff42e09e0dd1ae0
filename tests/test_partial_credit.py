"""Partial credit: a partly right answer earns the share of the points its check's cases give.

The tally (`memlib.course.checking.Cases`) is counted by the real checks of 01, 03, 06 (06 weighs its
cases: `Exercise.case_weights`), 02's flush, 04's loop and 08 (their queues, scenarios and parts:
`judge_parts`), crosses from the
checker process to the gradebook as data, and becomes points there; an instructor can grade any exercise
all or nothing. One real grader run of notebook 01 with an off-by-one answer, three ways.
"""

from __future__ import annotations

import csv
import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import pytest

from memlib.course.checking import (FRESH_SEED_ENV, PARTIAL_FLOOR, Cases, CheckFailed, graded,
                                    judge_fixed_then_fresh, judge_parts)
from memlib.course.checks import check_bm25, check_token_budget, reference_bm25_scores

ROOT = Path(__file__).resolve().parents[1]

# The exact-fit mistake: a message that makes the prompt exactly `window` tokens is left out.
OFF_BY_ONE = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(messages):
        used += count(text) + MESSAGE_OVERHEAD
        if used >= window:
            break
        kept += 1
    return kept
'''


def _off_by_one():
    namespace: dict = {}
    exec(OFF_BY_ONE, namespace)
    return namespace["how_many_fit"]


# --------------------------------------------------------------------------- the tally and its share


def test_the_share_is_the_lower_of_fixed_and_fresh_above_the_floor() -> None:
    assert Cases(31, 32).share() == 31 / 32
    assert Cases(9, 10, 5, 6).share() == 5 / 6  # the lower share counts
    assert Cases(10, 10, 0, 6).share() == 0  # a table of the fixed cases: every fixed one right, no fresh one
    assert Cases(10, 10, 3, 6).share() == 0  # half is not more than half
    # every shown case right and a drawn one wrong: a table with a rough answer for the rest looks so
    assert Cases(10, 10, 5, 6).share() == 0 and Cases(10, 10, 5, 6).right_only_where_shown
    assert Cases(9, 10, 6, 6).share() == 0.9 and not Cases(10, 10, 6, 6).right_only_where_shown
    assert Cases(16, 32).share() == 0 and Cases(17, 32).share() == 17 / 32
    assert PARTIAL_FLOOR == 0.5


@pytest.mark.parametrize("values", [
    None, "9,10", [9, 10], [9, 10, 0], [11, 10, 0, 0], [9, 10, 7, 6], [0, 0, 0, 0], [-1, 10, 0, 0],
    [9.0, 10, 0, 0], [True, 10, 0, 0], {"passed": 9}, [9, 10, 0, 0, 0],
])
def test_a_tally_that_is_not_four_counts_in_order_is_no_tally(values) -> None:
    assert Cases.from_list(values) is None


def test_a_tally_crosses_as_four_counts() -> None:
    assert Cases.from_list(Cases(9, 10, 5, 6).to_list()) == Cases(9, 10, 5, 6)


@pytest.mark.parametrize("points, cases, expected", [
    (4, Cases(31, 32), 3.87),  # 3.875, rounded down
    (2, Cases(9, 10, 5, 6), 1.66),
    (2, Cases(9, 10, 6, 6), 1.8),
    (3, Cases(2, 3), 2.0),
    (4, Cases(10, 10, 0, 4), 0.0),
])
def test_points_are_the_share_rounded_down_to_a_hundredth(points, cases, expected) -> None:
    assert cases.points(points) == expected


# --------------------------------------------------------------------------- the checks count


def test_01_counts_the_off_by_one_and_says_so_in_the_students_kernel(monkeypatch) -> None:
    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()):
            check_token_budget(_off_by_one())
    assert caught.value.cases == Cases(9, 10)
    assert caught.value.short_lines()[-1].startswith("9 of 10 cases right (graded with partial credit")
    assert "cases right" not in str(caught.value), "the message the grader compares stays the check's own"


def test_under_the_graders_seed_the_fresh_cases_join_the_tally(monkeypatch) -> None:
    monkeypatch.setenv(FRESH_SEED_ENV, "41")
    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()):
            check_token_budget(_off_by_one())
    tally = caught.value.cases
    assert (tally.passed, tally.run, tally.fresh_run) == (9, 10, 6) and tally.fresh_passed >= 4


def test_03_counts_a_bm25_that_ignores_k1_and_b(monkeypatch) -> None:
    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)

    def constants(q, d, k1=1.5, b=0.75, epsilon=0.25):
        return reference_bm25_scores(q, d)

    with pytest.raises(CheckFailed, match="k1, b or epsilon is ignored") as caught:
        with redirect_stdout(io.StringIO()):
            check_bm25(constants)
    assert caught.value.cases == Cases(31, 32)  # only the k1=1.2, b=0.5 case tells


def _alternative_06(name: str):
    """An answer to 06 written by an outside helper from the student notebook (tests/alternatives)."""
    namespace: dict = {}
    path = ROOT / "tests" / "alternatives" / "06-citations" / f"{name}.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["answer_with_citations"]


@pytest.mark.parametrize("name, tally", [
    ("wrong_any_rare_word", Cases(12, 16)),      # cites on two of the four unanswerable questions
    ("wrong_cite_all_hits", Cases(11, 16)),      # extra citations on the answerable ones
    ("wrong_top_hit_always", Cases(8, 16)),      # one half of the contract only: nothing
    ("wrong_abstain_with_citation", Cases(8, 16)),
])
def test_06_weighs_the_unanswerable_questions_as_much_as_the_answerable_ones(monkeypatch, name, tally) -> None:
    from memlib.course.checks.nb06_citations import ANSWERABLE, EXERCISE, UNANSWERABLE, check_citation_contract

    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    weights = EXERCISE.case_weights
    assert ANSWERABLE * weights["answerable question"] == UNANSWERABLE * weights["unanswerable question"]
    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()):
            check_citation_contract(_alternative_06(name))
    assert caught.value.cases == tally
    assert (caught.value.cases.share() > 0) == (tally.passed > tally.run / 2)


def test_06_under_the_graders_seed_counts_the_reordered_store_too(monkeypatch) -> None:
    from memlib.course.checks.nb06_citations import check_citation_contract

    monkeypatch.setenv(FRESH_SEED_ENV, "7")
    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()):
            check_citation_contract(_alternative_06("wrong_any_rare_word"))
    assert caught.value.cases == Cases(12, 16, 12, 16)  # the same questions: the same right ones
    with redirect_stdout(io.StringIO()) as out:
        check_citation_contract(_alternative_06("correct_matching_count"))
    assert "drawn for this grading run" in out.getvalue()


def _alternative_08(name: str):
    namespace: dict = {}
    path = ROOT / "tests" / "alternatives" / "08-typed-core-memory" / f"{name}.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["TypedCoreMemory"]


@pytest.mark.parametrize("name, right, first", [
    ("wrong_empty_old", 7, "replace('notes', '', 'x')"),
    ("wrong_limit_exclusive", 5, "from_document of a block holding exactly its limit"),
    ("wrong_not_atomic", 6, "the refused append still changed core memory"),
])
def test_08_counts_its_parts_and_reports_the_first_failure(name, right, first) -> None:
    from memlib.course.checks.nb08_typed_core_memory import PARTS, check_typed_core_memory

    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()) as out:
            check_typed_core_memory(_alternative_08(name))
    assert caught.value.cases == Cases(right, PARTS)
    assert caught.value.what.startswith(first)
    assert out.getvalue().count("PASS") < right, "the parts after the first failure run quietly"


def _alternative(folder: str, name: str, answer: str):
    namespace: dict = {}
    path = ROOT / "tests" / "alternatives" / folder / f"{name}.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[answer]


@pytest.mark.parametrize("folder, answer, name, right, run", [
    ("02-flush", "flush", "wrong_cut_on_call", 64, 65),        # one hand-made queue splits a call from its result
    ("02-flush", "flush", "wrong_forgets_recall", 25, 65),     # only the queues where nothing leaves are right
    ("04-loop", "MyAgent", "wrong_reads_request_heartbeat", 11, 14),
    ("04-loop", "MyAgent", "wrong_no_return", 0, 14),
])
def test_the_scenario_checks_count_their_cases(folder, answer, name, right, run) -> None:
    from memlib.course.checks import check_flush, check_loop

    check = check_flush if folder == "02-flush" else check_loop
    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()):
            check(_alternative(folder, name, answer))
    assert caught.value.cases == Cases(right, run)


def test_judge_parts_reports_the_first_failure_and_counts_the_rest_quietly(capsys) -> None:
    def fails(what):
        def part():
            print(f"ran {what}")
            raise CheckFailed(what)
        return part

    def broken():
        raise KeyError("x")

    with pytest.raises(CheckFailed, match="first") as caught:
        judge_parts([lambda: print("ran ok"), fails("first"), fails("second"), broken, lambda: None])
    assert caught.value.cases == Cases(2, 5)
    assert capsys.readouterr().out == "ran ok\nran first\n"
    with pytest.raises(KeyError):  # the answer's own error before any failure is its error, not a case
        judge_parts([broken, fails("later")])
    with pytest.raises(TimeoutError):  # a time limit is never a wrong part
        judge_parts([fails("first"), lambda: (_ for _ in ()).throw(TimeoutError("limit"))])
    judge_parts([lambda: None, lambda: None])  # nothing failed: nothing raised


def test_a_malformed_answer_has_no_tally(monkeypatch) -> None:
    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    with pytest.raises(CheckFailed) as caught:
        with redirect_stdout(io.StringIO()):
            check_bm25(lambda q, d, k1=1.5, b=0.75, epsilon=0.25: "high")
    assert caught.value.cases is None


def test_an_exercise_without_partial_credit_drops_the_tally() -> None:
    @graded("test-all-or-nothing")
    def check(answer):
        raise CheckFailed("wrong", cases=Cases(9, 10))

    with pytest.raises(CheckFailed) as caught:
        check(1)
    assert caught.value.cases is None
    assert not any("cases right" in line for line in caught.value.short_lines())


def test_fixed_then_fresh_reports_the_first_failure_and_counts_the_other_set_quietly(monkeypatch) -> None:
    def judge(cases):
        wrong = [c for c in cases if c < 0]
        if wrong:
            raise CheckFailed(f"{len(wrong)} wrong", cases=Cases(len(cases) - len(wrong), len(cases)))
        print("PASS every case")
        return len(cases)

    monkeypatch.setenv(FRESH_SEED_ENV, "5")
    out = io.StringIO()
    with pytest.raises(CheckFailed, match="^1 wrong") as caught, redirect_stdout(out):
        judge_fixed_then_fresh("test-fixed-fresh", judge, lambda rng: [1, 2, 3, -4], [1, -2, 3])
    assert caught.value.cases == Cases(2, 3, 3, 4)
    assert out.getvalue() == "", "the quiet count prints nothing"
    with pytest.raises(CheckFailed) as caught, redirect_stdout(io.StringIO()):
        judge_fixed_then_fresh("test-fixed-fresh", judge, lambda rng: [1, -2, 3, -4], [1, 2, 3])
    assert caught.value.cases == Cases(3, 3, 2, 4)
    monkeypatch.delenv(FRESH_SEED_ENV)
    with pytest.raises(CheckFailed) as caught, redirect_stdout(io.StringIO()):
        judge_fixed_then_fresh("test-fixed-fresh", judge, lambda rng: pytest.fail("no fresh cases at home"), [-1, 2])
    assert caught.value.cases == Cases(1, 2)


# --------------------------------------------------------------------------- the grader


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def off_by_one_class(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("partial")
    nb = nbformat.read(str(ROOT / "notebooks" / "01_context_window.ipynb"), as_version=4)
    next(c for c in nb.cells if "def how_many_fit" in c.source).source = OFF_BY_ONE
    (root / "ada").mkdir()
    nbformat.write(nb, str(root / "ada" / "01_context_window.ipynb"))
    return root


def _grade(root: Path, name: str, *extra: str) -> tuple[int, Path]:
    from memlib.course import grade as grading

    out = root / name
    code = grading.main([str(root / "ada"), "--release", str(ROOT / "notebooks"), "--out", str(out / "grades.csv"),
                         "--feedback", str(out / "feedback"), "--sandbox", "bwrap", "--quiet",
                         "--assignment", "01", *extra])
    return code, out


@pytest.mark.grading
@pytest.mark.slow
def test_the_grader_gives_the_off_by_one_its_share_and_an_instructor_can_say_all_or_nothing(
        off_by_one_class, capsys) -> None:
    from memlib.course import export

    code, out = _grade(off_by_one_class, "partial")
    assert code == 0
    row = next(r for r in _read(out / "grades.csv") if r["grade_id"] == "01-token-budget")
    found = re.match(r"partial credit: (\d+)/(\d+) cases right, (\d+)/(\d+) drawn: ", row["reason"])
    assert found, row["reason"]
    tally = Cases(*map(int, found.groups()))
    assert (tally.passed, tally.run, tally.fresh_run) == (9, 10, 6)
    assert row["status"] == "failed" and float(row["points"]) == tally.points(2) > 1
    assert "not counted" in row["reason"], "the check's own message follows the tally"
    feedback = (out / "feedback" / "ada.md").read_text(encoding="utf-8")
    assert f"Partial credit: 9 of 10 cases right and {tally.fresh_passed} of 6 cases drawn" in feedback
    assert export.main([str(out / "grades.csv"), "--format", "csv-wide", "--out", str(out / "wide.csv")]) == 0
    assert row["points"] in (out / "wide.csv").read_text(encoding="utf-8")

    code, strict = _grade(off_by_one_class, "strict", "--all-or-nothing", "01-token-budget")
    assert code == 0
    row = next(r for r in _read(strict / "grades.csv") if r["grade_id"] == "01-token-budget")
    assert (row["points"], row["status"]) == ("0", "failed") and "partial" not in row["reason"]
    assert "Partial credit" not in (strict / "feedback" / "ada.md").read_text(encoding="utf-8")

    capsys.readouterr()
    code, _ = _grade(off_by_one_class, "typo", "--all-or-nothing", "01-budget")
    assert code == 2
    assert "--all-or-nothing 01-budget: no graded exercise" in capsys.readouterr().err


@pytest.mark.grading
@pytest.mark.slow
def test_nbgrader_gives_the_off_by_one_the_share_of_the_fixed_cases(off_by_one_class, tmp_path) -> None:
    import os
    import shutil
    import sys

    from memlib.course import checking
    from test_nbgrader import NBGRADER_CONFIG, _run
    from test_runners import _require

    Gradebook = _require("nbgrader.api").Gradebook
    env = {k: v for k, v in os.environ.items() if k not in (checking.STRICT_ENV, *checking.RUNNER_ENVS)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    course = tmp_path / "course"
    (course / "source" / "01").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "01_context_window.ipynb", course / "source" / "01")
    (course / "nbgrader_config.py").write_text(NBGRADER_CONFIG, encoding="utf-8")
    nbgrader = [sys.executable, "-m", "nbgrader"]
    _run([*nbgrader, "generate_assignment", "01", "--force"], course, env)
    (course / "submitted" / "ada" / "01").mkdir(parents=True)
    shutil.copy(off_by_one_class / "ada" / "01_context_window.ipynb", course / "submitted" / "ada" / "01")
    _run([*nbgrader, "autograde", "01", "--force"], course, env)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook("01_context_window", "01", "ada")
        scores = {g.name: g.score for g in notebook.grades if g.auto_score is not None}
    assert scores["01-token-budget"] == Cases(9, 10).points(2) == 1.8, scores
