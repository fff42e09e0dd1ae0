"""Drops question words found in over a quarter of the store's records, then takes the first hit (in rank order) holding more than half of the rest."""
import math

from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
NOTHING = "I could not find that in my memory."


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    words = {t for t in tokenize(question) if t not in QUESTION_WORDS and len(t) > 1}
    records = list(store)
    if not words or not records:
        return CitedAnswer(NOTHING)
    share = {w: sum(1 for r in records if w in set(tokenize(r.text))) / len(records) for w in words}
    evidence = {w for w in words if share[w] <= 0.25}
    if not evidence:
        return CitedAnswer(NOTHING)
    need = math.floor(len(evidence) / 2) + 1  # strictly more than half
    for hit in store.search(question, top_k=5):
        if len(evidence & set(tokenize(hit.record.text))) >= need:
            return cite(hit.record.text, [hit])
    return CitedAnswer(NOTHING)
