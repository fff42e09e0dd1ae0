"""Translated notebooks: the solutions' markdown in another language, kept in gettext catalogues.

One catalogue per notebook and language, ``i18n/<lang>/NN_topic.po``: each
markdown cell of ``solutions/NN_topic.ipynb`` is an entry whose ``msgctxt`` is
the cell id, ``msgid`` the English source and ``msgstr`` its translation. The
``.po`` format is the one translators' tools (Poedit, Weblate, Lokalize) open.
Code cells are not translated: a translated notebook runs the same code and is
graded by the same checks; its metadata carries ``memlib.language``
(`memlib.course.lang`), and its setup cell makes the checks speak it.

The workflow:

* ``python -m memlib.course.translation extract solutions/ i18n/zh`` writes the
  English of every notebook that has a catalogue into it: a new cell gets an
  empty entry, a removed cell's entry goes, a changed cell's entry keeps its
  translation marked ``#, fuzzy`` with the English it was made from (``#| msgid``).
  ``--new NN_topic`` starts the catalogue of one more notebook.
* a translator fills ``msgstr`` and removes ``#, fuzzy``;
* ``python -m memlib release solutions/ notebooks/`` writes ``notebooks/<lang>/``
  next to the English release (`release_translations`, run by
  `memlib.course.release_all`), and ``--check`` fails on a missing, empty or stale translation, naming the
  notebook and cell.

A stale or missing entry is released in English (the notebook stays whole
and runnable) and reported; it is never guessed. The catalogue reader and
writer are small and written here (only what the course's catalogues use:
``msgctxt``, ``msgid``, ``msgstr``, ``#:``, ``#,`` and ``#|`` comments).
"""

from __future__ import annotations

import argparse
import copy
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from memlib.course import lang, release

__all__ = [
    "CatalogueError",
    "Entry",
    "read_catalogue",
    "write_catalogue",
    "render_catalogue",
    "english_entries",
    "extract",
    "problems",
    "translate_solution",
    "solution_of",
    "solved_notebook",
    "release_translations",
    "check_translations",
    "main",
]

#: Where catalogues live: ``<root>/i18n/<lang>/``, next to solutions/.
CATALOGUE_DIR = "i18n"


class CatalogueError(ValueError):
    """A catalogue file that cannot be read (the message names the file and line)."""


@dataclass(frozen=True)
class Entry:
    """One translatable cell: its id, the English and the translation (empty when not yet translated)."""

    cell_id: str
    english: str
    translation: str = ""
    fuzzy: bool = False
    previous: str = ""  # the English a fuzzy translation was made from
    where: str = ""  # "NN_topic.ipynb" for the #: reference
    comments: tuple[str, ...] = field(default=(), compare=False)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return f'"{escaped}"'


def _field(prefix: str, keyword: str, text: str) -> list[str]:
    """A gettext field: one line when short and single-line, else ``""`` and one quoted line per source line."""
    if "\n" not in text and len(text) < 70:
        return [f"{prefix}{keyword} {_quote(text)}"]
    parts = text.splitlines(keepends=True)
    return [f'{prefix}{keyword} ""'] + [f"{prefix}{_quote(part)}" for part in parts]


def render_catalogue(entries: list[Entry], language: str) -> str:
    """The ``.po`` text of `entries` (a header, then one block per entry, in notebook order)."""
    lines = ['msgid ""', 'msgstr ""', _quote("Content-Type: text/plain; charset=UTF-8\n"),
             _quote(f"Language: {language}\n"), ""]
    for entry in entries:
        lines += [f"#: {entry.where}" if entry.where else "#:"]
        if entry.fuzzy:
            lines.append("#, fuzzy")
            if entry.previous:
                lines += _field("#| ", "msgid", entry.previous)
        lines += _field("", "msgctxt", entry.cell_id)
        lines += _field("", "msgid", entry.english)
        lines += _field("", "msgstr", entry.translation)
        lines.append("")
    return "\n".join(lines)


