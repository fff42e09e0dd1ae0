"""Kernels that cannot hurt each other or the machine (memlib.course.sandbox, real bubblewrap).

A class graded with -j 2 holds a fork bomb and a disk filler next to two honest
students: the honest ones keep full points (each kernel has a uid of its own,
so the bomb's process limit is its own), and no host file system grows by more
than a few MB (no host folder is writable from a sandbox; the sockets are in
the kernel's private /tmp). Grading also works when TMPDIR is a folder only
root can enter, and no process inside a sandbox shows a host path of the
grader's in its command line. The uid units check that kernels of two graders
on one machine never share a uid. The uid tests need root (CI runs as root).
"""

from __future__ import annotations

import ast
import csv
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from pg_server import skip_or_fail

from memlib.course import grade as grading
from memlib.course import sandbox as sandboxing
from memlib.course.release import release

# one worker with tests/test_grade_redteam.py: both grade a disk filler and measure the host's free space
pytestmark = [pytest.mark.grading, pytest.mark.xdist_group("disk-fillers")]

FIXTURES = Path(__file__).parent / "fixtures" / "course"
SOLUTIONS = FIXTURES / "solutions"
NAME = "01_fixture.ipynb"
ROOT = Path(__file__).resolve().parents[1]

FORK_BOMB = '''import os, time
children, stopped, until = 0, "", time.monotonic() + 25
while time.monotonic() < until:  # for 25 s, take every process slot that frees up
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
    except OSError as error:
        stopped = stopped or f"FORK STOPPED {error}"  # and at once again: a slot is taken as it frees
print(stopped)
print("FORKED", children)


def add(a, b):
    return a + b
'''

DISK_FILLER = '''import os
written = {}
places = ["/tmp", "/tmp/work", "/tmp/kernel-ipc", os.path.expanduser("~"), "/dev/shm", "/var/tmp", "/run"]
for folder, dirs, _ in os.walk("/"):
    # three levels down, past what the system's and Python's read-only folders hold
    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev", "/usr")
               and folder.count("/") < 3]
    if os.access(folder, os.W_OK) and folder not in places:
        places.append(folder)
for place in places:
    written[place] = 0
    try:
        for i in range(32):
            with open(os.path.join(place, f"fill-{i}"), "wb") as handle:
                for _ in range(64):
                    handle.write(b"x" * 2**20)
                    written[place] += 1
    except OSError:
        pass
print("WROTE MB", written)
mounts = {}  # mount point -> file system type, as this kernel sees them
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    mounts[fields[4]] = fields[fields.index("-") + 1]
on = {p: max((m for m in mounts if p == m or p.startswith(m.rstrip("/") + "/")), key=len) for p in written}
print("ON", {p: (m, mounts[m]) for p, m in on.items()})
print("UID", os.getuid())


def add(a, b):
    return a + b
'''

SHOW = '''import os
print("UID", os.getuid())
lines = {}
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            lines[pid] = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            pass
print("CMDLINES", repr(lines))
'''


def _require_root_and_bwrap() -> None:
    try:
        sandboxing.resolve("bwrap")
    except sandboxing.SandboxError as error:
        pytest.fail(f"these tests need the bubblewrap sandbox: {error}")
    if os.geteuid() != 0:
        skip_or_fail("kernels get uids of their own only when the grader runs as root")


def _course(root: Path) -> dict[str, Path]:
    released = root / "released"
    release(SOLUTIONS, released)
    grading_release = root / "release"
    grading_release.mkdir()
    shutil.copy(released / NAME, grading_release / NAME)
    shutil.copy(SOLUTIONS / "fixture_checks.py", grading_release / "fixture_checks.py")
    return {"released": released, "release": grading_release}


def _notebook(course: dict[str, Path], add_source: str | None = None, extra: str = "") -> nbformat.NotebookNode:
    """The solved fixture notebook; `add_source` replaces the add exercise, `extra` is a cell before it."""
    nb = nbformat.read(str(course["released"] / NAME), as_version=4)
    solution = {c.id: c.source for c in nbformat.read(str(SOLUTIONS / NAME), as_version=4).cells}
    for cell in nb.cells:
        if "NotImplementedError" in cell.source:
            cell.source = solution[cell.id]
    at = next(i for i, c in enumerate(nb.cells) if c.source.startswith("def add"))
    if add_source is not None:
        nb.cells[at].source = add_source
    if extra:
        nb.cells.insert(at, nbformat.v4.new_code_cell(extra))
    return nb


