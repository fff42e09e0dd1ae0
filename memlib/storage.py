"""Persistence: archival and recall memory in SQLite, and whole agents saved to a directory.

`SQLiteArchivalStore` and `SQLiteRecallStore` behave exactly like the in-memory
`ArchivalStore` and `RecallStore` (they are subclasses), but every write is one
SQLite transaction that has committed before the call returns, so memory
survives a kernel restart or a killed process. Ranking is always memlib's own
BM25, whatever the SQLite build: the store keeps the in-memory index, rebuilt
from the table on open, and SQLite FTS5 (where the interpreter has it) is an
optional on-disk mirror that can also serve candidate lookup.
`save_agent` / `load_agent` write and read a whole agent (core memory, main
context, archival and recall) as a checksummed directory; a save killed at any
step is finished or undone by the next `save_agent` / `load_agent`. The
checksums catch damage, not tampering (they are no signature): load saves only
from places you trust. A save never names code to run: summarizers come from
the `SUMMARIZERS` registry.

Damaged files: a store opens with the rows it can read and lists the others in
`bad_rows` (file, row, field, problem), with a DamagedRowsWarning; a missing
table or damaged metadata is a StorageCorruptError. A save is all or nothing:
the first damaged line refuses the whole load, naming the file and the line.

Deliberately not here: embeddings, a server, schema migrations of old save
formats (an old save is refused with a clear error instead), or merging
concurrent writers' edits beyond what SQLite's locking gives.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import heapq
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from memlib.archival import _GENERATED_ID, ArchivalRecord, ArchivalStore, Hit, check_page, utcnow
from memlib.messages import Message
from memlib.recall import RecallStore
from memlib.retrieval import ANALYZER_ID, tokenize

__all__ = [
    "SQLiteArchivalStore",
    "SQLiteRecallStore",
    "StorageError",
    "ReadOnlyStorageError",
    "StorageFullError",
    "StorageCorruptError",
    "fts5_available",
    "save_agent",
    "load_agent",
    "SavedAgent",
    "AgentSaveError",
    "SAVE_FORMAT",
    "SAVE_FORMAT_VERSION",
    "SCHEMA_VERSION",
    "SUMMARIZERS",
    "BadRow",
    "DamagedRowsWarning",
]

#: Version of the table layout inside a store file; bumped on incompatible changes.
SCHEMA_VERSION = 1


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


def _fts_terms(text: str) -> str:
    """memlib's tokens, each written as the hex of its UTF-8 bytes, space separated.

    FTS5's unicode61 tokenizer splits and folds some characters differently from
    `memlib.retrieval.tokenize` (diacritics, marks, scripts). Hex tokens are plain
    [0-9a-f] runs that FTS5 keeps exactly as given, so FTS5 finds a document for a
    token exactly when memlib's index has it there: candidate sets agree.
    """
    return " ".join(t.encode("utf-8", "surrogatepass").hex() for t in tokenize(text))


def _fts_query(query: str) -> str:
    """An FTS5 MATCH expression: any of the query's memlib tokens."""
    terms = dict.fromkeys(t.encode("utf-8", "surrogatepass").hex() for t in tokenize(query))
    return " OR ".join(f'"{t}"' for t in terms)


# ---------------------------------------------------------------------------
# dense ids for the scorer


class _DenseIds:
    """Wraps a memlib scorer so it sees dense ints 0, 1, 2, ... instead of record ids.

    Measured at 100k records: BM25Index searches 1.3x (quiet machine) to 4x (busy
    machine) faster with int doc ids than with string ids like "arc-000001": small
    ints hash to neighbouring slots, so the score dicts stay cache-friendly. Ties
    still break by insertion order, so results are exactly those of the unwrapped
    scorer.
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self._num: dict = {}
        self._ext: dict[int, object] = {}
        self._next = 0

    def add(self, doc_id, text: str) -> None:
        if doc_id in self._num:
            raise ValueError(f"doc_id {doc_id!r} is already in this index; remove it first")
        n = self._next
        self.inner.add(n, text)
        self._next += 1
        self._num[doc_id] = n
        self._ext[n] = doc_id

    def remove(self, doc_id) -> None:
        if doc_id not in self._num:
            raise KeyError(f"doc_id {doc_id!r} is not in this index")
        n = self._num[doc_id]
        self.inner.remove(n)
        del self._num[doc_id], self._ext[n]

    def search(self, query: str, k: int = 10):
        ext = self._ext
        return [(ext[n], score) for n, score in self.inner.search(query, k)]

    def score(self, query: str, doc_id) -> float:
        return self.inner.score(query, self._num[doc_id])

    def matched_terms(self, query: str, doc_id) -> list[str]:
        return self.inner.matched_terms(query, self._num[doc_id])

    def __len__(self) -> int:
        return len(self._num)

    def __contains__(self, doc_id) -> bool:
        try:
            return doc_id in self._num
        except TypeError:
            return False

    def __getattr__(self, name):  # idf(), avgdl, kind, ... of the wrapped scorer
        if name == "inner":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return repr(self.inner)


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
                 synchronous: str, timeout: float):
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
            return int(value)
        except (TypeError, ValueError):
            raise StorageCorruptError(
                f"{self.path}: memlib_meta field {key!r} is {value!r}, not a number; the file is damaged"
            ) from None

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

    def close(self) -> None:
        self.conn.close()


_TABLES = {"archival": "archival_records", "recall": "recall_messages"}


def _quote_uri(path: str) -> str:
    # '?' and '#' would end the path part of a file: URI
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


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
        created_at TEXT NOT NULL,               -- ISO 8601, naive UTC
        trust TEXT NOT NULL
    )""",
    "INSERT OR IGNORE INTO memlib_meta VALUES ('next_id', '1')",
    # bumped by every delete, so other connections notice deletions without a count(*)
    "INSERT OR IGNORE INTO memlib_meta VALUES ('deletes', '0')",
]
_FTS_SCHEMA = [
    # memlib tokens as hex (see _fts_terms); rowid = archival_records.seq
    "CREATE VIRTUAL TABLE IF NOT EXISTS archival_fts USING fts5(terms, tokenize='unicode61 remove_diacritics 0')",
]
_RECORD_COLUMNS = "seq, id, text, tags, session_id, turn_id, source_url, created_at, trust"


