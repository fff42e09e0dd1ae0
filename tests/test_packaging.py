"""Packaging: what a plain (non-editable) install gets, as on Colab and Binder."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_memlib_package_is_listed_in_pyproject():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "memlib").rglob("__init__.py")}
    missing = on_disk - listed
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"
    assert "memlib.data" in listed


def test_wheel_ships_every_module_and_the_data(tmp_path):
    """Build the wheel Colab's `pip install git+...` would build, and look inside."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("memlib-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {"memlib/" + str(p.relative_to(ROOT / "memlib")) for p in (ROOT / "memlib").rglob("*.py")}
    assert modules <= names, f"missing from the wheel: {sorted(modules - names)}"
    for data_file in ("facts.jsonl", "queries.jsonl", "poisoning.jsonl", "quizzes/03.json",
                      "core_memory/schema.json", "README.md"):
        assert f"memlib/data/{data_file}" in names, f"memlib/data/{data_file} missing from the wheel"


def _run(command, **kwargs):
    import subprocess

    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


@pytest.mark.slow
def test_the_wheel_alone_answers_every_command(tmp_path):
    """`pip install memlib` with no extras (the Colab path): every --help works; release and grade
    say in one line which extra they need and exit 2; merging gradebooks needs no extra."""
    import sys

    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(ROOT)])
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("memlib-*.whl")
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    python = str(venv / "bin" / "python")
    installed = _run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)])
    assert installed.returncode == 0, installed.stderr[-3000:]
    absent = _run([python, "-c", "import importlib.util as u; print([m for m in ('nbformat', 'nbval', 'pytest') "
                                 "if u.find_spec(m)])"])
    assert absent.stdout.strip() == "[]", f"the runtime dependencies pulled in {absent.stdout}: the test proves nothing"

    scratch = tmp_path / "elsewhere"  # not the checkout, so `import memlib` is the installed wheel
    scratch.mkdir()
    from memlib.__main__ import GRADE_TOOLS, SUBCOMMANDS

    for command in [[], ["demo"], *([name] for name in SUBCOMMANDS), *(["grade", tool] for tool in GRADE_TOOLS)]:
        answer = _run([python, "-m", "memlib", *command, "--help"], cwd=scratch)
        assert answer.returncode == 0, (command, answer.stderr)
        assert answer.stdout.startswith("usage: python -m memlib"), (command, answer.stdout)
    assert "--shard K/N" in _run([python, "-m", "memlib", "grade", "--help"], cwd=scratch).stdout

    for command in (["release", "solutions", "notebooks"], ["grade", "sub", "--release", "notebooks", "--out", "g.csv"]):
        answer = _run([python, "-m", "memlib", *command], cwd=scratch)
        assert answer.returncode == 2, (command, answer.stdout, answer.stderr)
        assert answer.stdout == "" and len(answer.stderr.splitlines()) == 1, answer.stderr
        assert "pip install 'memlib[course]'" in answer.stderr and "nbformat" in answer.stderr
    assert not (scratch / "g.csv").exists() and not (scratch / "notebooks").exists()

    (scratch / "a.csv").write_text("student,notebook,grade_id,points,max_points,status,reason\n"
                                   "ada,01_x.ipynb,x,1,1,passed,\n", encoding="utf-8")
    merged = _run([python, "-m", "memlib", "grade", "merge", "a.csv", "--out", "m.csv"], cwd=scratch)
    assert merged.returncode == 0, merged.stderr
    assert (scratch / "m.csv").read_text() == (scratch / "a.csv").read_text()
