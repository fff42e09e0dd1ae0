"""Fresh cases per grading run: an answer that is a table of the fixed cases fails the grader.

The student's own check runs the fixed cases only (no seed in a kernel); the grader's checker draws
more from a seed of its own. Real checks, real course data; one real grader run at the end.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

import nbformat
import pytest

from memlib.course.checking import FRESH_SEED_ENV, CheckFailed, fresh_random
from memlib.course.checks import check_bm25, check_token_budget, reference_bm25_scores, reference_how_many_fit
from memlib.course.checks.nb01_token_budget import _budget_cases

pytestmark = pytest.mark.grading

ROOT = Path(__file__).resolve().parents[1]


def _key(*args) -> str:
    return hashlib.sha256(json.dumps(args).encode()).hexdigest()


def _table_of_fixed_budgets() -> dict[str, int]:
    return {_key(list(m), w, s, r): reference_how_many_fit(m, w, s, r) for _, m, w, s, r in _budget_cases()}


TABLE = _table_of_fixed_budgets()


def table_answer(messages, window, system_prompt="", reserve=0):
    return TABLE.get(_key(list(messages), window, system_prompt, reserve), 0)


def test_a_table_of_the_fixed_cases_passes_at_home_and_fails_the_graders_fresh_cases(monkeypatch) -> None:
    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    check_token_budget(table_answer)  # what the student's own check shows
    monkeypatch.setenv(FRESH_SEED_ENV, "12345")
    with pytest.raises(CheckFailed, match="drawn for this grading run"):
        check_token_budget(table_answer)
    check_token_budget(reference_how_many_fit)  # a right answer passes both


def test_03s_fresh_cases_hold_a_right_answer_and_catch_a_table(monkeypatch) -> None:
    monkeypatch.setenv(FRESH_SEED_ENV, "777")
    check_bm25(lambda q, d, k1=1.5, b=0.75, epsilon=0.25: reference_bm25_scores(q, d, k1, b, epsilon))
    fixed = {}
    monkeypatch.delenv(FRESH_SEED_ENV)

    def recording(q, d, k1=1.5, b=0.75, epsilon=0.25):
        fixed[_key(q, d, k1, b)] = reference_bm25_scores(q, d, k1, b, epsilon)
        return fixed[_key(q, d, k1, b)]

    check_bm25(recording)
    monkeypatch.setenv(FRESH_SEED_ENV, "778")
    with pytest.raises(CheckFailed, match="drawn for this grading run"):
        check_bm25(lambda q, d, k1=1.5, b=0.75, epsilon=0.25: fixed.get(_key(q, d, k1, b), [0.0] * len(d)))


def test_each_run_draws_its_own_cases_and_bad_seeds_mean_none(monkeypatch) -> None:
    monkeypatch.setenv(FRESH_SEED_ENV, "1")
    one = fresh_random("01-token-budget").random()
    assert fresh_random("01-token-budget").random() == one  # one run, one seed: the same cases for every student
    monkeypatch.setenv(FRESH_SEED_ENV, "2")
    assert fresh_random("01-token-budget").random() != one
    for bad in ("", "abc", "-3"):
        monkeypatch.setenv(FRESH_SEED_ENV, bad)
        assert fresh_random("01-token-budget") is None


@pytest.mark.slow
def test_the_grader_gives_a_table_answer_no_points(tmp_path: Path) -> None:
    from memlib.course import grade as grading

    nb = nbformat.read(str(ROOT / "notebooks" / "01_context_window.ipynb"), as_version=4)
    stub = next(c for c in nb.cells if "def how_many_fit" in c.source)
    stub.source = (f"import hashlib, json\nTABLE = {json.dumps(TABLE)}\n"
                   "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
                   "    key = hashlib.sha256(json.dumps([list(messages), window, system_prompt, reserve]).encode())"
                   ".hexdigest()\n    return TABLE.get(key, 0)\n")
    (tmp_path / "tab").mkdir()
    nbformat.write(nb, str(tmp_path / "tab" / "01_context_window.ipynb"))
    out = tmp_path / "grades.csv"
    assert grading.main([str(tmp_path / "tab"), "--release", str(ROOT / "notebooks"), "--out", str(out),
                         "--sandbox", "bwrap", "--quiet", "--assignment", "01"]) == 0
    row = next(csv.DictReader(out.open(encoding="utf-8")))
    assert (row["points"], row["status"]) == ("0", "failed") and "drawn for this grading run" in row["reason"]


def test_06s_fresh_store_holds_a_right_answer_and_catches_a_table_of_record_ids(monkeypatch) -> None:
    from memlib.citations import CitedAnswer, answer_from_store, cite
    from memlib.course.checks import check_citation_contract
    from memlib.course.checks.nb06_citations import CITATION_QUESTIONS

    known = {question: gold[0] for question, gold in CITATION_QUESTIONS if gold}

    def table_answer(question, store):  # the fixed store's ids, looked up at home
        if question not in known:
            return CitedAnswer("I could not find that in my memory.")
        record = store.get(known[question])
        return cite(record.text, [record])

    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    check_citation_contract(table_answer)  # what the student's own check shows
    monkeypatch.setenv(FRESH_SEED_ENV, "2024")
    with pytest.raises(CheckFailed, match="drawn for this grading run"):
        check_citation_contract(table_answer)
    check_citation_contract(answer_from_store)  # a right answer passes both


def _guard_from(path: Path):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(f"alternative_07_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the dataclasses some answers define look their module up there
    spec.loader.exec_module(module)
    return module.my_scan


def _splits_fingerprint_table():
    """07's a05 cheat: fingerprints of every injection in both installed splits, and no rule at all."""
    from memlib.datasets import load
    from memlib.guard import Verdict

    known = {hashlib.sha1(n.text.encode()).hexdigest()[:12]
             for split in ("poisoning", "poisoning_heldout") for n in load(split) if n.is_injection}

    def my_scan(text):
        if hashlib.sha1(text.encode()).hexdigest()[:12] in known:
            return Verdict(trusted=False, reasons=["a known injection"], category="table")
        return Verdict(trusted=True, reasons=[], category=None)

    return my_scan


