"""Run the grader's source reading (provenance) on each built notebook, in-process."""
import json
from pathlib import Path
import nbformat
from memlib.course.grading.collect import load_release
from memlib.course.grading.provenance import notebook_findings, review_flags

OUT = Path("/work/attack8-view/out/submissions")
assign = {a.name: a for a in load_release("/work/attack8-view/notebooks")}
for p in sorted(OUT.rglob("*.ipynb")):
    if "metabomb" in str(p):
        continue
    nb = nbformat.from_dict(json.loads(p.read_text()))
    a = assign[p.name]
    flags = review_flags(notebook_findings(nb, a))
    print(p.relative_to(OUT), "->", flags or "no flags")
