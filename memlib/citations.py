"""Citations: every answer that rests on archival memory names the records it used.

A `Citation` carries a record's provenance (id, session, turn, source url);
`cite` attaches citations to an answer and `verify` lists what is wrong with a
cited answer (nothing cited, an id the store does not know, provenance that
does not match, a record that does not support the answer). Support is judged
by shared words only: this module does not check meaning, truth or trust.

Example:
    >>> from memlib.archival import ArchivalStore
    >>> store = ArchivalStore()
    >>> record = store.insert("The user's sister is called Maya", session_id="s2", turn_id=14)
    >>> answer = cite("Your sister is called Maya.", [record])
    >>> print(answer)
    Your sister is called Maya. [arc-000001 · session s2 turn 14]
    >>> verify(answer, store)
    []
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from memlib._util import check_fraction, is_int, shorten
from memlib.retrieval import ANALYZERS

# Support is judged on words, not retrieval stems, so the messages quote the answer's own words.
_words = ANALYZERS["unstemmed"]

__all__ = ["Citation", "CitedAnswer", "cite", "verify", "CITATION_PATTERN", "strip_citations",
           "answer_from_store", "question_terms", "NO_SUPPORT"]

#: Matches a formatted citation such as `[arc-000003 · session s2 turn 14]`;
#: group 1 is the record id.
CITATION_PATTERN = re.compile(r"\[([A-Za-z]+-\d+)(?: · [^\]]*)?\]")


@dataclass(frozen=True)
class Citation:
    """Where a piece of an answer came from.

    Example:
        >>> Citation("arc-000003", "s2", 14).format()
        '[arc-000003 · session s2 turn 14]'
    """

    record_id: str
    session_id: str | None = None
    turn_id: int | None = None
    source_url: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.record_id, str) or not self.record_id.strip():
            raise ValueError(f"record_id must be a non-empty str such as 'arc-000003', got {self.record_id!r}")
        if self.session_id is not None and not isinstance(self.session_id, str):
            raise TypeError(f"session_id must be a str or None, got {type(self.session_id).__name__}")
        if self.turn_id is not None and not is_int(self.turn_id):
            raise TypeError(f"turn_id must be an int or None, got {self.turn_id!r}")
        if self.source_url is not None and not isinstance(self.source_url, str):
            raise TypeError(f"source_url must be a str or None, got {type(self.source_url).__name__}")

    @classmethod
    def from_record(cls, record: Any) -> "Citation":
        """The citation for an archival record (or a search `Hit`, which wraps one)."""
        record = getattr(record, "record", record)  # a Hit carries its record
        if not hasattr(record, "id") or not isinstance(record.id, str):
            raise TypeError(
                f"cannot cite {type(record).__name__}: expected an ArchivalRecord or a Hit from archival search"
            )
        return cls(
            record_id=record.id,
            session_id=getattr(record, "session_id", None),
            turn_id=getattr(record, "turn_id", None),
            source_url=getattr(record, "source_url", None),
        )

    @classmethod
    def from_message(cls, message: Any) -> "Citation":
        """The citation for a message found in recall storage: `msg-000012`, turn = its id."""
        message_id = getattr(message, "id", None)
        if not is_int(message_id) or message_id < 0:
            raise TypeError(
                f"cannot cite {type(message).__name__}: expected a Message from recall storage (with an id >= 0)"
            )
        return cls(f"msg-{message_id:06d}", getattr(message, "session_id", None), message_id)

    def format(self) -> str:
        """`[arc-000003 · session s2 turn 14]`; parts that are unknown are left out."""
        where = []
        if self.session_id is not None:
            where.append(f"session {self.session_id}")
        if self.turn_id is not None:
            where.append(f"turn {self.turn_id}")
        parts = [self.record_id]
        if where:
            parts.append(" ".join(where))
        if self.source_url:
            parts.append(self.source_url)
        return "[" + " · ".join(parts) + "]"

    __str__ = format

    def __repr__(self) -> str:
        return f"Citation({self.format()})"


@dataclass(frozen=True)
class CitedAnswer:
    """An answer's text and the citations that back it."""

    text: str
    citations: tuple[Citation, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"answer text must be a str, got {type(self.text).__name__}")
        citations = tuple(self.citations)
        if not all(isinstance(c, Citation) for c in citations):
            raise TypeError("citations must be Citation objects; build them with Citation.from_record(record)")
        object.__setattr__(self, "citations", citations)

    @property
    def record_ids(self) -> list[str]:
        return [c.record_id for c in self.citations]

    def render(self) -> str:
        """The text followed by its formatted citations: what the user reads."""
        return " ".join([self.text, *(c.format() for c in self.citations)])

    __str__ = render

    def __repr__(self) -> str:
        text = shorten(self.text, 50)
        return f"CitedAnswer({text!r}, cites={self.record_ids})"


