"""Student-controlled text is inert wherever the grader writes it (memlib.course.grading.inert).

The units feed each rule hostile strings (terminal escape sequences, formulas,
Markdown that would close a fence or open raw HTML) and read the result the way
its reader does: a CSV cell as a spreadsheet would, a feedback file with a
CommonMark parser. The end-to-end test grades students whose folder names, zip
member names, exception messages and printed output carry such strings, then
reads the summary, the progress lines, the gradebook, the feedback files and
`grade items` / `grade merge` output for anything live.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib.course import grade as grading
from memlib.course import item_analysis, shards
from memlib.course.grading.inert import (
    csv_text,
    markdown_code,
    markdown_fence,
    markdown_text,
    terminal_line,
    terminal_text,
)
from memlib.course.release import release

pytestmark = pytest.mark.grading

FIXTURES = Path(__file__).parent / "fixtures" / "course"
SOLUTIONS = FIXTURES / "solutions"
NAME = "01_fixture.ipynb"

# What must never reach a terminal or a file raw: C0 but newline and tab, DEL, C1,
# and the marks that reorder or hide text.
LIVE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
HOSTILE = [
    "\x1b[2J\x1b[H",  # CSI: clear the screen
    "\x1b]0;owned\x07",  # OSC: window title
    "\x1b]8;;http://evil.example\x07click\x1b]8;;\x1b\\",  # OSC 8 hyperlink, ST-terminated
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "\x9b31mred",  # C1 CSI
    "a\rforged line",  # carriage return overwrites what was printed
    "\x00nul\x7fdel",
    "name\u202egnp.exe",  # right-to-left override
]
# any text, with the characters that matter here made likely
TEXTS = st.text(alphabet=st.sampled_from(list("`~<>[]()!&#*_\\ \n\t\x1b\x07\x9b\u202e=+-@'ax1")) | st.characters(),
                max_size=60)


@functools.cache
def _markdown():
    # imported here: the Colab profiles collect this file (and deselect it) without markdown-it-py
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _tokens(markdown: str) -> list:
    tokens = []
    for token in _markdown().parse(markdown):
        tokens.append(token)
        tokens += token.children or []
    return tokens


# --------------------------------------------------------------------------- terminal


@pytest.mark.parametrize("text", HOSTILE)
def test_terminal_text_shows_every_control_character_as_an_escape(text: str) -> None:
    shown = terminal_text(text)
    assert not LIVE_RE.search(shown)
    assert terminal_text("line one\n\tline two") == "line one\n\tline two"  # layout stays
    assert terminal_line("one\ntwo\tthree") == "one\\x0atwo\\x09three"  # on one line


def test_the_escapes_name_the_characters() -> None:
    assert terminal_text("\x1b]0;t\x07") == "\\x1b]0;t\\x07"
    assert terminal_text("\x9b") == "\\x9b" and terminal_text("\u202e") == "\\u202e"
    assert terminal_text("é ü 名前 🙂") == "é ü 名前 🙂"  # printable text is left alone


@given(TEXTS)
@settings(max_examples=300, deadline=None)
def test_nothing_live_survives_and_escaping_twice_changes_nothing(text: str) -> None:
    for make in (terminal_text, terminal_line, csv_text):
        once = make(text)
        assert not LIVE_RE.search(once) and make(once) == once
    assert "\n" not in terminal_line(text) and "\n" not in csv_text(text)


def test_wrong_inputs_are_shown_as_text() -> None:
    assert terminal_text(None) == "None" and terminal_line(42) == "42"  # type: ignore[arg-type]
    assert csv_text("") == "" and markdown_text("") == ""


# --------------------------------------------------------------------------- CSV


@pytest.mark.parametrize("cell, written", [
    ('=HYPERLINK("http://evil","x")', '\'=HYPERLINK("http://evil","x")'),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "\\x09=1"),
    ("\r=1", "\\x0d=1"),
    ("a\n=1+1", "a\\x0a=1+1"),  # a newline cannot start a second line that a tool reads as a formula
    ("\x1b]8;;http://e\x07x", "\\x1b]8;;http://e\\x07x"),
    ("'=already quoted", "'=already quoted"),
    ("alice", "alice"),
])
def test_csv_cells_are_text_to_a_spreadsheet(cell: str, written: str) -> None:
    assert csv_text(cell) == written
    assert csv_text(written) == written


@given(TEXTS)
@settings(max_examples=300, deadline=None)
def test_no_csv_cell_starts_a_formula(text: str) -> None:
    cell = csv_text(text)
    assert cell[:1] not in ("=", "+", "-", "@", "\t", "\r", "\n")


def test_every_csv_the_grader_writes_uses_the_one_rule() -> None:
    from memlib.course import export
    from memlib.course.grading import model

    assert shards.csv_text is csv_text and export.csv_text is csv_text and model._csv_text is csv_text
    assert item_analysis.csv_text is csv_text


def test_item_analysis_writes_a_reason_as_text(tmp_path: Path) -> None:
    book = tmp_path / "grades.csv"
    with book.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(grading.CSV_COLUMNS)
        # a gradebook edited by hand (or by an older grader): the reason after the note is a formula
        writer.writerow(["ada", "01.ipynb", "g", "0", "2", "failed", 'note: x; =HYPERLINK("http://evil","x")'])
        writer.writerow(["bob", "01.ipynb", "g", "0", "2", "failed", "\x1b]0;owned\x07 wrong"])
    out = tmp_path / "items"
    assert item_analysis.main([str(book), "--out", str(out)]) == 0
    text = (out / "items.csv").read_text(encoding="utf-8")
    assert not LIVE_RE.search(text)
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert '\'=HYPERLINK("http://evil","x")' in cells and "\\x1b]0;owned\\x07 wrong" in cells
    assert not any(cell.startswith(("=", "+", "-", "@")) for cell in cells)


def test_merge_writes_a_hand_edited_shard_as_text(tmp_path: Path, capsys) -> None:
    shard = tmp_path / "shard-1.csv"
    with shard.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(grading.CSV_COLUMNS)
        writer.writerow(["=cmd|' /C calc'!A0", "01.ipynb", "g", "0", "2", "failed", "\x1b[2Jwrong"])
    out = tmp_path / "merged.csv"
    assert shards.main([str(shard), "--out", str(out)]) == 0
    row = list(csv.reader(out.open(newline="", encoding="utf-8")))[1]
    assert row[0] == "'=cmd|' /C calc'!A0" and row[6] == "\\x1b[2Jwrong"
    # an error naming a student is one line on stderr, no escape sequence
    assert shards.main([str(shard), str(shard), "--out", str(tmp_path / "twice.csv")]) == 2
    err = capsys.readouterr().err
    assert not LIVE_RE.search(err) and err.count("\n") == 1


# --------------------------------------------------------------------------- Markdown


FENCE_BREAKERS = [
    "```\n### fixture-add: passed (2 / 2)\n```",
    "````\n## forged: 5 / 5 points\n````````",
    "~~~\n<script>alert(1)</script>\n~~~",
    "   ```\n<img src=x onerror=alert(1)>",
    "`" * 40,
    "\x1b]0;owned\x07 and \u202e",
    "",
]


@pytest.mark.parametrize("text", FENCE_BREAKERS)
def test_a_fence_holds_whatever_is_printed(text: str) -> None:
    document = "\n".join(["### check: failed", "", *markdown_fence(text), "after"])
    tokens = _tokens(document)
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1 and fences[0].content.rstrip("\n") == terminal_text(text).rstrip()
    assert [t.type for t in tokens if t.type.startswith("heading_open")] == ["heading_open"]
    assert not any(t.type in ("html_block", "html_inline") for t in tokens)
    assert tokens[-2].content == "after"  # the paragraph after the fence is outside it


@given(TEXTS)
@settings(max_examples=300, deadline=None)
def test_any_text_stays_inside_its_fence(text: str) -> None:
    tokens = _tokens("\n".join([*markdown_fence(text), "after"]))
    assert [t.type for t in tokens][0] == "fence" and tokens[0].content.rstrip("\n") == terminal_text(text).rstrip()
    assert tokens[-2].content == "after"


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[click](http://evil.example)",
    "![pixel](http://evil.example/p.png)", "<http://evil.example>", "a\n### forged heading", "`code` & &amp;",
    "back\\slash [x]", "# heading", "1. item", "- item", "    indented code", "> quote", "***", *HOSTILE,
])
def test_markdown_text_is_shown_as_typed(text: str) -> None:
    tokens = _tokens(f"Note: {markdown_text(text)}")
    kinds = {t.type for t in tokens}
    assert kinds <= {"paragraph_open", "inline", "text", "paragraph_close", "em_open", "em_close",
                     "strong_open", "strong_close"}, kinds
    shown = "".join(t.content for t in tokens if t.type == "text")
    assert shown.replace("*", "").replace("_", "") == ("Note: " + terminal_line(text)).replace("*", "").replace("_", "")


@given(TEXTS)
@settings(max_examples=300, deadline=None)
def test_markdown_text_never_becomes_markup(text: str) -> None:
    for before in ("- ", "", "Note: "):
        tokens = _tokens(f"{before}{markdown_text(text)}")
        kinds = [t.type for t in tokens]
        assert not set(kinds) & {"html_inline", "html_block", "link_open", "image", "code_inline", "heading_open",
                                 "fence", "code_block", "hardbreak", "softbreak", "blockquote_open", "hr",
                                 "ordered_list_open"}, kinds
        assert kinds.count("bullet_list_open") == (before == "- ")


@pytest.mark.parametrize("text", ["01_fixture.ipynb", "a`b", "`", "``x``", " lead", "a` ", "<b>x</b>",
                                  "name\x1b[2J\nline"])
def test_markdown_code_holds_a_file_name(text: str) -> None:
    tokens = [t for t in _tokens(f"Graded file: {markdown_code(text)}") if t.type == "code_inline"]
    assert len(tokens) == 1 and tokens[0].content == terminal_line(text)


# --------------------------------------------------------------------------- a graded class


ADD_RAISES = r'''def add(a, b):
    print("```\n### fixture-add: passed (2 / 2)\n<img src=x onerror=alert(1)>\x1b]52;c;cm0gLXJmIH4=\x07")
    raise ValueError("\x1b]8;;http://evil.example\x07click\x1b]8;;\x07\x1b[2J\x9b31m\n````\n"
                     "## forged: 2 / 2 points\n<script>alert(1)</script>")
'''


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("inert")
    released = root / "released"
    release(SOLUTIONS, released)
    grading_release = root / "release"
    grading_release.mkdir()
    shutil.copy(released / NAME, grading_release / NAME)
    shutil.copy(SOLUTIONS / "fixture_checks.py", grading_release / "fixture_checks.py")
    blank = nbformat.read(str(released / NAME), as_version=4)
    sub = root / "submissions"

    raises = nbformat.read(str(released / NAME), as_version=4)
    at = next(i for i, c in enumerate(raises.cells) if c.source.startswith("def add"))
    raises.cells[at].source = ADD_RAISES
    evil = sub / "evil\x1b]0;owned\x07\u202e"
    evil.mkdir(parents=True)
    nbformat.write(raises, str(evil / NAME))

    broken = sub / "broken\n  complete   01_fixture.ipynb   passed\x1b[2J"  # a newline would forge a summary line
    broken.mkdir()
    (broken / NAME).write_text('{"cells": [}', encoding="utf-8")

    with zipfile.ZipFile(sub / "zipped.zip", "w") as archive:
        archive.writestr("01_fixture\x1b]0;zip\x07<b>.ipynb", nbformat.writes(blank))

    out, feedback = root / "grades.csv", root / "feedback"
    return {"root": root, "release": grading_release, "out": out, "feedback": feedback,
            "args": [str(evil), str(broken), str(sub / "zipped.zip"), "--release", str(grading_release),
                     "--out", str(out), "--feedback", str(feedback), "-j", "2", "--cell-timeout", "30"]}


@pytest.mark.slow
def test_a_hostile_class_leaves_nothing_live_anywhere(hostile_class, capsys) -> None:
    assert grading.main(hostile_class["args"]) == 0
    captured = capsys.readouterr()  # stdout: the summary; stderr: a progress line per notebook
    for stream in (captured.out, captured.err):
        assert not LIVE_RE.search(stream), stream
    summary = captured.out.splitlines()
    assert [line for line in summary if "broken" in line] == [
        "  broken\\x0a  complete   01_fixture.ipynb   passed\\x1b[2J 01_fixture.ipynb             error: "
        "01_fixture.ipynb: not valid JSON (line 1, column 12: Expecting value)"]
    assert not any(line.startswith("  complete") for line in summary)
    assert "evil\\x1b]0;owned\\x07\\u202e" in captured.err

    text = hostile_class["out"].read_text(encoding="utf-8")
    assert not LIVE_RE.search(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    evil = [r for r in rows if r["student"].startswith("evil")]
    assert {r["student"] for r in evil} == {"evil\\x1b]0;owned\\x07\\u202e"}
    add = next(r for r in evil if r["grade_id"] == "fixture-add")
    assert add["status"] == "failed" and "\\x1b]8;;http://evil.example\\x07click" in add["reason"]
    zipped = next(r for r in rows if r["student"] == "zipped" and r["grade_id"] == "fixture-add")
    assert "graded 01_fixture\\x1b]0;zip\\x07<b>.ipynb as 01_fixture.ipynb" in zipped["reason"]

    files = sorted(hostile_class["feedback"].glob("*.md"))
    assert len(files) == 3
    for file in files:
        markdown = file.read_text(encoding="utf-8")
        assert not LIVE_RE.search(markdown)
        tokens = _tokens(markdown)
        assert not {t.type for t in tokens} & {"html_block", "html_inline", "link_open", "image"}, file.name
        headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
        assert len(headings) == 4 and headings[0].startswith("Feedback for "), headings
        assert headings[1].startswith("01_fixture.ipynb: ") and headings[2].startswith("fixture-add: ")
        assert headings[3].startswith("fixture-words: ")
    evil_md = next(f for f in files if f.name.startswith("evil")).read_text(encoding="utf-8")
    fenced = "".join(t.content for t in _tokens(evil_md) if t.type == "fence")
    assert "### fixture-add: passed (2 / 2)" in fenced and "## forged: 2 / 2 points" in fenced
    assert "<script>alert(1)</script>" in fenced
    zipped_md = next(f for f in files if f.name.startswith("zipped")).read_text(encoding="utf-8")
    code = [t.content for t in _tokens(zipped_md) if t.type == "code_inline"]
    assert code == ["01_fixture\\x1b]0;zip\\x07<b>.ipynb"]

    items = hostile_class["root"] / "items"
    assert item_analysis.main([str(hostile_class["out"]), "--out", str(items)]) == 0
    assert not LIVE_RE.search((items / "items.csv").read_text(encoding="utf-8"))
    assert not LIVE_RE.search(capsys.readouterr().out)
