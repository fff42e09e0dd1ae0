"""Notebook 02's check, exercise F: the main context's flush, written by the student.

The flush evicts the oldest messages until the kept ones fit a target, never
parts a tool call from its results, folds what left into the summary with one
summarizer call and files it in recall storage. The reference is
`reference_flush`; `memlib.context.MainContext` makes the same choice for its
"paper" profile (and adds reserves, other profiles and failure atomicity, which
the exercise leaves out). The check runs the answer on seeded random queues and
compares each part of what it did: the kept messages, the summarizer's calls,
the summary and recall storage.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memlib.course.checking import CheckFailed, graded, passed
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _as_callable, _call, _short, _short_text
from memlib.course.flushing import flush_units

__all__ = ["check_flush", "reference_flush"]


# ============================================================================
# 02 · exercise F: the flush
# ============================================================================


def reference_flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest units of `queue` until the kept messages take at most `target`
    tokens; fold the evicted ones into the summary with one call and file them in recall.
    Returns (kept, new_summary); when nothing leaves, (list(queue), summary) and no call.

    Example:
        >>> from memlib.messages import Message
        >>> from memlib.recall import RecallStore
        >>> from memlib.summarize import TruncatingSummarizer
        >>> queue = [Message.user(f"note {i}", id=i) for i in range(4)]
        >>> recall = RecallStore()
        >>> kept, summary = reference_flush(queue, [10, 10, 10, 10], 25, "", TruncatingSummarizer(), 20, recall)
        >>> [m.id for m in kept], summary, [m.id for m in recall]
        ([2, 3], 'user: note 0\\nuser: note 1', [0, 1])
    """
    starts = flush_units(queue)
    kept_tokens, cut = sum(tokens), 0
    for begin, end in zip(starts, starts[1:]):
        if kept_tokens <= target:
            break
        kept_tokens -= sum(tokens[begin:end])
        cut = end
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary


# -- the cases ------------------------------------------------------------------------------

_START = datetime(2026, 3, 2, 9, 0)
_TOOLS = ("archival_memory_search", "conversation_search", "core_memory_append")


@dataclass
class _Case:
    label: str
    queue: list
    tokens: list[int]
    target: int
    summary: str
    inner: Any  # the memlib summarizer behind the recording one
    summary_tokens: int
    filed: list  # messages already in recall storage (from earlier flushes)

    def describe(self) -> str:
        previous = f"previous summary {_short_text(self.summary, 40)}" if self.summary else 'summary ""'
        return (f"{self.label}: a queue of {len(self.queue)} messages ({sum(self.tokens)} tokens), "
                f"target={self.target}, {previous}, {self.inner!r}, summary_tokens={self.summary_tokens}")


def _queue(rng: random.Random, texts: list[str], first_id: int, units: int, tools: bool = True):
    """A queue of `units` units (messages, and tool calls with 0 to 3 results) and its token counts."""
    queue: list = []
    from memlib.messages import Message

    def add(role: str, content: str, **kw) -> None:
        queue.append(Message(role, content, id=first_id + len(queue),
                             timestamp=_START + timedelta(minutes=first_id + len(queue)), **kw))

    for _ in range(units):
        kind = rng.random()
        if tools and kind < 0.3:
            tool = rng.choice(_TOOLS)
            call_id = f"call-{first_id + len(queue)}"
            add("assistant", f"{tool}(query={rng.choice(texts)[:30]!r})", tool_call_id=call_id, name=tool)
            for _ in range(rng.choice((0, 1, 1, 2, 3))):
                add("tool", f'{{"status": "OK", "message": {rng.choice(texts)[:50]!r}}}', tool_call_id=call_id,
                    name=tool)
            if rng.random() < 0.2:  # a late result of another call: a unit of its own
                add("tool", '{"status": "OK", "message": "late"}', tool_call_id=f"late-{first_id + len(queue)}",
                    name=tool)
        else:
            add(rng.choice(("user", "user", "assistant")), rng.choice(texts))
    tokens = [rng.randint(4, 40) for _ in queue]
    return queue, tokens


