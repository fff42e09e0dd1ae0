"""The files bundled in `memlib.data`, read through `importlib.resources`.

One place that finds a data file the same way from a checkout and from an
installed wheel (Colab): `memlib.datasets` builds typed records on it and
`memlib.quiz` reads the quizzes with it. Not here: parsing any file.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["read_text"]


def read_text(relative_path: str) -> str:
    """The text of a file inside `memlib.data`, e.g. read_text("README.md")."""
    node = resources.files("memlib.data")
    for part in relative_path.split("/"):
        node = node.joinpath(part)
    if not node.is_file():
        raise FileNotFoundError(
            f"memlib.data has no file {relative_path!r}; is memlib installed with its data? "
            "Reinstall with `pip install -e .` from the repository root."
        )
    return node.read_text(encoding="utf-8")
