"""Launch paths: what students install, what Binder builds, links for a JupyterHub."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from memlib.course import config
from conftest import ROOT

TEST_TOOLING = ("pytest", "pytest-xdist", "hypothesis", "nbval", "bm25s", "playwright")


def _pins(path: Path) -> dict[str, str]:
    lines = [line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    pins = {}
    for line in filter(None, lines):
        if line.startswith(("-e", "-r", ".")):
            continue
        name, _, version = line.partition("==")
        assert version, f"{path.name}: {line!r} is not pinned (name==version)"
        pins[name.lower()] = version
    return pins


def test_students_install_the_course_and_the_tests_add_their_tooling():
    course, tests = _pins(ROOT / "requirements.txt"), _pins(ROOT / "requirements-test.txt")
    assert "jupyterlab" in course and not set(TEST_TOOLING) & set(course), "test tooling belongs in requirements-test.txt"
    assert set(TEST_TOOLING) <= set(tests)
    assert "-e ." in (ROOT / "requirements.txt").read_text() and "-r requirements.txt" in (
        ROOT / "requirements-test.txt").read_text()


def test_binder_installs_the_same_runtime_pins_in_a_cacheable_layer():
    binder = ROOT / "binder"
    text = (binder / "requirements.txt").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(-e|\.|/|file:)", text, flags=re.M), "no local path: repo2docker could not cache the layer"
    pins, course = _pins(binder / "requirements.txt"), _pins(ROOT / "requirements.txt")
    assert pins == course, "binder/requirements.txt and requirements.txt must pin the same packages alike"
    post_build = (binder / "postBuild").read_text(encoding="utf-8")
    install = next(line for line in post_build.splitlines() if "pip install" in line)
    assert "--no-deps" in install and "-e" not in install.split() and "--editable" not in install
    # tests/test_packaging.py runs postBuild and checks it leaves the student's folder clean
    assert re.fullmatch(r"python-3\.1[1-9]", (binder / "runtime.txt").read_text().strip())
    assert not (ROOT / "runtime.txt").exists(), "repo2docker ignores the root when binder/ exists: one runtime.txt"


def test_nbgitpuller_link_opens_the_notebook_inside_the_cloned_folder():
    url = config.nbgitpuller_url("https://hub.example.edu/", "notebooks/03_archival_bm25.ipynb")
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.edu", "/hub/user-redirect/git-pull")
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    folder = config.REPO_SLUG.split("/")[1]
    assert query == {"repo": f"https://github.com/{config.REPO_SLUG}", "branch": "main",
                     "urlpath": f"lab/tree/{folder}/notebooks/03_archival_bm25.ipynb"}


def test_colab_and_binder_open_and_install_the_launch_reference():
    assert config.LAUNCH_REF == config.BRANCH
    assert config.pip_requirement() == f"memlib @ git+https://github.com/{config.REPO_SLUG}@{config.LAUNCH_REF}"
    assert config.binder_url().startswith(
        f"https://mybinder.org/v2/gh/{config.REPO_SLUG}/{config.LAUNCH_REF}?urlpath=lab/tree/")
    assert config.colab_url("notebooks/00_welcome.ipynb") == (
        f"https://colab.research.google.com/github/{config.REPO_SLUG}/blob/{config.LAUNCH_REF}/notebooks/00_welcome.ipynb")
    assert config.github_url("README.md").endswith(f"/blob/{config.BRANCH}/README.md")


def test_the_launch_reference_resolves_in_a_clone_of_the_repository(tmp_path):
    """What Colab, Binder and pip fetch is a reference the repository itself holds and a clone carries.

    A tag made here would prove nothing: the clone is of this repository as it is, and
    `git clone` brings its branches (a tag only if the repository has it)."""
    import shutil
    import subprocess

    from pg_server import skip_or_fail  # the suite's rule: skip with the reason, fail under CI=true

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        skip_or_fail("not a git checkout: nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", "--no-local", str(ROOT), str(clone)],
                   check=True, capture_output=True, timeout=600)
    candidates = [f"refs/remotes/origin/{config.LAUNCH_REF}", f"refs/tags/{config.LAUNCH_REF}"]
    found = [ref for ref in candidates
             if subprocess.run(["git", "-C", str(clone), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                               capture_output=True).returncode == 0]
    assert found, f"a clone of the repository has no {config.LAUNCH_REF!r}: the launch links would lead nowhere"
    # and the launched notebooks are there at that reference
    listed = subprocess.run(["git", "-C", str(clone), "ls-tree", "--name-only", f"{found[0]}:notebooks"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert "00_welcome.ipynb" in listed


def test_every_notebook_installs_and_opens_the_launch_reference_and_names_its_release():
    import json

    import memlib

    for folder in ("notebooks", "solutions"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            setup = ["".join(c["source"]) for c in cells if "colab-setup" in c.get("metadata", {}).get("tags", [])]
            badge = ["".join(c["source"]) for c in cells if "colab-badge" in c.get("metadata", {}).get("tags", [])]
            assert len(setup) == len(badge) == 1, path
            assert json.dumps(config.pip_requirement()) in setup[0], f"{path.name} installs another memlib"
            assert config.colab_url(f"{folder}/{path.name}") in badge[0], path.name
            if folder == "notebooks":
                meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]["memlib"]
                assert meta["version"] == memlib.__version__ and meta["content_hash"].startswith("sha256:"), path.name


def test_config_prints_one_link_per_released_notebook(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert config.main(["https://hub.example.edu"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(list((ROOT / "notebooks").glob("*.ipynb"))) and lines[0].startswith("00_welcome  https://")


def test_grading_output_in_a_checkout_is_git_ignored():
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        import pytest

        pytest.skip("not a git checkout")
    paths = ["grading/grades.csv", "grading/feedback/ada.md", "grading/submissions/ada/03_archival_bm25.ipynb",
             "grading/work/x.log", "submissions/ada.zip", "feedback/ada.md", "grades.csv", "out/grades.csv"]
    answer = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True)
    assert sorted(answer.stdout.split()) == sorted(paths)
    kept = subprocess.run(["git", "check-ignore", "--no-index", "notebooks/03_archival_bm25.ipynb",
                           "memlib/course/grade.py"], cwd=ROOT, capture_output=True, text=True)
    assert kept.stdout == ""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in readme.splitlines():
        if line.startswith("python -m memlib grade") and "--out" in line:
            out = line.split("--out ")[1].split()[0]
            assert out.startswith(("grading/", "/out/")), line


def test_release_and_grade_without_the_course_extra(monkeypatch, capsys):
    """As on a plain `pip install memlib`: one line naming the extra and exit 2; --help still works,
    and the stand-ins used for the help leave nothing behind."""
    import importlib.util
    import sys

    import memlib.__main__ as cli

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("nbformat", "nbval") else real_find_spec(name, *a))
    for name in ("memlib.course.grade", "memlib.course.release"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert cli.main(["release", "solutions", "notebooks"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "needs the 'course' extra (nbformat not installed): pip install 'memlib[course]'" in captured.err
    assert cli.main(["grade", "sub", "--release", "notebooks", "--out", "x.csv"]) == 2
    assert "(nbformat, nbval not installed)" in capsys.readouterr().err
    assert cli.main(["grade", "--help"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("usage: python -m memlib grade") and "--all-assignments" in captured.out
    assert "pip install 'memlib[course]'" in captured.out and captured.err == ""
    assert "memlib.course.grade" not in sys.modules and not isinstance(sys.modules.get("nbformat"), cli._StandIn)
    monkeypatch.undo()
    import nbformat

    assert hasattr(nbformat, "v4")  # the real module, not the stand-in


# Installed before anything else runs (as sitecustomize), so that nbformat and nbval are as absent
# as on a plain `pip install memlib`: the path finder does not see them, find_spec says None and
# `import nbformat` raises ModuleNotFoundError.
_WITHOUT_COURSE_EXTRA = """
import importlib.machinery

