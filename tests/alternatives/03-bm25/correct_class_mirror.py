"""A small index class built once (dicts, no Counter), then queried; sorted vocabulary for the mean idf."""
import math


class _Okapi:
    def __init__(self, corpus, k1, b, epsilon):
        self.k1, self.b = k1, b
        self.freqs = []
        self.lens = []
        df = {}
        for doc in corpus:
            f = {}
            for w in doc:
                f[w] = f.get(w, 0) + 1
            self.freqs.append(f)
            self.lens.append(len(doc))
            for w in f:
                df[w] = df.get(w, 0) + 1
        self.n = len(self.freqs)
        self.avgdl = sum(self.lens) / self.n
        self.idf = {}
        for w in sorted(df):
            self.idf[w] = math.log(self.n - df[w] + 0.5) - math.log(df[w] + 0.5)
        average = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0
        for w, v in list(self.idf.items()):
            if v < 0:
                self.idf[w] = epsilon * average

    def term_score(self, w, i):
        f = self.freqs[i].get(w, 0)
        if f == 0:
            return 0.0
        k1, b = self.k1, self.b
        return self.idf[w] * (f * (k1 + 1) / (f + k1 * (1 - b + b * self.lens[i] / self.avgdl)))

    def scores(self, query):
        return [sum(self.term_score(w, i) for w in query) for i in range(self.n)]


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        raise ValueError("BM25 needs at least one document")
    return _Okapi(docs_tokens, k1, b, epsilon).scores(list(query_tokens))
