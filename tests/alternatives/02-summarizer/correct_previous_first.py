"""Old summary lines are kept first (oldest facts survive), then new fact-like user sentences in order while they fit; '; '-joined one line."""
import re

from memlib.tokens import count


def _is_fact(sentence):
    if sentence.endswith("?"):
        return False
    return bool(re.search(r"\d", sentence)) or any(w[:1].isupper() for w in sentence.split()[1:])


def _fit(parts, max_tokens):
    kept = []
    for part in parts:
        if count("; ".join(kept + [part])) <= max_tokens:
            kept.append(part)
    return kept


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if max_tokens < 1:
            return ""
        old = [p.strip() for p in previous.split("; ") if p.strip()] if previous else []
        new = []
        for m in evicted:
            if m.role == "user" and not m.is_tool_call:
                for s in re.split(r"(?<=[.!?])\s+", m.content):
                    s = s.strip()
                    if s and _is_fact(s) and s not in old and s not in new:
                        new.append(s)
        kept = _fit(old + new, max_tokens)
        summary = "; ".join(kept)
        assert count(summary) <= max_tokens
        return summary
