"""memlib.storage under crashes and concurrency, with real processes.

A writer child prints each id only after `insert` / `add` returned; the parent
kills it with SIGKILL at random moments, reopens the files and checks that every
printed id is there and that SQLite's integrity check passes. A second test has a
reader process search while a writer process inserts.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from memlib.storage import SQLiteArchivalStore, SQLiteRecallStore

pytestmark = [
    pytest.mark.measure,
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)"),
]

WRITER = textwrap.dedent("""
    import sys
    from memlib.messages import Message
    from memlib.storage import SQLiteArchivalStore, SQLiteRecallStore

    archival_path, recall_path, sync, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    archival = SQLiteArchivalStore(archival_path, synchronous=sync)
    recall = SQLiteRecallStore(recall_path, synchronous=sync)
    print("ready", flush=True)
    for i in range(start, start + 100_000):
        record = archival.insert(f"round fact {i}: the locker code for gym {i % 97} is {i}",
                                 tags=["crash"], turn_id=i)
        print("a", record.id, flush=True)
        if i % 3 == 0:
            message = recall.add(Message.user(f"message {i} about the crash test"))
            print("r", message.id, flush=True)
        if i % 50 == 49:
            # announced first: a kill during delete() may land after its commit
            print("x", record.id, flush=True)
            archival.delete(record.id)
            print("d", record.id, flush=True)
""")


def _run_and_kill(args, delay, after_ready):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = ""
    if after_ready:
        # time the kill from the first write, not from the spawn: start-up time varies
        # a lot on a busy machine and would otherwise decide where the kill lands
        first = proc.stdout.readline()
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    out = first + out
    # A child killed before it even started may have printed an import error: fail on
    # anything other than our own SIGKILL.
    assert proc.returncode == -signal.SIGKILL, f"writer ended on its own ({proc.returncode}): {err}"
    # Only whole lines count: a line cut by the kill was never fully reported.
    lines = out.split("\n")[:-1]
    return [line.split() for line in lines]


def test_every_returned_write_survives_sigkill(tmp_path):
    rng = random.Random(2024)
    archival_path, recall_path = str(tmp_path / "a.db"), str(tmp_path / "r.db")
    acked_archival: set[str] = set()
    deleted: set[str] = set()
    deleting: set[str] = set()  # delete() was called; it may or may not have committed
    acked_recall: set[int] = set()
    rounds, killed_mid_writes = 24, 0
    for round_no in range(rounds):
        # NORMAL in some rounds: in WAL mode a committed write must survive a killed
        # process even without an fsync per commit (the OS page cache has it).
        sync = "NORMAL" if round_no % 3 == 2 else "FULL"
        # Every fourth round dies anywhere from start-up to opening the files; the
        # others a random moment after writing began (up to a few hundred writes).
        after_ready = round_no % 4 != 0
        delay = rng.uniform(0.0, 0.2) if after_ready else rng.uniform(0.0, 0.3)
        lines = _run_and_kill([archival_path, recall_path, sync, str(round_no * 100_000)], delay, after_ready)
        for parts in lines:
            if parts[0] == "a":
                acked_archival.add(parts[1])
            elif parts[0] == "x":
                deleting.add(parts[1])
            elif parts[0] == "d":
                deleted.add(parts[1])
            elif parts[0] == "r":
                acked_recall.add(int(parts[1]))
        killed_mid_writes += any(p[0] in "ardx" for p in lines)
        with SQLiteArchivalStore(archival_path) as archival:
            assert archival.integrity_check() == "ok"
            present = {r.id for r in archival}
            missing = acked_archival - deleted - deleting - present
            assert not missing, f"round {round_no}: inserts that returned are gone: {sorted(missing)[:5]}"
            assert not (deleted & present), f"round {round_no}: deletes that returned came back"
            # the index agrees with the table: every stored record is findable
            for rid in rng.sample(sorted(present), min(5, len(present))):
                turn = archival.get(rid).turn_id
                hits = archival.search(f"round fact {turn}", top_k=len(present))
                assert rid in {h.record.id for h in hits}
        with SQLiteRecallStore(recall_path) as recall:
            assert recall.integrity_check() == "ok"
            ids = [m.id for m in recall]
            assert ids == sorted(set(ids)), "recall ids must stay unique and in order"
            assert acked_recall <= set(ids), f"round {round_no}: recall messages lost"
    assert killed_mid_writes >= rounds // 2, "the kills should land while the writer is writing"
    assert len(acked_archival) > 100


READER_WRITER = textwrap.dedent("""
    import sys
    from memlib.storage import SQLiteArchivalStore

    store = SQLiteArchivalStore(sys.argv[1])
    for i in range(int(sys.argv[2])):
        store.insert(f"shared topic entry {i}")
    print("done", len(store), flush=True)
""")


def test_a_reader_sees_consistent_snapshots_while_a_writer_inserts(tmp_path):
    path = str(tmp_path / "a.db")
    SQLiteArchivalStore(path).close()  # create the file (and WAL mode) before both start
    total = 600
    writer = subprocess.Popen([sys.executable, "-c", READER_WRITER, path, str(total)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reader = SQLiteArchivalStore(path)
    seen_sizes = []
    deadline = time.monotonic() + 60
    while writer.poll() is None and time.monotonic() < deadline:
        hits = reader.search("shared topic", top_k=total + 10)
        ids = sorted(h.record.id for h in hits)
        n = len(ids)
        # all-or-nothing records, committed in order: exactly the first n ids
        assert ids == [f"arc-{i:06d}" for i in range(1, n + 1)]
        assert [h.rank for h in hits] == list(range(n))
        assert not seen_sizes or n >= seen_sizes[-1], "a reader must never see records vanish"
        for hit in hits[:3]:
            assert reader.get(hit.record.id) == hit.record
        seen_sizes.append(n)
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert out.split() == ["done", str(total)]
    assert len(reader) == total
    assert len(set(seen_sizes)) >= 3, f"the reader should have watched the store grow: {set(seen_sizes)}"
    assert reader.integrity_check() == "ok"


def test_threads_share_a_store_safely(tmp_path):
    import threading

    store = SQLiteArchivalStore(tmp_path / "a.db", synchronous="NORMAL")
    errors = []

    def write(k):
        try:
            for i in range(100):
                store.insert(f"thread {k} wrote fact {i}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def read():
        try:
            for _ in range(200):
                for hit in store.search("thread wrote fact", top_k=50):
                    assert hit.record.id in store
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(3)] + [threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(store) == 300 and len({r.id for r in store}) == 300
    store.close()
    assert len(SQLiteArchivalStore(tmp_path / "a.db")) == 300


def test_two_writer_processes_never_clash_on_ids(tmp_path):
    path = str(tmp_path / "a.db")  # not created beforehand: both processes race to create it
    total = 300
    writers = [subprocess.Popen([sys.executable, "-c", READER_WRITER, path, str(total)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with SQLiteArchivalStore(path) as store:
        ids = [r.id for r in store]
        assert len(ids) == 2 * total and len(set(ids)) == 2 * total
        assert ids == [f"arc-{i:06d}" for i in range(1, 2 * total + 1)]
        assert store.integrity_check() == "ok"
