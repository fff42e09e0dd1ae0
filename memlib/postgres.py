"""PostgreSQL tables for archival and recall memory: the path when one SQLite file is no longer enough.

`PostgresArchivalStore(dsn)` and `PostgresRecallStore(dsn)` ARE memlib's
`ArchivalStore` and `RecallStore` on a PostgreSQL table (`memlib.tables`
describes the seam): the stores keep every rule (ids, duplicates, states,
ranking by memlib's BM25), the tables here keep rows on a server that many
processes share. Search results are identical to the in-memory store's.

How the tables keep several processes in step:
- every write is ONE transaction that first locks the kind's row in
  `memlib_meta` (``SELECT ... FOR UPDATE``): writers queue there, and each one,
  holding the lock, reads what the others committed before the store hands out
  an id, so two processes never pick the same one;
- each archival write bumps a revision and stamps the rows, tombstones and log
  entries it writes with it; before every read the table asks for the revision
  (one query) and, when it moved, reads what is newer in one snapshot. Recall
  is append-only: the rows after the last one seen are all there is;
- a tsvector of memlib's own tokens (hex-written, as the SQLite FTS5 mirror
  does, so PostgreSQL's parser never splits or folds them differently) with a
  GIN index can serve candidate lookup (``candidates="fulltext"``); memlib
  still scores the candidates.

A server restart closes every connection: the next call reconnects by itself
(a read is simply retried, a write that had not begun is begun again). While
the server is down calls raise `ServerUnavailableError`; nothing half-written
stays, and a write that raised was not acknowledged.

The tables live in their own PostgreSQL schema (``schema="memlib"`` by
default; one schema per store pair), created on first use, safely when two
processes do it at once. psycopg 3 is an optional extra: ``pip install
memlib[postgres]``; without it the constructors raise ImportError saying so.

Deliberately not here: connection pooling, TLS or password options beyond
what a libpq DSN says, schema migrations (a different schema version is
refused), or server-side ranking.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from datetime import datetime
from typing import Any, Callable, Iterator

from memlib._util import utcnow
from memlib.archival import ArchivalRecord, ArchivalStore, Transition
from memlib.messages import Message
from memlib.recall import RecallStore
from memlib.retrieval import tokenize
from memlib.rows import (MESSAGE_FIELDS, RECORD_FIELDS, TRANSITION_FIELDS, ReadOnlyStorageError, StorageCorruptError,
                         StorageError, StorageFullError, archival_changes, message_row, recall_changes, record_row,
                         transition_row)
from memlib.tables import Changes

__all__ = ["PostgresArchivalStore", "PostgresRecallStore", "PostgresArchivalTable", "PostgresRecallTable",
           "ServerUnavailableError", "AuthenticationError", "PG_SCHEMA_VERSION"]

#: Version of the table layout inside a memlib PostgreSQL schema; bumped on incompatible changes.
PG_SCHEMA_VERSION = 1
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
INSTALL_HINT = "the PostgreSQL stores need psycopg 3: `pip install memlib[postgres]`"
#: PostgreSQL keeps lexemes under 2 KiB; longer hex tokens are stood in for by their hash.
_MAX_LEXEME = 512


class ServerUnavailableError(StorageError):
    """The PostgreSQL server cannot be reached (down, restarting, or a wrong host or socket)."""


class AuthenticationError(StorageError, PermissionError):
    """The server refused the login (wrong password, unknown role, no pg_hba.conf entry)."""


def _psycopg():
    try:
        import psycopg
    except ImportError as exc:
        raise ImportError(f"{INSTALL_HINT} ({exc})") from None
    return psycopg


# ---------------------------------------------------------------------------
# errors


def _where(dsn: str) -> str:
    """The DSN without its password, for messages."""
    shown = re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", dsn)
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", shown) or "(libpq defaults)"


def _translate(exc: Exception, where: str, action: str, *, writing: bool = False) -> StorageError:
    """Turn a psycopg error into one that says what happened and what to do."""
    psycopg = _psycopg()
    text = " ".join(str(exc).split())
    low = text.lower()
    state = getattr(exc, "sqlstate", None)
    if (state in ("28000", "28P01") or "password authentication failed" in low or "no pg_hba.conf entry" in low
            or re.search(r'role "[^"]*" does not exist', low) or "password is required" in low):
        return AuthenticationError(
            f"cannot {action}: the PostgreSQL server refused the login ({where}). Check user= and the "
            f"password (in the DSN, PGPASSWORD or ~/.pgpass), and that pg_hba.conf lets this user in "
            f"from here. [postgres: {text}]")
    if state == "3D000" or re.search(r'database "[^"]*" does not exist', low):
        return StorageError(
            f"cannot {action}: the database named in the DSN does not exist on this server ({where}). "
            f"Create it (`createdb NAME`) or fix dbname= in the DSN. [postgres: {text}]")
    if state == "42501":
        return ReadOnlyStorageError(
            f"cannot {action}: this PostgreSQL user lacks the rights ({where}). Nothing was written. "
            f"Grant it USAGE and CREATE on the memlib schema (or CREATE on the database, to create it) "
            f"and SELECT, INSERT, UPDATE, DELETE on its tables. [postgres: {text}]")
    if state == "25006":
        return ReadOnlyStorageError(
            f"cannot {action}: the server is read-only (a standby, or default_transaction_read_only) "
            f"({where}). Nothing was written; connect to the primary. [postgres: {text}]")
    if state in ("53100", "53200", "54000") or "no space left" in low:
        return StorageFullError(
            f"cannot {action}: the PostgreSQL server is out of disk or memory ({where}). The write was "
            f"rolled back and nothing was stored; free some space and retry. [postgres: {text}]")
    if state in ("55P03", "57014"):
        return StorageError(
            f"cannot {action}: another connection held memlib's write lock longer than the timeout "
            f"({where}). Nothing was written; retry, or raise timeout=. [postgres: {text}]")
    if isinstance(exc, psycopg.OperationalError):
        lost = ("The connection broke during the write: if it broke while committing, the next "
                "call shows whether the write was stored; otherwise nothing was."
                if writing else "Nothing was written by this call.")
        return ServerUnavailableError(
            f"cannot {action}: the PostgreSQL server is not reachable ({where}): it is down or "
            f"restarting, or the host, port or socket in the DSN is wrong. {lost} Start the server "
            f"(or fix the DSN) and call again: the store reconnects by itself. [postgres: {text}]")
    return StorageError(f"cannot {action} ({where}): [postgres: {text}]")


# ---------------------------------------------------------------------------
# one connection, its schema, its transactions


def _q(name: str) -> str:
    """A quoted identifier (names here are memlib's own or checked against _SCHEMA_NAME)."""
    return '"' + name.replace('"', '""') + '"'


def _columns(fields) -> str:
    return ", ".join(_q(f) for f in fields)


class _Connection:
    """One psycopg connection to one memlib schema: setup, reads that survive a restart, write transactions.

    The connection is in autocommit mode: memlib sends BEGIN and COMMIT itself,
    so every write is exactly one explicit transaction, and a read outside one
    sees every commit so far.
    """

    def __init__(self, dsn: str, schema: str, kind: str, tables: dict[str, str], meta: dict[str, str],
                 timeout: float):
        if not isinstance(dsn, str):
            raise TypeError(f"dsn must be a str (a libpq connection string or URI), got {type(dsn).__name__}")
        if not isinstance(schema, str) or not _SCHEMA_NAME.fullmatch(schema):
            raise ValueError(f"schema must be a lower-case PostgreSQL name ([a-z_][a-z0-9_]*, at most 63 "
                             f"characters), got {schema!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.psycopg = _psycopg()
        self.dsn, self.schema, self.kind, self.timeout = dsn, schema, kind, float(timeout)
        self.where = f"{_where(dsn)}, schema {schema}"
        self.lock = threading.RLock()
        self.conn: Any = None  # a psycopg connection once connected
        self.closed = False
        self.lock_key = f"{kind}.lock"
        self._ensure_schema(tables, meta)

    def in_schema(self, text: str) -> str:
        """`text` with {s} naming this store's schema."""
        return text.replace("{s}", _q(self.schema))

    def _connect(self, action: str):
        if self.closed:
            raise StorageError(f"cannot {action}: this {self.kind} store ({self.where}) was closed; open it again")
        if self.conn is not None and not self.conn.closed and not self.conn.broken:
            return self.conn
        psycopg = self.psycopg
        options = {"autocommit": True, "application_name": "memlib"}
        if "connect_timeout" not in self.dsn:
            options["connect_timeout"] = max(1, round(self.timeout))
        try:
            conn = psycopg.connect(self.dsn, **options)
        except psycopg.ProgrammingError as exc:  # the DSN itself does not parse
            raise ValueError(f"dsn {_where(self.dsn)!r} is not a libpq connection string or URI: {exc}") from None
        except psycopg.Error as exc:
            raise _translate(exc, self.where, action) from None
        try:
            # Waiting for another writer's lock ends after `timeout`, with a clear error.
            conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{round(self.timeout * 1000)}ms",))
        except psycopg.Error as exc:
            conn.close()
            raise _translate(exc, self.where, action) from None
        self.conn = conn
        return conn

    def _dead(self, conn) -> bool:
        return conn.closed or conn.broken

    def read(self, action: str, fn: Callable):
        """fn(conn), retried once on a new connection when the old one died (a server restart)."""
        with self.lock:
            for attempt in (1, 2):
                conn = self._connect(action)
                try:
                    return fn(conn)
                except self.psycopg.Error as exc:
                    if self._dead(conn) and attempt == 1:
                        continue
                    raise _translate(exc, self.where, action) from None

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[tuple[Any, str]]:  # Any: a psycopg connection (an optional package)
        """One transaction holding the kind's write lock; yields (connection, the lock row's value).

        Committed when the block ends, rolled back on any exception. A connection
        found dead at BEGIN (the server restarted since the last call) is replaced
        once: nothing had been sent yet.
        """
        psycopg = self.psycopg
        with self.lock:
            for attempt in (1, 2):
                conn = self._connect(action)
                try:
                    conn.execute("BEGIN")
                    (value,) = conn.execute(
                        self.in_schema("SELECT value FROM {s}.memlib_meta WHERE key = %s FOR UPDATE"),
                        (self.lock_key,)).fetchone()
                    break
                except psycopg.Error as exc:
                    if not self._dead(conn):
                        self._rollback(conn)
                    elif attempt == 1:
                        continue
                    raise _translate(exc, self.where, action) from None
            try:
                yield conn, value
                conn.execute("COMMIT")
            except BaseException as exc:
                if not self._dead(conn):
                    self._rollback(conn)
                if isinstance(exc, psycopg.Error):
                    raise _translate(exc, self.where, action, writing=True) from None
                raise

    def _rollback(self, conn) -> None:
        try:
            conn.execute("ROLLBACK")
        except self.psycopg.Error:
            conn.close()  # the next call reconnects

    def _ensure_schema(self, tables: dict[str, str], meta: dict[str, str]) -> None:
        """Create the schema and this kind's tables if missing; check what is there.

        Under a transaction-scoped advisory lock named after the schema, so two
        processes creating it at once queue instead of colliding. Nothing is
        created when everything exists: a user with rights on the tables only can
        still open the store.
        """
        action = f"open {self.kind} storage"
        psycopg = self.psycopg
        with self.lock:
            conn = self._connect(action)
            try:
                conn.execute("BEGIN")
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_number(self.schema),))
                present = {name for (name,) in conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (self.schema,))}
                if present and "memlib_meta" not in present:
                    raise StorageCorruptError(
                        f"PostgreSQL schema {self.schema!r} ({_where(self.dsn)}) holds tables that are not "
                        f"memlib's ({', '.join(sorted(present)[:5])}); pass schema= a name of its own")
                stored = {}
                if present:
                    stored = dict(conn.execute(self.in_schema("SELECT key, value FROM {s}.memlib_meta")).fetchall())
                    self._check_version(stored)
                if self.lock_key in stored:  # this kind was created here before: its tables must be there
                    missing = [t for t in tables if t not in present]
                    if missing:
                        raise StorageCorruptError(
                            f"PostgreSQL schema {self.schema!r} ({_where(self.dsn)}) is a memlib {self.kind} "
                            f"store but its table(s) {', '.join(missing)} are missing (dropped); it is not an "
                            f"empty store. Restore them from a backup, or pass a new schema= to start afresh.")
                if "memlib_meta" not in present or any(t not in present for t in tables) or \
                        any(k not in stored for k in meta):
                    conn.execute(self.in_schema("CREATE SCHEMA IF NOT EXISTS {s}"))
                    conn.execute(self.in_schema("CREATE TABLE IF NOT EXISTS {s}.memlib_meta "
                                        "(key text PRIMARY KEY, value text NOT NULL)"))
                    for statement in tables.values():
                        conn.execute(self.in_schema(statement))
                    for key, value in {"schema_version": str(PG_SCHEMA_VERSION), **meta}.items():
                        conn.execute(self.in_schema(
                            "INSERT INTO {s}.memlib_meta VALUES (%s, %s) ON CONFLICT DO NOTHING"), (key, value))
                conn.execute("COMMIT")
            except BaseException as exc:
                if not self._dead(conn):
                    self._rollback(conn)
                self.close()
                if isinstance(exc, psycopg.Error):
                    raise _translate(exc, self.where, action) from None
                raise

    def _check_version(self, stored: dict[str, str]) -> None:
        version = stored.get("schema_version")
        if version != str(PG_SCHEMA_VERSION):
            raise StorageCorruptError(
                f"PostgreSQL schema {self.schema!r} ({_where(self.dsn)}) uses memlib store schema version "
                f"{version!r}; this memlib reads version {PG_SCHEMA_VERSION}. Open it with the memlib that "
                f"wrote it, or pass a new schema=.")

    def meta_int(self, conn, key: str) -> int:
        row = conn.execute(self.in_schema("SELECT value FROM {s}.memlib_meta WHERE key = %s"), (key,)).fetchone()
        return self.as_int(key, row[0] if row else None)

    def as_int(self, key: str, value) -> int:
        try:
            return int(value)
        except (TypeError, ValueError):
            raise StorageCorruptError(
                f"{self.where}: memlib_meta field {key!r} is {value!r}, not a number; the table is damaged"
            ) from None

    def close(self) -> None:
        self.closed = True
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _lock_number(schema: str) -> int:
    """A stable signed 64-bit advisory-lock key for `schema` (the same in every process)."""
    digest = hashlib.blake2b(f"memlib schema {schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _lexemes(tokens) -> list[str]:
    """memlib's tokens as tsvector lexemes: the hex of their UTF-8 bytes (a hash when too long)."""
    out: dict[str, None] = {}  # an ordered set
    for token in tokens:
        lexeme = token.encode("utf-8", "surrogatepass").hex()
        if len(lexeme) > _MAX_LEXEME:
            lexeme = "h" + hashlib.blake2b(lexeme.encode(), digest_size=16).hexdigest()
        out[lexeme] = None
    return list(out)


def _terms(text: str) -> list[str]:
    return _lexemes(tokenize(text))


# ---------------------------------------------------------------------------
# archival


_ARCHIVAL_TABLES = {
    "archival_records": """CREATE TABLE IF NOT EXISTS {s}.archival_records (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- insertion order, never reused
        "id" text NOT NULL UNIQUE,
        "text" text NOT NULL,
        "tags" text NOT NULL,                  -- JSON list of str
        "session_id" text,
        "turn_id" bigint,
        "source_url" text,
        "created_at" text NOT NULL,            -- ISO 8601, naive UTC (as every date here)
        "trust" text NOT NULL,
        "state" text NOT NULL,
        "valid_from" text,
        "valid_to" text,
        "superseded_by" text,
        rev bigint NOT NULL,                   -- the write (memlib_meta 'archival.lock') that last touched it
        terms tsvector NOT NULL                -- memlib's tokens as hex lexemes (see _lexemes)
    );
    CREATE INDEX IF NOT EXISTS archival_records_rev ON {s}.archival_records (rev);
    -- fastupdate off: entries go into the index at once; a pending list left after a bulk
    -- load makes the planner scan the whole table until the next vacuum
    CREATE INDEX IF NOT EXISTS archival_records_terms ON {s}.archival_records USING gin (terms)
        WITH (fastupdate = off)""",
    # ids deleted, by revision, so other connections drop them without reading every id
    "archival_removed": """CREATE TABLE IF NOT EXISTS {s}.archival_removed ("id" text NOT NULL, rev bigint NOT NULL);
    CREATE INDEX IF NOT EXISTS archival_removed_rev ON {s}.archival_removed (rev)""",
    "archival_transitions": """CREATE TABLE IF NOT EXISTS {s}.archival_transitions (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        rev bigint NOT NULL,
        "record_id" text NOT NULL, "action" text NOT NULL, "before" text NOT NULL, "after" text NOT NULL,
        "at" text NOT NULL, "by" text NOT NULL, "reason" text NOT NULL, "detail" text
    );
    CREATE INDEX IF NOT EXISTS archival_transitions_rev ON {s}.archival_transitions (rev)""",
}
# The lock row's value is the revision: the number of archival writes committed so far.
_ARCHIVAL_META = {"archival.lock": "0", "archival.next_id": "1"}


class PostgresArchivalTable:
    """Archival rows in a PostgreSQL schema (the `memlib.tables` interface).

    Every write transaction bumps the revision (the value of the locked
    'archival.lock' row) and stamps the rows, tombstones and log entries it
    writes with it, so `pull` asks for what is newer than the last revision
    seen, whoever wrote it; when nothing is, one query says so.
    """

    def __init__(self, dsn: str, *, schema: str = "memlib", timeout: float = 10.0):
        self._db = _Connection(dsn, schema, "archival", _ARCHIVAL_TABLES, _ARCHIVAL_META, timeout)
        self.name = f"PostgreSQL {self._db.where}"
        self.schema = schema
        self._rev: int | None = None  # the last revision pulled; None: nothing yet

    def pull(self) -> Changes | None:
        def read(conn):
            if self._rev is not None and self._revision(conn) == self._rev:
                return None
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")  # one snapshot for every query
            try:
                return self._changes(conn, self._revision(conn))
            finally:
                if not conn.broken and not conn.closed:
                    conn.execute("COMMIT")

        return self._db.read("read archival storage", read)

    def _revision(self, conn) -> int:
        return self._db.meta_int(conn, "archival.lock")

    def _changes(self, conn, rev: int) -> Changes | None:
        """What the connection sees beyond revision self._rev (everything, the first time)."""
        if self._rev is not None and rev == self._rev:
            return None
        in_schema, first = self._db.in_schema, self._rev is None
        since = -1 if first else self._rev
        rows = conn.execute(in_schema(f"SELECT seq, {_columns(RECORD_FIELDS)} FROM {{s}}.archival_records "
                                      f"WHERE rev > %s ORDER BY {'seq' if first else 'rev, seq'}"),
                            (since,)).fetchall()
        removed = [] if first else [rid for (rid,) in conn.execute(
            in_schema('SELECT "id" FROM {s}.archival_removed WHERE rev > %s ORDER BY rev'), (since,))]
        log = conn.execute(in_schema(f"SELECT seq, {_columns(TRANSITION_FIELDS)} "
                                     "FROM {s}.archival_transitions WHERE rev > %s ORDER BY seq"), (since,)).fetchall()
        changes = archival_changes(rows, log, removed=removed, next_id=self._db.meta_int(conn, "archival.next_id"),
                                   first=first, where=self.name)
        self._rev = rev
        return changes

    def candidates(self, tokens: list[str]) -> set | None:
        lexemes = _lexemes(tokens)
        if not lexemes:
            return set()
        # Quoted lexemes go into the tsquery as they are: no parser, no dictionary.
        query = " | ".join(f"'{lexeme}'" for lexeme in lexemes)
        return self._db.read("search archival storage", lambda conn: {rid for (rid,) in conn.execute(
            self._db.in_schema('SELECT "id" FROM {s}.archival_records WHERE terms @@ %s::tsquery'), (query,))})

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[tuple["_ArchivalWriter", Changes | None]]:
        with self._db.write(action) as (conn, value):
            # Under the write lock: what others committed since our last look comes first.
            changes = self._changes(conn, self._db.as_int("archival.lock", value))
            assert self._rev is not None  # _changes() has pulled a revision
            writer = _ArchivalWriter(self._db, conn, self._rev + 1)
            yield writer, changes
            writer.flush()
            if writer.wrote:
                conn.execute(self._db.in_schema("UPDATE {s}.memlib_meta SET value = %s WHERE key = 'archival.lock'"),
                             (str(writer.rev),))
        if writer.wrote:
            self._rev = writer.rev  # committed

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"PostgresArchivalTable({self.name!r})"


class _ArchivalWriter:
    """The operations of one archival write transaction, each stamped with its revision.

    Inserts are sent in one batch (psycopg pipelines executemany) before the next
    other operation and before COMMIT: loading a dataset is then a few round trips,
    not one per record.
    """

    def __init__(self, db: _Connection, conn, rev: int) -> None:
        self.db, self.conn, self.rev, self.wrote = db, conn, rev, False
        self._inserts: list[tuple] = []

    def insert(self, record: ArchivalRecord) -> None:
        self.wrote = True
        self._inserts.append((*record_row(record), self.rev, _terms(record.text)))

    def flush(self) -> None:
        if self._inserts:
            rows, self._inserts = self._inserts, []
            statement = self.db.in_schema(
                f"INSERT INTO {{s}}.archival_records ({_columns(RECORD_FIELDS)}, rev, terms) "
                f"VALUES ({', '.join(['%s'] * len(RECORD_FIELDS))}, %s, array_to_tsvector(%s::text[]))")
            if len(rows) == 1:
                self.conn.execute(statement, rows[0])
            else:
                self.conn.cursor().executemany(statement, rows)

    def replace(self, record: ArchivalRecord) -> None:
        self.flush()
        self.wrote = True
        values = record_row(record)
        assignments = ", ".join(f"{_q(name)} = %s" for name in RECORD_FIELDS[1:])
        self.conn.execute(self.db.in_schema(
            f"UPDATE {{s}}.archival_records SET {assignments}, rev = %s, terms = array_to_tsvector(%s::text[]) "
            'WHERE "id" = %s'), (*values[1:], self.rev, _terms(record.text), record.id))

    def delete(self, rid: str) -> None:
        self.flush()
        self.wrote = True
        self.conn.execute(self.db.in_schema('DELETE FROM {s}.archival_records WHERE "id" = %s'), (rid,))
        self.conn.execute(self.db.in_schema("INSERT INTO {s}.archival_removed VALUES (%s, %s)"), (rid, self.rev))

    def log(self, t: Transition) -> None:
        self.flush()
        self.wrote = True
        self.conn.execute(self.db.in_schema(
            f"INSERT INTO {{s}}.archival_transitions (rev, {_columns(TRANSITION_FIELDS)}) "
            f"VALUES (%s, {', '.join(['%s'] * len(TRANSITION_FIELDS))})"), (self.rev, *transition_row(t)))

    def set_next_id(self, n: int) -> None:
        self.flush()
        self.wrote = True
        self.conn.execute(self.db.in_schema("UPDATE {s}.memlib_meta SET value = %s WHERE key = 'archival.next_id'"),
                          (str(n),))


class PostgresArchivalStore(ArchivalStore):
    """An `ArchivalStore` whose records live on a PostgreSQL server, shared by every process that opens it.

    dsn: a libpq connection string or URI ("host=/run/postgresql dbname=agent",
        "postgresql://user@db.example/agent"); passwords as libpq takes them.
    schema: the PostgreSQL schema holding the tables (created if missing); one
        per store pair, so a shared database is not cluttered.
    candidates: "index" looks candidates up in the in-memory index (the
        default), "fulltext" asks the server's GIN index for the records holding
        a query term; memlib's scorer ranks them either way, so results are the
        same. "index" was faster in every case measured (10k records, a busy
        2-core machine): the course's 134 questions took 1.5-3.5 ms against
        130-180 ms (they share common words with most records, and each
        candidate is scored on its own), a two-rare-word query 0.6 ms against 1.6.
    timeout: seconds to wait for the server (connecting) and for another
        writer's lock, before a clear StorageError.

    Every write is one committed transaction before it returns; every read
    first picks up what other connections committed (one query when nothing
    changed).

    Example:
        >>> store = PostgresArchivalStore("host=/run/postgresql dbname=agent")  # doctest: +SKIP
        >>> store.insert("Ines prefers window seats", session_id="s1")           # doctest: +SKIP
        ArchivalRecord(arc-000001 [s1/-, unverified]: 'Ines prefers window seats')
    """

    def __init__(self, dsn: str, scorer: str | Callable = "bm25", page_size: int = 5, *,
                 schema: str = "memlib", candidates: str = "index", timeout: float = 10.0,
                 clock: Callable[[], datetime] = utcnow):
        if candidates not in ("index", "fulltext"):
            raise ValueError(f"candidates must be 'index' or 'fulltext', got {candidates!r}")
        table = PostgresArchivalTable(dsn, schema=schema, timeout=timeout)
        try:
            self.candidates = candidates
            super().__init__(scorer=scorer, page_size=page_size, clock=clock, table=table)
        except BaseException:
            table.close()
            raise
        self.dsn, self.schema = dsn, schema

    def __repr__(self) -> str:
        return (f"PostgresArchivalStore({self._table.name!r}, {len(self._records)} records, "
                f"scorer={self.scorer_name!r}, page_size={self.page_size}, candidates={self.candidates!r})")


# ---------------------------------------------------------------------------
# recall


_RECALL_TABLES = {
    "recall_messages": """CREATE TABLE IF NOT EXISTS {s}.recall_messages (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- commit order: writers hold the lock
        "id" bigint NOT NULL UNIQUE,
        "role" text NOT NULL,
        "content" text NOT NULL,
        "timestamp" text NOT NULL,             -- ISO 8601, naive UTC
        "tool_call_id" text,
        "name" text,
        "session_id" text,
        "arguments" text,                      -- JSON: a tool call's exact arguments
        "thought" text NOT NULL DEFAULT ''     -- a tool call's inner monologue
    )""",
}
_RECALL_META = {"recall.lock": "0"}


class PostgresRecallTable:
    """Recall rows in a PostgreSQL schema (the `memlib.tables` interface). Recall is
    append-only and writers hold the lock while they insert, so the rows after the
    last one seen are all there is to pull, in commit order."""

    def __init__(self, dsn: str, *, schema: str = "memlib", timeout: float = 10.0):
        self._db = _Connection(dsn, schema, "recall", _RECALL_TABLES, _RECALL_META, timeout)
        self.name = f"PostgreSQL {self._db.where}"
        self.schema = schema
        self._last_seq: int | None = None

    def pull(self) -> Changes | None:
        return self._db.read("read recall storage", self._changes)

    def _changes(self, conn) -> Changes | None:
        first = self._last_seq is None
        rows = conn.execute(self._db.in_schema(f"SELECT seq, {_columns(MESSAGE_FIELDS)} FROM {{s}}.recall_messages "
                                       "WHERE seq > %s ORDER BY seq"), (self._last_seq or 0,)).fetchall()
        changes = recall_changes(rows, first, self.name)
        self._last_seq = rows[-1][0] if rows else (self._last_seq or 0)
        return changes

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[tuple["_RecallWriter", Changes | None]]:
        with self._db.write(action) as (conn, _):
            changes = self._changes(conn)
            writer = _RecallWriter(self._db, conn)
            yield writer, changes
        if writer.last_seq is not None:
            self._last_seq = writer.last_seq  # committed

    def candidates(self, tokens: list[str]) -> set | None:
        return None

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"PostgresRecallTable({self.name!r})"


class _RecallWriter:
    def __init__(self, db: _Connection, conn) -> None:
        self.db, self.conn = db, conn
        self.last_seq: int | None = None

    def insert(self, message: Message) -> None:
        (self.last_seq,) = self.conn.execute(self.db.in_schema(
            f"INSERT INTO {{s}}.recall_messages ({_columns(MESSAGE_FIELDS)}) "
            f"VALUES ({', '.join(['%s'] * len(MESSAGE_FIELDS))}) RETURNING seq"), message_row(message)).fetchone()


class PostgresRecallStore(RecallStore):
    """A `RecallStore` whose messages live on a PostgreSQL server (see `PostgresArchivalStore`).

    Pass it to `MainContext(recall=...)`: every appended message is then
    committed on the server when `append` returns. Ids and timestamps are
    assigned as RecallStore does, under the server's write lock.

    Example:
        >>> recall = PostgresRecallStore("host=/run/postgresql dbname=agent")  # doctest: +SKIP
        >>> recall.add(Message.user("my sister Ines moved to Lisbon"))         # doctest: +SKIP
        Message(#0 user: 'my sister Ines moved to Lisbon')
    """

    def __init__(self, dsn: str, page_size: int = 5, *, schema: str = "memlib", timeout: float = 10.0):
        table = PostgresRecallTable(dsn, schema=schema, timeout=timeout)
        try:
            super().__init__(page_size=page_size, table=table)
        except BaseException:
            table.close()
            raise
        self.dsn, self.schema = dsn, schema

    def __repr__(self) -> str:
        return (f"PostgresRecallStore({self._table.name!r}, {len(self._messages)} messages, "
                f"page_size={self.page_size})")
