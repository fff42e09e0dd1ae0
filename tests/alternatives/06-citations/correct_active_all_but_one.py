"""Compares stems but drops common words by share among the *active* records only, and requires all rare words when there are at most two, else all but one."""
from memlib.citations import CitedAnswer, Citation
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
NO_ANSWER = "I could not find that in my memory."


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    active = [set(tokenize(r.text)) for r in store if r.state == "active"]
    if not active:
        return CitedAnswer(NO_ANSWER)
    q = {w for w in tokenize(question) if w not in QUESTION_WORDS and len(w) > 1}
    key_words = {w for w in q if sum(w in words for words in active) / len(active) <= 0.25}
    if not key_words:
        return CitedAnswer(NO_ANSWER)
    needed = len(key_words) if len(key_words) <= 2 else len(key_words) - 1
    hits = store.search(question, top_k=5)
    for hit in hits:
        if len(key_words & set(tokenize(hit.record.text))) >= needed:
            record = hit.record
            citation = Citation(record.id, record.session_id, record.turn_id, record.source_url)
            return CitedAnswer(record.text, (citation,))
    return CitedAnswer(NO_ANSWER)
