"""Notebook 09's check (exercise 6, the consolidation pass): right passes pass, plausible wrong ones fail."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from memlib.course.checking import CheckFailed
from memlib.course.checks import CHECKS, check_consolidation
from memlib.course.checks.nb09_consolidation import consolidation_world, grade_pass
from memlib.course.mutation import EXERCISES, exercise_cell
from memlib.consolidate import consolidate
from memlib.governance import consolidate_in_store


ROOT = Path(__file__).resolve().parents[1]  # this checkout (memlib may be installed elsewhere)


def solution_pass():
    """The notebook's own answer, read from the solution notebook's exercise cell."""
    namespace: dict = {}
    exec(compile(exercise_cell(EXERCISES["09-consolidation"], ROOT), "<exercise 6>", "exec"), namespace)
    return namespace["consolidation_pass"]


def merges_then_ends(store, now, ends, *, kinds=None, direction="right", delete=False, expire="right",
                     by="consolidation", reason_word=None):
    """memlib's decisions applied to `store`, with one thing optionally done wrong."""
    report = consolidate([r for r in store])
    for m in report.merges if kinds != "none" else []:
        kind = kinds or ("duplicate" if m.kind == "duplicate" else "changed")
        old, new = (m.retired_id, m.kept_id) if direction == "right" else (m.kept_id, m.retired_id)
        if old not in store or new not in store or store.get(old).superseded_by:
            continue
        if delete:
            store.delete(old)
            continue
        store.supersede(old, new, by=by, reason=f"{reason_word or kind}: overlap {m.similarity}")
    for record_id, end in ends.items():
        if record_id not in store:
            continue
        record = store.get(record_id)
        if expire == "ignore":
            continue
        if expire == "at-now" and end <= now:
            store.expire(record_id, at=now, by=by, reason="stated end passed")
        elif expire == "naive" and end <= now:
            store.expire(record_id, at=end, by=by, reason="stated end passed")
        elif expire == "all":
            store.expire(record_id, at=min(end, now), by=by, reason="stated end")
        elif expire == "right" and end <= now and (record.valid_to is None or end < record.valid_to):
            store.expire(record_id, at=end, by=by, reason="stated end passed")


def test_the_check_is_registered():
    assert "09-consolidation" in CHECKS


def test_the_notebooks_solution_passes(capsys):
    check_consolidation(solution_pass())
    out = capsys.readouterr().out
    assert "PASS  development:" in out and "PASS  held-out:" in out


def test_memlibs_reference_passes_and_its_figures(capsys):
    check_consolidation(consolidate_in_store)
    dev, held = grade_pass(consolidate_in_store, "development"), grade_pass(consolidate_in_store, "held-out")
    assert dev.scores["pair precision"] >= 0.9 and dev.scores["pair recall"] >= 0.9
    assert 0.7 <= held.scores["pair precision"] < dev.scores["pair precision"]


def test_a_correct_pass_written_differently_passes():
    # capitalised kind words, a different reason text, ends handled by sorted date, merges applied newest first
    def other(store, now, ends):
        report = consolidate(list(store))
        for m in sorted(report.merges, key=lambda m: m.at, reverse=True):
            word = "Duplicate" if m.kind == "duplicate" else "Changed"
            store.supersede(m.retired_id, m.kept_id, by="consolidation", reason=f"{word}: {' '.join(m.shared_terms[:2])}")
        for record_id, end in sorted(ends.items(), key=lambda item: item[1]):
            current_end = store.get(record_id).valid_to
            if end <= now and (current_end is None or current_end > end):
                store.expire(record_id, at=end, by="consolidation", reason="said so")

    check_consolidation(other)


def test_a_pass_that_also_dates_future_ends_passes():
    def dates_future(store, now, ends):
        merges_then_ends(store, now, ends)
        for record_id, end in ends.items():
            record = store.get(record_id)
            if end > now and record.valid_to is None:
                store.expire(record_id, at=end, by="consolidation", reason="it will end then")

    check_consolidation(dates_future)


