"""Copies of the published reference (grading.copying): flagged for review, never penalised.

The reference of an exercise is its solution region in solutions/; an answer that is
that code up to names, comments, docstrings and layout carries a review flag. Honest
answers (tests/alternatives) and the blank stub carry none.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import tokenize
from pathlib import Path

import pytest
from conftest import honest_alternatives

from memlib.course.grade import GradeSetupError, load_release
from memlib.course.grading.copying import (COPY_FLAG, copy_flags, library_references, normal_form,
                                           read_references, references_of)

pytestmark = pytest.mark.grading

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
RELEASE = {a.name[:2]: a for a in load_release(ROOT / "notebooks", [])}
REFERENCES = read_references(SOLUTIONS, list(RELEASE.values()))



def _solution_cell(number: str, exercise: str) -> str:
    nb = json.loads((SOLUTIONS / RELEASE[number].name).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("memlib", {}).get("grade_id"):
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if f"### EXERCISE {exercise}:" in source:
            return source
    raise AssertionError(f"no exercise {exercise} in {number}")


RENAMED_01 = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(msgs, win, system_prompt="", reserve=0):
    total = count(system_prompt) + reserve
    n = 0
    for m in reversed(msgs):
        total += count(m) + MESSAGE_OVERHEAD
        if total > win:
            break
        n += 1
    return n
'''

#: Exercise 2 (notebook 03): comments and docstring gone, other line breaks and quotes, names changed.
REFORMATTED_03 = '''import math
from collections import Counter
def bm25_scores(q, docs, k1=1.5, b=0.75, epsilon=0.25):
    N = len(docs)
    if N == 0: return []
    counts = [Counter(d) for d in docs]
    df = Counter(t for c in counts for t in c)
    avg = sum(len(d) for d in docs) / N
    idf = {t: math.log(N - k + 0.5) - math.log(k + 0.5)
           for t, k in df.items()}
    low = epsilon * sum(idf.values()) / len(idf) if idf else 0.0
    idf = {t: low if v < 0 else v for t, v in idf.items()}
    out = []
    for d, c in zip(docs, counts):
        nrm = k1 * (1 - b + b * len(d) / avg)
        out.append(sum(idf[w] * c[w] * (k1 + 1) / (c[w] + nrm)
                       for w in q if w in c))
    return out
'''


def _without_comments(source: str) -> str:
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
    return tokenize.untokenize(tokens)


def _submission(number: str, code: str | None):
    """The released notebook `number`, its exercise cell holding `code` (None: the blank stub as released)."""
    assignment = RELEASE[number]
    nb = copy.deepcopy(assignment.nb)
    if code is not None:
        cell = next(c for c in nb.cells if c.get("metadata", {}).get("memlib", {}).get("exercise"))
        cell.source = code
    return nb, assignment


def _flags(number: str, code: str | None) -> dict[str, list[str]]:
    nb, assignment = _submission(number, code)
    return copy_flags(nb, assignment, REFERENCES)


def test_the_reference_verbatim_is_flagged_with_where_it_comes_from() -> None:
    flags = _flags("01", _solution_cell("01", "0"))
    assert list(flags) == ["01-token-budget"]
    (note,) = flags["01-token-budget"]
    assert note.startswith(COPY_FLAG) and "def how_many_fit of solutions/01_context_window.ipynb" in note


@pytest.mark.parametrize("number,code", [
    ("01", RENAMED_01),
    ("01", _without_comments(_solution_cell("01", "0")).replace("    ", "\t")),
    ("03", REFORMATTED_03),
], ids=["renamed", "comments-stripped-tabs", "reformatted-renamed"])
def test_a_disguised_copy_is_flagged(number: str, code: str) -> None:
    assert COPY_FLAG in " ".join(note for notes in _flags(number, code).values() for note in notes)


def test_a_copy_in_another_cell_under_another_name_is_flagged() -> None:
    nb, assignment = _submission("01", None)
    moved = RENAMED_01.replace("def how_many_fit", "def mine") + "\nhow_many_fit = mine\n"
    nb.cells.insert(assignment.graded[0].index, {"cell_type": "code", "source": moved, "metadata": {},
                                                 "outputs": [], "execution_count": None})
    assert "01-token-budget" in copy_flags(nb, assignment, REFERENCES)


def test_two_honest_answers_and_the_blank_stub_are_not_flagged() -> None:
    for name in ("correct_loop.py", "correct_cumsum.py"):
        code = (ROOT / "tests" / "alternatives" / "01-token-budget" / name).read_text(encoding="utf-8")
        assert _flags("01", code) == {}, name
    for number in RELEASE:
        assert _flags(number, None) == {}, number


def test_no_honest_alternative_answer_is_flagged() -> None:
    answers = honest_alternatives(RELEASE)
    for name, nb, assignment in answers:
        assert copy_flags(nb, assignment, REFERENCES) == {}, name
    assert len(answers) >= 150


def test_every_graded_exercise_with_a_long_enough_region_has_a_reference() -> None:
    ids = {g.grade_id for a in RELEASE.values() for g in a.graded}
    assert {"01-token-budget", "03-bm25", "07-guard", "09-consolidation"} <= set(REFERENCES) <= ids


def test_what_the_normal_form_keeps_apart() -> None:
    import ast

    def form(code: str) -> str:
        return normal_form(ast.parse(code).body[0])

    assert form("def f(a, b):\n    '''doc'''\n    x = a + b  # sum\n    return x") == form(
        "def g(p: int, q) -> int:\n    y = (p +\n         q)\n    return y")
    assert form("def f(a, b):\n    return a + b") != form("def f(a, b):\n    return a - b")
    assert form("def f(a, b):\n    return a + b") != form("def f(a, b):\n    return b + a")  # order of first use
    assert form("def f(a):\n    return len(a)") != form("def f(a):\n    return sum(a)")  # globals keep their names
    assert form("def f(a):\n    return a.items") != form("def f(a):\n    return a.keys")  # and attributes too


def test_bad_input_solutions_folder_missing_empty_or_broken(tmp_path: Path) -> None:
    assignments = [RELEASE["01"]]
    with pytest.raises(GradeSetupError, match="is not a folder"):
        read_references(tmp_path / "nowhere", assignments)
    with pytest.raises(GradeSetupError, match="holds no solution of the released notebooks"):
        read_references(tmp_path, assignments)
    (tmp_path / RELEASE["01"].name).write_text("{not json", encoding="utf-8")
    with pytest.raises(GradeSetupError, match="cannot read the solution"):
        read_references(tmp_path, assignments)


def test_bad_input_cells_that_do_not_parse_and_solutions_without_regions_raise_nothing() -> None:
    nb, assignment = _submission("01", "def how_many_fit(:\n")
    nb.cells.insert(1, {"cell_type": "code", "metadata": {}, "outputs": []})  # no source at all
    assert copy_flags(nb, assignment, REFERENCES) == {}
    assert references_of({"cells": [{"cell_type": "code", "source": "x = (", "metadata": {}}]}) == []
    assert references_of({}) == []


def test_the_item_report_counts_copies(tmp_path: Path) -> None:
    from memlib.course import item_analysis

    book = tmp_path / "grades.csv"
    book.write_text(
        "student,notebook,grade_id,points,max_points,status,reason\n"
        f"ann,01.ipynb,01-token-budget,2,2,passed,\"{COPY_FLAG} (def how_many_fit)\"\n"
        "bob,01.ipynb,01-token-budget,2,2,passed,\"review: read from the notebook's source: y\"\n"
        "cy,01.ipynb,01-token-budget,2,2,passed,\n", encoding="utf-8")
    assert item_analysis.main([str(book), "--out", str(tmp_path / "items")]) == 0
    row = next(csv.DictReader((tmp_path / "items" / "items.csv").open(encoding="utf-8")))
    assert (row["review"], row["copies"]) == ("2", "1")


@pytest.mark.slow
def test_the_real_grader_flags_copies_and_only_copies(tmp_path: Path) -> None:
    """Exercise 0 graded with the command line (bubblewrap): copies flagged, points as earned."""
    from memlib.course import grade as grading

    honest = ROOT / "tests" / "alternatives" / "01-token-budget"
    answers = {
        "verbatim": _solution_cell("01", "0"),
        "renamed": RENAMED_01,
        "stripped": _without_comments(_solution_cell("01", "0")),
        "honest_loop": (honest / "correct_loop.py").read_text(encoding="utf-8"),
        "honest_cumsum": (honest / "correct_cumsum.py").read_text(encoding="utf-8"),
        "blank": None,
    }
    folders = []
    for student, code in answers.items():
        nb, assignment = _submission("01", code)
        folder = tmp_path / "class" / student
        folder.mkdir(parents=True)
        (folder / assignment.name).write_text(json.dumps(nb), encoding="utf-8")
        folders.append(str(folder))
    out = tmp_path / "grades.csv"
    assert grading.main([*folders, "--release", str(ROOT / "notebooks"), "--solutions", str(SOLUTIONS),
                         "--assignment", "01", "--out", str(out), "--sandbox", "bwrap", "-j", "2", "--quiet",
                         "--timeout", "600"]) == 0
    rows = {r["student"]: r for r in csv.DictReader(out.open(encoding="utf-8")) if r["grade_id"] == "01-token-budget"}
    assert len(rows) == len(answers)
    for student in ("verbatim", "renamed", "stripped"):
        assert rows[student]["status"] == "passed" and rows[student]["points"] == rows[student]["max_points"]
        assert COPY_FLAG in rows[student]["reason"], rows[student]
    for student in ("honest_loop", "honest_cumsum"):
        assert rows[student]["status"] == "passed" and COPY_FLAG not in rows[student]["reason"], rows[student]
    assert rows["blank"]["status"] == "failed" and COPY_FLAG not in rows["blank"]["reason"]


def test_bad_input_the_command_line_refuses_a_missing_solutions_folder(tmp_path: Path, capsys) -> None:
    from memlib.course import grade as grading

    out = tmp_path / "grades.csv"
    nb, assignment = _submission("01", None)
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / assignment.name).write_text(json.dumps(nb), encoding="utf-8")
    assert grading.main([str(tmp_path / "ann"), "--release", str(ROOT / "notebooks"), "--solutions",
                         str(tmp_path / "nowhere"), "--out", str(out), "--sandbox", "none", "--quiet"]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert not out.read_text(encoding="utf-8")  # created empty by the early check, no rows written


LIBRARY = library_references(list(RELEASE.values()))


def test_a_copy_of_memlibs_own_reference_is_flagged_too() -> None:
    """The fresh instructor's walk: the student repository ships memlib, references included; a copy of a
    reference's text (here 01's, its names changed) is as much a copy as one of the solution."""
    import inspect

    from memlib.course.checks.nb01_token_budget import reference_how_many_fit

    source = inspect.getsource(reference_how_many_fit).replace("reference_how_many_fit", "how_many_fit")
    code = "from memlib.context import MESSAGE_OVERHEAD\nfrom memlib.tokens import count\n\n" + source
    flags = copy_flags(*_submission("01", code), LIBRARY)
    assert "memlib's memlib.course.checks.nb01_token_budget:reference_how_many_fit" in flags["01-token-budget"][0]
    assert flags["01-token-budget"][0].startswith(COPY_FLAG)


def test_no_honest_alternative_answer_matches_memlibs_references() -> None:
    answers = honest_alternatives(RELEASE)
    for name, nb, assignment in answers:
        assert copy_flags(nb, assignment, LIBRARY) == {}, name
