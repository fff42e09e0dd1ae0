"""Start a grading kernel inside a bubblewrap sandbox (or, on request, without one).

The grader runs student code, so every kernel it starts is confined with
Debian's `bubblewrap` (``bwrap``) when it is installed and works:

* its own PID namespace: the kernel sees no process outside it, so it cannot
  signal one, and everything it starts dies with it (bwrap's init exits when
  the kernel does, and the kernel namespace goes with it);
* no network (its own, empty, network namespace) and no IPC with the host;
* a filesystem built from nothing: the system (``/usr`` and its symlinks),
  the Python installation and virtualenv running the grader and memlib's own
  package folder, all read-only; a private, size-limited ``/tmp`` whose
  ``/tmp/work`` is the kernel's working directory (the release's support files
  are bound read-only into it) and whose ``/tmp/kernel-ipc`` holds the kernel's
  connection file and sockets. No host folder is writable: the grader reaches
  the sockets through ``/proc/<pid>/root`` (as root, or as the user whose user
  namespace the sandbox is), so all a kernel can write is its ``/tmp``. The
  checkout (solutions, tests, .git), the release folder, home directories, the
  gradebook and every other submission are simply not there, and bwrap's
  options (which name host paths) go through a file descriptor, so no process
  inside sees them in a command line;
* an environment of a few fixed variables (none of the grader's), among
  them ``MEMLIB_STRICT_CHECKS=1`` so a failed check raises;
* when the grader runs as root, the kernel drops to a uid of its own before it
  starts, with no capabilities: one of `KERNEL_UIDS` that no account and no
  other kernel uses (of this grader or another one on the machine), so the
  process limit of one kernel (it counts the tasks of a uid) leaves every other
  kernel alone. Without root, the kernels share the grader's user;
* resource limits set before the kernel starts: address space (memory),
  processes, file size, core dumps.

`--sandbox none` starts the kernel as a plain child process of the grader
(today's behaviour, with its own process group killed at the end); the grader
prints what that leaves open. This module does not talk to the kernel (see
`memlib.course.kernel_run`) and does not decide grades.
"""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import select
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

