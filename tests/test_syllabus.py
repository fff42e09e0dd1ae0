"""Notebook 00's map and the "Next:" links are generated from the notebooks and kept current."""

import json
import shutil

import pytest

from memlib.course.syllabus import main, read_course, read_notebook, refresh
from conftest import SOLUTIONS



def test_the_solutions_map_and_links_are_current():
    assert refresh(SOLUTIONS) == []
    assert main([str(SOLUTIONS), "--check"]) == 0


def test_every_notebook_title_carries_its_own_number():
    infos = read_course(SOLUTIONS)
    assert [i.number for i in infos] == [f"{n:02d}" for n in range(len(infos))]
    steps = dict(read_course(SOLUTIONS)[5].exercises)["2c"]  # an exercise in steps: every step's line
    assert steps.startswith("in 4 steps: store(view)") and "; next_call(view): " in steps
    graded = {i.number for i in infos if i.exercises}
    assert graded == {"01", "02", "03", "04", "05", "06", "07", "08", "09"}


def test_a_drifted_map_and_link_are_found_and_rewritten(tmp_path, capsys):
    copy = tmp_path / "solutions"
    shutil.copytree(SOLUTIONS, copy)
    path = copy / "06_citations.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"][0]["source"][0] = nb["cells"][0]["source"][0].replace("Citations", "Sources and citations", 1)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    assert main([str(copy), "--check"]) == 1
    assert "05_who_decides.ipynb: the Next link" in capsys.readouterr().out
    assert sorted(refresh(copy, write=True)) == ["00_welcome.ipynb: the map", "05_who_decides.ipynb: the Next link"]
    assert refresh(copy) == []
    assert "[Sources and citations](06_citations.ipynb)" in (copy / "00_welcome.ipynb").read_text()


def test_bad_notebooks_are_named(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2 and "no NN_*.ipynb" in capsys.readouterr().out
    bad = tmp_path / "03_x.ipynb"
    bad.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["# 04 · Wrong number"]}]}))
    with pytest.raises(ValueError, match="its heading says 04"):
        read_notebook(bad)
    bad.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["Title"]}]}))
    with pytest.raises(ValueError, match="must start with '# NN · Title'"):
        read_notebook(bad)
