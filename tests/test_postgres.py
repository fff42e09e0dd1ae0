"""memlib.postgres on a real PostgreSQL server: the stores' behaviour suite, identical search results,
two processes writing at once, a server restart in the middle, and errors that say what to do.

The server is Debian's, started by tests/pg_server.py on a temporary directory and a Unix
socket; where it (or psycopg) is missing the tests skip saying what to install, and under
CI=true they fail instead. Each test gets a PostgreSQL schema of its own.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta

import pytest

import test_store_behaviour as behaviour
from memlib.archival import ArchivalRecord, ArchivalStore
from memlib.messages import Message
from memlib.postgres import _where
from memlib.retrieval import tokenize
from memlib.storage import StorageCorruptError, StorageError
from pg_server import own_postgres_server, postgres_server  # noqa: F401
from test_store_behaviour import T0, Backend, Clock, facts, queries, ranking

pytestmark = pytest.mark.server


def new_schema() -> str:
    return f"t_{uuid.uuid4().hex[:16]}"


def connect(server):
    import psycopg

    return psycopg.connect(server.dsn, autocommit=True)


# -- the behaviour suite every backend passes ------------------------------------------


class PostgresBackend(Backend):
    """The stores on a schema of their own in the shared test server."""

    name = "postgres"
    persistent = True
    candidates = "index"

    def __init__(self, tmp_path, server) -> None:
        super().__init__(tmp_path)
        self.dsn, self.schema = server.dsn, new_schema()

    def archival(self, clock=None, **kwargs):
        from memlib.storage import PostgresArchivalStore

        kwargs.setdefault("candidates", self.candidates)
        return PostgresArchivalStore(self.dsn, schema=self.schema, clock=clock or Clock(), **kwargs)

    def recall(self, **kwargs):
        from memlib.storage import PostgresRecallStore

        return PostgresRecallStore(self.dsn, schema=self.schema, **kwargs)

    def reopen_archival(self, store, clock=None):
        store.close()
        return self.archival(clock=clock or Clock(T0 + timedelta(days=92)))

    def reopen_recall(self, store):
        store.close()
        return self.recall()

    def second_archival(self, store):
        return self.archival(clock=store._clock)


class PostgresFulltextBackend(PostgresBackend):
    """The same, with candidates looked up in the server's GIN index instead of memlib's."""

    name = "postgres-fulltext"
    candidates = "fulltext"


BACKENDS = {b.name: b for b in (PostgresBackend, PostgresFulltextBackend)}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request, tmp_path, postgres_server):
    return BACKENDS[request.param](tmp_path, postgres_server)


# Every test of tests/test_store_behaviour.py that takes a backend runs here on PostgreSQL.
for _name, _test in vars(behaviour).items():
    if _name.startswith("test_") and "backend" in inspect.signature(_test).parameters:
        globals()[_name] = _test


# -- identical results, whichever candidates ---------------------------------------------

TRICKY = ["café naïve straße 東京 don't o'brien résumé", "cafe naive strasse tokyo report-card",
          "x" * 3000 + " a very long token", "the the the", "Ines moved to Lisbon; Ines's sister did not"]


@pytest.mark.parametrize("candidates", ["index", "fulltext"])
def test_tricky_tokens_rank_as_in_memory(postgres_server, candidates):
    from memlib.storage import PostgresArchivalStore

    records = facts()[:60] + [ArchivalRecord(f"tricky-{i}", text) for i, text in enumerate(TRICKY)]
    reference = ArchivalStore()
    reference.add_records(records)
    store = PostgresArchivalStore(postgres_server.dsn, schema=new_schema(), candidates=candidates)
    store.add_records(records)
    for query in TRICKY + ["x" * 3000, "café", "cafe", "東京", "", "zebra"] + queries()[:30]:
        assert ranking(store, query) == ranking(reference, query), query
        assert store.matching(query) == reference.matching(query), query
        # the server's full-text index finds exactly the records memlib's index does
        assert store._table.candidates(tokenize(query)) == reference._index.matching(query), query
    store.close()


# -- one transaction per write -----------------------------------------------------------


def test_a_write_the_server_refuses_halfway_leaves_nothing(postgres_server):
    from memlib.storage import PostgresArchivalStore

    schema = new_schema()
    store = PostgresArchivalStore(postgres_server.dsn, schema=schema)
    store.insert("Ines works at Kestrel Freight")
    with connect(postgres_server) as conn:  # the server, not memlib, refuses the second row
        conn.execute(f"ALTER TABLE {schema}.archival_records ADD CONSTRAINT no_boom CHECK (text NOT LIKE '%boom%')")
    before = ([r.to_dict() for r in store], store.history(), store.next_id)
    batch = [ArchivalRecord("arc-000010", "a fine fact"), ArchivalRecord("arc-000011", "boom")]
    with pytest.raises(StorageError, match="no_boom"):
        store.add_records(batch)
    assert ([r.to_dict() for r in store], store.history(), store.next_id) == before
    with connect(postgres_server) as conn:
        assert conn.execute(f"SELECT count(*) FROM {schema}.archival_records").fetchone() == (1,)
    assert store.insert("the next write works").id == "arc-000002"
    fresh = PostgresArchivalStore(postgres_server.dsn, schema=schema)
    assert [r.id for r in fresh] == ["arc-000001", "arc-000002"] and fresh.next_id == 3
    store.close(), fresh.close()


def test_a_writer_that_cannot_get_the_lock_gives_up_clearly(postgres_server):
    from memlib.storage import PostgresArchivalStore

    schema = new_schema()
    store = PostgresArchivalStore(postgres_server.dsn, schema=schema, timeout=0.5)
    with connect(postgres_server) as other:
        other.execute("BEGIN")
        other.execute(f"SELECT * FROM {schema}.memlib_meta WHERE key = 'archival.lock' FOR UPDATE")
        started = time.monotonic()
        with pytest.raises(StorageError, match="write lock longer than the timeout"):
            store.insert("waits for the lock")
        assert time.monotonic() - started < 5
        other.execute("ROLLBACK")
    assert len(store) == 0 and store.insert("now it can").id == "arc-000001"
    store.close()


# -- errors that say what to do ----------------------------------------------------------


def test_wrong_database_unknown_user_and_bad_arguments(postgres_server):
    from memlib.storage import AuthenticationError, PostgresArchivalStore, PostgresRecallStore

    dsn = postgres_server.dsn
    with pytest.raises(StorageError, match=r'database named in the DSN does not exist.*createdb') as err:
        PostgresArchivalStore(dsn.replace("dbname=memlib_test", "dbname=no_such_db"))
    assert not isinstance(err.value, AuthenticationError)
    with pytest.raises(AuthenticationError, match="refused the login.*pg_hba.conf"):
        PostgresRecallStore(dsn.replace("user=memlib", "user=nobody_here"))
    with pytest.raises(ValueError, match="schema must be a lower-case PostgreSQL name"):
        PostgresArchivalStore(dsn, schema="Robert'); DROP TABLE x;--")
    with pytest.raises(ValueError, match="not a libpq connection string"):
        PostgresArchivalStore("nonsense_option=1")
    with pytest.raises(TypeError, match="dsn must be a str"):
        PostgresArchivalStore(None)
    with pytest.raises(ValueError, match="candidates must be"):
        PostgresArchivalStore(dsn, candidates="fts5")
    with pytest.raises(ValueError, match="timeout must be"):
        PostgresArchivalStore(dsn, timeout=0)


def test_schemas_that_are_not_memlibs_or_are_damaged_are_refused(postgres_server):
    from memlib.storage import PostgresArchivalStore, PostgresRecallStore

    dsn, foreign, damaged, future = postgres_server.dsn, new_schema(), new_schema(), new_schema()
    with connect(postgres_server) as conn:
        conn.execute(f"CREATE SCHEMA {foreign}")
        conn.execute(f"CREATE TABLE {foreign}.invoices (n int)")
    with pytest.raises(StorageCorruptError, match="not memlib's.*invoices.*schema= a name of its own"):
        PostgresArchivalStore(dsn, schema=foreign)
    PostgresArchivalStore(dsn, schema=damaged).close()
    PostgresRecallStore(dsn, schema=damaged).close()  # both kinds share one schema
    with connect(postgres_server) as conn:
        conn.execute(f"DROP TABLE {damaged}.archival_transitions")
    with pytest.raises(StorageCorruptError, match="archival_transitions are missing"):
        PostgresArchivalStore(dsn, schema=damaged)
    PostgresRecallStore(dsn, schema=damaged).close()  # the recall tables are intact
    PostgresArchivalStore(dsn, schema=future).close()
    with connect(postgres_server) as conn:
        conn.execute(f"UPDATE {future}.memlib_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StorageCorruptError, match="version '99'"):
        PostgresArchivalStore(dsn, schema=future)


def test_many_connections_creating_one_schema_at_once_all_succeed(postgres_server):
    from memlib.storage import PostgresArchivalStore, PostgresRecallStore

    for _ in range(3):
        schema, gate, errors, stores = new_schema(), threading.Barrier(8), [], []

        def open_one(make):
            try:
                gate.wait(timeout=30)
                stores.append(make(postgres_server.dsn, schema=schema))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=open_one, args=(make,))
                   for make in [PostgresArchivalStore, PostgresRecallStore] * 4]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert errors == [] and len(stores) == 8
        for store in stores:
            store.close()


def test_a_closed_store_says_so(postgres_server):
    from memlib.storage import PostgresArchivalStore

    store = PostgresArchivalStore(postgres_server.dsn, schema=new_schema())
    store.close()
    with pytest.raises(StorageError, match="was closed; open it again"):
        store.insert("too late")


def test_without_psycopg_memlib_imports_and_the_constructor_says_what_to_install():
    code = ("import sys; sys.modules['psycopg'] = None\n"
            "import memlib.storage\n"
            "from memlib.storage import PostgresArchivalStore, PostgresRecallStore\n"
            "for make in (PostgresArchivalStore, PostgresRecallStore):\n"
            "    try:\n"
            "        make('host=/nowhere')\n"
            "    except ImportError as exc:\n"
            "        print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("pip install memlib[postgres]") == 2, out.stdout


# -- a server restart in the middle --------------------------------------------------------


#: A server of this module's own: the tests below stop and restart it.
own_server = own_postgres_server


def test_a_restart_between_calls_goes_unnoticed(own_server):
    from memlib.storage import PostgresArchivalStore, PostgresRecallStore

    schema = new_schema()
    store = PostgresArchivalStore(own_server.dsn, schema=schema)
    recall = PostgresRecallStore(own_server.dsn, schema=schema)
    store.insert("Ines moved to Lisbon")
    recall.add(Message.user("where does Ines live now?"))
    own_server.restart()
    assert [h.record.id for h in store.search("Lisbon")] == ["arc-000001"]  # a read reconnects
    own_server.restart()
    assert store.insert("Ines cycles to work").id == "arc-000002"  # so does a write
    assert recall.add(Message.user("and how does she get to work?")).id == 1
    store.close(), recall.close()


def test_while_the_server_is_down_calls_fail_clearly_and_nothing_acknowledged_is_lost(own_server):
    from memlib.storage import PostgresArchivalStore, PostgresRecallStore, ServerUnavailableError

    schema = new_schema()
    store = PostgresArchivalStore(own_server.dsn, schema=schema)
    recall = PostgresRecallStore(own_server.dsn, schema=schema)
    acknowledged = [store.insert(f"fact number {i}").id for i in range(5)]
    recall.add(Message.user("first"))
    own_server._halt()  # down, not yet back
    try:
        with pytest.raises(ServerUnavailableError, match="not reachable.*reconnects by itself"):
            store.insert("written while the server is down")
        with pytest.raises(ServerUnavailableError, match="not reachable"):
            store.search("fact")
        with pytest.raises(ServerUnavailableError, match="not reachable"):
            recall.add(Message.user("lost in the outage"))
        with pytest.raises(ServerUnavailableError, match="not reachable"):
            PostgresArchivalStore(own_server.dsn, schema=schema)
    finally:
        own_server.start()
    assert store.insert("written after the server is back").id == "arc-000006"
    acknowledged.append("arc-000006")
    assert recall.add(Message.user("second")).id == 1
    for view in (store, PostgresArchivalStore(own_server.dsn, schema=schema)):
        assert [r.id for r in view] == acknowledged
        assert not any("down" in r.text for r in view)
    assert [m.content for m in PostgresRecallStore(own_server.dsn, schema=schema).messages] == ["first", "second"]


def test_a_wrong_password_is_refused_without_echoing_it(own_server):
    from memlib.storage import AuthenticationError, PostgresArchivalStore

    with connect(own_server) as conn:
        conn.execute("CREATE ROLE pw_user LOGIN PASSWORD 'the-right-one'")
    hba = own_server.data / "pg_hba.conf"
    hba.write_text("local all pw_user scram-sha-256\n" + hba.read_text())
    os.kill(own_server.process.pid, signal.SIGHUP)  # reload pg_hba.conf
    dsn = own_server.dsn.replace("user=memlib", "user=pw_user password=a-wrong-one")
    deadline = time.monotonic() + 10
    while True:
        try:
            PostgresArchivalStore(dsn, schema=new_schema()).close()
        except AuthenticationError as exc:
            message = str(exc)
            break
        assert time.monotonic() < deadline, "pg_hba.conf was not reloaded"
        time.sleep(0.1)
    assert "password authentication failed" in message and "PGPASSWORD" in message
    assert "a-wrong-one" not in message and "password=***" in message
    assert _where("postgresql://pw_user:a-wrong-one@db.example/agent") == "postgresql://pw_user:***@db.example/agent"
    assert _where("host=h password='a wrong one' dbname=d") == "host=h password=*** dbname=d"


# -- several processes -----------------------------------------------------------------------


def _writer(dsn: str, schema: str, name: str, n: int, start, done, out) -> None:
    """In a process of its own: open the stores when `start` opens, write n archival records and n
    recall messages (each until the server acknowledges it), wait for the others, report."""
    import traceback

    from memlib.storage import PostgresArchivalStore, PostgresRecallStore

    try:
        start.wait(timeout=60)
        # the schema may not exist yet: both create it; the server may be restarting already: open again
        store = _opened(lambda: PostgresArchivalStore(dsn, schema=schema))
        recall = _opened(lambda: PostgresRecallStore(dsn, schema=schema))
        retries = 0
        for i in range(n):
            text, content = f"{name} record {i}", f"{name} {i}"
            retries += _until_acknowledged(lambda: store.insert(text), lambda: any(r.text == text for r in store))
            retries += _until_acknowledged(lambda: recall.add(Message.user(content)),
                                           lambda: any(m.content == content for m in recall.messages))
        done.wait(timeout=60)
        messages = recall.messages
        out.put((name, sorted(r.id for r in store), sorted(r.text for r in store),
                 ([m.id for m in messages], sorted(m.content for m in messages)), retries))
    except BaseException:
        out.put((name, "failed", traceback.format_exc(), None, None))


def _opened(open_store, seconds: float = 60.0):
    """open_store(), again after each ServerUnavailableError (the store says: start the server and call
    again) until `seconds` have passed."""
    from memlib.storage import ServerUnavailableError

    deadline = time.monotonic() + seconds
    while True:
        try:
            return open_store()
        except ServerUnavailableError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _until_acknowledged(write, stored) -> int:
    """Call write() until it returns; after a ServerUnavailableError, `stored()` says whether the
    write landed anyway (the connection broke while committing). Returns the number of retries."""
    from memlib.storage import ServerUnavailableError

    retries = 0
    while True:
        try:
            write()
            return retries
        except ServerUnavailableError:
            retries += 1
            time.sleep(0.05)
            try:
                if stored():
                    return retries
            except ServerUnavailableError:
                pass


def _run_writers(dsn: str, n: int, during=None) -> list[tuple]:
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no connection is shared
    start, done, out = context.Barrier(3), context.Barrier(2), context.Queue()
    schema = new_schema()
    procs = [context.Process(target=_writer, args=(dsn, schema, name, n, start, done, out)) for name in "AB"]
    for proc in procs:
        proc.start()
    start.wait(timeout=60)
    if during is not None:
        during(schema)
    reports = [out.get(timeout=180) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    failed = [f"writer {r[0]}:\n{r[2]}" for r in reports if r[1] == "failed"]
    assert not failed, "\n".join(failed)
    return reports


def _check_reports(reports, n: int) -> None:
    expected_texts = sorted(f"{name} record {i}" for name in "AB" for i in range(n))
    expected_contents = sorted(f"{name} {i}" for name in "AB" for i in range(n))
    for name, ids, texts, (message_ids, contents), _ in reports:
        assert len(ids) == len(set(ids)) == 2 * n, name
        assert texts == expected_texts, name  # each sees both processes' records, every one once
        assert message_ids == list(range(2 * n)) and contents == expected_contents, name
    assert reports[0][1:4] == reports[1][1:4]


@pytest.mark.slow
def test_two_processes_writing_at_once_never_share_an_id(postgres_server):
    n = 40
    reports = _run_writers(postgres_server.dsn, n)
    _check_reports(reports, n)


@pytest.mark.slow
def test_two_writers_across_a_server_restart_lose_nothing_acknowledged(own_server):
    import psycopg

    n, seen = 150, []

    def restart_halfway(schema):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not seen:  # until both writers are well under way
            try:
                with connect(own_server) as conn:
                    count = conn.execute(f"SELECT count(*) FROM {schema}.archival_records").fetchone()[0]
                if count >= n // 2:
                    seen.append(count)
            except psycopg.errors.UndefinedTable:
                pass
            time.sleep(0.01)
        pid = own_server.process.pid
        own_server.restart()
        assert own_server.process.pid != pid

    reports = _run_writers(own_server.dsn, n, during=restart_halfway)
    assert seen and seen[0] < 2 * n  # the restart came while both were writing
    _check_reports(reports, n)
    print(f"writes retried after the restart: {sum(r[4] for r in reports)}")