__all__ = ["Limits", "Sandbox", "SandboxError", "Kernel", "resolve", "INSTALL_HINT", "MISSING_PROTECTION"]

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`)"
MISSING_PROTECTION = (
    "student code runs with your permissions: it can read and write your files (the gradebook, the release, "
    "other students' work), use the network, see your environment variables, signal your processes and "
    "leave processes running after grading"
)

#: Inside the sandbox: the kernel's private /tmp and working directory.
SANDBOX_TMP = "/tmp"
SANDBOX_WORK = "/tmp/work"
#: Inside the sandbox, in its private /tmp: the kernel's connection file and sockets. The grader
#: reaches them through /proc/<pid>/root, so no host folder is writable from the sandbox.
SANDBOX_IPC = "/tmp/kernel-ipc"
#: As root, each running kernel gets a uid of its own from this range (one no account uses; checked
#: against the password database), claimed with a lock in UID_LOCKS that every grader on the machine
#: shares: RLIMIT_NPROC counts the tasks of a uid, so a fork bomb then only exhausts its own kernel.
KERNEL_UIDS = range(1_900_000_000, 1_900_000_000 + 10_000)
UID_LOCKS = "/run/memlib-grade-uids" if os.path.isdir("/run") else "/tmp/memlib-grade-uids"
SANDBOX_START_SECONDS = 30.0
#: Tells memlib's checks that they are being graded: a failed check raises (never only displays).
STRICT_CHECKS_ENV = "MEMLIB_STRICT_CHECKS"


class SandboxError(RuntimeError):
    """The requested sandbox cannot be used (the message says why and how to fix it)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one kernel (bytes / counts)."""

    memory: int = 4 * 2**30  # address space; Python with numpy and plotly needs about 1.5 GB of it
    processes: int = 256  # tasks (threads count) of the kernel's user
    file_size: int = 256 * 2**20  # largest file the kernel can write
    tmp_size: int = 512 * 2**20  # its private /tmp (work folder included), held in memory


# Runs inside the sandbox as the first process (bwrap's child): optionally
# drop root for the kernel's own uid, set the limits, then become the kernel. Plain Python
# with no site imports, so it is small and depends on nothing.
_LAUNCHER = r"""
import os, resource, sys
uid, memory, nproc, fsize = (int(v) for v in sys.argv[1:5])
work = sys.argv[5]
argv = sys.argv[sys.argv.index("--") + 1:]
if uid >= 0:
    os.chown(work, uid, uid)
    os.chown(os.path.dirname(sys.argv[6]), uid, uid)  # the kernel creates its sockets there
    os.chown(sys.argv[6], uid, uid)  # and reads its connection file
for name, value in (("RLIMIT_AS", memory), ("RLIMIT_FSIZE", fsize), ("RLIMIT_CORE", 0), ("RLIMIT_NPROC", nproc)):
    if value >= 0:
        resource.setrlimit(getattr(resource, name), (value, value))
if uid >= 0:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)  # leaving uid 0 clears every capability
os.chdir(work)
os.execv(argv[0], argv)
"""


@dataclass
class Sandbox:
    """How kernels are started: ``kind`` is ``"bwrap"`` or ``"none"``."""

    kind: str
    limits: Limits = field(default_factory=Limits)
    bwrap: str = ""

    @property
    def confined(self) -> bool:
        return self.kind == "bwrap"

    def describe(self) -> str:
        if self.confined:
            return (
                f"bubblewrap sandbox ({self.bwrap}): own PID and network namespaces, read-only system, private /tmp, "
                f"memory {self.limits.memory // 2**20} MB, {self.limits.processes} processes, "
                f"files up to {self.limits.file_size // 2**20} MB"
            )
        return "no sandbox"

    def start(self, kernel_argv: list[str], connection: dict[str, Any], host_work: Path, support: list[Path],
              stdout: int) -> Kernel:
        """Start the kernel (``kernel_argv`` without its ``-f`` connection file) confined.

        `connection` is the kernel's connection info (transport ``ipc``) without
        its ``ip``: the kernel makes its sockets where this sandbox says, and the
        returned `Kernel` says where the grader finds them. Without a sandbox the
        support files are copied into `host_work`, which becomes the kernel's
        working directory, and the sockets are in a short host folder.
        """
        if not self.confined:
            folder = Path(tempfile.mkdtemp(prefix="memlib-k-"))  # a unix socket path has ~100 characters at most
            info = dict(connection, ip=str(folder / "k"))
            _write_private(folder / "kernel.json", json.dumps(info).encode())
            for file in support:
                shutil.copy2(file, host_work / file.name)
            try:
                process = subprocess.Popen(
                    [*kernel_argv, "-f", str(folder / "kernel.json")], cwd=str(host_work), stdin=subprocess.DEVNULL,
                    stdout=stdout, stderr=subprocess.STDOUT, env=_plain_env(host_work), start_new_session=True,
                )
            except OSError:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            return Kernel(process, info, folder=folder)
        lock: int | None = None
        if os.geteuid() == 0:
            uid, lock = _claim_uid()
            processes = self.limits.processes
        else:
            uid = -1
            # RLIMIT_NPROC counts every task of the user, the instructor's own included
            processes = _tasks_of(os.getuid()) + self.limits.processes
        inside = f"{SANDBOX_IPC}/kernel.json"
        command = [self.bwrap, "--args", "{args}", "--", kernel_argv[0], "-I", "-S", "-c", _LAUNCHER,
                   str(uid), str(self.limits.memory), str(processes), str(self.limits.file_size), SANDBOX_WORK,
                   inside, "--", *kernel_argv, "-f", inside]
        # The sandbox's options go through a file descriptor (--args): bwrap's command line is what every
        # process inside sees as /proc/1/cmdline, and the options name host paths. The connection file is
        # copied into the sandbox's /tmp (--file); bwrap reports its first process's pid (--info-fd).
        # Both files are unlinked at once: nothing of them stays on the host.
        info_read, info_write = os.pipe()
        try:
            with tempfile.TemporaryFile() as args_file, tempfile.TemporaryFile() as connection_file:
                connection_file.write(json.dumps(dict(connection, ip=f"{SANDBOX_IPC}/k")).encode())
                connection_file.seek(0)
                options = [*self._bwrap_args(support), "--perms", "0700", "--dir", SANDBOX_IPC,
                           "--perms", "0600", "--file", str(connection_file.fileno()), inside,
                           "--info-fd", str(info_write)]
                args_file.write(b"".join(arg.encode() + b"\0" for arg in options))
                args_file.seek(0)
                command[2] = str(args_file.fileno())
                process = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.STDOUT,
                    env=_sandbox_env(kernel_argv[0]), start_new_session=True,
                    pass_fds=(args_file.fileno(), connection_file.fileno(), info_write),
                )
            os.close(info_write)
            info_write = -1
            pid = _child_pid(info_read, process)
        except BaseException:
            _release(lock)
            raise
        finally:
            os.close(info_read)
            if info_write >= 0:
                os.close(info_write)
        root = _built_root(pid, inside, process) if pid else ""
        if not root:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            said = process.stdout.read().decode(errors="replace").strip() if process.stdout else ""
            _release(lock)
            raise SandboxError(f"bubblewrap could not start the sandbox (exit code {process.returncode}): "
                               f"{said[-500:] or 'no message'}")
        return Kernel(process, dict(connection, ip=f"{root}{SANDBOX_IPC}/k"), uid_lock=lock, root=root,
                      init=(pid, _started(pid)), uid=uid)

    def _bwrap_args(self, support: list[Path]) -> list[str]:
        args = [*_unshare(), "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev"]
        # /tmp first: a virtualenv or the grader's scratch folder may live under it
        args += ["--perms", "1777", "--size", str(self.limits.tmp_size), "--tmpfs", SANDBOX_TMP,
                 "--dir", SANDBOX_WORK]
        made: set[str] = {SANDBOX_TMP}
        for path in _system_paths():
            if os.path.dirname(path) != "/" and os.path.dirname(path) not in made:
                made.add(os.path.dirname(path))
                args += ["--perms", "0755", "--dir", os.path.dirname(path)]
            args += ["--ro-bind", path, path] if not os.path.islink(path) else ["--symlink", os.readlink(path), path]
        for path in _python_paths():
            # bwrap would create the folders above a bind point mode 0700,
            # closed to the unprivileged kernel; make them 0755 first
            for parent in reversed(Path(path).parents):
                if str(parent) != "/" and str(parent) not in made:
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", path, path]
        for file in support:
            args += ["--ro-bind", str(file.resolve()), f"{SANDBOX_WORK}/{file.name}"]
        args += ["--chdir", SANDBOX_WORK]
        return args


@dataclass
class Kernel:
    """A started kernel: its process, where the grader connects to it, and what it holds on the host."""

    process: subprocess.Popen
    connection: dict[str, Any]  # the connection info as the grader uses it
    folder: Path | None = None  # an unconfined kernel's socket folder, removed by `close`
    uid_lock: int | None = None  # the lock on this kernel's own uid (as root)
    root: str = ""  # the sandbox's file system as the grader reaches it, /proc/<pid>/root
    init: tuple[int, str] = (0, "")  # the host pid of the sandbox's first process and its start time
    uid: int = -1  # the kernel's own uid (as root): no process outside this kernel has it

    def seal(self) -> None:
        """Once the kernel answers, and before any notebook code runs: as root, take its socket folder
        from it, so the code cannot swap a socket for a link to a host socket the grader would then
        reconnect to. (Without root the kernel is the grader's own user and keeps its folder.)"""
        if self.root and os.geteuid() == 0:
            try:
                os.chown(f"{self.root}{SANDBOX_IPC}", 0, 0, follow_symlinks=False)
                os.chmod(f"{self.root}{SANDBOX_IPC}", 0o755)
            except OSError:  # the kernel died meanwhile: its first cell will say so
                pass

    def close(self) -> None:
        """After the process is gone: end what it left running, free its uid and remove its host folder."""
        _end_sandbox(*self.init)
        if self.uid_lock is not None:
            _end_processes_of(self.uid)  # before the uid is free for another kernel
        _release(self.uid_lock)
        self.uid_lock = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _started(pid: int) -> str:
    """A process's start time (field 22 of /proc/<pid>/stat), '' when it is gone; with the pid it names one process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat.rsplit(")", 1)[-1].split()
    return "" if fields[0] in ("Z", "X") else fields[19]  # a zombie has ended, and its namespace with it


def _end_sandbox(pid: int, started: str) -> None:
    """Kill the sandbox's first process and wait until it has ended.

    It is its PID namespace's init: when it ends, the kernel kills every process
    left in the sandbox (a daemon that left its session and ignores signals
    included) and reaps them before the init itself is gone. bwrap's
    --die-with-parent would do the same once the grader killed bwrap, but
    without waiting: on a loaded machine a grader could return, and free the
    kernel's uid, while the sandbox's processes still ran.
    """
    if not pid or not started or _started(pid) != started:
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return
    deadline = time.monotonic() + 60
    while _started(pid) == started and time.monotonic() < deadline:
        time.sleep(0.02)


def _end_processes_of(uid: int) -> None:
    """SIGKILL every process of `uid` until none is left (at most 60 s).

    As root every kernel has a uid of its own, claimed because no process had it: whatever
    still runs as that uid was started by this kernel's code. Ending the sandbox's PID
    namespace should already have ended them all; this makes it certain, whatever the
    namespace did, before the uid is handed to the next kernel.
    """
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = False
        for pid, fields in _processes():
            if str(uid) not in fields.get("Uid", "").split() or fields.get("State", "").strip().startswith("Z"):
                continue
            try:
                os.kill(pid, signal.SIGKILL)
                found = True
            except OSError:  # gone meanwhile
                continue
        if not found:
            return
        time.sleep(0.02)


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _child_pid(info: int, process: subprocess.Popen) -> int:
    """The host pid of the sandbox's first process, from bwrap's --info-fd; 0 when bwrap failed.

    Its /proc/<pid>/root is the sandbox's file system: the grader (root, or the
    same user as the sandbox's user namespace) reaches the kernel's sockets there.
    """
    data = b""
    deadline = time.monotonic() + SANDBOX_START_SECONDS
    while time.monotonic() < deadline:
        ready, _, _ = select.select([info], [], [], 0.2)
        if ready:
            chunk = os.read(info, 4096)
            if not chunk:
                return 0  # bwrap exited before the sandbox was up: its message is in the kernel's log
            data += chunk
            try:
                return int(json.loads(data)["child-pid"])
            except (ValueError, KeyError, TypeError):
                continue
        elif process.poll() is not None:
            return 0
    raise SandboxError(f"bubblewrap did not report its sandbox within {SANDBOX_START_SECONDS:g} s")


def _built_root(pid: int, marker: str, process: subprocess.Popen) -> str:
    """``/proc/<pid>/root`` once bwrap has finished building the sandbox's file system ('' if it failed).

    bwrap reports the pid before the sandbox's root is in place: until then that
    path leads to the host's own root, and a socket path there to a host file.
    """
    root = f"/proc/{pid}/root"
    host = os.stat("/")
    deadline = time.monotonic() + SANDBOX_START_SECONDS
    while time.monotonic() < deadline and process.poll() is None:
        try:
            now = os.stat(root)
            if (now.st_dev, now.st_ino) != (host.st_dev, host.st_ino) and os.path.lexists(root + marker):
                return root
        except OSError:
            pass
        time.sleep(0.01)
    return ""


def _claim_uid() -> tuple[int, int]:
    """A uid of KERNEL_UIDS that no account, no process and no other kernel (of any grader here) uses,
    and the open lock file that holds it until `_release`."""
    os.makedirs(UID_LOCKS, mode=0o700, exist_ok=True)
    folder = os.lstat(UID_LOCKS)
    if folder.st_uid != 0 or folder.st_mode & 0o022 or not os.path.isdir(UID_LOCKS):
        raise SandboxError(f"{UID_LOCKS} is not a folder only root can write: remove it and grade again")
    busy = _uids_running()
    for uid in KERNEL_UIDS:
        if uid in busy:
            continue
        try:
            pwd.getpwuid(uid)
            continue  # an account has it
        except KeyError:
            pass
        fd = os.open(os.path.join(UID_LOCKS, str(uid)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    raise SandboxError(f"every uid from {KERNEL_UIDS.start} to {KERNEL_UIDS.stop - 1} is in use by a kernel")


def _release(lock: int | None) -> None:
    if lock is not None:
        os.close(lock)  # closing the file drops its lock


def _uids_running() -> set[int]:
    uids: set[int] = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                uids.add(os.stat(entry.path).st_uid)
            except OSError:
                continue
    return uids


def bound_for_kernels(path: str | Path) -> bool:
    """Whether `path` lies in a folder the bubblewrap sandbox shows its kernels (the system, Python, memlib)."""
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep)
               for root in map(os.path.realpath, [*_system_paths(), *_python_paths()]))


def _unshare() -> list[str]:
    # As root, no user namespace: the kernel then drops to a real uid of its
    # own (which a user namespace mapping only root could not name).
    # Otherwise bwrap needs one to build the sandbox at all.
    common = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    return common if os.geteuid() == 0 else ["--unshare-user", *common]


def _system_paths() -> list[str]:
    wanted = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
              "/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives", "/etc/mime.types"]
    return [p for p in wanted if os.path.lexists(p)]


def _python_paths() -> list[str]:
    """What the kernel needs to import: the interpreter, the virtualenv, site-packages and memlib itself."""
    import importlib.util

    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    candidates.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    # an editable install maps memlib (and its data) to folders of a checkout: those folders only
    for package in ("memlib", "memlib.data"):
        spec = importlib.util.find_spec(package)
        candidates.update(spec.submodule_search_locations or [] if spec else [])
    kept: list[str] = []
    for path in sorted(candidates, key=len):
        real = os.path.realpath(path)
        if not os.path.isdir(real) or real == "/" or any(real == k or real.startswith(k + os.sep) for k in kept):
            continue
        if real.startswith("/usr/") or real == "/usr":
            continue  # already bound
        kept.append(real)
    # the paths as Python will name them (the virtualenv may sit behind a symlink)
    for path in sorted(candidates):
        if os.path.isdir(path) and os.path.realpath(path) != path and os.path.realpath(path) in kept:
            if not any(path == k or path.startswith(k + os.sep) for k in kept):
                kept.append(path)
    return kept


def _checkout_path() -> dict[str, str]:
    """PYTHONPATH for the kernel when the grader imports memlib from a checkout, not from site-packages.

    The kernel then imports the memlib the grader runs and binds (see _python_paths),
    not whichever checkout an editable install in the virtualenv points to.
    """
    import memlib

    parent = os.path.dirname(os.path.dirname(os.path.realpath(memlib.__file__)))
    installed = {os.path.realpath(p) for p in (site.getsitepackages() if hasattr(site, "getsitepackages") else [])}
    return {} if parent in installed else {"PYTHONPATH": parent}


def _sandbox_env(python: str) -> dict[str, str]:
    return {
        "PATH": f"{os.path.dirname(python)}:/usr/local/bin:/usr/bin:/bin",
        **_checkout_path(),
        "HOME": SANDBOX_WORK,
        "TMPDIR": SANDBOX_TMP,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "IPYTHONDIR": f"{SANDBOX_TMP}/.ipython",
        "JUPYTER_CONFIG_DIR": f"{SANDBOX_TMP}/.jupyter",
        "JUPYTER_DATA_DIR": f"{SANDBOX_TMP}/.jupyter-data",
        "MPLCONFIGDIR": f"{SANDBOX_TMP}/.matplotlib",
        "MPLBACKEND": "agg",
        STRICT_CHECKS_ENV: "1",
    }


def _plain_env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[STRICT_CHECKS_ENV] = "1"
    env.pop("PYTEST_ADDOPTS", None)
    return env


def _processes() -> Iterator[tuple[int, dict[str, str]]]:
    """Every process as (pid, the fields of /proc/<pid>/status); one that ends meanwhile is left out.

    Its ids are read from the status file: /proc/<pid> itself is owned by root once a
    process has changed its uid (it is no longer dumpable)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        yield int(entry.name), dict(line.split(":", 1) for line in status.splitlines() if ":" in line)


def _tasks_of(uid: int) -> int:
    return sum(int(fields.get("Threads", "1").strip() or 1) for _, fields in _processes()
               if fields.get("Uid", "").split()[:1] == [str(uid)])


_PROBED: dict[str, str] = {}


def _probe(bwrap: str) -> str:
    """'' when bwrap can start a confined process here and the grader can reach its /tmp, else why not
    (cached per binary)."""
    if bwrap not in _PROBED:
        args = [*_unshare(), "--die-with-parent"]
        for path in _system_paths():
            args += ["--ro-bind", path, path] if not os.path.islink(path) else ["--symlink", os.readlink(path), path]
        args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", "1048576", "--tmpfs", "/tmp"]
        _PROBED[bwrap] = _try_sandbox([bwrap, *args])
    return _PROBED[bwrap]


def _try_sandbox(command: list[str]) -> str:
    info_read, info_write = os.pipe()
    try:
        # cat waits on its stdin: the sandbox stays up while its /tmp is looked at from here
        process = subprocess.Popen([*command, "--info-fd", str(info_write), "--", "/bin/cat"],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   pass_fds=(info_write,))
    except OSError as error:
        os.close(info_write)
        os.close(info_read)
        return str(error)
    os.close(info_write)
    reach = ""
    try:
        pid = _child_pid(info_read, process)
        root = _built_root(pid, "/tmp", process) if pid else ""
        if pid and not root and process.poll() is None:
            reach = "the grader cannot reach the sandbox's /tmp through /proc/<pid>/root, where the kernel's sockets are"
        elif root:
            os.listdir(f"{root}/tmp")
    except OSError as error:
        reach = (f"the grader cannot reach the sandbox's /tmp through /proc/<pid>/root, where the kernel's "
                 f"sockets are ({error.strerror or error})")
    except SandboxError as error:
        reach = str(error)
    finally:
        os.close(info_read)
        try:
            _, err = process.communicate(b"", timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
    if process.returncode != 0:
        return err.decode(errors="replace").strip() or f"exit code {process.returncode}"
    return reach


def resolve(kind: str = "auto", limits: Limits | None = None) -> tuple[Sandbox, str]:
    """The sandbox to grade with and a warning to print ('' when none is needed).

    ``auto`` uses bubblewrap when it works here and otherwise falls back to no
    sandbox with a warning; ``bwrap`` insists (`SandboxError` when it cannot);
    ``none`` never confines.
    """
    limits = limits or Limits()
    if kind not in ("auto", "bwrap", "none"):
        raise SandboxError(f"unknown sandbox {kind!r}; use auto, bwrap or none")
    if kind == "none":
        return Sandbox("none", limits), f"warning: grading without a sandbox (--sandbox none): {MISSING_PROTECTION}."
    bwrap = shutil.which("bwrap") if sys.platform.startswith("linux") else None
    problem = "bwrap is not installed" if bwrap is None else _probe(bwrap)
    if bwrap is None or problem:
        if kind == "bwrap":
            raise SandboxError(f"cannot use the bubblewrap sandbox: {problem}; {INSTALL_HINT}")
        return Sandbox("none", limits), (
            f"warning: no sandbox ({problem}); {INSTALL_HINT} to confine the kernels. Until then {MISSING_PROTECTION}."
        )
    return Sandbox("bwrap", limits, bwrap), ""