def cite(answer_text: str, records: Iterable[Any]) -> CitedAnswer:
    """Attach one citation per distinct record (records or search hits), in order."""
    if not isinstance(answer_text, str):
        raise TypeError(f"answer_text must be a str, got {type(answer_text).__name__}")
    if isinstance(records, (str, bytes)):
        raise TypeError("records must be a list of archival records or hits, not a string")
    citations: dict[str, Citation] = {}
    for record in records:
        citation = Citation.from_record(record)
        citations.setdefault(citation.record_id, citation)
    return CitedAnswer(answer_text, tuple(citations.values()))


def strip_citations(text: str) -> str:
    """`text` without its formatted citations, so their ids do not count as words."""
    return CITATION_PATTERN.sub("", text).strip()


def verify(answer: CitedAnswer, store: Any, min_support: float = 0.5) -> list[str]:
    """Problems with a cited answer; an empty list means it passes.

    `store` is anything with `in` and `.get(id)` (an ArchivalStore or a dict of
    records). Checks: at least one citation; every cited id exists; the
    citation's session and turn match the record's; every cited record shares
    a word with the answer; and together the cited records contain at least
    `min_support` of the answer's words (stopwords aside).
    """
    if not isinstance(answer, CitedAnswer):
        raise TypeError(f"verify expects a CitedAnswer (from cite(...)), got {type(answer).__name__}")
    check_fraction(min_support, "min_support")
    if not answer.citations:
        return ["the answer cites no records; cite the archival records it is based on with cite(answer, records)"]

    problems: list[str] = []
    answer_terms = set(_words(strip_citations(answer.text)))
    supported: set[str] = set()
    for citation in answer.citations:
        if citation.record_id not in store:
            problems.append(
                f"{citation.record_id} is not in the store; cite only ids returned by archival_memory_search"
            )
            continue
        record = store.get(citation.record_id)
        for field in ("session_id", "turn_id"):
            claimed, actual = getattr(citation, field), getattr(record, field, None)
            if claimed != actual:
                problems.append(
                    f"{citation.record_id}: citation says {field}={claimed!r} but the record has {actual!r}; "
                    "build citations with Citation.from_record(record)"
                )
        shared = answer_terms & set(_words(record.text))
        if answer_terms and not shared:
            problems.append(
                f"{citation.record_id} shares no words with the answer, so it does not support it; "
                "cite the record the answer came from"
            )
        supported |= shared
    if answer_terms and supported and len(supported) / len(answer_terms) < min_support:
        missing = sorted(answer_terms - supported)
        problems.append(
            f"the cited records contain {len(supported)} of the answer's {len(answer_terms)} words "
            f"(need {min_support:.0%}); unsupported: {', '.join(missing)}"
        )
    return problems


#: What an answer with no supporting record says instead of citing something.
NO_SUPPORT = "I could not find that in my memory."

# Words that say what kind of question it is, not what it is about.
_ASKING = frozenset("tell say know remember recall much many time please".split())
# A word found in more than this share of the records (the user's name) is no evidence of support.
COMMON_SHARE = 0.25
_DOC_FREQ: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def question_terms(question: str) -> set[str]:
    """The content words of a question: tokens minus question words and one-letter bits ("Ada's" -> ada)."""
    return {t for t in _words(question) if len(t) > 1 and t not in _ASKING}


def _common_terms(store: Any) -> set[str]:
    """Words in more than COMMON_SHARE of the store's records (recounted when the store's size changes)."""
    try:
        cached = _DOC_FREQ.get(store)
    except TypeError:  # not weak-referenceable: count every time
        cached = None
    size = len(store)
    if cached is None or cached[0] != size:
        counts: dict[str, int] = {}
        for record in store:
            for term in set(_words(record.text)):
                counts[term] = counts.get(term, 0) + 1
        common = {t for t, n in counts.items() if size >= 8 and n > COMMON_SHARE * size}
        cached = (size, common)
        try:
            _DOC_FREQ[store] = cached
        except TypeError:
            pass
    return cached[1]


def answer_from_store(question: str, store: Any, top_k: int = 5) -> CitedAnswer:
    """The citation contract's reference: answer from the best supporting record, or say there is none.

    Support is judged on the question's informative words: its content words
    minus those found in more than a quarter of the records (the user's name
    says nothing). A hit supports the question when it contains at least 60 %
    of them. The answer is the record's own text (an extractive answer) with
    its citation; with no support the answer is `NO_SUPPORT` and cites nothing.
    Shared words are a proxy: "half-size" still matches "size".
    """
    terms = question_terms(question)
    informative = (terms - _common_terms(store)) or terms
    need = max(1, math.ceil(0.6 * len(informative)))
    best, best_overlap = None, 0
    for hit in store.search(question, top_k=top_k):
        overlap = len(informative & set(_words(hit.record.text)))
        if overlap >= need and overlap > best_overlap:
            best, best_overlap = hit.record, overlap
    if best is None:
        return CitedAnswer(NO_SUPPORT)
    return cite(best.text, [best])
