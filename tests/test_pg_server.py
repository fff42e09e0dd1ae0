"""The throwaway PostgreSQL server of tests/pg_server.py: a row written before a restart is read back
after it, it listens on its socket only, and without the binaries the tests say what to install."""

from __future__ import annotations

import os
import stat

import pytest

from pg_server import PostgresServer, own_postgres_server, require_postgres  # noqa: F401

pytestmark = pytest.mark.server

server = own_postgres_server


def test_a_row_survives_a_restart_and_the_server_listens_only_on_its_socket(server):
    import psycopg

    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE smoke (id integer PRIMARY KEY, text text NOT NULL)")
        conn.execute("INSERT INTO smoke VALUES (%s, %s)", (1, "written before the restart"))
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)
        assert conn.execute("SHOW unix_socket_directories").fetchone() == (str(server.directory),)
    assert stat.S_ISSOCK(os.stat(server.directory / ".s.PGSQL.5432").st_mode)

    server.restart()

    with psycopg.connect(server.dsn) as conn:
        assert conn.execute("SELECT id, text FROM smoke").fetchall() == [(1, "written before the restart")]


def test_a_connection_open_across_a_restart_fails_and_a_new_one_works(server):
    import psycopg

    conn = psycopg.connect(server.dsn, autocommit=True)
    try:
        server.restart()
        with pytest.raises(psycopg.OperationalError):
            conn.execute("SELECT 1")
    finally:
        conn.close()
    with psycopg.connect(server.dsn) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_stop_removes_the_directory():
    require_postgres()
    server = PostgresServer()
    directory = server.directory
    server.stop()
    assert not directory.exists()


def test_without_the_binaries_the_tests_skip_naming_the_package_and_fail_under_ci(monkeypatch):
    import pg_server

    monkeypatch.setattr(pg_server, "find_bindir", lambda: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"CI=true but .*apt-get install postgresql"):
        require_postgres()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match=r"apt-get install postgresql"):
        require_postgres()
