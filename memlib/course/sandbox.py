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
  are bound read-only into it); a folder for the kernel's sockets. The
  checkout (solutions, tests, .git), the release folder, home directories, the
  gradebook and every other submission are simply not there;
* an environment of a few fixed variables (none of the grader's), among
  them ``MEMLIB_STRICT_CHECKS=1`` so a failed check raises;
* when the grader runs as root, the kernel drops to the unprivileged
  ``nobody`` user (uid 65534) before it starts, with no capabilities;
* resource limits set before the kernel starts: address space (memory),
  processes, file size, core dumps.

`--sandbox none` starts the kernel as a plain child process of the grader
(today's behaviour, with its own process group killed at the end); the grader
prints what that leaves open. This module does not talk to the kernel (see
`memlib.course.kernel_run`) and does not decide grades.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Limits", "Sandbox", "SandboxError", "resolve", "INSTALL_HINT", "MISSING_PROTECTION"]

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`)"
MISSING_PROTECTION = (
    "student code runs with your permissions: it can read and write your files (the gradebook, the release, "
    "other students' work), use the network, see your environment variables, signal your processes and "
    "leave processes running after grading"
)

#: Inside the sandbox: the kernel's private /tmp and working directory.
SANDBOX_TMP = "/tmp"
SANDBOX_WORK = "/tmp/work"
NOBODY = 65534
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
# drop root for nobody, set the limits, then become the kernel. Plain Python
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

    def start(self, python_argv: list[str], host_work: Path, ipc_dir: Path, support: list[Path],
              stdout: int) -> subprocess.Popen:
        """Start ``python_argv`` (the kernel) confined; `ipc_dir` holds its connection file and sockets.

        Without a sandbox the support files are copied into `host_work`, which
        becomes the kernel's working directory.
        """
        if not self.confined:
            for file in support:
                shutil.copy2(file, host_work / file.name)
            return subprocess.Popen(
                python_argv, cwd=str(host_work), stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.STDOUT,
                env=_plain_env(host_work), start_new_session=True,
            )
        uid = NOBODY if os.geteuid() == 0 else -1
        if uid < 0:
            # RLIMIT_NPROC counts every task of the user, the instructor's own included
            processes = _tasks_of(os.getuid()) + self.limits.processes
        else:
            processes = self.limits.processes
        command = [self.bwrap, *self._bwrap_args(ipc_dir, support), "--",
                   python_argv[0], "-I", "-S", "-c", _LAUNCHER,
                   str(uid), str(self.limits.memory), str(processes), str(self.limits.file_size), SANDBOX_WORK,
                   str(ipc_dir / "kernel.json"), "--", *python_argv]
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.STDOUT,
            env=_sandbox_env(python_argv[0]), start_new_session=True,
        )

    def _bwrap_args(self, ipc_dir: Path, support: list[Path]) -> list[str]:
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
        args += ["--bind", str(ipc_dir), str(ipc_dir), "--chdir", SANDBOX_WORK]
        return args


def _unshare() -> list[str]:
    # As root, no user namespace: the kernel then drops to the real uid
    # 65534 (which a user namespace mapping only root could not name).
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


def _tasks_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


_PROBED: dict[str, str] = {}


def _probe(bwrap: str) -> str:
    """'' when bwrap can start a confined process here, else why not (cached per binary)."""
    if bwrap not in _PROBED:
        args = [*_unshare(), "--die-with-parent"]
        for path in _system_paths():
            args += ["--ro-bind", path, path] if not os.path.islink(path) else ["--symlink", os.readlink(path), path]
        args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", "1048576", "--tmpfs", "/tmp",
                 "--", "/bin/sh", "-c", "exit 0"]
        try:
            done = subprocess.run([bwrap, *args], capture_output=True, timeout=30)
            _PROBED[bwrap] = "" if done.returncode == 0 else (done.stderr.decode(errors="replace").strip() or
                                                              f"exit code {done.returncode}")
        except (OSError, subprocess.TimeoutExpired) as error:
            _PROBED[bwrap] = str(error)
    return _PROBED[bwrap]


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
