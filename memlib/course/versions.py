"""Which release a notebook comes from: the stamp the release writes, and what the grader reads from it.

Every released notebook carries, in ``metadata.memlib``, the memlib version that released
it (``version``) and a hash of its graded cells (``content_hash``: each graded cell's
grade_id, points and source, in order). Students keep notebooks for weeks and the course
moves on meanwhile, so the grader compares a submission's stamp with the release it grades
against, says so in the gradebook when they differ, and grades against an older release
folder the instructor gives it when one has the submission's graded cells.

This module reads and compares stamps; it does not run or rebuild notebooks (the grader
does), and a stamp is the student's file's word, not proof: it only chooses among the
release folders the instructor passed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable

from memlib import __version__

__all__ = ["Stamp", "content_hash", "stamp_metadata", "stamp_of", "release_stamp", "difference"]


@dataclass(frozen=True)
class Stamp:
    """A release as a notebook knows it: its memlib version ("" when unstamped) and graded-cell hash."""

    version: str
    content_hash: str

    @property
    def name(self) -> str:
        """How the gradebook names the release: its version, or the start of its hash when it has none."""
        return f"release {self.version}" if self.version else f"an unstamped release (graded cells {self.short})"

    @property
    def short(self) -> str:
        return self.content_hash.partition(":")[2][:12]

    def __repr__(self) -> str:
        return f"Stamp({self.version or 'unstamped'!r}, {self.short})"


def _grade_meta(cell: dict) -> dict | None:
    meta = cell.get("metadata", {}).get("memlib")
    return meta if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str) else None


def content_hash(cells: Iterable[dict]) -> str:
    """``sha256:<hex>`` over the graded cells among `cells` (grade_id, points, source, in order).

    Two releases with the same hash grade alike: same checks, same points, same
    order. Prose, exercise stubs and ungraded cells do not count, so fixing a typo
    in the text does not make last week's notebooks "another release".
    """
    digest = hashlib.sha256()
    for cell in cells:
        meta = _grade_meta(cell)
        if meta is None:
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        source = source.replace("\r\n", "\n").replace("\r", "\n")
        points = meta.get("points", 0)
        points_text = f"{float(points):g}" if isinstance(points, (int, float)) else str(points)
        digest.update(f"{meta['grade_id']}\0{points_text}\0{source}\0\n".encode("utf-8"))
    return "sha256:" + digest.hexdigest()


def stamp_metadata(memlib_meta: dict, cells: Iterable[dict], version: str = __version__) -> dict:
    """`memlib_meta` (a notebook's ``metadata.memlib``) with this release's version and content hash."""
    return {**memlib_meta, "version": version, "content_hash": content_hash(cells)}


def stamp_of(nb: dict) -> Stamp | None:
    """The stamp a notebook carries, or None when it has none (released before 0.3.0, or its metadata was removed)."""
    meta = nb.get("metadata", {}).get("memlib")
    if not isinstance(meta, dict):
        return None
    version, digest = meta.get("version"), meta.get("content_hash")
    if not (isinstance(version, str) and isinstance(digest, str) and digest.startswith("sha256:")):
        return None
    return Stamp(version, digest)


def release_stamp(nb: dict) -> Stamp:
    """The stamp of a release folder's notebook: what it carries, else computed from its graded cells.

    A release folder is the instructor's, so its graded cells are what they say; an
    unstamped one (a release before 0.3.0) is known by their hash alone.
    """
    stamp = stamp_of(nb)
    computed = content_hash(nb.get("cells", []))
    if stamp is not None and stamp.content_hash == computed:
        return stamp
    return Stamp(stamp.version if stamp else "", computed)


def difference(submitted: dict, release: Stamp) -> str:
    """What the gradebook says about `submitted` against `release`: "" when they are the same release."""
    stamp = stamp_of(submitted)
    if stamp is None:
        # unstamped: a release before 0.3.0, unless its graded cells are this release's
        if content_hash(submitted.get("cells", [])) == release.content_hash:
            return ""
        return (f"this notebook carries no release stamp (released before memlib 0.3.0, or its metadata "
                f"was removed) and its graded cells differ from {release.name}'s; graded against {release.name}")
    if stamp.content_hash == release.content_hash:
        return ""
    if stamp.version == release.version:
        return (f"this notebook comes from {stamp.name} with other graded cells ({stamp.short}, the release "
                f"has {release.short}: the release was changed without a new version); graded against it")
    return f"this notebook comes from {stamp.name}; graded against {release.name}"
