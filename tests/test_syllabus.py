"""The syllabus is generated from the notebooks and their metadata, and kept current.

Every notebook states its track, minutes, prerequisites and objectives; its glance cell,
notebook 00's map, the "Next:" links and the README's tables are written from them.
"""

import json
import shutil

import pytest

from memlib.course.release import release
from memlib.course.syllabus import (README_BEGIN, README_END, main, measure, read_course,
                                    read_notebook, refresh)
from conftest import NOTEBOOKS, ROOT, SOLUTIONS

README = ROOT / "README.md"
FIELDS = ("track", "minutes", "prerequisites", "objectives")


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _save(path, nb):
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.fixture
def solutions_copy(tmp_path):
    """A copy of the solutions with the README next to them, as in the repository."""
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    shutil.copy(README, tmp_path / "README.md")
    return tmp_path / "solutions"


def test_the_generated_cells_and_the_readme_are_current():
    assert refresh(SOLUTIONS, readme=README) == []
    assert main([str(SOLUTIONS), "--check"]) == 0


def test_every_notebook_has_valid_metadata_and_the_core_track_states_its_walk():
    infos = read_course(SOLUTIONS)  # validates every notebook's metadata
    core = [i for i in infos if i.track == "core"]
    assert {i.number for i in core} == {"00", "01", "02", "03", "04", "06", "07", "08"}
    assert all(i.walked and i.walked[0] <= i.minutes <= i.walked[1] for i in core)
    hours = f"about {round(sum(i.minutes for i in core) / 30) // 2} hours"
    for info in infos:
        cells = _load(SOLUTIONS / info.filename)["cells"]
        assert cells[1]["id"] == f"{info.number}-00-glance", info.filename
        assert f"about {info.minutes} minutes" in "".join(cells[1]["source"])
    welcome = "".join(_load(SOLUTIONS / "00_welcome.ipynb")["cells"][1]["source"])
    assert hours in welcome and "[05 · Who decides what to remember](05_who_decides.ipynb)" in welcome


def test_every_notebook_title_carries_its_own_number():
    infos = read_course(SOLUTIONS)
    assert [i.number for i in infos] == [f"{n:02d}" for n in range(len(infos))]
    steps = dict(read_course(SOLUTIONS)[5].exercises)["2c"]  # an exercise in steps: every step's line
    assert steps.startswith("in 4 steps: store(view)") and "; next_call(view): " in steps
    graded = {i.number for i in infos if i.exercises}
    assert graded == {"01", "02", "03", "04", "05", "06", "07", "08", "09"}


def test_next_links_follow_the_core_track_and_deep_dives_lead_back_to_the_map():
    def next_of(stem):
        cells = _load(SOLUTIONS / f"{stem}.ipynb")["cells"]
        return next("".join(c["source"]) for c in reversed(cells) if "".join(c["source"]).startswith("Next:"))

    assert next_of("04_memory_tools") == "Next: [06 · Citations](06_citations.ipynb)"  # 05 is a deep dive
    last_core = next_of("08_typed_core_memory")
    assert "last notebook of the core track" in last_core and "(09_governed_memory.ipynb)" in last_core
    for deep_dive in ("05_who_decides", "09_governed_memory", "10_experiments_production"):
        assert next_of(deep_dive).startswith("Next: back to the map in [00 · Welcome](00_welcome.ipynb)")


def test_the_release_carries_the_metadata_into_the_student_notebooks(tmp_path):
    release(SOLUTIONS, tmp_path)
    for path in sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb")):
        stated = {k: _load(path)["metadata"]["memlib"][k] for k in FIELDS}
        for released in (tmp_path / path.name, NOTEBOOKS / path.name):
            meta = _load(released)["metadata"]["memlib"]
            assert {k: meta[k] for k in FIELDS} == stated and meta["assignment"] == path.stem
        glance = "".join(_load(tmp_path / path.name)["cells"][1]["source"])
        assert glance.startswith(("> **Core track**", "> **Deep dive, optional**"))


def test_a_drifted_title_and_changed_minutes_are_found_and_rewritten(solutions_copy, capsys):
    path = solutions_copy / "06_citations.ipynb"
    nb = _load(path)
    nb["cells"][0]["source"][0] = nb["cells"][0]["source"][0].replace("Citations", "Sources and citations", 1)
    _save(path, nb)
    path = solutions_copy / "07_memory_poisoning.ipynb"
    nb = _load(path)
    nb["metadata"]["memlib"]["minutes"] += 5
    _save(path, nb)
    assert main([str(solutions_copy), "--check"]) == 1
    assert "04_memory_tools.ipynb: the Next link" in capsys.readouterr().out
    assert sorted(refresh(solutions_copy, readme=solutions_copy.parent / "README.md", write=True)) == [
        "00_welcome.ipynb: the glance cell", "00_welcome.ipynb: the map", "04_memory_tools.ipynb: the Next link",
        "07_memory_poisoning.ipynb: the glance cell",
        "09_governed_memory.ipynb: the glance cell", "README.md: the syllabus section"]  # 09 needs 06
    assert main([str(solutions_copy), "--check"]) == 0
    assert "[Sources and citations](06_citations.ipynb)" in (solutions_copy / "00_welcome.ipynb").read_text()


