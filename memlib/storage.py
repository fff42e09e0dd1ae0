"""Persistence: archival and recall memory in SQLite files that survive restarts.

`SQLiteArchivalStore` and `SQLiteRecallStore` ARE the in-memory `ArchivalStore`
and `RecallStore`, given a SQLite table (`memlib.tables` describes the seam):
the stores keep every rule (ids, duplicates, states, ranking), the tables here
keep rows. Every write is one SQLite transaction that has committed before the
call returns, so memory survives a kernel restart or a killed process. Ranking
is always memlib's own BM25, whatever the SQLite build: the store's index is
rebuilt (in bulk) from the table on open, and SQLite FTS5 (where the
interpreter has it) is an optional on-disk mirror that can also serve
candidate lookup. Whole agents are saved by `memlib.saves`; PostgreSQL tables
live in `memlib.postgres`. Below the tables, `memlib.sqlite_file` opens the file,
upgrades its layout and runs the transactions, and `memlib.rows` holds what
every backend shares: the row codecs, the decoding of what a table read, and
the `StorageError` family (re-exported here, as are the PostgreSQL stores).

Damaged files: a store opens with the rows it can read and lists the others in
`bad_rows` (file, row, field, problem), with a DamagedRowsWarning; a missing
table or damaged metadata is a StorageCorruptError. A file written by the
previous schema (version 1) is upgraded in place on the first writable open.

Deliberately not here: embeddings, a server, or merging concurrent writers'
edits beyond what SQLite's locking gives.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from datetime import datetime
from typing import Callable, Iterator

from memlib._util import utcnow
from memlib.archival import ArchivalRecord, ArchivalStore, Transition
from memlib.messages import Message
# The PostgreSQL stores can be imported from here too; memlib.postgres loads psycopg (an
# optional extra) only when a store connects, so importing it here never needs psycopg.
from memlib.postgres import (AuthenticationError, PostgresArchivalStore, PostgresArchivalTable,  # noqa: F401
                             PostgresRecallStore, PostgresRecallTable, ServerUnavailableError)
from memlib.recall import RecallStore
from memlib.retrieval import ANALYZER_ID, tokenize
from memlib.rows import (MESSAGE_FIELDS, RECORD_FIELDS, TRANSITION_FIELDS, ReadOnlyStorageError, StorageCorruptError,
                         StorageError, StorageFullError, archival_changes, message_row, recall_changes, record_row,
                         transition_row)
from memlib.sqlite_file import SCHEMA_VERSION, SQLiteFile, fts5_available, hex_terms, translate_error
from memlib.tables import BadRow, Changes, DamagedRowsWarning

__all__ = [
    "SQLiteArchivalStore",
    "SQLiteRecallStore",
    "StorageError",
    "ReadOnlyStorageError",
    "StorageFullError",
    "StorageCorruptError",
    "SQLiteArchivalTable",
    "SQLiteRecallTable",
    "fts5_available",
    "SCHEMA_VERSION",
    "BadRow",
    "DamagedRowsWarning",
]



# ---------------------------------------------------------------------------
# archival


_ARCHIVAL_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS archival_records (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- insertion order, never reused
        id TEXT NOT NULL UNIQUE,
        text TEXT NOT NULL,
        tags TEXT NOT NULL,                     -- JSON list of str
        session_id TEXT,
        turn_id INTEGER,
        source_url TEXT,
        created_at TEXT NOT NULL,               -- ISO 8601, naive UTC (as every date here)
        trust TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'active',
        valid_from TEXT,
        valid_to TEXT,
        superseded_by TEXT,
        rev INTEGER NOT NULL DEFAULT 0,         -- the write (memlib_meta 'revision') that last touched it
        terms TEXT                              -- JSON list: memlib's tokens of text (memlib_meta 'analyzer')
    )""",
    "CREATE INDEX IF NOT EXISTS archival_records_rev ON archival_records(rev)",
    # ids deleted, by revision, so other connections drop them without reading every id
    "CREATE TABLE IF NOT EXISTS archival_removed (id TEXT NOT NULL, rev INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS archival_removed_rev ON archival_removed(rev)",
    """CREATE TABLE IF NOT EXISTS archival_transitions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        rev INTEGER NOT NULL,
        record_id TEXT NOT NULL, action TEXT NOT NULL, before TEXT NOT NULL, after TEXT NOT NULL,
        at TEXT NOT NULL, by TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT
    )""",
    "INSERT OR IGNORE INTO memlib_meta VALUES ('next_id', '1')",
    "INSERT OR IGNORE INTO memlib_meta VALUES ('revision', '0')",
]
# Schema 1 had no states, no revisions and no log; its rows become revision 0, active.
_ARCHIVAL_UPGRADES = {1: [
    "ALTER TABLE archival_records ADD COLUMN state TEXT NOT NULL DEFAULT 'active'",
    "ALTER TABLE archival_records ADD COLUMN valid_from TEXT",
    "ALTER TABLE archival_records ADD COLUMN valid_to TEXT",
    "ALTER TABLE archival_records ADD COLUMN superseded_by TEXT",
    "ALTER TABLE archival_records ADD COLUMN rev INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE archival_records ADD COLUMN terms TEXT",
    "DELETE FROM memlib_meta WHERE key = 'deletes'",
]}
_FTS_SCHEMA = [
    # memlib tokens as hex (see hex_terms); rowid = archival_records.seq
    "CREATE VIRTUAL TABLE IF NOT EXISTS archival_fts USING fts5(terms, tokenize='unicode61 remove_diacritics 0')",
]


