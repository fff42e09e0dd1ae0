from memlib.retrieval import SCORERS
from memlib.archival import ArchivalStore

def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    index = SCORERS["bm25-okapi"].build(str.split)
    index.k1, index.b, index.epsilon = float(k1), float(b), float(epsilon)
    store = ArchivalStore(scorer=lambda: index)
    ids = [store.insert(" ".join(doc)).id for doc in docs_tokens]
    hits = store.search(" ".join(query_tokens), top_k=len(ids))
    got = {hit.record.id: hit.score for hit in hits}
    return [float(got.get(i, 0.0)) for i in ids]

from memlib.course.checks.nb03_bm25 import _bm25_cases, _fresh_bm25_cases, reference_bm25_scores, _close
import random
cases = _bm25_cases() + _fresh_bm25_cases(random.Random(5)) + _fresh_bm25_cases(random.Random(7))
bad = 0
for c in cases:
    if not _close(bm25_scores(list(c.query), [list(d) for d in c.docs], c.k1, c.b, c.epsilon), reference_bm25_scores(c.query, c.docs, c.k1, c.b, c.epsilon)):
        bad += 1; print("BAD", c.label)
print(len(cases), "bad", bad)
