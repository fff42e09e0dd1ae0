"""memlib.storage: SQLite stores behave like the in-memory ones, survive reopening,
and fail clearly on read-only files and full disks (whole-agent saves: test_saves.py)."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memlib.archival import MAX_TEXT_CHARS, ArchivalRecord, ArchivalStore
from memlib.messages import Message
from memlib.recall import RecallStore
from memlib import storage
from memlib.storage import (
    ReadOnlyStorageError,
    SQLiteArchivalStore,
    SQLiteRecallStore,
    StorageCorruptError,
    StorageError,
    StorageFullError,
    fts5_available,
)

needs_fts5 = pytest.mark.skipif(not fts5_available(), reason="this Python's SQLite has no FTS5")

WORDS = ("ines lisbon window seat flight train coffee standup monday tuesday budget report "
         "café naïve straße 東京 don't o'brien résumé cafe naive strasse tokyo report-card "
         "sister brother dentist appointment moved birthday allergy peanuts cat biscuit").split()


def clock():
    ticks = iter(range(1_000_000))
    start = datetime(2024, 3, 1, 9, 0, 0)
    return lambda: start + timedelta(seconds=next(ticks))


def corpus(n=300, seed=7):
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        words = rng.choices(WORDS, k=rng.randint(1, 12))
        texts.append(" ".join(words))
    texts += texts[:20]  # exact duplicates: equal scores, so ties must break the same way
    return texts


QUERIES = ["window seat", "café", "cafe", "Straße strasse", "東京", "don't", "o'brien résumé",
           "report", "report report card", "the", "", "zebra", "naïve naive café cafe",
           "moved birthday allergy peanuts cat biscuit lisbon", "MONDAY"]


def fill(store, texts):
    for i, text in enumerate(texts):
        store.insert(text, session_id=f"s{i % 4}", turn_id=i, tags=["t"] if i % 3 else [])


def results(store, query, **kw):
    return [(h.record.id, h.score, h.rank) for h in store.search(query, **kw)]


# ---------------------------------------------------------------------------
# same results as the in-memory store


@pytest.mark.parametrize("scorer", ["bm25", "bm25-okapi", "overlap"])
def test_same_results_as_memory_store_with_and_without_fts5(tmp_path, scorer):
    texts = corpus()
    # synchronous=NORMAL: no fsync per insert keeps this test fast; durability is
    # the crash tests' business
    fast = {"scorer": scorer, "synchronous": "NORMAL"}
    stores = {"memory": ArchivalStore(scorer=scorer, clock=clock()),
              "sqlite-nofts": SQLiteArchivalStore(tmp_path / "a.db", fts5=False, clock=clock(), **fast)}
    if fts5_available():
        stores["sqlite-fts-index"] = SQLiteArchivalStore(tmp_path / "b.db", clock=clock(), **fast)
        stores["sqlite-fts-candidates"] = SQLiteArchivalStore(tmp_path / "c.db", candidates="fts5",
                                                              clock=clock(), **fast)
    for store in stores.values():
        fill(store, texts)
        for rid in ("arc-000003", "arc-000050", "arc-000051"):
            store.delete(rid)
        store.insert("café in 東京 after the window seat flight", id="custom-1")
    reference = stores.pop("memory")
    for query in QUERIES:
        for top_k, page in ((5, 0), (5, 1), (50, 0), (400, 0)):
            want = results(reference, query, top_k=top_k, page=page)
            for name, store in stores.items():
                assert results(store, query, top_k=top_k, page=page) == want, (name, query, top_k, page)
    # and again after reopening: the index is rebuilt from the table in insertion order
    for name, store in stores.items():
        store.close()
    reopened = [SQLiteArchivalStore(tmp_path / "a.db", scorer=scorer, fts5=False)]
    if fts5_available():
        reopened.append(SQLiteArchivalStore(tmp_path / "c.db", scorer=scorer, candidates="fts5"))
    for store in reopened:
        assert [r.to_dict() for r in store] == [r.to_dict() for r in reference]
        for query in QUERIES:
            assert results(store, query, top_k=400) == results(reference, query, top_k=400), query


@needs_fts5
def test_fts5_mirror_is_rebuilt_after_a_writer_without_fts5(tmp_path):
    path = tmp_path / "a.db"
    with SQLiteArchivalStore(path) as store:
        fill(store, corpus(40))
    with SQLiteArchivalStore(path, fts5=False) as store:  # e.g. a Python without FTS5
        store.delete("arc-000001")
        store.insert("a brand new fact about zebras")
    with SQLiteArchivalStore(path, candidates="fts5") as store:
        reference = ArchivalStore()
        for record in store:
            reference.add_record(record)
        for query in QUERIES + ["zebras"]:
            assert results(store, query, top_k=100) == results(reference, query, top_k=100)
        assert [h.record.id for h in store.search("zebras")] == ["arc-000061"]


def test_without_fts5_in_this_python(tmp_path, monkeypatch):
    monkeypatch.setattr(storage, "fts5_available", lambda: False)
    store = SQLiteArchivalStore(tmp_path / "a.db")
    assert store.fts5 is False
    store.insert("Ines prefers window seats")
    assert [h.record.id for h in store.search("window")] == ["arc-000001"]
    with pytest.raises(StorageError, match="without FTS5"):
        SQLiteArchivalStore(tmp_path / "b.db", fts5=True)
    with pytest.raises(ValueError, match="needs the FTS5 mirror"):
        SQLiteArchivalStore(tmp_path / "c.db", candidates="fts5")


# ---------------------------------------------------------------------------
# persistence, ids, cross-connection visibility


def test_everything_survives_reopening(tmp_path):
    path = tmp_path / "a.db"
    store = SQLiteArchivalStore(path, page_size=3, clock=clock())
    rec = store.insert("Ines prefers window seats on long flights", tags=["travel", "seat"],
                       session_id="s3", turn_id=14, source_url="chat://s3/14", trust="trusted")
    store.insert("The standup moved to 9:30 on Mondays", created_at="2024-01-02T03:04:05")
    store.close()
    again = SQLiteArchivalStore(path, page_size=3)
    assert again.get("arc-000001") == rec
    assert again.get("arc-000002").created_at == datetime(2024, 1, 2, 3, 4, 5)
    assert [r.id for r in again.list_since("2024-03-01")] == ["arc-000001"]
    assert len(again) == 2 and "arc-000002" in again and "nope" not in again
    assert again.integrity_check() == "ok"
    assert "2 records" in repr(again) and str(path.name) in repr(again)


def test_ids_continue_after_reopen_and_are_never_reused(tmp_path):
    path = tmp_path / "a.db"
    memory = ArchivalStore()
    store = SQLiteArchivalStore(path)
    for s in (memory, store):
        s.insert("one")
        s.insert("two")
        s.insert("three", id="arc-000003")  # a custom id in the way of the counter
        assert s.insert("four").id == "arc-000004"
        s.delete("arc-000004")
    assert [r.id for r in store] == [r.id for r in memory] == ["arc-000001", "arc-000002", "arc-000003"]
    store.close()
    store = SQLiteArchivalStore(path)
    # the deleted arc-000004 is not handed out again (a citation to it must not
    # silently point at a different fact after a restart)
    assert store.insert("five").id == memory.insert("five").id == "arc-000005"


def test_two_connections_see_each_others_writes(tmp_path):
    a = SQLiteArchivalStore(tmp_path / "a.db")
    b = SQLiteArchivalStore(tmp_path / "a.db")
    a.insert("Ines prefers window seats")
    assert [h.record.id for h in b.search("window")] == ["arc-000001"]
    assert b.insert("a second fact about the window").id == "arc-000002"
    assert len(a) == 2 and a.get("arc-000002").text == "a second fact about the window"
    a.delete("arc-000001")
    assert "arc-000001" not in b and [h.record.id for h in b.search("window")] == ["arc-000002"]
    # deleted and re-added under the same id by the other connection
    b.delete("arc-000002")
    b.insert("windows again", id="arc-000002")
    assert a.get("arc-000002").text == "windows again"
    assert a.insert("third").id == "arc-000003"


# ---------------------------------------------------------------------------
# bad input: the same errors as the in-memory store, and nothing written


@pytest.mark.parametrize("call, error", [
    (lambda s: s.insert(42), TypeError),
    (lambda s: s.insert("   "), ValueError),
    (lambda s: s.insert("x" * (MAX_TEXT_CHARS + 1)), ValueError),
    (lambda s: s.insert("ok", trust="gospel"), ValueError),
    (lambda s: s.insert("ok", tags="travel"), TypeError),
    (lambda s: s.insert("ok", turn_id="3"), TypeError),
    (lambda s: s.insert("ok", created_at="last tuesday"), ValueError),
    (lambda s: s.insert("dup", id="arc-000001"), ValueError),
    (lambda s: s.add_record({"id": "x", "text": "y"}), TypeError),
    (lambda s: s.search(None), TypeError),
    (lambda s: s.search("x", top_k=0), ValueError),
    (lambda s: s.search("x", page=-1), ValueError),
    (lambda s: s.get("arc-999999"), KeyError),
    (lambda s: s.delete("arc-999999"), KeyError),
    (lambda s: s.list_since("soon"), ValueError),
])
def test_bad_input_same_errors_and_nothing_written(tmp_path, call, error):
    memory = ArchivalStore()
    store = SQLiteArchivalStore(tmp_path / "a.db")
    for s in (memory, store):
        s.insert("existing fact")
        with pytest.raises(error):
            call(s)
    store.close()
    again = SQLiteArchivalStore(tmp_path / "a.db")
    assert [r.id for r in again] == ["arc-000001"]
    assert again.insert("next").id == "arc-000002"


def test_bad_paths_and_arguments(tmp_path):
    with pytest.raises(ValueError, match="not a file"):
        SQLiteArchivalStore(":memory:")
    with pytest.raises(TypeError):
        SQLiteArchivalStore(3)
    with pytest.raises(StorageError, match="does not exist"):
        SQLiteArchivalStore(tmp_path / "missing" / "a.db")
    with pytest.raises(FileNotFoundError):
        SQLiteArchivalStore(tmp_path / "nope.db", read_only=True)
    with pytest.raises(ValueError, match="synchronous"):
        SQLiteArchivalStore(tmp_path / "a.db", synchronous="OFF")
    with pytest.raises(ValueError, match="candidates"):
        SQLiteArchivalStore(tmp_path / "a.db", candidates="magic")
    with pytest.raises(ValueError, match="page_size"):
        SQLiteArchivalStore(tmp_path / "a.db", page_size=0)


def test_wrong_files_are_refused_clearly(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all, just some bytes" * 100)
    with pytest.raises(StorageCorruptError, match="not a readable SQLite database"):
        SQLiteArchivalStore(junk)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE users (name TEXT)").connection.commit()
    with pytest.raises(StorageCorruptError, match="not a memlib store"):
        SQLiteArchivalStore(other)
    SQLiteRecallStore(tmp_path / "recall.db").close()
    with pytest.raises(StorageCorruptError, match="recall storage, not archival"):
        SQLiteArchivalStore(tmp_path / "recall.db")
    SQLiteArchivalStore(tmp_path / "arch.db").close()
    with pytest.raises(StorageCorruptError, match="archival storage, not recall"):
        SQLiteRecallStore(tmp_path / "arch.db")
    conn = sqlite3.connect(tmp_path / "arch.db")
    conn.execute("UPDATE memlib_meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StorageCorruptError, match="schema version 99"):
        SQLiteArchivalStore(tmp_path / "arch.db")


# ---------------------------------------------------------------------------
# read-only and full disks


def test_read_only_store_searches_but_refuses_writes(tmp_path):
    path = tmp_path / "a.db"
    with SQLiteArchivalStore(path) as store:
        store.insert("Ines prefers window seats")
    ro = SQLiteArchivalStore(path, read_only=True)
    assert [h.record.id for h in ro.search("window")] == ["arc-000001"]
    with pytest.raises(ReadOnlyStorageError, match="read_only=True"):
        ro.insert("more")
    with pytest.raises(PermissionError):  # also a PermissionError, for generic handlers
        ro.delete("arc-000001")
    assert len(SQLiteArchivalStore(path)) == 1


@pytest.fixture
def read_only_dir():
    """A directory holding an archival and a recall store that cannot be written.

    File permissions do not bind root, so as root it is a read-only bind mount (a
    real read-only file system); otherwise chmod is enough.
    """
    base = Path(tempfile.mkdtemp(prefix="memlib-ro-"))
    src, dst = base / "src", base / "dst"
    src.mkdir()
    dst.mkdir()
    with SQLiteArchivalStore(src / "a.db") as store:
        store.insert("Ines prefers window seats")
    SQLiteRecallStore(src / "r.db").close()
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    mounted = False
    try:
        if is_root:
            ok = subprocess.run(["mount", "--bind", str(src), str(dst)], capture_output=True).returncode == 0
            mounted = ok
            if not ok or subprocess.run(["mount", "-o", "remount,bind,ro", str(dst)],
                                        capture_output=True).returncode != 0:
                pytest.skip("running as root without permission to mount a read-only bind mount")
            yield dst
        else:
            for f in src.iterdir():
                os.chmod(f, 0o444)
            os.chmod(src, 0o555)
            yield src
    finally:
        if mounted:
            subprocess.run(["umount", str(dst)], capture_output=True)
        os.chmod(src, 0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_read_only_file_system_fails_at_open_with_a_clear_error(read_only_dir):
    with pytest.raises(ReadOnlyStorageError, match="cannot open archival storage: .* is read-only"):
        SQLiteArchivalStore(read_only_dir / "a.db")
    with pytest.raises(ReadOnlyStorageError, match="cannot open recall storage: .* is read-only"):
        SQLiteRecallStore(read_only_dir / "r.db")
    with pytest.raises(StorageError, match="writable"):
        SQLiteArchivalStore(read_only_dir / "new.db")


def _fill_until_full(store, recall=None):
    # PRAGMA max_page_count caps the database file: SQLite then fails exactly as on
    # a full disk (SQLITE_FULL), portably and without root or a tiny file system.
    for db in [store._table._db] + ([recall._table._db] if recall is not None else []):
        pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
        db.conn.execute(f"PRAGMA max_page_count = {pages + 3}").fetchone()


def test_full_disk_rolls_back_and_raises_clearly(tmp_path):
    store = SQLiteArchivalStore(tmp_path / "a.db")
    recall = SQLiteRecallStore(tmp_path / "r.db")
    store.insert("a fact before the disk filled up")
    _fill_until_full(store, recall)
    stored = []
    with pytest.raises(StorageFullError, match="full.*nothing was stored"):
        for i in range(10_000):
            stored.append(store.insert(f"fact {i} " + "padding words " * 200).id)
    with pytest.raises(StorageFullError):
        for i in range(10_000):
            recall.add(Message.user(f"message {i} " + "padding words " * 200))
    # the failed insert left no trace, in memory or on disk, and the store still works
    assert [r.id for r in store] == ["arc-000001"] + stored
    assert store.search("fact")  # reads still work
    assert store.integrity_check() == "ok"
    n_recall = len(recall)
    store.close()
    recall.close()
    again = SQLiteArchivalStore(tmp_path / "a.db")
    assert [r.id for r in again] == ["arc-000001"] + stored
    assert again.insert("room again after reopening").id == f"arc-{len(stored) + 2:06d}"
    assert len(SQLiteRecallStore(tmp_path / "r.db")) == n_recall


def test_real_full_file_system_when_root_can_mount_a_tiny_tmpfs():
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount")):
        pytest.skip("needs root to mount a tiny tmpfs (the max_page_count test covers the logic)")
    mnt = Path(tempfile.mkdtemp(prefix="memlib-full-"))
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        mnt.rmdir()
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        store = SQLiteArchivalStore(mnt / "a.db")
        with pytest.raises(StorageFullError):
            for i in range(10_000):
                store.insert(f"fact {i} " + "padding words " * 100)
        kept = len(store)
        store.close()
        again = SQLiteArchivalStore(mnt / "a.db", read_only=True)
        assert len(again) == kept and again.integrity_check() == "ok"
        again.close()
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
        shutil.rmtree(mnt, ignore_errors=True)


# ---------------------------------------------------------------------------
# recall


def test_recall_store_persists_and_matches_memory(tmp_path):
    path = tmp_path / "r.db"
    memory, store = RecallStore(page_size=2), SQLiteRecallStore(path, page_size=2)
    texts = corpus(60)
    for s in (memory, store):
        for i, text in enumerate(texts):
            role = "user" if i % 2 else "assistant"
            s.add(Message(role, text, timestamp=datetime(2024, 3, 1 + i % 5, 10), session_id="s1"))
        s.add(Message.tool("42", tool_call_id="call-1", name="calc", timestamp=datetime(2024, 3, 9)))
    store.close()
    store = SQLiteRecallStore(path, page_size=2)
    assert store.messages == memory.messages and list(store) == list(memory)
    for query in QUERIES:
        for page in range(3):
            assert store.conversation_search(query, page) == memory.conversation_search(query, page)
    assert (store.conversation_search_date("2024-03-02", "2024-03-03", 1)
            == memory.conversation_search_date("2024-03-02", "2024-03-03", 1))
    new = store.add(Message.user("after reopening"))
    assert new.id == len(texts) + 1 and new.timestamp is not None
    assert store.get(new.id) == new and new.id in store
    with pytest.raises(ValueError, match="already in recall"):
        store.add(Message.user("dup", id=new.id))
    with pytest.raises(TypeError):
        store.add("not a message")
    assert len(SQLiteRecallStore(path)) == len(texts) + 2
    assert "SQLiteRecallStore" in repr(store) and store.integrity_check() == "ok"


def test_main_context_on_sqlite_recall_survives_restart(tmp_path):
    from memlib.context import MainContext

    path = tmp_path / "r.db"
    ctx = MainContext(window=300, recall=SQLiteRecallStore(path))
    for i in range(60):
        ctx.append(Message.user(f"fact number {i}: the locker code for gym {i} is {1000 + i}"))
    assert len(ctx.messages) < 60  # some were evicted from the window...
    fresh = SQLiteRecallStore(path)  # ...and all of them are on disk
    assert len(fresh) == 60
    assert fresh.conversation_search("locker gym 3")[0].content.startswith("fact number 3:")


def test_add_records_is_one_all_or_nothing_transaction(tmp_path):
    store = SQLiteArchivalStore(tmp_path / "a.db")
    records = [ArchivalRecord(f"ds-{i}", f"dataset fact {i}") for i in range(100)]
    assert store.add_records(records) == records
    with pytest.raises(ValueError, match="'ds-3' already exists"):
        store.add_records([ArchivalRecord("ds-new", "new"), ArchivalRecord("ds-3", "clash")])
    with pytest.raises(ValueError, match="appears twice; nothing was added"):
        store.add_records([ArchivalRecord("ds-x", "new"), ArchivalRecord("ds-x", "again")])
    assert "ds-new" not in store and "ds-x" not in store
    with pytest.raises(TypeError):
        store.add_records(["not a record"])
    store.close()
    again = SQLiteArchivalStore(tmp_path / "a.db")
    assert [r.id for r in again] == [r.id for r in records]
    assert again.insert("next").id == "arc-000001"


def test_a_closed_store_says_so(tmp_path):
    store = SQLiteArchivalStore(tmp_path / "a.db")
    store.insert("a fact")
    store.close()
    with pytest.raises(StorageError, match="was closed; open it again"):
        store.insert("another")
    recall = SQLiteRecallStore(tmp_path / "r.db")
    recall.close()
    with pytest.raises(StorageError, match="was closed"):
        recall.add(Message.user("hi"))


@pytest.mark.parametrize("call, error", [
    (lambda r: r.add("hello"), TypeError),
    (lambda r: r.add(Message.user("dup", id=0)), ValueError),
    (lambda r: r.conversation_search(None), TypeError),
    (lambda r: r.conversation_search("x", page=-1), ValueError),
    (lambda r: r.conversation_search_date("2024-13-01", "2024-12-01"), ValueError),
    (lambda r: r.conversation_search_date("2024-03-02", "2024-03-01"), ValueError),
    (lambda r: r.get(99), KeyError),
])
def test_recall_bad_input_same_errors_and_nothing_written(tmp_path, call, error):
    memory, store = RecallStore(), SQLiteRecallStore(tmp_path / "r.db")
    for r in (memory, store):
        r.add(Message.user("existing message"))
        with pytest.raises(error):
            call(r)
    store.close()
    assert [m.content for m in SQLiteRecallStore(tmp_path / "r.db")] == ["existing message"]


def test_read_only_true_opens_a_store_on_a_read_only_mount(read_only_dir):
    with SQLiteArchivalStore(read_only_dir / "a.db", read_only=True) as store:
        assert [h.record.id for h in store.search("window seats")] == ["arc-000001"]
        with pytest.raises(ReadOnlyStorageError):
            store.insert("more")
    with SQLiteRecallStore(read_only_dir / "r.db", read_only=True) as recall:
        assert len(recall) == 0


def test_reopening_builds_the_index_from_the_stored_tokens(tmp_path, monkeypatch):
    from memlib import retrieval

    path = tmp_path / "a.db"
    with SQLiteArchivalStore(path) as store:
        fill(store, corpus(200))
        want = {q: results(store, q) for q in QUERIES}

    def no_analysis(self, text):
        raise AssertionError("reopening analysed a record's text")

    monkeypatch.setattr(retrieval.Analyzer, "__call__", no_analysis)
    again = SQLiteArchivalStore(path)  # builds its index without analysing any text
    monkeypatch.undo()
    assert {q: results(again, q) for q in QUERIES} == want
    again.close()


@needs_fts5
def test_fts5_candidates_need_a_scorer_that_scores_one_document(tmp_path):
    class RanksOnly:
        def add(self, doc_id, text): ...
        def remove(self, doc_id): ...
        def search(self, query, k=10): return []

    with pytest.raises(ValueError, match="needs a scorer with score"):
        SQLiteArchivalStore(tmp_path / "a.db", scorer=RanksOnly, candidates="fts5")
    with SQLiteArchivalStore(tmp_path / "a.db") as store:  # the refused open left the file usable
        assert len(store) == 0
