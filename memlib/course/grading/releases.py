"""Releases: which release each submitted notebook is graded against, and what the gradebook says about it.

The first release folder is the current one. Older release folders (the instructor's,
``--release`` given again) are used only for a notebook whose graded cells are theirs:
its stamp's content hash (or, unstamped, the hash of the graded cells it holds) equals
that release's. Every other notebook from another release is graded against the current
one, with a note naming the release it comes from (`memlib.course.versions`).
This stage plans; it runs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memlib.course.grading.collect import _Job, load_release
from memlib.course.grading.model import Assignment, GradeSetupError
from memlib.course.versions import Stamp, content_hash, difference, release_stamp, stamp_of


@dataclass
class Release:
    """One release folder: its graded assignments by stem, their stamps, and the files copied beside them."""

    folder: Path
    assignments: dict[str, Assignment]
    stamps: dict[str, Stamp]
    support: list[Path]

    def __repr__(self) -> str:
        return f"Release({str(self.folder)!r}, {sorted(self.assignments)})"


def support_files(release: str | Path) -> list[Path]:
    """The files next to the released notebooks that every run gets a copy of (data, helper modules)."""
    root = Path(release) if Path(release).is_dir() else Path(release).parent
    return sorted(p for p in root.iterdir() if p.is_file() and p.suffix != ".ipynb" and not p.name.startswith("."))


def read_release(folder: str | Path, assignments: list[Assignment] | None = None) -> Release:
    """A release folder (its assignments already loaded, or loaded here) with each notebook's stamp."""
    loaded = assignments if assignments is not None else load_release(folder)
    return Release(Path(folder), {a.stem: a for a in loaded},
                   {a.stem: release_stamp(a.nb) for a in loaded}, support_files(folder))


def read_older(folders: list[str | Path], current: Release) -> list[Release]:
    """The older release folders; one that is the current folder, or grades alike, is refused (it would never be used)."""
    older = []
    for folder in folders:
        release = read_release(folder)
        same = [stem for stem, stamp in release.stamps.items()
                if stem in current.stamps and current.stamps[stem].content_hash == stamp.content_hash]
        if len(same) == len(release.stamps):
            raise GradeSetupError(f"release {str(folder)!r} has the graded cells of {str(current.folder)!r} "
                                  f"({', '.join(sorted(same))}): pass an older release, or leave it out")
        older.append(release)
    return older


def _submitted_hash(nb: dict) -> str:
    stamp = stamp_of(nb)
    return stamp.content_hash if stamp is not None else content_hash(nb.get("cells", []))


def choose(job: _Job, current: Release, older: list[Release]) -> None:
    """Point `job` at the release its notebook comes from, or note how it differs from the current one."""
    nb = job.notebook()
    if nb is None:
        return
    stem = job.assignment.stem
    submitted = _submitted_hash(nb)
    if submitted == current.stamps[stem].content_hash:
        return
    for release in older:
        if stem in release.assignments and release.stamps[stem].content_hash == submitted:
            job.assignment = release.assignments[stem]
            job.support = release.support
            job.notes.append(f"this notebook comes from {release.stamps[stem].name}; graded against that "
                             f"release ({release.folder.name}/)")
            return
    job.notes.append(difference(nb, current.stamps[stem]))
