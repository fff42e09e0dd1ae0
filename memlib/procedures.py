"""Procedural memory: the rules a coding agent learns about one repository, as archival records.

Procedures are named, identifier-like rules that change (the test command gains
a flag). `ProceduralMemory` keeps each as an archival record (tag ``procedure``
plus the rule's name) with its provenance (session, turn, and whether the user,
the agent, a tool or the reviewer said it), through the record states of
`memlib.archival`:

- a rule the user states enters *active*;
- a rule the agent infers, a tool result suggests or the reviewer writes
  enters *pending*, invisible to search, and becomes active when confirmed:
  by the user, or by a course rule (``rule:succeeded-twice``, ``rule:reviewer``);
- a changed rule supersedes the old one, which stays listable (`reconcile`).

Confirmed rules render into the core-memory block ``procedures``, one line per
rule with its record id (`BLOCK_LINE` reads such a line back). `TimelineEvent`
is what an agent did to this memory, and `ScenarioClock` the hand-set clock the
scenarios run on.

Not here: who learns the rules and the three-day scenario that exercises them
(`memlib.workflow`), and the cleanup between sessions (`memlib.sleeptime`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from memlib.archival import ArchivalRecord, ArchivalStore, parse_when
from memlib.core_memory import Block, CoreMemory, CoreMemoryError

__all__ = [
    "PROCEDURE_TAG", "BLOCK_LABEL", "BLOCK_LIMIT", "SOURCES", "CONFIRM_RULES", "BLOCK_LINE",
    "ScenarioClock", "TimelineEvent", "Candidate", "Rule", "ProceduralMemory",
    "rule_text", "rule_of", "rewrite_block",
]

PROCEDURE_TAG = "procedure"
BLOCK_LABEL = "procedures"
#: MemGPT's section limit; one rule is one line of 60 to 160 characters.
BLOCK_LIMIT = 2000
#: Who can state a rule, and the state it enters in.
SOURCES = {"user": "active", "assistant": "pending", "tool": "pending", "review": "pending"}
#: Trust label per source: the user and the reviewer are people on the team.
_TRUST = {"user": "trusted", "review": "trusted", "assistant": "unverified", "tool": "unverified"}
#: The confirmation rules this course defines (besides the user's word).
CONFIRM_RULES = {
    "rule:succeeded-twice": "the same test command exited 0 a second time",
    "rule:reviewer": "the reviewer wrote it in a review comment",
}
_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


class ScenarioClock:
    """A clock the scenario sets by hand, so every timestamp is reproducible.

    Example:
        >>> clock = ScenarioClock("2026-07-06T09:00")
        >>> clock.set("2026-07-06T09:05"); clock()
        datetime.datetime(2026, 7, 6, 9, 5)
    """

    def __init__(self, start) -> None:
        self.now = parse_when(start, "start")

    def __call__(self) -> datetime:
        return self.now

    def set(self, when) -> None:
        when = parse_when(when, "when")
        if when < self.now:
            raise ValueError(f"the clock cannot go back from {self.now} to {when}")
        self.now = when

    def __repr__(self) -> str:
        return f"ScenarioClock({self.now.isoformat()})"


@dataclass(frozen=True)
class TimelineEvent:
    """One thing an agent did to memory: who, when, what (what `memlib.viz.timeline` draws).

    `kind` is e.g. "session", "learn", "confirm", "reject", "block_append",
    "answer", "sleep_run", "supersede", "block_rewrite"; `end` is set for spans
    (a session, a sleep-time run).
    """

    who: str
    at: datetime
    kind: str
    what: str
    end: datetime | None = None
    record_id: str | None = None
    session_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.who, str) or not self.who:
            raise ValueError(f"who must be a non-empty str, e.g. 'primary' or 'sleep-time', got {self.who!r}")
        object.__setattr__(self, "at", parse_when(self.at, "at"))
        if self.end is not None:
            object.__setattr__(self, "end", parse_when(self.end, "end"))
            if self.end < self.at:
                raise ValueError(f"an event cannot end ({self.end}) before it starts ({self.at})")

    def __repr__(self) -> str:
        return f"TimelineEvent({self.at:%m-%d %H:%M} {self.who} {self.kind}: {self.what[:50]!r})"


# -- rules as records ----------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A rule the learner read in one message, before it is stored."""

    name: str
    value: str
    source: str
    context: str = ""  # the sentence or output it came from