_find = importlib.machinery.PathFinder.find_spec.__func__

def _find_spec(cls, name, path=None, target=None):
    if name.partition(".")[0] in ("nbformat", "nbval"):
        return None
    return _find(cls, name, path, target)

importlib.machinery.PathFinder.find_spec = classmethod(_find_spec)
"""


def test_grade_help_in_a_process_without_the_course_extra(tmp_path):
    """`python -m memlib grade --help` in a fresh process that cannot import nbformat or nbval:
    the help on stdout, a note naming the extra, nothing on stderr, exit 0; grading itself exits 2."""
    import os
    import subprocess
    import sys

    (tmp_path / "sitecustomize.py").write_text(_WITHOUT_COURSE_EXTRA, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    probe = subprocess.run([sys.executable, "-c", "import nbformat"], env=env, capture_output=True, text=True)
    assert "No module named 'nbformat'" in probe.stderr, "the extra is still importable: the test proves nothing"
    shown = subprocess.run([sys.executable, "-m", "memlib", "grade", "--help"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert (shown.returncode, shown.stderr) == (0, "")
    assert shown.stdout.startswith("usage: python -m memlib grade") and "--release RELEASE" in shown.stdout
    assert shown.stdout.rstrip().endswith("pip install 'memlib[course]'")
    refused = subprocess.run([sys.executable, "-m", "memlib", "grade", "x", "--release", "notebooks", "--out",
                              str(tmp_path / "g.csv")], env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "needs the 'course' extra" in refused.stderr
    assert not (tmp_path / "g.csv").exists()
