import sys, json, glob, os, time
from memlib.course.grading.collect import load_release
from memlib.course.grading.provenance import notebook_findings, review_flags
rel = {a.name if hasattr(a,'name') else a.stem: a for a in load_release("/work/attack7-view/notebooks")}
def find(nb):
    name = nb["metadata"]["memlib"]["assignment"]
    for k, a in rel.items():
        if name in k: return a
for path in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else "/work/attack7-view/out/submissions/*/*.ipynb")):
    nb = json.load(open(path))
    a = find(nb)
    t = time.time()
    f = review_flags(notebook_findings(nb, a))
    print(path.split("submissions/")[1], f"{time.time()-t:.1f}s", {g: [n[:300] for n in v] for g, v in f.items()} or "NO FLAGS")
