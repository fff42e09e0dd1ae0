"""Student-controlled text made inert wherever the grader writes it.

A student chooses their file names, zip member names, exception messages and
printed output, and all of them reach the gradebook, the class summary, the
progress line and the feedback files. Here is the one rule for each place:

- `terminal_text` / `terminal_line`: control characters (C0 but newline and
  tab, DEL, C1) and the invisible marks that reorder or hide text are shown
  as escapes (``\\x1b``, ``\\u202e``), so no escape sequence (CSI ``\\x1b[``,
  OSC ``\\x1b]``: colours, window titles, links, clipboard) reaches a terminal
  or a file; `terminal_line` also escapes newline and tab (one line stays one);
- `csv_text`: one gradebook cell: `terminal_line`, then a cell a spreadsheet
  would read as a formula gets a leading quote. Every CSV the grader and its
  tools write (gradebook, shards' merge, ``grade items``, ``grade export``)
  uses it; applying it twice changes nothing, so merged shards stay equal;
- `markdown_text`, `markdown_code`, `markdown_fence`: text in a feedback file
  that stays text: no raw HTML, no link, no line that starts a heading, and a
  code fence longer than any run of backticks in what it holds, so printed
  output cannot close it and forge a "passed" section;
- `_safe_filename`, `_feedback_stems`: a student's name as the name of their
  feedback file, distinct per student even where the file system ignores case.

The escapes are visible on purpose: an instructor sees that a name held a
control character. This module does not decide what is shown (the stages do)
and needs nothing beyond the standard library (``grade merge`` uses it).
"""

from __future__ import annotations

import html
import json
import re

__all__ = ["terminal_text", "terminal_line", "csv_text", "markdown_text", "markdown_code", "markdown_fence",
           "FORMULA_STARTS"]

# C0 controls but tab and newline, DEL, C1 controls; zero-width marks, bidirectional
# overrides and isolates, the byte order mark: they hide text or show it reordered. Lone surrogates:
# a file name's bytes that are not UTF-8 (Python keeps them as U+DC80-U+DCFF), which no UTF-8 file can hold.
_HIDDEN = "\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff"
#: The student code the grader parses on the host, per cell and per notebook (characters): parsing
#: costs about half a gigabyte per megabyte of code, and the course's longest solution notebook has
#: about a tenth of the notebook bound. A larger cell is not parsed (provenance flags it for a person).
CELL_READ_LIMIT_CHARS = 100_000
READ_LIMIT_CHARS = 400_000

_TERMINAL_RE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_HIDDEN}]")
_LINE_RE = re.compile(f"[\x00-\x1f\x7f-\x9f{_HIDDEN}]")
# A text cell starting with one of these is a formula to a spreadsheet.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_BACKTICKS_RE = re.compile("`+")
# What could start a link, an image or a code span in Markdown (raw HTML and entities: html.escape),
# and what starts a block (heading, quote, list, rule, fence, indented code) at the start of a line.
_MARKDOWN_RE = re.compile(r"([\\`\[\]])")
_BLOCK_MARK_RE = re.compile(r"^([#>+*_~=|-]|\d+(?=[.)]))")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """`text` with every control character but newline and tab shown as an escape.

    Example:
        >>> terminal_text("red\\x1b[31m\\x1b]0;owned\\x07 ok\\n")
        'red\\\\x1b[31m\\\\x1b]0;owned\\\\x07 ok\\n'
    """
    return _TERMINAL_RE.sub(_escape, str(text))


def terminal_line(text: str) -> str:
    """`terminal_text` that also escapes newlines and tabs: the text stays on one line."""
    return _LINE_RE.sub(_escape, str(text))


def csv_text(text: str) -> str:
    """A gradebook cell: on one line, no control character, and never a formula.

    Example:
        >>> csv_text('=HYPERLINK("http://x")'), csv_text("a\\nb"), csv_text(csv_text("-1"))
        ('\\'=HYPERLINK("http://x")', 'a\\\\x0ab', "'-1")
    """
    text = terminal_line(text)
    return "'" + text if text[:1] in FORMULA_STARTS else text


def markdown_text(text: str) -> str:
    """Student text inside a line of a feedback file: shown as typed, never markup.

    One line (`terminal_line`), HTML's special characters as entities, a
    backslash before what would open a link, an image or a code span, and
    nothing at its start that would begin a block, wherever it is put.
    """
    line = _MARKDOWN_RE.sub(r"\\\1", html.escape(terminal_line(text), quote=False))
    indent = len(line) - len(line.lstrip(" "))
    line = _BLOCK_MARK_RE.sub(lambda m: m.group() + "\\" if m.group()[0].isdigit() else "\\" + m.group(),
                              line[indent:])
    return "&#32;" * indent + line


def markdown_code(text: str) -> str:
    """An inline code span holding `text` on one line, whatever backticks it contains."""
    line = terminal_line(text)
    ticks = "`" * (1 + max((len(run) for run in _BACKTICKS_RE.findall(line)), default=0))
    # CommonMark drops one space at each end when both ends have one: pad so the span keeps them
    pad = " " if line.strip() and (line[0] in "` " or line[-1] in "` ") else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def markdown_fence(text: str) -> list[str]:
    """Lines of a fenced code block holding `text` (printed output, a traceback) and a blank line.

    The fence is longer than the longest run of backticks in the text, so no
    line of it can close the block: whatever it prints stays inside, as text.
    """
    body = terminal_text(text).rstrip()
    fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS_RE.findall(body)), default=0))
    return [fence, body, fence, ""]


def _safe_filename(name: str) -> str:
    """A student's name as a file name: letters, digits, dot, dash and underscore only."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return cleaned or "student"


def _feedback_stems(students: set[str]) -> dict[str, str]:
    """student -> feedback file name without ``.md``: distinct even where the file system ignores case."""
    stems: dict[str, str] = {}
    used: set[str] = set()
    for student in sorted(students):
        stem = _safe_filename(student)
        while stem.lower() in used:  # "a b" and "a_b", "sec1/alice" and "sec1_alice" must not share a file
            stem += "_"
        used.add(stem.lower())
        stems[student] = stem
    return stems


#: Metadata (a student cell's, a notebook's) past this many characters of JSON is cut to the keys grading reads.
METADATA_CHARS = 65_536


def small_metadata(metadata: object, keep: tuple[str, ...] = ("tags",)) -> dict:
    """A copy of `metadata` when it is a small dict; else only its `keep` keys that are small themselves
    (a cell's tags, a notebook's memlib stamp): a student's metadata can be megabytes of nesting."""
    if not isinstance(metadata, dict):
        return {}
    text = _json_or_empty(metadata)
    if 0 < len(text) <= METADATA_CHARS:
        return json.loads(text)
    kept = {}
    for key in keep:
        part = _json_or_empty(metadata.get(key)) if key in metadata else ""
        if 0 < len(part) <= METADATA_CHARS:
            kept[key] = json.loads(part)
    if isinstance(kept.get("tags"), list):
        kept["tags"] = [tag for tag in kept["tags"] if isinstance(tag, str)]
    return kept


def _json_or_empty(value: object) -> str:
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError, RecursionError):
        return ""
