"""Main context: the prompt as a fixed-size memory with a paging policy.

The window holds, in order, the system prompt, core memory, the recursive
summary and a FIFO queue of messages. Appending counts only the new message
(running totals, never a re-tokenisation of the whole prompt). The default
policy uses the MemGPT paper's example numbers: a warning at 70 % of the
window, and when the next message would pass 100 %, a flush that evicts the
oldest messages until the prompt is back near 50 %, folds them into the
summary and leaves them in recall storage. `PROFILES` holds that policy and
the two its authors actually shipped (MemGPT's research code and the last
Letta server), each with the source of its numbers; `MainContext(window,
profile="memgpt")` picks one.
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

__all__ = ["MainContext", "ContextOverflowError", "Event", "DEFAULT_SYSTEM_PROMPT", "MESSAGE_OVERHEAD",
           "PagingProfile", "PROFILES", "select_eviction"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with a small main context and a large external memory. "
    "Use your memory tools to save what matters and to look up what is no longer in view."
)
# Chat APIs frame each message with a few tokens (role markers, separators).
MESSAGE_OVERHEAD = 3


@dataclass(frozen=True)
class PagingProfile:
    """Whose paging policy: when the agent is warned, when eviction starts, how much goes.

    - `warn_at`: share of the window at which the agent gets one memory-pressure
      warning per period (a period ends with an eviction); None: never warned.
    - `trigger`: "before_append" evicts when the next message would push the
      prompt past `trigger_at` x window; "after_append" evicts once the prompt
      has passed `trigger_at` x window.
    - `evict`: "to_share" evicts the oldest messages until the prompt is at
      `amount` x window; "token_share" evicts the oldest `amount` of the
      message tokens; "count_share" evicts the oldest `amount` of the messages
      by count. `keep_last` newest messages are never chosen by the profile.
    - `source`: where the numbers come from, so the course can say whose they are.

    Whatever the profile, a tool call is never parted from its result, and if
    the profile's share leaves no room for the next message, more of the
    oldest messages go (memlib never overflows and never drops a message).
    """

    name: str
    source: str
    warn_at: float | None
    trigger: str
    trigger_at: float
    evict: str
    amount: float
    keep_last: int = 0

    def __post_init__(self):
        if self.trigger not in ("before_append", "after_append"):
            raise ValueError(f"trigger must be 'before_append' or 'after_append', got {self.trigger!r}")
        if self.evict not in ("to_share", "token_share", "count_share"):
            raise ValueError(f"evict must be 'to_share', 'token_share' or 'count_share', got {self.evict!r}")
        if not 0 < self.amount < 1 or not 0 < self.trigger_at <= 1:
            raise ValueError(f"need 0 < amount < 1 and 0 < trigger_at <= 1, got {self.amount}, {self.trigger_at}")
        if self.warn_at is not None and not 0 < self.warn_at <= 1:
            raise ValueError(f"warn_at must be in (0, 1] or None, got {self.warn_at}")
        if not isinstance(self.keep_last, int) or self.keep_last < 0:
            raise ValueError(f"keep_last must be an int >= 0, got {self.keep_last!r}")

    def __repr__(self) -> str:
        warn = "no warning" if self.warn_at is None else f"warn {self.warn_at:.0%}"
        how = {"to_share": f"evict to {self.amount:.0%} of the window",
               "token_share": f"evict oldest {self.amount:.0%} of message tokens",
               "count_share": f"evict oldest {self.amount:.0%} of messages by count"}[self.evict]
        keep = f", keep last {self.keep_last}" if self.keep_last else ""
        when = "next message would pass" if self.trigger == "before_append" else "usage passes"
        return f"PagingProfile({self.name}: {warn}; when {when} {self.trigger_at:.0%}, {how}{keep})"


#: The three paging policies the course compares; `source` says whose numbers they are.
PROFILES = {
    "paper": PagingProfile(
        "paper", "MemGPT paper, arXiv:2310.08560 v2, section 2 (example values, 'e.g.')",
        warn_at=0.7, trigger="before_append", trigger_at=1.0, evict="to_share", amount=0.5),
    "memgpt": PagingProfile(
        "memgpt", "MemGPT research code 0.3.25, memgpt/constants.py: MESSAGE_SUMMARY_WARNING_FRAC, "
        "MESSAGE_SUMMARY_TRUNC_TOKEN_FRAC, MESSAGE_SUMMARY_TRUNC_KEEP_N_LAST",
        warn_at=0.75, trigger="before_append", trigger_at=1.0, evict="token_share", amount=0.75, keep_last=3),
    "letta": PagingProfile(
        "letta", "last Letta server (letta-ai/letta 56ba9c25): SUMMARIZATION_TRIGGER_MULTIPLIER, "
        "partial_evict_summarizer_percentage, send_memory_warning_message=False",
        warn_at=None, trigger="after_append", trigger_at=0.9, evict="count_share", amount=0.30),
}


def select_eviction(profile: PagingProfile, group_sizes: list[tuple[int, int]], *, fixed: int,
                    incoming: int, window: int, limit: int) -> int:
    """How many of the oldest eviction units the profile evicts.

    `group_sizes` lists each unit (a message, or a tool call with its results)
    oldest first as (messages, tokens). `fixed` is what cannot be evicted
    (system prompt, core memory, summary reserve), `incoming` the tokens of the
    message about to be added, `limit` the hard ceiling the prompt must stay under.

    Example:
        >>> units = [(1, 100)] * 10                       # ten messages of 100 tokens
        >>> select_eviction(PROFILES["letta"], units, fixed=0, incoming=0, window=1100, limit=1100)
        3
        >>> select_eviction(PROFILES["memgpt"], units, fixed=0, incoming=0, window=1100, limit=1100)
        7
    """
    tokens = [t for _, t in group_sizes]
    total = sum(tokens)
    n = 0
    if profile.evict == "to_share":
        target, remaining = int(profile.amount * window), total
        while n < len(tokens) and fixed + remaining + incoming > target:
            remaining -= tokens[n]
            n += 1
    else:
        # Units holding one of the newest keep_last messages are not candidates.
        candidates, kept = len(group_sizes), 0
        while candidates and kept < profile.keep_last:
            candidates -= 1
            kept += group_sizes[candidates][0]
        if profile.evict == "token_share":
            goal, freed = profile.amount * total, 0
            while n < candidates and freed < goal:
                freed += tokens[n]
                n += 1
        else:
            goal, gone = max(1, round(profile.amount * sum(c for c, _ in group_sizes))), 0
            while n < candidates and gone < goal:
                gone += group_sizes[n][0]
                n += 1
    # The profile's share may leave no room for the next message: take more, oldest first.
    remaining = total - sum(tokens[:n])
    while n < len(tokens) and fixed + remaining + incoming > limit:
        remaining -= tokens[n]
        n += 1
    return n


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

    `profile` picks a paging policy from `PROFILES` ("paper", "memgpt",
    "letta") or takes a `PagingProfile`; without one, `warn_at`, `flush_at`
    and `evict_to` describe a paper-shaped policy (the paper's numbers by default).

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
                 summary_tokens: int | None = None, counter: Callable[[str], int] = count,
                 profile: str | PagingProfile | None = None):
        if not isinstance(window, int) or isinstance(window, bool) or window < 64:
            raise ValueError(f"window must be an int of at least 64 tokens, got {window!r}")
        # A profile sets the thresholds itself; explicit thresholds build a paper-shaped policy.
        if profile is not None:
            if (warn_at, flush_at, evict_to) != (0.7, 1.0, 0.5):
                raise ValueError("pass either profile= or explicit warn_at/flush_at/evict_to, not both")
            if isinstance(profile, str):
                if profile not in PROFILES:
                    raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
                profile = PROFILES[profile]
            if not isinstance(profile, PagingProfile):
                raise TypeError(f"profile must be a name in PROFILES or a PagingProfile, got {type(profile).__name__}")
            warn_at = profile.warn_at
            flush_at = profile.trigger_at if profile.trigger == "before_append" else 1.0
            evict_to = profile.amount if profile.evict == "to_share" else None
        elif 0 < evict_to < warn_at <= flush_at <= 1.0:
            profile = PagingProfile("custom", "explicit thresholds", warn_at=warn_at, trigger="before_append",
                                    trigger_at=flush_at, evict="to_share", amount=evict_to)
        if not isinstance(system_prompt, str):
            raise TypeError("system_prompt must be a str")
        if profile is None:
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
        self.profile = profile
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
        if self.profile.trigger == "after_append" and self.used > self.profile.trigger_at * self.window:
            new += self._flush(incoming=None, incoming_tokens=0)
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
        self._warned = self.warn_at is not None and self.used >= self.warn_at * self.window

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
        sizes = [(len(g), sum(t for _, t in g)) for g in groups]
        n = select_eviction(self.profile, sizes, fixed=self._fixed + reserve, incoming=incoming_tokens,
                            window=self.window, limit=self.limit)
        evict = groups[:n]
        remaining = self._messages_used - sum(t for _, t in sizes[:n])
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
        if self._warned or self.warn_at is None or self.used < self.warn_at * self.window:
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
