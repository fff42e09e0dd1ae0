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
live in `memlib.postgres`.

Damaged files: a store opens with the rows it can read and lists the others in
`bad_rows` (file, row, field, problem), with a DamagedRowsWarning; a missing
table or damaged metadata is a StorageCorruptError. A file written by the
previous schema (version 1) is upgraded in place on the first writable open.

Deliberately not here: embeddings, a server, or merging concurrent writers'
edits beyond what SQLite's locking gives.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterator, Literal, overload

from memlib._util import is_int, shown, utcnow
from memlib.archival import ArchivalRecord, ArchivalStore, Transition
from memlib.messages import Message
from memlib.recall import RecallStore
from memlib.retrieval import ANALYZER_ID, tokenize
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

#: Version of the table layout inside a store file; bumped on incompatible changes
#: (2: record states, a revision per write, tombstones and the transition log).
SCHEMA_VERSION = 2


# ---------------------------------------------------------------------------
# errors


class StorageError(OSError):
    """A storage file could not be opened, read or written; the message says why and what to do."""


class ReadOnlyStorageError(StorageError, PermissionError):
    """The database (or its directory) cannot be written; nothing was changed."""


class StorageFullError(StorageError):
    """The disk (or the database's page limit) is full; the write was rolled back."""


class StorageCorruptError(StorageError):
    """The file is not a memlib SQLite store, or SQLite reports it damaged."""


def _read_only_place(path: str) -> bool:
    """True if the file or its directory cannot be written (read-only mount or permissions)."""
    folder = os.path.dirname(path) or "."
    try:
        if os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1):
            return True
    except (OSError, AttributeError):
        pass
    return not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK))


