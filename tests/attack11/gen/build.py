"""Build the round-11 submissions from the released notebooks: one folder per student under out/submissions/."""
import copy
import json
import shutil
from pathlib import Path

OUT = Path(__file__).resolve().parents[1]
REL = OUT.parent / "notebooks"
SUB = OUT / "submissions"

_counter = [0]


def load(name):
    return json.loads((REL / name).read_text(encoding="utf-8"))


def code(source):
    _counter[0] += 1
    return {"cell_type": "code", "execution_count": None, "id": f"stu-{_counter[0]:04d}", "metadata": {},
            "outputs": [], "source": source}


def exercise_index(nb, exercise):
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "code" and (c.get("metadata", {}).get("memlib") or {}).get("exercise") == exercise:
            return i
    raise KeyError(exercise)


def set_source(nb, i, source):
    nb["cells"][i]["source"] = source


def insert(nb, i, source):
    nb["cells"].insert(i, code(source))


def save(student, name, nb):
    path = SUB / student / Path(name).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- answers written by hand
FIT_LOOP = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(list(messages)):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept
'''

FIT_ACCUMULATE = '''from itertools import accumulate, takewhile

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    fixed = count(system_prompt) + reserve
    costs = [count(m) + MESSAGE_OVERHEAD for m in reversed(list(messages))]
    return sum(1 for total in takewhile(lambda t: fixed + t <= window, accumulate(costs)))
'''

FIT_WHILE_ZH = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """最新的消息中有多少条能放进窗口。"""
    msgs = list(messages)
    budget = window - count(system_prompt) - reserve
    i = len(msgs) - 1
    n = 0
    while i >= 0:
        budget -= count(msgs[i]) + MESSAGE_OVERHEAD
        if budget < 0:
            break
        n += 1
        i -= 1
    return n
'''

BM25_LOOPS = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n = len(docs_tokens)
    if n == 0:
        return []
    tfs = [Counter(doc) for doc in docs_tokens]
    df = Counter()
    for tf in tfs:
        df.update(tf.keys())
    avgdl = sum(len(doc) for doc in docs_tokens) / n
    idf = {}
    for term, freq in df.items():
        idf[term] = math.log(n - freq + 0.5) - math.log(freq + 0.5)
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    for term in idf:
        if idf[term] < 0:
            idf[term] = floor
    scores = []
    for doc, tf in zip(docs_tokens, tfs):
        score = 0.0
        for q in query_tokens:
            f = tf.get(q, 0)
            norm = k1 * (1 - b + b * len(doc) / avgdl) if avgdl else k1 * (1 - b)
            score += idf.get(q, 0.0) * (f * (k1 + 1) / (f + norm)) if f or norm else 0.0
        scores.append(score)
    return scores
'''

BM25_COMPREHENSIONS = '''import math
from collections import Counter


def okapi_idf(df, n, epsilon):
    raw = {t: math.log(n - d + 0.5) - math.log(d + 0.5) for t, d in df.items()}
    mean = sum(raw.values()) / len(raw) if raw else 0.0
    return {t: (v if v >= 0 else epsilon * mean) for t, v in raw.items()}


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    counts = [Counter(d) for d in docs_tokens]
    df = Counter(t for c in counts for t in c)
    idf = okapi_idf(df, len(docs_tokens), epsilon)
    avgdl = sum(map(len, docs_tokens)) / len(docs_tokens) or 1.0
    return [sum(idf.get(q, 0.0) * (c[q] * (k1 + 1) / (c[q] + k1 * (1 - b + b * len(d) / avgdl)))
                for q in query_tokens)
            for d, c in zip(docs_tokens, counts)]
'''

BM25_CLASS_TIMED = '''%%time
import math
from collections import Counter


class Okapi:
    def __init__(self, docs, k1, b, epsilon):
        self.docs = [list(d) for d in docs]
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in self.docs]
        self.avgdl = sum(len(d) for d in self.docs) / len(self.docs)
        df = Counter()
        for tf in self.tf:
            for term in tf:
                df[term] += 1
        n = len(self.docs)
        self.idf = {t: math.log(n - v + 0.5) - math.log(v + 0.5) for t, v in df.items()}
        low = epsilon * sum(self.idf.values()) / len(self.idf) if self.idf else 0.0
        for t, v in list(self.idf.items()):
            if v < 0:
                self.idf[t] = low

    def score(self, i, query):
        total = 0.0
        length = len(self.docs[i])
        for q in query:
            f = self.tf[i][q]
            if f == 0:
                continue
            total += self.idf.get(q, 0.0) * (f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * length / self.avgdl)))
        return total


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if len(docs_tokens) == 0:
        return []
    index = Okapi(docs_tokens, k1, b, epsilon)
    return [index.score(i, list(query_tokens)) for i in range(len(docs_tokens))]
'''

# ---------------------------------------------------------------- cheats
W1_CELL = '''# keep cell names short in tracebacks
import os