def write_catalogue(path: Path, entries: list[Entry], language: str) -> bool:
    """Write `entries` to `path` if its text changes; True when it was written."""
    text = render_catalogue(entries, language)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def _unquote(token: str, path: Path, number: int) -> str:
    token = token.strip()
    if len(token) < 2 or not token.startswith('"') or not token.endswith('"'):
        raise CatalogueError(f"{path}, line {number}: expected a quoted string, found {token[:40]!r}")
    out, body, i = [], token[1:-1], 0
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    while i < len(body):
        char = body[i]
        if char == "\\":
            if i + 1 >= len(body) or body[i + 1] not in escapes:
                raise CatalogueError(f"{path}, line {number}: unknown escape in {token[:40]!r}")
            out.append(escapes[body[i + 1]])
            i += 2
            continue
        if char == '"':
            raise CatalogueError(f"{path}, line {number}: an unescaped quote inside {token[:40]!r}")
        out.append(char)
        i += 1
    return "".join(out)


def read_catalogue(path: Path) -> list[Entry]:
    """The entries of the ``.po`` file at `path` (the header entry left out); `CatalogueError` names a bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogueError(f"{path}: cannot read the catalogue ({error})") from None
    entries: list[Entry] = []
    block: dict[str, str] = {}
    flags: set[str] = set()
    where = ""
    current: str | None = None

    def finish() -> None:
        nonlocal block, flags, where, current
        if "msgid" in block:
            if "msgstr" not in block:
                raise CatalogueError(f"{path}: the entry for {block.get('msgctxt', block['msgid'])[:40]!r} has no msgstr")
            if block["msgid"] or "msgctxt" in block:  # the header has an empty msgid and no context
                if not block.get("msgctxt"):
                    raise CatalogueError(f"{path}: the entry {block['msgid'][:40]!r} has no msgctxt (its cell id)")
                entries.append(Entry(block["msgctxt"], block["msgid"], block["msgstr"], "fuzzy" in flags,
                                     block.get("previous", ""), where))
        elif block:
            raise CatalogueError(f"{path}: an entry without msgid near {next(iter(block.values()))[:40]!r}")
        block, flags, where, current = {}, set(), "", None

    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            finish()
            continue
        if stripped.startswith("#|"):
            rest = stripped[2:].strip()
            if rest.startswith("msgid "):
                current = "previous"
                block["previous"] = _unquote(rest[len("msgid "):], path, number)
            elif rest.startswith('"') and current == "previous":
                block["previous"] += _unquote(rest, path, number)
            continue
        if stripped.startswith("#,"):
            flags.update(flag.strip() for flag in stripped[2:].split(","))
            continue
        if stripped.startswith("#:"):
            where = stripped[2:].strip()
            continue
        if stripped.startswith("#"):
            continue
        keyword, _, rest = stripped.partition(" ")
        if keyword in ("msgctxt", "msgid", "msgstr"):
            if keyword in block or (keyword == "msgctxt" and "msgid" in block):
                finish()
            current = keyword
            block[keyword] = _unquote(rest, path, number)
        elif stripped.startswith('"') and current in ("msgctxt", "msgid", "msgstr"):
            block[current] += _unquote(stripped, path, number)
        else:
            raise CatalogueError(f"{path}, line {number}: cannot read {stripped[:40]!r} (expected msgctxt, msgid, "
                                 "msgstr, a quoted string or a comment)")
    finish()
    seen: set[str] = set()
    for entry in entries:
        if entry.cell_id in seen:
            raise CatalogueError(f"{path}: cell {entry.cell_id!r} has two entries; keep one")
        seen.add(entry.cell_id)
    return entries


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def english_entries(solution: dict, name: str) -> list[Entry]:
    """An untranslated entry for each markdown cell of `solution` that a translation replaces.

    The Colab badge is left out: the release writes it (pointing at the translated notebook).
    """
    entries = []
    for cell in solution.get("cells", []):
        if cell.get("cell_type") != "markdown" or release.TAG_COLAB_BADGE in release._tags(cell):
            continue
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not cell_id:
            raise CatalogueError(f"{name}: a markdown cell has no id; save the notebook with Jupyter (nbformat 4.5)")
        entries.append(Entry(cell_id, _source(cell), where=name))
    return entries


def _merge(fresh: list[Entry], old: list[Entry]) -> list[Entry]:
    """`fresh` English entries with the translations of `old` carried over (fuzzy where the English changed)."""
    by_id = {entry.cell_id: entry for entry in old}
    merged = []
    for entry in fresh:
        before = by_id.get(entry.cell_id)
        if before is None or not before.translation:
            merged.append(entry)
        elif before.english == entry.english:
            merged.append(replace(entry, translation=before.translation, fuzzy=before.fuzzy,
                                  previous=before.previous))
        else:
            merged.append(replace(entry, translation=before.translation, fuzzy=True,
                                  previous=before.previous if before.fuzzy and before.previous else before.english))
    return merged


def solution_of(solutions: Path, stem: str) -> dict:
    """The solution notebook a catalogue translates (`CatalogueError` when it is missing or broken)."""
    path = solutions / f"{stem}.ipynb"
    if not path.is_file():
        raise CatalogueError(f"no solution notebook {path} for the catalogue {stem}.po; delete the catalogue "
                             "or restore the notebook")
    try:
        return nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    except Exception as error:  # nbformat raises several types for broken JSON
        raise CatalogueError(f"{path}: cannot read the notebook ({error}); fix the file in Jupyter") from None


def extract(solutions: str | Path, catalogues: str | Path, *, new: list[str] | tuple[str, ...] = ()) -> list[Path]:
    """Bring every catalogue in `catalogues` up to date with `solutions` (and start one for each stem in `new`).

    Returns the catalogues written. The language is the folder's name (``i18n/zh`` -> ``zh``).
    """
    solutions, folder = Path(solutions), Path(catalogues)
    language = lang._known(folder.name)
    stems = sorted({path.stem for path in folder.glob("*.po")} | set(new))
    written = []
    for stem in stems:
        fresh = english_entries(solution_of(solutions, stem), f"{stem}.ipynb")
        path = folder / f"{stem}.po"
        old = read_catalogue(path) if path.exists() else []
        if write_catalogue(path, _merge(fresh, old), language):
            written.append(path)
    return written


def problems(solution: dict, name: str, entries: list[Entry]) -> list[str]:
    """What keeps `entries` from translating `solution` (empty when every cell has a current translation)."""
    fresh = {entry.cell_id: entry for entry in english_entries(solution, name)}
    have = {entry.cell_id: entry for entry in entries}
    found = []
    for cell_id, entry in fresh.items():
        got = have.get(cell_id)
        if got is None:
            found.append(f"{name}, cell {cell_id}: no entry; run the extract command")
        elif got.english != entry.english:
            found.append(f"{name}, cell {cell_id}: stale, the English changed since it was translated; "
                         "run the extract command and update the translation")
        elif got.fuzzy:
            found.append(f"{name}, cell {cell_id}: marked fuzzy; check the translation and remove '#, fuzzy'")
        elif not got.translation.strip():
            found.append(f"{name}, cell {cell_id}: not translated yet")
    for cell_id in have.keys() - fresh.keys():
        found.append(f"{name}, cell {cell_id}: the catalogue has an entry for a cell the notebook no longer has")
    return found


def translate_solution(solution: dict, entries: list[Entry], language: str) -> dict:
    """A copy of `solution` whose markdown is translated where `entries` has a current translation."""
    usable = {e.cell_id: e for e in entries if e.translation.strip() and not e.fuzzy}
    nb = copy.deepcopy(dict(solution))
    for cell in nb.get("cells", []):
        entry = usable.get(cell.get("id"))
        if cell.get("cell_type") == "markdown" and entry is not None and entry.english == _source(cell):
            cell["source"] = entry.translation
    metadata = nb.setdefault("metadata", {})
    metadata["memlib"] = {**metadata.get("memlib", {}), "language": language}
    return nb


def solved_notebook(solution: dict, entries: list[Entry], language: str) -> dict:
    """`solution` as a student who solved its translated notebook has it: the markdown translated, the setup cell
    making the checks speak `language` (what tests run as the solved translated notebook)."""
    nb = translate_solution(solution, entries, language)
    _set_language_in_setup(nb, language)
    return nb


def _set_language_in_setup(nb: dict, language: str) -> None:
    """The setup cell also makes the checks speak `language` (a front end runs it; the grader reads the metadata)."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code" and release.TAG_COLAB_SETUP in release._tags(cell):
            cell["source"] = (_source(cell) + "\n\n# 检查、提示和环境检查都用中文输出。\n"
                              "from memlib.course.lang import use_language\n\n"
                              f"use_language({language!r})")
            return


