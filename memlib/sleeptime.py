"""Sleep-time consolidation: a second agent that tidies memory beside the primary one.

Letta splits the work in two: the primary agent talks and works, and a
sleep-time agent, sharing the same memory, reorganises it as a background task
every N turns of the primary agent (N = 5 by default). This module is that
second agent for the procedural memory of `memlib.procedures`; the course runs
it once an evening of its simulated days, because its scenario counts days of
coding, not turns, and one run per day keeps the timeline readable. A run, at a
given time:

1. merges restatements and changes of the same rule: for every rule name,
   the newest active record stays and each older active one is *superseded*
   by it (reason "restated" when the value is the same, "changed" when it is
   not). Nothing is deleted; the old records stay listable with their
   successor, and search leaves them out;
2. rewrites the core-memory block ``procedures`` from the confirmed rules, one
   line per rule (the primary agent only ever appended to it);
3. leaves pending rules alone and reports them: confirming is the user's or a
   course rule's decision, never the background agent's.

Every change goes through the store's transitions with ``by="sleep-time"``
and the run's time, and comes back as `TimelineEvent`s, so a timeline shows
both agents on the same memory. The decisions are keyed by rule name (exact,
cheap); `text_merges` shows what `memlib.consolidate`'s word-overlap pass
would decide on the same records, for comparison. Not here: any scheduling
(the caller says when a run happens), and editing blocks other than
``procedures``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from memlib.archival import parse_when
from memlib.consolidate import consolidate
from memlib.procedures import BLOCK_LINE, PROCEDURE_TAG, ProceduralMemory, Rule, TimelineEvent, rule_of

__all__ = ["SleepTimeAgent", "SleepRun", "BY", "text_merges", "next_session_view"]

#: The `by` of every transition this agent makes (a value STATES_SPEC lists).
BY = "sleep-time"


@dataclass(frozen=True)
class SleepRun:
    """What one run did (also available as timeline events)."""

    started: datetime
    finished: datetime
    superseded: tuple[tuple[str, str, str], ...]  # (old id, new id, reason)
    block_before: str
    block_after: str
    left_pending: tuple[str, ...]
    left_out: tuple[str, ...]  # rules that did not fit in the block

    def __repr__(self) -> str:
        return (f"SleepRun({self.started:%m-%d %H:%M}: {len(self.superseded)} superseded, block "
                f"{len(self.block_before)} -> {len(self.block_after)} chars, {len(self.left_pending)} still pending)")


class SleepTimeAgent:
    """Runs between sessions on the same ProceduralMemory (and so the same stores) as the primary agent.

    (Letta starts its sleep-time agent as a background task every N turns of the primary agent, 5 by
    default; this simulation runs it once per evening so the timeline stays readable.)

    `step` is the simulated time one action takes, so the timeline shows a run
    as a span rather than a point.

    Example:
        >>> from memlib.archival import ArchivalStore
        >>> from memlib.core_memory import CoreMemory
        >>> from memlib.procedures import ScenarioClock
        >>> clock = ScenarioClock("2026-07-06T09:00")
        >>> memory = ProceduralMemory(ArchivalStore(clock=clock), CoreMemory.default(), clock=clock)
        >>> old = memory.learn("test_command", "pytest -q", source="user")
        >>> clock.set("2026-07-07T09:00")
        >>> new = memory.learn("test_command", "pytest -q --stub", source="user")
        >>> [e.kind for e in SleepTimeAgent(memory).run("2026-07-07T19:00")]
        ['sleep_run', 'supersede', 'block_rewrite']
        >>> memory.core.get("procedures").value
        'test_command: pytest -q --stub [arc-000002 -/- user]'
    """

    def __init__(self, procedures: ProceduralMemory, *, step: timedelta = timedelta(seconds=30)) -> None:
        if not isinstance(procedures, ProceduralMemory):
            raise TypeError(f"procedures must be a ProceduralMemory, got {type(procedures).__name__}")
        if not isinstance(step, timedelta) or step <= timedelta(0):
            raise ValueError(f"step must be a positive timedelta, got {step!r}")
        self.procedures = procedures
        self.step = step
        self.runs: list[SleepRun] = []

    def plan(self) -> list[tuple[Rule, Rule, str]]:
        """(old, new, reason) for every older active record of a rule that has a newer one."""
        by_name: dict[str, list[Rule]] = {}
        for rule in self.procedures.rules():
            if rule.status == "active":
                by_name.setdefault(rule.name, []).append(rule)
        plan = []
        for name, rules in sorted(by_name.items()):
            newest = rules[-1]
            for old in rules[:-1]:
                reason = ("restated: same value" if old.value == newest.value
                          else f"changed: {old.value!r} -> {newest.value!r}")
                plan.append((old, newest, reason))
        return plan

    def run(self, at) -> list[TimelineEvent]:
        """One consolidation run starting at `at`; returns its timeline events.

        `at` must not be before the memory's clock (a run happens after what it
        tidies). On a bad `at` nothing is changed.
        """
        start = parse_when(at, "at")
        clock = self.procedures.clock
        if not hasattr(clock, "set"):
            raise TypeError("the sleep-time agent needs a clock it can set (memlib.workflow.ScenarioClock)")
        if start < clock():
            raise ValueError(f"a sleep-time run at {start} would be before the memory's clock ({clock()}); "
                             "runs happen after the session they tidy")
        events: list[TimelineEvent] = []
        now = start
        clock.set(now)
        block_before = self.procedures.core.get(self.procedures.label).value
        done = []
        for old, new, reason in self.plan():
            now += self.step
            clock.set(now)
            self.procedures.supersede(old.id, new.id, by=BY, reason=reason)
            done.append((old.id, new.id, reason))
            events.append(TimelineEvent(BY, now, "supersede", f"{old.name}: {old.id} -> {new.id} ({reason})",
                                        record_id=old.id))
        now += self.step
        clock.set(now)
        left_out = self.procedures.refresh_block()
        block_after = self.procedures.core.get(self.procedures.label).value
        lines = (len(block_before.splitlines()), len(block_after.splitlines()))
        events.append(TimelineEvent(BY, now, "block_rewrite",
                                    f"{self.procedures.label}: {lines[0]} -> {lines[1]} lines, "
                                    f"{len(block_before)} -> {len(block_after)} characters"))
        pending = tuple(r.id for r in self.procedures.pending())
        if pending:
            events.append(TimelineEvent(BY, now, "pending_left", f"{len(pending)} pending rule(s) left for the user: "
                                        + ", ".join(pending)))
        run = SleepRun(start, now, tuple(done), block_before, block_after, pending, tuple(r.id for r in left_out))
        self.runs.append(run)
        events.insert(0, TimelineEvent(BY, start, "sleep_run", f"run {len(self.runs)}: {len(done)} superseded, "
                                       "block rewritten", end=now))
        return events

    def __repr__(self) -> str:
        return f"SleepTimeAgent({len(self.runs)} runs on {self.procedures!r})"


def text_merges(procedures: ProceduralMemory, **options):
    """What `memlib.consolidate.consolidate` decides on the procedure records (word overlap, no names).

    Returns its Report; nothing is changed. Useful to see which restatements a
    text-only pass finds and which it misses or mislabels.
    """
    records = [r for r in procedures.archival if PROCEDURE_TAG in r.tags and r.status(procedures.clock()) != "rejected"
               and r.state != "pending"]
    return consolidate(records, **options)


def next_session_view(procedures: ProceduralMemory, queries, top_k: int = 5) -> dict:
    """What a new session sees: block lines, stale or duplicate lines, and stale/duplicate search hits.

    A line or hit is *stale* when its record is not the current one of its rule
    (an older value, or an older copy), and a *duplicate* when a rule already
    appeared higher in the same list.
    """
    current_ids = {rule.id for rule in procedures.current().values()}
    current_values = {rule.name: rule.value for rule in procedures.current().values()}
    block = procedures.core.get(procedures.label).value
    matches = (BLOCK_LINE.match(line.strip()) for line in block.splitlines() if line.strip())
    lines = [m for m in matches if m]
    seen, dup_lines, stale_lines = set(), 0, 0
    for m in lines:
        dup_lines += m["name"] in seen
        seen.add(m["name"])
        stale_lines += m["value"] != current_values.get(m["name"])
    hits = stale_hits = dup_hits = 0
    for query in queries:
        names: set[str] = set()
        for hit in procedures.archival.search(query, top_k=top_k):
            if PROCEDURE_TAG not in hit.record.tags:
                continue
            rule = rule_of(hit.record)
            hits += 1
            stale_hits += hit.record.id not in current_ids
            dup_hits += rule.name in names
            names.add(rule.name)
    return {"block_lines": len(lines), "block_chars": len(block), "duplicate_lines": dup_lines,
            "stale_lines": stale_lines, "search_hits": hits, "stale_hits": stale_hits, "duplicate_hits": dup_hits}
