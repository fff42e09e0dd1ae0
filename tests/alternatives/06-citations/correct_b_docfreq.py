"""Document-frequency filter over the whole store, then the top-5 hit with the highest share of the remaining question words."""
from collections import Counter

from memlib.citations import CitedAnswer, cite
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
# tokenize stems words ("many" -> "mani"), so the asking words are compared in stemmed form too
_ASKING = {stem for word in QUESTION_WORDS for stem in tokenize(word)}
NO_SUPPORT = "I could not find that in my memory."


def _document_frequency(store):
    df = Counter()
    total = 0
    for record in store:
        total += 1
        df.update(set(tokenize(record.text)))
    return df, total


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    df, total = _document_frequency(store)
    terms = set(tokenize(question)) - _ASKING
    # words in more than a quarter of the records carry no evidence (the user's name)
    terms = {t for t in terms if df[t] <= total / 4}
    if not terms:
        return CitedAnswer(NO_SUPPORT)

    best, best_share = None, 0.0
    for hit in store.search(question, top_k=5):
        words = set(tokenize(hit.record.text))
        share = len(terms & words) / len(terms)
        if share >= 0.5 and share > best_share:  # strict '>' keeps the better-ranked hit on a tie
            best, best_share = hit, share
    if best is None:
        return CitedAnswer(NO_SUPPORT)
    return cite(best.record.text, [best])
