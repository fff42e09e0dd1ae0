"""Inverted index of postings; mean idf from a histogram of document frequencies; repeated query terms multiplied."""
import math
from collections import Counter, defaultdict


def _okapi(n_docs, n):
    return math.log(n_docs - n + 0.5) - math.log(n + 0.5)


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    docs = [list(d) for d in docs_tokens]
    n_docs = len(docs)
    if n_docs == 0:
        return []
    postings = defaultdict(dict)  # term -> {doc index: tf}
    for i, doc in enumerate(docs):
        for term, f in Counter(doc).items():
            postings[term][i] = f
    # the mean idf over the vocabulary only depends on how many terms have each df
    df_histogram = Counter(len(p) for p in postings.values())
    vocab_size = sum(df_histogram.values())
    mean_idf = sum(count * _okapi(n_docs, n) for n, count in df_histogram.items()) / vocab_size if vocab_size else 0.0
    floor = epsilon * mean_idf
    total_len = sum(len(d) for d in docs)
    avgdl = total_len / n_docs
    scores = [0.0] * n_docs
    if avgdl == 0:
        return scores  # every document is empty: nothing can match
    for term, times in Counter(query_tokens).items():
        plist = postings.get(term)
        if not plist:
            continue
        w = _okapi(n_docs, len(plist))
        if w < 0:
            w = floor
        for i, f in plist.items():
            norm = k1 * (1 - b + b * len(docs[i]) / avgdl)
            scores[i] += times * w * (f * (k1 + 1)) / (f + norm)
    return [float(s) for s in scores]
