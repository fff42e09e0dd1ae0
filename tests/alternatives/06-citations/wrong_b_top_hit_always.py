"""Breaks "if none does: return `CitedAnswer("I could not find that in my memory.")`, with no citations": it always cites the top search hit."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    hits = store.search(question, top_k=5)
    if not hits:  # only an empty search counts as "nothing found"
        return CitedAnswer("I could not find that in my memory.")
    # BM25 already ranks by relevance, so the first hit is taken to be the supporting one
    top = hits[0]
    return cite(top.record.text, [top])
