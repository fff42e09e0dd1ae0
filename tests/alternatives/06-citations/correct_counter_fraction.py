"""Document frequencies from one Counter pass over the store; common = more than a third; support = fraction of rare words >= 0.5 and at least one rare word; first such hit wins."""
from collections import Counter

from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def _document_frequencies(store):
    df = Counter()
    count = 0
    for record in store:
        df.update(set(tokenize(record.text)))
        count += 1
    return df, count


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    df, count = _document_frequencies(store)
    asked = [t for t in tokenize(question) if t not in QUESTION_WORDS and len(t) > 1]
    rare = sorted({t for t in asked if df[t] * 3 <= count})
    if rare:
        for hit in store.search(question, top_k=5):
            tokens = set(tokenize(hit.record.text))
            hits = sum(1 for t in rare if t in tokens)
            if hits and hits / len(rare) > 0.5:
                return cite(hit.record.text, [hit])
    return CitedAnswer("I could not find that in my memory.")
