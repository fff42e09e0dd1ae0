"""Archival memory: the agent's disk for facts, searchable, with provenance.

Every record keeps where it came from (session, turn, source url, time) and a
trust label, so answers can cite it and a guard can refuse to obey it. The
store ranks with a pluggable scorer from `memlib.retrieval` (BM25 by default).
It lives in memory; `memlib.storage` keeps the same interface on SQLite.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterator

from memlib._util import check_page, parse_when, utcnow  # kept importable from here: tools and notebooks use them

__all__ = ["ArchivalRecord", "ArchivalStore", "Hit", "TRUST_LEVELS", "MAX_TEXT_CHARS", "matching_docs"]

TRUST_LEVELS = ("trusted", "unverified", "untrusted")
_GENERATED_ID = re.compile(r"arc-(\d{6,})")
MAX_TEXT_CHARS = 20_000


@dataclass(frozen=True)
class ArchivalRecord:
    """One archived fact with its provenance.

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

    def __post_init__(self):
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"record id must be a non-empty str, got {self.id!r}")
        _check_text(self.text)
        tags = self.tags
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
            raise TypeError(f"tags must be a list of str, got {tags!r}")
        object.__setattr__(self, "tags", tuple(tags))
        if self.session_id is not None and not isinstance(self.session_id, str):
            raise TypeError("session_id must be a str or None")
        if self.turn_id is not None and (not isinstance(self.turn_id, int) or isinstance(self.turn_id, bool)):
            raise TypeError("turn_id must be an int or None")
        if self.source_url is not None and not isinstance(self.source_url, str):
            raise TypeError("source_url must be a str or None")
        object.__setattr__(self, "created_at", parse_when(self.created_at, "created_at"))
        if self.trust not in TRUST_LEVELS:
            raise ValueError(f"trust must be one of {TRUST_LEVELS}, got {self.trust!r}")

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["tags"] = list(self.tags)
        d["created_at"] = self.created_at.isoformat()
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
        text = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"ArchivalRecord({self.id} [{where}, {self.trust}]: {text!r})"


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


def matching_docs(index, query: str) -> set:
    """Every document of `index` sharing a token with `query`: what a search ranks, unranked.

    Reads the scorer's postings when it has them (memlib's scorers do), so counting
    the matches of a long query costs a set union, not a ranking of all of them.
    """
    from memlib.retrieval import tokenize

    postings = getattr(index, "_postings", None)
    if not isinstance(postings, dict):
        return {doc for doc, _ in index.search(query, k=max(len(index), 1))}
    found: set = set()
    for term in dict.fromkeys(tokenize(query)):
        docs = postings.get(term)
        if docs:
            found.update(docs)
    return found


class ArchivalStore:
    """An in-memory archival store ranked by a `memlib.retrieval` scorer.

    Example:
        >>> store = ArchivalStore()
        >>> rec = store.insert("Ines prefers window seats on long flights", session_id="s1")
        >>> [h.record.id for h in store.search("which seat does Ines like")]
        ['arc-000001']
    """

    def __init__(self, scorer: str | Callable = "bm25", page_size: int = 5,
                 clock: Callable[[], datetime] = utcnow, next_id: int = 1):
        from memlib.retrieval import make_scorer

        if not isinstance(page_size, int) or isinstance(page_size, bool) or page_size < 1:
            raise ValueError(f"page_size must be a positive int, got {page_size!r}")
        self.scorer_name = scorer if isinstance(scorer, str) else getattr(scorer, "__name__", repr(scorer))
        self._index = make_scorer(scorer) if isinstance(scorer, str) else scorer()
        self.page_size = page_size
        self._clock = clock
        if not isinstance(next_id, int) or isinstance(next_id, bool) or next_id < 1:
            raise ValueError(f"next_id must be a positive int, got {next_id!r}")
        self._records: dict[str, ArchivalRecord] = {}
        self._next = next_id

    @property
    def next_id(self) -> int:
        """The number the next generated id gets; saved with the store so a
        deleted record's id is never handed out again (citations may name it)."""
        return self._next

    def _new_id(self) -> str:
        while True:
            rid = f"arc-{self._next:06d}"
            self._next += 1
            if rid not in self._records:
                return rid

    def insert(self, text: str, *, tags=(), session_id=None, turn_id=None, source_url=None,
               created_at=None, trust="unverified", id=None) -> ArchivalRecord:
        """Archive `text` with its provenance; returns the stored record.

        Everything is checked before an id is taken: a refused insert burns none.
        """
        fields = dict(text=text, tags=tuple(tags) if not isinstance(tags, str) else tags,
                      session_id=session_id, turn_id=turn_id, source_url=source_url,
                      created_at=self._clock() if created_at is None else created_at, trust=trust)
        ArchivalRecord(id="arc-check", **fields)
        if id is not None and id in self._records:
            raise ValueError(f"record id {id!r} already exists; delete it first or pick a new id")
        return self.add_record(ArchivalRecord(id=self._new_id() if id is None else id, **fields))

    def add_record(self, record: ArchivalRecord) -> ArchivalRecord:
        """Store a ready-made record (from a dataset or a save); its id must be new."""
        if not isinstance(record, ArchivalRecord):
            raise TypeError(f"expected an ArchivalRecord, got {type(record).__name__}")
        if record.id in self._records:
            raise ValueError(f"record id {record.id!r} already exists; delete it first or pick a new id")
        self._index.add(record.id, record.text)
        self._records[record.id] = record
        generated = _GENERATED_ID.fullmatch(record.id)
        if generated:
            self._next = max(self._next, int(generated.group(1)) + 1)
        return record

    def search(self, query: str, top_k: int | None = None, page: int = 0) -> list[Hit]:
        """Page `page` of the best matches, `top_k` (default: page_size) per page."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        top_k = check_page(top_k, page, self.page_size)
        start = page * top_k
        ranked = self._index.search(query, k=start + top_k)
        return [Hit(self._records[doc_id], score, start + i)
                for i, (doc_id, score) in enumerate(ranked[start:])]

    def matching(self, query: str) -> set:
        """Every record sharing a word with `query` (counted, not ranked: cheap)."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        return matching_docs(self._index, query)

    def get(self, id: str) -> ArchivalRecord:
        try:
            return self._records[id]
        except (KeyError, TypeError):
            raise KeyError(f"no archival record {id!r}; search first and use an id from the results") from None

    def delete(self, id: str) -> ArchivalRecord:
        record = self.get(id)
        self._index.remove(id)
        del self._records[id]
        return record

    def list_since(self, when) -> list[ArchivalRecord]:
        """Records created at or after `when` (datetime or ISO string), oldest first."""
        since = parse_when(when)
        return sorted((r for r in self._records.values() if r.created_at >= since),
                      key=lambda r: r.created_at)

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[ArchivalRecord]:
        return iter(list(self._records.values()))

    def __contains__(self, id) -> bool:
        return id in self._records

    def __repr__(self) -> str:
        return f"ArchivalStore({len(self)} records, scorer={self.scorer_name!r}, page_size={self.page_size})"