def test_missing_glance_and_next_cells_are_added(solutions_copy):
    """A new notebook needs only its title and metadata: the generator adds the rest."""
    path = solutions_copy / "10_experiments_production.ipynb"
    nb = _load(path)
    nb["cells"] = [c for c in nb["cells"] if not "".join(c["source"]).startswith("Next:")
                   and c["id"] != "10-00-glance"]
    _save(path, nb)
    assert refresh(solutions_copy, readme=solutions_copy.parent / "README.md", write=True) == [
        "10_experiments_production.ipynb: the glance cell", "10_experiments_production.ipynb: the Next link"]
    cells = _load(path)["cells"]
    assert cells[0]["id"] == "10-01-title" and cells[1]["id"] == "10-00-glance" and cells[-1]["id"] == "10-99-next"
    assert refresh(solutions_copy) == []


def _tiny_course(directory):
    """01 core, 02 deep dive, 03 core: the smallest course whose metadata can go wrong every way."""
    directory.mkdir()
    for number, track in (("01", "core"), ("02", "deep-dive"), ("03", "core")):
        nb = {"cells": [{"cell_type": "markdown", "id": f"{number}-01-title", "metadata": {},
                         "source": [f"# {number} · Part {number}"]}],
              "metadata": {"memlib": {"track": track, "minutes": 20, "prerequisites": [],
                                      "objectives": ["do one thing", "do another"]}},
              "nbformat": 4, "nbformat_minor": 5}
        _save(directory / f"{number}_part.ipynb", nb)
    return directory / "03_part.ipynb"


@pytest.mark.parametrize("field, value, complaint", [
    ("track", "optional", "track must be one of ('core', 'deep-dive'), not 'optional'"),
    ("track", None, "track must be one of"),
    ("minutes", 0, "minutes must be a positive whole number, not 0"),
    ("minutes", "30", "minutes must be a positive whole number, not '30'"),
    ("minutes", 2.5, "minutes must be a positive whole number"),
    ("minutes", True, "minutes must be a positive whole number"),
    ("prerequisites", "01_part", "prerequisites must be a list of notebook names"),
    ("prerequisites", ["01_nothing"], "names '01_nothing', which is no notebook"),
    ("prerequisites", ["part"], "names 'part', which is no notebook"),
    ("prerequisites", ["02_part"], "names '02_part', which is not a core notebook"),
    ("prerequisites", ["03_part"], "names '03_part', which does not come before it"),
    ("objectives", ["only one"], "objectives must be 2 to 4 non-empty strings"),
    ("objectives", ["a", "b", "c", "d", "e"], "objectives must be 2 to 4"),
    ("objectives", ["a", " "], "objectives must be 2 to 4 non-empty strings"),
    ("objectives", ["a", "x" * 101], "of at most 100 characters"),
])
def test_bad_metadata_is_named_with_its_notebook_and_field(tmp_path, field, value, complaint):
    path = _tiny_course(tmp_path / "course")
    nb = _load(path)
    nb["metadata"]["memlib"][field] = value
    _save(path, nb)
    with pytest.raises(ValueError, match=r"^03_part\.ipynb: metadata\.memlib\." + field) as raised:
        read_notebook(path)
    assert complaint in str(raised.value)


def test_a_missing_field_is_named_and_nothing_is_written(tmp_path, capsys):
    path = _tiny_course(tmp_path / "course")
    before = {p.name: p.read_bytes() for p in path.parent.iterdir()}
    nb = _load(path)
    del nb["metadata"]["memlib"]["minutes"]
    _save(path, nb)
    before[path.name] = path.read_bytes()
    assert main([str(path.parent)]) == 2
    assert "03_part.ipynb: metadata.memlib.minutes is missing" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before
    ok = _tiny_course(tmp_path / "other")
    nb = _load(ok.parent / "02_part.ipynb")
    nb["metadata"]["memlib"]["prerequisites"] = ["01_part"]  # a deep dive may need a core notebook
    _save(ok.parent / "02_part.ipynb", nb)
    nb = _load(ok)
    nb["metadata"]["memlib"]["prerequisites"] = ["01_part"]
    _save(ok, nb)
    assert read_notebook(ok.parent / "02_part.ipynb").prerequisites == ("01_part",)
    assert read_notebook(ok).prerequisites == ("01_part",)