class DamagedRowsWarning(UserWarning):
    """A store opened with some rows it could not read; see the store's `bad_rows`."""


@dataclass(frozen=True)
class BadRow:
    """A row of a store file that could not be read: the file, the row and the field."""

    path: str
    table: str
    seq: int
    field: str
    problem: str
    id: Any = None

    def __str__(self) -> str:
        ident = f", id {self.id!r}" if self.id is not None else ""
        return f"{self.path}: {self.table} row seq={self.seq}{ident}, field {self.field!r}: {self.problem}"


# Longer names first: "session_id must be ..." must not be read as a problem with "id".
_FIELD_ORDER = ("session_id", "turn_id", "source_url", "created_at", "tool_call_id", "timestamp", "trust",
                "tags", "text", "content", "role", "name", "id")


def _decode_row(row, names: tuple[str, ...], ints: tuple[str, ...], path: str, table: str, build):
    """A raw row (TEXT as bytes) -> the object `build(fields)` makes, or a BadRow saying why not."""
    seq, fields = row[0], {}
    for name, value in zip(names, row[1:]):
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                return BadRow(path, table, seq, name, f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                              fields.get("id"))
        if name in ints and value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return BadRow(path, table, seq, name, f"{_shown(value)} is not an integer", fields.get("id"))
        fields[name] = value
    ident = fields.get("id")
    try:
        return build(fields)
    except Exception as exc:
        text = str(exc)
        field = next((f for f in _FIELD_ORDER if f in names and f in text), names[0])
        return BadRow(path, table, seq, field, f"{type(exc).__name__}: {text[:200]}", ident)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _record_from_fields(f: dict) -> ArchivalRecord:
    try:
        tags = json.loads(f["tags"]) if isinstance(f["tags"], str) else None
    except ValueError:
        tags = None
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags {_shown(f['tags'])} is not a JSON list of strings")
    if not isinstance(f["created_at"], str):
        raise ValueError(f"created_at {_shown(f['created_at'])} is not an ISO date text")
    try:
        created_at = datetime.fromisoformat(f["created_at"])
    except ValueError:
        raise ValueError(f"created_at {_shown(f['created_at'])} is not an ISO date") from None
    return ArchivalRecord(id=f["id"], text=f["text"], tags=tuple(tags), session_id=f["session_id"],
                          turn_id=f["turn_id"], source_url=f["source_url"], created_at=created_at,
                          trust=f["trust"])


def _message_from_fields(f: dict) -> Message:
    if not isinstance(f["timestamp"], str):
        raise ValueError(f"timestamp {_shown(f['timestamp'])} is not an ISO date text")
    try:
        timestamp = datetime.fromisoformat(f["timestamp"])
    except ValueError:
        raise ValueError(f"timestamp {_shown(f['timestamp'])} is not an ISO date") from None
    for name in ("tool_call_id", "name", "session_id"):
        if f[name] is not None and not isinstance(f[name], str):
            raise TypeError(f"{name} {_shown(f[name])} is not text")
    return Message(role=f["role"], content=f["content"], id=f["id"], timestamp=timestamp,
                   tool_call_id=f["tool_call_id"], name=f["name"], session_id=f["session_id"])


def _warn_bad_rows(path: str, bad: list[BadRow]) -> None:
    listed = "; ".join(str(b).split(": ", 1)[1] for b in bad[:5])
    more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
    warnings.warn(
        f"{path}: {len(bad)} damaged row(s) skipped, the others are readable: {listed}{more}. "
        "They stay in the file untouched (and their ids stay taken); see the store's bad_rows.",
        DamagedRowsWarning, stacklevel=4,
    )


_RECORD_FIELDS = ("id", "text", "tags", "session_id", "turn_id", "source_url", "created_at", "trust")
_MESSAGE_FIELDS = ("id", "role", "content", "timestamp", "tool_call_id", "name", "session_id")



