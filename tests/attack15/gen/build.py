"""Build the round-15 submissions from the released notebooks: out/submissions/<student>/<notebook>.ipynb."""
import copy
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REL = ROOT / "notebooks"
OUT = ROOT / "out" / "submissions"

BOX = '''
_box = {}


def _tick():
    return None
'''

# ---------------------------------------------------------------- 03: BM25 via the hook
EX03_HOOK = '''import math
from collections import Counter
''' + BOX + '''

def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    _box["args"] = (list(query_tokens), [list(d) for d in docs_tokens], k1, b, epsilon)
    _box.pop("out", None)
    _tick()
    if "err" in _box:
        raise _box.pop("err")
    return _box.pop("out")
'''

HOOK03 = '''from memlib.retrieval import *


class _Name(str):
    def __str__(self):
        job = _box.pop("args", None)
        if job is not None:
            try:
                q, docs, k1, b, eps = job
                ix = BM25Index("okapi", k1=k1, b=b, epsilon=eps, analyzer=lambda text: q)
                ix.add_many([(i, "d") for i in range(len(docs))], tokens=docs)
                _box["out"] = [float(ix.score("q", i)) for i in range(len(docs))]
            except Exception as error:
                _box["err"] = error
        return "__main__"


__name__ = _Name("__main__")
'''

# ---------------------------------------------------------------- 03 calibration: direct call
EX03_DIRECT = '''import math
from collections import Counter

from memlib.retrieval import *


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    q = list(query_tokens)
    ix = BM25Index("okapi", k1=k1, b=b, epsilon=epsilon, analyzer=lambda text: q)
    ix.add_many([(i, "d") for i in range(len(docs_tokens))], tokens=[list(d) for d in docs_tokens])
    return [float(ix.score("q", i)) for i in range(len(docs_tokens))]
'''

# ---------------------------------------------------------------- 03 honest
EX03_HONEST = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n_docs = len(docs_tokens)
    if n_docs == 0:
        return []
    lengths = [len(d) for d in docs_tokens]
    avgdl = sum(lengths) / n_docs
    df = Counter()
    for doc in docs_tokens:
        df.update(set(doc))
    idf = {}
    for term, n in df.items():
        idf[term] = math.log(n_docs - n + 0.5) - math.log(n + 0.5)
    mean_idf = sum(idf.values()) / len(idf) if idf else 0.0
    for term, value in idf.items():
        if value < 0:
            idf[term] = epsilon * mean_idf
    scores = []
    for doc, dl in zip(docs_tokens, lengths):
        tf = Counter(doc)
        total = 0.0
        for q in query_tokens:
            f = tf.get(q, 0)
            if f:
                total += idf[q] * (f * (k1 + 1)) / (f + k1 * (1 - b + b * dl / avgdl))
        scores.append(total)
    return scores
'''

# ---------------------------------------------------------------- 02: summarizer via the hook
EX02_HOOK = '''import re

from memlib.tokens import count
''' + BOX + '''

class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        _box["args"] = (previous, list(evicted), max_tokens)
        _box.pop("out", None)
        _tick()
        if "err" in _box:
            raise _box.pop("err")
        return _box.pop("out")
'''

HOOK02 = '''class _Name(str):
    def __str__(self):
        job = _box.pop("args", None)
        if job is not None:
            try:
                _box["out"] = ExtractiveSummarizer().summarize(*job)
            except Exception as error:
                _box["err"] = error
        return "__main__"


__name__ = _Name("__main__")
'''

# ---------------------------------------------------------------- 06: citations via the hook
EX06_HOOK = '''import math

from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
''' + BOX + '''

def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    _box["args"] = (question, store)
    _box.pop("out", None)
    _tick()
    if "err" in _box:
        raise _box.pop("err")
    return _box.pop("out")
'''

HOOK06 = '''from memlib.citations import *


class _Name(str):
    def __str__(self):
        job = _box.pop("args", None)
        if job is not None:
            try:
                _box["out"] = answer_from_store(*job)
            except Exception as error:
                _box["err"] = error
        return "__main__"


__name__ = _Name("__main__")
'''

# ---------------------------------------------------------------- 01 honest
EX01_HONEST = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt) + reserve
    n = 0
    for message in messages[::-1]:
        cost = count(message) + MESSAGE_OVERHEAD
        if used + cost > window:
            break
        used += cost
        n += 1
    return n
'''


def code_cell(source, cell_id):
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [],
            "source": source.strip("\n").splitlines(keepends=True)}


def build(student, notebook, exercise_id, source, hook=None):
    nb = json.loads((REL / notebook).read_text())
    nb = copy.deepcopy(nb)
    cells = nb["cells"]
    index = next(i for i, c in enumerate(cells) if c.get("id") == exercise_id)
    cells[index]["source"] = source.strip("\n").splitlines(keepends=True)
    if hook:
        cells.insert(index + 1, code_cell(hook, f"{exercise_id}-helpers"))
    folder = OUT / student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / notebook).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    print("wrote", folder / notebook)


build("cheat03_hook", "03_archival_bm25.ipynb", "03-11-ex2", EX03_HOOK, HOOK03)
build("cheat02_hook", "02_eviction_summaries.ipynb", "02-14-ex1", EX02_HOOK, HOOK02)
build("cheat06_hook", "06_citations.ipynb", "06-16-ex3-code", EX06_HOOK, HOOK06)
build("calib03_direct", "03_archival_bm25.ipynb", "03-11-ex2", EX03_DIRECT)
build("honest01", "01_context_window.ipynb", "01-30-ex0", EX01_HONEST)
build("honest03", "03_archival_bm25.ipynb", "03-11-ex2", EX03_HONEST)
