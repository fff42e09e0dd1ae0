"""A small SupportJudge class: one object per question holds the evidence words and scores each hit; newest record wins a tie."""
from dataclasses import dataclass, field

from memlib.citations import Citation, CitedAnswer
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
ABSTAIN = "I could not find that in my memory."


@dataclass
class SupportJudge:
    question: str
    store: object
    common_share: float = 0.25
    min_share: float = 0.5
    evidence: set = field(init=False)

    def __post_init__(self):
        asking = set()
        for w in QUESTION_WORDS:
            asking.update(tokenize(w))
        texts = [set(tokenize(r.text)) for r in self.store]
        words = [w for w in dict.fromkeys(tokenize(self.question)) if w not in asking]
        self.evidence = {w for w in words if sum(w in t for t in texts) <= self.common_share * len(texts)}

    def share(self, record):
        if not self.evidence:
            return 0.0
        return len(self.evidence & set(tokenize(record.text))) / len(self.evidence)

    def supports(self, record):
        return bool(self.evidence) and self.share(record) >= self.min_share


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    judge = SupportJudge(question, store)
    supporting = [h for h in store.search(question, top_k=5) if judge.supports(h.record)]
    if not supporting:
        return CitedAnswer(ABSTAIN)
    # best share first; among equals the newer record (a later session supersedes an older one)
    best = max(supporting, key=lambda h: (judge.share(h.record), h.record.created_at, -h.rank))
    return CitedAnswer(best.record.text, (Citation.from_record(best),))
