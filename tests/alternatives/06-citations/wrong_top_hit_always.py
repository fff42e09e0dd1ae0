"""Wrong: no support test at all; whenever search returns something (any shared word) the top hit is answered and cited."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    hits = store.search(question, top_k=5)
    if not hits:
        return CitedAnswer("I could not find that in my memory.")
    return cite(hits[0].record.text, [hits[0]])
