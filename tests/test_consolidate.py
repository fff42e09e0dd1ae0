"""Tests for memlib.consolidate: dedupe, supersede, validity intervals, rot measurement."""

from __future__ import annotations

from datetime import datetime

import pytest

from memlib import datasets
from memlib.archival import ArchivalRecord, ArchivalStore
from memlib.consolidate import (
    Report, change_cue, consolidate, current_fact_ranks, rot_curve, score_against_links, similarity_tokens,
)


def R(rid, text, when, tags=("home",)):
    return ArchivalRecord(rid, text, tags=tags, created_at=when)


BUS = R("a", "Ines takes the number 7 bus to the office every morning.", "2026-01-05")
BUS_AGAIN = R("b", "Every morning Ines takes the number 7 bus to the office.", "2026-02-01")
CYCLE = R("c", "Since the move, Ines cycles to the office every morning.", "2026-06-01")
CELLO = R("d", "Ines plays the cello in a community orchestra.", "2026-01-10", tags=("hobbies",))


def test_change_cue_and_tokens():
    assert change_cue("The deadline slipped to April") == "slipped"
    assert change_cue("Moved from Leeds to York").lower() == "moved"
    assert change_cue("Heron goes from batch to streaming") == "from batch to"
    assert change_cue("Ines likes tea") is None
    assert similarity_tokens("meetings") == similarity_tokens("meeting")


def test_duplicate_then_supersede_chain():
    report = consolidate([CYCLE, BUS, CELLO, BUS_AGAIN])  # order of input must not matter
    kinds = [(m.kind, m.kept_id, m.retired_id) for m in report.merges]
    assert kinds == [("duplicate", "b", "a"), ("supersede", "c", "b")]
    assert report.current_ids() == ["d", "c"]
    v = report.validity
    assert v["a"].status == "duplicate" and v["a"].replaced_by == "b"
    assert v["b"].status == "superseded" and v["b"].valid_to == datetime(2026, 6, 1)
    # the duplicate cluster is valid from its oldest member
    assert v["b"].valid_from == datetime(2026, 1, 5)
    assert [r.id for r in report.history("c")] == ["a", "b", "c"]


def test_as_of_answers_what_was_true_then():
    report = consolidate([BUS, BUS_AGAIN, CYCLE, CELLO])
    assert [r.id for r in report.as_of("2026-01-07")] == ["a"]          # cello not yet known, bus known
    assert [r.id for r in report.as_of("2026-01-20")] == ["a", "d"]
    assert [r.id for r in report.as_of("2026-03-01")] == ["d", "b"]     # newest wording speaks for the cluster
    assert [r.id for r in report.as_of("2026-07-01")] == ["d", "c"]
    assert report.as_of("2025-12-31") == []
    assert [r.id for r in report.as_of(datetime(2026, 6, 1))] == ["d", "c"]  # valid_to is exclusive


def test_different_tags_never_merge_and_unrelated_text_stays():
    other = R("x", "Ines takes the number 7 bus to the office every morning.", "2026-03-01", tags=("work",))
    report = consolidate([BUS, other])
    assert report.merges == [] and sorted(report.current_ids()) == ["a", "x"]
    # same_tags=False compares across tags
    assert len(consolidate([BUS, other], same_tags=False).merges) == 1


def test_same_instant_is_not_a_merge():
    twin = R("t", BUS.text, BUS.created_at)
    assert consolidate([BUS, twin]).merges == []


def test_explanations_name_the_evidence():
    report = consolidate([BUS, CYCLE])
    line = report.merges[0].explain()
    assert "supersede" in line and "c <- a" in line and "'Since'" in line and "office" in line
    assert "supersede" in report.explain() and "Report(" in repr(report)


def test_deterministic_and_store_input():
    store = ArchivalStore()
    for r in (BUS, BUS_AGAIN, CYCLE, CELLO):
        store.add_record(r)
    a, b = consolidate(store), consolidate(list(reversed(list(store))))
    assert [m.explain() for m in a.merges] == [m.explain() for m in b.merges]
    assert a.validity == b.validity


def test_current_store_merges_wordings():
    report = consolidate([BUS, BUS_AGAIN, CELLO])
    store = report.current_store()
    assert len(store) == 2
    merged = store.get("b")
    assert BUS.text in merged.text and BUS_AGAIN.text in merged.text
    assert report.current_store(merge_wording=False).get("b").text == BUS_AGAIN.text


def test_invalidate_returns_new_report():
    report = consolidate([BUS, CELLO])
    later = report.invalidate("d", "2026-05-01", "Ines sold the cello")
    assert "d" in report.current_ids() and "d" not in later.current_ids()
    assert later.merges[-1].kind == "invalidate" and "sold" in later.merges[-1].explain()
    assert [r.id for r in later.as_of("2026-04-01")] == ["a", "d"]
    assert [r.id for r in later.as_of("2026-05-02")] == ["a"]
    with pytest.raises(ValueError, match="already invalidated"):
        later.invalidate("d", "2026-06-01", "again")
    with pytest.raises(ValueError, match="before it became valid"):
        report.invalidate("d", "2025-01-01", "too early")
    with pytest.raises(ValueError, match="reason"):
        report.invalidate("d", "2026-05-01", " ")
    with pytest.raises(KeyError, match="current_ids"):
        report.invalidate("nope", "2026-05-01", "x")


