"""The grader against a class of students who cheat or do harm, graded once with its command line.

The class is `tests/hostile/attacks.py`: hostile submissions (ten families, see `FAMILIES`
there) next to honest ones, graded in one ``python -m memlib grade ... --sandbox bwrap -j 2``
run. Every test reads only what that command leaves behind (gradebook, feedback, summary,
exit code) and what it may not touch (files, processes, the disk), never the grader's
internals, so it holds for any correct grader. bubblewrap is required: without it these
tests fail, they never skip.

Written before the grader ran its checks in a checker process. Against that grader (the
class graded in 60-145 s with -j 2 on the 2-core build machine, shared with other jobs), 14
of these tests failed, each on a real score or a real harm (the attacks solve nothing, so
every point is a cheat); against the grader with the checker process, per-kernel uids,
sockets inside the sandbox and inert text, all of them pass. What failed then:

- family 1: getattr_patch 2/2 on fixture-add (fixture_checks.expect_equal made a no-op through
  pkgutil.resolve_name and setattr); exec_payload 2/2 and 3/3 (a base64 payload, exec()d through
  a name spelled at run time, makes memlib's failures_raise false and its display silent);
- family 2: gc_closure 2/2 and 3/3 (the check held in graded()'s closure cell swapped for a
  no-op); gc_code 2/2 and 3/3 (the checks' __wrapped__.__code__ swapped), neither flagged;
- family 3: frame_walk 2/2 and 3/3 (sys._getframe up into the wrapper, its globals edited);
  stack_walk 3/3 on fixture-words (inspect.stack up to check_words, its expect_equal replaced);
  case_editor 2/2 on 01-token-budget (the check's list of test cases rewritten in place);
- family 4: del_rearm 2/2 (a self-renewing __del__ re-applies the patch after the grader's
  reload); import_hook 2/2 (a sys.meta_path finder patches the module on every (re)import);
- family 5: lying_int 2/2 and 3/3; lying_objects 2/2, 3/3 and 1/1 (a str subclass, an object
  with a forged __class__, a list subclass, each equal to everything);
- family 6: shadow_module 2/2 and 3/3 (a fixture_checks/ package written into the working
  folder wins over the read-only check module); shadow_memlib 2/2 and 3/3 (a memlib/ package
  of no-op checks in the working folder, memlib dropped from the module cache: the check
  module's own import of memlib.course.checks finds it);
- family 7: forged_reply 2/2 and 3/3 (an execute_reply 'ok' sent on the kernel's own socket
  from a pre_run_cell hook); rewritten_reply 2/2 and 3/3 (the kernel's session.send replaced:
  error replies go out as 'ok', error outputs are dropped);
- family 8: private_helper 2/2 with no flag (the check module's _budget_variant);
  reference_hidden 2/2 with a ``note:`` only (reference_how_many_fit by a spelled-out name);
- honest students next to family 9: the fork bomb (about 230 sleepers as uid nobody) uses up
  the process limit that every sandboxed kernel shares, so the honest students whose kernels
  start while it holds (honest_hopper, honest_linus, honest_zoe: all of them in most runs, how
  many depends on the machine's load) get "grader error: the kernel exited while starting ...
  can't start new thread" or "Resource temporarily unavailable" (0 points);
- family 9, disk: the disk filler writes 2 GB into the kernel's socket folder, which is on
  the grader's own disk (free space dropped by about 2.1 GB; the grader removes it at the end);
- family 10: ESC, BEL, BS and DEL from the file name and the exception message reach the
  gradebook, the feedback and the summary raw; fence_breaker's output closes the feedback's
  code fence and forges a "passed" heading, a feedback header and raw HTML;
- a (honest_moved): answers moved into new cells score 0 (with a review flag);
- b (sec1/alice, sec2/alice): both are "alice" in the gradebook and share one feedback file;
- c (TMPDIR=$(mktemp -d) as root): no kernel starts (PermissionError), every row is a grader error.

These passed then too: families 9 and 10 score nothing; names and reasons starting with = + - @
are quoted; no process of the class survives the grader; the release, the submissions, a
decoy folder and the checkout's memlib/ are unchanged; plain_private_helper (the import in
plain sight) is flagged for review.

The fork bomb used up uid nobody's process limit for every sandbox on the machine; with a uid
per kernel it uses up only its own. The module is one xdist group so its own tests never overlap;
pytest-xdist 3.8 still ran two of them on a second worker, which graded the class again, so every
test process marks its attacks' processes with its own pid (attacks.MARKER).
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from memlib.course import sandbox

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_SOLUTIONS = ROOT / "tests" / "fixtures" / "course" / "solutions"
# The class is built by one module; loaded by path, so no folder joins sys.path.
_spec = importlib.util.spec_from_file_location("hostile_attacks", ROOT / "tests" / "hostile" / "attacks.py")
attacks = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = attacks  # its dataclasses look their module up
_spec.loader.exec_module(attacks)

# one worker with tests/test_grade_isolation.py: both grade a disk filler and measure the host's free space
pytestmark = [pytest.mark.grading, pytest.mark.slow, pytest.mark.xdist_group("disk-fillers")]

#: Students whose letters and digits do not start their name (files named as formulas or escapes).
KEY_OVERRIDES = (("escapes", "escapes"), ("=HYPERLINK", "hyperlink"), ("-2+3", "23"), ("@mention", "mention"))
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: The disk filler writes 2 GB wherever it can; the grader and the class may hold far less of the host's disk.
DISK_HELD_LIMIT = 1 << 30
#: Where the grader's scratch and the kernels' socket folders go when TMPDIR is not set.
GRADER_TMP = Path("/tmp")


def _key(text: str) -> str:
    """A name reduced to its lower-case letters and digits: how a row is matched to a student."""
    return re.sub(r"[^a-z0-9]", "", text.lower().removesuffix(".ipynb").lstrip("'"))


def _student_key(name: str) -> str:
    for prefix, key in KEY_OVERRIDES:
        if name.startswith(prefix):
            return key
    return _key(name)


def _tree_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file() or path.is_symlink():
            continue
        digest.update(str(path.relative_to(folder)).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _marked_processes() -> dict[int, str]:
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if attacks.MARKER.encode() in cmdline:
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")[:200]
    return found


def _marked_files(root: Path, depth: int = 2) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        if len(Path(folder).relative_to(root).parts) >= depth:
            dirs[:] = []
        found += [Path(folder) / name for name in files if attacks.MARKER in name]
    return found


class _DiskWatch:
    """The most bytes the grader and its class held on the host's disk at once while the grader ran.

    Counted: every file under `out` and under each folder of `tmp` named memlib-* that appeared
    after the watch began (the grader's scratch and its kernels' socket folders), and every file
    under `tmp` owned by a kernel's uid (a kernel that reached the host's /tmp). Not the disk's
    free space: other test workers write to the same disk at the same time (a wheel, a site, a
    browser profile), and one CI run lost 1.1 GB of free space to them while this class was graded.
    """

    def __init__(self, tmp: Path, out: Path) -> None:
        self.tmp, self.out = tmp, out
        self._before = {entry.name for entry in tmp.iterdir()}
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def held(self) -> int:
        total = _bytes_under(self.out)
        for entry in self.tmp.iterdir():
            if entry.name.startswith("memlib-") and entry.name not in self._before:
                total += _bytes_under(entry)
        return total + _bytes_under(self.tmp, depth=3, owners=sandbox.KERNEL_UIDS)

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            self.most = max(self.most, self.held())

    def __enter__(self) -> "_DiskWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.most = max(self.most, self.held())


def _bytes_under(root: Path, depth: int = 50, owners: range | None = None) -> int:
    """Bytes on disk of the files under `root` (of the given owners only, when named); vanished files count 0."""
    total = 0
    for folder, dirs, files in os.walk(root):
        if len(Path(folder).relative_to(root).parts) >= depth:
            dirs[:] = []
        for name in files:
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if owners is None or info.st_uid in owners:
                total += info.st_blocks * 512
    return total


@dataclass
class Graded:
    """What one grader run left behind, and what it may not have touched."""

    returncode: int
    seconds: float
    rows: list[dict[str, str]]
    gradebook: str
    feedback: dict[str, str]
    summary: str
    stderr: str
    survivors: dict[int, str] = field(default_factory=dict)
    hashes_before: dict[str, str] = field(default_factory=dict)
    hashes_after: dict[str, str] = field(default_factory=dict)
    disk_held: int = 0
    leftovers: list[Path] = field(default_factory=list)

    def rows_of(self, name: str) -> list[dict[str, str]]:
        """The rows of one student (matched by letters and digits; the longest key that fits wins)."""
        keys = sorted({_student_key(s.name) for s in attacks.STUDENTS}, key=len, reverse=True)
        wanted = _student_key(name)
        return [row for row in self.rows
                if next((k for k in keys if _key(row["student"]).startswith(k)), None) == wanted]

    def feedback_of(self, name: str) -> list[str]:
        wanted = _student_key(name)
        return [text for file, text in self.feedback.items() if _key(Path(file).stem).startswith(wanted)]


def _release(tmp: Path) -> Path:
    """The fixture released with the course's command, its check module beside it, and notebook 01."""
    source = tmp / "solutions"
    shutil.copytree(FIXTURE_SOLUTIONS, source)
    release = tmp / "release"
    subprocess.run([sys.executable, "-m", "memlib", "release", str(source), str(release)],
                   check=True, capture_output=True, cwd=tmp)
    shutil.copy2(FIXTURE_SOLUTIONS / "fixture_checks.py", release / "fixture_checks.py")
    shutil.copy2(ROOT / "notebooks" / attacks.REAL, release / attacks.REAL)
    return release