def _synced(method):
    """`method` run under the store's file lock, after loading other writers' commits."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._db.lock:
            self._sync()
            return method(self, *args, **kwargs)

    return run


class _FileBacked:
    """What both SQLite stores share about their file: checking it and closing it."""

    _db: "_SQLiteFile"

    def integrity_check(self) -> str:
        """SQLite's `PRAGMA integrity_check`: 'ok' for a healthy file."""
        with self._db.lock:
            rows = self._db.conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(r[0] for r in rows)

    def close(self) -> None:
        """Close the file. Everything written is already committed."""
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SQLiteArchivalStore(_FileBacked, ArchivalStore):
    """An `ArchivalStore` whose records live in a SQLite file and survive restarts.

    Every `insert`, `add_record` and `delete` is one committed transaction before it
    returns. Search results are identical to an in-memory `ArchivalStore` holding the
    same records: the same memlib scorer ranks them, rebuilt from the table on open.

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
        from memlib.retrieval import make_scorer

        if candidates not in ("index", "fts5"):
            raise ValueError(f"candidates must be 'index' or 'fts5', got {candidates!r}")
        have_fts5 = fts5_available()
        if fts5 is None:
            fts5 = have_fts5
        elif fts5 and not have_fts5:
            raise StorageError(
                "fts5=True but this Python's SQLite was built without FTS5; "
                "pass fts5=None (use it where present) or fts5=False"
            )
        if candidates == "fts5" and not fts5:
            raise ValueError("candidates='fts5' needs the FTS5 mirror; pass fts5=True (or None where FTS5 exists)")
        # Build the scorer here so the store can score single candidates (FTS5 path)
        # without reaching into ArchivalStore's internals.
        scorer_obj = _DenseIds(make_scorer(scorer) if isinstance(scorer, str) else scorer())

        def factory():
            return scorer_obj

        factory.__name__ = scorer if isinstance(scorer, str) else getattr(scorer, "__name__", repr(scorer))
        super().__init__(scorer=factory, page_size=page_size, clock=clock)
        if candidates == "fts5" and not callable(getattr(scorer_obj.inner, "score", None)):
            raise ValueError(f"candidates='fts5' needs a scorer with score(query, doc_id); {scorer_obj!r} has none")
        self._scorer = scorer_obj
        self._clock_fn = clock
        self.fts5 = bool(fts5)
        self.candidates = candidates
        schema = list(_ARCHIVAL_SCHEMA) + (_FTS_SCHEMA if self.fts5 else [])
        self._db = _SQLiteFile(path, "archival", schema, read_only=read_only,
                               synchronous=synchronous, timeout=timeout)
        self.path = self._db.path
        self._seq_of: dict[str, int] = {}
        self._id_of_seq: dict[int, str] = {}
        self.bad_rows: list[BadRow] = []
        self._taken_by_bad_rows: set[str] = set()
        self._last_seq = 0
        self._next_id = 1
        self._deletes_seen: str | None = None
        self._version = None
        try:
            with self._db.lock:
                if not self.fts5 and not read_only:
                    self._retire_fts()
                self._refresh(initial=True)
        except sqlite3.Error as exc:
            self._db.close()
            raise _translate(exc, self.path, "load archival storage") from None
        except BaseException:
            self._db.close()
            raise

    # -- keeping the in-memory view in step with the file --------------------

    def _refresh(self, initial: bool = False) -> None:
        """Load what other connections committed since we last looked."""
        db = self._db
        version = db.data_version()
        if not initial and version == self._version:
            return
        with db.snapshot() as conn:
            # Set first: the base-class calls in _load go through our overridden get(),
            # whose own sync must see nothing new.
            self._version = version
            self._load(conn)
            fts_stale = initial and self.fts5 and (
                db.meta("fts_stale") == "1"
                # written by another analyzer (an older memlib): its terms would miss
                or db.meta("fts_analyzer") != ANALYZER_ID
                or conn.execute("SELECT count(*) FROM archival_fts").fetchone()[0]
                != conn.execute("SELECT count(*) FROM archival_records").fetchone()[0])
        if fts_stale and not db.read_only:
            self._rebuild_fts()

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        """Inside a write transaction: load other writers' commits, if there were any."""
        version = self._db.data_version()
        if version != self._version:
            self._version = version
            self._load(conn)

    def _load(self, conn: sqlite3.Connection) -> None:
        """Bring memory up to the state `conn`'s open transaction sees.

        A row that cannot be read (bad UTF-8, bad JSON, wrong types) does not make
        the others unreadable: it is skipped, listed in `bad_rows` with its field,
        reported with a DamagedRowsWarning, left untouched in the file, and its id
        stays taken.
        """
        new_rows = self._db.fetch_raw(
            f"SELECT {_RECORD_COLUMNS} FROM archival_records WHERE seq > ? ORDER BY seq", (self._last_seq,))
        self._next_id = self._db.meta_int("next_id", 1)
        deletes = self._db.meta("deletes", "0")
        decoded = [_decode_row(row, _RECORD_FIELDS, ("turn_id",), self.path, "archival_records",
                               _record_from_fields) for row in new_rows]
        if self._seq_of and (deletes != self._deletes_seen or
                             any(getattr(r, "id", None) in self._seq_of for r in decoded)):
            # Another process deleted (or deleted and re-added) records we hold.
            current = {seq for (seq,) in conn.execute("SELECT seq FROM archival_records")}
            for rid, seq in list(self._seq_of.items()):
                if seq not in current:
                    self._forget(rid)
        self._deletes_seen = deletes
        bad = []
        for row, item in zip(new_rows, decoded):
            if isinstance(item, BadRow):
                bad.append(item)
                if isinstance(item.id, str):
                    self._taken_by_bad_rows.add(item.id)
                self._last_seq = max(self._last_seq, row[0])
            else:
                self._remember(item, row[0])
        if bad:
            self.bad_rows += bad
            _warn_bad_rows(self.path, bad)

    def _rebuild_fts(self) -> None:
        # The file was written by a process without FTS5 (or with fts5=False): the
        # mirror is stale. Rebuild it from the records in one transaction.
        with self._db.write("rebuild the FTS5 mirror") as conn:
            conn.execute("DELETE FROM archival_fts")
            rows = self._db.fetch_raw("SELECT seq, text FROM archival_records")
            # A damaged row's text is indexed as far as it can be read (it is never a search result).
            conn.executemany("INSERT INTO archival_fts(rowid, terms) VALUES (?, ?)",
                             ((seq, _fts_terms(text.decode("utf-8", "replace") if isinstance(text, bytes)
                                           else str(text))) for seq, text in rows))
            conn.execute("DELETE FROM memlib_meta WHERE key = 'fts_stale'")
            conn.execute("INSERT OR REPLACE INTO memlib_meta VALUES ('fts_analyzer', ?)", (ANALYZER_ID,))

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

    def _sync(self) -> None:
        if self._db.conn.in_transaction:
            return  # called back from inside one of our own transactions: already current
        try:
            self._refresh()
        except sqlite3.Error as exc:
            raise _translate(exc, self.path, "read archival storage") from None

    # -- writes ---------------------------------------------------------------

    # Every write first takes SQLite's write lock (BEGIN IMMEDIATE), then loads what
    # other connections committed, and only then checks ids and assigns new ones: two
    # processes inserting at once can never pick the same id, and memory never skips
    # another writer's rows.

    def insert(self, text: str, *, tags=(), session_id=None, turn_id=None, source_url=None,
               created_at=None, trust="unverified", id=None) -> ArchivalRecord:
        """Archive `text` with its provenance; committed to disk before it returns."""
        # validate everything but the id before touching the file
        ArchivalRecord(id="arc-check", text=text, tags=tuple(tags) if not isinstance(tags, str) else tags,
                       session_id=session_id, turn_id=turn_id, source_url=source_url,
                       created_at=utcnow() if created_at is None else created_at, trust=trust)
        with self._db.lock:
            with self._db.write("insert an archival record") as conn:
                self._catch_up(conn)
                next_id = None
                if id is None:
                    n = self._next_id
                    while f"arc-{n:06d}" in self._seq_of or f"arc-{n:06d}" in self._taken_by_bad_rows:
                        n += 1
                    id, next_id = f"arc-{n:06d}", n + 1
                record = ArchivalRecord(
                    id=id, text=text, tags=tuple(tags) if not isinstance(tags, str) else tags,
                    session_id=session_id, turn_id=turn_id, source_url=source_url,
                    created_at=self._clock_fn() if created_at is None else created_at, trust=trust,
                )
                self._check_new(record)
                seq = self._insert_row(conn, record)
                next_id = self._reserve_ids(conn, [record], next_id)
            # Only after the commit: memory never runs ahead of the file.
            if next_id is not None:
                self._next_id = next_id
            self._remember(record, seq)
            return record

    @property
    def next_id(self) -> int:
        """The number the next generated id gets (kept in the file, never reused)."""
        with self._db.lock:
            self._sync()
            return self._next_id

    def add_record(self, record: ArchivalRecord) -> ArchivalRecord:
        """Store a ready-made record (its id must be new); committed before it returns."""
        return self.add_records([record])[0]

    def add_records(self, records) -> list[ArchivalRecord]:
        """Store many ready-made records in ONE transaction: all of them or none.

        For loading a dataset: one commit (one fsync) instead of one per record.
        """
        records = list(records)
        for record in records:
            if not isinstance(record, ArchivalRecord):
                raise TypeError(f"expected an ArchivalRecord, got {type(record).__name__}")
        with self._db.lock:
            with self._db.write(f"add {len(records)} archival record(s)") as conn:
                self._catch_up(conn)
                seen: set[str] = set()
                for record in records:
                    self._check_new(record)
                    if record.id in seen:
                        raise ValueError(f"record id {record.id!r} appears twice; nothing was added")
                    seen.add(record.id)
                seqs = [self._insert_row(conn, record) for record in records]
                next_id = self._reserve_ids(conn, records, None)
            if next_id is not None:
                self._next_id = next_id
            for record, seq in zip(records, seqs):
                self._remember(record, seq)
            return records

    def _reserve_ids(self, conn: sqlite3.Connection, records, next_id: int | None) -> int | None:
        """Move the file's next_id past every generated-looking id stored (arc-NNNNNN), in
        the same transaction, so a deleted record's id is never handed out again,
        however it got in (insert, insert(id=...), add_record(s), another process)."""
        wanted = max([self._next_id] + ([next_id] if next_id is not None else []) +
                     [int(m.group(1)) + 1 for m in (_GENERATED_ID.fullmatch(r.id) for r in records) if m])
        if wanted == self._next_id:
            return next_id
        conn.execute("UPDATE memlib_meta SET value = ? WHERE key = 'next_id'", (str(wanted),))
        return wanted

    def _check_new(self, record: ArchivalRecord) -> None:
        if record.id in self._seq_of:
            raise ValueError(f"record id {record.id!r} already exists; delete it first or pick a new id")
        if record.id in self._taken_by_bad_rows:
            raise ValueError(f"record id {record.id!r} belongs to a damaged row of {self.path}; pick a new id")

    def _insert_row(self, conn: sqlite3.Connection, record: ArchivalRecord) -> int:
        seq = conn.execute(
            "INSERT INTO archival_records (id, text, tags, session_id, turn_id, source_url, "
            "created_at, trust) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, record.text, json.dumps(list(record.tags), ensure_ascii=False),
             record.session_id, record.turn_id, record.source_url,
             record.created_at.isoformat(), record.trust)).lastrowid
        if self.fts5:
            conn.execute("INSERT INTO archival_fts(rowid, terms) VALUES (?, ?)", (seq, _fts_terms(record.text)))
        return seq

    def _remember(self, record: ArchivalRecord, seq: int) -> None:
        ArchivalStore.add_record(self, record)
        self._seq_of[record.id] = seq
        self._id_of_seq[seq] = record.id
        self._last_seq = max(self._last_seq, seq)

    def delete(self, id: str) -> ArchivalRecord:
        """Remove a record from the file and the index; committed before it returns."""
        with self._db.lock:
            with self._db.write(f"delete archival record {id!r}") as conn:
                self._catch_up(conn)
                record = ArchivalStore.get(self, id)
                seq = self._seq_of[id]
                conn.execute("DELETE FROM archival_records WHERE seq = ?", (seq,))
                conn.execute("UPDATE memlib_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'deletes'")
                # our own delete needs no re-check by us (a failed commit just causes one)
                self._deletes_seen = self._db.meta("deletes")
                if self.fts5:
                    conn.execute("DELETE FROM archival_fts WHERE rowid = ?", (seq,))
            # Committed: now update memory without reading the file again (a read could
            # pick up another writer's commit and make this delete look as if it failed).
            self._forget(id)
            return record

    def _forget(self, id: str) -> None:
        """Drop a record from memory only (the row is already gone from the file)."""
        if id in self._records:
            self._index.remove(id)
            del self._records[id]
        seq = self._seq_of.pop(id, None)
        self._id_of_seq.pop(seq, None)

    # -- reads (each first picks up other writers' commits) -------------------

    def search(self, query: str, top_k: int | None = None, page: int = 0) -> list[Hit]:
        """Page `page` of the best matches, ranked by memlib's scorer (as ArchivalStore)."""
        with self._db.lock:
            self._sync()
            if self.candidates == "index":
                return super().search(query, top_k, page)
            return self._search_fts5(query, top_k, page)

    def _search_fts5(self, query, top_k, page) -> list[Hit]:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        top_k = check_page(top_k, page, self.page_size)
        match = _fts_query(query)
        if not match:
            return []
        try:
            seqs = self._db.conn.execute(
                "SELECT rowid FROM archival_fts WHERE archival_fts MATCH ?", (match,)).fetchall()
        except sqlite3.Error as exc:
            raise _translate(exc, self.path, "search archival storage") from None
        start = page * top_k
        score = self._scorer.score
        # Same order as the index: best score first, then earliest insertion.
        best = heapq.nsmallest(start + top_k, ((-score(query, self._id_of_seq[s]), s) for (s,) in seqs
                                               if s in self._id_of_seq))
        return [Hit(self.get(self._id_of_seq[s]), -neg, start + i)
                for i, (neg, s) in enumerate(best[start:])]

    # Reads: pick up other writers' commits first, under the file's lock.
    get = _synced(ArchivalStore.get)
    matching = _synced(ArchivalStore.matching)
    list_since = _synced(ArchivalStore.list_since)
    __len__ = _synced(ArchivalStore.__len__)
    __iter__ = _synced(ArchivalStore.__iter__)
    __contains__ = _synced(ArchivalStore.__contains__)

    def __repr__(self) -> str:
        mode = "read-only, " if self._db.read_only else ""
        return (f"SQLiteArchivalStore({self.path!r}, {super().__len__()} records, {mode}"
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
        session_id TEXT
    )""",
]
_MESSAGE_COLUMNS = "seq, id, role, content, timestamp, tool_call_id, name, session_id"



class SQLiteRecallStore(_FileBacked, RecallStore):
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
        super().__init__(page_size=page_size)
        self._db = _SQLiteFile(path, "recall", _RECALL_SCHEMA, read_only=read_only,
                               synchronous=synchronous, timeout=timeout)
        self.path = self._db.path
        self._ids: set[int] = set()
        self._last_id: int | None = None
        self.bad_rows: list[BadRow] = []
        self._last_seq = 0
        self._version = None
        try:
            with self._db.lock:
                self._refresh(initial=True)
        except sqlite3.Error as exc:
            self._db.close()
            raise _translate(exc, self.path, "load recall storage") from None

    def _refresh(self, initial: bool = False) -> None:
        db = self._db
        version = db.data_version()
        if not initial and version == self._version:
            return
        with db.snapshot() as conn:
            self._version = version
            self._load(conn)

    def _load(self, conn: sqlite3.Connection) -> None:
        # Recall is append-only, so new rows are all there is to pick up. Damaged
        # rows are skipped and reported as in SQLiteArchivalStore; their ids stay taken.
        rows = self._db.fetch_raw(
            f"SELECT {_MESSAGE_COLUMNS} FROM recall_messages WHERE seq > ? ORDER BY seq", (self._last_seq,))
        bad = []
        for row in rows:
            item = _decode_row(row, _MESSAGE_FIELDS, ("id",), self.path, "recall_messages", _message_from_fields)
            if isinstance(item, BadRow):
                bad.append(item)
                self._last_seq = max(self._last_seq, row[0])
                if isinstance(item.id, int):
                    self._ids.add(item.id)
                    self._last_id = max(self._last_id if self._last_id is not None else item.id, item.id)
            else:
                self._remember(RecallStore.add(self, item), row[0])
        if bad:
            self.bad_rows += bad
            _warn_bad_rows(self.path, bad)

    def _remember(self, message: Message, seq: int) -> None:
        self._ids.add(message.id)
        self._last_id = message.id if self._last_id is None else max(self._last_id, message.id)
        self._last_seq = seq

    def _sync(self) -> None:
        if self._db.conn.in_transaction:
            return
        try:
            self._refresh()
        except sqlite3.Error as exc:
            raise _translate(exc, self.path, "read recall storage") from None

    def add(self, message: Message) -> Message:
        """Store `message` (id and timestamp assigned if missing); on disk before it returns."""
        if not isinstance(message, Message):
            raise TypeError(f"expected a Message, got {type(message).__name__}")
        with self._db.lock:
            # Inside the write lock, after loading other writers' messages, so two
            # processes never hand out the same id.
            with self._db.write("add a message to recall storage") as conn:
                version = self._db.data_version()
                if version != self._version:
                    self._version = version
                    self._load(conn)
                # Same rules as RecallStore.add, applied before writing so the row on
                # disk is exactly the message kept in memory.
                if message.id < 0:
                    message = message.replace(id=self._last_id + 1 if self._last_id is not None else 0)
                if message.id in self._ids:
                    raise ValueError(f"message id {message.id} is already in recall storage")
                if message.timestamp is None:
                    message = message.replace(timestamp=utcnow())
                seq = conn.execute(
                    "INSERT INTO recall_messages (id, role, content, timestamp, tool_call_id, name, "
                    "session_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (message.id, message.role, message.content, message.timestamp.isoformat(),
                     message.tool_call_id, message.name, message.session_id)).lastrowid
            stored = RecallStore.add(self, message)
            self._remember(stored, seq)
            return stored

    # Reads: pick up other writers' commits first, under the file's lock.
    get = _synced(RecallStore.get)
    conversation_search = _synced(RecallStore.conversation_search)
    conversation_search_date = _synced(RecallStore.conversation_search_date)
    matching = _synced(RecallStore.matching)
    messages = property(_synced(RecallStore.messages.fget))
    __len__ = _synced(RecallStore.__len__)
    __iter__ = _synced(RecallStore.__iter__)
    __contains__ = _synced(RecallStore.__contains__)

    def __repr__(self) -> str:
        mode = ", read-only" if self._db.read_only else ""
        return f"SQLiteRecallStore({self.path!r}, {super().__len__()} messages, page_size={self.page_size}{mode})"


# ---------------------------------------------------------------------------
# whole agents


SAVE_FORMAT = "memlib-agent-save"
#: Bumped whenever a save written by this memlib could not be read by an older one.
SAVE_FORMAT_VERSION = 1
_MANIFEST = "manifest.json"
_FILES = {"core_memory": "core_memory.json", "context": "context.json",
          "archival": "archival.jsonl", "recall": "recall.jsonl"}


def _summarizer_registry() -> dict[str, Callable[[], Any]]:
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer

    return {f"{cls.__module__}:{cls.__qualname__}": cls
            for cls in (NoSummarizer, TruncatingSummarizer, ExtractiveSummarizer)}


#: The only summarizers `load_agent` recreates by the name a save gives: saved name -> factory.
#: A save is data, so it never chooses code to import or call; add your own entries here, or
#: pass `load_agent(..., summarizer=...)`.
SUMMARIZERS: dict[str, Callable[[], Any]] = _summarizer_registry()


class AgentSaveError(ValueError):
    """A saved agent cannot be loaded (wrong format version, missing or damaged file)."""


@dataclass
class SavedAgent:
    """What `load_agent` returns: fresh objects, nothing shared with the files.

    Parts that were not saved are None. `manifest` is the parsed manifest.json.
    """

    core_memory: Any = None
    context: Any = None
    archival: ArchivalStore | None = None
    recall: RecallStore | None = None
    manifest: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = []
        if self.core_memory is not None:
            parts.append(f"core_memory={len(self.core_memory)} blocks")
        if self.context is not None:
            parts.append(f"context={len(self.context)} messages, {self.context.used}/{self.context.window} tokens")
        if self.archival is not None:
            parts.append(f"archival={len(self.archival)} records")
        if self.recall is not None:
            parts.append(f"recall={len(self.recall)} messages")
        saved = self.manifest.get("saved_at", "?")
        return f"SavedAgent({', '.join(parts) or 'empty'}; saved {saved})"


def _jsonl(items) -> bytes:
    return "".join(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n" for item in items).encode()


def _context_dict(context) -> dict:
    summarizer = type(context.summarizer)
    return {
        "window": context.window,
        "system_prompt": context.system_prompt,
        "warn_at": context.warn_at,
        "flush_at": context.flush_at,
        "evict_to": context.evict_to,
        "profile": getattr(context, "profile", None) and context.profile.name,
        "summary_tokens": context.summary_tokens,
        "summarizer": f"{summarizer.__module__}:{summarizer.__qualname__}",
        "summary": context.summary,
        "messages": [m.to_dict() for m in context.messages],
    }


def _paging_kwargs(state) -> dict:
    """A named profile (memlib.context.PROFILES) comes back by name, anything else by its thresholds."""
    from memlib.context import PROFILES

    if state.get("profile") in PROFILES:
        return {"profile": state["profile"]}
    return {"warn_at": state["warn_at"], "flush_at": state["flush_at"], "evict_to": state["evict_to"]}


def save_agent(directory, *, core_memory=None, context=None, archival=None, recall=None,
               overwrite: bool = False) -> Path:
    """Save an agent's memory to `directory`, all or nothing; returns the directory.

    Pass any of: `core_memory` (CoreMemory), `context` (MainContext: its messages,
    summary and settings), `archival` (any ArchivalStore, SQLite-backed or not),
    `recall` (any RecallStore). With a context and no explicit core memory or
    recall, the context's own are saved. Files are written to a temporary
    directory beside the target and renamed into place, so a crash leaves either
    the old save or the new one, never a mix. `overwrite=True` replaces an
    existing save (only a directory that holds a memlib manifest).

    Example:
        >>> save_agent("agent-save", context=ctx, archival=store)   # doctest: +SKIP
        PosixPath('agent-save')
    """
    target = Path(directory)
    _recover_save(target)
    if context is not None:
        core_memory = context.core_memory if core_memory is None else core_memory
        recall = context.recall if recall is None else recall
    if all(part is None for part in (core_memory, context, archival, recall)):
        raise ValueError("nothing to save: pass core_memory, context, archival and/or recall")
    if target.exists():
        if not overwrite:
            raise FileExistsError(f"{target} already exists; pass overwrite=True to replace the save there")
        if not (target / _MANIFEST).is_file():
            raise FileExistsError(
                f"{target} exists and is not a memlib agent save (no {_MANIFEST}); "
                "refusing to replace it: choose another directory"
            )
    payload: dict[str, bytes] = {}
    counts: dict[str, int] = {}
    if core_memory is not None:
        payload["core_memory"] = core_memory.to_json(indent=2).encode()
        counts["core_memory_blocks"] = len(core_memory)
    if context is not None:
        payload["context"] = json.dumps(_context_dict(context), ensure_ascii=False, indent=2).encode()
        counts["context_messages"] = len(context.messages)
    if archival is not None:
        records = list(archival)
        payload["archival"] = _jsonl(r.to_dict() for r in records)
        counts["archival_records"] = len(records)
    if recall is not None:
        messages = list(recall)
        payload["recall"] = _jsonl(m.to_dict() for m in messages)
        counts["recall_messages"] = len(messages)
    import memlib

    manifest = {
        "format": SAVE_FORMAT,
        "format_version": SAVE_FORMAT_VERSION,
        "memlib_version": memlib.__version__,
        "saved_at": utcnow().isoformat(),
        "counts": counts,
        "settings": {
            "archival": {"scorer": archival.scorer_name, "page_size": archival.page_size,
                         "next_id": archival.next_id}
            if archival is not None else None,
            "recall": {"page_size": recall.page_size} if recall is not None else None,
        },
        "files": {_FILES[part]: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                  for part, data in payload.items()},
    }
    parent = target.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    new, old = _swap_names(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.saving-{os.getpid()}-", dir=parent))
    try:
        for part, data in payload.items():
            _write_synced(tmp / _FILES[part], data)
        # The manifest last: a directory without one was never a finished save.
        _write_synced(tmp / _MANIFEST, json.dumps(manifest, indent=2).encode())
        _fsync_dir(tmp)
        # The swap, in steps that _recover_save can always finish or undo after a
        # crash at any point: complete new save at a fixed name, old save aside at
        # a fixed name, new save into place, old save removed.
        os.rename(tmp, new)
        _fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        if target.exists():
            os.rename(target, old)
            _fsync_dir(parent)
        os.rename(new, target)
    except BaseException:
        # A failure we live through (not a kill): put the old save back, drop the new one.
        if old.is_dir() and not target.exists():
            os.rename(old, target)
        shutil.rmtree(new, ignore_errors=True)
        raise
    _fsync_dir(parent)
    shutil.rmtree(old, ignore_errors=True)
    return target


def _swap_names(target: Path) -> tuple[Path, Path]:
    """Where a save swap keeps the finished new save and the previous one (hidden, beside it)."""
    parent = target.absolute().parent
    return parent / f".{target.name}.new", parent / f".{target.name}.old"


def _recover_save(target: Path) -> None:
    """Finish or undo a save_agent that was killed part way, and remove its leftovers.

    A finished new save waiting at `.NAME.new` is put into place (the save had
    passed its last check); a previous save left at `.NAME.old` comes back if
    nothing replaced it, and is removed once the new one is in place.
    Half-written `.NAME.saving-PID-*` folders of dead processes are removed.
    """
    parent = target.absolute().parent
    if not parent.is_dir():
        return
    new, old = _swap_names(target)
    if new.is_dir() and not (new / _MANIFEST).is_file():
        shutil.rmtree(new, ignore_errors=True)  # cannot happen with renames, but never install it
    if new.is_dir():
        if target.exists():
            if old.exists():
                shutil.rmtree(old)
            os.rename(target, old)
        os.rename(new, target)
        _fsync_dir(parent)
    elif old.is_dir() and not target.exists():
        os.rename(old, target)  # killed after moving the old save aside: roll back
        _fsync_dir(parent)
    if old.exists() and target.exists():
        shutil.rmtree(old, ignore_errors=True)
    prefix = f".{target.name}.saving-"
    for leftover in [p for p in parent.iterdir() if p.name.startswith(prefix)]:  # no glob: names may hold [ ]
        pid = leftover.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # our own earlier, failed save
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    # Makes the renames themselves durable; not possible on every platform.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def load_agent(directory, *, summarizer=None, counter=None) -> SavedAgent:
    """Load a save written by `save_agent`: verified first, then rebuilt, never half-loaded.

    Raises AgentSaveError naming the file and what is wrong if the manifest is
    missing or from another format version, or a file is missing, truncated or
    altered (sha256 mismatch). `summarizer` and `counter` are handed to the
    rebuilt MainContext (the summarizer is otherwise looked up by its saved name
    in the explicit `SUMMARIZERS` registry; a save never picks code to import).

    The sha256 checksums detect damage (a truncated copy, a flipped bit), not
    tampering: they are not a signature, and whoever can edit the files can
    recompute them. Load saves only from places you trust.

    Example:
        >>> agent = load_agent("agent-save")     # doctest: +SKIP
        >>> agent.archival.search("window seat")  # doctest: +SKIP
    """
    root = Path(directory)
    try:
        _recover_save(root)
    except OSError:
        pass  # e.g. a read-only place: load what is there
    if not root.is_dir():
        raise AgentSaveError(f"{root} is not a directory; pass the directory save_agent wrote")
    manifest_path = root / _MANIFEST
    if not manifest_path.is_file():
        raise AgentSaveError(f"{manifest_path} is missing: {root} is not a (finished) memlib agent save")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise AgentSaveError(f"{manifest_path} is not valid JSON ({exc}); the save is damaged") from None
    if not isinstance(manifest, dict) or manifest.get("format") != SAVE_FORMAT:
        raise AgentSaveError(f"{manifest_path} does not describe a memlib agent save (format is not {SAVE_FORMAT!r})")
    version = manifest.get("format_version")
    if version != SAVE_FORMAT_VERSION:
        hint = ("it is older than this memlib: load it with the memlib version that wrote it "
                f"({manifest.get('memlib_version', 'unknown')}) and save it again"
                if isinstance(version, int) and version < SAVE_FORMAT_VERSION
                else "it is newer than this memlib: upgrade memlib to load it")
        raise AgentSaveError(
            f"{manifest_path}: save format version {version!r}, this memlib reads version "
            f"{SAVE_FORMAT_VERSION}; {hint}"
        )
    files = manifest.get("files")
    if not isinstance(files, dict) or not files or not set(files) <= set(_FILES.values()):
        raise AgentSaveError(f"{manifest_path}: 'files' must list some of {sorted(_FILES.values())}")
    # 1. verify every byte before building anything
    data: dict[str, bytes] = {}
    for name, info in files.items():
        path = root / name
        if not isinstance(info, dict):
            raise AgentSaveError(f"{manifest_path}: the entry for {name} must be an object with sha256 and bytes")
        if not path.is_file():
            raise AgentSaveError(f"{path} is listed in the manifest but missing; the save is incomplete")
        blob = path.read_bytes()
        if len(blob) != info.get("bytes"):
            raise AgentSaveError(
                f"{path} is {len(blob)} bytes, the manifest says {info.get('bytes')}: truncated or altered")
        if hashlib.sha256(blob).hexdigest() != info.get("sha256"):
            raise AgentSaveError(f"{path} does not match its sha256 in the manifest: the file was altered or damaged")
        data[name] = blob
    # 2. build fresh objects; nothing is returned unless all of them load
    settings = manifest.get("settings") or {}
    if not isinstance(settings, dict) or not all(isinstance(v, (dict, type(None))) for v in settings.values()):
        raise AgentSaveError(f"{manifest_path}: field 'settings' must map parts to objects; the save is damaged")
    agent = SavedAgent(manifest=manifest)
    name = _FILES["core_memory"]
    if name in data:
        from memlib.core_memory import CoreMemory

        agent.core_memory = _parse(root / name, lambda: CoreMemory.from_json(data[name].decode("utf-8")))
    name = _FILES["recall"]
    if name in data:
        page = (settings.get("recall") or {}).get("page_size", 5)
        agent.recall = RecallStore(page_size=page)
        for i, item in _lines(root / name, data[name]):
            _parse(root / name, lambda: agent.recall.add(Message.from_dict(item)), line=i)
    name = _FILES["archival"]
    if name in data:
        conf = settings.get("archival") or {}
        agent.archival = _parse(root / name, lambda: ArchivalStore(
            scorer=conf.get("scorer", "bm25"), page_size=conf.get("page_size", 5), next_id=conf.get("next_id", 1)))
        for i, item in _lines(root / name, data[name]):
            _parse(root / name, lambda: agent.archival.add_record(ArchivalRecord.from_dict(item)), line=i)
    name = _FILES["context"]
    if name in data:
        state = _parse(root / name, lambda: json.loads(data[name].decode("utf-8")))
        agent.context = _parse(root / name, lambda: _restore_context(
            state, agent.core_memory, agent.recall, summarizer, counter))
    return agent


def _lines(path: Path, blob: bytes) -> Iterator[tuple[int, dict]]:
    for i, raw in enumerate(blob.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8", "strict")
        except UnicodeDecodeError as exc:
            raise AgentSaveError(f"{path}, line {i}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise AgentSaveError(f"{path}, line {i}: not valid JSON ({exc})") from None
        if not isinstance(item, dict):
            raise AgentSaveError(f"{path}, line {i}: expected a JSON object, got {type(item).__name__}")
        yield i, item


def _parse(path: Path, build: Callable[[], Any], line: int | None = None):
    where = f"{path}, line {line}" if line else str(path)
    try:
        return build()
    except AgentSaveError:
        raise
    except Exception as exc:
        raise AgentSaveError(f"{where}: cannot be loaded ({type(exc).__name__}: {exc})") from exc


def _restore_context(state: dict, core_memory, recall, summarizer, counter):
    from memlib.context import MainContext

    if summarizer is None:
        name = state.get("summarizer")
        factory = SUMMARIZERS.get(name) if isinstance(name, str) else None
        if factory is None:
            shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:79] + "…"
            raise ValueError(
                f"the context used summarizer {shown}, which is not in memlib.storage.SUMMARIZERS "
                f"({', '.join(sorted(SUMMARIZERS))}); pass load_agent(..., summarizer=...)"
            )
        summarizer = factory()
    kwargs = {"counter": counter} if counter is not None else {}
    context = MainContext(window=state["window"], system_prompt=state["system_prompt"],
                          core_memory=core_memory, summarizer=summarizer, recall=recall,
                          summary_tokens=state["summary_tokens"], **_paging_kwargs(state), **kwargs)
    messages = [Message.from_dict(m) for m in state["messages"]]
    if recall is not None:
        for m in messages:
            if m.id not in recall:
                raise ValueError(f"context message #{m.id} is not in the saved recall storage")
    context.restore(messages, summary=state["summary"])
    return context