class SQLiteArchivalTable:
    """Archival rows in a SQLite file (the `memlib.tables` interface).

    Every write transaction bumps the file's revision and stamps the rows it
    touches with it; deletions leave a tombstone. So `pull` asks for what has a
    revision above the last one seen: new rows, changed rows, deleted ids and
    log entries, whoever wrote them. `PRAGMA data_version` makes that free when
    no other connection committed.
    """

    def __init__(self, path, *, fts5: bool | None = None, read_only: bool = False,
                 synchronous: str = "FULL", timeout: float = 10.0):
        have_fts5 = fts5_available()
        if fts5 is None:
            fts5 = have_fts5
        elif fts5 and not have_fts5:
            raise StorageError(
                "fts5=True but this Python's SQLite was built without FTS5; "
                "pass fts5=None (use it where present) or fts5=False"
            )
        self.fts5 = bool(fts5)
        schema = list(_ARCHIVAL_SCHEMA) + (_FTS_SCHEMA if self.fts5 else [])
        self._db = SQLiteFile(path, "archival", schema, read_only=read_only, synchronous=synchronous,
                               timeout=timeout, upgrades=_ARCHIVAL_UPGRADES)
        self.path = self.name = self._db.path
        self.read_only = read_only
        self._rev: int | None = None  # the last revision pulled; None: nothing yet
        self._version: int | None = None
        try:
            with self._db.lock:
                if not self.fts5 and not read_only:
                    self._retire_fts()
                if not read_only and self._tokens_stale():
                    self._reindex()
        except sqlite3.Error as exc:
            self._db.close()
            raise translate_error(exc, self.path, "open archival storage") from None
        except BaseException:
            self._db.close()
            raise

    # -- reading ------------------------------------------------------------------

    def pull(self) -> Changes | None:
        db = self._db
        with db.lock:
            try:
                version = db.data_version()
                if self._rev is not None and version == self._version:
                    return None
                with db.snapshot() as conn:
                    self._version = version
                    return self._changes(conn)
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path, "read archival storage") from None

    def _changes(self, conn: sqlite3.Connection) -> Changes | None:
        """What the open transaction sees beyond revision self._rev (everything, the first time)."""
        rev = self._db.meta_int("revision", 0)
        if self._rev is not None and rev == self._rev:
            return None
        first = self._rev is None
        since = -1 if first else self._rev
        # The first pull also reads the stored tokens (when today's analyzer wrote them),
        # so reopening a large store builds its index without analysing any text.
        with_terms = first and self._db.meta("analyzer") == ANALYZER_ID
        cols = "seq, " + ", ".join(RECORD_FIELDS) + (", terms" if with_terms else "")
        rows = self._db.fetch_rows(
            f"SELECT {cols} FROM archival_records WHERE rev > ? ORDER BY {'seq' if first else 'rev, seq'}",
            (since,))
        removed = [] if first else [r[0] for r in conn.execute(
            "SELECT id FROM archival_removed WHERE rev > ? ORDER BY rowid", (since,))]
        log_rows = self._db.fetch_rows(
            f"SELECT seq, {', '.join(TRANSITION_FIELDS)} FROM archival_transitions WHERE rev > ? ORDER BY seq",
            (since,))
        changes = archival_changes(rows, log_rows, removed=removed, next_id=self._db.meta_int("next_id", 1),
                                   first=first, where=self.path, with_terms=with_terms)
        self._rev = rev
        return changes

    def candidates(self, tokens: list[str]) -> set | None:
        if not self.fts5:
            return None
        terms = dict.fromkeys(t.encode("utf-8", "surrogatepass").hex() for t in tokens)
        if not terms:
            return set()
        match = " OR ".join(f'"{t}"' for t in terms)
        with self._db.lock:
            try:
                return {rid for (rid,) in self._db.conn.execute(
                    "SELECT r.id FROM archival_fts JOIN archival_records AS r ON r.seq = archival_fts.rowid "
                    "WHERE archival_fts MATCH ?", (match,))}
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path, "search archival storage") from None

    # -- writing ------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[tuple["_ArchivalWriter", Changes | None]]:
        with self._db.lock:
            with self._db.write(action) as conn:
                # Under the write lock: what others committed since our last look comes first.
                changes = self._changes(conn)
                assert self._rev is not None  # _changes() has pulled a revision
                writer = _ArchivalWriter(conn, self._rev + 1, self.fts5)
                yield writer, changes
                if writer.wrote:
                    conn.execute("UPDATE memlib_meta SET value = ? WHERE key = 'revision'", (str(writer.rev),))
            if writer.wrote:
                self._rev = writer.rev  # committed

    def _tokens_stale(self) -> bool:
        """Are the stored tokens (terms column, FTS5 mirror) not those of today's analyzer?"""
        db, conn = self._db, self._db.conn
        if db.meta("analyzer") != ANALYZER_ID:  # an older memlib, or another analyzer: its terms would miss
            return True
        return self.fts5 and (db.meta("fts_stale") == "1"  # written by a process without the mirror
                              or conn.execute("SELECT count(*) FROM archival_fts").fetchone()[0]
                              != conn.execute("SELECT count(*) FROM archival_records").fetchone()[0])

    def _reindex(self) -> None:
        # Recompute every row's tokens (and the FTS5 mirror) in one transaction.
        with self._db.write("rebuild the stored tokens") as conn:
            rows = self._db.fetch_raw("SELECT seq, text FROM archival_records")
            # A damaged row's text is analysed as far as it can be read (it is never a search result).
            tokens = [(seq, tokenize(text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)))
                      for seq, text in rows]
            conn.executemany("UPDATE archival_records SET terms = ? WHERE seq = ?",
                             ((json.dumps(t, ensure_ascii=False), seq) for seq, t in tokens))
            if self.fts5:
                conn.execute("DELETE FROM archival_fts")
                conn.executemany("INSERT INTO archival_fts(rowid, terms) VALUES (?, ?)",
                                 ((seq, hex_terms(t)) for seq, t in tokens))
            conn.execute("DELETE FROM memlib_meta WHERE key IN ('fts_stale', 'fts_analyzer')")
            conn.execute("INSERT OR REPLACE INTO memlib_meta VALUES ('analyzer', ?)", (ANALYZER_ID,))

    def _retire_fts(self) -> None:
        # Opened with fts5=False over a file that has the mirror: our writes would
        # leave it stale. Drop it (or, without the FTS5 module, flag it) so the next
        # FTS5 user rebuilds it.
        conn = self._db.conn
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'archival_fts'").fetchone():
            return
        try:
            with self._db.write("drop the FTS5 mirror") as c:
                c.execute("DROP TABLE archival_fts")
        except StorageError:
            with self._db.write("flag the FTS5 mirror as stale") as c:
                c.execute("INSERT OR REPLACE INTO memlib_meta VALUES ('fts_stale', '1')")

    def integrity_check(self) -> str:
        return self._db.integrity_check()

    def close(self) -> None:
        self._db.close()