def test_07s_drawn_notes_pass_every_correct_guard_and_catch_a_table_of_the_splits(monkeypatch) -> None:
    from memlib.course.checks.nb07_guard import _check_drawn_notes
    from memlib.guard import scan

    table = _splits_fingerprint_table()
    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    _check_drawn_notes(table)  # in a student's kernel no notes are drawn
    correct = sorted((ROOT / "tests" / "alternatives" / "07-guard").glob("correct_*.py"))
    assert len(correct) >= 10
    guards = [_guard_from(path) for path in correct] + [scan]
    for seed in range(8):
        monkeypatch.setenv(FRESH_SEED_ENV, str(1000 + seed))
        for guard in guards:
            _check_drawn_notes(guard)
        with pytest.raises(CheckFailed, match="drawn for this grading run is 0.000"):
            _check_drawn_notes(table)


def test_07s_drawn_notes_cover_every_family_and_kind_and_differ_per_run() -> None:
    import random

    from memlib.course.checks._nb07_fresh import draw
    from memlib.datasets import BENIGN_KINDS, INJECTION_FAMILIES

    first, second = draw(random.Random("1:07-guard")), draw(random.Random("2:07-guard"))
    assert sum(n.is_injection for n in first) == 40 and len(first) == 80
    assert {n.category for n in first if n.is_injection} == set(INJECTION_FAMILIES)
    assert {n.category for n in first if not n.is_injection} == set(BENIGN_KINDS)
    assert len({n.text for n in first} & {n.text for n in second}) < 10
    assert [n.text for n in first] == [n.text for n in draw(random.Random("1:07-guard"))]


# --------------------------------------------------------------------------- 07: the instructor's private templates

PRIVATE = ROOT / "tests" / "fixtures" / "private_cases"  # written by someone who never read the public templates


def _template_phrase_table():
    """The cheat the public templates allow: flag a note that holds a literal phrase lifted from them."""
    import re

    from memlib.course.checks._nb07_fresh import INJECTIONS
    from memlib.guard import Verdict

    phrases = {part.strip() for _, template in INJECTIONS for part in re.split(r"\{[^{}]*\}", template)
               if len(part.strip()) >= 12}

    def my_scan(text):
        hit = next((p for p in phrases if p in text), None)
        return Verdict(trusted=hit is None, reasons=[hit] if hit else [], category="table" if hit else None)

    return my_scan


def test_07_the_instructors_private_templates_replace_the_public_ones_in_the_grader(monkeypatch) -> None:
    from memlib.course.checking import PRIVATE_CASES_ENV, private_cases
    from memlib.course.checks.nb07_guard import _check_drawn_notes

    table = _template_phrase_table()
    monkeypatch.setenv(FRESH_SEED_ENV, "4242")
    monkeypatch.delenv(PRIVATE_CASES_ENV, raising=False)
    _check_drawn_notes(table)  # the public templates: a table of their phrases clears the bar
    monkeypatch.setenv(PRIVATE_CASES_ENV, str(PRIVATE))
    assert private_cases("07-guard") == PRIVATE / "07-guard.json"
    correct = sorted((ROOT / "tests" / "alternatives" / "07-guard").glob("correct_*.py"))
    for seed in range(4):
        monkeypatch.setenv(FRESH_SEED_ENV, str(4242 + seed))
        for path in correct:
            _check_drawn_notes(_guard_from(path))  # a guard with rules for the families still clears it
        with pytest.raises(CheckFailed, match="drawn for this grading run"):
            _check_drawn_notes(table)
    monkeypatch.delenv(FRESH_SEED_ENV)
    assert private_cases("07-guard") is None  # a student's kernel: no seed, no private file, nothing drawn


