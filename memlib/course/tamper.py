"""Tamper evidence: the clean re-run of a submission, and exercise cells that reach into the checks.

A student's code runs in the same kernel as the checks, so it can always
patch the interpreter (replace a module in ``sys.modules``, a check's
``__code__``, IPython's traceback hook, ...). The grader cannot prevent that
from inside; it makes it visible in two ways:

* `clean_notebook`: the released notebook with only the student's exercise
  cells and the cells they added (helpers, scratch) put in, every release
  cell as released. Points follow this run; a
  graded cell whose outcome differs from the run of the notebook as handed in
  is flagged for review. An exercise cell is recognised by its metadata
  ``{"memlib": {"exercise": "N"}}`` (the release writes it, Jupyter keeps it),
  or, for notebooks from a release without it, by its ``### EXERCISE N:``
  line: never by position or cell id.
* `reaches_in`: what an exercise or added cell touches of the checking machinery
  (``memlib.course``, ``sys.modules``, ``builtins``, ``get_ipython``,
  ``__code__``, ``__wrapped__``, ``importlib``, ``ctypes``, signals,
  subprocesses, dynamic code), found in its syntax tree; such a cell is
  flagged for review whatever its outcome.

This module does not run anything and does not award points.
"""

from __future__ import annotations

import ast
import copy
import re
from typing import Callable, Iterable

__all__ = ["exercise_key", "release_exercises", "added_cells", "clean_notebook", "reaches_in", "check_modules"]

EXERCISE_LINE_RE = re.compile(r"^[ \t]*### EXERCISE (?P<number>[0-9]+[a-z]?):", re.MULTILINE)

MODULES = {
    "memlib.course": "memlib.course",
    "importlib": "importlib",
    "ctypes": "ctypes",
    "builtins": "builtins",
    "signal": "signals",
    "subprocess": "subprocesses",
    "multiprocessing": "subprocesses",
    "pty": "subprocesses",
    "gc": "gc",
    "inspect": "inspect",
    "IPython": "IPython",
    "ipykernel": "IPython",
    "pytest": "pytest",
    "nbval": "nbval",
}
ATTRIBUTES = {
    "modules": "sys.modules", "__code__": "__code__", "__wrapped__": "__wrapped__", "__globals__": "__globals__",
    "__closure__": "__closure__", "__module__": "__module__", "__builtins__": "builtins", "__import__": "__import__", "__subclasses__": "__subclasses__",
    "_getframe": "frames", "f_globals": "frames", "f_locals": "frames", "f_back": "frames", "settrace": "tracing",
    "setprofile": "tracing", "showtraceback": "IPython", "set_custom_exc": "IPython", "run_cell": "IPython",
    "do_execute": "IPython", "events": "IPython", "system": "subprocesses", "popen": "subprocesses",
    "fork": "subprocesses", "kill": "signals", "killpg": "signals", "_exit": "os._exit", "spawnv": "subprocesses",
    "execv": "subprocesses", "execve": "subprocesses", "posix_spawn": "subprocesses",
    "tb_frame": "frames", "gi_frame": "frames", "cr_frame": "frames", "f_code": "frames",
}
NAMES = {"get_ipython": "get_ipython", "__builtins__": "builtins", "__import__": "__import__", "eval": "eval/exec",
         "exec": "eval/exec", "compile": "eval/exec", "breakpoint": "breakpoint", "globals": "globals()",
         "vars": "vars()"}
STRING_HINTS = ("memlib.course", "get_ipython", "sys.modules", "__code__", "__wrapped__", "__globals__",
                "__builtins__", "__import__", "importlib", "ctypes", "showtraceback", "set_custom_exc")


def exercise_key(cell: dict) -> str | None:
    """The exercise a cell holds, from its metadata (``memlib.exercise``), or None."""
    meta = cell.get("metadata", {}).get("memlib")
    if isinstance(meta, dict) and isinstance(meta.get("exercise"), str) and meta["exercise"]:
        return meta["exercise"]
    return None


def _marker_key(cell: dict) -> str | None:
    if cell.get("cell_type") != "code":
        return None
    numbers = EXERCISE_LINE_RE.findall(str(cell.get("source", "")))
    return ",".join(numbers) if numbers else None


def release_exercises(release: dict) -> dict[int, str]:
    """Index -> exercise key of the release's exercise cells."""
    found = {}
    for index, cell in enumerate(release.get("cells", [])):
        key = exercise_key(cell) or (_marker_key(cell) if "NotImplementedError" in str(cell.get("source", "")) else None)
        if key:
            found[index] = key
    return found


def _claims_a_release_cell(cell: dict, release: dict) -> bool:
    """A graded cell (by metadata or tag), an exercise cell, or a copy of a cell of the release."""
    meta = cell.get("metadata", {})
    memlib_meta = meta.get("memlib")
    tags = meta.get("tags")
    if isinstance(memlib_meta, dict) and (memlib_meta.get("grade_id") or memlib_meta.get("exercise")):
        return True
    if isinstance(tags, list) and "graded" in tags:
        return True
    source = str(cell.get("source", "")).strip()
    return _marker_key(cell) is not None or any(
        source == str(c.get("source", "")).strip() for c in release.get("cells", []))


