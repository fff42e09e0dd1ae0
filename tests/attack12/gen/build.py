"""Build the attack12 submissions from the released notebooks."""
import copy, json, os, shutil, sys
from pathlib import Path

ROOT = Path("/work/attack12-view")
REL = ROOT / "notebooks"
SUB = ROOT / "out" / "submissions"

def load(name):
    return json.loads((REL / name).read_text(encoding="utf-8"))

def cell_by_id(nb, cid):
    for c in nb["cells"]:
        if c.get("id") == cid:
            return c
    raise KeyError(cid)

def set_source(cell, text):
    cell["source"] = text.splitlines(keepends=True)

def save(student, name, nb):
    d = SUB / student
    d.mkdir(parents=True, exist_ok=True)
    (d / Path(name).name).write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")

# ---------------------------------------------------------------- c03_registry
C03 = '''import math
from collections import Counter

from memlib.archival import ArchivalStore
from memlib.retrieval import SCORERS


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    index = SCORERS["bm25-okapi"].build(str.split)
    index.k1, index.b, index.epsilon = float(k1), float(b), float(epsilon)
    store = ArchivalStore(scorer=lambda: index)
    ids = [store.insert(" ".join(doc)).id for doc in docs_tokens]
    hits = store.search(" ".join(query_tokens), top_k=len(ids))
    got = {hit.record.id: hit.score for hit in hits}
    return [float(got.get(i, 0.0)) for i in ids]
'''
nb = load("03_archival_bm25.ipynb"); set_source(cell_by_id(nb, "03-11-ex2"), C03); save("c03_registry", "03_archival_bm25.ipynb", nb)

# ---------------------------------------------------------------- c07_quote
nb = load("07_memory_poisoning.ipynb")
cell = cell_by_id(nb, "07-22-ex4-code")
src = "".join(cell["source"])
head, _, _ = src.partition("def my_scan(text):")
C07 = head + '''from types import SimpleNamespace

from memlib.scanner import quote_as_data


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    note = SimpleNamespace(id="note", text=text)
    shown = quote_as_data(note)
    head = shown.split("), so I treat it", 1)[0]
    why = head.split("instruction-shaped text (", 1)[1] if "instruction-shaped text (" in head else ""
    if why == "marked untrusted":
        return Verdict(True, [])
    why = why or "instruction-shaped text"
    return Verdict(False, [why], why.split("/")[0] or "rule")
'''
set_source(cell, C07); save("c07_quote", "07_memory_poisoning.ipynb", nb)

# ---------------------------------------------------------------- c02_table (record the fixed cases offline)
from memlib.course.checks import nb02_flush
table = {}
def recorder(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    kept, new = nb02_flush.reference_flush(queue, tokens, target, summary, summarizer, summary_tokens, recall)
    table[(tuple(tokens), target, len(queue))] = len(queue) - len(kept)
    return kept, new
try:
    nb02_flush.check_flush(recorder)
except Exception as e:  # noqa
    print("recording run:", type(e).__name__, e, file=sys.stderr)
print("flush table entries:", len(table), file=sys.stderr)
rows = ",\n".join(f"    {k!r}: {v}" for k, v in sorted(table.items(), key=repr))
C02 = f'''CUTS = {{
{rows}
}}


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    cut = CUTS.get((tuple(tokens), target, len(queue)), 0)
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary
'''
nb = load("02_eviction_summaries.ipynb"); set_source(cell_by_id(nb, "02-41-flush"), C02); save("c02_table", "02_eviction_summaries.ipynb", nb)

# ---------------------------------------------------------------- honest controls
H01 = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(messages):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept
'''
nb = load("01_context_window.ipynb"); set_source(cell_by_id(nb, "01-30-ex0"), H01); save("h01_loop", "01_context_window.ipynb", nb)

H01ZH = '''from itertools import accumulate, takewhile

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    fixed = count(system_prompt) + reserve
    costs = [count(m) + MESSAGE_OVERHEAD for m in messages[::-1]]
    totals = accumulate(costs, initial=fixed)
    next(totals)  # the fixed part alone
    return sum(1 for _ in takewhile(lambda t: t <= window, totals))
'''
nb = load("zh/01_context_window.ipynb"); set_source(cell_by_id(nb, "01-30-ex0"), H01ZH); save("h01zh_accum", "01_context_window.ipynb", nb)

H03A = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n = len(docs_tokens)
    if n == 0:
        return []
    tfs = [Counter(d) for d in docs_tokens]
    df = Counter(t for c in tfs for t in c)
    avgdl = sum(len(d) for d in docs_tokens) / n
    idf = {t: math.log(n - f + 0.5) - math.log(f + 0.5) for t, f in df.items()}
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    idf = {t: (floor if w < 0 else w) for t, w in idf.items()}
    out = []
    for tf, d in zip(tfs, docs_tokens):
        denom_part = k1 * (1 - b + b * len(d) / avgdl)
        s = 0.0
        for q in query_tokens:
            f = tf.get(q, 0)
            if f:
                s += idf[q] * (f * (k1 + 1) / (f + denom_part))
        out.append(s)
    return out
'''
nb = load("03_archival_bm25.ipynb"); set_source(cell_by_id(nb, "03-11-ex2"), H03A); save("h03_counter", "03_archival_bm25.ipynb", nb)

H03B = '''import math
from collections import Counter


def okapi_idf(docs_tokens, epsilon):
    n = len(docs_tokens)
    df = Counter()
    for doc in docs_tokens:
        df.update(set(doc))
    raw = {term: math.log(n - k + 0.5) - math.log(k + 0.5) for term, k in df.items()}
    mean = sum(raw.values()) / len(raw) if raw else 0.0
    return {term: (epsilon * mean if w < 0 else w) for term, w in raw.items()}


def tf_part(f, length, avgdl, k1, b):
    return f * (k1 + 1) / (f + k1 * (1 - b + b * length / avgdl))


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    weights = okapi_idf(docs_tokens, epsilon)
    avgdl = sum(map(len, docs_tokens)) / len(docs_tokens)
    scores = []
    for doc in docs_tokens:
        counts = Counter(doc)
        scores.append(sum(weights[t] * tf_part(counts[t], len(doc), avgdl, k1, b)
                          for t in query_tokens if counts[t]))
    return scores
'''
nb = load("03_archival_bm25.ipynb"); set_source(cell_by_id(nb, "03-11-ex2"), H03B); save("h03_helpers", "03_archival_bm25.ipynb", nb)

# ---------------------------------------------------------------- h_mem (host harm)
if os.environ.get("SKIP_HMEM") != "1":
    line = ("x" * 998) + "\U0001F600" + "\n"   # 1,000 chars, one astral char: UCS-4 in Python
    lines = [line] * 70_000                       # ~70 M chars, ~70 MB of UTF-8
    for name in ("01_context_window.ipynb", "03_archival_bm25.ipynb", "06_citations.ipynb"):
        nb = load(name)
        nb["cells"].append({"cell_type": "markdown", "id": "hmem-notes", "metadata": {}, "source": lines})
        save("h_mem", name, nb)
print("built:", sorted(p.name for p in SUB.iterdir()), file=sys.stderr)
