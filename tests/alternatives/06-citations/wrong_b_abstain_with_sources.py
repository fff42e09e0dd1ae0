"""Breaks "if none does: return `CitedAnswer("I could not find that in my memory.")`, with no citations": the abstention still cites the closest hit."""
from collections import Counter

from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
NOT_FOUND = "I could not find that in my memory."


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    records = list(store)
    df = Counter(w for r in records for w in set(tokenize(r.text)))
    asking = set(tokenize(" ".join(QUESTION_WORDS)))
    terms = {t for t in tokenize(question) if t not in asking and df[t] <= len(records) / 4}
    hits = store.search(question, top_k=5)
    for hit in hits:
        if terms and 2 * len(terms & set(tokenize(hit.record.text))) >= len(terms):
            return cite(hit.record.text, [hit])
    # say we found nothing, but show the user what came closest so they can check
    return cite(NOT_FOUND, hits[:1])
