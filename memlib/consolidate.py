"""Memory rot and consolidation: keep archival memory current, deduplicated and dated.

An agent writes to archival memory far more often than it cleans it. Old facts
("Ines takes the bus") stay next to the ones that replaced them ("Ines cycles
since the move"), restatements pile up, and search starts returning stale or
repeated records: memory rot. `consolidate(store)` is the periodic clean-up
(the job Letta gives its sleep-time agents): it walks the records oldest first,
compares each one with the live facts on the same subject, and either folds it
into a near-duplicate or lets it supersede an older fact. Nothing is deleted:
each record gets a validity interval (`valid_from`, `valid_to`), so
`Report.as_of(when)` answers "what was true then" (Zep's temporal idea) and
`Report.current_store()` searches only what is true now. Every merge carries
the evidence that triggered it, and `Report.invalidate` records an explicit
retraction (what Mem0's conflict step does with a language model).

Deliberately not here: language models or embeddings. The decisions use only
the records' text, tags and timestamps (same tags = same subject, idf-weighted
word overlap, and words that announce a change), so they are deterministic and
explainable, and they miss paraphrases that share no words. The dataset's
`supersedes` / `duplicate_of` links are never read here; `score_against_links`
uses them afterwards to grade the result.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Iterable, Sequence, cast

from memlib._util import check_fraction, check_positive_int, parse_when
from memlib.archival import ArchivalRecord, ArchivalStore
from memlib.retrieval import ANALYZERS

# Records are compared on words (plus the light _stem below), not retrieval stems, so the
# explanations quote real words.
_words = ANALYZERS["unstemmed"]

__all__ = [
    "CHANGE_CUES", "Merge", "Validity", "Report", "LinkScore",
    "consolidate", "similarity_tokens", "change_cue", "score_against_links",
    "current_fact_ranks", "rot_curve", "RotPoint", "measure_point",
]

#: Phrases that announce that a statement replaces an older one. A newer record
#: that contains one (when the older does not) supersedes instead of duplicating.
CHANGE_CUES = (
    "now", "moved", "changed", "instead", "replaced", "replacing", "no longer", "anymore",
    "slipped", "switched", "switching", "decided", "gave up", "sold", "raised", "lowered",
    "rebuilt", "since", "after the move", "from ... to",
)
_CUE_RE = re.compile(
    r"\b(now|moved|changed|instead|replaced|replacing|no longer|anymore|slipped|switched|"
    r"switching|decided|gave up|sold|raised|lowered|rebuilt|since|after the move)\b"
    r"|\bfrom\b.{1,30}?\bto\b",
    re.IGNORECASE,
)


def change_cue(text: str) -> str | None:
    """The first phrase in `text` that announces a change, or None.

    Example:
        >>> change_cue("Since the move, Ines cycles to work.")
        'Since'
        >>> change_cue("Ines takes the bus.") is None
        True
    """
    match = _CUE_RE.search(text)
    return match.group(0) if match else None


def _stem(token: str) -> str:
    # A crude suffix strip so "meetings" / "meeting" and "moves" / "moved" / "moving"
    # meet; consolidation wants a little stemming and readable words, not Snowball stems.
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        token = token[:-1]
    for suffix in ("ing", "ed"):
        if len(token) > len(suffix) + 2 and token.endswith(suffix):
            token = token[: -len(suffix)]
            break
    if len(token) > 3 and token.endswith("e"):
        token = token[:-1]
    return token


def similarity_tokens(text: str) -> frozenset[str]:
    """The word set two records are compared on: retrieval tokens, lightly stemmed.

    Example:
        >>> sorted(similarity_tokens("Ines moved the meetings")) == sorted(similarity_tokens("Ines moves meeting"))
        True
    """
    return frozenset(_stem(t) for t in _words(text))


# -- results --------------------------------------------------------------------


@dataclass(frozen=True)
class Merge:
    """One consolidation decision, with the evidence for it.

    kind: "duplicate" (`retired_id` restates `kept_id`; the newest wording is
    kept), "supersede" (`kept_id` replaces `retired_id` from its time on) or
    "invalidate" (`retired_id` was retracted by hand; `kept_id` is None).
    """

    kind: str
    kept_id: str | None
    retired_id: str
    at: datetime
    similarity: float = 0.0
    shared_terms: tuple[str, ...] = ()
    cue: str | None = None
    reason: str = ""
    subject: str = ""  # why the two count as the same subject, e.g. "same tags (home, places)"

    def explain(self) -> str:
        """One line a person can check against the two texts."""
        if self.kind == "invalidate":
            return f"invalidate {self.retired_id} at {self.at:%Y-%m-%d}: {self.reason}"
        terms = ", ".join(self.shared_terms[:6]) or "none"
        why = f"newer text says {self.cue!r}" if self.kind == "supersede" else "no change announced"
        subject = f"{self.subject}; " if self.subject else ""
        return (f"{self.kind:<9} {self.kept_id} <- {self.retired_id} at {self.at:%Y-%m-%d}: {subject}"
                f"overlap {self.similarity:.2f} (shared: {terms}); {why}")

    def __repr__(self) -> str:
        return f"Merge({self.kind}: {self.kept_id} <- {self.retired_id}, overlap {self.similarity:.2f})"


@dataclass(frozen=True)
class Validity:
    """When a record's statement holds: from `valid_from` until `valid_to` (None: still true).

    `replaced_by` names the record that superseded it or the newer restatement it
    was folded into (`status` says which), so provenance is never lost.
    """

    record_id: str
    valid_from: datetime
    valid_to: datetime | None = None
    status: str = "current"  # current | superseded | duplicate | invalidated
    replaced_by: str | None = None

    def holds_at(self, when: datetime) -> bool:
        return self.valid_from <= when and (self.valid_to is None or when < self.valid_to)

    def __repr__(self) -> str:
        until = f"{self.valid_to:%Y-%m-%d}" if self.valid_to else "now"
        by = f" by {self.replaced_by}" if self.replaced_by else ""
        return f"Validity({self.record_id} {self.valid_from:%Y-%m-%d}..{until}, {self.status}{by})"


@dataclass
class Report:
    """What `consolidate` decided: every merge, and a validity interval per record.

    `records` keeps every record (nothing is deleted). A duplicate cluster is
    represented by its newest member; its `valid_from` is the oldest member's.
    """

    records: dict[str, ArchivalRecord]
    validity: dict[str, Validity]
    merges: list[Merge] = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    # -- reading ------------------------------------------------------------
    def current_ids(self) -> list[str]:
        """Ids of the records that are true now, oldest first."""
        return [rid for rid, v in self.validity.items() if v.status == "current"]

    def current(self) -> list[ArchivalRecord]:
        return [self.records[rid] for rid in self.current_ids()]

    def as_of(self, when) -> list[ArchivalRecord]:
        """The facts that held at `when` (datetime or ISO string), one per duplicate cluster.

        A record holds from its `valid_from` until something superseded or
        invalidated it. For a duplicate cluster, the member written last before
        `when` speaks for the cluster.
        """
        when = parse_when(when)
        out: dict[str, ArchivalRecord] = {}
        for rid in self.validity:
            record = self.records[rid]
            if record.created_at > when:
                continue  # not written yet: the store could not know it
            head = self._cluster_head(rid)
            if not self.validity[head].holds_at(when):
                continue  # the cluster had not started, or was already replaced
            best = out.get(head)
            if best is None or (record.created_at, record.id) > (best.created_at, best.id):
                out[head] = record
        return sorted(out.values(), key=lambda r: (r.created_at, r.id))

    def _cluster_head(self, rid: str) -> str:
        """Follow duplicate links to the member that represents the cluster."""
        seen = set()
        while self.validity[rid].status == "duplicate" and rid not in seen:
            seen.add(rid)
            rid = cast(str, self.validity[rid].replaced_by)  # a duplicate always names its newer restatement
        return rid

    def history(self, record_id: str) -> list[ArchivalRecord]:
        """The chain of records that led to `record_id`: what it replaced, oldest first."""
        if record_id not in self.records:
            raise KeyError(f"no record {record_id!r} in this report; use an id from report.records")
        chain = [record_id]
        changed = True
        while changed:
            changed = False
            for merge in self.merges:
                if merge.kept_id == chain[0] and merge.retired_id not in chain:
                    chain.insert(0, merge.retired_id)
                    changed = True
        return [self.records[rid] for rid in chain]

    def members(self, record_id: str) -> list[ArchivalRecord]:
        """The records folded into `record_id`'s duplicate cluster (itself included), oldest first."""
        head = self._cluster_head(record_id)
        return [self.records[rid] for rid in self.validity if self._cluster_head(rid) == head]

    def merged_record(self, record_id: str) -> ArchivalRecord:
        """The cluster as one record: the newest wording, then the older wordings after it.

        Keeping the older wordings means a query phrased like any restatement
        still finds the fact; the id and provenance are the newest member's.
        """
        head = self.records[self._cluster_head(record_id)]
        others = [r.text for r in self.members(head.id) if r.id != head.id]
        if not others:
            return head
        return replace(head, text=head.text + " (also recorded as: " + " / ".join(others) + ")")

    def current_store(self, scorer: str = "bm25", page_size: int = 5,
                      merge_wording: bool = True) -> ArchivalStore:
        """A fresh ArchivalStore holding only what is true now: what search should see.

        With `merge_wording`, each duplicate cluster is one `merged_record`;
        without it, only the newest wording is kept.
        """
        store = ArchivalStore(scorer=scorer, page_size=page_size)
        for record in self.current():
            store.add_record(self.merged_record(record.id) if merge_wording else record)
        return store

    def explain(self, limit: int | None = None) -> str:
        """Every merge, one line each (the first `limit` if given)."""
        lines = [m.explain() for m in self.merges[:limit]]
        more = len(self.merges) - len(lines)
        if more > 0:
            lines.append(f"... and {more} more")
        return "\n".join(lines)

    def counts(self) -> dict[str, int]:
        counter = Counter(v.status for v in self.validity.values())
        return {k: counter.get(k, 0) for k in ("current", "superseded", "duplicate", "invalidated")}

    # -- explicit invalidation ------------------------------------------------
    def invalidate(self, record_id: str, at, reason: str) -> "Report":
        """Retract a record from `at` on (a user correction, a conflict found elsewhere).

        Returns a new Report; this one is unchanged. Only a current record can be
        invalidated: retract the newest member of a chain, not an old one.
        """
        if record_id not in self.validity:
            raise KeyError(f"no record {record_id!r}; pick one of report.current_ids()")
        v = self.validity[record_id]
        if v.status != "current":
            raise ValueError(f"{record_id} is already {v.status}; only a current record can be invalidated")
        when = parse_when(at, "at")
        if when < v.valid_from:
            raise ValueError(f"cannot invalidate {record_id} at {when}, before it became valid ({v.valid_from})")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("say why the record is retracted: reason must be a non-empty str")
        validity = dict(self.validity)
        validity[record_id] = replace(v, valid_to=when, status="invalidated")
        merges = self.merges + [Merge("invalidate", None, record_id, when, reason=reason.strip())]
        return Report(dict(self.records), validity, merges, dict(self.settings))

    def __repr__(self) -> str:
        c = self.counts()
        return (f"Report({len(self.records)} records: {c['current']} current, {c['superseded']} superseded, "
                f"{c['duplicate']} duplicates, {c['invalidated']} invalidated; {len(self.merges)} merges)")


