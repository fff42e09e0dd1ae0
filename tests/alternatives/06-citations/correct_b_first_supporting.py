"""Walk the BM25 hits in rank order and answer from the first one that holds at least half of the rare question words."""
import math

from memlib.citations import Citation, CitedAnswer
from memlib.retrieval import ANALYZERS, tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
_plain = ANALYZERS["unstemmed"]  # lowercase words, stopwords removed, not stemmed


def content_words(question):
    """Stems of the question's words, after dropping the asking words in their written form."""
    stems = []
    for word in _plain(question):
        if word in QUESTION_WORDS:
            continue
        stems.extend(tokenize(word))
    return set(stems)


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    records = list(store)
    limit = len(records) / 4
    rare = set()
    for term in content_words(question):
        holders = sum(1 for r in records if term in tokenize(r.text))
        if holders <= limit:
            rare.add(term)
    if not rare:
        return CitedAnswer("I could not find that in my memory.")

    needed = math.ceil(len(rare) / 2)  # "at least half"
    for hit in store.search(question, top_k=5):
        if len(rare.intersection(tokenize(hit.record.text))) >= needed:
            return CitedAnswer(hit.record.text, (Citation.from_record(hit.record),))
    return CitedAnswer("I could not find that in my memory.")
