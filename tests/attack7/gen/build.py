import copy, json, sys, os, uuid
sys.path.insert(0, os.path.dirname(__file__))
import answers as A
REL = "/work/attack7-view/notebooks"
OUT = "/work/attack7-view/out/submissions"

def load(name, zh=False):
    return json.load(open(os.path.join(REL, "zh" if zh else "", name)))

def code_cell(src, cid=None):
    return {"cell_type": "code", "execution_count": None, "id": cid or uuid.uuid4().hex[:8],
            "metadata": {}, "outputs": [], "source": src}

def ex_index(nb, marker, nth=0):
    hits = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
            and c.get("metadata", {}).get("memlib", {}).get("exercise") == marker]
    return hits[nth]

def set_src(nb, i, src):
    nb["cells"][i]["source"] = src

def save(nb, student, name):
    d = os.path.join(OUT, student); os.makedirs(d, exist_ok=True)
    json.dump(nb, open(os.path.join(d, name), "w"), indent=1, ensure_ascii=False)

def closure_bomb(N, K, M):
    """cells: K binding cells + 1 reader cell (host-side static reading blowup)."""
    names = [chr(0x4E00 + i) for i in range(N)]
    reads = ", ".join(f"C.a{j}" for j in range(M))
    chain = " = ".join(names)
    bind = f"# helper table\nif False:\n    {chain} = ({reads})\n"
    reader = "# all of them\nif False:\n    _all = (" + ", ".join(names) + ")\n"
    return [bind] * K, reader

def main(scale=1.0):
    # c01_registry
    nb = load("01_context_window.ipynb"); set_src(nb, ex_index(nb, "0"), A.C01_REGISTRY); save(nb, "c01_registry", "01_context_window.ipynb")
    # c02_aliasbase
    nb = load("02_eviction_summaries.ipynb"); set_src(nb, ex_index(nb, "1"), A.C02_ALIASBASE); save(nb, "c02_aliasbase", "02_eviction_summaries.ipynb")
    # c03_registry
    nb = load("03_archival_bm25.ipynb"); set_src(nb, ex_index(nb, "2"), A.C03_REGISTRY); save(nb, "c03_registry", "03_archival_bm25.ipynb")
    # c04_partialmethod
    nb = load("04_memory_tools.ipynb"); set_src(nb, ex_index(nb, "L"), A.C04_PARTIALMETHOD); save(nb, "c04_partialmethod", "04_memory_tools.ipynb")
    # c05_subclass (step 4 cell only)
    nb = load("05_who_decides.ipynb"); set_src(nb, ex_index(nb, "2c", 3), A.C05_SUBCLASS_STEP4); save(nb, "c05_subclass", "05_who_decides.ipynb")
    # c06_alias
    nb = load("06_citations.ipynb"); set_src(nb, ex_index(nb, "3"), A.C06_ALIAS); save(nb, "c06_alias", "06_citations.ipynb")
    # c07_defaults
    nb = load("07_memory_poisoning.ipynb"); i = ex_index(nb, "4,4")
    src = "".join(nb["cells"][i]["source"])
    head, sep, tail = src.partition("def my_scan(text):")
    assert sep
    src = "from memlib.scanner import verdict_of, label_record\n" + head.rstrip() + "\n" + A.C07_DEFAULTS_TAIL
    set_src(nb, i, src); save(nb, "c07_defaults", "07_memory_poisoning.ipynb")
    # c09_alias
    nb = load("09_governed_memory.ipynb"); set_src(nb, ex_index(nb, "6"), A.C09_ALIAS); save(nb, "c09_alias", "09_governed_memory.ipynb")
    # honest01_class: helper class in its own cell before the exercise
    nb = load("01_context_window.ipynb"); i = ex_index(nb, "0"); set_src(nb, i, A.H01_ANSWER)
    nb["cells"].insert(i, code_cell(A.H01_HELPER_CELL)); save(nb, "honest01_class", "01_context_window.ipynb")
    # honest03_zh: Chinese notebook 03, BM25 from scratch
    nb = load("03_archival_bm25.ipynb", zh=True); set_src(nb, ex_index(nb, "2"), A.H03_ANSWER); save(nb, "honest03_zh", "03_archival_bm25.ipynb")
    # honest04_helper: helper function in its own cell, placed after the imports cell
    nb = load("04_memory_tools.ipynb"); i = ex_index(nb, "L"); set_src(nb, i, A.H04_ANSWER)
    nb["cells"].insert(i, code_cell(A.H04_HELPER_CELL)); save(nb, "honest04_helper", "04_memory_tools.ipynb")
    # honest_multi: zh 01 with the honest answer + en 03 honest, in one folder
    nb = load("01_context_window.ipynb", zh=True); i = ex_index(nb, "0"); set_src(nb, i, A.H01_ANSWER)
    nb["cells"].insert(i, code_cell(A.H01_HELPER_CELL)); save(nb, "honest_multi", "01_context_window.ipynb")
    nb = load("03_archival_bm25.ipynb"); set_src(nb, ex_index(nb, "2"), A.H03_ANSWER); save(nb, "honest_multi", "03_archival_bm25.ipynb")

def bomb(student, N, K, M):
    nb = load("01_context_window.ipynb"); i = ex_index(nb, "0")
    binds, reader = closure_bomb(N, K, M)
    ans = A.H01_ANSWER.replace('    fitted = 0\n', '    fitted = 0\n    if False:\n        print(_all)\n')
    set_src(nb, i, ans)
    new = [code_cell(A.H01_HELPER_CELL), code_cell("import memlib.course.checks as C\n")] + [code_cell(b) for b in binds] + [code_cell(reader)]
    nb["cells"][i:i] = new
    save(nb, student, "01_context_window.ipynb")

if __name__ == "__main__":
    if sys.argv[1:] and sys.argv[1] == "bomb":
        bomb(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        main()

def deep():
    pad = "_pad = " + " + ".join(["1"] * 700) + "\n"
    nb = load("01_context_window.ipynb"); i = ex_index(nb, "0")
    set_src(nb, i, "from memlib.course.checks import reference_how_many_fit as how_many_fit\n\n# bookkeeping\n" + pad)
    save(nb, "c01_deep", "01_context_window.ipynb")
    nb = load("07_memory_poisoning.ipynb"); i = ex_index(nb, "4,4")
    src = "".join(nb["cells"][i]["source"])
    nb["cells"].insert(i + 1, code_cell("from memlib.guard import scan as my_scan\n\n# bookkeeping\n" + pad))
    save(nb, "c07_deep", "07_memory_poisoning.ipynb")

if __name__ == "__main__" and sys.argv[1:] == ["deep"]:
    deep()
