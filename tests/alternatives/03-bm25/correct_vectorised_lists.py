"""Builds idf as a list aligned with a term->column map and a dense tf matrix (lists of lists), then a dot-product style sum; all-empty corpus gives zeros."""
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n = len(docs_tokens)
    if n == 0:
        return []
    column = {}
    for doc in docs_tokens:
        for t in doc:
            column.setdefault(t, len(column))
    tf = [[0] * len(column) for _ in range(n)]
    for row, doc in zip(tf, docs_tokens):
        for t in doc:
            row[column[t]] += 1
    df = [sum(1 for row in tf if row[j]) for j in range(len(column))]
    idf = [math.log(n - d + 0.5) - math.log(d + 0.5) for d in df]
    if idf:
        eps = epsilon * sum(idf) / len(idf)
        idf = [v if v >= 0 else eps for v in idf]
    lengths = [sum(row) for row in tf]
    avgdl = sum(lengths) / n
    if avgdl == 0:
        return [0.0] * n
    denom_base = [k1 * (1 - b + b * L / avgdl) for L in lengths]
    q_cols = [column[t] for t in query_tokens if t in column]
    out = []
    for i, row in enumerate(tf):
        s = 0.0
        for j in q_cols:
            f = row[j]
            s += idf[j] * (f * (k1 + 1)) / (f + denom_base[i]) if f else 0.0
        out.append(s)
    return out
