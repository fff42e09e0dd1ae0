"""Wrong: the epsilon floor is applied when idf <= 0 (rank-bm25 replaces only idf < 0), so a term in exactly half the documents gets epsilon x mean idf instead of 0."""
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    N = len(docs_tokens)
    tfs = [Counter(d) for d in docs_tokens]
    df = Counter(t for tf in tfs for t in tf)
    idf = {t: math.log(N - n + 0.5) - math.log(n + 0.5) for t, n in df.items()}
    floor = epsilon * sum(idf.values()) / len(idf)
    idf = {t: (v if v > 0 else floor) for t, v in idf.items()}
    avgdl = sum(len(d) for d in docs_tokens) / N
    scores = [0.0] * N
    for t in query_tokens:
        for i, tf in enumerate(tfs):
            f = tf.get(t, 0)
            if f:
                scores[i] += idf[t] * f * (k1 + 1) / (f + k1 * (1 - b + b * len(docs_tokens[i]) / avgdl))
    return scores
