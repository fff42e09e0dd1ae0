import json, sys
from pathlib import Path
from memlib.course.grading.collect import load_release
from memlib.course.grading.provenance import notebook_findings, review_flags
en = {a.name: a for a in load_release("/work/attack6-view/notebooks")}
zh = {a.name: a for a in load_release("/work/attack6-view/notebooks/zh")}
for p in sorted(Path("submissions2").glob("*/*.ipynb")):
    nb = json.loads(p.read_text())
    lang = nb.get("metadata", {}).get("memlib", {}).get("language") or nb.get("metadata", {}).get("language")
    a = (zh if "zh" in p.parent.name else en)[p.name]
    print(p, review_flags(notebook_findings(nb, a)))
