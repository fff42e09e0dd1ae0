"""The README stays true: its links, its file map and its commands."""

import re
import subprocess
import sys

from memlib.course import config
from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_binder_badge_and_a_colab_link_per_notebook():
    assert config.binder_url() in README
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        relative = f"notebooks/{path.name}"
        assert f"]({relative})" in README, f"README's notebook table lacks {relative}"
        assert config.colab_url(relative) in README, f"README lacks the Colab link of {relative}"


def test_launch_links_and_the_colab_text_name_the_launch_reference():
    slug, ref = config.REPO_SLUG, config.LAUNCH_REF
    for link in (f"colab.research.google.com/github/{slug}/blob/", f"mybinder.org/v2/gh/{slug}/"):
        pinned = set(re.findall(re.escape(link) + r"([^/?)]+)", README))
        assert pinned == {ref}, f"README's {link} links pin {pinned}, config says {ref!r}"
    colab = README.split("**On Google Colab**", 1)[1].split("\n\n", 1)[0]
    assert f"`{ref}`" in colab and "(CHANGELOG.md)" in colab


def test_every_path_in_the_file_map_exists():
    paths = re.findall(r"^\| `([^`]+)`", README, flags=re.M)
    paths += re.findall(r"^\| `[^`]+`, `([^`]+)`", README, flags=re.M)  # rows naming two paths
    assert len(paths) > 15
    missing = [p for p in paths if not (ROOT / p.rstrip("/")).exists()]
    assert not missing, f"README names paths that do not exist: {missing}"


def test_documented_commands_answer():
    assert "python -m pytest" in README and "python -m memlib demo" in README
    for command in (["release", "--help"], ["grade", "--help"]):
        assert f"python -m memlib {command[0]}" in README
        out = subprocess.run([sys.executable, "-m", "memlib", *command], capture_output=True, text=True,
                             timeout=120, cwd=ROOT)
        assert out.returncode == 0, out.stderr
    # the benchmark harness is a script of the checkout, not a subcommand of the package
    assert "python benchmarks/bench.py" in README
    out = subprocess.run([sys.executable, "benchmarks/bench.py", "--help"], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    check = subprocess.run([sys.executable, "-m", "memlib", "release", "solutions/", "notebooks/", "--check"],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert check.returncode == 0, check.stdout + check.stderr


def test_ci_runs_the_readmes_test_command():
    command = re.search(r"\.venv/bin/python (-m pytest[^\n`]*)", README).group(1).strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"\npython {command}\n" in ci, f"README's test command {command!r} is not what .ci/run runs"
