"""Breaks "drop the ones that appear in more than a quarter of the records (they carry no evidence: the user's name)": the name still counts as evidence."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    asking = set(tokenize(" ".join(QUESTION_WORDS)))
    terms = set(tokenize(question)) - asking
    if not terms:
        return CitedAnswer("I could not find that in my memory.")
    best, best_share = None, 0.0
    for hit in store.search(question, top_k=5):
        share = len(terms & set(tokenize(hit.record.text))) / len(terms)
        if share >= 0.5 and share > best_share:
            best, best_share = hit, share
    if best is None:
        return CitedAnswer("I could not find that in my memory.")
    return cite(best.record.text, [best])
