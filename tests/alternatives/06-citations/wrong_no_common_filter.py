"""Wrong: keeps words found in most records (the user's name) as evidence, so a record sharing only the name and possessive covers half the words and gets cited."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    words = {t for t in tokenize(question) if t not in QUESTION_WORDS}
    if not words:
        return CitedAnswer("I could not find that in my memory.")
    for hit in store.search(question, top_k=5):
        if len(words & set(tokenize(hit.record.text))) / len(words) >= 0.5:
            return cite(hit.record.text, [hit])
    return CitedAnswer("I could not find that in my memory.")