def _render_language(root: Path, solutions: Path, notebooks: Path, language: str) -> tuple[dict[str, str], list[str]]:
    """name -> released text of each translated notebook, and the translation problems found."""
    rendered, found = {}, []
    for path in sorted((root / CATALOGUE_DIR / language).glob("*.po")):
        name = f"{path.stem}.ipynb"
        solution = solution_of(solutions, path.stem)
        entries = read_catalogue(path)
        found += problems(solution, name, entries)
        nb = release.release_notebook(translate_solution(solution, entries, language), name,
                              notebooks_dir=f"{notebooks.name}/{language}", warn=False)
        _set_language_in_setup(nb, language)
        for cell in nb.cells:
            if cell.get("cell_type") == "markdown":
                cell["source"] = _source(cell).replace(release.MARKDOWN_STUB, lang.say("markdown_stub", language))
        rendered[name] = release.render_notebook(nb)
    return rendered, found


def _languages(root: Path) -> list[str]:
    folder = root / CATALOGUE_DIR
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name in lang.LANGUAGES) if folder.is_dir() else []


def release_translations(solutions: str | Path, notebooks: str | Path) -> tuple[list[Path], list[str]]:
    """Write ``notebooks/<lang>/`` for every catalogue folder next to `solutions`; (paths written, problems)."""
    solutions, notebooks = Path(solutions), Path(notebooks)
    written, found = [], []
    for language in _languages(solutions.resolve().parent):
        rendered, issues = _render_language(solutions.resolve().parent, solutions, notebooks, language)
        found += issues
        folder = notebooks / language
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in rendered.items():
            target = folder / name
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
                written.append(target)
        for extra in sorted(folder.glob("*.ipynb")):
            if extra.name not in rendered:
                extra.unlink()
    return written, found


