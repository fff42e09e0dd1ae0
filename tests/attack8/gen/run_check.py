"""Run a built notebook's cells in this process (IPython shell) up to and including its graded cells."""
import json, sys, os
from pathlib import Path
os.environ.setdefault("MEMLIB_STRICT_CHECKS", "1")
from IPython.core.interactiveshell import InteractiveShell

path = Path(sys.argv[1]); only = sys.argv[2:]  # grade ids to stop after
nb = json.loads(path.read_text())
shell = InteractiveShell.instance()
os.chdir("/work/attack8-view/notebooks")
last = max(i for i, c in enumerate(nb["cells"]) if (c["metadata"].get("memlib") or {}).get("grade_id") in only)
for i, c in enumerate(nb["cells"][: last + 1]):
    if c["cell_type"] != "code" or "nbval-skip" in c["metadata"].get("tags", []):
        continue
    gid = (c["metadata"].get("memlib") or {}).get("grade_id")
    src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
    if gid:
        if gid not in only:
            continue
        print(f"===== {gid}", flush=True)
    r = shell.run_cell(src, silent=not gid)
    if gid:
        print(f"===== {gid}: {'OK' if r.success else 'FAILED ' + repr(r.error_in_exec)[:300]}", flush=True)