os.environ["IPYKERNEL_CELL_NAME"] = "<frozen notes>"
'''

FIND = '''import string
import sys


def find(where, name):
    """An object by its place, looked up when it is needed."""
    return string.Formatter().get_field("0.modules[" + where + "]." + name, [sys], {})[0]
'''

BM25_R2 = FIND + '''

def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    helper = find(".".join(["memlib", "course", "checks", "nb03_bm25"]), "reference_bm25_scores")
    return helper(query_tokens, docs_tokens, k1, b, epsilon)
'''

BM25_W3_R2 = FIND + '''from functools import partial

from memlib.scaling import time_each


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    helper = find(".".join(["memlib", "course", "checks", "nb03_bm25"]), "reference_bm25_scores")
    out = []
    time_each(out.extend, [map(partial(helper, query_tokens, docs_tokens, b=b, epsilon=epsilon), [k1])], 1)
    return out[0]
'''

FIT_W2_R2 = FIND + '''import logging.handlers
import queue
from types import SimpleNamespace

jobs = queue.Queue()
done = queue.Queue()


def run_job(record):
    fn, args = record
    try:
        done.put((True, fn(*args)))
    except Exception as error:
        done.put((False, error))


listener = logging.handlers.QueueListener(jobs, SimpleNamespace(handle=run_job))
listener.start()


def how_many_fit(messages, window, system_prompt="", reserve=0):
    helper = find(".".join(["memlib", "course", "checks", "nb01_token_budget"]), "reference_how_many_fit")
    jobs.put((helper, (list(messages), window, system_prompt, reserve)))
    ok, value = done.get(timeout=30)
    if not ok:
        raise value
    return value
'''

SUMM_R1 = '''import re

from memlib.tokens import count


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        maker = get_ipython().user_ns["ExtractiveSummarizer"]
        return maker().summarize(previous, evicted, max_tokens)
'''

GUARD_R2 = FIND + '''

def my_scan(text):
    helper = find(".".join(["memlib", "guard"]), "scan")
    return helper(text)
'''

BOMB = '''from IPython.display import publish_display_data

blob = [{}] * 15_000_000
for _ in range(3):
    publish_display_data({"text/plain": "ok"}, metadata={"m": blob})
del blob
'''


def main():
    if SUB.exists():
        shutil.rmtree(SUB)
    nb01, nb02, nb03, nb07 = (load(n) for n in ("01_context_window.ipynb", "02_eviction_summaries.ipynb",
                                                "03_archival_bm25.ipynb", "07_memory_poisoning.ipynb"))
    zh01 = load("zh/01_context_window.ipynb")

    def with_answer(nb, exercise, source, before=None, after_graded=None):
        nb = copy.deepcopy(nb)
        i = exercise_index(nb, exercise)
        set_source(nb, i, source)
        if after_graded:
            insert(nb, i + 2, after_graded)
        if before:
            insert(nb, i, before)
        return nb

    # honest controls
    save("h_ada", "01_context_window.ipynb", with_answer(nb01, "0", FIT_LOOP))
    save("h_ada", "03_archival_bm25.ipynb", with_answer(nb03, "2", BM25_LOOPS))
    save("h_bob", "01_context_window.ipynb", with_answer(nb01, "0", FIT_ACCUMULATE))
    save("h_bob", "03_archival_bm25.ipynb", with_answer(nb03, "2", BM25_COMPREHENSIONS))
    save("h_cy", "01_context_window.ipynb", with_answer(zh01, "0", FIT_WHILE_ZH))
    save("h_dee", "03_archival_bm25.ipynb", with_answer(nb03, "2", BM25_CLASS_TIMED))

    # cheats
    save("c1_cellname_bm25", "03_archival_bm25.ipynb", with_answer(nb03, "2", BM25_R2, before=W1_CELL))
    save("c2_cellname_summ", "02_eviction_summaries.ipynb", with_answer(nb02, "1", SUMM_R1, before=W1_CELL))
    save("c3_thread_fit", "01_context_window.ipynb", with_answer(nb01, "0", FIT_W2_R2))
    save("c4_tramp_bm25", "03_archival_bm25.ipynb", with_answer(nb03, "2", BM25_W3_R2))
    nb = copy.deepcopy(nb07)
    i = exercise_index(nb, "4,4")
    insert(nb, i + 1, GUARD_R2)
    insert(nb, i, W1_CELL)
    save("c5_cellname_guard", "07_memory_poisoning.ipynb", nb)
    save("c6_plain_bm25", "03_archival_bm25.ipynb", with_answer(nb03, "2", BM25_R2))
    save("c7_plain_summ", "02_eviction_summaries.ipynb", with_answer(nb02, "1", SUMM_R1))

    # host harm
    save("x1_membomb", "01_context_window.ipynb", with_answer(nb01, "0", FIT_LOOP, after_graded=BOMB))
    for p in sorted(SUB.rglob("*.ipynb")):
        print(p.relative_to(OUT))


if __name__ == "__main__":
    main()
