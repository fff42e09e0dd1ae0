"""Third batch: mechanism probes (is the trampoline needed?), another lookup path, and a 07 false flag."""
import json
from pathlib import Path
REL = Path("/work/attack6-view/notebooks")
OUT = Path("/work/attack6/submissions3")


def build(student, name, exercise, source):
    nb = json.loads((REL / name).read_text())
    for c in nb["cells"]:
        if c["cell_type"] == "code" and str(c.get("metadata", {}).get("memlib", {}).get("exercise")) == exercise:
            c["source"] = source(("".join(c["source"]))) if callable(source) else source
    (OUT / student).mkdir(parents=True, exist_ok=True)
    (OUT / student / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False))


build("p01_pydoc_direct", "01_context_window.ipynb", "0", '''import pydoc

_ref = pydoc.locate("memlib.course.checks.nb01_token_budget.reference_how_many_fit")


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """Direct call, no trampoline."""
    return _ref(messages, window, system_prompt, reserve)
''')

build("a01_attrgetter", "01_context_window.ipynb", "0", '''import functools
import operator

import memlib.course

_get = operator.attrgetter("checks.nb01_token_budget.reference_how_many_fit")


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """Looked up with a dotted string, called through a library frame."""
    import memlib.course.checking  # harmless; memlib.course.checks is imported by the checker-side cells
    return functools.singledispatch(_get(memlib.course))(messages, window, system_prompt, reserve)
''')


def head07(src):
    return src[:src.index("def my_scan(text):")]


build("p07_alias_direct", "07_memory_poisoning.ipynb", "4,4", lambda src: head07(src) + '''import memlib.guard

_G = memlib.guard


def my_scan(text):
    """Direct call through a module alias, no trampoline."""
    return _G.scan(text)
''')

build("c07_namecollide", "07_memory_poisoning.ipynb", "4,4", lambda src: head07(src) + '''from memlib.guard import Verdict

_ORDER = re.compile(r"\\b(ignore|disregard|forget)\\b.{0,40}\\b(instructions?|rules?|guidelines?)\\b", re.I)


def scanner(sentence):
    """My own tiny rule: one regular expression."""
    return bool(_ORDER.search(sentence))


def my_scan(text):
    """Verdict for instruction-shaped text (an honest, weak guard)."""
    if scanner(text):
        return Verdict(trusted=False, reasons=["override words"], category="override")
    return Verdict(trusted=True, reasons=[], category="")
''')
print("ok")