# -- the consolidation pass -----------------------------------------------------------


def _records_of(store) -> list[ArchivalRecord]:
    if isinstance(store, ArchivalStore) or hasattr(store, "__iter__"):
        records = list(store)
    else:
        raise TypeError(f"consolidate takes an ArchivalStore or a list of ArchivalRecord, got {type(store).__name__}")
    for r in records:
        if not isinstance(r, ArchivalRecord):
            raise TypeError(f"expected ArchivalRecord items, got {type(r).__name__}")
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        raise ValueError("record ids must be unique; the list holds the same id twice")
    return records


def consolidate(store, *, duplicate_at: float = 0.2, supersede_at: float = 0.1,
                same_tags: bool = True, synonyms: dict[str, str] | None = None) -> Report:
    """Deduplicate and supersede the records of `store`; deterministic, nothing deleted.

    Records are visited oldest first (ties by id). Each one is compared with the
    records that are still current and were written before it; with
    `same_tags`, only records with exactly the same tags count as the same
    subject. The best match by idf-weighted word overlap decides:

    - if the new record announces a change (`change_cue`) that the old one does
      not, and the overlap is >= `supersede_at`: the new record supersedes the old
      one (the old one's `valid_to` becomes the new one's `created_at`);
    - else, if the overlap is >= `duplicate_at`: the two say the same thing; the
      newer wording represents the cluster and the cluster stays valid from the
      older record's time;
    - else the record is a new, independent fact.

    `store` is an ArchivalStore (in memory or SQLite) or a list of records.
    `synonyms` maps words to a shared stand-in before comparing (e.g.
    {"surgery": "gp"}), for subjects that are named in different words.

    Example:
        >>> from memlib.archival import ArchivalRecord as R
        >>> report = consolidate([
        ...     R("a", "Ines takes the number 7 bus to the office", tags=("home",), created_at="2026-01-05"),
        ...     R("b", "Since the move Ines cycles to the office", tags=("home",), created_at="2026-06-01")])
        >>> report.merges
        [Merge(supersede: b <- a, overlap 0.15)]
        >>> [r.id for r in report.as_of("2026-03-01")], report.current_ids()
        (['a'], ['b'])
    """
    for name, value in (("duplicate_at", duplicate_at), ("supersede_at", supersede_at)):
        check_fraction(value, name)
    if synonyms is None:
        synonyms = {}
    if not isinstance(synonyms, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in synonyms.items()):
        raise TypeError("synonyms must be a dict of word -> non-empty stand-in word, e.g. {'surgery': 'gp'}")
    synonyms = {k.lower(): v.lower() for k, v in synonyms.items()}
    records = sorted(_records_of(store), key=lambda r: (r.created_at, r.id))
    tokens: dict[str, frozenset[str]] = {}
    words: dict[str, dict[str, str]] = {}
    for r in records:
        words[r.id] = {}
        for token in _words(r.text):
            words[r.id].setdefault(_stem(synonyms.get(token, token)), token)
        tokens[r.id] = frozenset(words[r.id])
    df = Counter(t for toks in tokens.values() for t in toks)
    n = max(len(records), 1)
    # idf: a word shared by two records says more the rarer it is in the store.
    idf = {t: math.log(1 + n / c) for t, c in df.items()}

    def overlap(a: str, b: str) -> tuple[float, tuple[str, ...]]:
        shared = tokens[a] & tokens[b]
        union = tokens[a] | tokens[b]
        if not union:
            return 0.0, ()
        score = sum(idf[t] for t in shared) / sum(idf[t] for t in union)
        # Report the newer record's own words (not stems), rarest first, so a person can check them.
        ranked = sorted(shared, key=lambda t: (-idf[t], t))
        return score, tuple(words[a].get(t, t) for t in ranked)

    validity: dict[str, Validity] = {}
    merges: list[Merge] = []
    live: list[ArchivalRecord] = []  # current records (cluster heads), oldest first
    for record in records:
        best = None
        for old in live:
            if same_tags and set(old.tags) != set(record.tags):
                continue
            if old.created_at >= record.created_at:
                continue  # same instant: neither can be the older statement
            score, shared = overlap(record.id, old.id)
            if best is None or score > best[0]:
                best = (score, shared, old)
        validity[record.id] = Validity(record.id, record.created_at)
        live.append(record)
        if best is None:
            continue
        score, shared, old = best
        cue_new, cue_old = change_cue(record.text), change_cue(old.text)
        if cue_new and not cue_old and score >= supersede_at:
            kind = "supersede"
            validity[old.id] = replace(validity[old.id], valid_to=record.created_at,
                                       status="superseded", replaced_by=record.id)
        elif score >= duplicate_at:
            kind = "duplicate"
            # The cluster keeps its original start; the old record now points at the new wording.
            validity[record.id] = replace(validity[record.id], valid_from=validity[old.id].valid_from)
            validity[old.id] = replace(validity[old.id], status="duplicate", replaced_by=record.id)
        else:
            continue
        live.remove(old)
        subject = (f"same tags ({', '.join(record.tags)})" if record.tags else "both untagged") if same_tags \
            else "tags not compared"
        merges.append(Merge(kind, record.id, old.id, record.created_at, round(score, 4), shared,
                            cue_new if kind == "supersede" else None, subject=subject))
    settings = {"duplicate_at": duplicate_at, "supersede_at": supersede_at, "same_tags": same_tags,
                "synonyms": dict(synonyms)}
    return Report({r.id: r for r in records}, validity, merges, settings)