class _ArchivalWriter:
    """The operations of one archival write transaction, each stamped with its revision."""

    def __init__(self, conn: sqlite3.Connection, rev: int, fts5: bool) -> None:
        self.conn, self.rev, self.fts5, self.wrote = conn, rev, fts5, False

    def insert(self, record: ArchivalRecord) -> None:
        self.wrote = True
        tokens = tokenize(record.text)
        seq = self.conn.execute(
            f"INSERT INTO archival_records ({', '.join(RECORD_FIELDS)}, rev, terms) "
            f"VALUES ({', '.join('?' * (len(RECORD_FIELDS) + 2))})",
            (*record_row(record), self.rev, json.dumps(tokens, ensure_ascii=False))).lastrowid
        if self.fts5:
            self.conn.execute("INSERT INTO archival_fts(rowid, terms) VALUES (?, ?)", (seq, hex_terms(tokens)))

    def replace(self, record: ArchivalRecord) -> None:
        self.wrote = True
        values = record_row(record)
        tokens = tokenize(record.text)
        assignments = ", ".join(f"{name} = ?" for name in RECORD_FIELDS[1:])
        seq = self.conn.execute(
            f"UPDATE archival_records SET {assignments}, rev = ?, terms = ? WHERE id = ? RETURNING seq",
            (*values[1:], self.rev, json.dumps(tokens, ensure_ascii=False), record.id)).fetchone()[0]
        if self.fts5:
            self.conn.execute("UPDATE archival_fts SET terms = ? WHERE rowid = ?", (hex_terms(tokens), seq))

    def delete(self, rid: str) -> None:
        self.wrote = True
        (seq,) = self.conn.execute("DELETE FROM archival_records WHERE id = ? RETURNING seq", (rid,)).fetchone()
        self.conn.execute("INSERT INTO archival_removed VALUES (?, ?)", (rid, self.rev))
        if self.fts5:
            self.conn.execute("DELETE FROM archival_fts WHERE rowid = ?", (seq,))

    def log(self, t: Transition) -> None:
        self.wrote = True
        self.conn.execute(f"INSERT INTO archival_transitions (rev, {', '.join(TRANSITION_FIELDS)}) "
                          f"VALUES (?, {', '.join('?' * len(TRANSITION_FIELDS))})", (self.rev, *transition_row(t)))

    def set_next_id(self, n: int) -> None:
        self.wrote = True
        self.conn.execute("UPDATE memlib_meta SET value = ? WHERE key = 'next_id'", (str(n),))


