"""Packaging: what a plain (non-editable) install gets, as on Colab and Binder."""

import pathlib

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
