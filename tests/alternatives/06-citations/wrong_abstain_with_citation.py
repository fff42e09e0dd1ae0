"""Wrong: when nothing supports the question it says 'I could not find that' but still cites the top hit (rule 3: no support, no citation)."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
NOTHING = "I could not find that in my memory."


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    records = [set(tokenize(r.text)) for r in store]
    words = {t for t in tokenize(question) if t not in QUESTION_WORDS and len(t) > 1}
    rare = {w for w in words if records and sum(w in r for r in records) <= 0.25 * len(records)}
    hits = store.search(question, top_k=5)
    if rare:
        for hit in hits:
            if 2 * len(rare & set(tokenize(hit.record.text))) > len(rare):
                return cite(hit.record.text, [hit])
    return cite(NOTHING, hits[:1])  # "for reference", the closest thing found