class SQLiteArchivalStore(ArchivalStore):
    """An `ArchivalStore` whose records live in a SQLite file and survive restarts.

    Every write is one committed transaction before it returns. Search results
    are identical to an in-memory `ArchivalStore` holding the same records: the
    same memlib scorer ranks them, rebuilt from the table on open.

    fts5: keep an FTS5 mirror of memlib's tokens in the file (None: if this SQLite
        has FTS5). candidates: "index" looks candidates up in the in-memory index
        (the default: measured faster, see benchmarks/README.md); "fts5" asks FTS5
        for the documents containing a query term and scores only those with memlib.
    synchronous: "FULL" (fsync every commit) or "NORMAL" (durable against a killed
        process, not against a power cut).
    read_only: open for searching only; writes raise ReadOnlyStorageError.

    Another process may write the same file: each call first picks up what other
    connections committed (cheap when nothing changed: one PRAGMA).

    Example:
        >>> store = SQLiteArchivalStore("memory.db")              # doctest: +SKIP
        >>> store.insert("Ines prefers window seats", session_id="s1")  # doctest: +SKIP
        ArchivalRecord(arc-000001 [s1/-, unverified]: 'Ines prefers window seats')
    """

    def __init__(self, path, scorer: str | Callable = "bm25", page_size: int = 5, *,
                 fts5: bool | None = None, candidates: str = "index", read_only: bool = False,
                 synchronous: str = "FULL", timeout: float = 10.0,
                 clock: Callable[[], datetime] = utcnow):
        if candidates not in ("index", "fts5"):
            raise ValueError(f"candidates must be 'index' or 'fts5', got {candidates!r}")
        if candidates == "fts5" and (fts5 is False or (fts5 is None and not fts5_available())):
            raise ValueError("candidates='fts5' needs the FTS5 mirror; pass fts5=True (or None where FTS5 exists)")
        table = SQLiteArchivalTable(path, fts5=fts5, read_only=read_only, synchronous=synchronous, timeout=timeout)
        try:
            self.candidates = candidates
            super().__init__(scorer=scorer, page_size=page_size, clock=clock, table=table)
        except BaseException:
            table.close()
            raise
        self.path, self.fts5 = table.path, table.fts5

    def integrity_check(self) -> str:
        """SQLite's `PRAGMA integrity_check`: 'ok' for a healthy file."""
        return self._table.integrity_check()

    def __repr__(self) -> str:
        mode = "read-only, " if self._table.read_only else ""
        return (f"SQLiteArchivalStore({self.path!r}, {len(self._records)} records, {mode}"
                f"scorer={self.scorer_name!r}, page_size={self.page_size}, "
                f"fts5={self.fts5}, candidates={self.candidates!r})")