@dataclass(frozen=True)
class Rule:
    """A procedure as stored: the record it lives in, read back."""

    name: str
    value: str
    record: ArchivalRecord
    source: str
    status: str

    @property
    def id(self) -> str:
        return self.record.id

    def line(self) -> str:
        """The rule as one line of the `procedures` block, with its source id."""
        where = f"{self.record.session_id or '-'}/{self.record.turn_id if self.record.turn_id is not None else '-'}"
        return f"{self.name}: {self.value} [{self.record.id} {where} {self.source}]"

    def __repr__(self) -> str:
        return f"Rule({self.name}={self.value[:40]!r}, {self.record.id}, {self.status})"


def _check_name(name) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"rule name must be dotted lowercase words like 'test_command' or 'path.auth', got {name!r}")
    return name


def rule_text(name: str, value: str, context: str = "") -> str:
    """The record text: "name: value" on the first line, what it came from on the second."""
    first = f"{name}: {value}"
    context = " ".join(context.split())
    if len(context) > 300:
        context = context[:299] + "…"
    return f"{first}\n{context}" if context and context != value else first


def rule_of(record: ArchivalRecord, now: datetime | None = None) -> Rule:
    """Read a procedure record back; ValueError when it is not one."""
    if PROCEDURE_TAG not in record.tags:
        raise ValueError(f"record {record.id} is not a procedure (no {PROCEDURE_TAG!r} tag)")
    first = record.text.split("\n", 1)[0]
    name, sep, value = first.partition(": ")
    if not sep or not _NAME.match(name) or not value.strip():
        raise ValueError(f"procedure record {record.id} does not start with 'name: value': {first!r}")
    source = next((t[len("from:"):] for t in record.tags if t.startswith("from:")), "unknown")
    return Rule(name, value, record, source, record.status(now))


def rewrite_block(core: CoreMemory, label: str, value: str) -> None:
    """Set block `label` to `value` through CoreMemory's atomic edits (all or nothing)."""
    block = core.get(label)
    if value == block.value:
        return
    if not block.value:
        core.append(label, value)
    elif not value:
        core.replace(label, block.value, "")
    else:
        core.replace(label, block.value, value)


