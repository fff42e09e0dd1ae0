"""Wrong: bounds the summary by characters (4 characters per token rule of thumb), not by memlib.tokens.count; digit- and name-heavy text overflows max_tokens."""
import re

from memlib.tokens import count

_SPLIT = re.compile(r"(?<=[.!?])\s+")


def _score(sentence):
    words = sentence.split()
    s = 2 * sum(1 for w in words[1:] if w[:1].isupper()) + 2 * len(re.findall(r"\d+", sentence))
    return s - 3 if sentence.rstrip().endswith("?") else s


def _user_sentences(evicted):
    return [s.strip() for m in evicted if m.role == "user" for s in _SPLIT.split(m.content) if s.strip()]


def _pick(candidates, max_tokens):
    """candidates: list of str in original order; best-scoring that fit, in order."""
    order = {c: i for i, c in reversed(list(enumerate(candidates)))}
    chosen = []
    for c in sorted(order, key=lambda c: (-_score(c), order[c])):
        trial = sorted(chosen + [c], key=order.get)
        if count("\n".join(trial)) <= max_tokens:
            chosen = trial
    return "\n".join(chosen)


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if max_tokens <= 0:
            return ""
        budget = 4 * max_tokens
        cands = [ln for ln in previous.splitlines() if ln.strip()] + _user_sentences(evicted)
        order = {c: i for i, c in reversed(list(enumerate(cands)))}
        chosen = []
        for c in sorted(order, key=lambda c: (-_score(c), order[c])):
            trial = sorted(chosen + [c], key=order.get)
            if len("\n".join(trial)) <= budget:
                chosen = trial
        return "\n".join(chosen)
