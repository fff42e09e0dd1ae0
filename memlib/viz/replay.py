"""Replay a conversation through a MainContext and keep a snapshot after every turn.

The figures and the `ContextStepper` draw from these snapshots: tokens per
segment, the events of the turn, which messages are still in the prompt and
which were evicted. Replaying is plain Python (no plotly, no widgets); it does
not decide anything itself, `memlib.context` does the paging.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from memlib.context import ContextOverflowError, Event, MainContext
from memlib.messages import Message

__all__ = ["Snapshot", "replay", "as_message"]


@dataclass(frozen=True)
class Snapshot:
    """The context right after one turn of a replay (turn 0: before any message).

    `segments` holds tokens per segment (system, core_memory, summary,
    messages, free) and adds up to `window`. `in_context` are the ids of the
    messages still in the prompt, `evicted` the ids evicted during this turn.
    """

    turn: int
    message: Message | None
    segments: dict[str, int]
    window: int
    events: tuple[Event, ...] = ()
    in_context: tuple[int, ...] = ()
    evicted: tuple[int, ...] = ()
    summary: str = ""
    used_before: int = 0
    warn_at: float | None = 0.7  # None: the context's profile never warns (Letta)
    flush_at: float = 1.0
    evict_to: float | None = 0.5  # None: the profile evicts a share, not down to a level

    @property
    def used(self) -> int:
        """Tokens in the prompt after the turn."""
        return self.window - self.segments["free"]

    @property
    def pressure(self) -> float:
        return self.used / self.window

    @property
    def flushed(self) -> bool:
        """True when this turn's append had to flush (evict and re-summarise)."""
        return any(e.kind == "flush" for e in self.events)

    @property
    def warned(self) -> bool:
        """True when this turn crossed the memory-pressure warning."""
        return any(e.kind == "pressure" for e in self.events)

    def __repr__(self) -> str:
        what = f"#{self.message.id} {self.message.role}" if self.message else "start"
        extra = f", evicted {len(self.evicted)}" if self.evicted else ""
        kinds = sorted({e.kind for e in self.events} - {"append"})
        if kinds:
            extra += f", {'/'.join(kinds)}"
        return f"Snapshot(turn {self.turn} [{what}]: {self.used}/{self.window} tokens{extra})"


_MESSAGE_FIELDS = ("role", "content", "id", "timestamp", "tool_call_id", "name", "session_id")


def as_message(item) -> Message:
    """A Message from a Message, a (role, content) pair, a dict with role and content,
    or anything with a `to_message()` method (a `memlib.datasets` Turn).

    Extra dict keys (a dataset's `turn`, `facts`, ...) are ignored.

    Example:
        >>> as_message(("user", "my cat is called Biscuit"))
        Message(user: 'my cat is called Biscuit')
    """
    if isinstance(item, Message):
        return item
    if callable(getattr(item, "to_message", None)):
        return as_message(item.to_message())
    if isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
        return Message(item[0], item[1])
    if isinstance(item, dict) and "role" in item and "content" in item:
        return Message.from_dict({k: item[k] for k in _MESSAGE_FIELDS if k in item})
    raise TypeError(
        f"cannot read a message from {type(item).__name__} {item!r:.80}; pass Message objects, "
        "(role, content) pairs, dicts with 'role' and 'content', or dataset turns"
    )


def _snapshot(ctx: MainContext, turn: int, message: Message | None, events: list[Event],
              used_before: int) -> Snapshot:
    return Snapshot(
        turn=turn, message=message, segments=dict(ctx.segments()), window=ctx.window,
        events=tuple(events), in_context=tuple(m.id for m in ctx.messages),
        evicted=tuple(e.message.id for e in events if e.kind == "evict" and e.message is not None),
        summary=ctx.summary, used_before=used_before,
        warn_at=ctx.warn_at, flush_at=ctx.flush_at, evict_to=ctx.evict_to,
    )


def replay(messages: Iterable, *, context: MainContext | None = None, **context_kwargs) -> list[Snapshot]:
    """Append `messages` one by one and return len(messages) + 1 snapshots.

    Snapshot 0 is the context before the first message (system prompt, core
    memory); snapshot n is the context after the n-th append. Pass a fresh
    `context`, or the keyword arguments of `MainContext` (window, summarizer,
    warn_at, ...). A message that cannot fit raises ContextOverflowError
    naming the turn.

    Example:
        >>> history = replay([("user", f"fact {i}: the sky was clear on day {i}") for i in range(60)], window=300)
        >>> max(s.used for s in history) <= 300, any(s.flushed for s in history)
        (True, True)
    """
    if context is not None and context_kwargs:
        raise TypeError(
            f"pass either a ready MainContext or its keyword arguments, not both "
            f"(got context and {sorted(context_kwargs)})"
        )
    ctx = context if context is not None else MainContext(**context_kwargs)
    history = [_snapshot(ctx, 0, None, [], ctx.used)]
    for turn, item in enumerate(messages, start=1):
        message = as_message(item)
        before = ctx.used
        try:
            events = ctx.append(message)
        except ContextOverflowError as exc:
            raise ContextOverflowError(f"turn {turn}: {exc}") from exc
        stored = next((e.message for e in reversed(events) if e.kind == "append"), message)
        history.append(_snapshot(ctx, turn, stored, events, before))
    return history
