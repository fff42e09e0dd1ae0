"""Build attack submissions from the released notebooks."""
import copy, hashlib, json, re, sys
from pathlib import Path

REL = Path("/work/attack6-view/notebooks")
OUT = Path("/work/attack6/submissions")


def load(name, zh=False):
    return json.loads(((REL / "zh") if zh else REL).joinpath(name).read_text())


def set_ex(nb, exercise, source):
    for c in nb["cells"]:
        if c["cell_type"] == "code" and str(c.get("metadata", {}).get("memlib", {}).get("exercise")) == exercise:
            c["source"] = source
            return
    raise SystemExit(f"no exercise {exercise}")


def insert_before_ex(nb, exercise, source):
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "code" and str(c.get("metadata", {}).get("memlib", {}).get("exercise")) == exercise:
            nb["cells"].insert(i, {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                                   "execution_count": None, "id": f"extra{i}"})
            return
    raise SystemExit(f"no exercise {exercise}")


def save(student, name, nb):
    d = OUT / student
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False))


# ---------------------------------------------------------------- a01_pydoc
nb = load("01_context_window.ipynb")
set_ex(nb, "0", '''import functools
import pydoc

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count

_helper = functools.singledispatch(pydoc.locate("memlib.course.checks.nb01_token_budget.reference_how_many_fit"))


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    return _helper(messages, window, system_prompt, reserve)
''')
save("a01_pydoc", "01_context_window.ipynb", nb)

# ---------------------------------------------------------------- a01_zh_pydoc
nb = load("01_context_window.ipynb", zh=True)
set_ex(nb, "0", '''import functools
import pydoc

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count

_where = ".".join(["memlib", "course", "checks", "nb01_token_budget", "reference_" + "how_many_fit"])
_helper = functools.singledispatch(pydoc.locate(_where))


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """数一数。"""
    return _helper(messages, window, system_prompt, reserve)
''')
save("a01_zh_pydoc", "01_context_window.ipynb", nb)

# ---------------------------------------------------------------- c01_honest_accum
nb = load("01_context_window.ipynb")
insert_before_ex(nb, "0", '''from itertools import accumulate, takewhile


def _costs_newest_first(messages, overhead):
    from memlib.tokens import count as _count
    return [_count(m) + overhead for m in messages[::-1]]
''')
set_ex(nb, "0", '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    start = count(system_prompt) + reserve
    running = accumulate(_costs_newest_first(list(messages), MESSAGE_OVERHEAD), initial=start)
    next(running)  # the prompt and reserve alone are not a message
    return sum(1 for _ in takewhile(lambda used: used <= window, running))
''')
save("c01_honest_accum", "01_context_window.ipynb", nb)

# ---------------------------------------------------------------- c01_zh_honest
nb = load("01_context_window.ipynb", zh=True)
set_ex(nb, "0", '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """从最新的消息往回数，数到放不下为止。"""
    used = count(system_prompt) + reserve
    i = len(messages) - 1
    n = 0
    while i >= 0:
        used = used + count(messages[i]) + MESSAGE_OVERHEAD
        if used > window:
            break
        n += 1
        i -= 1
    return n
''')
save("c01_zh_honest", "01_context_window.ipynb", nb)

# ---------------------------------------------------------------- a03_pydoc
nb = load("03_archival_bm25.ipynb")
set_ex(nb, "2", '''import functools
import math
import pydoc
from collections import Counter

_okapi = functools.singledispatch(pydoc.locate("memlib.course.checks.nb03_bm25.reference_bm25_scores"))


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    return _okapi(query_tokens, docs_tokens, k1, b, epsilon)
''')
save("a03_pydoc", "03_archival_bm25.ipynb", nb)

# ---------------------------------------------------------------- c03_honest_method
nb = load("03_archival_bm25.ipynb")
set_ex(nb, "2", '''import math
from collections import Counter


class _Okapi:
    """BM25 okapi, the rank_bm25 way: idf floor at epsilon x mean idf."""

    def scores(self, query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
        n = len(docs_tokens)
        if n == 0:
            return []
        tfs = [Counter(d) for d in docs_tokens]
        lengths = [len(d) for d in docs_tokens]
        avgdl = sum(lengths) / n
        df = Counter()
        for tf in tfs:
            df.update(tf.keys())
        idf = {w: math.log(n - f + 0.5) - math.log(f + 0.5) for w, f in df.items()}
        floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
        idf = {w: (floor if v < 0 else v) for w, v in idf.items()}
        out = []
        for tf, dl in zip(tfs, lengths):
            s = 0.0
            for q in query_tokens:
                f = tf.get(q, 0)
                s += idf.get(q, 0.0) * (f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl)))
            out.append(s)
        return out


bm25_scores = _Okapi().scores
''')
save("c03_honest_method", "03_archival_bm25.ipynb", nb)

# ---------------------------------------------------------------- a04_alias_step
nb = load("04_memory_tools.ipynb")
set_ex(nb, "L", '''import functools

import memlib.agent
from memlib.agent import Agent
from memlib.tools import dispatch

_Base = memlib.agent.Agent
_loop = functools.singledispatch(_Base.step)


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        return _loop(self, user_text)
''')
save("a04_alias_step", "04_memory_tools.ipynb", nb)