def _translate(exc: sqlite3.Error, path: str, action: str) -> StorageError:
    """Turn a raw sqlite3 error into one that says what happened and what to do."""
    text = str(exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low or ("unable to open" in low and _read_only_place(path)):
        return ReadOnlyStorageError(
            f"cannot {action}: {path} is read-only (file permissions, a read-only directory "
            f"or mount, or the store was opened with read_only=True). Nothing was written. "
            f"Copy the file somewhere writable or fix the permissions; SQLite also needs to "
            f"create {Path(path).name}-wal and -shm beside it. [sqlite: {text}]"
        )
    if "full" in low:
        return StorageFullError(
            f"cannot {action}: the disk holding {path} is full (or the database reached its "
            f"page limit). The write was rolled back and nothing was stored; free some space "
            f"and retry. [sqlite: {text}]"
        )
    if "not a database" in low or "malformed" in low or "corrupt" in low or "no such table" in low:
        return StorageCorruptError(
            f"cannot {action}: {path} is not a readable SQLite database (damaged or a "
            f"different kind of file). Restore it from a backup or point memlib at another "
            f"path. [sqlite: {text}]"
        )
    if "unable to open" in low:
        return StorageError(
            f"cannot {action}: SQLite could not open {path}; check that its directory exists "
            f"and is writable (SQLite also needs to create {Path(path).name}-wal and -shm "
            f"files beside it). [sqlite: {text}]"
        )
    if "closed database" in low:
        return StorageError(f"cannot {action}: this store for {path} was closed; open it again")
    if "locked" in low or "busy" in low:
        return StorageError(
            f"cannot {action}: {path} stayed locked by another connection longer than the "
            f"timeout; retry, or close the other writer. [sqlite: {text}]"
        )
    return StorageError(f"cannot {action} ({path}): [sqlite: {text}]")


# ---------------------------------------------------------------------------
# FTS5


@functools.lru_cache(maxsize=1)
def fts5_available() -> bool:
    """True if this interpreter's SQLite was built with the FTS5 extension.

    Some Python builds (older Windows installers, minimal distributions) lack it.
    """
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def _hex_terms(tokens: list[str]) -> str:
    """memlib's tokens, each written as the hex of its UTF-8 bytes, space separated: the FTS5 mirror.

    FTS5's unicode61 tokenizer splits and folds some characters differently from
    `memlib.retrieval.tokenize` (diacritics, marks, scripts). Hex tokens are plain
    [0-9a-f] runs that FTS5 keeps exactly as given, so FTS5 finds a document for a
    token exactly when memlib's index has it there: candidate sets agree.
    """
    return " ".join(t.encode("utf-8", "surrogatepass").hex() for t in tokens)


# ---------------------------------------------------------------------------
# the SQLite layer shared by both stores


class _SQLiteFile:
    """One connection to a memlib store file: pragmas, schema check, write transactions.

    Durability: WAL journal and synchronous=FULL by default. In WAL mode a commit
    is durable against a killed *process* as soon as COMMIT returns, even with
    synchronous=NORMAL, because the frames are already in the operating system's
    page cache; FULL also fsyncs the WAL on every commit, which makes the commit
    survive a power cut or kernel crash. The crash tests exercise SIGKILL.
    """

    def __init__(self, path, kind: str, schema: list[str], *, read_only: bool,
                 synchronous: str, timeout: float, upgrades: dict[int, list[str]] | None = None):
        if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
        path = os.fspath(path)
        if path == ":memory:" or not path.strip():
            raise ValueError(
                f"path {path!r} is not a file; SQLite stores need a file path "
                "(use ArchivalStore / RecallStore for memory-only storage)"
            )
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError(f"synchronous must be 'FULL', 'NORMAL' or 'EXTRA', got {synchronous!r}")
        self.path = str(Path(path).absolute())
        self.kind = kind
        self.read_only = read_only
        self.synchronous = synchronous
        self.upgrades = upgrades or {}
        self.lock = threading.RLock()
        if read_only and not Path(self.path).exists():
            raise FileNotFoundError(f"no store file at {self.path}; read_only=True cannot create one")
        if not read_only and not Path(self.path).parent.is_dir():
            raise StorageError(
                f"cannot create {self.path}: directory {Path(self.path).parent} does not exist; create it first"
            )
        mode = "?mode=ro" if read_only else ""
        wal = Path(self.path + "-wal")
        if read_only and _read_only_place(self.path) and not (wal.exists() and wal.stat().st_size):
            # A read-only mount: SQLite cannot create the -shm file WAL readers need.
            # With no WAL content left, nobody can change the file there: open it
            # as immutable (no locks, no -shm).
            mode += "&immutable=1"
        uri = "file:" + _quote_uri(self.path) + mode
        try:
            # isolation_level=None: memlib issues BEGIN / COMMIT itself, so every
            # write is exactly one explicit transaction.
            self.conn = sqlite3.connect(uri, uri=True, timeout=timeout,
                                        isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _translate(exc, self.path, f"open {kind} storage") from None
        # Two processes opening a brand-new file race to switch it to WAL and create
        # the tables; SQLite answers the loser "database is locked" at once, without
        # waiting (waiting could deadlock), so the open retries until `timeout`.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._setup(schema)
                break
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                self.conn.close()
                raise _translate(exc, self.path, f"open {kind} storage") from None
            except sqlite3.Error as exc:
                self.conn.close()
                raise _translate(exc, self.path, f"open {kind} storage") from None
            except BaseException:
                self.conn.close()
                raise

    def _setup(self, schema: list[str]) -> None:
        conn = self.conn
        if self.read_only:
            self._check_kind(required=True)
            self._check_table()
            return
        # Also the first statement to fail on a file that is not a database.
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StorageError(
                f"{self.path}: SQLite refused WAL mode (got {mode!r}); the file system may not "
                "support shared memory (network drives); put the store on a local disk"
            )
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        # BEGIN IMMEDIATE takes the write lock, so a read-only file or directory fails
        # here, at open, with a clear error instead of at the first insert; and two
        # processes creating the same new file cannot both create the tables.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not self._check_kind(required=False):
                conn.execute("CREATE TABLE memlib_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                conn.executemany("INSERT INTO memlib_meta VALUES (?, ?)",
                                 [("kind", self.kind), ("schema_version", str(SCHEMA_VERSION))])
            else:
                self._check_table()  # before CREATE TABLE IF NOT EXISTS could hide its loss
            for statement in schema:
                conn.execute(statement)
            # A no-op write that needs write access: catches read-only files as root
            # would not, and read-only mounts for everyone.
            conn.execute("UPDATE memlib_meta SET value = value WHERE key = 'kind'")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _check_table(self) -> None:
        """An existing store must still have its table: a dropped one is damage, not an empty store."""
        table = _TABLES[self.kind]
        if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                 (table,)).fetchone():
            raise StorageCorruptError(
                f"{self.path} is a memlib {self.kind} store but its table {table!r} is missing "
                "(dropped or damaged); it is not an empty store. Restore the file from a backup, "
                "or open a new path to start afresh."
            )

    def _check_kind(self, required: bool) -> bool:
        """True if the file is a memlib store of our kind, False if it is empty; else raise."""
        conn = self.conn
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            if required:
                raise StorageCorruptError(f"{self.path} is empty, not a memlib {self.kind} store")
            return False
        if "memlib_meta" not in tables:
            raise StorageCorruptError(
                f"{self.path} is a SQLite database but not a memlib store (tables: "
                f"{', '.join(sorted(tables))}); use a new path"
            )
        meta = dict(conn.execute("SELECT key, value FROM memlib_meta"))
        if meta.get("kind") != self.kind:
            raise StorageCorruptError(
                f"{self.path} holds memlib {meta.get('kind')} storage, not {self.kind}; "
                f"open it with the matching class"
            )
        try:
            version = int(meta.get("schema_version", "0"))
        except ValueError:
            raise StorageCorruptError(
                f"{self.path}: memlib_meta field 'schema_version' is {meta.get('schema_version')!r}, "
                "not a number; the file is damaged"
            ) from None
        if version in self.upgrades:
            if self.read_only:
                raise StorageError(
                    f"{self.path} was written by an older memlib (store schema version {version}); "
                    "open it once without read_only=True to upgrade it in place")
            # Inside _setup's write transaction: the upgrade is all or nothing.
            for statement in self.upgrades[version]:
                conn.execute(statement)
            conn.execute("UPDATE memlib_meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
            return True
        if version != SCHEMA_VERSION:
            raise StorageCorruptError(
                f"{self.path} uses store schema version {version}; this memlib reads version "
                f"{SCHEMA_VERSION}. Open it with the memlib that wrote it and export the records."
            )
        return True

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM memlib_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def meta_int(self, key: str, default: int) -> int:
        value = self.meta(key, str(default))
        try:
            if value is None:  # a NULL in the file
                raise TypeError
            return int(value)
        except (TypeError, ValueError):
            raise StorageCorruptError(
                f"{self.path}: memlib_meta field {key!r} is {value!r}, not a number; the file is damaged"
            ) from None

    def fetch_rows(self, sql: str, params=()) -> list[tuple]:
        """Rows as SQLite decodes them (fast, in C); if some TEXT is not valid UTF-8, the
        same rows with TEXT as bytes, so `_decode_row` can name the damaged row and field."""
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc).lower():
                raise
            return self.fetch_raw(sql, params)

    def fetch_raw(self, sql: str, params=()) -> list[tuple]:
        """Rows with TEXT as bytes, so one row of bad UTF-8 cannot make the others unreadable."""
        conn = self.conn
        conn.text_factory = bytes
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.text_factory = str

    def data_version(self) -> int:
        # Changes whenever *another* connection commits; our own commits leave it alone.
        return self.conn.execute("PRAGMA data_version").fetchone()[0]

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back on any error."""
        if self.read_only:
            raise ReadOnlyStorageError(
                f"cannot {action}: {self.path} was opened with read_only=True; open it again "
                "without read_only to write"
            )
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _translate(exc, self.path, action) from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise _translate(exc, self.path, action) from None
            raise

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        conn = self.conn
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def integrity_check(self) -> str:
        """SQLite's `PRAGMA integrity_check`: 'ok' for a healthy file."""
        with self.lock:
            rows = self.conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(r[0] for r in rows)

    def close(self) -> None:
        self.conn.close()


_TABLES = {"archival": "archival_records", "recall": "recall_messages"}


def _quote_uri(path: str) -> str:
    # '?' and '#' would end the path part of a file: URI
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


# ---------------------------------------------------------------------------
# rows <-> objects (the PostgreSQL tables use the same)


# Longer names first: "session_id must be ..." must not be read as a problem with "id".
_FIELD_ORDER = ("session_id", "turn_id", "source_url", "created_at", "tool_call_id", "timestamp", "trust",
                "superseded_by", "valid_from", "valid_to", "record_id", "arguments", "thought",
                "tags", "text", "content", "state", "role", "name", "action", "at", "id")


def _decode_row(row, names: tuple[str, ...], ints: tuple[str, ...], path: str, table: str, build):
    """A raw row (TEXT as bytes) -> the object `build(fields)` makes, or a BadRow saying why not."""
    seq = row[0]
    fields: dict[str, object] = {}
    for name, value in zip(names, row[1:]):
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                return BadRow(path, table, seq, name, f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                              fields.get("id"))
        if name in ints and value is not None and not is_int(value):
            return BadRow(path, table, seq, name, f"{shown(value)} is not an integer", fields.get("id"))
        fields[name] = value
    ident = fields.get("id")
    try:
        return build(fields)
    except Exception as exc:
        text = str(exc)
        field = next((f for f in _FIELD_ORDER if f in names and f in text), names[0])
        return BadRow(path, table, seq, field, f"{type(exc).__name__}: {text[:200]}", ident)


def _record_from_fields(f: dict) -> ArchivalRecord:
    try:
        tags = [] if f["tags"] == "[]" else json.loads(f["tags"]) if isinstance(f["tags"], str) else None
    except ValueError:
        tags = None
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags {shown(f['tags'])} is not a JSON list of strings")
    if not isinstance(f["created_at"], str):
        raise ValueError(f"created_at {shown(f['created_at'])} is not an ISO date text")
    return ArchivalRecord(id=f["id"], text=f["text"], tags=tuple(tags), session_id=f["session_id"],
                          turn_id=f["turn_id"], source_url=f["source_url"],
                          created_at=_iso(f, "created_at"), trust=f["trust"], state=f["state"],
                          valid_from=_iso(f, "valid_from", optional=True),
                          valid_to=_iso(f, "valid_to", optional=True), superseded_by=f["superseded_by"])


@overload
def _iso(f: dict, name: str, optional: Literal[False] = False) -> datetime: ...
@overload
def _iso(f: dict, name: str, optional: bool) -> datetime | None: ...
def _iso(f: dict, name: str, optional: bool = False) -> datetime | None:
    value = f[name]
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} {shown(value)} is not an ISO date text")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{name} {shown(value)} is not an ISO date") from None