def check_translations(solutions: str | Path, notebooks: str | Path) -> list[str]:
    """Translation problems, and translated notebooks that differ from a fresh release (empty when all is current)."""
    solutions, notebooks = Path(solutions), Path(notebooks)
    found = []
    for language in _languages(solutions.resolve().parent):
        rendered, issues = _render_language(solutions.resolve().parent, solutions, notebooks, language)
        found += issues
        folder = notebooks / language
        for name, text in rendered.items():
            target = folder / name
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                found.append(f"{target} differs from a fresh release; run `python -m memlib release "
                             f"{solutions} {notebooks}`")
        for extra in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
            if extra.name not in rendered:
                found.append(f"{extra} has no catalogue {CATALOGUE_DIR}/{language}/{extra.stem}.po; delete it")
    return found


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib.course.translation extract SOLUTIONS CATALOGUES [--new NN_topic ...]``."""
    parser = argparse.ArgumentParser(prog="python -m memlib.course.translation",
                                     description="Keep the translation catalogues in step with the solutions.")
    sub = parser.add_subparsers(dest="command", required=True)
    extract_parser = sub.add_parser("extract", help="write the solutions' English into the catalogues")
    extract_parser.add_argument("solutions", type=Path, help="folder of solution notebooks (solutions/)")
    extract_parser.add_argument("catalogues", type=Path, help="folder of one language's catalogues (i18n/zh)")
    extract_parser.add_argument("--new", action="append", default=[], metavar="NN_topic",
                                help="start the catalogue of this notebook too")
    args = parser.parse_args(argv)
    try:
        written = extract(args.solutions, args.catalogues, new=args.new)
    except (CatalogueError, ValueError) as error:
        print(f"extract failed: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print(f"{len(written)} catalogue(s) written, the others were already current")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