# -- grading a consolidation against known links -----------------------------------------


@dataclass(frozen=True)
class LinkScore:
    """How a Report's merges compare with known links (e.g. the dataset's fact_links)."""

    correct: tuple[tuple[str, str], ...]       # right pair, right kind
    wrong_kind: tuple[tuple[str, str], ...]    # right pair, duplicate/supersede mixed up
    unexpected: tuple[tuple[str, str], ...]    # merged, but no link says so
    missed: tuple[tuple[str, str], ...]        # a link the pass did not find
    total_links: int

    @property
    def precision(self) -> float:
        found = len(self.correct) + len(self.wrong_kind) + len(self.unexpected)
        return (len(self.correct) + len(self.wrong_kind)) / found if found else 1.0

    @property
    def recall(self) -> float:
        return (len(self.correct) + len(self.wrong_kind)) / self.total_links if self.total_links else 1.0

    def __repr__(self) -> str:
        return (f"LinkScore({len(self.correct)} correct, {len(self.wrong_kind)} wrong kind, "
                f"{len(self.unexpected)} unexpected, {len(self.missed)} missed of {self.total_links}; "
                f"pair precision {self.precision:.2f}, recall {self.recall:.2f})")


def score_against_links(report: Report, links: Iterable) -> LinkScore:
    """Compare merges with links `(kind, newer_id, older_id)` such as `datasets.load("fact_links")`.

    A link kind "supersedes" matches a "supersede" merge and "near_duplicate" a
    "duplicate" merge; a pair found with the other kind counts as `wrong_kind`.
    """
    kinds = {"supersedes": "supersede", "near_duplicate": "duplicate", "supersede": "supersede",
             "duplicate": "duplicate"}
    gold = {}
    for link in links:
        kind, new, old = (link.kind, link.fact_id, link.other_id) if hasattr(link, "fact_id") else link
        if kind not in kinds:
            raise ValueError(f"unknown link kind {kind!r}; expected 'supersedes' or 'near_duplicate'")
        gold[(new, old)] = kinds[kind]
    # an invalidation (the only merge without a kept record) links nothing
    found = {(m.kept_id, m.retired_id): m.kind for m in report.merges if m.kept_id is not None}
    correct = tuple(sorted(p for p, k in found.items() if gold.get(p) == k))
    wrong = tuple(sorted(p for p, k in found.items() if p in gold and gold[p] != k))
    unexpected = tuple(sorted(p for p in found if p not in gold))
    missed = tuple(sorted(p for p in gold if p not in found))
    return LinkScore(correct, wrong, unexpected, missed, len(gold))


