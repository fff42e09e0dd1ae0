"""Where the course lives: the one place for the repository slug and branch.

The release stamps these into every student notebook (the Colab badge and the
Colab setup cell), so a fork changes them here and re-runs
`python -m memlib release solutions/ notebooks/`. This module builds URLs; it
does not check that they exist (nothing here touches the network).
"""

from __future__ import annotations

#: GitHub "owner/name" of the course repository.
REPO_SLUG = "memlib-course/memlib"
#: Branch the badges and the Colab install point at.
BRANCH = "main"
#: Folder (relative to the repository root) the student notebooks are released into.
NOTEBOOKS_DIR = "notebooks"


def github_url(path: str = "") -> str:
    """URL of `path` (relative to the repository root) on GitHub."""
    base = f"https://github.com/{REPO_SLUG}"
    return f"{base}/blob/{BRANCH}/{_clean(path)}" if path else base


def colab_url(path: str) -> str:
    """URL that opens the notebook at `path` (relative to the repository root) in Colab.

    Example: colab_url("notebooks/03_archival.ipynb")
    -> "https://colab.research.google.com/github/<slug>/blob/main/notebooks/03_archival.ipynb"
    """
    return f"https://colab.research.google.com/github/{REPO_SLUG}/blob/{BRANCH}/{_clean(path)}"


def binder_url(path: str = f"{NOTEBOOKS_DIR}/00_welcome.ipynb") -> str:
    """URL that starts JupyterLab on Binder at `path`."""
    return f"https://mybinder.org/v2/gh/{REPO_SLUG}/{BRANCH}?urlpath=lab/tree/{_clean(path)}"


def pip_requirement() -> str:
    """What `pip install` needs to get memlib (with its data) from the repository."""
    return f"memlib @ git+https://github.com/{REPO_SLUG}@{BRANCH}"


def _clean(path: str) -> str:
    return str(path).replace("\\", "/").lstrip("/")