def _targets(rng: random.Random, queue, tokens) -> list[tuple[str, int]]:
    """Targets that matter: at a unit boundary, inside a unit, 0, the whole queue, above it."""
    starts = flush_units(queue)
    total = sum(tokens)
    suffixes = [sum(tokens[s:]) for s in starts[:-1]]
    picks = [("target 0", 0), ("the whole queue fits exactly", total), ("room to spare", total + 7)]
    if len(suffixes) > 1:
        at = rng.randrange(1, len(suffixes))
        picks.append(("target at a unit boundary", suffixes[at]))
        wide = [i for i in range(len(suffixes) - 1) if suffixes[i] - suffixes[i + 1] > 1]
        if wide:
            i = rng.choice(wide)
            picks.append(("target inside a unit", rng.randrange(suffixes[i + 1] + 1, suffixes[i])))
    return picks


def _cases() -> list[_Case]:
    from memlib import datasets
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer

    texts = [t.content for t in datasets.load("conversation")][:200]
    rng = random.Random(2026)
    inners = [ExtractiveSummarizer(), TruncatingSummarizer(), NoSummarizer(),
              ExtractiveSummarizer(user_weight=1.0, assistant_weight=1.0)]
    cases: list[_Case] = []
    for round_ in range(12):
        filed_count = rng.choice((0, 0, 3))
        queue, tokens = _queue(rng, texts, filed_count, rng.randint(3, 9))
        filed = _queue(rng, texts, 0, filed_count, tools=False)[0]
        summary = "" if not filed else "- user: " + rng.choice(texts)
        for label, target in _targets(rng, queue, tokens):
            cases.append(_Case(label, queue, tokens, target, summary, inners[round_ % len(inners)],
                               rng.choice((0, 24, 64)), filed))
    # The hand-made ones: a tool call and its results must leave together, or stay together.
    from memlib.messages import Message

    def msg(i: int, role: str, content: str, **kw) -> Any:
        return Message(role, content, id=i, timestamp=_START + timedelta(minutes=i), **kw)

    pair = [msg(0, "user", "Find what I said about Biscuit's food."),
            msg(1, "assistant", "archival_memory_search(query='Biscuit food')", tool_call_id="call-1",
                name="archival_memory_search"),
            msg(2, "tool", '{"status": "OK", "message": "Biscuit is allergic to chicken"}', tool_call_id="call-1",
                name="archival_memory_search"),
            msg(3, "tool", '{"status": "OK", "message": "page 2: nothing more"}', tool_call_id="call-1",
                name="archival_memory_search"),
            msg(4, "assistant", "Biscuit must avoid chicken."),
            msg(5, "user", "Thanks! Dentist is on 12 May at 9:40.")]
    pair_tokens = [12, 20, 30, 10, 15, 18]
    for target, label in ((60, "a target that keeps part of a tool call's results"),
                          (33, "a target just below the last two messages"), (45, "a target after the tool call")):
        cases.append(_Case(label, pair, pair_tokens, target, "", ExtractiveSummarizer(), 48, []))
    late = [msg(0, "user", "Search for the vet's address."),
            msg(1, "assistant", "archival_memory_search(query='vet')", tool_call_id="call-1",
                name="archival_memory_search"),
            msg(2, "tool", '{"status": "OK", "message": "Dr Okafor, Otley Road"}', tool_call_id="call-1",
                name="archival_memory_search"),
            msg(3, "tool", '{"status": "OK", "message": "a late result"}', tool_call_id="call-0",
                name="conversation_search"),
            msg(4, "user", "Thanks, that's the one.")]
    cases.append(_Case("a tool result of another call right after a tool call", late, [10] * 5, 20,
                       "", TruncatingSummarizer(), 40, []))
    cases.append(_Case("an empty queue", [], [], 0, "- user: Maeve lives in Lisbon.", TruncatingSummarizer(), 20,
                       []))
    return cases


# -- running one case -----------------------------------------------------------------------


@dataclass
class _Run:
    kept: Any
    summary: Any
    queue_after: list
    calls: list
    recall_after: list


_TWICE = re.compile(r"message id (\d+) is already in recall storage")


