"""Main context: the prompt as a fixed-size memory with a paging policy.

The window holds, in order, the system prompt, core memory, the recursive
summary and a FIFO queue of messages. Appending counts only the new message
(running totals, never a re-tokenisation of the whole prompt). The policy is
MemGPT's: a warning at 70 % of the window, and when the next message would
pass 100 %, a flush that evicts the oldest messages until the prompt is back
near 50 %, folds them into the summary and leaves them in recall storage.
This module decides what is evicted; it does not decide what to remember
(that is the agent's job when it sees the warning).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from memlib.messages import Message
from memlib.recall import RecallStore
from memlib.summarize import NoSummarizer, Summarizer, fit_newest_lines
from memlib.tokens import count

__all__ = ["MainContext", "ContextOverflowError", "Event", "DEFAULT_SYSTEM_PROMPT", "MESSAGE_OVERHEAD"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with a small main context and a large external memory. "
    "Use your memory tools to save what matters and to look up what is no longer in view."
)
# Chat APIs frame each message with a few tokens (role markers, separators).
MESSAGE_OVERHEAD = 3


class ContextOverflowError(ValueError):
    """A message cannot fit even after evicting everything that can be evicted."""


@dataclass(frozen=True)
class Event:
    """Something that happened to the context; widgets and traces read these.

    kind is one of: append, pressure, evict, summarize, flush, core_edit.
    """

    kind: str
    detail: str
    message: Message | None
    tokens_used: int
    window: int

    def __repr__(self) -> str:
        return f"Event({self.kind}: {self.detail} [{self.tokens_used}/{self.window}])"


class MainContext:
    """The prompt as memory: fixed window, segments, pressure and eviction.

    Example:
        >>> ctx = MainContext(window=600)
        >>> for i in range(40):
        ...     _ = ctx.append(Message.user(f"fact number {i} is that the sky was clear on day {i}"))
        >>> ctx.used <= ctx.window, len(ctx.recall)
        (True, 40)
    """

    def __init__(self, window: int = 4096, system_prompt: str = DEFAULT_SYSTEM_PROMPT,
                 core_memory=None, summarizer: Summarizer | None = None,
                 recall: RecallStore | None = None, warn_at: float = 0.7,
                 flush_at: float = 1.0, evict_to: float = 0.5,
                 summary_tokens: int | None = None, counter: Callable[[str], int] = count):
        if not isinstance(window, int) or isinstance(window, bool) or window < 64:
            raise ValueError(f"window must be an int of at least 64 tokens, got {window!r}")
        if not isinstance(system_prompt, str):
            raise TypeError("system_prompt must be a str")
        if not 0 < evict_to < warn_at <= flush_at <= 1.0:
            raise ValueError(
                f"need 0 < evict_to < warn_at <= flush_at <= 1, got evict_to={evict_to}, "
                f"warn_at={warn_at}, flush_at={flush_at}"
            )
        if summarizer is not None and not isinstance(summarizer, Summarizer):
            raise TypeError("summarizer must have a summarize(previous, evicted, max_tokens) method")
        self.window = window
        self.system_prompt = system_prompt
        self.core_memory = core_memory
        self.summarizer = summarizer if summarizer is not None else NoSummarizer()
        self.recall = recall if recall is not None else RecallStore()
        self.warn_at, self.flush_at, self.evict_to = warn_at, flush_at, evict_to
        self.counter = counter
        # The summary gets a fixed slice of the window, reserved up front, so a
        # flush is planned once and can never be undone by a growing summary.
        if summary_tokens is None:
            summary_tokens = 0 if isinstance(self.summarizer, NoSummarizer) else window // 8
        if not isinstance(summary_tokens, int) or summary_tokens < 0:
            raise ValueError(f"summary_tokens must be an int >= 0, got {summary_tokens!r}")
        self.summary_tokens = summary_tokens
        self.summary = ""
        self._summary_used = 0
        self._system_used = counter(system_prompt)
        self._queue: deque[tuple[Message, int]] = deque()
        self._messages_used = 0
        self._core_version = None
        self._core_used = 0
        self._refresh_core()
        self._warned = False
        self.events: list[Event] = []
        if self._fixed + self.summary_tokens >= self.limit:
            raise ValueError(
                f"system prompt ({self._system_used}) + core memory ({self._core_used}) + summary "
                f"reserve ({self.summary_tokens}) leave no room for messages in a {window}-token "
                "window; use a bigger window or a smaller summary_tokens"
            )

    # -- sizes ---------------------------------------------------------------
    @property
    def limit(self) -> int:
        """Tokens at which a flush happens (flush_at x window)."""
        return int(self.flush_at * self.window)

    @property
    def _fixed(self) -> int:
        return self._system_used + self._core_used

    @property
    def used(self) -> int:
        """Tokens in the prompt now."""
        return self._fixed + self._summary_used + self._messages_used

    @property
    def pressure(self) -> float:
        """Share of the window in use, 0..1."""
        return self.used / self.window

    @property
    def messages(self) -> list[Message]:
        return [m for m, _ in self._queue]

    def segments(self) -> dict[str, int]:
        """Tokens per segment; they add up to the window."""
        parts = {"system": self._system_used, "core_memory": self._core_used,
                 "summary": self._summary_used, "messages": self._messages_used}
        parts["free"] = self.window - sum(parts.values())
        return parts

    def message_tokens(self, message: Message) -> int:
        return self.counter(message.content) + MESSAGE_OVERHEAD

    # -- changes -------------------------------------------------------------
    def append(self, message: Message) -> list[Event]:
        """Add a message at the end of the queue, flushing first if it would not fit.

        Raises ContextOverflowError (and changes nothing) if the message cannot
        fit even with every evictable message gone.
        """
        if not isinstance(message, Message):
            raise TypeError(f"append takes a Message, got {type(message).__name__}")
        new: list[Event] = []
        new += self._refresh_core()
        tokens = self.message_tokens(message)
        if self.used + tokens > self.limit:
            new += self._flush(incoming=message, incoming_tokens=tokens)
        stored = self.recall.add(message)
        self._queue.append((stored, tokens))
        self._messages_used += tokens
        new.append(self._event("append", f"{stored.role} message #{stored.id} ({tokens} tokens)", stored))
        new += self._check_pressure()
        self.events += new
        return new

    def flush(self) -> list[Event]:
        """Evict down to the target now, as if the window had filled."""
        new = self._refresh_core() + self._flush(incoming=None, incoming_tokens=0)
        self.events += new
        return new

    def core_changed(self) -> list[Event]:
        """Recount core memory after an edit, flushing if the prompt now overflows."""
        new = self._refresh_core()
        if self.used > self.limit:
            new += self._flush(incoming=None, incoming_tokens=0)
        self.events += new
        return new

    def restore(self, messages, summary: str = "") -> None:
        """Put back a saved queue and summary (loading a saved agent).

        Token counts are recomputed, never trusted from the save. The messages
        must already be in recall storage (they were appended once, before the
        save). Raises ValueError, changing nothing, if they would not fit.
        """
        if not isinstance(summary, str):
            raise TypeError("summary must be a str")
        messages = list(messages)
        if not all(isinstance(m, Message) for m in messages):
            raise TypeError("messages must be Message objects")
        missing = [m.id for m in messages if m.id not in self.recall]
        if missing:
            raise ValueError(f"messages {missing[:5]} are not in recall storage; add them there first")
        queue = deque((m, self.message_tokens(m)) for m in messages)
        summary_used = self.counter(summary) if summary else 0
        total = self._fixed + summary_used + sum(t for _, t in queue)
        if total > self.limit:
            raise ValueError(f"the restored context would use {total} tokens, over its {self.limit}-token limit")
        self._queue, self._messages_used = queue, total - self._fixed - summary_used
        self.summary, self._summary_used = summary, summary_used
        self._warned = self.used >= self.warn_at * self.window

    def _refresh_core(self) -> list[Event]:
        if self.core_memory is None:
            return []
        version = getattr(self.core_memory, "version", None)
        if version is not None and version == self._core_version:
            return []
        before = self._core_used
        self._core_used = self.counter(self.core_memory.render())
        self._core_version = version
        if self._core_version is None or before == self._core_used:
            return []
        return [self._event("core_edit", f"core memory {before} -> {self._core_used} tokens", None)]

    def _groups(self):
        """The queue cut into eviction units: a tool call travels with its results."""
        groups: list[list[tuple[Message, int]]] = []
        for item in self._queue:
            m = item[0]
            if m.role == "tool" and groups and groups[-1][0][0].tool_call_id == m.tool_call_id:
                groups[-1].append(item)
            else:
                groups.append([item])
        return groups

    def _flush(self, incoming: Message | None, incoming_tokens: int) -> list[Event]:
        groups = self._groups()
        # A tool result must not be parted from its call: the call's group stays.
        protected = None
        if incoming is not None and incoming.role == "tool" and groups:
            head = groups[-1][0][0]
            if head.tool_call_id == incoming.tool_call_id:
                protected = groups.pop()
        reserve = self.summary_tokens
        target = int(self.evict_to * self.window)
        remaining = self._messages_used
        evict: list[list[tuple[Message, int]]] = []
        for group in groups:
            if self._fixed + reserve + remaining + incoming_tokens <= target:
                break
            evict.append(group)
            remaining -= sum(t for _, t in group)
        if self._fixed + max(reserve, self._summary_used) + remaining + incoming_tokens > self.limit:
            kept = sum(t for _, t in protected) if protected else 0
            raise ContextOverflowError(
                f"a message of {incoming_tokens} tokens cannot fit: the window is {self.window} "
                f"tokens, system + core memory take {self._fixed}, the summary reserve "
                f"{reserve}, and {kept} belong to the tool call it answers. Split the message, "
                "archive it with archival_memory_insert, or use a bigger window."
            )
        if not evict:
            return []
        new: list[Event] = []
        evicted_messages: list[Message] = []
        for group in evict:
            for message, tokens in group:
                self._queue.popleft()
                self._messages_used -= tokens
                evicted_messages.append(message)
                new.append(self._event("evict", f"{message.role} message #{message.id} -> recall storage", message))
        summary_events = self._resummarize(evicted_messages)
        new += summary_events
        new.append(self._event("flush", f"evicted {len(evicted_messages)} messages, prompt now {self.used} tokens", None))
        self._warned = False
        return new

    def _resummarize(self, evicted: list[Message]) -> list[Event]:
        summary = self.summarizer.summarize(self.summary, evicted, self.summary_tokens)
        if not isinstance(summary, str):
            raise TypeError(f"{self.summarizer!r} returned {type(summary).__name__}, expected a str")
        tokens = self.counter(summary)
        note = ""
        if tokens > self.summary_tokens:
            # A summarizer that ignores its budget must not overflow the window:
            # keep its newest lines that fit, and say so in the event.
            summary = fit_newest_lines(summary.splitlines(), self.summary_tokens)
            note = f" (summarizer returned {tokens} tokens, over its {self.summary_tokens}; truncated)"
            tokens = self.counter(summary)
        if summary == self.summary and not note:
            return []
        self.summary, self._summary_used = summary, tokens
        return [self._event("summarize", f"summary now {tokens} tokens{note}", None)]

    def _check_pressure(self) -> list[Event]:
        if self._warned or self.used < self.warn_at * self.window:
            return []
        self._warned = True
        return [self._event("pressure", f"memory pressure: {self.pressure:.0%} of the window in use", None)]

    def _event(self, kind: str, detail: str, message: Message | None) -> Event:
        return Event(kind, detail, message, self.used, self.window)

    # -- the prompt ----------------------------------------------------------
    def render(self) -> str:
        """The prompt as text: system, core memory, summary, then the queue."""
        parts = [f"<system>\n{self.system_prompt}\n</system>"]
        if self.core_memory is not None:
            parts.append(f"<core_memory>\n{self.core_memory.render()}\n</core_memory>")
        if self.summary:
            parts.append(f"<summary>\n{self.summary}\n</summary>")
        parts += [f"[{m.role}] {m.content}" for m, _ in self._queue]
        return "\n".join(parts)

    def __len__(self) -> int:
        return len(self._queue)

    def __repr__(self) -> str:
        return (f"MainContext({self.used}/{self.window} tokens, {len(self._queue)} messages, "
                f"summary {self._summary_used} tokens, {len(self.recall)} in recall)")
