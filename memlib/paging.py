"""Paging profiles: when an agent is warned, when eviction starts, and how much of the context goes.

A `PagingProfile` is one policy's numbers with their source; the rule that
chooses what to evict is an `EvictionRule`, one class per rule, registered
under the name a profile's `evict` gives (`EVICTIONS`). A profile selects its
eviction (`select_eviction`), describes itself, and saves and loads as a plain
dict (`to_dict`, `from_dict`), so a save holds any profile, not only the named
ones of `PROFILES`. A new eviction rule is one subclass of `EvictionRule`.

Not here: the context that applies a profile (`memlib.context.MainContext`,
which re-exports all of this) or anything about what a summary keeps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from memlib._util import check_int_at_least, is_number, shown

__all__ = ["PagingProfile", "PROFILES", "select_eviction", "EvictionRule", "EVICTIONS", "EVICTION_RULES",
           "SLIDING_WINDOW_STEP"]

#: Letta's sliding window grows its share of messages by this much before each try
#: (letta-ai/letta 56ba9c25, letta/services/summarizer/summarizer_sliding_window.py).
SLIDING_WINDOW_STEP = 0.10
TRIGGERS = ("before_append", "after_append")


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
      by count; "partial_evict" (Letta's older v2 loop) keeps the newest
      `amount` of the messages by count, its cut moved forward to where an
      assistant message begins what is kept; "sliding_window" (Letta's default compaction) evicts a share of
      the messages by count that starts at `amount` + 10 % and grows by 10 %
      per try, cuts where an assistant message begins what is kept, and stops
      once what is kept fits under (1 - `amount`) x window (no such cut: every
      message goes). `keep_last` newest messages are never chosen by the profile.
    - `source`: where the numbers come from, so the course can say whose they are.

    The eviction rule named by `evict` is an `EvictionRule` (`eviction`): it selects
    what goes and describes itself. `to_dict` and `from_dict` save and load a profile.

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
        for what in ("name", "source", "trigger", "evict"):
            if not isinstance(getattr(self, what), str):
                raise TypeError(f"{what} must be a str, got {shown(getattr(self, what))}")
        for what in ("trigger_at", "amount") + (("warn_at",) if self.warn_at is not None else ()):
            if not is_number(getattr(self, what)):
                raise TypeError(f"{what} must be a number, got {shown(getattr(self, what))}")
        if self.trigger not in TRIGGERS:
            raise ValueError(f"trigger must be 'before_append' or 'after_append', got {self.trigger!r}")
        if self.evict not in EVICTIONS:
            raise ValueError(f"evict must be one of {', '.join(map(repr, EVICTIONS))}, got {self.evict!r}")
        if not 0 < self.amount < 1 or not 0 < self.trigger_at <= 1:
            raise ValueError(f"need 0 < amount < 1 and 0 < trigger_at <= 1, got {self.amount}, {self.trigger_at}")
        if self.warn_at is not None and not 0 < self.warn_at <= 1:
            raise ValueError(f"warn_at must be in (0, 1] or None, got {self.warn_at}")
        check_int_at_least(self.keep_last, 0, "keep_last")

    @property
    def eviction(self) -> EvictionRule:
        """The rule that chooses what this profile evicts."""
        return EVICTIONS[self.evict]

    @property
    def flush_at(self) -> float:
        """The share of the window the next message may not pass (1.0 when eviction comes after appending)."""
        return self.trigger_at if self.trigger == "before_append" else 1.0

    @property
    def evict_to(self) -> float | None:
        """The share of the window eviction brings the prompt back to; None when the rule aims at no such share."""
        return self.eviction.evict_to(self)

    def select_eviction(self, group_sizes: list[tuple[int, int]], *, fixed: int, incoming: int, window: int,
                        limit: int, assistant_first: list[bool] | None = None) -> int:
        """How many of the oldest eviction units go (see the module function `select_eviction`)."""
        tokens = [t for _, t in group_sizes]
        n = self.eviction.select(self, group_sizes, fixed=fixed, incoming=incoming, window=window,
                                 assistant_first=assistant_first)
        # The profile's share may leave no room for the next message: take more, oldest first.
        remaining = sum(tokens) - sum(tokens[:n])
        while n < len(tokens) and fixed + remaining + incoming > limit:
            remaining -= tokens[n]
            n += 1
        return n

    def to_dict(self) -> dict[str, Any]:
        """The profile as JSON-ready data; `from_dict` reads it back."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> PagingProfile:
        """A profile from `to_dict`'s data; a missing or unknown field is a ValueError naming it."""
        if not isinstance(data, dict):
            raise TypeError(f"a paging profile is a dict of its fields, got {shown(data)}")
        fields = [f.name for f in dataclasses.fields(cls)]
        required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
        missing = [name for name in required if name not in data]
        unknown = sorted(set(data) - set(fields), key=str)
        if missing or unknown:
            raise ValueError(f"a paging profile needs the fields {', '.join(required)} (and may have keep_last); "
                             f"missing {missing or 'none'}, unknown {unknown or 'none'}")
        return cls(**data)

    def __repr__(self) -> str:
        warn = "no warning" if self.warn_at is None else f"warn {self.warn_at:.0%}"
        keep = f", keep last {self.keep_last}" if self.keep_last else ""
        when = "next message would pass" if self.trigger == "before_append" else "usage passes"
        return f"PagingProfile({self.name}: {warn}; when {when} {self.trigger_at:.0%}, {self.eviction.describe(self)}{keep})"