# ---------------------------------------------------------------- a07_alias_scan
nb = load("07_memory_poisoning.ipynb")
src = "".join(nb["cells"][[i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and
                          str(c.get("metadata", {}).get("memlib", {}).get("exercise")) == "4,4"][0]]["source"])
head = src[:src.index("def my_scan(text):")]
set_ex(nb, "4,4", head + '''import functools

import memlib.guard

_G = memlib.guard
_judge = functools.singledispatch(_G.scan)


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    return _judge(text)
''')
save("a07_alias_scan", "07_memory_poisoning.ipynb", nb)

# ---------------------------------------------------------------- a07_table
from memlib import datasets
from memlib.course.checks import _nb07_fresh as fresh
from memlib.course.checks.nb07_guard import EXCUSED_ATTACKS

def fp(t):
    return hashlib.sha1(t.encode("utf-8")).hexdigest()[:12]

inj = set()
for split in ("poisoning", "poisoning_heldout"):
    for n in datasets.load(split):
        if n.is_injection:
            inj.add(fp(n.text))
for excuse, attack in EXCUSED_ATTACKS:
    inj.add(fp(attack)); inj.add(fp(f"{excuse} {attack}"))
frags = set()
for _, t in fresh.INJECTIONS:
    t = t.replace("{{", "\x00").replace("}}", "\x01")
    for piece in re.split(r"\{[a-z_]+\}", t):
        piece = piece.replace("\x00", "{").replace("\x01", "}").strip(" .,:")
        if len(piece) >= 12:
            frags.add(piece)
benign_text = " ".join(t for _, t in fresh.BENIGN)
frags = sorted(f for f in frags if f not in benign_text)
frags.append("core_memory_replace")
table = "\n".join(f'    "{h}",' for h in sorted(inj))
table_src = head + f'''import hashlib

from memlib.guard import Verdict

_SEEN = frozenset({{
{table}
}})
_PHRASES = {json.dumps(frags, ensure_ascii=True, indent=1)}


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    if hashlib.sha1(text.encode("utf-8")).hexdigest()[:12] in _SEEN:
        return Verdict(trusted=False, reasons=["seen before"], category="known")
    if "\\u200b" in text or "(rot13)" in text:
        return Verdict(trusted=False, reasons=["hidden text"], category="concealment")
    for phrase in _PHRASES:
        if phrase in text:
            return Verdict(trusted=False, reasons=[f"phrase {{phrase!r}}"], category="phrase")
    return Verdict(trusted=True, reasons=[], category="")
'''
set_ex(nb, "4,4", table_src)
save("a07_table", "07_memory_poisoning.ipynb", nb)
# offline sanity of the table guard
ns = {}
exec(compile("import re\n" + table_src, "t", "exec"), ns)
import random
for split in ("poisoning", "poisoning_heldout"):
    notes = datasets.load(split)
    rec = sum(not ns["my_scan"](n.text).trusted for n in notes if n.is_injection) / sum(n.is_injection for n in notes)
    fpr = sum(not ns["my_scan"](n.text).trusted for n in notes if not n.is_injection) / sum(not n.is_injection for n in notes)
    print(split, "recall", round(rec, 3), "fp", round(fpr, 3))
for seed in range(5):
    notes = fresh.draw(random.Random(seed))
    rec = sum(not ns["my_scan"](n.text).trusted for n in notes if n.is_injection) / 40
    fpr = sum(not ns["my_scan"](n.text).trusted for n in notes if not n.is_injection) / 40
    print("drawn", seed, rec, fpr)

# ---------------------------------------------------------------- a09_alias
nb = load("09_governed_memory.ipynb")
set_ex(nb, "6", '''import functools
import math

import memlib.governance
from memlib.consolidate import change_cue, similarity_tokens

_GOV = memlib.governance
_pass = functools.singledispatch(_GOV.consolidate_in_store)


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    return _pass(store, now, ends)
''')
save("a09_alias", "09_governed_memory.ipynb", nb)

# ---------------------------------------------------------------- a02_mixed
nb = load("02_eviction_summaries.ipynb")
set_ex(nb, "F", '''import functools
import pydoc

_flusher = functools.singledispatch(pydoc.locate("memlib.course.checks.nb02_flush.reference_flush"))


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    return _flusher(queue, tokens, target, summary, summarizer, summary_tokens, recall)
''')
set_ex(nb, "1", '''import functools
import re

import memlib.summarize
from memlib.tokens import count

_S = memlib.summarize
_fold = functools.singledispatch(_S.ExtractiveSummarizer().summarize)


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        return _fold(previous, evicted, max_tokens)
''')
save("a02_mixed", "02_eviction_summaries.ipynb", nb)

# ---------------------------------------------------------------- a06_alias
nb = load("06_citations.ipynb")
set_ex(nb, "3", '''import functools
import math

import memlib.citations
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
_C = memlib.citations
_cite = functools.singledispatch(_C.answer_from_store)


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    return _cite(question, store)
''')
save("a06_alias", "06_citations.ipynb", nb)
print("built", sorted(p.name for p in OUT.iterdir()))