def _record_row(record: ArchivalRecord) -> tuple:
    """A record as the values of _RECORD_FIELDS (the inverse of _record_from_fields)."""
    when = [None if d is None else d.isoformat() for d in (record.valid_from, record.valid_to)]
    return (record.id, record.text, json.dumps(list(record.tags), ensure_ascii=False), record.session_id,
            record.turn_id, record.source_url, record.created_at.isoformat(), record.trust, record.state,
            *when, record.superseded_by)


def _transition_from_fields(f: dict) -> Transition:
    return Transition(record_id=f["record_id"], action=f["action"], before=f["before"], after=f["after"],
                      at=_iso(f, "at"), by=f["by"], reason=f["reason"], detail=f["detail"])


def _transition_row(t: Transition) -> tuple:
    return (t.record_id, t.action, t.before, t.after, t.at.isoformat(), t.by, t.reason, t.detail)


def _message_from_fields(f: dict) -> Message:
    for name in ("tool_call_id", "name", "session_id", "arguments"):
        if f[name] is not None and not isinstance(f[name], str):
            raise TypeError(f"{name} {shown(f[name])} is not text")
    try:
        arguments = None if f["arguments"] is None else json.loads(f["arguments"])
    except ValueError:
        raise ValueError(f"arguments {shown(f['arguments'])} is not JSON") from None
    return Message(role=f["role"], content=f["content"], id=f["id"], timestamp=_iso(f, "timestamp"),
                   tool_call_id=f["tool_call_id"], name=f["name"], session_id=f["session_id"],
                   arguments=arguments, thought=f["thought"] if f["thought"] is not None else "")


