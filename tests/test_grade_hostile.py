"""Hostile submissions against the grader (issue 12), graded for real in the bubblewrap sandbox.

One class of students is built from the fixture assignment: honest ones
(complete, blank, a solution cell that carries the graded cell's id) and one
student per attack. It is graded once by ``python -m memlib grade --sandbox
bwrap`` in a subprocess, with a victim process and decoy files around it, and
every test below asserts one attack's row, that the honest rows are as they
should be, that nothing from the class outlives the grader, and that nothing
outside the grader's work and output folders changed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from conftest import FIXTURE_COURSE, FIXTURE_NOTEBOOK, ROOT, blank, solved
from conftest import write_notebook as _write
from memlib.course import sandbox as sandboxing
from memlib.course.grade import Row, load_release, restore_graded_cells
from memlib.course.grading.collect import _collect, _Submission
from memlib.course.release import release

pytestmark = pytest.mark.grading

SOLUTIONS = FIXTURE_COURSE
FIXTURES = FIXTURE_COURSE.parent
REPO = ROOT
NAME = FIXTURE_NOTEBOOK
MARKER = "memlib-hostile-b7e2"  # in the command line of every process an attack starts
SECRET = "MEMLIB_HOSTILE_SECRET"
NOT_SOLVED_1 = "not solved yet: Exercise 1: return the sum of a and b"
NOT_SOLVED_2 = "not solved yet: Exercise 2: count the words of text (split on whitespace)"
HYPERLINK = '=HYPERLINK("http:evil","x")'


# --------------------------------------------------------------------------- the class


def _blank(released: Path) -> nbformat.NotebookNode:
    return blank(released)


def _solved(released: Path) -> nbformat.NotebookNode:
    return solved(released)


def _at(nb, startswith: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.source.startswith(startswith))


def _with_cell(nb, source: str, before: str = "def add") -> nbformat.NotebookNode:
    nb.cells.insert(_at(nb, before), nbformat.v4.new_code_cell(source))
    return nb


# Seven patches of the checking machinery from a cell of the student's own, each
# written so that, in the kernel it runs in, the unsolved exercises "pass".
PATCHES = {
    "patch_sys_modules": (
        "import sys, types\nimport memlib.course.checks as kit\n"
        "kit.ensure_unpatched = lambda *names: None\n"
        "fake = types.ModuleType('fixture_checks')\n"
        "fake.check_add = fake.check_words = lambda answer: print('PASS')\n"
        "sys.modules['fixture_checks'] = fake"
    ),
    "patch_importlib_reload": (
        "import importlib, fixture_checks\nimportlib.reload = lambda module: module\n"
        "fixture_checks.check_add = fixture_checks.check_words = lambda answer: None"
    ),
    "patch_wrapped_code": (
        "import fixture_checks\n"
        "fixture_checks.check_add.__wrapped__.__code__ = (lambda add: None).__code__\n"
        "fixture_checks.check_words.__wrapped__.__code__ = (lambda counter_class: None).__code__"
    ),
    "patch_builtins_import": (
        "import builtins, types\nreal_import = builtins.__import__\n"
        "fake = types.SimpleNamespace(check_add=lambda a: None, check_words=lambda c: None)\n"
        "def sneaky(name, *args, **kwargs):\n"
        "    return fake if name == 'fixture_checks' else real_import(name, *args, **kwargs)\n"
        "builtins.__import__ = sneaky"
    ),
    "patch_custom_exc": (
        "get_ipython().set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)"
    ),
    "patch_showtraceback": (
        "shell = get_ipython()\nshell.showtraceback = lambda *args, **kwargs: None\n"
        "shell._showtraceback = lambda *args, **kwargs: None"
    ),
    "patch_forged_module": (
        "import fixture_checks\ndef always(answer):\n    return None\n"
        "always.__module__ = 'fixture_checks'\nfixture_checks.check_add = fixture_checks.check_words = always"
    ),
    # not in the list: make the kernel's own reply say "ok" whatever happened
    "patch_forged_reply": (
        "shell = get_ipython()\nreal_async = shell.run_cell_async\n"
        "async def quiet(*args, **kwargs):\n"
        "    result = await real_async(*args, **kwargs)\n"
        "    result.error_in_exec = None\n"
        "    return result\n"
        "shell.run_cell_async = quiet\n"
        "shell.showtraceback = lambda *args, **kwargs: None"
    ),
}


def _background_attack(paths: dict[str, Path]) -> str:
    """A detached process that keeps rewriting everything it can name, for a minute."""
    targets = [str(paths["out"]), str(paths["release"] / "*"), str(paths["submissions"] / "*" / "*.ipynb"),
               str(paths["work"] / "*" / "*" / "*.ipynb"), str(paths["feedback"] / "*.md"), str(paths["decoy"] / "*")]
    creates = [str(paths["release"] / "planted.py"), str(REPO / "tests" / "fixtures" / ".hostile-planted"),
               str(paths["decoy"] / "planted")]
    script = (
        "import glob, time\n"
        f"targets, creates = {targets!r}, {creates!r}\n"
        "end = time.time() + 60\n"
        "while time.time() < end:\n"
        "    for pattern in targets:\n"
        "        for path in glob.glob(pattern):\n"
        "            try:\n"
        "                open(path, 'a').write('pwned')\n"
        "            except OSError:\n"
        "                pass\n"
        "    for path in creates:\n"
        "        try:\n"
        "            open(path, 'w').write('pwned')\n"
        "        except OSError:\n"
        "            pass\n"
        "    time.sleep(0.2)\n"
    )
    return (
        "import subprocess, sys\n"
        f"script = {script!r}\n"
        f"subprocess.Popen([sys.executable, '-c', script, {MARKER!r}], start_new_session=True,\n"
        "                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print('BACKGROUND-STARTED')"
    )


def _forged_results() -> str:
    lines = [{"event": "cell", "grade_id": g, "grader_cell": False, "outcome": "passed", "xfail": False,
              "head": "", "kernel_died": False, "seconds": 0.1} for g in ("fixture-add", "fixture-words")]
    text = "".join(json.dumps(line) + "\n" for line in lines) + json.dumps({"event": "finished"}) + "\n"
    return (
        "import glob\n"
        f"text = {text!r}\n"
        "for path in ['01_fixture.results.jsonl', *glob.glob('*.jsonl'), *glob.glob('../*.jsonl')]:\n"
        "    try:\n"
        "        open(path, 'a').write(text)\n"
        "    except OSError as error:\n"
        "        print('FORGE-FAILED', path, type(error).__name__)"
    )


def _kill_request(victim: int) -> str:
    line = json.dumps({"event": "kernel", "pid": victim}) + "\n"
    return (
        "import glob, os, signal\n"
        f"for path in ['01_fixture.results.jsonl', *glob.glob('*.jsonl'), *glob.glob('../*.jsonl')]:\n"
        "    try:\n"
        f"        open(path, 'a').write({line!r})\n"
        "    except OSError:\n"
        "        pass\n"
        "try:\n"
        f"    os.kill({victim}, signal.SIGKILL)\n"
        "    print('KILL-SENT')\n"
        "except OSError as error:\n"
        "    print('KILL-FAILED', type(error).__name__)"
    )


FLOOD = (
    "import os, sys\n"
    "chunk = 'y' * 1_000_000\n"
    "for _ in range(40):\n"
    "    sys.stdout._stream.write(chunk)  # under the grader's capped stream\n"
    "    sys.__stdout__.write(chunk)  # the process's own stdout\n"
    "    os.write(1, chunk.encode())  # the file descriptor itself\n"
    "sys.stdout._stream.flush(); sys.__stdout__.flush()"
)


def _probes(solution_path: Path, release_dir: Path) -> list[str]:
    files = [str(solution_path), "/etc/passwd", "/etc/shadow", str(REPO / "README.md"), str(release_dir / NAME)]
    return [
        "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=3).close()\n    print('NET-OPEN')\n"
        "except OSError as error:\n    print('NET-BLOCKED', type(error).__name__)",
        f"for path in {files!r}:\n    try:\n        open(path).read(10)\n        print('READ', path)\n"
        "    except OSError as error:\n        print('NOREAD', path, type(error).__name__)",
        f"import os\nprint('SECRET-SEEN' if {SECRET!r} in os.environ else 'SECRET-HIDDEN')\n"
        "print('PIDS', len([p for p in os.listdir('/proc') if p.isdigit()]))\nprint('UID', os.getuid())\n"
        "print('STRICT', os.environ.get('MEMLIB_STRICT_CHECKS'))",
        "import resource\nfor name in ('RLIMIT_AS', 'RLIMIT_NPROC', 'RLIMIT_FSIZE'):\n"
        "    print('LIMIT', name, resource.getrlimit(getattr(resource, name))[0])",
        "import threading, time\nstarted, stop = 0, threading.Event()\ntry:\n    for _ in range(400):\n"
        "        threading.Thread(target=stop.wait, daemon=True).start()\n        started += 1\n"
        "except RuntimeError:\n    pass\nstop.set()\nprint('THREADS', started)",
    ]


def _build(paths: dict[str, Path], victim: int) -> None:
    released, sub = paths["released"], paths["submissions"]
    _write(sub / "complete", _solved(released))
    _write(sub / "blank", _blank(released))

    # an honest student whose solution cell carries the graded cell's id (and the check cell another)
    reused = _solved(released)
    add_at, check_at = _at(reused, "def add"), _at(reused, "from fixture_checks import check_add")
    reused.cells[add_at].id, reused.cells[check_at].id = reused.cells[check_at].id, "moved-check"
    _write(sub / "reused_id", reused)

    # an honest student who keeps a helper in a cell of its own, and tests their answer below the check
    helper = _solved(released)
    at = _at(helper, "def add")
    helper.cells[at].source = ('def add(a, b):\n    """Return a + b."""\n    ### EXERCISE 1: return the sum of a and b\n'
                               '    return plus(a, b)')
    helper.cells.insert(at, nbformat.v4.new_code_cell("def plus(a, b):\n    return a + b"))
    helper.cells.insert(_at(helper, "from fixture_checks import check_add") + 1,
                        nbformat.v4.new_code_cell("assert add(2, 3) == 5"))
    _write(sub / "helper_cell", helper)

    _write(sub / "forge_results", _with_cell(_blank(released), _forged_results()))
    _write(sub / "kill_request", _with_cell(_blank(released), _kill_request(victim)))
    _write(sub / "background", _with_cell(_blank(released), _background_attack(paths)))
    for name, source in PATCHES.items():
        _write(sub / name, _with_cell(_blank(released), source))
    # a patch inside a solved exercise cell: it reaches no check, and the answer is right anyway
    inside = _solved(released)
    at = _at(inside, "def add")
    inside.cells[at].source += "\n\n" + PATCHES["patch_wrapped_code"]
    _write(sub / "patch_in_exercise", inside)

    _write(sub / "flood", _with_cell(_solved(released), FLOOD))
    probes = _solved(released)
    for source in _probes(SOLUTIONS / NAME, paths["release"]):
        _with_cell(probes, source, before="## Exercise 1")
    _write(sub / "probes", probes)

    (sub / "link_solution").mkdir()
    (sub / "link_solution" / NAME).symlink_to(SOLUTIONS / NAME)
    (sub / "link_passwd").mkdir()
    (sub / "link_passwd" / NAME).symlink_to("/etc/passwd")
    (sub / "fifo").mkdir()
    os.mkfifo(sub / "fifo" / NAME)
    (sub / "toplink").symlink_to(SOLUTIONS)
    nbformat.write(_blank(released), str(sub / f"{HYPERLINK}.ipynb"))


def _hashes(folder: Path) -> dict[str, str]:
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_symlink() or not path.is_dir():
            found[str(path.relative_to(folder))] = "special"
    return found


def _marked_processes() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if MARKER in command and "pytest" not in command:
            found.append(f"{entry.name}: {command[:120]}")
    return found


def _children_of(pid: int) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(entry.name)
    return found


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict:
    try:
        sandboxing.resolve("bwrap")
    except sandboxing.SandboxError as error:
        pytest.fail(f"the hostile suite needs the bubblewrap sandbox: {error}")
    root = tmp_path_factory.mktemp("hostile")
    paths = {name: root / name for name in ("released", "release", "submissions", "work", "feedback", "decoy")}
    paths["out"] = root / "grades.csv"
    release(SOLUTIONS, paths["released"])
    paths["release"].mkdir()
    shutil.copy(paths["released"] / NAME, paths["release"] / NAME)
    shutil.copy(SOLUTIONS / "fixture_checks.py", paths["release"] / "fixture_checks.py")
    paths["decoy"].mkdir()
    (paths["decoy"] / "instructor-notes.txt").write_text("not for students\n")
    paths["submissions"].mkdir()
    victim = subprocess.Popen(["sleep", "600"])
    try:
        _build(paths, victim.pid)
        protected = {name: _hashes(paths[name]) for name in ("release", "submissions", "decoy")}
        protected["fixtures"] = _hashes(FIXTURES)
        protected["checkout-memlib"] = _hashes(REPO / "memlib")
        command = [sys.executable, "-c",
                   "import resource, sys\nfrom memlib.course.grade import main\ncode = main(sys.argv[1:])\n"
                   "print('MAXRSS-KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\nsys.exit(code)",
                   *sorted(str(p) for p in paths["submissions"].iterdir()),
                   "--release", str(paths["release"]), "--out", str(paths["out"]), "--feedback", str(paths["feedback"]),
                   "--keep-work", str(paths["work"]), "--sandbox", "bwrap", "-j", "2", "--cell-timeout", "30",
                   "--timeout", "120", "--quiet"]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                              env=dict(os.environ, **{SECRET: "hunter2"}))
        seconds = time.monotonic() - started
        gradebook = paths["out"].read_bytes() if paths["out"].exists() else b""
        time.sleep(3)  # a process that outlived grading would rewrite the gradebook now
        with paths["out"].open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        yield {
            "paths": paths, "done": done, "rows": rows, "seconds": seconds, "victim": victim,
            "victim_alive": victim.poll() is None, "protected": protected,
            "after": {name: _hashes(paths[name]) for name in ("release", "submissions", "decoy")}
                     | {"fixtures": _hashes(FIXTURES), "checkout-memlib": _hashes(REPO / "memlib")},
            "gradebook_before": gradebook, "gradebook_after": paths["out"].read_bytes(),
            "survivors": _marked_processes(), "children": _children_of(os.getpid()),
        }
    finally:
        victim.kill()
        victim.wait()
        (REPO / "tests" / "fixtures" / ".hostile-planted").unlink(missing_ok=True)


def _rows(hostile, student: str) -> list[tuple]:
    return [(r["grade_id"], r["points"], r["status"], r["reason"]) for r in hostile["rows"] if r["student"] == student]


def _like_blank(hostile, student: str) -> None:
    """The attack scored exactly what handing in the blank release scores (a review flag read from its
    source, naming what the attack hides, may come on top: the blank release has nothing to flag)."""
    assert [(*row[:3], _without_source_flags(row[3])) for row in _rows(hostile, student)] == _rows(hostile, "blank")


def _without_source_flags(reason: str) -> str:
    return "; ".join(part for part in reason.split("; ")
                     if not part.startswith("review: read from the notebook's source"))


def _outputs(hostile, student: str) -> str:
    (path,) = hostile["paths"]["work"].glob(f"{student}-*/as-handed-in/executed.ipynb")
    nb = json.loads(path.read_text())
    return "".join(o.get("text", "") for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))


# --------------------------------------------------------------------------- around every attack


@pytest.mark.slow
def test_the_grader_ran_and_honest_students_are_graded_as_usual(hostile) -> None:
    assert hostile["done"].returncode == 0, hostile["done"].stderr[-3000:]
    assert _rows(hostile, "complete") == [("fixture-add", "2", "passed", ""), ("fixture-words", "3", "passed", "")]
    assert _rows(hostile, "blank") == [("fixture-add", "0", "failed", NOT_SOLVED_1),
                                       ("fixture-words", "0", "failed", NOT_SOLVED_2)]
    print(f"hostile class graded in {hostile['seconds']:.1f} s")


@pytest.mark.slow
def test_nothing_outside_the_graders_folders_changed(hostile) -> None:
    assert hostile["after"] == hostile["protected"]
    assert not (REPO / "tests" / "fixtures" / ".hostile-planted").exists()
    assert hostile["gradebook_after"] == hostile["gradebook_before"]  # nothing rewrote it after the grader exited
    assert b"pwned" not in hostile["gradebook_after"]
    for path in hostile["paths"]["feedback"].glob("*.md"):
        assert "pwned" not in path.read_text()


@pytest.mark.slow
def test_no_process_from_the_class_survives_the_grader(hostile) -> None:
    assert "BACKGROUND-STARTED" in _outputs(hostile, "background")  # the attack did run
    assert hostile["survivors"] == []
    assert hostile["children"] == [str(hostile["victim"].pid)]  # only the victim this test started itself


# --------------------------------------------------------------------------- the attacks


@pytest.mark.slow
def test_a_forged_results_file_scores_nothing(hostile) -> None:
    assert _rows(hostile, "forge_results") == _rows(hostile, "blank")


@pytest.mark.slow
def test_a_kill_request_reaches_no_process(hostile) -> None:
    assert hostile["victim_alive"]
    assert "KILL-FAILED ProcessLookupError" in _outputs(hostile, "kill_request")  # not even visible
    _like_blank(hostile, "kill_request")


@pytest.mark.slow
def test_an_honest_helper_in_a_cell_of_its_own_keeps_its_points(hostile) -> None:
    assert _rows(hostile, "helper_cell") == _rows(hostile, "complete")


@pytest.mark.slow
def test_a_background_process_dies_with_its_kernel(hostile) -> None:
    _like_blank(hostile, "background")


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(PATCHES))
def test_a_patched_check_scores_nothing(hostile, student: str) -> None:
    # the checks run in the grader's checker process: a patch reaches only the kernel's copy
    _like_blank(hostile, student)


@pytest.mark.slow
def test_a_patch_inside_a_solved_exercise_cell_changes_nothing(hostile) -> None:
    rows = _rows(hostile, "patch_in_exercise")
    assert [(*row[:3], _without_source_flags(row[3])) for row in rows] == _rows(hostile, "complete")
    assert "review: read from the notebook's source: the notebook uses .__code__" in rows[0][3]  # and it is seen


@pytest.mark.slow
def test_symbolic_links_and_special_files_are_refused(hostile) -> None:
    for student, kind in (("link_solution", "a symbolic link"), ("link_passwd", "a symbolic link"),
                          ("fifo", "a named pipe")):
        reason = (f"no notebook for {NAME} in the submission (refused {NAME} ({kind}): only regular files are "
                  f"graded; no notebook found in {student}/)")
        assert _rows(hostile, student) == [("fixture-add", "0", "missing", reason),
                                           ("fixture-words", "0", "missing", reason)]
    reason = f"no notebook for {NAME} in the submission (refused toplink: a symbolic link)"
    assert _rows(hostile, "toplink") == [("fixture-add", "0", "missing", reason), ("fixture-words", "0", "missing", reason)]


@pytest.mark.slow
def test_a_formula_in_a_file_name_is_quoted_in_the_gradebook(hostile) -> None:
    rows = _rows(hostile, "'" + HYPERLINK)
    assert [r[:3] for r in rows] == [r[:3] for r in _rows(hostile, "blank")]
    assert rows[0][3].startswith(NOT_SOLVED_1 + f"; note: graded {HYPERLINK}.ipynb as {NAME}")
    text = hostile["gradebook_after"].decode()
    assert all(not line.startswith(("=", "+", "-", "@")) for line in text.splitlines())
    for row in csv.reader(text.splitlines()):
        assert all(not cell.startswith(("=", "+", "-", "@")) for cell in row)


@pytest.mark.slow
def test_output_written_around_the_cap_is_cut_by_the_grader(hostile) -> None:
    assert _rows(hostile, "flood") == _rows(hostile, "complete")
    flooded = _outputs(hostile, "flood")
    assert 0 < flooded.count("y") <= 1_000_000  # 120 MB written, at most the cap kept
    assert "[grader: output of this cell cut after 1,000,000 characters; " in flooded
    assert " characters dropped]" in flooded
    max_rss_mb = int(hostile["done"].stdout.split("MAXRSS-KB")[1].split()[0]) / 1024
    assert max_rss_mb < 600, f"the grader grew to {max_rss_mb:.0f} MB"
    assert (hostile["paths"]["feedback"] / "flood.md").stat().st_size < 50_000


@pytest.mark.slow
def test_an_honest_solution_with_the_graded_cells_id_keeps_its_points(hostile) -> None:
    assert _rows(hostile, "reused_id") == _rows(hostile, "complete")


@pytest.mark.slow
def test_inside_the_sandbox_the_kernel_sees_nothing_of_the_machine(hostile) -> None:
    out = _outputs(hostile, "probes")
    assert "NET-BLOCKED" in out and "NET-OPEN" not in out
    assert not any(line.startswith("READ ") for line in out.splitlines()) and out.count("NOREAD ") == 5
    assert "SECRET-HIDDEN" in out and "STRICT 1" in out  # only the grader's own variables
    assert int(out.split("PIDS ")[1].split()[0]) <= 5  # bwrap's init and the kernel
    uid = int(out.split("UID ")[1].split()[0])
    assert (uid in sandboxing.KERNEL_UIDS) if os.geteuid() == 0 else uid == os.getuid()  # never root
    limits = sandboxing.Limits()
    assert f"LIMIT RLIMIT_AS {limits.memory}" in out and f"LIMIT RLIMIT_FSIZE {limits.file_size}" in out
    assert int(out.split("THREADS ")[1].split()[0]) < 400
    # graded as the complete student; reading the limits by computed names (getattr) is flagged for review only
    assert [(*row[:3], _without_source_flags(row[3])) for row in _rows(hostile, "probes")] == _rows(hostile, "complete")


# --------------------------------------------------------------------------- quick units


def test_csv_cells_that_would_be_formulas_are_quoted() -> None:
    row = Row("=cmd|' /C calc'!A0", "01.ipynb", "g", 1, 2, "passed", "-2 points; note")
    cells = row.as_csv()
    assert cells["student"] == "'=cmd|' /C calc'!A0" and cells["reason"] == "'-2 points; note"
    assert cells["points"] == "1" and cells["notebook"] == "01.ipynb"
    for start in "+@":
        assert Row(start + "x", "n", "g", 0, 1, "failed").as_csv()["student"] == "'" + start + "x"
    assert Row("\tx", "n", "g", 0, 1, "failed").as_csv()["student"] == "\\x09x"  # a tab is shown, not kept


def test_collect_refuses_links_and_pipes_without_opening_them(tmp_path: Path) -> None:
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "real.ipynb").write_text("{}")
    (folder / "link.ipynb").symlink_to(tmp_path / "real-elsewhere.ipynb")
    os.mkfifo(folder / "pipe.ipynb")  # opening it for reading would block forever
    (folder / "sub").symlink_to("/etc")
    found, notes = _collect(_Submission("student", folder))
    assert [(f.display, f.read()) for f in found] == [("real.ipynb", b"{}")]
    assert notes == ["refused sub (a symbolic link), link.ipynb (a symbolic link), pipe.ipynb (a named pipe): "
                     "only regular files are graded"]


def test_a_reused_cell_id_does_not_make_a_cell_graded(tmp_path: Path) -> None:
    released = tmp_path / "released"
    release(SOLUTIONS, released)
    (assignment,) = [a for a in load_release(released) if a.name == NAME]
    nb = _solved(released)
    add_at, check_at = _at(nb, "def add"), _at(nb, "from fixture_checks import check_add")
    nb.cells[add_at].id, nb.cells[check_at].id = nb.cells[check_at].id, "moved-check"
    restored, repairs = restore_graded_cells(nb, assignment)
    assert repairs == {}
    assert any(c.source.startswith("def add(a, b):") and "return a + b" in c.source for c in restored.cells)


def test_without_bwrap_the_grader_says_how_to_install_it_and_what_is_missing(monkeypatch) -> None:
    monkeypatch.setattr(sandboxing.shutil, "which", lambda name: None)
    sandbox, warning = sandboxing.resolve("auto")
    assert sandbox.kind == "none"
    assert "apt-get install bubblewrap" in warning and "read and write your files" in warning
    with pytest.raises(sandboxing.SandboxError, match="apt-get install bubblewrap"):
        sandboxing.resolve("bwrap")
    sandbox, warning = sandboxing.resolve("none")
    assert sandbox.kind == "none" and warning.startswith("warning: grading without a sandbox")


def test_an_endless_flood_below_the_streams_still_times_out(tmp_path: Path) -> None:
    from memlib.course.kernel_run import TIMEOUT, run_notebook

    sandbox, _ = sandboxing.resolve("auto")
    flood = "import os\nwhile True:\n    os.write(1, b'z' * 65536)"
    nb = {"cells": [{"cell_type": "code", "source": flood, "metadata": {}},
                    {"cell_type": "code", "source": "print('after')", "metadata": {}}]}
    started = time.monotonic()
    run = run_notebook(nb, sandbox, tmp_path, [], cell_timeout=3, timeout=60, output_cap=100_000)
    assert time.monotonic() - started < 30
    first, second = run.cells
    assert first.status == TIMEOUT and first.output_chars > 100_000
    assert sum(len(o.get("text", "")) for o in first.outputs if o["output_type"] == "stream") <= 100_000 + 100
    assert second.status == "ok" and second.stdout == "after\n"