# -- measuring rot ----------------------------------------------------------------------


def current_fact_ranks(store: ArchivalStore, queries: Sequence, depth: int = 50) -> list[int | None]:
    """For each query, the 1-based rank of its first relevant record in `store` (None: not in top `depth`).

    `queries` are objects with `.question` and `.relevant_ids` (memlib.datasets.Query).
    """
    ranks: list[int | None] = []
    for q in queries:
        hits = store.search(q.question, top_k=depth)
        relevant = set(q.relevant_ids)
        ranks.append(next((h.rank + 1 for h in hits if h.record.id in relevant), None))
    return ranks


@dataclass(frozen=True)
class RotPoint:
    """Retrieval quality for the current facts at one size of the store."""

    label: str
    records: int
    stale: int
    recall_at_1: float
    mrr: float
    stale_on_top: int  # queries whose top hit is a retired (superseded) record

    def __repr__(self) -> str:
        return (f"RotPoint({self.label}: {self.records} records ({self.stale} stale), "
                f"recall@1 {self.recall_at_1:.2f}, MRR {self.mrr:.2f}, stale on top {self.stale_on_top})")


def measure_point(label: str, store: ArchivalStore, queries: Sequence, stale_ids: Iterable[str],
                  depth: int = 50) -> RotPoint:
    """recall@1, MRR and "stale record on top" of `queries` on one store (see `rot_curve`)."""
    stale_ids = set(stale_ids)
    ranks = current_fact_ranks(store, queries, depth)
    top_stale = 0
    for q in queries:
        hits = store.search(q.question, top_k=1)
        if hits and hits[0].record.id in stale_ids:
            top_stale += 1
    n = max(len(queries), 1)
    return RotPoint(label, len(store), sum(1 for r in store if r.id in stale_ids),
                    sum(1 for r in ranks if r == 1) / n,
                    sum(1 / r for r in ranks if r) / n, top_stale)


def rot_curve(records: Sequence[ArchivalRecord], stale_ids: Iterable[str], queries: Sequence,
              steps: int = 4, depth: int = 50) -> list[RotPoint]:
    """Retrieval of current facts as stale records are added back, oldest first.

    Starts from `records` minus `stale_ids` (a clean store) and adds the stale
    records in `steps` equal batches in the order they were written, measuring
    recall@1 and MRR of the relevant (current) records of `queries` after each.
    """
    stale_ids = set(stale_ids)
    check_positive_int(steps, "steps")
    unknown = stale_ids - {r.id for r in records}
    if unknown:
        raise ValueError(f"stale ids not among the records: {sorted(unknown)[:5]}")
    clean = [r for r in records if r.id not in stale_ids]
    stale = sorted((r for r in records if r.id in stale_ids), key=lambda r: (r.created_at, r.id))
    store = ArchivalStore()
    for r in clean:
        store.add_record(r)
    points = [measure_point("clean", store, queries, stale_ids, depth)]
    added = 0
    for step in range(1, steps + 1):
        upto = round(len(stale) * step / steps)
        for r in stale[added:upto]:
            store.add_record(r)
        added = upto
        points.append(measure_point(f"+{added} stale", store, queries, stale_ids, depth))
    return points