def _message_row(m: Message) -> tuple:
    """A message as the values of _MESSAGE_FIELDS."""
    arguments = None if m.arguments is None else json.dumps(m.arguments, ensure_ascii=False)
    assert m.timestamp is not None  # RecallStore.add stamps a message before it is written
    return (m.id, m.role, m.content, m.timestamp.isoformat(), m.tool_call_id, m.name, m.session_id,
            arguments, m.thought)


# ---------------------------------------------------------------------------
# archival


_RECORD_FIELDS = ("id", "text", "tags", "session_id", "turn_id", "source_url", "created_at", "trust",
                  "state", "valid_from", "valid_to", "superseded_by")
_TRANSITION_FIELDS = ("record_id", "action", "before", "after", "at", "by", "reason", "detail")
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
    # memlib tokens as hex (see _hex_terms); rowid = archival_records.seq
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
        self._db = _SQLiteFile(path, "archival", schema, read_only=read_only, synchronous=synchronous,
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
            raise _translate(exc, self.path, "open archival storage") from None
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
                raise _translate(exc, self.path, "read archival storage") from None

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
        cols = "seq, " + ", ".join(_RECORD_FIELDS) + (", terms" if with_terms else "")
        rows = self._db.fetch_rows(
            f"SELECT {cols} FROM archival_records WHERE rev > ? ORDER BY {'seq' if first else 'rev, seq'}",
            (since,))
        removed = [] if first else [r[0] for r in conn.execute(
            "SELECT id FROM archival_removed WHERE rev > ? ORDER BY rowid", (since,))]
        log_rows = self._db.fetch_rows(
            f"SELECT seq, {', '.join(_TRANSITION_FIELDS)} FROM archival_transitions WHERE rev > ? ORDER BY seq",
            (since,))
        changes = Changes(removed=removed, next_id=self._db.meta_int("next_id", 1), reset=first)
        for row in rows:
            item = _decode_row(row[:len(_RECORD_FIELDS) + 1], _RECORD_FIELDS, ("turn_id",), self.path,
                               "archival_records", _record_from_fields)
            (changes.bad if isinstance(item, BadRow) else changes.rows).append(item)
            if with_terms and not isinstance(item, BadRow) and isinstance(row[-1], str):
                changes.tokens[item.id] = json.loads(row[-1])
        for row in log_rows:
            item = _decode_row(row, _TRANSITION_FIELDS, (), self.path, "archival_transitions",
                               _transition_from_fields)
            (changes.bad if isinstance(item, BadRow) else changes.transitions).append(item)
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
                raise _translate(exc, self.path, "search archival storage") from None

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
                                 ((seq, _hex_terms(t)) for seq, t in tokens))
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
            f"INSERT INTO archival_records ({', '.join(_RECORD_FIELDS)}, rev, terms) "
            f"VALUES ({', '.join('?' * (len(_RECORD_FIELDS) + 2))})",
            (*_record_row(record), self.rev, json.dumps(tokens, ensure_ascii=False))).lastrowid
        if self.fts5:
            self.conn.execute("INSERT INTO archival_fts(rowid, terms) VALUES (?, ?)", (seq, _hex_terms(tokens)))

    def replace(self, record: ArchivalRecord) -> None:
        self.wrote = True
        values = _record_row(record)
        tokens = tokenize(record.text)
        assignments = ", ".join(f"{name} = ?" for name in _RECORD_FIELDS[1:])
        seq = self.conn.execute(
            f"UPDATE archival_records SET {assignments}, rev = ?, terms = ? WHERE id = ? RETURNING seq",
            (*values[1:], self.rev, json.dumps(tokens, ensure_ascii=False), record.id)).fetchone()[0]
        if self.fts5:
            self.conn.execute("UPDATE archival_fts SET terms = ? WHERE rowid = ?", (_hex_terms(tokens), seq))

    def delete(self, rid: str) -> None:
        self.wrote = True
        (seq,) = self.conn.execute("DELETE FROM archival_records WHERE id = ? RETURNING seq", (rid,)).fetchone()
        self.conn.execute("INSERT INTO archival_removed VALUES (?, ?)", (rid, self.rev))
        if self.fts5:
            self.conn.execute("DELETE FROM archival_fts WHERE rowid = ?", (seq,))

    def log(self, t: Transition) -> None:
        self.wrote = True
        self.conn.execute(f"INSERT INTO archival_transitions (rev, {', '.join(_TRANSITION_FIELDS)}) "
                          f"VALUES (?, {', '.join('?' * len(_TRANSITION_FIELDS))})", (self.rev, *_transition_row(t)))

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


