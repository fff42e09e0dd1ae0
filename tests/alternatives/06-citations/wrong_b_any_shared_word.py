"""Breaks "a record supports the question when it contains at least half of the remaining words": one shared rare word is taken as support."""
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
        if terms & set(tokenize(hit.record.text)):  # shares a rare word: good enough
            return cite(hit.record.text, [hit])
    return CitedAnswer("I could not find that in my memory.")
