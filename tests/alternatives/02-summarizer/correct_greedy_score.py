"""Score sentences (digits, capitalised names, question penalty), previous lines get a bonus; greedy by score, re-counting the joined text, output in original order."""
import re

from memlib.tokens import count

_SPLIT = re.compile(r"(?<=[.!?])\s+")


def _score(sentence):
    words = sentence.split()
    caps = sum(1 for w in words[1:] if w[:1].isupper())
    digits = len(re.findall(r"\d+", sentence))
    s = 2.0 * caps + 2.0 * digits
    if sentence.rstrip().endswith("?"):
        s -= 3.0
    return s


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if max_tokens <= 0:
            return ""
        candidates = []  # (position, score, text)
        for line in (previous or "").splitlines():
            line = line.strip()
            if line:
                candidates.append((len(candidates), _score(line) + 1.0, line))
        for message in evicted:
            if message.role != "user":
                continue
            for sentence in _SPLIT.split(message.content.strip()):
                sentence = sentence.strip()
                if sentence:
                    candidates.append((len(candidates), _score(sentence), sentence))
        seen, unique = [], []
        for cand in candidates:
            if cand[2] not in seen:
                seen.append(cand[2])
                unique.append(cand)
        chosen = []
        for cand in sorted(unique, key=lambda c: (-c[1], c[0])):
            trial = sorted(chosen + [cand])
            if count("\n".join(c[2] for c in trial)) <= max_tokens:
                chosen = trial
        return "\n".join(c[2] for c in chosen)
