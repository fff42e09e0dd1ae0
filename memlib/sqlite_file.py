"""One SQLite file of a memlib store: opening, the schema and its upgrades, transactions, errors that say what to do.

`SQLiteFile` is the layer both SQLite tables of `memlib.storage` stand on: it
opens (or creates) the file in WAL mode, checks that it holds the kind of store
asked for, upgrades an older layout in place, and runs every write as one
transaction; `translate_error` turns a raw sqlite3 error into a
`memlib.rows.StorageError` that says what happened and what to do.
`fts5_available` and `hex_terms` serve the optional FTS5 mirror.

Not here: what the rows mean (`memlib.rows`) or which tables a store has
(`memlib.storage`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator

from memlib.rows import ReadOnlyStorageError, StorageCorruptError, StorageError, StorageFullError

__all__ = ["SQLiteFile", "SCHEMA_VERSION", "translate_error", "fts5_available", "hex_terms"]

#: Version of the table layout inside a store file; bumped on incompatible changes
#: (2: record states, a revision per write, tombstones and the transition log).
SCHEMA_VERSION = 2


# ---------------------------------------------------------------------------
# SQLite's errors, as memlib's (memlib.rows.StorageError and its kinds)


def _read_only_place(path: str) -> bool:
    """True if the file or its directory cannot be written (read-only mount or permissions)."""
    folder = os.path.dirname(path) or "."
    try:
        if os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1):
            return True
    except (OSError, AttributeError):
        pass
    return not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK))


def translate_error(exc: sqlite3.Error, path: str, action: str) -> StorageError:
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


def hex_terms(tokens: list[str]) -> str:
    """memlib's tokens, each written as the hex of its UTF-8 bytes, space separated: the FTS5 mirror.

    FTS5's unicode61 tokenizer splits and folds some characters differently from
    `memlib.retrieval.tokenize` (diacritics, marks, scripts). Hex tokens are plain
    [0-9a-f] runs that FTS5 keeps exactly as given, so FTS5 finds a document for a
    token exactly when memlib's index has it there: candidate sets agree.
    """
    return " ".join(t.encode("utf-8", "surrogatepass").hex() for t in tokens)


# ---------------------------------------------------------------------------
# the SQLite layer shared by both stores


class SQLiteFile:
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
            raise translate_error(exc, self.path, f"open {kind} storage") from None
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
                raise translate_error(exc, self.path, f"open {kind} storage") from None
            except sqlite3.Error as exc:
                self.conn.close()
                raise translate_error(exc, self.path, f"open {kind} storage") from None
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
        same rows with TEXT as bytes, so `decode_row` can name the damaged row and field."""
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
            raise translate_error(exc, self.path, action) from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise translate_error(exc, self.path, action) from None
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
