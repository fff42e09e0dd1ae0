"""Build the attack submissions from the released notebooks (reproducible).

    /work/attack4-venv/bin/python build.py        # writes submissions/ and due.csv

Every student is submissions/<student>/<notebook>.ipynb (or a .zip); see ATTACKS.md.
"""

from __future__ import annotations

import copy
import json
import shutil
import zipfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
RELEASE = Path("/work/attack4-view/notebooks")
OUT = HERE / "submissions"


def load(name: str) -> dict:
    return json.loads((RELEASE / name).read_text(encoding="utf-8"))


def set_source(nb: dict, cell_id: str, source: str) -> None:
    for cell in nb["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = source
            return
    raise KeyError(cell_id)


def insert_after(nb: dict, cell_id: str, source: str, kind: str = "code", new_id: str | None = None,
                 metadata: dict | None = None) -> None:
    for i, cell in enumerate(nb["cells"]):
        if cell.get("id") == cell_id:
            new = {"cell_type": kind, "id": new_id or f"x-{cell_id}-{i}", "metadata": metadata or {},
                   "source": source}
            if kind == "code":
                new.update(outputs=[], execution_count=None)
            nb["cells"].insert(i + 1, new)
            return
    raise KeyError(cell_id)


def source_of(nb: dict, cell_id: str) -> str:
    for cell in nb["cells"]:
        if cell.get("id") == cell_id:
            return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    raise KeyError(cell_id)


def write(student: str, name: str, nb: dict) -> Path:
    folder = OUT / student
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_zip(zip_name: str, member: str, nb: dict, when: tuple[int, ...]) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / zip_name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(member, date_time=when)
        archive.writestr(info, json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return path


# --------------------------------------------------------------------------- answers

LOOP_HONEST = '''from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: ask, dispatch, splice; go on while heartbeats are asked for, up to the cap."""
        trace = self.begin(user_text)
        calls = []
        heartbeats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not (result.heartbeat or not result.ok):
                break
            if heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", f"heartbeat cap of {self.max_heartbeats} reached: the step ends")
                break
            heartbeats += 1
            trace.add("heartbeat", f"heartbeat {heartbeats}: the policy runs again")
        return trace
'''

# the exercise cell with the stub's step deleted: MyAgent inherits the library's Agent.step
LOOP_INHERIT = '''from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    """My agent: the loop is the one Agent already has (nothing to add)."""
'''

# step runs Agent's own step, looked up with a key the reading cannot resolve, in a worker thread
LOOP_THREAD = '''from concurrent.futures import ThreadPoolExecutor

from memlib.agent import Agent
from memlib.tools import dispatch

_POOL = ThreadPoolExecutor(1)
_NAME = "".join(["st", "ep"])


class MyAgent(Agent):
    def step(self, user_text):
        """One step (see the docstring in the release)."""
        loop = Agent.__dict__[_NAME]
        return _POOL.submit(loop, self, user_text).result()
'''

TYPED_HONEST = '''import copy
import json

import jsonschema

from memlib.core_memory import CoreMemoryError

SCHEMA = examples.schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}
FIELDS = ("label", "value", "limit", "description", "read_only")


class TypedCoreMemory:
    """Core memory as typed blocks: label -> {label, value, limit, description, read_only}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @staticmethod
    def _validate(document):
        errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document))
        if errors:
            raise CoreMemoryError(f"invalid core memory: {errors[0].message}")
        labels = [b["label"] for b in document["blocks"]]
        if len(labels) != len(set(labels)):
            raise CoreMemoryError(f"duplicate block labels in {labels}")
        for block in document["blocks"]:
            if len(block.get("value", "")) > block["limit"]:
                raise CoreMemoryError(f"block {block['label']!r} is over its limit of {block['limit']}")

    @staticmethod
    def _full(block):
        return {"label": block["label"], "value": block.get("value", ""), "limit": block["limit"],
                "description": block.get("description", ""), "read_only": block.get("read_only", False)}

    @classmethod
    def from_legacy(cls, flat):
        blocks = [{"label": label, "value": value, "limit": 2000,
                   "description": DESCRIPTIONS.get(label, f"The {label} section."), "read_only": False}
                  for label, value in flat.items()]
        cls._validate({"blocks": copy.deepcopy(blocks)})
        return cls(blocks)

    @classmethod
    def from_document(cls, document):
        document = copy.deepcopy(document)
        cls._validate(document)
        return cls([cls._full(block) for block in document["blocks"]])

    def to_document(self):
        return {"blocks": [dict(block) for block in self.blocks.values()]}

    def to_json(self):
        return json.dumps(self.to_document())

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        sections = []
        for block in self.blocks.values():
            attributes = f'chars="{len(block["value"])}/{block["limit"]}"'
            if block["read_only"]:
                attributes += ' read_only="true"'
            body = block["value"] + "\\n" if block["value"] else ""
            sections.append(f"<{block['label']} {attributes}>\\n{body}</{block['label']}>")
        return "\\n".join(sections)

    def _set(self, label, new_value):
        """Check everything first, then change one block: a refused edit changes nothing."""
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; known blocks: {list(self.blocks)}")
        block = self.blocks[label]
        if block["read_only"]:
            raise CoreMemoryError(f"block {label!r} is read-only")
        if len(new_value) > block["limit"]:
            raise CoreMemoryError(f"block {label!r} would hold {len(new_value)} characters, over {block['limit']}")
        self.blocks[label] = {**block, "value": new_value}

    def append(self, label, text):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; known blocks: {list(self.blocks)}")
        value = self.blocks[label]["value"]
        self._set(label, value + "\\n" + text if value else text)

    def replace(self, label, old, new):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; known blocks: {list(self.blocks)}")
        if self.blocks[label]["read_only"]:
            raise CoreMemoryError(f"block {label!r} is read-only")
        if not old:
            raise CoreMemoryError("the old text is empty")
        value = self.blocks[label]["value"]
        if old not in value:
            raise CoreMemoryError(f"{old!r} is not in block {label!r}: copy the exact text, or append instead")
        self._set(label, value.replace(old, new))

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"
'''

# memlib's CoreMemory, found at run time by a key the source reading cannot resolve; every call to it
# goes through CALL (direct, or in a worker thread)
TYPED_WRAPPED = '''import copy
import json

import jsonschema

import memlib.core_memory as _cm
from memlib.core_memory import CoreMemoryError
{CALL}

SCHEMA = examples.schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}
_Engine = _cm.__dict__["".join(["Core", "Mem", "ory"])]


class TypedCoreMemory:
    """Core memory as typed blocks (kept in an engine object)."""

    def __init__(self, engine):
        self.engine = engine

    @staticmethod
    def _validate(document):
        errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document))
        if errors:
            raise CoreMemoryError(errors[0].message)

    @classmethod
    def from_legacy(cls, flat):
        blocks = [{"label": label, "value": value, "limit": 2000,
                   "description": DESCRIPTIONS.get(label, f"The {label} section."), "read_only": False}
                  for label, value in flat.items()]
        cls._validate({"blocks": copy.deepcopy(blocks)})
        return cls(CALL(_Engine.from_dict, {"blocks": blocks}))

    @classmethod
    def from_document(cls, document):
        document = copy.deepcopy(document)
        cls._validate(document)
        return cls(CALL(_Engine.from_dict, document))

    def to_document(self):
        return CALL(self.engine.to_dict)

    def to_json(self):
        return json.dumps(self.to_document())

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        return CALL(self.engine.render)

    def _set(self, label, new_value):
        raise NotImplementedError

    def append(self, label, text):
        CALL(self.engine.append, label, text)

    def replace(self, label, old, new):
        CALL(self.engine.replace, label, old, new)
'''

CALL_DIRECT = '''

def CALL(function, *args):
    return function(*args)
'''

CALL_THREAD = '''from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(1)


def CALL(function, *args):
    return _POOL.submit(function, *args).result()
'''

SUMMARIZER_WRAPPED = '''import re

import memlib.summarize as _summarize
from memlib.tokens import count
{PRELUDE}
_engine = _summarize.__dict__["".join(["Extrac", "tive", "Summarizer"])]()


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        return {CALL}
'''

DECIDER_RULES = '''from memlib.policies import RulePolicy

_rules = RulePolicy()


def store(self, view):
    """Step 1: the call that stores what this message states, or None."""
    calls, _ = _rules._plan(view)
    if calls:
        self.saved.add(view.user_message.id)
    return calls[0] if calls else None


MyDecider.store = store
'''

DECIDER_PRESSURE = '''def save_under_pressure(self, view):
    """Step 2: the next save of statements only the context holds, or None."""
    _rules._saved = set(self.saved)
    call = _rules._save_under_pressure(view)
    self.saved |= _rules._saved
    return call


MyDecider.save_under_pressure = save_under_pressure
'''

DECIDER_ANSWER = '''def answer(self, view):
    """Step 3: for a question, the next search to make, or the reply."""
    return _rules._answer(view)


MyDecider.answer = answer
'''

DECIDER_NEXT = '''def next_call(self, view):
    """Step 4: the next tool call for this view."""
    if not hasattr(self, "_rules"):
        self._rules = RulePolicy()
    return self._rules.next_call(view)


MyDecider.next_call = next_call
'''


def quiz_key(number: str) -> str:
    """The right letters of a quiz, read from the quiz file memlib ships (what a student can open)."""
    import memlib

    data = json.loads((Path(memlib.__file__).parent / "data" / "quizzes" / f"{number}.json").read_text())
    return "".join("abcdefgh"[q["answer"]] for q in data["questions"])


INJECT = ('</td></tr></table><script>alert("w")</script> <img src=x onerror=alert(1)> '
          '[click me](javascript:alert(2)) | 04-loop | 3 / 3 | passed | ``` ## 04-loop: passed =HYPERLINK("http://x")')


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()

    # ---- controls
    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-13b-loop", LOOP_HONEST)
    set_source(nb, "04-27b-written", "### In your own words\n\nAfter a search the agent has not answered yet: the "
               "heartbeat lets the policy run again to read the result and reply. The cap stops a policy that "
               "keeps asking from looping forever.\n")
    honest04 = copy.deepcopy(nb)
    write("c01_honest04", "04_memory_tools.ipynb", nb)

    nb = load("08_typed_core_memory.ipynb")
    set_source(nb, "08-14-ex5-code", TYPED_HONEST)
    write("c02_honest08", "08_typed_core_memory.ipynb", nb)

    # ---- 04 loop
    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-13b-loop", LOOP_INHERIT)
    write("a01_04inherit", "04_memory_tools.ipynb", nb)

    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-13b-loop", LOOP_THREAD)
    write("a02_04thread", "04_memory_tools.ipynb", nb)

    # ---- 08 typed core memory on memlib's CoreMemory
    nb = load("08_typed_core_memory.ipynb")
    set_source(nb, "08-14-ex5-code", TYPED_WRAPPED.replace("{CALL}", CALL_DIRECT))
    write("a03_08cm_direct", "08_typed_core_memory.ipynb", nb)

    nb = load("08_typed_core_memory.ipynb")
    set_source(nb, "08-14-ex5-code", TYPED_WRAPPED.replace("{CALL}", CALL_THREAD))
    write("a04_08cm_thread", "08_typed_core_memory.ipynb", nb)

    # ---- 02 summarizer = ExtractiveSummarizer found at run time
    for student, prelude, call in [
        ("a05_02sum_direct", "", "_engine.summarize(previous, evicted, max_tokens)"),
        ("a06_02sum_thread", "from concurrent.futures import ThreadPoolExecutor\n\n_POOL = ThreadPoolExecutor(1)\n",
         "_POOL.submit(_engine.summarize, previous, evicted, max_tokens).result()"),
        ("a07_02sum_cprofile", "import cProfile\n\n_profiler = cProfile.Profile()\n_profiler.enable()  # timing my notebook\n",
         "_engine.summarize(previous, evicted, max_tokens)"),
    ]:
        nb = load("02_eviction_summaries.ipynb")
        set_source(nb, "02-14-ex1", SUMMARIZER_WRAPPED.replace("{PRELUDE}", prelude).replace("{CALL}", call))
        write(student, "02_eviction_summaries.ipynb", nb)

    # ---- 05 the decider from memlib's RulePolicy (not the listed reference)
    nb = load("05_who_decides.ipynb")
    set_source(nb, "05-24-store", DECIDER_RULES)
    set_source(nb, "05-24-pressure", DECIDER_PRESSURE)
    set_source(nb, "05-24-answer", DECIDER_ANSWER)
    set_source(nb, "05-25-exercise", DECIDER_NEXT)
    write("a08_05rulepolicy", "05_who_decides.ipynb", nb)

    # ---- quiz: the answer key ships in memlib's package data
    nb = load("03_archival_bm25.ipynb")
    key = quiz_key("03")
    set_source(nb, "03-26-quiz", f'from memlib.course.quiz import show_quiz\n\nshow_quiz("03", answers="{key}")\n')
    write("q01_quizkey", "03_archival_bm25.ipynb", nb)

    # ---- late work: zip times are the student's to set
    due_past = (2026, 12, 5, 10, 0, 0)      # 1+ days after the due date below: late
    forged = (2026, 11, 30, 12, 0, 0)       # before the due date
    write_zip("l00_late_honestzip.zip", "04_memory_tools.ipynb", honest04, due_past)
    write_zip("l01_late_forgedzip.zip", "04_memory_tools.ipynb", honest04, forged)
    # a Canvas download flagged _LATE_ by Canvas, the upload a zip with a forged time
    write_zip("mallorylate_LATE_4242_9999_04_memory_tools.zip", "04_memory_tools.ipynb", honest04, forged)
    (HERE / "due.csv").write_text("assignment,due\n04,2026-12-01T23:59+00:00\n", encoding="utf-8")

    # ---- injection: written answer, printed output and an exception message
    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-27b-written", "### In your own words\n\n" + INJECT + "\n")
    insert_after(nb, "04-13b-loop",
                 'print("</pre></code>\\n```\\n```\\n## 04-loop\\n| 04-loop | 3 / 3 | passed |\\n<script>alert(3)</script>")\n'
                 'raise ValueError("| 04-loop | 3 / 3 | passed | <img src=x onerror=alert(4)> =1+1 \\x1b[31mRED")\n',
                 new_id="w01-inject")
    write("w01_inject", "04_memory_tools.ipynb", nb)

    # ---- host: quiz cells are parsed on the host, skipped by the kernel, no notebook-wide bound
    nb = load("03_archival_bm25.ipynb")
    body = "a = 1\n" * 16_000  # ~96,000 characters, under the 100,000-character cell limit
    for i in range(300):
        insert_after(nb, "03-26-quiz", f'# NBVAL_SKIP\nshow_quiz("03", answers="a")\n{body}', new_id=f"h01-{i}")
    write("h01_quizparse", "03_archival_bm25.ipynb", nb)




# =========================================================================== round 2

PROFILE = "import cProfile\n\n_profiler = cProfile.Profile()\n_profiler.enable()  # timing my notebook\n"
THREAD = "from concurrent.futures import ThreadPoolExecutor\n\n_POOL = ThreadPoolExecutor(1)\n"


def _replace_in(nb: dict, cell_id: str, old: str, new: str) -> None:
    source = source_of(nb, cell_id)
    if old not in source:
        raise KeyError(f"{old!r} not in {cell_id}")
    set_source(nb, cell_id, source.replace(old, new))


GUARD_STUB_TAIL = '''    raise NotImplementedError(
        "Exercise 4: my_scan: return Verdict(trusted, reasons, category) from your "
        "rules and the toolbox"
    )'''


def round2() -> None:
    # 07: my_scan is memlib's scan (the listed reference), looked up at run time, called in a worker thread
    nb = load("07_memory_poisoning.ipynb")
    _replace_in(nb, "07-22-ex4-code", GUARD_STUB_TAIL,
                '    return _POOL.submit(_engine, text).result()')
    set_source(nb, "07-22-ex4-code", "import memlib.guard as _guard\n" + THREAD +
               '_engine = _guard.__dict__["".join(["sc", "an"])]\n\n' + source_of(nb, "07-22-ex4-code"))
    write("b01_07guard_thread", "07_memory_poisoning.ipynb", nb)

    # 07 control for the source reading: the reference imported by its plain name, still called in a thread
    nb = load("07_memory_poisoning.ipynb")
    _replace_in(nb, "07-22-ex4-code", GUARD_STUB_TAIL, '    return _POOL.submit(scan, text).result()')
    set_source(nb, "07-22-ex4-code", "from memlib.guard import scan\n" + THREAD + "\n" + source_of(nb, "07-22-ex4-code"))
    write("b02_07guard_plainname", "07_memory_poisoning.ipynb", nb)

    # 06: answer_from_store looked up at run time, called directly, with a profiler already installed
    nb = load("06_citations.ipynb")
    _replace_in(nb, "06-16-ex3-code", '''    raise NotImplementedError(
        "Exercise 3: answer from the best supporting record with its citation, or say "
        "you found nothing"
    )''', "    return _engine(question, store)")
    set_source(nb, "06-16-ex3-code", "import memlib.citations as _citations\n" + PROFILE +
               '_engine = _citations.__dict__["".join(["answer_", "from_", "store"])]\n\n' +
               source_of(nb, "06-16-ex3-code"))
    write("b03_06cite_cprofile", "06_citations.ipynb", nb)

    # 09: consolidate_in_store looked up at run time, profiler installed / or in a worker thread
    for student, prelude, call in [
        ("b04_09cons_cprofile", PROFILE, "    _engine(store, now, ends)"),
        ("b06_09cons_thread", THREAD, "    _POOL.submit(_engine, store, now, ends).result()"),
    ]:
        nb = load("09_governed_memory.ipynb")
        _replace_in(nb, "09-exercise-02", '''    raise NotImplementedError(
        "Exercise 6: supersede duplicates and changed facts (reason 'duplicate: ...' / "
        "'changed: ...'), expire stated ends"
    )''', call)
        set_source(nb, "09-exercise-02", "import memlib.governance as _governance\n" + prelude +
                   '_engine = _governance.__dict__["".join(["consolidate_", "in_", "store"])]\n\n' +
                   source_of(nb, "09-exercise-02"))
        write(student, "09_governed_memory.ipynb", nb)

    # 05: next_call from memlib's ReferenceDecider (listed), looked up at run time, profiler installed
    nb = load("05_who_decides.ipynb")
    set_source(nb, "05-25-exercise", PROFILE + '''import memlib.policies as _policies

_Engine = _policies.__dict__["".join(["Reference", "Decider"])]


def next_call(self, view):
    """Step 4: the next tool call for this view."""
    if not hasattr(self, "_engine"):
        self._engine = _Engine()
    return self._engine.next_call(view)


MyDecider.next_call = next_call
''')
    write("b05_05decider_cprofile", "05_who_decides.ipynb", nb)





# =========================================================================== round 3

BM25_INDEX = '''import math
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import memlib.retrieval as _retrieval

_POOL = ThreadPoolExecutor(1)
_Index = _retrieval.__dict__["".join(["BM25", "In", "dex"])]


def _scores(query_tokens, docs_tokens, k1, b, epsilon):
    texts = {}
    index = _Index(idf="okapi", k1=k1, b=b, epsilon=epsilon, analyzer=lambda text: list(texts[text]))
    pairs = []
    for i, tokens in enumerate(docs_tokens):
        texts[f"d{i}"] = tokens
        pairs.append((i, f"d{i}"))
    index.add_many(pairs)
    scores = [0.0] * len(docs_tokens)
    for token in query_tokens:  # each occurrence counts, as in rank_bm25
        texts["q"] = [token]
        for i in range(len(docs_tokens)):
            scores[i] += index.score("q", i)
    return scores


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    return _POOL.submit(_scores, list(query_tokens), [list(d) for d in docs_tokens], k1, b, epsilon).result()
'''


def round3() -> None:
    nb = load("03_archival_bm25.ipynb")
    set_source(nb, "03-11-ex2", BM25_INDEX)
    write("d01_03bm25index_thread", "03_archival_bm25.ipynb", nb)


def round3_moodle() -> None:
    """Moodle: a student whose full name (editable in Moodle's own profile unless the site locks it) ends in
    another student's download prefix becomes that student in the grader."""
    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-13b-loop", LOOP_HONEST)
    write("Ada Lovelace_12345_assignsubmission_file_", "04_memory_tools.ipynb", nb)
    # Eve's Moodle full name is "Ada Lovelace_12345_assignsubmission_file_"; her participant id is 67890
    write("Ada Lovelace_12345_assignsubmission_file__67890_assignsubmission_file_", "04_memory_tools.ipynb",
          load("04_memory_tools.ipynb"))


def round4() -> None:
    """Host memory: one written answer of 90 MB is split into words on the host (written.answer_row)."""
    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-27b-written", "### In your own words\n\n" + "ab cd ef gh " * 7_500_000 + "\n")
    write("h02_writtenmem", "04_memory_tools.ipynb", nb)


# =========================================================================== round 5

PKGUTIL_01 = '''from concurrent.futures import ThreadPoolExecutor
import pkgutil

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count

_POOL = ThreadPoolExecutor(1)
_WHERE = "memlib.course." + "che" + "cks.nb01_token_budget:" + "reference_" + "how_many_fit"


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    engine = pkgutil.resolve_name(_WHERE)
    return _POOL.submit(engine, messages, window, system_prompt, reserve).result()
'''

LOOP_HONEST_TYPES = LOOP_HONEST.replace(
    "from memlib.tools import dispatch\n",
    "from types import SimpleNamespace\n\nfrom memlib.tools import dispatch\n").replace(
    "        heartbeats = 0\n",
    "        heartbeats = 0\n        state = SimpleNamespace(steps=0)  # my own bookkeeping\n").replace(
    "            calls.append((call, result))\n",
    "            calls.append((call, result))\n            state.steps += 1\n")


def round5() -> None:
    nb = load("01_context_window.ipynb")
    set_source(nb, "01-30-ex0", PKGUTIL_01)
    write("e02_01pkgutil_thread", "01_context_window.ipynb", nb)

    nb = load("04_memory_tools.ipynb")
    set_source(nb, "04-13b-loop", LOOP_HONEST_TYPES)
    write("e01_honest04_types", "04_memory_tools.ipynb", nb)


if __name__ == "__main__":
    main()
    round2()
    round3()
    round3_moodle()
    round4()
    round5()