_MESSAGE_FIELDS = ("id", "role", "content", "timestamp", "tool_call_id", "name", "session_id",
                   "arguments", "thought")
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


def recall_changes(rows: list[tuple], first: bool, where: str) -> Changes | None:
    """Recall rows (seq, then _MESSAGE_FIELDS) after the last one seen, as a table reports
    them; None when there is nothing new. Shared by every recall table."""
    if not rows and not first:
        return None
    changes = Changes(reset=first)
    for row in rows:
        item = _decode_row(row, _MESSAGE_FIELDS, ("id",), where, "recall_messages", _message_from_fields)
        (changes.bad if isinstance(item, BadRow) else changes.rows).append(item)
    return changes


class SQLiteRecallTable:
    """Recall rows in a SQLite file (the `memlib.tables` interface). Recall is
    append-only, so the rows after the last one seen are all there is to pull."""

    def __init__(self, path, *, read_only: bool = False, synchronous: str = "FULL", timeout: float = 10.0):
        self._db = _SQLiteFile(path, "recall", _RECALL_SCHEMA, read_only=read_only, synchronous=synchronous,
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
                raise _translate(exc, self.path, "read recall storage") from None

    def _changes(self) -> Changes | None:
        first = self._last_seq is None
        rows = self._db.fetch_rows(f"SELECT seq, {', '.join(_MESSAGE_FIELDS)} FROM recall_messages "
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
            f"INSERT INTO recall_messages ({', '.join(_MESSAGE_FIELDS)}) "
            f"VALUES ({', '.join('?' * len(_MESSAGE_FIELDS))})", _message_row(message)).lastrowid


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


# The PostgreSQL stores live in memlib.postgres (psycopg is an optional extra). They can be
# imported from here too, loaded on first use, so `import memlib.storage` never needs psycopg.
_POSTGRES_NAMES = ("PostgresArchivalStore", "PostgresRecallStore", "PostgresArchivalTable", "PostgresRecallTable",
                   "ServerUnavailableError", "AuthenticationError")


def __getattr__(name: str):
    if name in _POSTGRES_NAMES:
        from memlib import postgres

        return getattr(postgres, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