# -- the eviction rules: one class each ------------------------------------------------------

#: Every eviction rule by the name a profile's `evict` gives, in the order they were defined.
EVICTIONS: dict[str, EvictionRule] = {}


class EvictionRule:
    """How a profile chooses what to evict. A subclass names itself (`name`) and is registered.

    `select` returns how many of the oldest units go before the room for the next
    message is made (the profile does that part); `describe` says what it does in
    words; `evict_to` and `target_line` are the share of the window it brings the
    prompt back to, when it has one, and the line a figure draws for it.
    """

    name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.name or cls.name in EVICTIONS:
            raise ValueError(f"an eviction rule needs a name of its own, got {cls.name!r}")
        EVICTIONS[cls.name] = cls()

    def select(self, profile: PagingProfile, group_sizes: list[tuple[int, int]], *, fixed: int, incoming: int,
               window: int, assistant_first: list[bool] | None) -> int:
        raise NotImplementedError

    def describe(self, profile: PagingProfile) -> str:
        raise NotImplementedError

    def evict_to(self, profile: PagingProfile) -> float | None:
        return None

    def target_line(self, profile: PagingProfile) -> tuple[float, str] | None:
        """(share of the window, label) of the level eviction aims at, or None."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _candidates(profile: PagingProfile, group_sizes: list[tuple[int, int]]) -> int:
    """How many of the oldest units may be chosen: those holding one of the newest keep_last messages may not."""
    candidates, kept = len(group_sizes), 0
    while candidates and kept < profile.keep_last:
        candidates -= 1
        kept += group_sizes[candidates][0]
    return candidates


class ToShare(EvictionRule):
    """The oldest messages go until the prompt is at `amount` x window (the MemGPT paper)."""

    name = "to_share"

    def select(self, profile, group_sizes, *, fixed, incoming, window, assistant_first):
        tokens = [t for _, t in group_sizes]
        n, target, remaining = 0, int(profile.amount * window), sum(tokens)
        while n < len(tokens) and fixed + remaining + incoming > target:
            remaining -= tokens[n]
            n += 1
        return n

    def describe(self, profile):
        return f"evict to {profile.amount:.0%} of the window"

    def evict_to(self, profile):
        return profile.amount

    def target_line(self, profile):
        return profile.amount, f"back to {profile.amount:.0%}"


class TokenShare(EvictionRule):
    """The oldest `amount` of the message tokens go (MemGPT's research code)."""

    name = "token_share"

    def select(self, profile, group_sizes, *, fixed, incoming, window, assistant_first):
        candidates, n = _candidates(profile, group_sizes), 0
        goal, freed = profile.amount * sum(t for _, t in group_sizes), 0
        while n < candidates and freed < goal:
            freed += group_sizes[n][1]
            n += 1
        return n

    def describe(self, profile):
        return f"evict oldest {profile.amount:.0%} of message tokens"


class CountShare(EvictionRule):
    """The oldest `amount` of the messages, by count, go (a rule for profiles of your own; no named profile uses it)."""

    name = "count_share"

    def select(self, profile, group_sizes, *, fixed, incoming, window, assistant_first):
        candidates, n = _candidates(profile, group_sizes), 0
        goal, gone = max(1, round(profile.amount * sum(c for c, _ in group_sizes))), 0
        while n < candidates and gone < goal:
            gone += group_sizes[n][0]
            n += 1
        return n

    def describe(self, profile):
        return f"evict oldest {profile.amount:.0%} of messages by count"


class PartialEvict(EvictionRule):
    """Letta's older v2 loop ("partial evict"): the newest `amount` of the messages by count stay.

    Letta counts its messages with the system message at index 0 (N of them), starts
    what it keeps at index round((1 - amount) x N) and moves that start *forward* to the
    first assistant message, so what is kept never begins with a tool result or a user
    turn; everything between the system message and that start is summarised. With
    amount 0.30: 6 of 9 messages go (N = 10), 7 of 10 (N = 11), 14 of 20 (N = 21).
    When no assistant message follows the start, Letta's summary fails and nothing
    goes; here nothing goes by this rule either (the profile then frees just enough room).
    """

    name = "partial_evict"

    def select(self, profile, group_sizes, *, fixed, incoming, window, assistant_first):
        start, total = 1, 1 + sum(c for c, _ in group_sizes)
        keep_from = round((1.0 - profile.amount) * total)
        for unit, (count, _) in enumerate(group_sizes):
            if start >= keep_from and (assistant_first is None or assistant_first[unit]):
                return min(unit, _candidates(profile, group_sizes))
            start += count
        return 0

    def describe(self, profile):
        return f"keep newest {profile.amount:.0%} of messages by count, from an assistant message"


class SlidingWindow(EvictionRule):
    """Letta's default compaction: a growing share by count, cut at an assistant message (`_sliding_window_cut`)."""

    name = "sliding_window"

    def select(self, profile, group_sizes, *, fixed, incoming, window, assistant_first):
        return _sliding_window_cut(profile.amount, group_sizes, fixed, window, assistant_first)

    def describe(self, profile):
        return (f"evict from {profile.amount + SLIDING_WINDOW_STEP:.0%} of messages by count, "
                f"cut at an assistant message, until under {1 - profile.amount:.0%}")

    def target_line(self, profile):
        keep = 1 - profile.amount
        return keep, f"what is kept fits under {keep:.0%}"


#: How a profile chooses what to evict (see PagingProfile and EVICTIONS).
EVICTION_RULES = tuple(EVICTIONS)

#: The paging policies the course compares; `source` says whose numbers they are (the
#: numbers themselves are registered in memlib.sources, which a test ties them to).
PROFILES = {
    "paper": PagingProfile(
        "paper", "MemGPT paper, arXiv:2310.08560 v2, section 2 (example values, 'e.g.')",
        warn_at=0.7, trigger="before_append", trigger_at=1.0, evict="to_share", amount=0.5),
    "memgpt": PagingProfile(
        "memgpt", "MemGPT research code 0.3.25, memgpt/constants.py: MESSAGE_SUMMARY_WARNING_FRAC, "
        "MESSAGE_SUMMARY_TRUNC_TOKEN_FRAC, MESSAGE_SUMMARY_TRUNC_KEEP_N_LAST",
        warn_at=0.75, trigger="before_append", trigger_at=1.0, evict="token_share", amount=0.75, keep_last=3),
    "letta": PagingProfile(
        "letta", "last Letta server's default agent, letta_v1_agent (letta-ai/letta 56ba9c25): "
        "SUMMARIZATION_TRIGGER_MULTIPLIER, CompactionSettings mode 'sliding_window' with "
        "sliding_window_percentage = partial_evict_summarizer_percentage, send_memory_warning_message=False",
        warn_at=None, trigger="after_append", trigger_at=0.9, evict="sliding_window", amount=0.30),
    # Letta's v2 loop summarises when the last response's tokens pass the window or the provider
    # reports an overflow; memlib never sends an overflowing prompt, so both are "the next message
    # would pass 100 %".
    "letta_v2": PagingProfile(
        "letta_v2", "Letta's older v2 agent loop (letta-ai/letta 56ba9c25, letta_agent_v2.py: summarises "
        "over 100 % of the window or on a provider overflow; services/summarizer/summarizer.py: "
        "'partial evict' keeps the newest partial_evict_summarizer_percentage of the messages)",
        warn_at=None, trigger="before_append", trigger_at=1.0, evict="partial_evict", amount=0.30),
}


def select_eviction(profile: PagingProfile, group_sizes: list[tuple[int, int]], *, fixed: int,
                    incoming: int, window: int, limit: int, assistant_first: list[bool] | None = None) -> int:
    """How many of the oldest eviction units the profile evicts.

    `group_sizes` lists each unit (a message, or a tool call with its results)
    oldest first as (messages, tokens). `fixed` is what cannot be evicted
    (system prompt, core memory, summary reserve), `incoming` the tokens of the
    message about to be added, `limit` the hard ceiling the prompt must stay under.
    `assistant_first[i]` says whether unit i begins with an assistant message
    (the only cut the "sliding_window" rule makes; by default every unit does).

    Example:
        >>> units = [(1, 100)] * 10                       # ten messages of 100 tokens
        >>> # Letta's v2 loop keeps the newest 30 % (round(0.7 x 11) = 8 is the first kept)
        >>> select_eviction(PROFILES["letta_v2"], units, fixed=0, incoming=0, window=1100, limit=1100)
        7
        >>> select_eviction(PROFILES["memgpt"], units, fixed=0, incoming=0, window=1100, limit=1100)
        7
        >>> # Letta's share counts its system message too: round(0.4 x 11) = 4 is the first kept
        >>> select_eviction(PROFILES["letta"], units, fixed=0, incoming=0, window=1100, limit=1100)
        3
    """
    return profile.select_eviction(group_sizes, fixed=fixed, incoming=incoming, window=window, limit=limit,
                                   assistant_first=assistant_first)


def _sliding_window_cut(keep_share: float, group_sizes: list[tuple[int, int]], fixed: int, window: int,
                        assistant_first: list[bool] | None) -> int:
    """Letta's sliding-window compaction, on memlib's units: how many of the oldest units go.

    Letta counts its messages with the system message at index 0 and tries, share after
    share, to keep everything from the last assistant message at or before index
    round(share x count), until the system prompt plus what is kept comes under
    keep_share x window; when no share works (or only the last message would stay) it
    summarises every message ("all" mode). Same arithmetic here, floats included.
    """
    starts, n_messages = [], 0  # Letta's index of each unit's first message
    for count, _ in group_sizes:
        starts.append(n_messages + 1)
        n_messages += count
    total = n_messages + 1
    suffix = [0] * (len(group_sizes) + 1)  # tokens of units i.. (what is kept when i units go)
    for i in range(len(group_sizes) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + group_sizes[i][1]
    goal = (1 - keep_share) * window
    share, cut, kept = keep_share, None, float(window)
    while kept >= goal and share < 1.0:
        share += SLIDING_WINDOW_STEP
        index = round(share * total)
        cuts = [u for u, start in enumerate(starts)
                if start <= index and (assistant_first is None or assistant_first[u])]
        if not cuts:
            continue
        cut = cuts[-1]
        kept = fixed + suffix[cut]
    if cut is None or share >= 1.0 or starts[cut] >= total - 1:
        return len(group_sizes)
    return cut