class ProceduralMemory:
    """Learned rules in an archival store, shown in the core-memory block `procedures`.

    Example:
        >>> from memlib.archival import ArchivalStore
        >>> from memlib.core_memory import CoreMemory
        >>> clock = ScenarioClock("2026-07-06T09:00")
        >>> memory = ProceduralMemory(ArchivalStore(clock=clock), CoreMemory.default(), clock=clock)
        >>> rule = memory.learn("test_command", "pytest -q", source="tool", session_id="w1", turn_id=3)
        >>> rule.status, memory.lookup("test_command")
        ('pending', None)
        >>> memory.confirm(rule.id, by="rule:succeeded-twice").status
        'active'
        >>> memory.lookup("test_command").value
        'pytest -q'
    """

    def __init__(self, archival: ArchivalStore, core: CoreMemory, *, clock: Callable[[], datetime] | None = None,
                 label: str = BLOCK_LABEL, limit: int = BLOCK_LIMIT) -> None:
        if not isinstance(archival, ArchivalStore):
            raise TypeError(f"archival must be an ArchivalStore, got {type(archival).__name__}")
        if not isinstance(core, CoreMemory):
            raise TypeError(f"core must be a CoreMemory, got {type(core).__name__}")
        self.archival, self.core, self.label = archival, core, label
        # Default: the store's own clock (it has no public accessor), so states are judged at its time.
        self.clock = clock if clock is not None else archival.clock
        if label not in core:
            core.add_block(Block(label, "", limit=limit,
                                 description="confirmed working rules for this repository, one per line, with the "
                                             "archival record each came from"))

    # -- writing --------------------------------------------------------------------

    def learn(self, name: str, value: str, *, source: str, session_id: str | None = None,
              turn_id: int | None = None, context: str = "") -> Rule:
        """Store a rule as said once; pending unless the user said it. Nothing is merged here."""
        _check_name(name)
        if not isinstance(value, str) or not value.strip() or "\n" in value:
            raise ValueError(f"rule value must be a one-line, non-empty str, got {value!r}")
        if source not in SOURCES:
            raise ValueError(f"source must be one of {sorted(SOURCES)}, got {source!r}")
        if not isinstance(context, str):
            raise TypeError(f"context must be a str, got {type(context).__name__}")
        record = self.archival.insert(
            rule_text(name, value.strip(), context), tags=(PROCEDURE_TAG, name, f"from:{source}"),
            session_id=session_id, turn_id=turn_id, trust=_TRUST[source], state=SOURCES[source],
            by="user" if source == "user" else "agent", reason=f"stated by the {source}")
        return rule_of(record, self.clock())

    def confirm(self, record_id: str, *, by: str, reason: str = "") -> Rule:
        """Pending -> active, by the user or one of `CONFIRM_RULES`."""
        self._check_confirmer(by)
        self._procedure(record_id)
        return rule_of(self.archival.confirm(record_id, by=by, reason=reason or CONFIRM_RULES.get(by, "")),
                       self.clock())

    def reject(self, record_id: str, *, by: str = "user", reason: str = "") -> Rule:
        self._check_confirmer(by)
        self._procedure(record_id)
        self.archival.reject(record_id, by=by, reason=reason)
        return rule_of(self.archival.get(record_id), self.clock())

    def supersede(self, old_id: str, new_id: str, *, by: str, reason: str = "") -> Rule:
        """The newer record of the same rule replaces the older one (which stays listable)."""
        old, new = self._procedure(old_id), self._procedure(new_id)
        if old.name != new.name:
            raise ValueError(f"{old_id} is rule {old.name!r} and {new_id} is {new.name!r}; only the same rule "
                             "can supersede itself")
        self.archival.supersede(old_id, new_id, by=by, reason=reason)
        return rule_of(self.archival.get(old_id), self.clock())

    @staticmethod
    def _check_confirmer(by) -> None:
        if by != "user" and by not in CONFIRM_RULES:
            raise ValueError(f"a rule is confirmed by 'user' or one of {sorted(CONFIRM_RULES)}, got {by!r}")

    def _procedure(self, record_id: str) -> Rule:
        return rule_of(self.archival.get(record_id), self.clock())

    # -- reading --------------------------------------------------------------------

    def rules(self) -> list[Rule]:
        """Every procedure record, whatever its state, oldest first."""
        now = self.clock()
        found = [rule_of(r, now) for r in self.archival if PROCEDURE_TAG in r.tags]
        return sorted(found, key=lambda r: (r.record.created_at, r.id))

    def pending(self) -> list[Rule]:
        return [r for r in self.rules() if r.status == "pending"]

    def current(self) -> dict[str, Rule]:
        """The rule each name means now: its newest active record (keyed; no search involved)."""
        latest: dict[str, Rule] = {}
        for rule in self.rules():
            if rule.status == "active":
                latest[rule.name] = rule  # oldest first, so the last one wins
        return dict(sorted(latest.items()))

    def lookup(self, name: str) -> Rule | None:
        """The current rule called `name`, or None (a pending rule is not known yet)."""
        return self.current().get(_check_name(name))

    def find_pending(self, name: str, value: str) -> Rule | None:
        return next((r for r in self.pending() if r.name == name and r.value == value), None)

    def block_lines(self) -> list[str]:
        return [rule.line() for rule in self.current().values()]

    def render(self) -> tuple[str, list[Rule]]:
        """The block text from the current rules, and the rules left out to stay within the limit."""
        limit = self.core.get(self.label).limit
        kept: list[str] = []
        left_out: list[Rule] = []
        for rule in self.current().values():
            line = rule.line()
            if len("\n".join(kept + [line])) <= limit:
                kept.append(line)
            else:
                left_out.append(rule)
        return "\n".join(kept), left_out

    def refresh_block(self) -> list[Rule]:
        """Rewrite the block from the current rules; returns the rules that did not fit."""
        text, left_out = self.render()
        rewrite_block(self.core, self.label, text)
        return left_out

    def append_line(self, rule: Rule) -> bool:
        """The primary agent's hot path: one more line at the end of the block. False if it is full."""
        try:
            self.core.append(self.label, rule.line())
        except CoreMemoryError:
            return False
        return True

    def __repr__(self) -> str:
        rules = self.rules()
        states: dict[str, int] = {}
        for r in rules:
            states[r.status] = states.get(r.status, 0) + 1
        inner = ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
        return f"ProceduralMemory({len(rules)} records: {inner or 'empty'}; block {self.label!r})"


#: One line of the ``procedures`` block: "name: value [record-id where source]".
BLOCK_LINE = re.compile(r"^(?P<name>[a-z][a-z0-9_.]*): (?P<value>.*) \[(?P<id>\S+) (?P<where>\S+) (?P<source>\S+)\]$")
