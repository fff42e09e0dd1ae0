"""Counts how many records hold each question word with store.matching(word), then picks the best-covering search hit."""
from memlib.citations import CitedAnswer, cite
from memlib.retrieval import ANALYZERS, tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
_unstemmed = ANALYZERS["unstemmed"]


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    total = len(store)
    # word as written -> its stem; the store's matching() tokenizes the written word the same way search does
    kept = {}
    for word in _unstemmed(question):
        if word in QUESTION_WORDS:
            continue
        for stem in tokenize(word):
            if len(store.matching(word)) * 4 <= total:  # not in more than a quarter
                kept[stem] = word
    if not kept:
        return CitedAnswer("I could not find that in my memory.")

    ranked = []
    for hit in store.search(question, top_k=5):
        have = sum(1 for stem in kept if stem in set(tokenize(hit.record.text)))
        if 2 * have >= len(kept):
            ranked.append((have, hit))
    if not ranked:
        return CitedAnswer("I could not find that in my memory.")
    ranked.sort(key=lambda pair: (-pair[0], pair[1].rank))
    best = ranked[0][1]
    return cite(best.record.text, [best])
