"""Archival memory: the agent's disk for facts, searchable, with provenance.

Every record keeps where it came from (session, turn, source url, time) and a
trust label, so answers can cite it and a guard can refuse to obey it. The
store ranks with a pluggable scorer from `memlib.retrieval` (BM25 by default).
It lives in memory; `memlib.storage` keeps the same interface on SQLite.
"""

from __future__ import annotations

import dataclasses
import heapq
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterable, Iterator

from memlib._util import check_positive_int, is_int, shorten
from memlib._util import check_page, parse_when, utcnow  # kept importable from here: tools and notebooks use them
from memlib.retrieval import DEFAULT_ANALYZER, BM25Index, make_scorer, matching_docs, tokenize
from memlib.tables import MemoryArchivalTable, OnTable, warn_bad_rows

__all__ = ["ArchivalRecord", "ArchivalStore", "Hit", "Transition", "TRUST_LEVELS", "RECORD_STATES",
           "TRANSITIONS", "MAX_TEXT_CHARS"]

TRUST_LEVELS = ("trusted", "unverified", "untrusted")
#: Write states: "pending" waits for confirmation and is invisible to search.
RECORD_STATES = ("active", "pending", "rejected")
_GENERATED_ID = re.compile(r"arc-(\d{6,})")
MAX_TEXT_CHARS = 20_000


