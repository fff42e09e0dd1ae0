"""The assembled memory an agent works on: core memory, archival and recall storage, the main context.

`MemorySystem` holds the four parts together (one core memory and one recall
store, whether or not a `MainContext` is there) with the provenance stamped on
writes (session, turn), the clock, what `send_message` sent, and the optional
write rule (`memlib.governance`) with what the searches showed this turn.
`MemorySystem.create(window=...)` builds a complete one over fresh stores.

Not here: the tools that read and write it (`memlib.tools`, which re-exports
`MemorySystem`) or the loop that calls them (`memlib.agent`).

Example:
    >>> memory = MemorySystem.create(window=1024)
    >>> memory.core.get("human").value, len(memory.archival), len(memory.recall)
    ('', 0, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from memlib._util import utcnow
from memlib.archival import ArchivalRecord, ArchivalStore
from memlib.context import MainContext
from memlib.core_memory import CoreMemory, CoreMemoryError
from memlib.governance import Retrieved
from memlib.messages import Message
from memlib.recall import RecallStore

__all__ = ["MemorySystem", "PAGE_SIZE"]

#: Results per page, as in MemGPT.
PAGE_SIZE = 5


class MemorySystem:
    """Core memory, archival storage and recall storage (and the main context, when there is one).

    `session_id` and `turn_id` are the provenance stamped on archival inserts;
    the agent loop sets `turn_id` to the id of the user message it is handling.
    `outbox` collects what `send_message` sent.

    `write_rule` (a `memlib.governance.WriteRule`, default None: every write is
    applied at once) decides which memory writes wait for confirmation; for it,
    `retrieved` holds what the search tools showed since the last user message,
    and a user message that says a pending write again confirms it
    (`confirmed` lists those, as (id, by)).
    """

    def __init__(
        self,
        core: CoreMemory | None = None,
        archival: ArchivalStore | None = None,
        recall: RecallStore | None = None,
        context: MainContext | None = None,
        session_id: str | None = "s1",
        clock: Callable[[], datetime] | None = None,
        write_rule: Any = None,
    ) -> None:
        if write_rule is not None and not callable(getattr(write_rule, "decide", None)):
            raise TypeError(f"write_rule must have a decide(text, retrieved) method, got {type(write_rule).__name__}")
        if context is not None and not isinstance(context, MainContext):
            raise TypeError(f"context must be a MainContext or None, got {type(context).__name__}")
        if context is not None:
            # One truth: the context's core memory and recall store are the system's.
            if core is not None and context.core_memory is not None and core is not context.core_memory:
                raise ValueError("core and context.core_memory are different objects; pass only one of them")
            if recall is not None and recall is not context.recall:
                raise ValueError("recall and context.recall are different stores; pass only the context")
            if context.core_memory is None:
                context.core_memory = core if core is not None else CoreMemory.default()
                context.core_changed()  # count the adopted core memory now, not at the next append
            core, recall = context.core_memory, context.recall
        core = core if core is not None else CoreMemory.default()
        if not isinstance(core, CoreMemory):
            raise TypeError(f"core must be a CoreMemory, got {type(core).__name__}")
        self.clock = clock if clock is not None else utcnow
        archival = archival if archival is not None else ArchivalStore(page_size=PAGE_SIZE, clock=self.clock)
        if not isinstance(archival, ArchivalStore):
            raise TypeError(f"archival must be an ArchivalStore, got {type(archival).__name__}")
        recall = recall if recall is not None else RecallStore(page_size=PAGE_SIZE)
        if not isinstance(recall, RecallStore):
            raise TypeError(f"recall must be a RecallStore, got {type(recall).__name__}")
        if session_id is not None and not isinstance(session_id, str):
            raise TypeError(f"session_id must be a str or None, got {type(session_id).__name__}")
        self.core, self.archival, self.recall, self.context = core, archival, recall, context
        self.session_id = session_id
        self.turn_id: int | None = None
        self.outbox: list[str] = []
        self.write_rule = write_rule
        self.retrieved: list = []
        self.confirmed: list[tuple[str, str]] = []

    @classmethod
    def create(
        cls,
        window: int = 4096,
        core: CoreMemory | None = None,
        session_id: str | None = "s1",
        clock: Callable[[], datetime] | None = None,
        write_rule: Any = None,
        **context_options: Any,
    ) -> "MemorySystem":
        """A complete system: a MainContext of `window` tokens over fresh stores."""
        core = core if core is not None else CoreMemory.default()
        context = MainContext(window=window, core_memory=core, **context_options)
        return cls(context=context, session_id=session_id, clock=clock, write_rule=write_rule)

    def append_message(self, message: Message) -> list:
        """Record a message: into the context (which hands it to recall) or straight into recall.

        Stamps the time from `clock` and the session when the message has none,
        so a fixed clock gives a reproducible conversation. Returns context events.
        """
        changes: dict[str, Any] = {}
        if message.timestamp is None:
            changes["timestamp"] = self.clock()
        if message.session_id is None and self.session_id is not None:
            changes["session_id"] = self.session_id
        if changes:
            message = message.replace(**changes)
        if self.context is not None:
            events = self.context.append(message)
        else:
            self.recall.add(message)
            events = []
        if message.role == "user":
            # A new turn: what the tools showed before is no longer "read this turn".
            self.retrieved = []
            if self.write_rule is not None and hasattr(self.write_rule, "user_repeats"):
                self._confirm_repeated(message.content)
        return events

    def _confirm_repeated(self, user_text: str) -> None:
        """Confirm the pending writes the user has just said again in their own message."""
        by = f"rule:{getattr(self.write_rule, 'name', 'write-rule')}-user-repeated"
        for edit in self.core.pending():
            if self.write_rule.user_repeats(user_text, edit.content):
                try:
                    self.core.confirm(edit.id, by=by, reason="the user said it again")
                except CoreMemoryError:
                    continue  # it no longer fits or applies: it stays pending, for a person to decide
                self.confirmed.append((edit.id, by))
        for record in self.archival.pending():
            if self.write_rule.user_repeats(user_text, record.text):
                self.archival.confirm(record.id, by=by, reason="the user said it again")
                self.confirmed.append((record.id, by))

    def _write_decision(self, text: str):
        """What the write rule says about writing `text` now (None: no rule, apply)."""
        if self.write_rule is None:
            return None
        decision = self.write_rule.decide(text, list(self.retrieved))
        return decision if decision.pending else None

    def saw(self, items) -> None:
        """Remember what a search showed the agent this turn (for the write rule)."""
        for item in items:
            if isinstance(item, ArchivalRecord):
                self.retrieved.append(Retrieved(item.id, item.text, item.trust))
            else:
                self.retrieved.append(Retrieved(f"msg #{item.id}", item.content))

    def __repr__(self) -> str:
        context = repr(self.context) if self.context is not None else "no context"
        return (
            f"MemorySystem({self.core!r}, {len(self.archival)} archival records, "
            f"{len(self.recall)} messages in recall, {context})"
        )
