"""Wrong: a negative okapi idf is clamped to 0 instead of being replaced by epsilon x (mean idf over the vocabulary)."""
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    N = len(docs_tokens)
    tfs = [Counter(d) for d in docs_tokens]
    df = Counter(t for tf in tfs for t in tf)
    idf = {t: max(0.0, math.log(N - n + 0.5) - math.log(n + 0.5)) for t, n in df.items()}
    avgdl = sum(len(d) for d in docs_tokens) / N
    scores = []
    for tf, doc in zip(tfs, docs_tokens):
        s = 0.0
        for t in query_tokens:
            f = tf.get(t, 0)
            if f:
                s += idf[t] * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(s)
    return scores