def added_cells(release: dict, submission: dict) -> list[tuple[int, str]]:
    """(anchor, source) of every code cell the student added: helpers, scratch, their own tests.

    A cell is added when its id is not one of the release's and it is neither a
    graded cell, an exercise cell nor a copy of a release cell. Its anchor is the
    index in the release of the nearest cell above it in the submission that the
    release also has (-1: above all of them), so the clean run keeps the
    student's order: a helper written above its exercise still runs before it.
    """
    release_cells = release.get("cells", [])
    index_of_id = {c.get("id"): i for i, c in enumerate(release_cells) if c.get("id")}
    exercise_at = {key: i for i, key in release_exercises(release).items()}
    anchor, found = -1, []
    for cell in submission.get("cells", []):
        key = exercise_key(cell) or _marker_key(cell)
        if key in exercise_at:
            anchor = exercise_at[key]
        elif cell.get("id") in index_of_id:
            anchor = index_of_id[cell["id"]]
        elif cell.get("cell_type") == "code" and not _claims_a_release_cell(cell, release):
            source = str(cell.get("source", ""))
            if source.strip():
                found.append((anchor, source))
    return found


def clean_notebook(release: dict, submission: dict,
                   check_modules: Iterable[str] = ()) -> tuple[dict, list[str], dict[str, list[str]]]:
    """The release with its exercise cells replaced by the student's, and the cells they added.

    Returns the notebook, the exercises with no cell in the submission, and
    exercise -> the student's sources that were put in.

    Every cell of the submission that carries exercise N's metadata replaces
    the release's exercise N cell, in the submission's order (a student who
    kept a stub and solved a copy below it gets both). An exercise with no
    such cell falls back to the cells with its ``### EXERCISE N:`` line, and
    failing that keeps the release's stub. The cells the student added
    (`added_cells`) go in after their anchor, so helpers in cells of their own
    work, except those that reach into the checking machinery (`reaches_in`,
    with `check_modules`): a patch there would otherwise be replayed. Every
    other cell is the release's.
    """
    wanted = release_exercises(release)
    modules = list(check_modules)
    added: dict[int, list[str]] = {}
    for anchor, source in added_cells(release, submission):
        if not reaches_in(source, modules):
            added.setdefault(anchor, []).append(source)
    by_meta: dict[str, list[dict]] = {}
    by_marker: dict[str, list[dict]] = {}
    for cell in submission.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        key = exercise_key(cell)
        if key:
            by_meta.setdefault(key, []).append(cell)
        marker = _marker_key(cell)
        if marker:
            by_marker.setdefault(marker, []).append(cell)
    cells: list[dict] = [_added_cell(source) for source in added.get(-1, [])]
    missing: list[str] = []
    used: dict[str, list[str]] = {}
    for index, cell in enumerate(release.get("cells", [])):
        key = wanted.get(index)
        theirs = (by_meta.get(key) or by_marker.get(key)) if key is not None else None
        if key is None or not theirs:
            if key is not None:
                missing.append(key)
            cells.append(copy.deepcopy(cell))
        else:
            for own in theirs:
                replaced = copy.deepcopy(cell)
                replaced["source"] = str(own.get("source", ""))
                cells.append(replaced)
                used.setdefault(key, []).append(replaced["source"])
        cells += [_added_cell(source) for source in added.get(index, [])]
    nb = copy.deepcopy({k: v for k, v in release.items() if k != "cells"})
    nb["cells"] = cells
    return nb, missing, used


def _added_cell(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}


def check_modules(graded_sources: Iterable[str]) -> list[str]:
    """The modules graded cells import their checks from (``from fixture_checks import check_add``)."""
    found: list[str] = []
    for source in graded_sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module not in found:
                found.append(node.module)
    return found


def _python_source(source: str) -> str:
    """IPython syntax (``!cmd``, ``%magic``) turned into the Python it runs, so it can be parsed."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:  # IPython missing or a cell it cannot transform: parse as is
        return source


def reaches_in(source: str, check_modules: Iterable[str] = ()) -> list[str]:
    """What `source` touches of the checking machinery, as short labels (empty when nothing).

    `check_modules` are the modules the graded cells import their checks from;
    an exercise has no reason to import them either.
    """
    found: list[str] = []
    checks = {m for m in check_modules if m}

    def add(label: str) -> None:
        if label not in found:
            found.append(label)

    text = _python_source(source)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        for hint in STRING_HINTS:  # unparsable: fall back to looking at the text
            if hint in text:
                add(hint)
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _module(alias.name, add)
                if alias.name in checks:
                    add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            _module(node.module, add)
            if node.module in checks:
                add(node.module)
            if node.module == "memlib" and any(a.name == "course" for a in node.names):
                add("memlib.course")
            if node.module == "os":
                for alias in node.names:
                    if alias.name in ATTRIBUTES:
                        add(ATTRIBUTES[alias.name])
            if node.module == "sys" and any(a.name == "modules" for a in node.names):
                add("sys.modules")
        elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
            if node.attr == "modules" and not (isinstance(node.value, ast.Name) and node.value.id == "sys"):
                continue
            add(ATTRIBUTES[node.attr])
        elif isinstance(node, ast.Name) and node.id in NAMES:
            add(NAMES[node.id])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for hint in STRING_HINTS:
                if hint in node.value:
                    add(hint)
    return found


def _module(name: str, add: Callable[[str], None]) -> None:
    for prefix, label in MODULES.items():
        if name == prefix or name.startswith(prefix + "."):
            add(label)
