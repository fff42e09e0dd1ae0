"""The student-facing repository: the course without its answers, made from this (the instructors') repository.

``python -m memlib.course.student_repo OUT --slug OWNER/NAME`` writes into the new folder OUT
what students need and nothing that holds a reference answer:

- taken from the checkout's tracked files (``git ls-files``): ``memlib/``, ``data/``,
  ``binder/``, ``pyproject.toml``, ``requirements.txt``, ``MANIFEST.in``, the licences,
  ``CITATION.cff``, ``CHANGELOG.md``, ``.gitignore``;
- ``notebooks/`` released again from ``solutions/`` with the launch links (Colab badges, the
  Colab install cell) pointing at OWNER/NAME, and ``memlib/course/config.py`` naming it too,
  so Binder, Colab, pip and nbgitpuller all fetch the student repository;
- a short ``README.md`` for students.

Left out: ``solutions/`` (the answers), ``tests/`` (its independent answers and fixtures hold
correct solutions), ``benchmarks/``, ``site/``, ``.ci/`` and the other requirement files.
memlib itself stays: students need it, and the grader already flags an answer that calls
memlib's own implementations (``review:``). Push OUT as its own repository; the instructors'
repository stays private.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from memlib.course import config, release

__all__ = ["StudentRepoError", "KEPT", "write_student_repo", "main"]

#: Tracked paths (a file, or a folder with ``/``) the student repository keeps as they are.
KEPT = ("memlib/", "data/", "binder/", "pyproject.toml", "requirements.txt", "MANIFEST.in", "LICENSE",
        "LICENSE-CONTENT", "CITATION.cff", "CHANGELOG.md", ".gitignore")
SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}/[A-Za-z0-9._-]{1,100}$")


class StudentRepoError(ValueError):
    """The student repository cannot be written (the message says why); nothing was written."""


def _tracked(root: Path) -> list[str]:
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True,
                                timeout=120).stdout.decode("utf-8")
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        raise StudentRepoError(f"{root} is not a git checkout ({error}): run this from the instructors' "
                               "repository") from None
    return [path for path in listed.split("\0") if path]


def _readme(slug: str) -> str:
    binder = f"https://mybinder.org/v2/gh/{slug}/{config.BRANCH}?urlpath=lab/tree/notebooks/00_welcome.ipynb"
    return f"""# Virtual context, hands-on

Numbered Jupyter notebooks on how LLM agents manage memory the way an operating system manages
RAM and disk (the MemGPT pattern), with graded exercises whose checks tell you why an answer is
wrong, and `memlib`, the Python package behind them.

- **In your browser:** [Binder]({binder}) starts JupyterLab at `notebooks/00_welcome.ipynb`; on
  Colab, each notebook's "Open in Colab" badge opens it and its first cell installs memlib.
- **On your machine** (Python 3.11 or newer):

  ```bash
  git clone https://github.com/{slug}.git && cd {slug.split("/")[1]}
  python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/jupyter lab
  ```

Start with `notebooks/00_welcome.ipynb`; it shows the map of the course. Your instructor tells
you how to hand in your notebooks. The code is under the MIT License (`LICENSE`), the course
content under CC BY 4.0 (`LICENSE-CONTENT`).
"""


def write_student_repo(root: str | Path, out: str | Path, slug: str) -> list[Path]:
    """Write the student repository of the checkout `root` into the new folder `out`; the files written."""
    source, target = Path(root), Path(out)
    if not SLUG_RE.match(slug):
        raise StudentRepoError(f"--slug {slug!r} is not a GitHub owner/name")
    if slug == config.REPO_SLUG:
        raise StudentRepoError(f"--slug {slug} is the instructors' repository: the student repository needs its own")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StudentRepoError(f"{target} exists and is not an empty folder: nothing was written")
    if target.resolve().is_relative_to(source.resolve()):
        raise StudentRepoError(f"{target} is inside the checkout {source}: write it elsewhere")
    tracked = _tracked(source)
    kept = [p for p in tracked if any(p == k or (k.endswith("/") and p.startswith(k)) for k in KEPT)]
    written: list[Path] = []
    staging = target.with_name(target.name + ".partial")
    if staging.exists():
        shutil.rmtree(staging)
    try:
        for path in kept:
            destination = staging / path
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / path, destination)
        settings = staging / "memlib" / "course" / "config.py"
        text = settings.read_text(encoding="utf-8")
        slug_line = f'REPO_SLUG = "{config.REPO_SLUG}"'
        if slug_line not in text:
            raise StudentRepoError(f"{settings.relative_to(staging)} does not say {slug_line}: update this command")
        settings.write_text(text.replace(slug_line, f'REPO_SLUG = "{slug}"'), encoding="utf-8")
        # the notebooks, released with the student repository's launch links
        instructors = config.REPO_SLUG
        config.REPO_SLUG = slug
        try:
            release.release(source / "solutions", staging / config.NOTEBOOKS_DIR)
        finally:
            config.REPO_SLUG = instructors
        (staging / "README.md").write_text(_readme(slug), encoding="utf-8")
        if target.exists():
            target.rmdir()
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    written = sorted(p for p in target.rglob("*") if p.is_file())
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib.course.student_repo OUT --slug OWNER/NAME``: 0 written, 2 nothing written."""
    parser = argparse.ArgumentParser(
        prog="python -m memlib.course.student_repo",
        description="Write the student-facing repository (no solutions/, no tests/) into a new folder.",
    )
    parser.add_argument("out", type=Path, help="a new (or empty) folder outside this checkout")
    parser.add_argument("--slug", required=True, help="the student repository on GitHub, owner/name")
    parser.add_argument("--root", type=Path, default=Path("."), help="the instructors' checkout (default: here)")
    args = parser.parse_args(argv)
    try:
        written = write_student_repo(args.root, args.out, args.slug)
    except (StudentRepoError, release.ReleaseError, OSError) as error:
        print(f"student repository not written: {error}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files to {args.out}; push it as https://github.com/{args.slug}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
