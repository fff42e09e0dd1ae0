"""Second batch: an honest BM25 whose helper shares a name with a later release cell's binding."""
import json
from pathlib import Path
REL = Path("/work/attack6-view/notebooks")
OUT = Path("/work/attack6/submissions2")
nb = json.loads((REL / "03_archival_bm25.ipynb").read_text())
for c in nb["cells"]:
    if c["cell_type"] == "code" and str(c.get("metadata", {}).get("memlib", {}).get("exercise")) == "2":
        c["source"] = '''import math
from collections import Counter


def score_fn(f, dl, avgdl, k1, b):
    """The saturating term-frequency part of BM25."""
    return f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl))


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n = len(docs_tokens)
    if n == 0:
        return []
    tfs = [Counter(d) for d in docs_tokens]
    avgdl = sum(len(d) for d in docs_tokens) / n
    df = Counter(w for tf in tfs for w in tf)
    idf = {w: math.log(n - f + 0.5) - math.log(f + 0.5) for w, f in df.items()}
    floor = epsilon * sum(idf.values()) / len(idf) if idf else 0.0
    idf = {w: floor if v < 0 else v for w, v in idf.items()}
    return [sum(idf.get(q, 0.0) * score_fn(tf.get(q, 0), len(d), avgdl, k1, b) for q in query_tokens)
            for tf, d in zip(tfs, docs_tokens)]
'''
(OUT / "c03_namecollide").mkdir(parents=True, exist_ok=True)
(OUT / "c03_namecollide" / "03_archival_bm25.ipynb").write_text(json.dumps(nb, indent=1))
print("ok")