@pytest.mark.parametrize("wrong, message", [
    (lambda s, n, e: merges_then_ends(s, n, e, delete=True), "deleted"),
    (lambda s, n, e: merges_then_ends(s, n, e, kinds="duplicate"), "duplicate precision"),
    (lambda s, n, e: merges_then_ends(s, n, e, kinds="changed"), "duplicate recall"),
    (lambda s, n, e: merges_then_ends(s, n, e, direction="reversed"), "wrong direction"),
    (lambda s, n, e: merges_then_ends(s, n, e, expire="ignore"), "expiry ignored"),
    (lambda s, n, e: merges_then_ends(s, n, e, expire="at-now"), "its stated end; not the day of the pass"),
    (lambda s, n, e: merges_then_ends(s, n, e, expire="all"), "ends on"),
    (lambda s, n, e: merges_then_ends(s, n, e, by="agent"), "by='consolidation'"),
    (lambda s, n, e: merges_then_ends(s, n, e, reason_word="merged"), "start the reason with the kind"),
    (lambda s, n, e: None, "expiry ignored"),
    (lambda s, n, e: merges_then_ends(s, n, e, kinds="none"), "pair recall"),
])
def test_plausible_wrong_passes_fail(wrong, message):
    with pytest.raises(CheckFailed) as failure:
        check_consolidation(wrong)
    # the edge cases come first: a pass that gets the scoring wrong may already fail there
    where = str(failure.value) + failure.value.hint
    if "a fact said three times" in where:
        with pytest.raises(CheckFailed) as failure:
            grade_pass(wrong, "development")
        where = str(failure.value) + failure.value.hint
    assert message in where


def test_expiring_after_a_successor_at_the_later_stated_end_fails():
    # held-out: Kofi's oral exam was postponed (8 March) before its stated end (18 March)
    with pytest.raises(CheckFailed, match="when its successor was written"):
        grade_pass(lambda s, n, e: merges_then_ends(s, n, e, expire="naive"), "held-out")


def test_merging_everything_on_a_subject_fails_on_precision():
    def greedy(store, now, ends):
        latest = {}
        for record in sorted(store, key=lambda r: (r.created_at, r.id)):
            key = tuple(sorted(record.tags))
            if key in latest:
                store.supersede(latest[key], record.id, by="consolidation", reason="duplicate: same tags")
            latest[key] = record.id
        for record_id, end in ends.items():
            rec = store.get(record_id)
            if end <= now and (rec.valid_to is None or end < rec.valid_to):
                store.expire(record_id, at=end, by="consolidation", reason="end")

    with pytest.raises(CheckFailed, match="same instant"):
        check_consolidation(greedy)
    with pytest.raises(CheckFailed, match="precision"):
        grade_pass(greedy, "development")


def test_losing_tags_fails():
    def retag(store, now, ends):
        merges_then_ends(store, now, ends)
        victim = next(r for r in store if r.tags)
        store.delete(victim.id)
        store.add_record(dataclasses.replace(victim, tags=()))

    with pytest.raises(CheckFailed, match="lost part of its text, tags or provenance"):
        check_consolidation(retag)


def test_adding_a_merged_record_fails():
    def adds(store, now, ends):
        merges_then_ends(store, now, ends)
        store.insert("Summary of everything about Ines")

    with pytest.raises(CheckFailed, match="added record"):
        check_consolidation(adds)


def test_a_crash_and_a_stub_are_reported():
    def crashes(store, now, ends):
        raise ZeroDivisionError("oops")

    with pytest.raises(CheckFailed, match="crashed with ZeroDivisionError"):
        check_consolidation(crashes)

    def stub(store, now, ends):
        raise NotImplementedError("Exercise 6: supersede duplicates ...")

    with pytest.raises(CheckFailed, match="not solved"):
        check_consolidation(stub)
    with pytest.raises(CheckFailed, match="expected your function"):
        check_consolidation("consolidation_pass")


def test_worlds_are_fresh_and_unknown_world_is_refused():
    a, _, _, _ = consolidation_world("development")
    b, _, ends, links = consolidation_world("held-out")
    assert len(a) == 337 and len(b) == 78 and len(links) == 23 and len(ends) == 8
    with pytest.raises(ValueError, match="unknown world"):
        consolidation_world("test")


def test_edge_cases_catch_a_stale_candidate_a_same_instant_merge_and_an_end_on_the_day():
    solution = solution_pass()

    def keeps_retired_candidates(store, now, ends):
        # merges each record with the best earlier one, retired or not
        records = sorted(store, key=lambda r: (r.created_at, r.id))
        for i, record in enumerate(records):
            earlier = [o for o in records[:i] if o.tags == record.tags and o.created_at < record.created_at]
            if earlier:
                store.supersede(earlier[0].id, record.id, by="consolidation", reason="duplicate: same")
        solution(store, now, {})

    with pytest.raises(CheckFailed, match="crashed|a fact said three times"):
        grade_pass(keeps_retired_candidates, "edge cases")

    def same_instant(store, now, ends):
        solution(store, now, ends)
        store.supersede("edge-4", "edge-5", by="consolidation", reason="duplicate: same locker")

    with pytest.raises(CheckFailed, match="wrong direction"):
        grade_pass(same_instant, "edge cases")

    def strictly_before_now(store, now, ends):
        solution(store, now, {k: v for k, v in ends.items() if v < now})

    with pytest.raises(CheckFailed, match="expiry ignored: edge-6"):
        grade_pass(strictly_before_now, "edge cases")