def _run(fn, case: _Case) -> _Run:
    from memlib.recall import RecallStore
    from memlib.summarize import RecordingSummarizer

    queue = list(case.queue)
    tokens = list(case.tokens)
    recall = RecallStore()
    for message in case.filed:
        recall.add(message)
    summarizer = RecordingSummarizer(case.inner)
    try:
        result = _call(fn, (queue, tokens, case.target, case.summary, summarizer, case.summary_tokens, recall),
                       where=f"flush on {case.describe()}")
    except CheckFailed as failure:
        twice = _TWICE.search(str(failure.__cause__ or ""))
        if twice:
            raise CheckFailed(f"recall got #{twice.group(1)} twice ({case.describe()})",
                              "file each evicted message once: one recall.add(message) per message") from None
        raise
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise CheckFailed(f"flush returned {type(result).__name__} {_short(result)} ({case.describe()})",
                          "return a pair: (kept, new_summary)")
    kept, summary = result
    return _Run(kept, summary, queue, list(summarizer.calls), recall.messages[len(case.filed):])


def _ids(messages) -> str:
    shown = ", ".join(f"#{m.id}" for m in messages[:8])
    return shown + (", ..." if len(messages) > 8 else "") if messages else "none"


def _judge(case: _Case, run: _Run) -> None:
    """Raise CheckFailed naming the first thing `run` got wrong on `case`."""
    where = case.describe()
    queue, tokens = case.queue, case.tokens
    if run.queue_after != queue:
        raise CheckFailed(f"queue was changed: {len(queue)} messages before the call, {len(run.queue_after)} after "
                          f"({where})" if len(run.queue_after) != len(queue) else
                          f"queue was changed (same length, other messages) ({where})",
                          "leave queue as it is: build the kept list from it (a slice is a new list)")
    kept = run.kept
    if not isinstance(kept, (list, tuple)):
        raise CheckFailed(f"kept is {type(kept).__name__} {_short(kept)} ({where})",
                          "return the kept messages as a list, oldest first")
    if not isinstance(run.summary, str):
        raise CheckFailed(f"the new summary is {type(run.summary).__name__} {_short(run.summary)} ({where})",
                          "return (kept, new_summary) with new_summary a str: what summarize returned")
    cut = len(queue) - len(kept)
    if cut < 0 or list(kept) != list(queue[cut:]):
        raise CheckFailed(f"kept is not the newest messages of the queue in order: you kept {_ids(kept)}; the "
                          f"queue is {_ids(queue)} ({where})",
                          "only the oldest messages leave: what is kept is queue[cut:] for some cut")
    starts = flush_units(queue)
    if cut not in starts:
        head = next(s for s in reversed(starts) if s < cut)
        raise CheckFailed(f"message #{queue[cut].id} is a tool result whose call (#{queue[head].id}) was evicted: "
                          f"a tool call leaves with its results ({where})",
                          "evict whole units: an assistant message with a tool_call_id and the 'tool' messages "
                          "right after it with that id go together")
    kept_tokens = sum(tokens[cut:])
    if kept_tokens > case.target:
        raise CheckFailed(f"kept {len(kept)} messages ({kept_tokens} tokens) over the target of {case.target}: "
                          f"evict until the kept ones fit ({where})",
                          "keep evicting the oldest unit while the kept messages take more than target tokens")
    expected_cut = next(s for s in starts if sum(tokens[s:]) <= case.target)
    if cut != expected_cut:
        already = (f"the whole queue already took {sum(tokens)} tokens" if expected_cut == 0 else
                   f"after the oldest {expected_cut} the kept ones already took {sum(tokens[expected_cut:])} tokens")
        raise CheckFailed(f"evicted {cut} messages, but {already}, within the target of {case.target} ({where})",
                          "stop evicting as soon as the kept messages take at most target tokens")
    evicted = list(queue[:cut])
    if not evicted:
        if run.calls:
            raise CheckFailed(f"nothing had to leave, yet the summarizer was called {len(run.calls)} time(s) "
                              f"({where})", "when nothing leaves, return (list(queue), summary) and call nothing")
        if run.recall_after:
            raise CheckFailed(f"nothing had to leave, yet recall got {_ids(run.recall_after)} ({where})",
                              "when nothing leaves, call nothing: recall holds evicted messages only")
        if run.summary != case.summary:
            raise CheckFailed(f"nothing had to leave, yet the summary changed: {_short_text(run.summary)} "
                              f"({where})", "when nothing leaves, return the summary you were given")
        return
    if not run.calls:
        raise CheckFailed(f"the summarizer was never called, though {cut} messages left ({where})",
                          "fold the evicted messages into the summary: "
                          "summarizer.summarize(summary, evicted, summary_tokens)")
    if len(run.calls) > 1:
        raise CheckFailed(f"the summarizer was called {len(run.calls)} times: fold all evicted messages in one "
                          f"call ({where})", "collect the evicted messages in a list first, then call "
                          "summarizer.summarize(summary, evicted, summary_tokens) once")
    (call,) = run.calls
    if call.kind not in ("list", "tuple"):
        raise CheckFailed(f"summarize got the evicted messages as a {call.kind} ({where})",
                          "pass the evicted messages as a list, oldest first")
    if list(call.evicted) != evicted:
        order = sorted(call.evicted, key=lambda m: m.id) == evicted
        raise CheckFailed(f"summarize got {_ids(list(call.evicted))} as evicted, expected {_ids(evicted)}"
                          f"{', oldest first' if order else ''} ({where})",
                          "pass exactly the messages that leave, oldest first")
    if call.previous != case.summary:
        raise CheckFailed(f"summarize got previous={_short_text(call.previous)}, expected the summary so far "
                          f"{_short_text(case.summary)} ({where})", "pass the summary you were given as previous")
    if call.max_tokens != case.summary_tokens:
        raise CheckFailed(f"summarize got max_tokens={call.max_tokens}, expected summary_tokens="
                          f"{case.summary_tokens} ({where})", "pass summary_tokens as max_tokens")
    expected_summary = case.inner.summarize(case.summary, evicted, case.summary_tokens)
    if run.summary != expected_summary:
        raise CheckFailed(f"the new summary {_short_text(run.summary)} is not what summarize returned "
                          f"({_short_text(expected_summary)}) ({where})", "return summarize's result as new_summary")
    filed = run.recall_after
    if filed != evicted:
        extra = [m for m in filed if m not in evicted]
        missing = [m for m in evicted if m not in filed]
        what = (f"recall got {_ids(extra)}, which stayed in main context" if extra else
                f"recall is missing {_ids(missing)}" if missing else
                f"recall got the evicted messages out of order ({_ids(filed)}, expected {_ids(evicted)})")
        raise CheckFailed(f"{what} ({where})", "file each evicted message in recall once, oldest first: "
                          "for message in evicted: recall.add(message)")