# ---------------------------------------------------------------------------
# recall


_RECALL_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS recall_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id INTEGER NOT NULL UNIQUE,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        timestamp TEXT NOT NULL,                -- ISO 8601, naive UTC
        tool_call_id TEXT,
        name TEXT,
        session_id TEXT,
        arguments TEXT,                         -- JSON: a tool call's exact arguments
        thought TEXT NOT NULL DEFAULT ''        -- a tool call's inner monologue
    )""",
]
_RECALL_UPGRADES = {1: [
    "ALTER TABLE recall_messages ADD COLUMN arguments TEXT",
    "ALTER TABLE recall_messages ADD COLUMN thought TEXT NOT NULL DEFAULT ''",
]}


class SQLiteRecallTable:
    """Recall rows in a SQLite file (the `memlib.tables` interface). Recall is
    append-only, so the rows after the last one seen are all there is to pull."""

    def __init__(self, path, *, read_only: bool = False, synchronous: str = "FULL", timeout: float = 10.0):
        self._db = SQLiteFile(path, "recall", _RECALL_SCHEMA, read_only=read_only, synchronous=synchronous,
                               timeout=timeout, upgrades=_RECALL_UPGRADES)
        self.path = self.name = self._db.path
        self.read_only = read_only
        self._last_seq: int | None = None
        self._version: int | None = None

    def pull(self) -> Changes | None:
        db = self._db
        with db.lock:
            try:
                version = db.data_version()
                if self._last_seq is not None and version == self._version:
                    return None
                with db.snapshot():
                    self._version = version
                    return self._changes()
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path, "read recall storage") from None

    def _changes(self) -> Changes | None:
        first = self._last_seq is None
        rows = self._db.fetch_rows(f"SELECT seq, {', '.join(MESSAGE_FIELDS)} FROM recall_messages "
                                  "WHERE seq > ? ORDER BY seq", (self._last_seq or 0,))
        changes = recall_changes(rows, first, self.path)
        self._last_seq = rows[-1][0] if rows else (self._last_seq or 0)
        return changes

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[tuple["_RecallWriter", Changes | None]]:
        with self._db.lock:
            with self._db.write(action) as conn:
                changes = self._changes()
                writer = _RecallWriter(conn)
                yield writer, changes
            if writer.last_seq is not None:
                self._last_seq = writer.last_seq  # committed

    def candidates(self, tokens: list[str]) -> set | None:
        return None

    def integrity_check(self) -> str:
        return self._db.integrity_check()

    def close(self) -> None:
        self._db.close()


class _RecallWriter:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.last_seq: int | None = None

    def insert(self, message: Message) -> None:
        self.last_seq = self.conn.execute(
            f"INSERT INTO recall_messages ({', '.join(MESSAGE_FIELDS)}) "
            f"VALUES ({', '.join('?' * len(MESSAGE_FIELDS))})", message_row(message)).lastrowid


class SQLiteRecallStore(RecallStore):
    """A `RecallStore` whose messages live in a SQLite file and survive restarts.

    Pass it to `MainContext(recall=...)`: every appended message is then on disk
    when `append` returns. Ids and timestamps are assigned as RecallStore does.

    Example:
        >>> recall = SQLiteRecallStore("recall.db")                  # doctest: +SKIP
        >>> recall.add(Message.user("my sister Ines moved to Lisbon"))  # doctest: +SKIP
        Message(#0 user: 'my sister Ines moved to Lisbon')
    """

    def __init__(self, path, page_size: int = 5, *, read_only: bool = False,
                 synchronous: str = "FULL", timeout: float = 10.0):
        table = SQLiteRecallTable(path, read_only=read_only, synchronous=synchronous, timeout=timeout)
        try:
            super().__init__(page_size=page_size, table=table)
        except BaseException:
            table.close()
            raise
        self.path = table.path

    def integrity_check(self) -> str:
        """SQLite's `PRAGMA integrity_check`: 'ok' for a healthy file."""
        return self._table.integrity_check()

    def __repr__(self) -> str:
        mode = ", read-only" if self._table.read_only else ""
        return f"SQLiteRecallStore({self.path!r}, {len(self._messages)} messages, page_size={self.page_size}{mode})"