@pytest.mark.parametrize("change, complaint", [
    (lambda d: d.pop("benign"), 'exactly the keys "injections" and "benign"'),
    (lambda d: d["injections"].__setitem__(0, {"family": "jailbreak", "text": "x"}), "family 'jailbreak' is not one"),
    (lambda d: d["benign"].__setitem__(1, {"kind": "ordinary", "text": "Hi {nmae}"}), "unknown placeholder {nmae}"),
    (lambda d: d["benign"].__setitem__(2, {"kind": "ordinary", "text": "a { b"}), "literal brace"),
    (lambda d: d["benign"].__setitem__(3, {"kind": "ordinary", "text": "{name:d}"}), "does not fill in"),
    (lambda d: d["benign"].__setitem__(4, {"kind": "ordinary"}), 'the keys "kind" and "text"'),
    (lambda d: d.__setitem__("injections", d["injections"][:3]), "at least 10 templates"),
])
def test_bad_private_templates_say_what_and_where(tmp_path: Path, change, complaint) -> None:
    from memlib.course.checks._nb07_fresh import read_templates

    data = json.loads((PRIVATE / "07-guard.json").read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "07-guard.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(complaint)):
        read_templates(path)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a readable JSON file"):
        read_templates(path)


def test_the_grader_refuses_a_private_folder_it_cannot_use_before_grading(tmp_path: Path, capsys) -> None:
    import shutil

    from memlib.course import grade as grading

    def grade(folder) -> tuple[int, str]:
        code = grading.main([str(tmp_path), "--release", str(ROOT / "notebooks"), "--out", str(tmp_path / "g.csv"),
                             "--private-cases", str(folder), "--quiet"])
        return code, capsys.readouterr().err

    assert grade(tmp_path / "none") == (2, f"grading could not run: --private-cases {str(tmp_path / 'none')!r} "
                                           "is not a folder\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    code, said = grade(mine)
    assert code == 2 and "holds no case file (07-guard.json)" in said
    (mine / "07-guards.json").write_text("{}", encoding="utf-8")
    code, said = grade(mine)
    assert code == 2 and "07-guards.json is not <grade_id>.json of an exercise that takes private cases " \
                         "(07-guard.json)" in said
    (mine / "07-guards.json").unlink()
    (mine / "07-guard.json").write_text('{"injections": []}', encoding="utf-8")
    code, said = grade(mine)
    assert code == 2 and 'exactly the keys "injections" and "benign"' in said
    code, said = grade(ROOT / "notebooks")  # the release: every kernel gets its files
    assert code == 2 and "where student kernels can read it" in said
    assert not (tmp_path / "g.csv").exists() or (tmp_path / "g.csv").stat().st_size == 0
    shutil.rmtree(mine)


def test_02s_drawn_queues_hold_a_right_flush_and_catch_a_table_of_the_fixed_ones(monkeypatch) -> None:
    """Attack 12 recorded the cut of each of 02-flush's 65 fixed queues at home and scored 3/3; the grader now
    draws more queues for each run, and a table right only on the fixed ones earns nothing."""
    from memlib.course.checks import check_flush
    from memlib.course.checks.nb02_flush import _cases, reference_flush

    fixed = {(tuple(c.tokens), c.target, len(c.queue)) for c in _cases()}

    def table_flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
        if (tuple(tokens), target, len(queue)) in fixed:
            return reference_flush(queue, tokens, target, summary, summarizer, summary_tokens, recall)
        return list(queue), summary  # what it does not know: keep everything

    monkeypatch.delenv(FRESH_SEED_ENV, raising=False)
    check_flush(table_flush)  # at home: every fixed queue is right
    check_flush(reference_flush)
    monkeypatch.setenv(FRESH_SEED_ENV, "4242")
    with pytest.raises(CheckFailed, match="on a queue drawn for this grading run") as caught:
        check_flush(table_flush)
    assert caught.value.cases.right_only_where_shown and caught.value.cases.share() == 0
    check_flush(reference_flush)  # the drawn queues hold a right flush
