"""Like a score-greedy summary, but when the best remaining line does not fit it keeps a word-prefix of it; safety loop re-counts at the end."""
import re

from memlib.tokens import count


def _score(s):
    return 2 * len(re.findall(r"\b\d[\d:%.,]*", s)) + len(re.findall(r"(?<!^)\b[A-Z][a-z]+", s)) - (4 if "?" in s else 0)


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if not max_tokens or max_tokens <= 0:
            return ""
        pool = [(i, ln.strip(), _score(ln) + 1) for i, ln in enumerate(previous.splitlines()) if ln.strip()]
        base = len(pool)
        for m in evicted:
            if m.role == "user":
                for s in re.split(r"(?<=[.!?])\s+|\n+", m.content):
                    if s.strip() and all(s.strip() != p[1] for p in pool):
                        pool.append((base, s.strip(), _score(s)))
                        base += 1
        pool.sort(key=lambda p: (-p[2], p[0]))
        kept = []

        def render(items):
            return "\n".join(t for _, t, _ in sorted(items))

        for idx, text, sc in pool:
            if sc <= 0:
                break
            if count(render(kept + [(idx, text, sc)])) <= max_tokens:
                kept.append((idx, text, sc))
                continue
            words = text.split()
            while len(words) > 3:
                words.pop()
                cut = " ".join(words) + " ..."
                if count(render(kept + [(idx, cut, sc)])) <= max_tokens:
                    kept.append((idx, cut, sc))
                    break
        out = render(kept)
        while count(out) > max_tokens and kept:
            kept.pop()
            out = render(kept)
        return out