def _grade(submissions: list[Path], release: Path, out: Path,
           env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    command = [sys.executable, "-m", "memlib", "grade", *map(str, submissions), "--release", str(release),
               "--out", str(out / "grades.csv"), "--feedback", str(out / "feedback"), "--sandbox", "bwrap",
               "-j", "2", "--timeout", "180", "--cell-timeout", "60", "--quiet"]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, cwd=out.parent, env=env, timeout=900)
    return done, time.monotonic() - started


def _read(done: subprocess.CompletedProcess, seconds: float, out: Path) -> Graded:
    gradebook = (out / "grades.csv").read_text(encoding="utf-8") if (out / "grades.csv").exists() else ""
    feedback_dir = out / "feedback"
    feedback = ({p.name: p.read_text(encoding="utf-8", errors="replace") for p in sorted(feedback_dir.iterdir())}
                if feedback_dir.is_dir() else {})
    return Graded(done.returncode, seconds, list(csv.DictReader(io.StringIO(gradebook))), gradebook, feedback,
                  done.stdout.decode("utf-8", errors="replace"), done.stderr.decode("utf-8", errors="replace"))


def _require_bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing: apt-get install bubblewrap (the red-team class needs the sandbox)")


@pytest.fixture(scope="module")
def red_team(tmp_path_factory) -> dict[str, Path]:
    """The red-team class: the fixture's release, the attackers' submissions and a decoy folder beside them."""
    _require_bwrap()
    tmp = tmp_path_factory.mktemp("redteam")
    release = _release(tmp)
    submissions = attacks.build_class(release, tmp / "submissions")
    decoy = tmp / "decoy"
    decoy.mkdir()
    (decoy / "grades-of-last-year.csv").write_text("student,points\nada,8\n", encoding="utf-8")
    return {"tmp": tmp, "release": release, "submissions_dir": tmp / "submissions", "decoy": decoy,
            "submissions": submissions}


