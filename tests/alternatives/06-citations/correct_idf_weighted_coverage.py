"""Weights each content word by a smoothed idf over the store and asks for more than half of the total weight; picks the hit with the best coverage (ties: search rank)."""
import math

from memlib.citations import CitedAnswer, Citation
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    no = CitedAnswer("I could not find that in my memory.")
    terms = [t for t in dict.fromkeys(tokenize(question)) if t not in QUESTION_WORDS and len(t) > 1]
    doc_sets = [set(tokenize(r.text)) for r in store]
    n = len(doc_sets)
    if not terms or n == 0:
        return no
    weight = {}
    for t in terms:
        df = sum(t in d for d in doc_sets)
        # a word in a large share of the records carries no evidence at all
        weight[t] = 0.0 if df > 0.3 * n else math.log((n + 1) / (df + 0.5))
    total = sum(weight.values())
    if total <= 0:
        return no
    best, best_cover = None, 0.0
    for hit in store.search(question, top_k=5):
        have = set(tokenize(hit.record.text))
        cover = sum(w for t, w in weight.items() if t in have) / total
        if cover > best_cover:
            best, best_cover = hit, cover
    if best is None or best_cover <= 0.5:
        return no
    return CitedAnswer(best.record.text, (Citation.from_record(best),))
