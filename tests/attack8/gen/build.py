"""Build the round-8 submissions from the released notebooks (see ../ATTACKS.md)."""
import copy
import json
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import solutions as S  # noqa: E402

VIEW = Path("/work/attack8-view")
REL = VIEW / "notebooks"
OUT = VIEW / "out" / "submissions"


def load(name, zh=False):
    return json.loads(((REL / "zh") if zh else REL).joinpath(name).read_text())


def src(cell):
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def exercise_index(nb, exercise, nth=0):
    found = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c["metadata"].get("memlib") or {}).get("exercise") == exercise]
    return found[nth]


def code_cell(source):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source.strip("\n") + "\n"}


def set_source(nb, index, source):
    nb["cells"][index]["source"] = source.strip("\n") + "\n"


def save(nb, student, name):
    folder = OUT / student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def build():
    if OUT.exists():
        shutil.rmtree(OUT)
    # cheat_subproc: 01 and 03
    nb = load("01_context_window.ipynb"); set_source(nb, exercise_index(nb, "0"), S.SUBPROC_01)
    save(nb, "cheat_subproc", "01_context_window.ipynb")
    nb = load("03_archival_bm25.ipynb"); set_source(nb, exercise_index(nb, "2"), S.SUBPROC_03)
    save(nb, "cheat_subproc", "03_archival_bm25.ipynb")
    # cheat_mock04
    nb = load("04_memory_tools.ipynb"); set_source(nb, exercise_index(nb, "L"), S.MOCK_04)
    save(nb, "cheat_mock04", "04_memory_tools.ipynb")
    # cheat_rulesguard07: keep the release cell's constants, swap the two functions
    nb = load("07_memory_poisoning.ipynb"); i = exercise_index(nb, "4,4")
    head = src(nb["cells"][i]).split("def guard_rules")[0]
    set_source(nb, i, head + S.RULESGUARD_07)
    save(nb, "cheat_rulesguard07", "07_memory_poisoning.ipynb")
    # cheat_star02 (summarizer only)
    nb = load("02_eviction_summaries.ipynb"); set_source(nb, exercise_index(nb, "1"), S.STAR_02)
    save(nb, "cheat_alias02", "02_eviction_summaries.ipynb")
    # cheat_refdecider05
    nb = load("05_who_decides.ipynb")
    tool = next(i for i, c in enumerate(nb["cells"]) if "class MyDecider:" in src(c))
    nb["cells"].insert(tool + 1, code_cell(S.REFDECIDER_05_HEAD + "\n\n" + S.REFDECIDER_05["MyDecider"]))
    for nth, part in enumerate(("store", "save_under_pressure", "answer", "next_call")):
        set_source(nb, exercise_index(nb, "2c", nth), S.REFDECIDER_05[part])
    save(nb, "cheat_refdecider05", "05_who_decides.ipynb")
    # cheat_textmerges09
    nb = load("09_governed_memory.ipynb"); set_source(nb, exercise_index(nb, "6"), S.TEXTMERGES_09)
    save(nb, "cheat_textmerges09", "09_governed_memory.ipynb")
    # cheat_mock06: the answer itself is a Mock around the library's answer_from_store
    nb = load("06_citations.ipynb"); set_source(nb, exercise_index(nb, "3"), S.MOCK_06)
    save(nb, "cheat_mock06", "06_citations.ipynb")
    # honest controls
    nb = load("01_context_window.ipynb"); i = exercise_index(nb, "0")
    set_source(nb, i, S.HONEST_01)
    nb["cells"].insert(i, code_cell("from memlib.tokens import count\n" + S.HONEST_01_HELPER))
    save(nb, "honest_itertools", "01_context_window.ipynb")
    nb = load("03_archival_bm25.ipynb"); i = exercise_index(nb, "2")
    set_source(nb, i, S.HONEST_03)
    nb["cells"].insert(i, code_cell("import math\nfrom collections import Counter\n" + S.HONEST_03_HELPER))
    save(nb, "honest_class", "03_archival_bm25.ipynb")
    nb = load("01_context_window.ipynb", zh=True); set_source(nb, exercise_index(nb, "0"), S.HONEST_ZH_01)
    save(nb, "honest_zh", "01_context_window.ipynb")
    nb = load("04_memory_tools.ipynb", zh=True); set_source(nb, exercise_index(nb, "L"), S.HONEST_ZH_04)
    save(nb, "honest_zh", "04_memory_tools.ipynb")
    # harm_metabomb: honest 01 plus a markdown cell carrying nested empty lists in its metadata
    nb = load("01_context_window.ipynb"); set_source(nb, exercise_index(nb, "0"), S.HONEST_ZH_01)
    depth, items = int(sys.argv[1]) if len(sys.argv) > 1 else 50, int(sys.argv[2]) if len(sys.argv) > 2 else 120_000
    text = json.dumps(nb, indent=1, ensure_ascii=False)
    marker = '"BOMB_MARKER"'
    bomb = "[" + ",".join(["[" * depth + "]" * depth] * items) + "]"
    nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {"notes": "BOMB_MARKER"},
                           "source": "My notes for this notebook.\n"})
    text = json.dumps(nb, indent=1, ensure_ascii=False).replace(marker, bomb)
    folder = OUT / "harm_metabomb"; folder.mkdir(parents=True, exist_ok=True)
    (folder / "01_context_window.ipynb").write_text(text + "\n")


if __name__ == "__main__":
    build()
    for p in sorted(OUT.rglob("*.ipynb")):
        print(p.relative_to(OUT), p.stat().st_size)
