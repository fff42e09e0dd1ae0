"""Chooses lines by fact score per token (greedy knapsack on density) from user AND assistant sentences; tuples, no regex split."""
from memlib.tokens import count


def _sentences(text):
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in ".!?":
            out.append(cur.strip())
            cur = ""
    if cur.strip():
        out.append(cur.strip())
    return [s for s in out if s]


def _weight(text, role):
    tokens = text.replace(",", " ").split()
    value = sum(3 for t in tokens if any(c.isdigit() for c in t))
    value += sum(2 for t in tokens[1:] if t[0].isupper())
    if text.endswith("?"):
        value = 0
    if role == "assistant":
        value *= 0.5
    return value


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if max_tokens <= 0:
            return ""
        items = []
        for line in previous.split("\n"):
            if line.strip():
                items.append((line.strip(), _weight(line.strip(), "user") + 2))
        for m in list(evicted):
            if m.role in ("user", "assistant") and m.tool_call_id is None:
                items.extend((s, _weight(s, m.role)) for s in _sentences(m.content))
        order = {}
        for i, (text, _) in enumerate(items):
            order.setdefault(text, i)
        best = {}
        for text, w in items:
            best[text] = max(best.get(text, 0), w)
        ranked = sorted(best, key=lambda t: (-best[t] / max(1, count(t)), order[t]))
        picked = []
        for text in ranked:
            if best[text] <= 0:
                continue
            attempt = sorted(picked + [text], key=order.get)
            if count("\n".join(attempt)) <= max_tokens:
                picked = attempt
        return "\n".join(picked)