@pytest.fixture(scope="module")
def graded(red_team) -> Iterator[Graded]:
    """The whole class, graded once."""
    watched = {"release": red_team["release"], "submissions": red_team["submissions_dir"], "decoy": red_team["decoy"],
               "memlib": ROOT / "memlib"}
    before = {name: _tree_hash(path) for name, path in watched.items()}
    env = {k: v for k, v in os.environ.items() if k != "TMPDIR"}  # the grader's TMPDIR has its own test
    out = red_team["tmp"] / "out"
    out.mkdir()
    with _DiskWatch(GRADER_TMP, out) as disk:
        done, seconds = _grade(red_team["submissions"], red_team["release"], out, env)
    result = _read(done, seconds, out)
    # at once: a grader that has returned has nothing left running (no grace for a teardown under way:
    # on a loaded CI machine 245 of the fork bomb's processes once outlived a 3-second grace)
    result.survivors = _marked_processes()
    result.hashes_before = before
    result.hashes_after = {name: _tree_hash(path) for name, path in watched.items()}
    result.disk_held = disk.most
    result.leftovers = _marked_files(GRADER_TMP) + _marked_files(red_team["tmp"])
    print(f"red-team class graded in {seconds:.1f} s (exit {done.returncode}); the grader and the class held "
          f"at most {result.disk_held >> 20} MB of the host's disk")
    yield result
    for pid in _marked_processes():  # started by this class: end them, by id
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _meets(row: dict[str, str], expected: str) -> bool:
    points, most = float(row["points"] or 0), float(row["max_points"] or 0)
    if expected == attacks.FULL:
        return points == most > 0 and row["status"] == "passed"
    if expected == attacks.ZERO:
        return points == 0
    if expected == attacks.ZERO_OR_REVIEW:
        return points == 0 or "review:" in row["reason"]
    raise AssertionError(f"unknown expectation {expected!r}")


