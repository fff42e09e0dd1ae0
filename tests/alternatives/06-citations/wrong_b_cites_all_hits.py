"""Breaks "answer with its text and cite it" (one supporting record; no "related" records): it cites every top-5 hit once one supports."""
from collections import Counter

from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    records = list(store)
    df = Counter(w for r in records for w in set(tokenize(r.text)))
    asking = set(tokenize(" ".join(QUESTION_WORDS)))
    terms = {t for t in tokenize(question) if t not in asking and df[t] <= len(records) / 4}
    hits = store.search(question, top_k=5)
    best = None
    if terms:
        best = next((h for h in hits if 2 * len(terms & set(tokenize(h.record.text))) >= len(terms)), None)
    if best is None:
        return CitedAnswer("I could not find that in my memory.")
    # more sources = better provenance: cite everything the search found
    return cite(best.record.text, hits)
