"""Exact arithmetic with fractions.Fraction: rank supporting hits by (coverage, -rank), abstain when nothing reaches 1/2."""
from fractions import Fraction

from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}

QUARTER = Fraction(1, 4)
HALF = Fraction(1, 2)


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    asking = set(tokenize(" ".join(QUESTION_WORDS)))
    record_words = [frozenset(tokenize(r.text)) for r in store]
    n = len(record_words)

    def common(term):
        return n > 0 and Fraction(sum(term in ws for ws in record_words), n) > QUARTER

    evidence = frozenset(t for t in tokenize(question) if t not in asking and not common(t))
    hits = store.search(question, top_k=5)
    scored = []
    if evidence:
        for hit in hits:
            coverage = Fraction(len(evidence & frozenset(tokenize(hit.record.text))), len(evidence))
            if coverage >= HALF:
                scored.append((coverage, -hit.rank, hit))
    if not scored:
        return CitedAnswer("I could not find that in my memory.")
    _, _, best = max(scored, key=lambda item: item[:2])
    return cite(best.record.text, [best])
