"""Run a submission's code cells in one namespace, as a student's own Run All would (no grader)."""
import json, sys, io, contextlib, traceback
path = sys.argv[1]
nb = json.load(open(path))
ns = {"__name__": "__main__"}
for cell in nb["cells"]:
    if cell["cell_type"] != "code":
        continue
    src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    if src.lstrip().startswith(("%", "!")) or "NBVAL_SKIP" in src or "google.colab" in src:
        continue
    src = "\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!")))
    graded = "graded" in cell["metadata"].get("tags", [])
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(src, cell.get("id", "?"), "exec"), ns)
        if graded:
            print("GRADED", cell.get("id"), "OK")
    except BaseException as e:
        if graded:
            print("GRADED", cell.get("id"), "FAIL", type(e).__name__, str(e)[:300])
        elif not isinstance(e, NotImplementedError):
            print("cell", cell.get("id"), type(e).__name__, str(e)[:200])