def test_the_readme_needs_its_markers(solutions_copy, capsys):
    readme = solutions_copy.parent / "README.md"
    readme.write_text(README.read_text(encoding="utf-8").replace(README_END, ""), encoding="utf-8")
    assert main([str(solutions_copy), "--check"]) == 2
    assert "README.md: no syllabus section" in capsys.readouterr().out
    readme.unlink()
    assert main([str(solutions_copy)]) == 2
    assert "README.md" in capsys.readouterr().out
    text = README.read_text(encoding="utf-8")
    section = text[text.index(README_BEGIN):text.index(README_END)]
    assert section.count("](notebooks/") == len(read_course(SOLUTIONS))
    assert "**The core track**, about 7 hours (420 minutes)" in section


def test_bad_notebooks_are_named(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2 and "no NN_*.ipynb" in capsys.readouterr().out
    assert main([str(tmp_path), "--stats"]) == 2 and "no NN_*.ipynb" in capsys.readouterr().out
    bad = tmp_path / "03_x.ipynb"
    bad.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["# 04 · Wrong number"]}]}))
    with pytest.raises(ValueError, match="its heading says 04"):
        read_notebook(bad)
    bad.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["Title"]}]}))
    with pytest.raises(ValueError, match="must start with '# NN · Title'"):
        read_notebook(bad)
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--stats", "--check"])


@pytest.mark.parametrize("walked, minutes, message", [
    ([30, 40], 45, "minutes is 45, outside the 30-40 minutes the walk measured"),
    ([40, 30], 35, "walked must be \\[low, high\\]"),
    ([30], 30, "walked must be \\[low, high\\]"),
    ("30-40", 35, "walked must be \\[low, high\\]"),
    ([True, 40], 35, "walked must be \\[low, high\\]"),
])
def test_stated_minutes_must_lie_in_the_walked_range(solutions_copy, walked, minutes, message):
    path = solutions_copy / "01_context_window.ipynb"
    nb = _load(path)
    nb["metadata"]["memlib"].update(walked=walked, minutes=minutes)
    _save(path, nb)
    with pytest.raises(ValueError, match=f"01_context_window.ipynb: metadata.memlib.{message}"):
        read_notebook(path)


def test_the_map_shows_each_walked_range_and_their_sum():
    welcome = "".join(next(c["source"] for c in _load(SOLUTIONS / "00_welcome.ipynb")["cells"]
                           if c["id"] == "00-16-map"))
    infos = [i for i in read_course(SOLUTIONS) if i.core]
    assert "| 03 | [Archival memory and BM25](03_archival_bm25.ipynb) | 40 | 35–45 |" in welcome
    low, high = sum(i.walked[0] for i in infos), sum(i.walked[1] for i in infos)
    assert f"| | **in all** | **{sum(i.minutes for i in infos)}** | {low}–{high} | |" in welcome


def test_stats_count_what_students_get_and_apply_the_stated_formula(tmp_path, capsys):
    words = " ".join(["word"] * 300)
    solution = "\n".join(["def f():", "    ### EXERCISE 7: return 1", "    ### BEGIN SOLUTION",
                          *(["    x = 1"] * 9), "    return x", "    ### END SOLUTION"])
    cells = [{"cell_type": "markdown", "id": "05-01-title", "metadata": {}, "source": ["# 05 · Counting"]},
             {"cell_type": "markdown", "id": "05-00-glance", "metadata": {}, "source": [words]},  # generated
             {"cell_type": "markdown", "id": "a", "metadata": {}, "source": [words[:-20]]},  # 296 words, 4 in the title
             {"cell_type": "markdown", "id": "b", "metadata": {"tags": ["solution-only"]}, "source": [words]},
             *({"cell_type": "code", "id": f"c{n}", "metadata": {}, "source": ["1"]} for n in range(3)),
             {"cell_type": "code", "id": "ex", "metadata": {}, "source": [solution]},
             {"cell_type": "markdown", "id": "n", "metadata": {}, "source": ["Next: somewhere"]}]
    _save(tmp_path / "05_counting.ipynb", {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    stats = measure(tmp_path / "05_counting.ipynb")
    assert (stats.words, stats.code_cells, stats.exercises, stats.track) == (300, 4, (("7", 10),), None)
    assert stats.estimate == pytest.approx(300 / 150 + 1.25 * 4 + 5 + 0.7 * 10)  # 19 minutes
    assert stats.estimate_rounded == 20
    assert main([str(tmp_path), "--stats"]) == 0
    out = capsys.readouterr().out
    assert "05_counting" in out and "7 (10)" in out and "20 (19.0)" in out and "words / 150" in out
    assert main([str(SOLUTIONS), "--stats"]) == 0
    out = capsys.readouterr().out
    assert all(p.stem in out for p in SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