def test_bad_input():
    with pytest.raises(ValueError, match="between 0 and 1"):
        consolidate([BUS], duplicate_at=1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        consolidate([BUS], supersede_at="0.1")
    with pytest.raises(TypeError, match="ArchivalRecord"):
        consolidate(["just text"])
    with pytest.raises(TypeError, match="ArchivalStore"):
        consolidate(42)
    with pytest.raises(ValueError, match="unique"):
        consolidate([BUS, BUS])
    with pytest.raises(KeyError, match="report.records"):
        consolidate([BUS]).history("zzz")
    assert consolidate([]).current_ids() == []


def test_score_against_links_counts():
    report = consolidate([BUS, BUS_AGAIN, CYCLE])
    score = score_against_links(report, [("near_duplicate", "b", "a"), ("near_duplicate", "c", "b"),
                                         ("supersedes", "z", "y")])
    assert score.correct == (("b", "a"),) and score.wrong_kind == (("c", "b"),)
    assert score.missed == (("z", "y"),) and score.unexpected == ()
    assert score.precision == 1.0 and score.recall == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown link kind"):
        score_against_links(report, [("similar", "b", "a")])


# -- on the course data -------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    facts = datasets.load("facts")
    links = datasets.load("fact_links")
    return facts, links, consolidate(facts)


def test_on_facts_finds_most_links_with_few_mistakes(data):
    facts, links, report = data
    score = score_against_links(report, links)
    assert score.recall >= 0.85 and score.precision >= 0.85
    assert len(score.correct) >= 30
    # never a merge that goes back in time
    for m in report.merges:
        assert report.records[m.kept_id].created_at > report.records[m.retired_id].created_at


def test_consolidation_ignores_the_links(data, monkeypatch):
    facts, links, report = data
    monkeypatch.setattr(datasets, "load", lambda *a, **k: pytest.fail("consolidate must not load datasets"))
    again = consolidate(facts)
    assert [m.explain() for m in again.merges] == [m.explain() for m in report.merges]


def test_rot_hurts_and_consolidation_heals(data):
    facts, links, report = data
    newer = {l.fact_id for l in links if l.kind == "supersedes"}
    stale = {l.other_id for l in links if l.kind == "supersedes"}
    queries = [q for q in datasets.load("queries") if set(q.relevant_ids) & newer]
    curve = rot_curve(facts, stale, queries, steps=4)
    assert [p.stale for p in curve] == [0, 5, 10, 14, 19]
    assert curve[-1].recall_at_1 < curve[0].recall_at_1
    assert curve[-1].mrr < curve[0].mrr and curve[-1].stale_on_top > 0
    consolidated = current_fact_ranks(report.current_store(), queries)
    rotted = [p for p in current_fact_ranks(_store(facts), queries)]
    at1 = lambda ranks: sum(r == 1 for r in ranks)  # noqa: E731
    assert at1(consolidated) > at1(rotted)
    assert at1(consolidated) >= round(curve[0].recall_at_1 * len(queries))


def test_rot_curve_bad_input(data):
    facts, links, _ = data
    with pytest.raises(ValueError, match="steps"):
        rot_curve(facts, [], [], steps=0)
    with pytest.raises(ValueError, match="not among the records"):
        rot_curve(facts, ["fact-9999"], [])


def _store(records):
    store = ArchivalStore()
    for r in records:
        store.add_record(r)
    return store


def test_report_is_a_report(data):
    assert isinstance(data[2], Report)
    assert data[2].counts()["current"] + data[2].counts()["superseded"] + data[2].counts()["duplicate"] == 337


def test_rot_figure(data):
    from memlib.consolidate import RotPoint, rot_figure

    points = [RotPoint("clean", 10, 0, 0.5, 0.6, 0), RotPoint("+2 stale", 12, 2, 0.0, 0.3, 2)]
    fig = rot_figure(points, after=RotPoint("after", 9, 0, 0.5, 0.65, 0))
    assert [list(t.y) for t in fig.data][:2] == [[0.5, 0.0], [0.6, 0.3]]
    assert len(fig.data) == 4 and "0.65" in fig.data[3].name
    with pytest.raises(ValueError, match="empty"):
        rot_figure([])


def test_synonyms_bridge_different_words():
    gp = R("g", "Ines's GP practice is the Chapel Allerton Medical Centre.", "2026-03-09", tags=("health",))
    new = R("n", "Since the move Ines is registered with the Kirkstall Lane surgery.", "2026-06-10", tags=("health",))
    assert consolidate([gp, new]).merges == []
    merged = consolidate([gp, new], synonyms={"surgery": "gp", "practice": "gp"})
    assert [(m.kind, m.kept_id, m.retired_id) for m in merged.merges] == [("supersede", "n", "g")]
    assert "surgery" in merged.merges[0].shared_terms  # the newer record's own word is reported
    with pytest.raises(TypeError, match="synonyms"):
        consolidate([gp], synonyms={"surgery": ""})
    with pytest.raises(TypeError, match="synonyms"):
        consolidate([gp], synonyms=[("surgery", "gp")])