@dataclass(frozen=True)
class ArchivalRecord:
    """One archived fact with its provenance and its state.

    `state` says whether the record may be used: "active" (searchable), "pending"
    (written, waiting for confirmation: invisible to search) or "rejected".
    `valid_from` / `valid_to` bound when it is true; from `valid_to` on it is
    expired (superseded, when `superseded_by` names its successor) and search
    leaves it out, though it stays listable. `trust` is where it came from
    ("untrusted": whoever shows it must mark it, never state it as a fact).

    Example:
        >>> ArchivalRecord("arc-000001", "Ines prefers window seats", session_id="s1", turn_id=4)
        ArchivalRecord(arc-000001 [s1/4, unverified]: 'Ines prefers window seats')
    """

    id: str
    text: str
    tags: tuple[str, ...] = ()
    session_id: str | None = None
    turn_id: int | None = None
    source_url: str | None = None
    created_at: datetime = dataclasses.field(default_factory=utcnow)
    trust: str = "unverified"
    state: str = "active"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: str | None = None

    def __post_init__(self):
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"record id must be a non-empty str, got {self.id!r}")
        _check_text(self.text)
        tags: Iterable[str] = self.tags  # any iterable, by mistake a str: tupled below
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
            raise TypeError(f"tags must be a list of str, got {tags!r}")
        object.__setattr__(self, "tags", tuple(tags))
        for name in ("session_id", "source_url", "superseded_by"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str or None")
        if self.turn_id is not None and not is_int(self.turn_id):
            raise TypeError("turn_id must be an int or None")
        object.__setattr__(self, "created_at", parse_when(self.created_at, "created_at"))
        if self.trust not in TRUST_LEVELS:
            raise ValueError(f"trust must be one of {TRUST_LEVELS}, got {self.trust!r}")
        if self.state not in RECORD_STATES:
            raise ValueError(f"state must be one of {RECORD_STATES}, got {self.state!r}")
        for name in ("valid_from", "valid_to"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, parse_when(getattr(self, name), name))
        if self.valid_from is not None and self.valid_to is not None and self.valid_to < self.valid_from:
            raise ValueError(f"valid_to {self.valid_to} is before valid_from {self.valid_from}; "
                             "a record cannot stop being true before it starts")
        if self.superseded_by == self.id:
            raise ValueError(f"record {self.id!r} cannot supersede itself")

    def status(self, now: datetime | None = None) -> str:
        """What the record is at `now` (default: now), the first that applies:
        "pending", "rejected", "superseded", "expired", "untrusted" or "active"."""
        if self.state != "active":
            return self.state
        now = utcnow() if now is None else parse_when(now, "now")
        if self.valid_to is not None and self.valid_to <= now:
            return "superseded" if self.superseded_by else "expired"
        return "untrusted" if self.trust == "untrusted" else "active"

    def is_current(self, now: datetime | None = None) -> bool:
        """True if search may return it at `now`: active, and `now` inside [valid_from, valid_to)."""
        if self.state != "active":
            return False
        now = utcnow() if now is None else parse_when(now, "now")
        return ((self.valid_from is None or self.valid_from <= now)
                and (self.valid_to is None or now < self.valid_to))

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["tags"] = list(self.tags)
        d["created_at"] = self.created_at.isoformat()
        for name in ("valid_from", "valid_to"):
            d[name] = d[name].isoformat() if d[name] is not None else None
        # Fields at their defaults are left out: a plain record keeps the shape older files have.
        for name, default in _STATE_DEFAULTS.items():
            if d[name] == default:
                del d[name]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "ArchivalRecord":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown record fields {sorted(unknown)}; expected some of {sorted(known)}")
        return cls(**d)

    def __repr__(self) -> str:
        where = f"{self.session_id or '-'}/{self.turn_id if self.turn_id is not None else '-'}"
        text = shorten(self.text, 60)
        labels = ", ".join([self.trust] + ([self.state] if self.state != "active" else [])
                           + ([f"until {self.valid_to.isoformat()}"] if self.valid_to else []))
        return f"ArchivalRecord({self.id} [{where}, {labels}]: {text!r})"


_STATE_DEFAULTS = {"state": "active", "valid_from": None, "valid_to": None, "superseded_by": None}
#: What a transition may do; "insert" is logged for records written in a state other than
#: plain active, so the log says where a pending record came from.
TRANSITIONS = ("insert", "confirm", "reject", "expire", "supersede", "mark_untrusted")


@dataclass(frozen=True)
class Transition:
    """One logged change of a record's state: what, when, by whom, why.

    `before` and `after` are `ArchivalRecord.status` values at `at`; `by` names the
    actor ("user", "agent", "guard", "consolidation", "sleep-time", "rule:<name>").
    """

    record_id: str
    action: str
    before: str
    after: str
    at: datetime
    by: str = "user"
    reason: str = ""
    detail: str | None = None

    def __post_init__(self):
        if self.action not in TRANSITIONS:
            raise ValueError(f"action must be one of {TRANSITIONS}, got {self.action!r}")
        for name in ("record_id", "before", "after", "by", "reason"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {type(getattr(self, name)).__name__}")
        if not self.by.strip():
            raise ValueError("by must name who made the change, e.g. 'user' or 'rule:repeated-by-user'")
        if self.detail is not None and not isinstance(self.detail, str):
            raise TypeError("detail must be a str or None")
        object.__setattr__(self, "at", parse_when(self.at, "at"))

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["at"] = self.at.isoformat()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Transition":
        known = {f.name for f in dataclasses.fields(cls)}
        if set(d) - known:
            raise ValueError(f"unknown transition fields {sorted(set(d) - known)}")
        return cls(**d)

    def __repr__(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"Transition({self.record_id} {self.action} {self.before}->{self.after} by {self.by}{why})"


@dataclass(frozen=True)
class Hit:
    """A search result: the record, its score and its 0-based rank overall."""

    record: ArchivalRecord
    score: float
    rank: int

    def __repr__(self) -> str:
        return f"Hit(#{self.rank} {self.record.id} score={self.score:.3f})"


def _check_text(text) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("text is empty; archive a sentence that states a fact")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(
            f"text is {len(text):,} characters, over the {MAX_TEXT_CHARS:,} limit; "
            "split it into several records"
        )


class _DenseIds:
    """Wraps a memlib scorer so it sees dense ints 0, 1, 2, ... instead of record ids.

    Measured at 100k records: BM25Index searches 1.3x (quiet machine) to 4x (busy
    machine) faster with int doc ids than with string ids like "arc-000001": small
    ints hash to neighbouring slots, so the score dicts stay cache-friendly. The
    numbers follow insertion, so ties still break by insertion order and results
    are exactly those of the unwrapped scorer.
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self.num: dict[str, int] = {}
        self._ext: dict[int, str] = {}
        self._next = 0

    def add(self, doc_id: str, text: str) -> None:
        if doc_id in self.num:
            raise ValueError(f"doc_id {doc_id!r} is already in this index; remove it first")
        n = self._next
        self.inner.add(n, text)
        self._next += 1
        self.num[doc_id] = n
        self._ext[n] = doc_id

    def add_many(self, pairs: list[tuple[str, str]], tokens: dict[str, list[str]] | None = None) -> None:
        """Index many (id, text) pairs at once: what reopening a large store does. `tokens`
        ({id: tokens of the default analyzer}, e.g. kept by a table) are used instead of
        analysing the text again when the scorer analyses with that same default."""
        start = self._next
        numbered = [(start + i, text) for i, (_, text) in enumerate(pairs)]
        inner = self.inner
        if (tokens and isinstance(inner, BM25Index) and inner.analyzer in (tokenize, DEFAULT_ANALYZER)
                and all(doc_id in tokens for doc_id, _ in pairs)):
            inner.add_many(numbered, [tokens[doc_id] for doc_id, _ in pairs])
        elif hasattr(inner, "add_many"):
            inner.add_many(numbered)
        else:
            for n, text in numbered:
                inner.add(n, text)
        for (doc_id, _), (n, _) in zip(pairs, numbered):
            self.num[doc_id] = n
            self._ext[n] = doc_id
        self._next += len(pairs)

    def remove(self, doc_id: str) -> None:
        n = self.num.pop(doc_id)
        self.inner.remove(n)
        del self._ext[n]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        ext = self._ext
        return [(ext[n], score) for n, score in self.inner.search(query, k)]

    def score(self, query: str, doc_id: str) -> float:
        return self.inner.score(query, self.num[doc_id])

    def matching(self, query: str) -> set[str]:
        ext = self._ext
        return {ext[n] for n in matching_docs(self.inner, query)}

    def __len__(self) -> int:
        return len(self.num)


class ArchivalStore(OnTable):
    """Archival memory: records with provenance and states, ranked by a `memlib.retrieval` scorer.

    The store owns the rules (validation, ids, duplicates, states, the index);
    its rows live in a table (`memlib.tables`): memory by default, a SQLite file
    with `memlib.storage.SQLiteArchivalStore`, a PostgreSQL server with
    `PostgresArchivalStore`. Every read first picks up what other connections
    to the same table committed. Search returns only records that are active
    and valid now; every record stays listable (`get`, iteration, `pending`).

    Example:
        >>> store = ArchivalStore()
        >>> rec = store.insert("Ines prefers window seats on long flights", session_id="s1")
        >>> [h.record.id for h in store.search("which seat does Ines like")]
        ['arc-000001']
    """

    #: Where search finds its candidates: memlib's own index ("index"), or the table's
    #: full-text index (a backend that has one names it, e.g. "fts5").
    candidates = "index"

    def __init__(self, scorer: str | Callable = "bm25", page_size: int = 5,
                 clock: Callable[[], datetime] = utcnow, next_id: int = 1, *, table=None):
        check_positive_int(page_size, "page_size")
        check_positive_int(next_id, "next_id")
        self.scorer_name = scorer if isinstance(scorer, str) else getattr(scorer, "__name__", repr(scorer))
        self._index = _DenseIds(make_scorer(scorer) if isinstance(scorer, str) else scorer())
        if self.candidates != "index" and not callable(getattr(self._index.inner, "score", None)):
            # _ranked scores the table's candidates one by one
            raise ValueError(f"candidates={self.candidates!r} needs a scorer with score(query, doc_id); "
                             f"{self._index.inner!r} has none")
        self.page_size = page_size
        self._clock = clock
        self._records: dict[str, ArchivalRecord] = {}
        self._history: list[Transition] = []
        # ids search must look at twice: not active, or with a validity interval
        self._hidden: set[str] = set()
        self._taken: set[str] = set()  # ids of rows the table could not read
        self.bad_rows: list = []
        self._next = next_id
        self._attach(table if table is not None else MemoryArchivalTable())

    # -- the view: every read starts with `with self._current() as records:` -------

    def _view(self) -> dict[str, ArchivalRecord]:
        return self._records

    def _apply(self, changes) -> None:
        """Bring the view up to a table's report (other writers' commits, or the first load)."""
        for rid in changes.removed:
            self._forget(rid)
        if changes.reset and not self._records:
            self._index.add_many([(r.id, r.text) for r in changes.rows], changes.tokens)
            for record in changes.rows:
                self._records[record.id] = record
                self._track(record)
        else:
            for record in changes.rows:
                self._put(record)
        self._history.extend(changes.transitions)
        if changes.bad:
            self.bad_rows.extend(changes.bad)
            self._taken.update(b.id for b in changes.bad if isinstance(b.id, str))
            warn_bad_rows(self._table.name, changes.bad)
        self._next = self._next_after(changes.rows, changes.next_id)

    def _put(self, record: ArchivalRecord) -> None:
        old = self._records.get(record.id)
        if old is None or old.text != record.text:
            if old is not None:
                self._index.remove(record.id)
            self._index.add(record.id, record.text)
        self._records[record.id] = record
        self._track(record)

    def _track(self, record: ArchivalRecord) -> None:
        if record.state != "active" or record.valid_from is not None or record.valid_to is not None:
            self._hidden.add(record.id)
        else:
            self._hidden.discard(record.id)

    def _forget(self, rid: str) -> None:
        if self._records.pop(rid, None) is not None:
            self._index.remove(rid)
            self._hidden.discard(rid)

    def _next_after(self, records, table_next: int | None = None) -> int:
        """The id counter after `records`: past every generated-looking id (arc-NNNNNN),
        however it got in, so a deleted record's id is never handed out again."""
        numbers = [int(m.group(1)) + 1 for m in (_GENERATED_ID.fullmatch(r.id) for r in records) if m]
        return max([self._next, table_next or 1] + numbers)

    def _new_id(self) -> str:
        n = self._next
        while f"arc-{n:06d}" in self._records or f"arc-{n:06d}" in self._taken:
            n += 1
        return f"arc-{n:06d}"

    def _check_new(self, rid: str) -> None:
        if rid in self._records:
            raise ValueError(f"record id {rid!r} already exists; delete it first or pick a new id")
        if rid in self._taken:
            raise ValueError(f"record id {rid!r} belongs to a damaged row of {self._table.name}; pick a new id")

    def _write(self, action: str, plan: Callable[[], tuple]):
        """One transaction: catch up with other writers, `plan()` the change, write it, then
        (after the commit) apply it to the view. `plan` returns (result, [(row, is_new)],
        deleted ids, transitions)."""
        with self._lock:
            with self._table.write(action) as (writer, changes):
                if changes is not None:
                    self._apply(changes)
                result, rows, deleted, log = plan()
                next_id = self._next_after([row for row, _ in rows])
                for rid in deleted:
                    writer.delete(rid)
                for row, new in rows:
                    (writer.insert if new else writer.replace)(row)
                for transition in log:
                    writer.log(transition)
                if next_id != self._next:
                    writer.set_next_id(next_id)
            # Committed: only now does the view change, so it never runs ahead of the table.
            for rid in deleted:
                self._forget(rid)
            for row, _ in rows:
                self._put(row)
            self._history.extend(log)
            self._next = next_id
            return result

    # -- writes ---------------------------------------------------------------------

    def insert(self, text: str, *, tags=(), session_id=None, turn_id=None, source_url=None,
               created_at=None, trust="unverified", id=None, state="active", valid_from=None,
               valid_to=None, by: str | None = None, reason: str = "") -> ArchivalRecord:
        """Archive `text` with its provenance; returns the stored record.

        `state="pending"` writes a record that waits for `confirm` (invisible to
        search until then); such a write, or any write given `by`, is logged in
        `history` with who wrote it and why. Everything is checked before an id
        is taken: a refused insert burns none.
        """
        fields = dict(text=text, tags=tuple(tags) if not isinstance(tags, str) else tags,
                      session_id=session_id, turn_id=turn_id, source_url=source_url,
                      created_at=self._clock() if created_at is None else created_at, trust=trust,
                      state=state, valid_from=valid_from, valid_to=valid_to)
        ArchivalRecord(id="arc-check", **fields)
        if id is not None and (not isinstance(id, str) or not id):
            raise ValueError(f"record id must be a non-empty str, got {id!r}")
        logged = state != "active" or by is not None
        if logged:
            Transition("arc-check", "insert", "new", state, fields["created_at"], by or "agent", reason)

        def plan():
            rid = self._new_id() if id is None else id
            self._check_new(rid)
            record = ArchivalRecord(id=rid, **fields)
            log = [Transition(rid, "insert", "new", record.status(record.created_at), record.created_at,
                              by or "agent", reason)] if logged else []
            return record, [(record, True)], [], log

        return self._write("insert an archival record", plan)

    def add_record(self, record: ArchivalRecord) -> ArchivalRecord:
        """Store a ready-made record (from a dataset or a save); its id must be new."""
        return self.add_records([record])[0]

    def add_records(self, records, history=()) -> list[ArchivalRecord]:
        """Store many ready-made records (and their logged transitions) in ONE transaction:
        all of them or none. For loading a dataset or a save: one commit, not one per record."""
        records, history = list(records), list(history)
        for record in records:
            if not isinstance(record, ArchivalRecord):
                raise TypeError(f"expected an ArchivalRecord, got {type(record).__name__}")
        for transition in history:
            if not isinstance(transition, Transition):
                raise TypeError(f"expected a Transition, got {type(transition).__name__}")

        def plan():
            seen: set[str] = set()
            for record in records:
                self._check_new(record.id)
                if record.id in seen:
                    raise ValueError(f"record id {record.id!r} appears twice; nothing was added")
                seen.add(record.id)
            return records, [(r, True) for r in records], [], history

        return self._write(f"add {len(records)} archival record(s)", plan)

    def delete(self, id: str) -> ArchivalRecord:
        """Remove a record for good. Governed memory rarely wants this: `expire` and
        `supersede` keep the record listable with the reason it stopped being true."""

        def plan():
            record = self._get(id)
            return record, [], [id], []

        return self._write(f"delete archival record {id!r}", plan)

    def _transition(self, id: str, action: str, change: Callable[[ArchivalRecord], dict], *,
                    by: str, reason: str, detail: str | None = None) -> ArchivalRecord:
        Transition("arc-check", action, "-", "-", utcnow(), by, reason, detail)  # check by/reason first

        def plan():
            old = self._get(id)
            now = self._clock()
            new = dataclasses.replace(old, **change(old))
            log = Transition(id, action, old.status(now), new.status(now), now, by, reason, detail)
            return new, [(new, False)], [], [log]

        return self._write(f"{action} archival record {id!r}", plan)

    def confirm(self, id: str, *, by: str = "user", reason: str = "") -> ArchivalRecord:
        """A pending record becomes active (searchable). ValueError if it is not pending."""
        return self._transition(id, "confirm", lambda r: {"state": "active"} if _pending(r, "confirm") else {},
                                by=by, reason=reason)

    def reject(self, id: str, *, by: str = "user", reason: str = "") -> ArchivalRecord:
        """A pending record is refused: it stays listable as rejected, never searchable."""
        return self._transition(id, "reject", lambda r: {"state": "rejected"} if _pending(r, "reject") else {},
                                by=by, reason=reason)

    def expire(self, id: str, at=None, *, by: str = "user", reason: str = "") -> ArchivalRecord:
        """The record stops being true at `at` (default: now); search leaves it out from then on."""
        def change(record):
            end = self._clock() if at is None else parse_when(at, "at")
            if record.state != "active":
                raise ValueError(f"record {record.id!r} is {record.state}; confirm it before expiring it")
            if record.valid_from is not None and end < record.valid_from:
                raise ValueError(f"cannot expire {record.id!r} at {end}: it only becomes valid at "
                                 f"{record.valid_from}; pick an end after its start")
            return {"valid_to": end}

        return self._transition(id, "expire", change, by=by, reason=reason)

    def supersede(self, old_id: str, new_id: str, *, by: str = "user", reason: str = "") -> ArchivalRecord:
        """`new_id` replaces `old_id`: the old record ends when the new one was written and
        names its successor; it stays listable. Returns the old record as it is now."""
        def change(old):
            new = self._get(new_id)
            if new.id == old.id:
                raise ValueError(f"record {old.id!r} cannot supersede itself")
            if old.superseded_by is not None:
                raise ValueError(f"record {old.id!r} is already superseded by {old.superseded_by!r}")
            if new.superseded_by == old.id:
                raise ValueError(f"{new.id!r} is itself superseded by {old.id!r}; supersede in one direction")
            end = max(new.created_at, old.created_at, old.valid_from or old.created_at)
            if old.valid_to is not None:
                end = min(end, old.valid_to)
            return {"valid_to": end, "superseded_by": new.id}

        return self._transition(old_id, "supersede", change, by=by, reason=reason, detail=new_id)

    def mark_untrusted(self, id: str, *, by: str = "user", reason: str = "") -> ArchivalRecord:
        """The record comes back marked as untrusted from now on (never as a plain fact)."""
        return self._transition(id, "mark_untrusted", lambda r: {"trust": "untrusted"}, by=by, reason=reason)

    # -- reads ------------------------------------------------------------------------

    def _visible(self, record: ArchivalRecord, now: datetime, include_expired: bool, looking_back: bool) -> bool:
        """May search return `record` at `now`? Looking back (an explicit as_of) also hides
        what was only written later."""
        if looking_back and record.created_at > now:
            return False
        if record.id not in self._hidden:
            return True
        return record.state == "active" and (include_expired or record.is_current(now))

    def _filter(self, ids, records, as_of, include_expired: bool):
        """The ids (in their order) that search may return; the clock is read once, and only
        when some record could be hidden."""
        looking_back = as_of is not None
        if not looking_back and not self._hidden:
            return list(ids)
        now = parse_when(as_of, "as_of") if looking_back else self._clock()
        return [rid for rid in ids if self._visible(records[rid], now, include_expired, looking_back)]

    def _ranked(self, query: str, k: int) -> list[tuple[str, float]]:
        if self.candidates == "index":
            return self._index.search(query, k)
        found = self._table.candidates(tokenize(query))
        num, score = self._index.num, self._index.score
        # Same order as the index: best score first, then earliest insertion.
        best = heapq.nsmallest(k, ((-score(query, rid), num[rid], rid) for rid in found if rid in num))
        return [(rid, -neg) for neg, _, rid in best]

    def search(self, query: str, top_k: int | None = None, page: int = 0, *,
               as_of=None, include_expired: bool = False) -> list[Hit]:
        """Page `page` of the best matches, `top_k` (default: page_size) per page.

        Only active records valid at `as_of` (default: now, by the store's clock)
        come back; `include_expired=True` adds the expired and superseded ones.
        Untrusted records do come back: `hit.record.trust` says so.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        top_k = check_page(top_k, page, self.page_size)
        if as_of is not None:
            parse_when(as_of, "as_of")  # a bad date fails before anything is ranked
        with self._current() as records:
            start = page * top_k
            # Hidden records may take places in the ranking: ask for that many more (looking
            # back, any record may be hidden).
            extra = len(records) if as_of is not None else len(self._hidden)
            ranked = dict(self._ranked(query, start + top_k + extra))
            shown = [(rid, ranked[rid]) for rid in self._filter(ranked, records, as_of, include_expired)]
            return [Hit(records[rid], score, start + i) for i, (rid, score) in enumerate(shown[start:start + top_k])]

    def matching(self, query: str, *, as_of=None, include_expired: bool = False) -> set:
        """Every searchable record sharing a word with `query` (counted, not ranked: cheap)."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        if as_of is not None:
            parse_when(as_of, "as_of")
        with self._current() as records:
            return set(self._filter(self._index.matching(query), records, as_of, include_expired))

    def _get(self, id: str) -> ArchivalRecord:
        try:
            return self._records[id]
        except (KeyError, TypeError):
            raise KeyError(f"no archival record {id!r}; search first and use an id from the results") from None

    def get(self, id: str) -> ArchivalRecord:
        """The record `id`, whatever its state."""
        with self._current():
            return self._get(id)

    def pending(self) -> list[ArchivalRecord]:
        """Records waiting for confirmation, oldest first."""
        with self._current() as records:
            return sorted((r for r in records.values() if r.state == "pending"), key=lambda r: r.created_at)

    def history(self, id: str | None = None) -> list[Transition]:
        """The logged transitions (of record `id`, or of all records), oldest first."""
        with self._current():
            if id is not None:
                found = [t for t in self._history if t.record_id == id]
                if not found:
                    self._get(id)  # an unknown id is an error, a record with no log an empty list
                return found
            return list(self._history)

    def list_since(self, when) -> list[ArchivalRecord]:
        """Records created at or after `when` (datetime or ISO string), oldest first, any state."""
        since = parse_when(when)
        with self._current() as records:
            return sorted((r for r in records.values() if r.created_at >= since), key=lambda r: r.created_at)

    @property
    def clock(self) -> Callable[[], datetime]:
        """The store's clock: it stamps new records and transitions, and says what "now" is."""
        return self._clock

    @property
    def next_id(self) -> int:
        """The number the next generated id gets; saved with the store so a
        deleted record's id is never handed out again (citations may name it)."""
        with self._current():
            return self._next

    def __len__(self) -> int:
        with self._current() as records:
            return len(records)

    def __iter__(self) -> Iterator[ArchivalRecord]:
        with self._current() as records:
            return iter(list(records.values()))

    def __contains__(self, id) -> bool:
        with self._current() as records:
            try:
                return id in records
            except TypeError:
                return False

    def __repr__(self) -> str:
        return f"ArchivalStore({len(self)} records, scorer={self.scorer_name!r}, page_size={self.page_size})"


def _pending(record: ArchivalRecord, action: str) -> bool:
    if record.state != "pending":
        raise ValueError(f"cannot {action} {record.id!r}: it is {record.state}, not pending")
    return True
