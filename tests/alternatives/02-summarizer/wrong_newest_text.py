"""Wrong: keeps the newest text: appends all evicted text to the previous summary and keeps the last max_tokens tokens (a truncating summary, no fact selection)."""
from memlib.tokens import count, encoding


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if max_tokens <= 0:
            return ""
        text = "\n".join([previous] + [m.content for m in evicted]).strip()
        ids = encoding().encode(text)
        tail = encoding().decode(ids[-max_tokens:])
        while count(tail) > max_tokens:
            tail = tail[1:]
        return tail