EXERCISE = Exercise(
    grade_id="02-flush",
    notebook="02_eviction_summaries",
    answer="flush",
    points=3,
    description="exercise F: a flush that evicts whole units to the target, folds them into the summary "
                "and files them in recall",
    references=("memlib.course.checks.nb02_flush:reference_flush",),
    equivalent={
        "mutate-input: flush(tokens) -> tokens changed in place":
            "the contract asks to leave queue as it is, not tokens: popping token counts while evicting is a "
            "fair way to write the loop (the check and FlushContext pass a list of their own)",
    },
)


@graded(EXERCISE)
def check_flush(flush: Any) -> None:
    """Check exercise F: `flush(queue, tokens, target, summary, summarizer, summary_tokens, recall)`.

    Fixed: the kept messages are the newest whole units of the queue, within `target`, and
    only as few leave as needed; one summarizer call with (summary, evicted, summary_tokens),
    evicted oldest first; its result returned; each evicted message filed in recall once,
    oldest first; queue unchanged; nothing called when nothing leaves. Free: kept as a new
    list or the same messages, evicted passed as a list or a tuple, whether recall or the
    summarizer comes first, how the loop is written.
    """
    fn = _as_callable(flush, "flush")
    cases = _cases()
    for case in cases:
        _judge(case, _run(fn, case))
    passed(f"the oldest whole units leave until the kept messages fit, on {len(cases)} queues "
           "(targets at and inside units, 0, the whole queue, an empty queue)")
    passed("one summarizer call with the evicted messages, oldest first; its summary returned; "
           "nothing called when nothing leaves")
    passed("each evicted message filed in recall once, oldest first; the queue left as it was")
