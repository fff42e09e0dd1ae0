"""Straight transcription of the formula: Counter per document, df from sets, query-term outer loop."""
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n_docs = len(docs_tokens)
    tfs = [Counter(doc) for doc in docs_tokens]
    lengths = [len(doc) for doc in docs_tokens]
    avgdl = sum(lengths) / n_docs
    df = Counter()
    for tf in tfs:
        df.update(tf.keys())
    idf = {}
    negative = []
    for term, n in df.items():
        value = math.log(n_docs - n + 0.5) - math.log(n + 0.5)
        idf[term] = value
        if value < 0:
            negative.append(term)
    floor = epsilon * (sum(idf.values()) / len(idf))
    for term in negative:
        idf[term] = floor
    scores = [0.0] * n_docs
    for term in query_tokens:
        weight = idf.get(term, 0.0)
        for i, tf in enumerate(tfs):
            f = tf.get(term, 0)
            if f:
                scores[i] += weight * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths[i] / avgdl))
    return scores
