"""Wrong: after dropping common words, a record 'supports' the question if it shares ANY one remaining word, not most of them."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    records = [set(tokenize(r.text)) for r in store]
    words = {t for t in tokenize(question) if t not in QUESTION_WORDS and len(t) > 1}
    rare = {w for w in words if records and sum(w in r for r in records) <= 0.25 * len(records)}
    for hit in store.search(question, top_k=5):
        if rare & set(tokenize(hit.record.text)):
            return cite(hit.record.text, [hit])
    return CitedAnswer("I could not find that in my memory.")
