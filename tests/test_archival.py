"""memlib.archival: provenance, paging, ids, and bad input."""

from datetime import datetime

import pytest
from hypothesis import given, settings, strategies as st

from memlib.archival import ArchivalRecord, ArchivalStore, MAX_TEXT_CHARS


def make_store(**kw):
    ticks = iter(range(10_000))
    return ArchivalStore(clock=lambda: datetime(2024, 3, 1, 9, 0, next(ticks) % 60), **kw)


def test_insert_keeps_provenance_and_search_finds_it():
    store = make_store()
    rec = store.insert("Ines prefers window seats on long flights", tags=["travel"],
                       session_id="s3", turn_id=14, source_url="chat://s3/14", trust="trusted")
    assert rec.id == "arc-000001" and rec.tags == ("travel",) and rec.turn_id == 14
    store.insert("The team standup moved to 9:30 on Mondays", session_id="s4", turn_id=2)
    hits = store.search("window seat flights")
    assert [h.record.id for h in hits] == ["arc-000001"]
    assert hits[0].rank == 0 and hits[0].score > 0
    assert store.get("arc-000001") is rec
    assert "arc-000001" in store and len(store) == 2


def test_pages_of_five_by_default():
    store = make_store()
    for i in range(12):
        store.insert(f"note {i} about the garden shed")
    pages = [store.search("garden shed", page=p) for p in range(4)]
    assert [len(p) for p in pages] == [5, 5, 2, 0]
    ids = [h.record.id for p in pages for h in p]
    assert len(set(ids)) == 12
    assert [h.rank for p in pages for h in p] == list(range(12))
    assert len(store.search("garden", top_k=3, page=1)) == 3


def test_delete_and_list_since():
    store = make_store()
    a = store.insert("first", created_at="2024-01-01")
    b = store.insert("second", created_at=datetime(2024, 2, 1, 12))
    assert [r.id for r in store.list_since("2024-01-15")] == [b.id]
    assert store.delete(a.id) == a
    assert a.id not in store and store.search("first") == []
    with pytest.raises(KeyError, match="search first"):
        store.get(a.id)


def test_record_round_trips_through_dict():
    rec = ArchivalRecord("arc-9", "text", tags=("x",), session_id="s", turn_id=1,
                         source_url="u", created_at="2024-05-05T10:00:00", trust="trusted")
    assert ArchivalRecord.from_dict(rec.to_dict()) == rec
    with pytest.raises(ValueError, match="unknown record fields"):
        ArchivalRecord.from_dict({**rec.to_dict(), "colour": "red"})


@pytest.mark.parametrize("kwargs, error, match", [
    ({"text": 5}, TypeError, "must be a str"),
    ({"text": "   "}, ValueError, "empty"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)}, ValueError, "split it"),
    ({"text": "ok", "trust": "maybe"}, ValueError, "trust must be one of"),
    ({"text": "ok", "tags": "travel"}, TypeError, "tags must be a list"),
    ({"text": "ok", "turn_id": "7"}, TypeError, "turn_id"),
    ({"text": "ok", "created_at": "yesterday"}, ValueError, "ISO date"),
])
def test_bad_inserts_fail_clearly_and_store_nothing(kwargs, error, match):
    store = make_store()
    with pytest.raises(error, match=match):
        store.insert(**kwargs)
    assert len(store) == 0


def test_duplicate_id_and_bad_search_arguments():
    store = make_store()
    store.insert("a fact", id="x1")
    with pytest.raises(ValueError, match="already exists"):
        store.insert("another", id="x1")
    assert store.get("x1").text == "a fact" and len(store) == 1
    with pytest.raises(ValueError, match="page must be"):
        store.search("fact", page=-1)
    with pytest.raises(ValueError, match="top_k"):
        store.search("fact", top_k=0)
    with pytest.raises(TypeError, match="query must be a str"):
        store.search(None)
    with pytest.raises(ValueError, match="page_size"):
        ArchivalStore(page_size=0)
    with pytest.raises(ValueError, match="valid|unknown|scorer"):
        ArchivalStore(scorer="nope")


def test_repr_is_readable():
    store = make_store(scorer="overlap")
    rec = store.insert("Ines prefers window seats", session_id="s1", turn_id=4)
    assert repr(store) == "ArchivalStore(1 records, scorer='overlap', page_size=5)"
    assert repr(rec) == "ArchivalRecord(arc-000001 [s1/4, unverified]: 'Ines prefers window seats')"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=40).filter(str.strip), min_size=1, max_size=30),
       st.text(max_size=20))
def test_ids_unique_and_search_deterministic(texts, query):
    store = make_store()
    ids = [store.insert(t).id for t in texts]
    assert len(set(ids)) == len(ids)
    first = store.search(query, top_k=50)
    assert first == store.search(query, top_k=50)
    for victim in ids[::3]:
        store.delete(victim)
        assert victim not in [h.record.id for h in store.search(query, top_k=50)]


def test_generated_ids_are_never_reused_after_delete_and_reload():
    store = make_store()
    first = store.insert("one")
    last = store.insert("two")
    store.delete(last.id)
    again = ArchivalStore(next_id=store.next_id)
    again.add_record(first)
    assert again.insert("three").id == "arc-000003"
    loaded = ArchivalStore()
    loaded.add_record(last)  # a record with a generated id moves the counter past it
    assert loaded.insert("four").id == "arc-000003"
    with pytest.raises(ValueError, match="next_id"):
        ArchivalStore(next_id=0)
