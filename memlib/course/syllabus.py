"""The course's table of contents, generated from the solution notebooks themselves.

Each notebook's number and title come from its first heading (`# NN · Title: subtitle`), its
exercises from its `### EXERCISE N: what to do` lines. From these, notebook 00's map and every
notebook's closing "Next:" link are written, so a renamed notebook or a new exercise shows up
everywhere at once: `python -m memlib.course.syllabus solutions/` rewrites them, `--check` only
reports (a test runs it). It edits those two kinds of cells and nothing else, and never
touches `notebooks/` (the release copies what it writes there).
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NotebookInfo", "read_notebook", "read_course", "course_map", "next_line", "refresh", "main"]

#: The cell of notebook 00 that holds the map.
MAP_CELL_ID = "00-16-map"
_TITLE = re.compile(r"^# (\d\d) · (.+)$")
_EXERCISE = re.compile(r"### EXERCISE (\w+): (.+)")
#: An exercise line of one step of several: ``### EXERCISE 2c: step 1 of 4, store(view): ...``.
_STEP = re.compile(r"^step \d+ of \d+, (?P<what>.+)$")


@dataclass(frozen=True)
class NotebookInfo:
    """What the syllabus needs to know about one notebook."""

    number: str
    filename: str
    title: str                                  # the heading after "NN · "
    exercises: tuple[tuple[str, str], ...]      # (label, what to do), in order of first appearance

    @property
    def short_title(self) -> str:
        """The title before its colon: "Citations: every answer names its sources" -> "Citations"."""
        return self.title.split(":")[0].strip()


def read_notebook(path) -> NotebookInfo:
    """Number, title and exercises of a solution notebook (ValueError names what is missing)."""
    path = Path(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    heading = "".join(cells[0]["source"]).split("\n", 1)[0] if cells else ""
    m = _TITLE.match(heading)
    if not m:
        raise ValueError(f"{path.name}: the first cell must start with '# NN · Title', found {heading[:60]!r}")
    if not path.name.startswith(m.group(1) + "_"):
        raise ValueError(f"{path.name}: its heading says {m.group(1)}, its file name another number")
    exercises: dict[str, str] = {}
    steps: dict[str, list[str]] = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            for label, text in _EXERCISE.findall("".join(cell["source"])):
                exercises[label] = text.strip()  # the last line of a label says what it returns
                if step := _STEP.match(text.strip()):
                    steps.setdefault(label, []).append(step["what"])
    for label, parts in steps.items():  # an exercise in steps: each step's line says what it asks for
        exercises[label] = f"in {len(parts)} steps: " + "; ".join(parts)
    return NotebookInfo(m.group(1), path.name, m.group(2).strip(), tuple(exercises.items()))


def read_course(directory) -> list[NotebookInfo]:
    """Every `NN_*.ipynb` in `directory`, in order."""
    paths = sorted(Path(directory).glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise ValueError(f"no NN_*.ipynb notebooks in {directory}")
    return [read_notebook(p) for p in paths]


def course_map(infos: list[NotebookInfo]) -> str:
    """Notebook 00's map: one row per notebook after 00, with its graded exercises."""
    rows = ["## The map", "", "| # | notebook | exercises |", "|---|---|---|"]
    for info in infos:
        if info.number == "00":
            continue
        done = "; ".join(f"**exercise {label}**: {text}" for label, text in info.exercises) or "no graded exercise"
        rows.append(f"| {info.number} | [{info.short_title}]({info.filename}) | {done} |")
    return "\n".join(rows)


def next_line(following: NotebookInfo) -> str:
    """The closing link of the notebook before `following`."""
    return f"Next: [{following.number} · {following.short_title}]({following.filename})"


def _set(cell: dict, text: str) -> bool:
    lines = text.split("\n")
    source = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    if cell["source"] == source:
        return False
    cell["source"] = source
    return True


def refresh(directory, *, write: bool = False) -> list[str]:
    """Bring the map and the "Next:" links in `directory` up to date; returns what differed.

    A notebook's "Next:" link is its last markdown cell whose text starts with "Next:"; the last
    notebook has none. With `write=False` nothing is written (the list says what would change).
    """
    directory = Path(directory)
    infos = read_course(directory)
    changed = []
    for i, info in enumerate(infos):
        path = directory / info.filename
        nb = json.loads(path.read_text(encoding="utf-8"))
        edits = False
        if info.number == "00":
            cell = next((c for c in nb["cells"] if c.get("id") == MAP_CELL_ID), None)
            if cell is None:
                raise ValueError(f"{info.filename}: no cell with id {MAP_CELL_ID!r} for the map")
            if _set(cell, course_map(infos)):
                changed.append(f"{info.filename}: the map")
                edits = True
        if i + 1 < len(infos):
            cell = next((c for c in reversed(nb["cells"]) if c["cell_type"] == "markdown"
                         and "".join(c["source"]).startswith("Next:")), None)
            if cell is None:
                raise ValueError(f"{info.filename}: no markdown cell starting with 'Next:'")
            if _set(cell, next_line(infos[i + 1])):
                changed.append(f"{info.filename}: the Next link")
                edits = True
        if edits and write:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib.course.syllabus SOLUTIONS [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m memlib.course.syllabus",
                                     description="Write notebook 00's map and the 'Next:' links from the notebooks.")
    parser.add_argument("solutions", help="the folder of solution notebooks (NN_*.ipynb)")
    parser.add_argument("--check", action="store_true", help="report what is out of date, write nothing, exit 1 if anything is")
    args = parser.parse_args(argv)
    try:
        changed = refresh(args.solutions, write=not args.check)
    except (OSError, ValueError) as exc:
        print(f"syllabus: {exc}")
        return 2
    for line in changed:
        print(("out of date: " if args.check else "rewrote ") + line)
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
