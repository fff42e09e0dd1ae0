"""Recursive summaries: what is left in the prompt of messages that were evicted.

When the context flushes, the evicted messages and the previous summary are
folded into a new summary that must fit `max_tokens`. Three summarizers share
one protocol: `NoSummarizer` forgets (the lesson's starting point),
`TruncatingSummarizer` keeps the newest text that fits, `ExtractiveSummarizer`
keeps the sentences that look like facts. None of them calls a language model.
"""

from __future__ import annotations

import re
from typing import Protocol, Sequence, runtime_checkable

from memlib._util import check_int_at_least
from memlib.messages import Message
from memlib.tokens import count

__all__ = ["Summarizer", "NoSummarizer", "TruncatingSummarizer", "ExtractiveSummarizer",
           "check_summary_args", "fit_newest_lines", "is_summarizer"]


@runtime_checkable
class Summarizer(Protocol):
    """Folds evicted messages into the previous summary, within `max_tokens`."""

    def summarize(self, previous: str, evicted: Sequence[Message], max_tokens: int) -> str:
        ...


def is_summarizer(obj) -> bool:
    """Whether `obj` has a callable `summarize`.

    Not isinstance(obj, Summarizer): from Python 3.12 a runtime protocol check reads
    attributes statically, so a proxy that provides `summarize` dynamically (the
    grader's view of a student's object) would be refused.
    """
    return callable(getattr(obj, "summarize", None))


def check_summary_args(previous, evicted, max_tokens) -> None:
    """Shared argument checks, so every summarizer fails the same clear way."""
    if not isinstance(previous, str):
        raise TypeError(f"previous summary must be a str, got {type(previous).__name__}")
    if isinstance(evicted, (str, bytes)) or not all(isinstance(m, Message) for m in evicted):
        raise TypeError("evicted must be a list of Message objects")
    check_int_at_least(max_tokens, 0, "max_tokens")


def _lines(evicted: Sequence[Message]) -> list[str]:
    return [f"{m.role}: {' '.join(m.content.split())}" for m in evicted if m.content.strip()]


def fit_newest_lines(lines: list[str], max_tokens: int) -> str:
    """The longest suffix of `lines` whose joined text fits in max_tokens."""
    kept: list[str] = []
    for line in reversed(lines):
        if count("\n".join([line] + kept)) > max_tokens:
            break
        kept.insert(0, line)
    return "\n".join(kept)


class NoSummarizer:
    """Forgets evicted messages: the summary never changes (the lesson's baseline).

    They are still in recall storage; only the prompt loses them.
    """

    def summarize(self, previous: str, evicted: Sequence[Message], max_tokens: int) -> str:
        check_summary_args(previous, evicted, max_tokens)
        return previous if count(previous) <= max_tokens else ""

    def __repr__(self) -> str:
        return "NoSummarizer()"


class TruncatingSummarizer:
    """Keeps the newest lines of (previous summary + evicted messages) that fit.

    Cheap and order-preserving, but whatever is oldest falls off first, however
    important it was.
    """

    def summarize(self, previous: str, evicted: Sequence[Message], max_tokens: int) -> str:
        check_summary_args(previous, evicted, max_tokens)
        lines = [line for line in previous.splitlines() if line.strip()] + _lines(evicted)
        return fit_newest_lines(lines, max_tokens)

    def __repr__(self) -> str:
        return "TruncatingSummarizer()"


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W_]+")
# Words that mark a sentence as carrying a durable fact about the user or world.
_FACT_CUES = frozenset(
    "my our i'm is are was named called lives live moved prefer prefers favourite favorite "
    "allergic birthday deadline works work born married sister brother mother father wife "
    "husband daughter son partner manager team project meeting due address phone email "
    "always never every because plan plans decided switched".split()
)
_FILLER = frozenset("ok okay sure thanks thank great cool hi hello hey yes no got it sounds good".split())


class ExtractiveSummarizer:
    """Keeps the sentences that look most like facts, within the token budget.

    Each sentence of the previous summary and of the evicted messages gets a
    score (numbers, names and fact cues up; questions, filler and assistant
    chatter down). The best ones that fit are kept, in their original order,
    one per line. Recursion: old summary lines compete with new sentences, so
    the summary stays bounded however long the conversation runs.

    Example:
        >>> s = ExtractiveSummarizer()
        >>> s.summarize("", [Message.user("Hi! My dentist appointment is on 12 May. How are you?")], 20)
        '- user: My dentist appointment is on 12 May.'
    """

    def __init__(self, user_weight: float = 1.0, assistant_weight: float = 0.4):
        self.user_weight = user_weight
        self.assistant_weight = assistant_weight

    def score(self, sentence: str, role: str) -> float:
        words = _WORD.findall(sentence)
        if not words:
            return 0.0
        lower = [w.lower() for w in words]
        value = 0.0
        value += 2.0 * sum(any(c.isdigit() for c in w) for w in words)
        value += 1.5 * sum(w[0].isupper() for w in words[1:])
        value += 1.0 * sum(w in _FACT_CUES for w in lower)
        value += 0.1 * min(len(words), 25)
        if sentence.rstrip().endswith("?"):
            value -= 3.0
        if all(w in _FILLER for w in lower):
            value -= 5.0
        return value * (self.user_weight if role == "user" else self.assistant_weight)

    def summarize(self, previous: str, evicted: Sequence[Message], max_tokens: int) -> str:
        check_summary_args(previous, evicted, max_tokens)
        candidates: list[tuple[str, str]] = []  # (role, sentence) in chronological order
        for line in previous.splitlines():
            line = line.strip()
            if line.startswith("- "):
                line = line[2:]
            role, _, text = line.partition(": ")
            if text:
                candidates.append((role, text))
        for m in evicted:
            for sentence in _SENTENCE.split(" ".join(m.content.split())):
                if sentence:
                    candidates.append((m.role, sentence))
        seen, unique = set(), []
        for position, (role, sentence) in enumerate(candidates):
            key = frozenset(w.lower() for w in _WORD.findall(sentence))
            if key and key not in seen:
                seen.add(key)
                unique.append((position, role, sentence))
        # Best first; among equals the newer sentence wins (later facts supersede).
        ranked = sorted(unique, key=lambda c: (-self.score(c[2], c[1]), -c[0]))
        chosen: list[tuple[int, str]] = []
        used = 0
        for position, role, sentence in ranked:
            line = f"- {role}: {sentence}"
            cost = count(line) + 1  # +1 for the newline joining it
            if used + cost <= max_tokens and self.score(sentence, role) > 0:
                chosen.append((position, line))
                used += cost
        summary = "\n".join(line for _, line in sorted(chosen))
        # Token counts are not exactly additive across joins: trim if needed.
        while summary and count(summary) > max_tokens:
            summary = summary.rsplit("\n", 1)[0] if "\n" in summary else ""
        return summary

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer(user_weight={self.user_weight}, assistant_weight={self.assistant_weight})"
