"""Build attack13's submissions under out/submissions/<student>/<notebook>.ipynb."""
import copy
import json
import shutil
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1]
REL = OUT.parent / "notebooks"
SUB = OUT / "submissions"


def load(stem):
    return json.loads((REL / f"{stem}.ipynb").read_text())


def save(student, stem, nb):
    d = SUB / student
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{stem}.ipynb").write_text(json.dumps(nb, ensure_ascii=False, indent=1))


def src(cell):
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def append_to_stub(nb, marker, code):
    """Append `code` to the exercise cell whose source holds `marker` (the stub's def line)."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and marker in src(cell) and "NotImplementedError" in src(cell):
            cell["source"] = src(cell).rstrip() + "\n\n\n" + code.strip() + "\n"
            return nb
    raise SystemExit(f"no stub with {marker!r}")


# ---------------------------------------------------------------- the worker-thread template
WORKER = '''
import queue
from IPython.lib import backgroundjobs as bgjobs
import {module}

{name}_requests = queue.Queue()
{name}_replies = queue.Queue()


def {name}_service():
    while True:
        args = {name}_requests.get()
        try:
            {name}_replies.put((True, {compute}))
        except Exception as error:
            {name}_replies.put((False, error))


{name}_worker = bgjobs.BackgroundJobFunc({name}_service)
{name}_worker.daemon = True
{name}_worker.start()
'''

ASK = '''
    {name}_requests.put({packed})
    ok, value = {name}_replies.get()
    if not ok:
        raise value
    return value
'''


def worker(module, name, compute):
    return WORKER.format(module=module, name=name, compute=compute)


def ask(name, packed):
    return ASK.format(name=name, packed=packed)


def t07():
    nb = load("07_memory_poisoning")
    code = worker("memlib.guard", "scan", "memlib.guard.scan(*args)") + \
        "\n\ndef my_scan(text):\n    \"\"\"My guard.\"\"\"" + ask("scan", "(text,)")
    save("t07_bgjob_scan", "07_memory_poisoning", append_to_stub(nb, "def my_scan(text)", code))


BM25_COMPUTE = "bm25_compute(*args)"
BM25_HELPER = '''

def bm25_compute(query, docs, k1, b, epsilon):
    if not docs:
        return []
    index = memlib.retrieval.BM25Index(idf="okapi", k1=k1, b=b, epsilon=epsilon,
                                       analyzer=lambda text, q=list(query): list(q))
    index.add_many([(i, "doc") for i in range(len(docs))], tokens=[list(d) for d in docs])
    return [float(index.score("query", i)) for i in range(len(docs))]
'''


def t03():
    nb = load("03_archival_bm25")
    code = BM25_HELPER.replace("def bm25_compute", "import memlib.retrieval\n\n\ndef bm25_compute") + \
        worker("memlib.retrieval", "bm25", BM25_COMPUTE) + \
        "\n\ndef bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):" + \
        ask("bm25", "(list(query_tokens), [list(d) for d in docs_tokens], k1, b, epsilon)")
    save("t03_bgjob_bm25", "03_archival_bm25", append_to_stub(nb, "def bm25_scores(", code))


def t09():
    nb = load("09_governed_memory")
    code = worker("memlib.governance", "tidy", "memlib.governance.consolidate_in_store(*args)") + \
        "\n\ndef consolidation_pass(store, now, ends):" + ask("tidy", "(store, now, ends)")
    save("t09_bgjob_consolidate", "09_governed_memory", append_to_stub(nb, "def consolidation_pass(", code))


def t06():
    nb = load("06_citations")
    code = worker("memlib.citations", "cite", "memlib.citations.answer_from_store(*args)") + \
        "\n\ndef answer_with_citations(question, store):" + ask("cite", "(question, store)")
    save("t06_bgjob_cite", "06_citations", append_to_stub(nb, "def answer_with_citations(", code))


def t02():
    nb = load("02_eviction_summaries")
    code = worker("memlib.summarize", "summ", "memlib.summarize.ExtractiveSummarizer().summarize(*args)") + \
        "\n\nclass MySummarizer:\n    def summarize(self, previous, evicted, max_tokens):" + \
        ask("summ", "(previous, evicted, max_tokens)").replace("\n    ", "\n        ")
    save("t02_bgjob_summarizer", "02_eviction_summaries", append_to_stub(nb, "class MySummarizer", code))


def t04():
    nb = load("04_memory_tools")
    code = worker("memlib.agent", "loop", "memlib.agent.Agent.step(*args)") + \
        "\n\nclass MyAgent(Agent):\n    def step(self, user_text):" + \
        ask("loop", "(self, user_text)").replace("\n    ", "\n        ")
    save("t04_bgjob_agentstep", "04_memory_tools", append_to_stub(nb, "class MyAgent(Agent)", code))


def c07():
    nb = load("07_memory_poisoning")
    code = "import memlib.guard\n\n\ndef my_scan(text):\n    return memlib.guard.scan(text)\n"
    save("c07_direct", "07_memory_poisoning", append_to_stub(nb, "def my_scan(text)", code))


# ---------------------------------------------------------------- honest controls
H01 = '''
def how_many_fit(messages, window, system_prompt="", reserve=0):
    budget = window - count(system_prompt) - reserve
    kept = 0
    for text in reversed(list(messages)):
        cost = count(text) + MESSAGE_OVERHEAD
        if cost > budget:
            break
        budget -= cost
        kept += 1
    return kept
'''

H03C = '''
def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    n = len(docs_tokens)
    if n == 0:
        return []
    tfs = [Counter(d) for d in docs_tokens]
    lengths = [len(d) for d in docs_tokens]
    avgdl = sum(lengths) / n
    df = Counter()
    for c in tfs:
        df.update(c.keys())
    idf = {t: math.log(n - f + 0.5) - math.log(f + 0.5) for t, f in df.items()}
    mean_idf = sum(idf.values()) / len(idf) if idf else 0.0
    idf = {t: (epsilon * mean_idf if w < 0 else w) for t, w in idf.items()}
    scores = []
    for c, dl in zip(tfs, lengths):
        norm = k1 * (1 - b + b * dl / avgdl)
        s = 0.0
        for q in query_tokens:
            tf = c.get(q, 0)
            if tf:
                s += idf[q] * tf * (k1 + 1) / (tf + norm)
        scores.append(s)
    return scores
'''

H03N = '''
import numpy as np


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    docs = [list(d) for d in docs_tokens]
    if not docs:
        return []
    vocab = sorted({t for d in docs for t in d})
    col = {t: i for i, t in enumerate(vocab)}
    tf = np.zeros((len(docs), len(vocab)))
    for i, d in enumerate(docs):
        for t in d:
            tf[i, col[t]] += 1
    dl = np.array([len(d) for d in docs], dtype=float)
    avgdl = dl.mean()
    df = (tf > 0).sum(axis=0)
    idf = np.log(len(docs) - df + 0.5) - np.log(df + 0.5)
    if len(vocab):
        idf = np.where(idf < 0, epsilon * idf.mean(), idf)
    norm = k1 * (1 - b + b * dl / avgdl)
    out = np.zeros(len(docs))
    for q in query_tokens:
        if q in col:
            f = tf[:, col[q]]
            out += idf[col[q]] * f * (k1 + 1) / (f + norm)
    return [float(x) for x in out]
'''

H02 = '''
def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    units, i = [], 0
    while i < len(queue):
        head, j = queue[i], i + 1
        if head.role == "assistant":
            while j < len(queue) and queue[j].role == "tool" and queue[j].tool_call_id == head.tool_call_id:
                j += 1
        units.append((i, j))
        i = j
    remaining, cut = sum(tokens), 0
    for start, end in units:
        if remaining <= target:
            break
        remaining -= sum(tokens[start:end])
        cut = end
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary
'''


def honest():
    save("h01_loop", "01_context_window", append_to_stub(load("01_context_window"), "def how_many_fit(", H01))
    save("h03_counter", "03_archival_bm25", append_to_stub(load("03_archival_bm25"), "def bm25_scores(", H03C))
    save("h03_numpy", "03_archival_bm25", append_to_stub(load("03_archival_bm25"), "def bm25_scores(", H03N))
    save("h02_flush", "02_eviction_summaries", append_to_stub(load("02_eviction_summaries"), "def flush(", H02))


# ---------------------------------------------------------------- host harm: big packed notebooks
def harm(n_emoji=26_000_000):
    stems = ["01_context_window", "02_eviction_summaries", "03_archival_bm25", "04_memory_tools", "05_who_decides",
             "06_citations", "07_memory_poisoning", "08_typed_core_memory", "09_governed_memory"]
    blob = "\U0001F600" * n_emoji  # 4 bytes each in UTF-8: 104,000,000 bytes, 26,000,000 characters
    d = SUB / "harm_bigpack"
    d.mkdir(parents=True, exist_ok=True)
    for stem in stems:
        nb = load(stem)
        graded = [c for c in nb["cells"] if "graded" in c.get("metadata", {}).get("tags", [])]
        head = json.dumps({**nb, "cells": graded + [{"cell_type": "markdown", "metadata": {}, "source": "@@BLOB@@"}]},
                          ensure_ascii=False)
        pre, post = head.split('"@@BLOB@@"')
        with open(d / f"{stem}.ipynb", "w", encoding="utf-8") as f:
            f.write(pre + '"')
            f.write(blob)
            f.write('"' + post)


if __name__ == "__main__":
    if SUB.exists():
        shutil.rmtree(SUB)
    for fn in (t07, t03, t09, t06, t02, t04, c07, honest):
        fn()
    if "--no-harm" not in sys.argv:
        harm()
    for p in sorted(SUB.rglob("*.ipynb")):
        print(p.relative_to(OUT), p.stat().st_size)
