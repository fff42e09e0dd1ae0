"""Rewrite one measured section of a README in place, between two HTML-comment markers.

A benchmark script that publishes its numbers writes them between
`<!-- NAME:start -->` and `<!-- NAME:end -->` with `replace_marked_section(path,
NAME, text)`; everything outside the markers (the prose that reads the numbers)
is left exactly as it was. Shared by the scripts in this folder; it does not
format tables, each script writes its own markdown.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["markers", "replace_marked_section"]


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of section `name`, e.g. `<!-- bench:results:start -->`."""
    if not name or "--" in name or name != name.strip():
        raise ValueError(f"section name {name!r} must be non-empty, without '--' or surrounding spaces")
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def replace_marked_section(path, name: str, body: str) -> None:
    """Put `body` between the markers of section `name` in the file at `path` (markers kept).

    The file must hold each marker exactly once, start before end; otherwise
    ValueError says which, and the file is not touched. The new text is written
    to a temporary file next to it and moved over it, so a failure midway never
    leaves half a README.
    """
    path = Path(path)
    start, end = markers(name)
    text = path.read_text(encoding="utf-8")
    counts = {marker: text.count(marker) for marker in (start, end)}
    if any(n != 1 for n in counts.values()):
        found = ", ".join(f"{marker} {n} times" for marker, n in counts.items())
        raise ValueError(f"{path} must hold each marker once ({found}); add them where the results go")
    head, rest = text.split(start)
    if end not in rest:
        raise ValueError(f"{path}: {end} comes before {start}; put the start marker first")
    _, tail = rest.split(end)
    new = f"{head}{start}\n{body.strip(chr(10))}\n{end}{tail}"
    scratch = path.with_name(f".{path.name}.tmp")
    scratch.write_text(new, encoding="utf-8")
    os.replace(scratch, path)
