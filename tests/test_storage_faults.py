"""memlib.storage under injected faults: a save killed at every step, ids after deletes,
deletes racing other connections.

The kill test forks a child that runs save_agent with every file-system step it
takes (each write, fsync, mkdtemp, rename and rmtree) counted, and exits on the
spot (os._exit: no cleanup, no finally) just before or just after step k. The
parent then loads the save: it must be exactly the old save or exactly the new
one, and after that load no hidden leftovers may remain.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

from memlib import saves
from memlib.archival import ArchivalRecord
from memlib.core_memory import CoreMemory
from memlib.saves import AgentSaveError, load_agent, save_agent
from memlib.storage import SQLiteArchivalStore

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="needs os.fork")

# The file-system steps of a save, as storage calls them.
_STEPS = [(saves, "_write_synced"), (saves, "_fsync_dir"), (saves.os, "rename"),
          (saves.shutil, "rmtree"), (saves.tempfile, "mkdtemp")]


def _counting(on_step):
    """Patch every step so on_step(n, run) decides what happens at the n-th one."""
    counter = {"n": 0}
    originals = {(mod, name): getattr(mod, name) for mod, name in _STEPS}
    for (mod, name), original in originals.items():
        def wrapped(*args, _original=original, **kwargs):
            counter["n"] += 1
            return on_step(counter["n"], lambda: _original(*args, **kwargs))
        setattr(mod, name, wrapped)
    return counter, originals


def _restore(originals):
    for (mod, name), original in originals.items():
        setattr(mod, name, original)


def _count_steps(folder, core) -> int:
    counter, originals = _counting(lambda n, run: run())
    try:
        save_agent(folder / "save", core_memory=core, overwrite=True)
    finally:
        _restore(originals)
    return counter["n"]


def _kill_at(folder, core, step: int, after: bool) -> None:
    pid = os.fork()
    if pid == 0:  # the child: save, and die at the chosen step
        try:
            def on_step(n, run):
                if n == step and after:
                    run()
                    os._exit(0)
                if n == step:
                    os._exit(0)
                return run()
            _counting(on_step)
            save_agent(folder / "save", core_memory=core, overwrite=True)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


@needs_fork
@pytest.mark.parametrize("had_old_save", [True, False])
def test_a_save_killed_at_any_step_is_old_or_new_and_leaves_nothing(tmp_path, had_old_save):
    old_core = CoreMemory.default(human="old save")
    new_core = CoreMemory.default(human="new save")
    steps = _count_steps(tmp_path / "probe", new_core)
    assert steps >= 8
    seen = set()
    for step in range(1, steps + 1):
        for after in (False, True):
            folder = tmp_path / f"k{step}{'a' if after else 'b'}"
            folder.mkdir()
            if had_old_save:
                save_agent(folder / "save", core_memory=old_core)
            _kill_at(folder, new_core, step, after)
            if not had_old_save and not (folder / "save").exists() and not (folder / ".save.new").exists():
                with pytest.raises(AgentSaveError, match="not a directory"):
                    load_agent(folder / "save")  # killed before the save existed: no save, as before
                seen.add("nothing yet")
            else:
                loaded = load_agent(folder / "save").core_memory
                assert loaded in (old_core, new_core), (step, after)
                seen.add("new" if loaded == new_core else "old")
            assert sorted(p.name for p in folder.iterdir()) in ([], ["save"]), (step, after)
            save_agent(folder / "save", core_memory=new_core, overwrite=True)  # and saving works again
            assert sorted(p.name for p in folder.iterdir()) == ["save"]
    assert "new" in seen and ("old" in seen if had_old_save else "nothing yet" in seen)
    print(f"save kill injection: {steps} steps x before/after = {2 * steps} kills, outcomes {sorted(seen)}")


def test_a_failed_swap_puts_the_old_save_back(tmp_path, monkeypatch):
    save_agent(tmp_path / "save", core_memory=CoreMemory.default(human="old"))
    real, failures = os.rename, []

    def failing(src, dst):
        if str(dst).endswith("/save") and not failures:  # the new save's move into place fails once
            failures.append(dst)
            raise OSError(5, "I/O error")
        return real(src, dst)

    monkeypatch.setattr(saves.os, "rename", failing)
    with pytest.raises(OSError, match="I/O"):
        save_agent(tmp_path / "save", core_memory=CoreMemory.default(human="new"), overwrite=True)
    monkeypatch.undo()
    assert load_agent(tmp_path / "save").core_memory == CoreMemory.default(human="old")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["save"]


def test_leftovers_of_the_old_layout_of_live_processes_are_kept(tmp_path):
    save_agent(tmp_path / "save", core_memory=CoreMemory.default())
    live = tmp_path / f".save.saving-{os.getppid()}-abc"  # a save in progress elsewhere
    live.mkdir()
    dead = tempfile.mkdtemp(prefix=".save.saving-999999999-", dir=tmp_path)
    load_agent(tmp_path / "save")
    assert live.exists() and not os.path.exists(dead)
    shutil.rmtree(live)


# -- ids -------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["add_records", "add_record", "insert_id"])
def test_sqlite_never_reissues_a_deleted_id(tmp_path, how):
    store = SQLiteArchivalStore(tmp_path / "a.db")
    record = ArchivalRecord("arc-000007", "seven is the code")
    if how == "add_records":
        store.add_records([record])
    elif how == "add_record":
        store.add_record(record)
    else:
        store.insert("seven is the code", id="arc-000007")
    store.delete("arc-000007")
    assert store.insert("the next fact").id == "arc-000008"
    store.close()
    again = SQLiteArchivalStore(tmp_path / "a.db")  # the file remembers too
    assert again.insert("one more").id == "arc-000009"
    again.close()


# -- deletes racing another connection --------------------------------------------------


def test_delete_reports_truthfully_when_another_connection_commits_in_between(tmp_path, monkeypatch):
    a = SQLiteArchivalStore(tmp_path / "a.db")
    b = SQLiteArchivalStore(tmp_path / "a.db")
    first, second = a.insert("first fact"), a.insert("second fact")
    real_write = a._table._db.write

    import contextlib

    @contextlib.contextmanager
    def write_then_b_deletes(action):
        with real_write(action) as conn:
            yield conn
        if "delete" in action:
            b.delete(second.id)  # lands right after a's commit

    monkeypatch.setattr(a._table._db, "write", write_then_b_deletes)
    assert a.delete(first.id) == first  # a's delete committed: it says so
    assert len(a) == 0 and len(b) == 0
    with pytest.raises(KeyError, match="no archival record"):
        a.delete(first.id)  # and a second delete of the same id is refused before writing
    a.close(), b.close()


def test_concurrent_deletes_of_one_record_exactly_one_succeeds(tmp_path):
    import threading

    path = tmp_path / "a.db"
    setup = SQLiteArchivalStore(path)
    ids = [setup.insert(f"fact {i}").id for i in range(30)]
    setup.close()
    stores = [SQLiteArchivalStore(path) for _ in range(3)]
    outcome = {rid: [] for rid in ids}

    def worker(store):
        for rid in ids:
            try:
                store.delete(rid)
                outcome[rid].append("deleted")
            except KeyError:
                outcome[rid].append("absent")

    threads = [threading.Thread(target=worker, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(sorted(v) == ["absent", "absent", "deleted"] for v in outcome.values()), outcome
    assert all(len(s) == 0 for s in stores)
    for s in stores:
        s.close()


# -- damaged files ------------------------------------------------------------------------


import json as _json
import sqlite3

from memlib.messages import Message
from memlib.saves import AgentSaveError as _AgentSaveError
from memlib.storage import BadRow, DamagedRowsWarning, SQLiteRecallStore, StorageCorruptError


def _damage(path, sql, *params):
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("sql, field", [
    ("UPDATE archival_records SET text = CAST(X'66ff6f' AS TEXT) WHERE seq = 7", "text"),
    ("UPDATE archival_records SET tags = '[1, 2' WHERE seq = 7", "tags"),
    ("UPDATE archival_records SET tags = '{\"a\": 1}' WHERE seq = 7", "tags"),
    ("UPDATE archival_records SET turn_id = 'seven' WHERE seq = 7", "turn_id"),
    ("UPDATE archival_records SET created_at = 'yesterday' WHERE seq = 7", "created_at"),
    ("UPDATE archival_records SET trust = 'gospel' WHERE seq = 7", "trust"),
    ("UPDATE archival_records SET source_url = X'ff' WHERE seq = 7", "source_url"),
    ("UPDATE archival_records SET turn_id = 1.5 WHERE seq = 7", "turn_id"),
    ("UPDATE archival_records SET text = '   ' WHERE seq = 7", "text"),
])
def test_one_bad_archival_row_leaves_400_good_rows_readable(tmp_path, sql, field):
    path = tmp_path / "a.db"
    with SQLiteArchivalStore(path) as store:
        store.add_records([ArchivalRecord(f"arc-{i:06d}", f"fact number {i}") for i in range(1, 402)])
    _damage(path, sql)
    with pytest.warns(DamagedRowsWarning, match=rf"a.db: 1 damaged row.*seq=7.*field '{field}'"):
        store = SQLiteArchivalStore(path)
    assert len(store) == 400 and "arc-000007" not in store
    assert [(b.seq, b.field) for b in store.bad_rows] == [(7, field)]
    assert isinstance(store.bad_rows[0], BadRow) and str(path) in str(store.bad_rows[0])
    assert store.search("fact number 8")[0].record.id == "arc-000008"
    with pytest.raises(ValueError, match="already exists|damaged row"):
        store.insert("again", id="arc-000007")
    assert store.insert("a new fact").id == "arc-000402"
    store.close()


def test_a_bad_recall_row_is_reported_and_its_id_stays_taken(tmp_path):
    path = tmp_path / "r.db"
    with SQLiteRecallStore(path) as recall:
        for i in range(50):
            recall.add(Message.user(f"message {i}"))
    _damage(path, "UPDATE recall_messages SET content = CAST(X'ff' AS TEXT) WHERE id = 49")
    _damage(path, "UPDATE recall_messages SET role = 'wizard' WHERE id = 3")
    with pytest.warns(DamagedRowsWarning, match="2 damaged row"):
        recall = SQLiteRecallStore(path)
    assert len(recall) == 48
    assert sorted(b.field for b in recall.bad_rows) == ["content", "role"]
    assert recall.add(Message.user("next")).id == 50
    recall.close()


@pytest.mark.parametrize("cls, table", [(SQLiteArchivalStore, "archival_records"),
                                        (SQLiteRecallStore, "recall_messages")])
@pytest.mark.parametrize("read_only", [False, True])
def test_a_dropped_table_is_corruption_not_an_empty_store(tmp_path, cls, table, read_only):
    path = tmp_path / "s.db"
    cls(path).close()
    _damage(path, f"DROP TABLE {table}")
    with pytest.raises(StorageCorruptError, match=f"table '{table}' is missing"):
        cls(path, read_only=read_only)
    conn = sqlite3.connect(path)
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone()  # not recreated
    conn.close()


def test_a_table_dropped_while_open_is_reported_as_corruption(tmp_path):
    store = SQLiteArchivalStore(tmp_path / "a.db")
    store.insert("a fact")
    _damage(tmp_path / "a.db", "DROP TABLE archival_records")
    with pytest.raises(StorageCorruptError):
        store.insert("another")
    store.close()


def test_damaged_meta_is_named(tmp_path):
    SQLiteArchivalStore(tmp_path / "a.db").close()
    _damage(tmp_path / "a.db", "UPDATE memlib_meta SET value = 'many' WHERE key = 'next_id'")
    with pytest.raises(StorageCorruptError, match="field 'next_id'"):
        SQLiteArchivalStore(tmp_path / "a.db")


def _resave(folder, name, data: bytes):
    import hashlib

    (folder / name).write_bytes(data)
    manifest = _json.loads((folder / "manifest.json").read_text())
    manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    (folder / "manifest.json").write_text(_json.dumps(manifest))


@pytest.mark.parametrize("damage, message", [
    (lambda d: _resave(d, "archival.jsonl", b'{"id": "a", "text": "ok"}\n\xff\xfe\n'),
     r"archival.jsonl, line 2: not valid UTF-8"),
    (lambda d: _resave(d, "archival.jsonl", b'[1, 2]\n'), r"archival.jsonl, line 1: expected a JSON object"),
    (lambda d: _resave(d, "archival.jsonl", b'{"id": "a", "text": 5}\n'), r"archival.jsonl, line 1: .*text"),
    (lambda d: _resave(d, "core_memory.json", b'\xff'), r"core_memory.json: cannot be loaded"),
    (lambda d: (d / "manifest.json").write_text(_json.dumps(
        {**_json.loads((d / "manifest.json").read_text()), "settings": [1]})), "field 'settings'"),
    (lambda d: (d / "manifest.json").write_text(_json.dumps(
        {**_json.loads((d / "manifest.json").read_text()), "files": {"archival.jsonl": "x"}})),
     "entry for archival.jsonl must be an object"),
])
def test_damaged_saves_name_the_file_and_line(tmp_path, damage, message):
    from memlib.archival import ArchivalStore

    archival = ArchivalStore()
    archival.insert("a fact")
    save_agent(tmp_path / "save", core_memory=CoreMemory.default(), archival=archival)
    damage(tmp_path / "save")
    with pytest.raises(_AgentSaveError, match=message):
        load_agent(tmp_path / "save")


def test_load_agent_resolves_summarizers_from_the_registry_only(tmp_path):
    from memlib.context import MainContext
    from memlib.summarize import TruncatingSummarizer

    ctx = MainContext(window=400, core_memory=CoreMemory.default(), summarizer=TruncatingSummarizer())
    save_agent(tmp_path / "save", context=ctx)
    assert isinstance(load_agent(tmp_path / "save").context.summarizer, TruncatingSummarizer)
    path = tmp_path / "save" / "context.json"
    state = _json.loads(path.read_text())
    state["summarizer"] = "memlib.storage:SQLiteArchivalStore"  # importable, callable, not a summarizer
    _resave(tmp_path / "save", "context.json", _json.dumps(state).encode())
    with pytest.raises(_AgentSaveError, match="not in memlib.saves.SUMMARIZERS"):
        load_agent(tmp_path / "save")
    loaded = load_agent(tmp_path / "save", summarizer=TruncatingSummarizer())  # the way out
    assert isinstance(loaded.context.summarizer, TruncatingSummarizer)
