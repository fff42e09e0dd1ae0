"""Document-major loop (score each doc over the query), ratio-form log, math.fsum for the mean and the per-doc sum."""
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    N = len(docs_tokens)
    counts = [Counter(d) for d in docs_tokens]
    doc_freq = Counter(term for c in counts for term in c)
    raw = {t: math.log((N - n + 0.5) / (n + 0.5)) for t, n in doc_freq.items()}
    mean = math.fsum(raw.values()) / len(raw) if raw else 0.0
    idf = {t: (v if v >= 0 else epsilon * mean) for t, v in raw.items()}
    avgdl = math.fsum(len(d) for d in docs_tokens) / N if N else 0.0

    result = []
    for c, doc in zip(counts, docs_tokens):
        parts = []
        for t in query_tokens:
            tf = c[t]
            if tf == 0:
                continue
            denom = tf + k1 * (1 - b + b * len(doc) / avgdl)
            parts.append(idf[t] * tf * (k1 + 1) / denom)
        result.append(math.fsum(parts))
    return result
