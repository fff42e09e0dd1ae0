"""A throwaway PostgreSQL server for the tests: Debian's binaries, a temporary directory, a Unix socket.

``PostgresServer()`` runs ``initdb`` into a fresh temporary directory and
starts ``postgres`` listening only on a Unix socket inside it (no TCP port is
opened, so parallel test runs never collide). ``dsn`` is what psycopg
connects with; ``restart()`` stops the server fast and starts it again on the
same data directory (what a store must survive); ``stop()`` shuts it down and
removes the directory. Durability is traded for speed (``fsync=off``): the
data only has to outlive a clean restart, not a power cut.

PostgreSQL refuses to run as root. Under root (CI, this machine) the server
runs as an unprivileged system user (Debian's ``postgres`` when the package
made it, else ``memlib-pg``, created on first use) that owns the directory.

The ``postgres_server`` fixture shares one server per test process;
``own_postgres_server`` gives a module a server of its own to stop and restart.
Both skip, saying which package to install, where the binaries or psycopg are
missing, and fail instead under ``CI=true`` (.ci/run installs both).

Not for production: no TCP, trust authentication, no fsync.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

DEBIAN_BINARIES = "/usr/lib/postgresql/*/bin"
INSTALL_HINT = ("the PostgreSQL tests need Debian's PostgreSQL server binaries ({pattern}/postgres); "
                "install them with `apt-get install postgresql` (.ci/run does)")
PSYCOPG_HINT = ("the PostgreSQL tests need psycopg: `pip install -r requirements-test.txt` "
                "(or `pip install memlib[postgres]`)")
SERVER_USER_FALLBACK = "memlib-pg"
DATABASE = "memlib_test"
SUPERUSER = "memlib"
START_TIMEOUT_S = 30
#: Unix socket paths are limited to 107 bytes; a long $TMPDIR would break the socket.
MAX_SOCKET_DIR = 80


def find_bindir() -> Path | None:
    """The newest Debian PostgreSQL bin directory that has a server, or None."""
    candidates = sorted(Path("/").glob(DEBIAN_BINARIES.lstrip("/")),
                        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    for bindir in reversed(candidates):
        if all(os.access(bindir / tool, os.X_OK) for tool in ("initdb", "postgres", "pg_isready")):
            return bindir
    return None


def missing_requirements() -> str | None:
    """Why the PostgreSQL tests cannot run here (None when they can)."""
    if find_bindir() is None:
        return INSTALL_HINT.format(pattern=DEBIAN_BINARIES)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return PSYCOPG_HINT
    return None


def _server_user() -> pwd.struct_passwd | None:
    """The unprivileged account the server runs as when we are root (None when we are not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", SERVER_USER_FALLBACK):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                    "--shell", "/usr/sbin/nologin", SERVER_USER_FALLBACK],
                   check=True, capture_output=True)
    return pwd.getpwnam(SERVER_USER_FALLBACK)


class PostgresServer:
    """One PostgreSQL cluster in a temporary directory, reachable only through its Unix socket."""

    def __init__(self, bindir: Path | None = None, database: str = DATABASE):
        self.bindir = Path(bindir) if bindir else find_bindir()
        if self.bindir is None:
            raise RuntimeError(INSTALL_HINT.format(pattern=DEBIAN_BINARIES))
        self.database = database
        self.user = _server_user()
        parent = tempfile.gettempdir()
        if len(parent) > MAX_SOCKET_DIR - 20:
            parent = "/tmp"
        self.directory = Path(tempfile.mkdtemp(prefix="memlib-pg-", dir=parent))
        self.data = self.directory / "data"
        self.log = self.directory / "server.log"
        self.process: subprocess.Popen | None = None
        if self.user is not None:
            os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        try:
            self._run(["initdb", "--pgdata", str(self.data), "--username", SUPERUSER, "--auth", "trust",
                       "--encoding", "UTF8", "--locale", "C", "--no-sync", "--no-instructions"])
            self.start()
            self._run(["createdb", "--host", str(self.directory), "--username", SUPERUSER, self.database])
        except BaseException:
            self.stop()
            raise

    @property
    def dsn(self) -> str:
        """What psycopg.connect takes: the socket directory, the database, the superuser."""
        return f"host={self.directory} dbname={self.database} user={SUPERUSER}"

    def _as_server_user(self) -> dict:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def _run(self, argv: list[str]) -> None:
        result = subprocess.run([str(self.bindir / argv[0]), *argv[1:]], cwd=self.directory,
                                capture_output=True, text=True, **self._as_server_user())
        if result.returncode != 0:
            output = result.stderr.strip() or result.stdout.strip()
            raise RuntimeError(f"{argv[0]} failed ({result.returncode}): {output}")

    def start(self) -> None:
        """Start postgres on the data directory and wait until it accepts connections."""
        if self.process is not None and self.process.poll() is None:
            return
        with open(self.log, "ab") as log:
            if self.user is not None:
                os.chown(self.log, self.user.pw_uid, self.user.pw_gid)
            self.process = subprocess.Popen(
                [str(self.bindir / "postgres"), "-D", str(self.data),
                 "-c", "listen_addresses=", "-c", f"unix_socket_directories={self.directory}",
                 "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                 "-c", "shared_buffers=16MB", "-c", "max_connections=40"],
                cwd=self.directory, stdout=log, stderr=subprocess.STDOUT, **self._as_server_user())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited with {self.process.returncode}:\n{self._log_tail()}")
            ready = subprocess.run([str(self.bindir / "pg_isready"), "--host", str(self.directory),
                                    "--username", SUPERUSER, "--dbname", "postgres", "--quiet"])
            if ready.returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"postgres did not accept connections within {START_TIMEOUT_S} s:\n{self._log_tail()}")

    def _halt(self) -> None:
        """Fast shutdown (SIGINT): open transactions are rolled back, clients are disconnected."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()  # immediate shutdown; the next start recovers from the WAL
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Stop fast and start again on the same data directory and socket."""
        self._halt()
        self.start()

    def stop(self) -> None:
        """Shut the server down and remove its directory."""
        self._halt()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


_shared: PostgresServer | None = None


def skip_or_fail(reason: str) -> None:
    """Skip with the reason; under CI=true fail, since .ci/run installs what the tests need."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def require_postgres() -> None:
    """Skip (fail, under CI=true) saying what to install, unless a server can be started here."""
    reason = missing_requirements()
    if reason:
        skip_or_fail(reason)


@pytest.fixture(scope="session")
def postgres_server():
    """One server for the whole test process (shared by every module that imports this fixture)."""
    global _shared
    require_postgres()
    if _shared is None:
        _shared = PostgresServer()
    yield _shared
    # Not stopped here: every module that imports the fixture gets its own teardown, and the
    # server is shared by all of them; it stops when the test process exits.


@pytest.fixture(scope="module")
def own_postgres_server():
    """A server of the module's own, for tests that stop and restart it."""
    require_postgres()
    with PostgresServer() as server:
        yield server


@atexit.register
def _stop_shared() -> None:
    if _shared is not None:
        _shared.stop()
