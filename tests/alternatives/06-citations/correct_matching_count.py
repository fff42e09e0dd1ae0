"""Uses store.matching(word) to count records per word (drops words in >= 20% of them), needs two thirds of the rest, picks the hit covering most words."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    size = len(store)
    content = set(tokenize(question)) - QUESTION_WORDS
    content = {w for w in content if len(w) > 1}
    rare = {w for w in content if size and len(store.matching(w)) < 0.2 * size}
    if not rare:
        return CitedAnswer("I could not find that in my memory.")
    scored = []
    for hit in store.search(question, top_k=5):
        found = len(rare & set(tokenize(hit.record.text)))
        if 3 * found >= 2 * len(rare):
            scored.append((-found, hit.rank, hit))
    if not scored:
        return CitedAnswer("I could not find that in my memory.")
    best = min(scored, key=lambda s: (s[0], s[1]))[2]
    return cite(best.record.text, [best])