def _wrong_rows(graded: Graded, names: list[str]) -> list[str]:
    """Every expectation of `names` that the gradebook does not meet, with the row as evidence."""
    wrong = []
    for name in names:
        rows = graded.rows_of(name)
        for grade_id, expected in attacks.EXPECTED[name].items():
            found = [r for r in rows if r["grade_id"] == grade_id]
            if len(found) != 1:
                wrong.append(f"{name!r} {grade_id}: {len(found)} rows, expected one ({expected})")
            elif not _meets(found[0], expected):
                row = found[0]
                wrong.append(f"{name!r} {grade_id}: {row['points']}/{row['max_points']} {row['status']} "
                             f"{row['reason'][:160]!r}, expected {expected}")
    return wrong


def _students(*families: str) -> list[str]:
    return [name for name, family in attacks.FAMILIES.items() if family in families]


FAMILY_IDS = {
    "1": "names built at run time", "2": "closure cells and code objects through gc",
    "3": "frames of the running check", "4": "patches re-armed after clean-up or re-import",
    "5": "answers lying about themselves", "6": "check module shadowed in the working folder",
    "7": "forged execute_reply", "8": "check module's private helper or reference (0 or review)",
    "9": "fork bomb and disk filler score nothing", "10": "escapes, formulas and fences score nothing",
}


@pytest.mark.parametrize("family", list(FAMILY_IDS), ids=[f"{k}-{v}" for k, v in FAMILY_IDS.items()])
def test_each_attack_scores_nothing(graded, family):
    wrong = _wrong_rows(graded, _students(family))
    assert not wrong, "attacks that score:\n" + "\n".join(wrong)


def test_honest_students_keep_their_points_next_to_the_attacks(graded):
    # honest_grace is graded beside the disk filler, honest_hopper/linus/zoe while the fork bomb holds;
    # honest_moved deleted the exercise cells and answered in cells of their own (family a)
    wrong = _wrong_rows(graded, _students("honest", "a"))
    assert not wrong, "honest students who lost points:\n" + "\n".join(wrong)


def test_the_disk_filler_cannot_fill_the_graders_disk(graded):
    assert graded.disk_held < DISK_HELD_LIMIT, (
        f"the grader and its class held {graded.disk_held >> 20} MB of the host's disk at once")
    assert not graded.leftovers, f"the class's files outlived the grader: {graded.leftovers[:5]}"


def test_no_process_of_the_class_survives_the_grader(graded):
    examples = [f"{graded.survivors[pid][:60]!r} ({_whose(pid)})" for pid in list(graded.survivors)[:3]]
    assert not graded.survivors, f"{len(graded.survivors)} processes survive, e.g. {examples}"


