"""Main context: the prompt as a fixed-size memory with a paging policy.

The window holds, in order, the system prompt, core memory, the recursive
summary and a FIFO queue of messages. Appending counts only the new message
(running totals, never a re-tokenisation of the whole prompt). The default
policy uses the MemGPT paper's example numbers: a warning at 70 % of the
window, and when the next message would pass 100 %, a flush that evicts the
oldest messages until the prompt is back near 50 % and folds them into the
summary. They stay in recall storage, where `append` wrote every message as
it arrived (the paper's queue manager). `PROFILES` holds that policy and
the two its authors actually shipped (MemGPT's research code and the last
Letta server), each with the source of its numbers; `MainContext(window,
profile="memgpt")` picks one. The profiles and their eviction rules are
`memlib.paging`, re-exported here.
This module decides what is evicted; it does not decide what to remember
(that is the agent's job when it sees the warning).

The budget is the prompt itself: `used` is the token count of exactly what
`render()` returns, tags and role prefixes included. The prompt is a run of
pieces (the system section, the core-memory section, the summary section,
one line per message), each starting with a non-space character and ending
with a newline; cl100k never merges tokens across such a boundary, so the
pieces' counts add up to the count of the whole text and each piece is
counted once, when it changes. Every change is all or nothing: a flush whose
summarizer raises, or a core edit the window cannot hold, leaves the context
exactly as it was.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from memlib._util import check_int_at_least
from memlib.messages import Message
# The paging profiles, re-exported: notebooks and the figures import them from here.
from memlib.paging import (EVICTION_RULES, PROFILES, SLIDING_WINDOW_STEP, PagingProfile,  # noqa: F401
                           select_eviction)
from memlib.recall import RecallStore
from memlib.summarize import NoSummarizer, Summarizer, fit_newest_lines, is_summarizer
from memlib.tokens import count

__all__ = ["MainContext", "ContextOverflowError", "Event", "DEFAULT_SYSTEM_PROMPT", "MESSAGE_OVERHEAD",
           "PagingProfile", "PROFILES", "select_eviction"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with a small main context and a large external memory. "
    "Use your memory tools to save what matters and to look up what is no longer in view."
)
# Chat APIs frame each message with a few tokens (role markers, separators); the
# rendered "[role] ...\n" line costs about this much more than its text (2-4 tokens;
# message_tokens() gives the exact figure the budget uses).
MESSAGE_OVERHEAD = 3
# Marks core memory as not counted yet (a version no core memory has).
_UNCOUNTED = object()


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
        check_int_at_least(window, 64, "window", "a number of tokens")
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
        if summarizer is not None and not is_summarizer(summarizer):
            raise TypeError("summarizer must have a summarize(previous, evicted, max_tokens) method")
        self.window = window
        self.system_prompt = system_prompt
        self._core_memory = core_memory
        self.summarizer = summarizer if summarizer is not None else NoSummarizer()
        self.recall = recall if recall is not None else RecallStore()
        # The profile's thresholds (a "custom" profile holds the explicit ones).
        self.warn_at: float | None = profile.warn_at
        self.flush_at = profile.flush_at
        self.evict_to: float | None = profile.evict_to
        self.profile = profile
        self.counter = counter
        # The summary gets a fixed slice of the window, reserved up front, so a
        # flush is planned once and can never be undone by a growing summary.
        if summary_tokens is None:
            summary_tokens = 0 if isinstance(self.summarizer, NoSummarizer) else window // 8
        check_int_at_least(summary_tokens, 0, "summary_tokens")
        self.summary_tokens = summary_tokens
        self.summary = ""
        self._summary_used = 0
        self._summary_frame = counter(_summary_piece("-")) - counter("-")
        self._system_used = counter(_system_piece(system_prompt))
        self._queue: deque[tuple[Message, int]] = deque()
        self._messages_used = 0
        self._core_version: object = None  # a CoreMemory's version, or _UNCOUNTED to force a count
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
        _attach(core_memory, self)

    @property
    def core_memory(self):
        """The core memory in the prompt. A CoreMemory tells its context about every
        edit, so even an edit made directly on it can never overflow the window."""
        return self._core_memory

    @core_memory.setter
    def core_memory(self, core_memory) -> None:
        previous = self._core_memory
        self._core_memory, self._core_version = core_memory, _UNCOUNTED
        try:
            self.core_changed()
        except BaseException:
            self._core_memory, self._core_version = previous, _UNCOUNTED
            self.core_changed()
            raise
        if previous is not core_memory:
            _detach(previous, self)
            _attach(core_memory, self)

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
        """Tokens `message` takes in the prompt: its whole rendered line."""
        return self.counter(_message_line(message))

    def room(self, message: Message) -> int:
        """The most tokens `message` could take if appended now, after the deepest flush."""
        protected = 0
        groups = self._groups()
        if message.role == "tool" and groups and groups[-1][0][0].tool_call_id == message.tool_call_id:
            protected = sum(t for _, t in groups[-1])
        after_flush = self.limit - self._fixed - max(self.summary_tokens, self._summary_used) - protected
        return max(self.limit - self.used, after_flush)

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
        plan = after = None
        if self.used + tokens > self.limit:
            plan = self._plan_flush(incoming=message, incoming_tokens=tokens)
        elif self.profile.trigger == "after_append" and self.used + tokens > self.profile.trigger_at * self.window:
            after = self._plan_after_append(message, tokens)
        # The durable write comes before any change here: if recall storage (or
        # the summarizer, above) fails, the context is exactly as it was.
        stored = self.recall.add(message)
        if plan is not None:
            new += self._apply_flush(plan)
        self._queue.append((stored, tokens))
        self._messages_used += tokens
        new.append(self._event("append", f"{stored.role} message #{stored.id} ({tokens} tokens)", stored))
        if after is not None:
            # The plan was made before recall storage numbered the message: evict the stored one.
            items, summary = after
            after = ([(stored if m is message else m, t) for m, t in items], summary)
            new += self._apply_flush(after)
        new += self._check_pressure()
        self.events += new
        return new

    def flush(self) -> list[Event]:
        """Evict down to the target now, as if the window had filled."""
        new = self._refresh_core()
        new += self._apply_flush(self._plan_flush(incoming=None, incoming_tokens=0))
        self.events += new
        return new

    def core_changed(self) -> list[Event]:
        """Recount core memory after an edit, flushing if the prompt now overflows.

        All or nothing: if even evicting every message cannot make room for the
        new core memory (or the summarizer raises), ContextOverflowError (or the
        summarizer's error) is raised and the context is unchanged; the
        CoreMemory that reported the edit then undoes it.
        """
        state = self._core_state()
        if state is None:
            return []
        tokens, version = state
        plan = None
        fixed = self._system_used + tokens
        if fixed + max(self.summary_tokens, self._summary_used) >= self.limit:
            # The same rule as at construction: some room must stay for messages.
            raise ContextOverflowError(
                f"core memory would take {tokens} tokens: with the system prompt ({self._system_used}) "
                f"and the summary reserve ({self.summary_tokens}) that leaves no room for messages in "
                f"the {self.limit}-token limit of the window: edit undone. Condense the block with "
                "core_memory_replace or move details to archival_memory_insert."
            )
        if fixed + self._summary_used + self._messages_used > self.limit:
            plan = self._plan_flush(incoming=None, incoming_tokens=0, fixed=fixed, core_tokens=tokens)
        new = self._set_core(tokens, version)
        if plan is not None:
            new += self._apply_flush(plan)
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
        summary_used = self.counter(_summary_piece(summary)) if summary else 0
        total = self._fixed + summary_used + sum(t for _, t in queue)
        if total > self.limit:
            raise ValueError(f"the restored context would use {total} tokens, over its {self.limit}-token limit")
        self._queue, self._messages_used = queue, total - self._fixed - summary_used
        self.summary, self._summary_used = summary, summary_used
        self._warned = self.warn_at is not None and self.used >= self.warn_at * self.window

    def _refresh_core(self) -> list[Event]:
        state = self._core_state()
        return self._set_core(*state) if state is not None else []

    def _core_state(self):
        """(tokens, version) of core memory now, or None if nothing changed since the last count."""
        if self._core_memory is None:
            if self._core_used:
                return 0, None
            return None
        version = getattr(self._core_memory, "version", None)
        if version is not None and version == self._core_version:
            return None
        return self.counter(_core_piece(self._core_memory.render())), version

    def _set_core(self, tokens: int, version) -> list[Event]:
        before = self._core_used
        self._core_used = tokens
        self._core_version = version
        if version is None or before == tokens:
            return []
        return [self._event("core_edit", f"core memory {before} -> {tokens} tokens", None)]

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

    def _plan_flush(self, incoming: Message | None, incoming_tokens: int, fixed: int | None = None,
                    core_tokens: int | None = None):
        """What a flush would evict and the summary it would leave, computed without
        changing anything (so a failure, e.g. a summarizer that raises, changes nothing).
        `fixed` is system + core memory as they are about to be (a core edit)."""
        fixed = self._fixed if fixed is None else fixed
        groups = self._groups()
        # A tool result must not be parted from its call: the call's group stays.
        protected = None
        if incoming is not None and incoming.role == "tool" and groups:
            head = groups[-1][0][0]
            if head.tool_call_id == incoming.tool_call_id:
                protected = groups.pop()
        reserve = self.summary_tokens
        sizes = [(len(g), sum(t for _, t in g)) for g in groups]
        n = select_eviction(self.profile, sizes, fixed=fixed + reserve, incoming=incoming_tokens,
                            window=self.window, limit=self.limit,
                            assistant_first=[g[0][0].role == "assistant" for g in groups])
        evict = groups[:n]
        remaining = self._messages_used - sum(t for _, t in sizes[:n])
        if fixed + max(reserve, self._summary_used) + remaining + incoming_tokens > self.limit:
            kept = sum(t for _, t in protected) if protected else 0
            if core_tokens is not None:
                raise ContextOverflowError(
                    f"core memory would take {core_tokens} tokens: with the system prompt "
                    f"({self._system_used}) and the summary reserve ({reserve}) it cannot fit the "
                    f"{self.limit}-token limit of the window even with every message evicted: edit "
                    "undone. Condense the block with core_memory_replace or move details to "
                    "archival_memory_insert."
                )
            raise ContextOverflowError(
                f"a message of {incoming_tokens} tokens cannot fit: the window is {self.window} "
                f"tokens, system + core memory take {self._fixed}, the summary reserve "
                f"{reserve}, and {kept} belong to the tool call it answers. Split the message, "
                "archive it with archival_memory_insert, or use a bigger window."
            )
        if not evict:
            return None
        items = [item for group in evict for item in group]
        return items, self._new_summary([m for m, _ in items])

    def _plan_after_append(self, message: Message, tokens: int):
        """The flush a profile that evicts *after* appending (Letta's) would make once `message` is in,
        planned before anything changes, so a summarizer that raises leaves the context as it was."""
        self._queue.append((message, tokens))
        self._messages_used += tokens
        try:
            return self._plan_flush(incoming=None, incoming_tokens=0)
        finally:
            self._queue.pop()
            self._messages_used -= tokens

    def _apply_flush(self, plan) -> list[Event]:
        """Carry out a plan from _plan_flush; nothing in here can fail."""
        if plan is None:
            return []
        items, (summary, tokens, note) = plan
        new: list[Event] = []
        for message, tokens_of_message in items:
            self._queue.popleft()
            self._messages_used -= tokens_of_message
            new.append(self._event("evict", f"{message.role} message #{message.id} out of main context (still in recall storage)", message))
        if summary != self.summary or note:
            self.summary, self._summary_used = summary, tokens
            new.append(self._event("summarize", f"summary now {tokens} tokens{note}", None))
        new.append(self._event("flush", f"evicted {len(items)} messages, prompt now {self.used} tokens", None))
        self._warned = False
        return new

    def _new_summary(self, evicted: list[Message]) -> tuple[str, int, str]:
        """(summary, its tokens in the prompt, note) after folding in `evicted`."""
        budget = max(0, self.summary_tokens - self._summary_frame)
        summary = self.summarizer.summarize(self.summary, evicted, budget)
        if not isinstance(summary, str):
            raise TypeError(f"{self.summarizer!r} returned {type(summary).__name__}, expected a str")
        tokens = self._summary_piece_tokens(summary)
        note = ""
        if tokens > self.summary_tokens:
            # Over the reserve: the summarizer ignored its budget, or kept to it and the tags
            # around it merged differently at its edges (a token or two). Never overflow the
            # window: keep the newest lines that fit, then the first words of the last one
            # (a one-line summary must not vanish for a token), and say so in the event.
            returned = self.counter(summary)
            summary = fit_newest_lines(summary.splitlines(), budget)
            while summary and self._summary_piece_tokens(summary) > self.summary_tokens:
                summary = (summary.split("\n", 1)[1] if "\n" in summary
                           else summary.rsplit(" ", 1)[0] if " " in summary.strip() else "")
            why = f"over its {budget}" if returned > budget else f"{budget} allowed, but over the reserve once framed"
            note = f" (summarizer returned {returned} tokens, {why}; truncated)"
            tokens = self._summary_piece_tokens(summary)
        return summary, tokens, note

    def _summary_piece_tokens(self, summary: str) -> int:
        return self.counter(_summary_piece(summary)) if summary else 0

    def _check_pressure(self) -> list[Event]:
        if self._warned or self.warn_at is None or self.used < self.warn_at * self.window:
            return []
        self._warned = True
        return [self._event("pressure", f"memory pressure: {self.pressure:.0%} of the window in use", None)]

    def _event(self, kind: str, detail: str, message: Message | None) -> Event:
        return Event(kind, detail, message, self.used, self.window)

    # -- the prompt ----------------------------------------------------------
    def render(self) -> str:
        """The prompt as text: system, core memory, summary, then the queue.

        Its token count is exactly `used`.
        """
        parts = [_system_piece(self.system_prompt)]
        if self._core_memory is not None:
            parts.append(_core_piece(self._core_memory.render()))
        if self.summary:
            parts.append(_summary_piece(self.summary))
        parts += [_message_line(m) for m, _ in self._queue]
        return "".join(parts)

    def __len__(self) -> int:
        return len(self._queue)

    def __repr__(self) -> str:
        return (f"MainContext({self.used}/{self.window} tokens, {len(self._queue)} messages, "
                f"summary {self._summary_used} tokens, {len(self.recall)} in recall)")


# -- the pieces of the prompt ---------------------------------------------------
# Each starts with a non-space character and ends with a newline, so their token
# counts add up exactly to the count of the rendered prompt (see the module docstring).


def _system_piece(system_prompt: str) -> str:
    return f"<system>\n{system_prompt}\n</system>\n"


def _core_piece(core_text: str) -> str:
    return f"<core_memory>\n{core_text}\n</core_memory>\n"


def _summary_piece(summary: str) -> str:
    return f"<summary>\n{summary}\n</summary>\n"


def _message_line(message: Message) -> str:
    return f"[{message.role}] {message.content}\n"


def _attach(core_memory, context: MainContext) -> None:
    attach = getattr(core_memory, "attach", None)
    if callable(attach):
        attach(context)


def _detach(core_memory, context: MainContext) -> None:
    detach = getattr(core_memory, "detach", None)
    if callable(detach):
        detach(context)
