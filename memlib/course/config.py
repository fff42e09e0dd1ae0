"""Where the course lives: the one place for the repository slug, the branch and the launch reference.

The release stamps these into every student notebook (the Colab badge and the
Colab setup cell), so a fork changes them here and re-runs
`python -m memlib release solutions/ notebooks/`. This module builds URLs; it
does not check that they exist (nothing here touches the network; a test checks
in a clone of the repository that the launch reference is there).
"""

from __future__ import annotations


#: GitHub "owner/name" of the course repository.
REPO_SLUG = "memlib-course/memlib"
#: The branch the course is developed on: GitHub pages of files and nbgitpuller follow it.
BRANCH = "main"
#: What Colab, Binder and the Colab install cell open and install: the branch. The course
#: was launched from a release tag once (`v0.2.0`), but tags do not travel with the published
#: repository (it holds branches only), so those links led nowhere; a branch is always
#: there. The price: a copy a student saved in week 2 installs the branch's memlib when it is
#: opened again, so each released notebook carries its release's version and content hash
#: (`memlib.course.versions`) and the grader says when a submission comes from another release.
LAUNCH_REF = BRANCH
#: Folder (relative to the repository root) the student notebooks are released into.
NOTEBOOKS_DIR = "notebooks"
#: The Python of the course's reference JupyterLab (CI, the browser tests). JupyterLab
#: rewrites a notebook's ``language_info`` to what its kernel reports, exact Python
#: version included, and marks the notebook modified when that changes anything:
#: the release writes it for this version, so a released notebook opens unmodified
#: there (under another Python, only ``language_info.version`` differs).
KERNEL_PYTHON = "3.11.7"


def github_url(path: str = "") -> str:
    """URL of `path` (relative to the repository root) on GitHub, on the development branch."""
    base = f"https://github.com/{REPO_SLUG}"
    return f"{base}/blob/{BRANCH}/{_clean(path)}" if path else base


def colab_url(path: str) -> str:
    """URL that opens the notebook at `path` (relative to the repository root) in Colab, as released.

    The notebook comes from `LAUNCH_REF`, like the memlib its setup cell
    installs, so the two match when it is opened. Example: colab_url("notebooks/03_archival.ipynb")
    -> "https://colab.research.google.com/github/<slug>/blob/main/notebooks/03_archival.ipynb"
    """
    return f"https://colab.research.google.com/github/{REPO_SLUG}/blob/{LAUNCH_REF}/{_clean(path)}"


def binder_url(path: str = f"{NOTEBOOKS_DIR}/00_welcome.ipynb") -> str:
    """URL that starts JupyterLab on Binder at `path`, in the repository as of `LAUNCH_REF`."""
    return f"https://mybinder.org/v2/gh/{REPO_SLUG}/{LAUNCH_REF}?urlpath=lab/tree/{_clean(path)}"


def nbgitpuller_url(hub: str, path: str = f"{NOTEBOOKS_DIR}/00_welcome.ipynb") -> str:
    """A JupyterHub link that clones (or updates) the course with nbgitpuller and opens `path` in JupyterLab.

    `hub` is the hub's address, e.g. ``https://hub.example.edu``. nbgitpuller
    clones into a folder named after the repository, so that folder leads the
    path JupyterLab opens. It follows the branch: it merges the branch's new
    commits into each student's copy at every click, and it pulls branches only
    (a course that must stay on one release gives it a branch of its own). The hub's image, not the link, decides which memlib is
    installed there. Example:
    nbgitpuller_url("https://hub.example.edu")
    -> "https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2F<slug>"
       "&branch=main&urlpath=lab%2Ftree%2F<name>%2Fnotebooks%2F00_welcome.ipynb"
    """
    from urllib.parse import urlencode

    folder = REPO_SLUG.split("/")[-1]
    query = urlencode({"repo": github_url(), "branch": BRANCH, "urlpath": f"lab/tree/{folder}/{_clean(path)}"})
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def pip_requirement() -> str:
    """What `pip install` needs to get this release of memlib (with its data) from the repository.

    The Colab setup cell runs it: memlib as `LAUNCH_REF` holds it when the cell runs.
    """
    return f"memlib @ git+https://github.com/{REPO_SLUG}@{LAUNCH_REF}"


def _clean(path: str) -> str:
    return str(path).replace("\\", "/").lstrip("/")


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib.course.config HUB [NOTEBOOK...]``: print the nbgitpuller link of each notebook."""
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m memlib.course.config",
                                     description="nbgitpuller links that open the course on a JupyterHub.")
    parser.add_argument("hub", help="the hub's address, e.g. https://hub.example.edu")
    parser.add_argument("notebooks", nargs="*", help=f"repository paths (default: every {NOTEBOOKS_DIR}/*.ipynb here)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(p.as_posix() for p in Path(NOTEBOOKS_DIR).glob("*.ipynb"))
    if not paths:
        parser.error(f"no notebooks given and none in ./{NOTEBOOKS_DIR}: run this from the repository root")
    for path in paths:
        print(f"{Path(path).stem}  {nbgitpuller_url(args.hub, path)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
