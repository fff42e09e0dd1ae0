"""Keeps short fact-bearing clauses (comma/semicolon pieces with digits or names) instead of whole sentences; previous clauses re-enter with the same scoring; ' | ' separator."""
import re

from memlib.tokens import count

SEP = " | "


def _clauses(text):
    for piece in re.split(r"[.!?;,]\s+|\s+-\s+|\n", text):
        piece = piece.strip(" .!?;,")
        if len(piece.split()) >= 2:
            yield piece


def _value(clause):
    digits = sum(ch.isdigit() for ch in clause) > 0
    names = [w for w in clause.split()[1:] if re.match(r"[A-Z][a-zA-Z']+", w)]
    return 3 * digits + len(names)


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def summarize(self, previous, evicted, max_tokens):
        if max_tokens <= 0:
            return ""
        ordered = []
        for clause in (previous.split(SEP) if previous else []):
            if clause.strip() and clause.strip() not in ordered:
                ordered.append(clause.strip())
        n_old = len(ordered)
        for message in evicted:
            if message.role == "user":
                for clause in _clauses(message.content):
                    if clause not in ordered:
                        ordered.append(clause)
        # old clauses keep their place even with value 0: they were chosen before
        ranked = sorted(range(len(ordered)), key=lambda i: (-(_value(ordered[i]) + (1 if i < n_old else 0)), i))
        keep = set()
        for i in ranked:
            if i >= n_old and _value(ordered[i]) == 0:
                continue
            trial = SEP.join(ordered[j] for j in sorted(keep | {i}))
            if count(trial) <= max_tokens:
                keep.add(i)
        return SEP.join(ordered[j] for j in sorted(keep))