def _whose(pid: int) -> str:
    """A surviving process's ids and PID namespace, to tell where it escaped from."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        ids = "; ".join(" ".join(line.split()) for line in status.splitlines()
                        if line.startswith(("State", "PPid", "Uid", "NSpid")))
        return f"{ids}; pid namespace {os.readlink(f'/proc/{pid}/ns/pid')}, ours {os.readlink('/proc/self/ns/pid')}"
    except OSError as error:
        return str(error)


def test_nothing_outside_the_graders_output_changes(graded):
    changed = [name for name in graded.hashes_before if graded.hashes_before[name] != graded.hashes_after[name]]
    assert not changed, f"changed by grading: {changed}"


def _control_characters(text: str) -> list[str]:
    text = text.replace("\r\n", "\n")  # the CSV's own line ends
    return sorted({repr(c) for c in text if (ord(c) < 0x20 and c not in "\n\t") or c == "\x7f"})


def test_gradebook_feedback_and_summary_hold_no_control_characters(graded):
    places = {"gradebook": graded.gradebook, "summary": graded.summary,
              **{f"feedback {name!r}": text for name, text in graded.feedback.items()}}
    places.update({f"feedback file name {name!r}": name for name in graded.feedback})
    found = {place: chars for place, text in places.items() if (chars := _control_characters(text))}
    assert not found, f"raw control characters: {found}"


def test_no_gradebook_cell_reads_as_a_formula(graded):
    cells = [(row["student"], column, value) for row in graded.rows for column, value in row.items()
             if value and value.startswith(FORMULA_START)]
    assert graded.rows and not cells, f"cells a spreadsheet would run: {cells[:5]}"


def _markdown_problems(text: str) -> list[str]:
    from markdown_it import MarkdownIt

    problems = []
    tokens = MarkdownIt("commonmark").parse(text)
    for index, token in enumerate(tokens):
        if token.type in ("html_block", "html_inline") or any(c.type == "html_inline" for c in token.children or []):
            problems.append(f"raw HTML: {token.content[:80]!r}")
        if token.type == "heading_open":
            heading = tokens[index + 1].content
            if "someone else" in heading or re.search(r"fixture-\w+: passed", heading):
                problems.append(f"forged heading: {heading[:80]!r}")
    return problems


def test_feedback_cannot_be_forged_by_the_students_output(graded):
    texts = graded.feedback_of("fence_breaker")
    assert texts, f"no feedback file for fence_breaker in {sorted(graded.feedback)}"
    problems = [p for text in texts for p in _markdown_problems(text)]
    assert not problems, "the student's output broke out of its code block:\n" + "\n".join(problems[:8])


def test_two_students_of_the_same_name_in_two_sections_stay_apart(graded):
    rows = [row for row in graded.rows if "alice" in row["student"].lower()]
    names = sorted({row["student"] for row in rows})
    assert len(names) == 2, f"the two alices are graded as {names}: one row cannot say which is which"
    sec1 = [n for n in names if "sec1" in n]
    sec2 = [n for n in names if "sec2" in n]
    assert len(sec1) == 1 and len(sec2) == 1, f"rows {names} do not say which section each alice is in"
    for name, student in (("sec1/alice", sec1[0]), ("sec2/alice", sec2[0])):
        for grade_id, expected in attacks.EXPECTED[name].items():
            found = [r for r in rows if r["student"] == student and r["grade_id"] == grade_id]
            assert len(found) == 1 and _meets(found[0], expected), f"{name} {grade_id}: {found}, expected {expected}"
    files = [name for name in graded.feedback if "alice" in name]
    assert len(files) == 2, f"feedback files of the two alices: {files}"


def test_grading_as_root_with_a_private_tmpdir(red_team):
    if os.geteuid() != 0:
        pytest.skip("the kernel drops to nobody only when the grader runs as root; not root here")
    _require_bwrap()
    honest = [path for path in red_team["submissions"] if path.name == "honest_ada"]
    private_tmp = Path(tempfile.mkdtemp(prefix="redteam-tmpdir-"))  # mode 0700, like $(mktemp -d)
    out = red_team["tmp"] / "out-tmpdir"
    out.mkdir()
    try:
        env = {**os.environ, "TMPDIR": str(private_tmp)}
        done, _ = _grade(honest, red_team["release"], out, env)
        result = _read(done, 0.0, out)
        left = sorted(p.name for p in private_tmp.iterdir())
    finally:
        shutil.rmtree(private_tmp, ignore_errors=True)
    wrong = _wrong_rows(result, ["honest_ada"])
    assert done.returncode == 0 and not wrong, (
        f"exit {done.returncode}; " + "; ".join(wrong) + f"\n{result.summary[-600:]}")
    assert not left, f"the grader left {left} in its TMPDIR"