def _hand_in(folder: Path, nb: nbformat.NotebookNode) -> Path:
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / NAME))
    return folder


def _rows(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {(r["student"], r["grade_id"]): (r["points"], r["status"]) for r in csv.DictReader(handle)}


def _outputs(work: Path, student: str) -> str:
    texts = []
    for executed in sorted(work.glob(f"{student}-*/*/executed.ipynb")):
        for cell in json.loads(executed.read_text(encoding="utf-8"))["cells"]:
            texts += [o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"]
    return "".join(texts)


def _owned_by(uids: set[int], folders: list[str]) -> list[str]:
    """Files and folders under `folders` (host side) owned by one of `uids`."""
    found = []
    for top in folders:
        for folder, dirs, files in os.walk(top, onerror=lambda error: None):
            for name in dirs + files:
                try:
                    if os.lstat(os.path.join(folder, name)).st_uid in uids:
                        found.append(os.path.join(folder, name))
                except OSError:
                    continue
    return found


@pytest.fixture(scope="module")
def rough_class(tmp_path_factory) -> dict:
    _require_root_and_bwrap()
    root = tmp_path_factory.mktemp("isolation")
    course = _course(root)
    sub = root / "submissions"
    # in this order with -j 2: the bomb has taken every process slot it can (in a second or two)
    # by the time the filler is done and the honest students' kernels start
    students = [
        _hand_in(sub / "bomb", _notebook(course, FORK_BOMB, extra=SHOW)),
        _hand_in(sub / "filler", _notebook(course, DISK_FILLER)),
        _hand_in(sub / "honest_1", _notebook(course, extra=SHOW)),
        _hand_in(sub / "honest_2", _notebook(course, extra=SHOW)),
    ]
    work, out = root / "work", root / "grades.csv"
    code = grading.main([*map(str, students), "--release", str(course["release"]), "--out", str(out),
                         "--keep-work", str(work), "--sandbox", "bwrap", "-j", "2", "--cell-timeout", "90",
                         "--timeout", "180", "--quiet"])
    return {"root": root, "course": course, "code": code, "rows": _rows(out), "work": work, "submissions": sub}


@pytest.mark.slow
def test_honest_students_keep_full_points_next_to_a_fork_bomb_and_a_disk_filler(rough_class) -> None:
    assert rough_class["code"] == 0
    rows = rough_class["rows"]
    for student in ("honest_1", "honest_2"):
        assert rows[(student, "fixture-add")] == ("2", "passed") and rows[(student, "fixture-words")] == ("3", "passed")
    bomb = _outputs(rough_class["work"], "bomb")
    assert "FORK STOPPED" in bomb and 100 < int(bomb.split("FORKED ")[1].split()[0]) < 256  # its own limit stopped it
    assert "WROTE MB" in _outputs(rough_class["work"], "filler")


@pytest.mark.slow
def test_no_host_file_system_grows_while_a_kernel_fills_every_place_it_can(rough_class) -> None:
    out = _outputs(rough_class["work"], "filler")
    wrote = ast.literal_eval(out.split("WROTE MB ")[1].splitlines()[0])  # dict literals the kernel printed
    on = ast.literal_eval(out.split("ON ")[1].splitlines()[0])
    limits = sandboxing.Limits()
    assert limits.tmp_size // 2**20 - 2 <= sum(wrote.values()) <= limits.tmp_size // 2**20  # it filled its /tmp
    # every place it could write to is its own size-limited /tmp: no host folder is writable
    assert all(on[place] == ("/tmp", "tmpfs") for place, mb in wrote.items() if mb), (wrote, on)
    assert wrote["/tmp/kernel-ipc"] == 0  # its socket folder was taken from it before its code ran
    # and on the host, no file belongs to its uid (every place a writable bind could come from)
    uid = int(out.split("UID ")[1].split()[0])
    places = [tempfile.gettempdir(), "/tmp", "/var/tmp", "/run", "/dev/shm", str(rough_class["root"]), str(ROOT)]
    assert _owned_by({uid}, [p for p in dict.fromkeys(places) if os.path.isdir(p)]) == []


@pytest.mark.slow
def test_each_kernel_runs_as_a_uid_of_its_own(rough_class) -> None:
    uids = {s: int(_outputs(rough_class["work"], s).split("UID ")[1].split()[0]) for s in ("bomb", "honest_1", "honest_2")}
    assert all(uid in sandboxing.KERNEL_UIDS for uid in uids.values()), uids
    assert uids["bomb"] not in (uids["honest_1"], uids["honest_2"])  # they ran at the same time
    for uid in uids.values():
        with pytest.raises(KeyError):
            pwd.getpwuid(uid)


@pytest.mark.slow
def test_no_host_path_in_any_command_line_inside_the_sandbox(rough_class) -> None:
    out = _outputs(rough_class["work"], "honest_1")
    lines = ast.literal_eval(out.split("CMDLINES ")[1].splitlines()[0])  # a dict literal: pid -> command line
    assert lines["1"].split("\0")[:2] == [sandboxing.shutil.which("bwrap") or "/usr/bin/bwrap", "--args"]
    secret = [str(rough_class["root"]), str(rough_class["submissions"]), str(rough_class["course"]["release"]),
              tempfile.gettempdir() if tempfile.gettempdir() != "/tmp" else "/tmp/memlib-", str(ROOT / "tests")]
    for pid, line in lines.items():
        assert not any(path in line for path in secret), (pid, line)


@pytest.mark.slow
def test_grading_works_when_tmpdir_is_a_folder_only_root_enters(tmp_path: Path) -> None:
    _require_root_and_bwrap()
    course = _course(tmp_path)
    student = _hand_in(tmp_path / "submissions" / "honest", _notebook(course))
    private = Path(tempfile.mkdtemp(dir=tmp_path))  # mode 0700, owned by root: like TMPDIR=$(mktemp -d)
    assert os.stat(private).st_mode & 0o777 == 0o700
    out = tmp_path / "grades.csv"
    done = subprocess.run([sys.executable, "-m", "memlib", "grade", str(student), "--release", str(course["release"]),
                           "--out", str(out), "--sandbox", "bwrap", "--quiet", "--cell-timeout", "60"],
                          env=dict(os.environ, TMPDIR=str(private)), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _rows(out) == {("honest", "fixture-add"): ("2", "passed"), ("honest", "fixture-words"): ("3", "passed")}
    assert list(private.iterdir()) == []  # nothing left behind in it either


# --------------------------------------------------------------------------- the uid claim


def test_two_claims_get_two_uids_and_a_released_uid_is_free_again() -> None:
    _require_root_and_bwrap()
    first, first_lock = sandboxing._claim_uid()
    second, second_lock = sandboxing._claim_uid()
    try:
        assert first != second and {first, second} <= set(sandboxing.KERNEL_UIDS)
    finally:
        sandboxing._release(second_lock)
    again, again_lock = sandboxing._claim_uid()
    sandboxing._release(again_lock)
    sandboxing._release(first_lock)
    assert again == second


def test_another_grader_holding_a_uid_is_never_given_it(tmp_path: Path) -> None:
    """A second grader on the machine: a separate process that holds the lock of the first free uid."""
    _require_root_and_bwrap()
    probe, probe_lock = sandboxing._claim_uid()
    sandboxing._release(probe_lock)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         f"fd = os.open({os.path.join(sandboxing.UID_LOCKS, str(probe))!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        uid, lock = sandboxing._claim_uid()
        sandboxing._release(lock)
        assert uid != probe
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_folder_others_can_write_is_refused(tmp_path: Path, monkeypatch) -> None:
    _require_root_and_bwrap()
    shared = tmp_path / "locks"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    monkeypatch.setattr(sandboxing, "UID_LOCKS", str(shared))
    with pytest.raises(sandboxing.SandboxError, match="is not a folder only root can write: remove it"):
        sandboxing._claim_uid()


def test_a_sandbox_that_cannot_start_says_why() -> None:
    _require_root_and_bwrap()
    assert "Unknown option --no-such-option" in sandboxing._try_sandbox(["/usr/bin/bwrap", "--no-such-option"])
    assert sandboxing._try_sandbox(["/nonexistent/bwrap"]).startswith("[Errno 2]")
