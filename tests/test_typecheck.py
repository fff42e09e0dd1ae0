"""The type check: memlib ships py.typed, so students' mypy reads its annotations.

`python -m mypy` with the configuration in pyproject.toml ([tool.mypy]) must
report nothing, for memlib's floor (Python 3.10) and for Colab's Python 3.13.
A second test makes sure the check can fail: the same configuration on a small
module with known mistakes reports each of them.
"""

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pg_server import skip_or_fail  # skip with the reason; fail under CI=true
from conftest import ROOT


pytestmark = [pytest.mark.maintainer, pytest.mark.slow]


def _mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("mypy") is None:
        skip_or_fail("mypy is not installed (pip install -r requirements-test.txt)")
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("python_version", ["3.10", "3.13"])
def test_memlib_type_checks_clean(python_version):
    """The whole package, as configured (3.10 is the configured floor; 3.13 is Colab's)."""
    run = _mypy("--python-version", python_version)  # files and flags come from pyproject.toml
    assert run.returncode == 0 and run.stdout.startswith("Success"), (
        f"mypy (Python {python_version}) reports problems in memlib:\n{run.stdout}{run.stderr}")


def test_the_configuration_catches_mistakes(tmp_path):
    """Each flag the configuration relies on reports its kind of mistake (so a clean run means something)."""
    (tmp_path / "sample.py").write_text(textwrap.dedent("""\
        from typing import Optional, cast


        def untyped():
            count: int = "three"  # only checked with check_untyped_defs
            return count


        def first_word(text: Optional[str]) -> str:
            return text.split()[0]  # None has no split


        def needless(n: int) -> int:
            return cast(int, n)  # warn_redundant_casts


        def ignored() -> int:
            return 1  # type: ignore[return-value]


        def never(n: int) -> bool:
            return n == "1"  # strict_equality


        class Store:
            def __init__(self) -> None:
                self.conn = None  # inferred as None for ever

            def close(self) -> None:
                if self.conn is not None:
                    self.conn = None  # warn_unreachable: otherwise never checked
        """))
    run = _mypy("--config-file", str(ROOT / "pyproject.toml"), "sample.py", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    reported = {(line.split(":")[1], line.rsplit("[", 1)[-1].rstrip("]"))
                for line in run.stdout.splitlines() if line.startswith("sample.py:") and ": error:" in line}
    expected = {("5", "assignment"), ("10", "union-attr"), ("14", "redundant-cast"), ("18", "unused-ignore"),
                ("22", "comparison-overlap"), ("31", "unreachable")}
    assert reported == expected, run.stdout
