"""A main context whose flush is a function with exercise F's signature (notebook 02).

`FlushContext` is a `MainContext` with the paper's policy ("evict the oldest
messages until the prompt is back at amount x window") whose choice of what
leaves, and new summary, come from a function ``flush(queue, tokens, target,
summary, summarizer, summary_tokens, recall)``: the student's, so the course
widgets can animate it. Everything else stays MainContext's: when to flush,
the summary reserve, tool results that arrive for the newest call, the error
when a message cannot fit at all. What the function returns is validated
before anything changes (`FlushError` says what is wrong), and a flush that
fails leaves the context as it was.

This module grades nothing (that is `memlib.course.checks.nb02_flush`) and
supports no other profile than the paper's shape.
"""

from __future__ import annotations

from typing import Any, Callable

from memlib.context import MainContext
from memlib.messages import Message
from memlib.recall import RecallStore

__all__ = ["FlushContext", "FlushError", "flush_units", "validate_flush", "probe_flush"]


class FlushError(ValueError):
    """A flush function returned something a main context cannot use."""


def flush_units(queue) -> list[int]:
    """Where each eviction unit of `queue` starts, then len(queue).

    A tool call (an assistant message with a tool_call_id) and the "tool"
    messages right after it with the same tool_call_id are one unit; every
    other message is a unit of its own.

    Example:
        >>> queue = [Message.user("find it"), Message.assistant("search()", tool_call_id="c1"),
        ...          Message.tool("found", "c1"), Message.assistant("here it is")]
        >>> flush_units(queue)
        [0, 1, 3, 4]
    """
    starts: list[int] = []
    for i, message in enumerate(queue):
        head = queue[starts[-1]] if starts else None
        # a result joins the unit of the call it answers (a unit's results all share the call's id)
        if message.role == "tool" and head is not None and head.role == "assistant" \
                and head.tool_call_id == message.tool_call_id:
            continue
        starts.append(i)
    return starts + [len(queue)]


def validate_flush(result: Any, queue: list[Message], tokens: list[int], target: int,
                   filed: list[Message]) -> tuple[int, str]:
    """(how many of the oldest messages left, the new summary) of a flush's `result`.

    FlushError unless `result` is a pair (kept, summary) where kept is the newest
    whole units of `queue`, taking at most `target` tokens, summary is a str and
    `filed` (what the flush put in recall) is exactly the evicted messages, oldest first.
    """
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise FlushError(f"a flush returns (kept, new_summary), got {type(result).__name__}")
    kept, summary = result
    if not isinstance(kept, (list, tuple)) or not isinstance(summary, str):
        raise FlushError(f"a flush returns (a list of messages, a str), got ({type(kept).__name__}, "
                         f"{type(summary).__name__})")
    cut = len(queue) - len(kept)
    if cut < 0 or list(kept) != queue[cut:]:
        raise FlushError("the kept messages must be the newest messages of the queue, in order")
    if cut not in flush_units(queue):
        raise FlushError(f"message #{queue[cut].id} is a tool result whose call was evicted: a tool call "
                         "leaves with its results")
    if sum(tokens[cut:]) > target:
        raise FlushError(f"the kept messages take {sum(tokens[cut:])} tokens, over the target of {target}")
    if filed != queue[:cut]:
        raise FlushError(f"recall storage got {len(filed)} messages; the {cut} evicted ones, oldest first, "
                         "each once, belong there")
    return cut, summary


def probe_flush(flush: Callable[..., Any]) -> None:
    """Run `flush` once on a small queue with a tool call; FlushError (or its own error) if it breaks a rule.

    What `memlib.course.fallback.use_or_reference` calls to see whether an answer works.

    Example:
        >>> from memlib.course.checks import reference_flush
        >>> probe_flush(reference_flush)
        >>> probe_flush(lambda queue, *rest: (queue[1:], ""))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        memlib.course.flushing.FlushError: message #1 is a tool result whose call was evicted: ...
    """
    from datetime import datetime

    from memlib.summarize import TruncatingSummarizer

    at = datetime(2026, 3, 2, 9, 0)  # stored messages have a time: recall keeps them as they are
    queue = [Message.assistant("search(query='Lisbon')", id=0, tool_call_id="c0", timestamp=at),
             Message.tool("Maeve lives in Lisbon", "c0", id=1, timestamp=at),
             Message.user("Thanks!", id=2, timestamp=at)]
    tokens, recall = [8, 7, 3], RecallStore()
    result = flush(list(queue), list(tokens), 5, "", TruncatingSummarizer(), 40, recall)
    validate_flush(result, queue, tokens, 5, recall.messages)


class FlushContext(MainContext):
    """A MainContext (paper-shaped policy) whose flush is `flush`, validated at every call.

    The function gets the queue (without a call whose result is arriving), the
    target (the room left under amount x window once the system prompt, core
    memory, the summary reserve and the incoming message are counted), the
    summary, the context's summarizer, the summary's budget and a fresh
    RecallStore: the context's own recall already holds every message, since
    append files each one.

    Example:
        >>> from memlib.course.checks import reference_flush
        >>> ctx = FlushContext(reference_flush, window=300)
        >>> for i in range(40):
        ...     _ = ctx.append(Message.user(f"fact {i}: it rained on day {i}"))
        >>> ctx.used <= ctx.window, len(ctx) < 40
        (True, True)
    """

    def __init__(self, flush: Callable[..., Any], window: int = 4096, **kwargs: Any):
        if not callable(flush):
            raise TypeError(f"flush must be a function, got {type(flush).__name__}")
        super().__init__(window, **kwargs)
        if self.profile.evict != "to_share":
            raise ValueError(f"a FlushContext evicts to a share of the window (the paper's policy), not with "
                             f"the {self.profile.name!r} profile's {self.profile.evict!r}")
        self.flush_function = flush

    def _plan_flush(self, incoming: Message | None, incoming_tokens: int, fixed: int | None = None,
                    core_tokens: int | None = None):
        # MainContext's own plan first: it raises when nothing could make room, and says
        # whether anything has to leave at all.
        plan = super()._plan_flush(incoming, incoming_tokens, fixed, core_tokens)
        if plan is None:
            return None
        fixed = self._fixed if fixed is None else fixed
        items = list(self._queue)
        groups = self._groups()
        if incoming is not None and incoming.role == "tool" and groups \
                and groups[-1][0][0].tool_call_id == incoming.tool_call_id:
            items = items[:len(items) - len(groups[-1])]  # the call being answered stays
        assert self.evict_to is not None  # a to_share profile
        target = max(0, int(self.evict_to * self.window) - fixed - self.summary_tokens - incoming_tokens)
        queue, tokens = [m for m, _ in items], [t for _, t in items]
        scratch = RecallStore()
        budget = max(0, self.summary_tokens - self._summary_frame)
        result = self.flush_function(list(queue), list(tokens), target, self.summary, self.summarizer, budget,
                                     scratch)
        cut, summary = validate_flush(result, queue, tokens, target, scratch.messages)
        if cut == 0:
            return None
        used = self._summary_piece_tokens(summary)
        if used > self.summary_tokens:
            memlib_items, memlib_summary = plan
            if [m for m, _ in memlib_items] != queue[:cut]:
                raise FlushError(f"the new summary takes {used} tokens in the prompt, over its "
                                 f"{self.summary_tokens}-token reserve")
            return plan  # the same flush: MainContext's summary, cut to fit its reserve
        return items[:cut], (summary, used, "")
