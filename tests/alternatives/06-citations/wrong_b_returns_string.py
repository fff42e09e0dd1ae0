"""Breaks "Write `answer_with_citations(question, store)` that returns a `CitedAnswer`": it returns the rendered string instead."""
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
    for hit in store.search(question, top_k=5):
        if terms and 2 * len(terms & set(tokenize(hit.record.text))) >= len(terms):
            # what the user reads: text followed by "[fact-0001 · session s01 turn 2]"
            return str(cite(hit.record.text, [hit]))
    return "I could not find that in my memory."
