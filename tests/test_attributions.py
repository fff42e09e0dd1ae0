"""A notebook that gives a number to the paper, MemGPT or Letta says where it was read.

Every markdown sentence of the solution notebooks that names "the paper", MemGPT or Letta and
states a number (a share, a limit, a count) must have a registry key of `memlib.sources` in its
cell, written as `` `paper.flush` ``, or in a `sources_table(...)` of one of the two code cells
right after it (the two ways the notebooks render keys). Numbers that are not claims (notebook
numbers, versions, years and dates, arXiv ids, sections, list numbering, code in backticks) are
left out; the glance cells and notebook 00's map are generated and hold none.
"""

import json
import re

from memlib.sources import SOURCES
from conftest import ROOT

WHO = re.compile(r"\b(the paper|paper's|MemGPT|Letta)\b")
KEY = re.compile(r"\b(?:paper|memgpt|letta|mem0)\.[a-z_0-9]+\b")
NUMBER = re.compile(r"(?<![\w.#§/-])\d[\d,]*(?:\.\d+)?(?:\s?%)?(?![\w.-]*\w)")
NOT_CLAIMS = [
    r"`[^`]*`",                                                  # code: names, not claims
    r"\]\([^)]*\)",                                              # link targets
    r"(?i)\b(?:notebooks?|exercise|cell|§|section|Table|Figure|issues?|tag|release|version)s?\s+"
    r"[\d., –-]+(?:(?:and|or)\s+\d+)?",
    r"\b\d+\.\d+\.\d+\b",                                        # versions
    r"\b\d{4}\.\d{4,5}\b",                                       # arXiv ids
    r"\b\d+ commits\b",
    r"\bMemGPT \d+\.\d+\b",                                      # "MemGPT 0.3"
    r"\s\d+\.\s*$",                                              # a list item's number
    r"\b(?:19|20)\d\d(?:-\d\d(?:-\d\d)?)?\b",                    # years and dates
    r"\b\d\d\s?·",                                               # "11 · Then and now"
]
SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*])|\n(?=\|)|\n\n")
#: Sentences whose numbers are memlib's own, not a source's: (cell id, the number).
MEMLIB_NUMBERS = {("11-25-surfaces-guess-h", "7")}  # memlib's seven tools, in a question about Letta's


def claimed_numbers(sentence):
    for pattern in NOT_CLAIMS:
        sentence = re.sub(pattern, " ", sentence)
    return NUMBER.findall(sentence)


def unsourced_attributions():
    found = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        for i, cell in enumerate(cells):
            if cell["cell_type"] != "markdown" or cell["id"].endswith(("-glance", "-map")):
                continue
            text = "".join(cell["source"])
            rendered = text + "".join("".join(c["source"]) for c in cells[i + 1:i + 3] if c["cell_type"] == "code")
            if any(key in SOURCES for key in KEY.findall(rendered)):
                continue
            for sentence in SENTENCES.split(text):
                numbers = [n for n in claimed_numbers(sentence) if (cell["id"], n) not in MEMLIB_NUMBERS]
                if WHO.search(sentence) and numbers:
                    found.append((path.name, cell["id"], numbers, " ".join(sentence.split())[:120]))
    return found


def test_every_number_given_to_the_paper_memgpt_or_letta_cites_the_registry():
    assert unsourced_attributions() == []


def test_the_finder_tells_claims_from_other_numbers():
    assert claimed_numbers("Letta compacts at 90 % of the window.") == ["90 %"]
    assert claimed_numbers("notebook 11 shows MemGPT 0.3.25 (arXiv:2310.08560, §2.2) in 2024") == []
    assert not WHO.search("memlib evicts at 100 %") and WHO.search("the paper evicts at 100 %")


def test_every_key_written_in_a_notebook_exists():
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                for key in re.findall(r"`((?:paper|memgpt|letta|mem0)\.[a-z_0-9]+)`", "".join(cell["source"])):
                    assert key in SOURCES, (path.name, cell["id"], key)
