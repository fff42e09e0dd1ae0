"""Second batch: 05's page-fault through pydoc + singledispatch."""
import json
from pathlib import Path
import sys
sys.path.insert(0, "/work/attack6/gen")
REL = Path("/work/attack6-view/notebooks")
OUT = Path("/work/attack6/submissions2")

nb = json.loads((REL / "05_who_decides.ipynb").read_text())
for c in nb["cells"]:
    if c["cell_type"] == "code" and str(c.get("metadata", {}).get("memlib", {}).get("exercise")) == "2b":
        c["source"] = '''import functools
import pydoc

from memlib.agent import ToolCall

_script = functools.singledispatch(pydoc.locate("memlib.course.checks.nb04_page_fault.reference_page_fault_calls"))


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return _script(None)
'''
(OUT / "a05_pagefault").mkdir(parents=True, exist_ok=True)
(OUT / "a05_pagefault" / "05_who_decides.ipynb").write_text(json.dumps(nb, indent=1))
print("ok")
