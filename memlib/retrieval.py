"""Lexical retrieval for archival and recall memory: two scorers and their registry.

Every scorer reads text through the analyzer, `memlib.analyzer` (`tokenize`, the
default `Analyzer`: Unicode words, lowercased, stopwords dropped, Snowball English
stems, CJK bigrams), which is re-exported here; keeping tokenization apart from
scoring is how bm25s is built too. `TokenOverlap` is the lesson's baseline (Jaccard over token sets); `BM25Index` is an
incremental inverted index with two idf variants that reproduce the reference
libraries: ``okapi`` matches ``rank_bm25.BM25Okapi`` and ``lucene`` (the default)
matches ``bm25s.BM25(method="lucene")``. Documents can be added and removed at any
time, because an agent writes to memory while it searches it.

`SCORERS` is the one list of scorers that stores, explorer, evaluation and figures read.

Deliberately not here: the analyzer's languages (see `memlib.analyzer`), phrase or fuzzy matching, embeddings, persistence
(see `memlib.storage`) and record metadata (see `memlib.archival`).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Iterable, Protocol, runtime_checkable

from memlib._util import check_positive_int, is_number
# The analyzer, re-exported: stores, notebooks and checks import tokenize from here.
from memlib.analyzer import (ANALYZER_ID, ANALYZERS, DEFAULT_ANALYZER, STOPWORDS, Analyzer,  # noqa: F401
                             tokenize, word_spans)


__all__ = [
    "STOPWORDS",
    "tokenize",
    "word_spans",
    "Scorer",
    "TokenOverlap",
    "BM25Index",
    "SCORER_NAMES",
    "SCORERS",
    "ScorerEntry",
    "register_scorer",
    "scorer_entry",
    "make_scorer",
    "Analyzer",
    "ANALYZERS",
    "DEFAULT_ANALYZER",
    "ANALYZER_ID",
    "matching_docs",
]

@runtime_checkable
class Scorer(Protocol):
    """What `memlib.archival` and `memlib.recall` need from a retrieval scorer."""

    def add(self, doc_id: Hashable, text: str) -> None: ...

    def remove(self, doc_id: Hashable) -> None: ...

    def search(self, query: str, k: int = 10) -> list[tuple[Hashable, float]]: ...

    def __len__(self) -> int: ...

    def __contains__(self, doc_id: object) -> bool: ...

    def matched_terms(self, query: str, doc_id: Hashable) -> list[str]: ...


# ---------------------------------------------------------------------------
# shared argument checks (same wording for both scorers)


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def _check_k(k: object) -> int:
    # bool is an int subclass; search(q, True) is almost certainly a mistake
    return check_positive_int(k, "k", "how many results to return")


def _check_doc_id(doc_id: object) -> None:
    try:
        hash(doc_id)
    except TypeError:
        raise TypeError(
            f"doc_id must be hashable (a str or int), got {type(doc_id).__name__}"
        ) from None


def _check_analyzer(analyzer: object) -> Callable[[str], list[str]]:
    if analyzer is None:
        return tokenize
    if isinstance(analyzer, str):
        try:
            return ANALYZERS[analyzer]
        except KeyError:
            raise ValueError(
                f"unknown analyzer {analyzer!r}; choose one of {', '.join(map(repr, ANALYZERS))}"
            ) from None
    if not callable(analyzer):
        raise TypeError(f"analyzer must be a name, an Analyzer or a function str -> list[str], "
                        f"got {type(analyzer).__name__}")
    return analyzer


def _checked_pairs(index, pairs, kind: str) -> list[tuple[Hashable, str]]:
    """(doc_id, text) pairs checked as `add` checks one, before any is added."""
    pairs = list(pairs)
    seen: set = set()
    for doc_id, text in pairs:
        _check_text(text, "text")
        _check_doc_id(doc_id)
        if doc_id in index or doc_id in seen:
            raise ValueError(f"doc_id {doc_id!r} is already in this {kind} (or twice in the batch); nothing was added")
        seen.add(doc_id)
    return pairs


def _dedupe(tokens: list[str]) -> list[str]:
    """Distinct tokens in first-seen order."""
    return list(dict.fromkeys(tokens))


class _DocTable:
    """Insertion sequence numbers shared by both scorers for tie-breaking."""

    def __init__(self) -> None:
        self._seq: dict[Hashable, int] = {}
        self._next_seq = 0

    def _register(self, doc_id: Hashable, kind: str) -> None:
        _check_doc_id(doc_id)
        if doc_id in self._seq:
            raise ValueError(
                f"doc_id {doc_id!r} is already in this {kind}; "
                f"call remove({doc_id!r}) first to replace its text"
            )
        self._seq[doc_id] = self._next_seq
        self._next_seq += 1

    def _unregister(self, doc_id: Hashable, kind: str) -> None:
        _check_doc_id(doc_id)
        if doc_id not in self._seq:
            raise KeyError(
                f"doc_id {doc_id!r} is not in this {kind} ({len(self._seq)} documents); "
                "check `doc_id in index` before removing"
            )
        del self._seq[doc_id]

    def _require(self, doc_id: Hashable, kind: str) -> None:
        _check_doc_id(doc_id)
        if doc_id not in self._seq:
            raise KeyError(
                f"doc_id {doc_id!r} is not in this {kind}; add it first or check `doc_id in index`"
            )

    def _top(self, scores: dict[Hashable, float], k: int) -> list[tuple[Hashable, float]]:
        # best score first, then the earliest insertion: a total, deterministic order
        # (the k-th best score first, in C, so sort keys are built only for the few
        # documents that reach it: a third of the time of one heap over them all)
        if not scores:
            return []
        theta = heapq.nlargest(k, scores.values())[-1]
        seq = self._seq
        best = sorted((-s, seq[d], d) for d, s in scores.items() if s >= theta)[:k]
        return [(d, -neg) for neg, _, d in best]

    def __len__(self) -> int:
        return len(self._seq)

    def __contains__(self, doc_id: object) -> bool:
        try:
            return doc_id in self._seq
        except TypeError:  # unhashable: certainly not a stored id
            return False


# ---------------------------------------------------------------------------


class TokenOverlap(_DocTable):
    """Jaccard similarity between token sets: |Q ∩ D| / |Q ∪ D|. The lesson's baseline.

    It ignores how often and how rarely words occur, which is what BM25 adds.

    Example:
        >>> s = TokenOverlap(); s.add("a", "cat named Biscuit"); s.add("b", "dog named Rex")
        >>> s.search("what is the cat named")
        [('a', 0.6666666666666666), ('b', 0.25)]
    """

    _KIND = "TokenOverlap"

    def __init__(self, analyzer: Callable[[str], list[str]] | None = None) -> None:
        super().__init__()
        self.analyzer = _check_analyzer(analyzer)
        self._doc_tokens: dict[Hashable, frozenset[str]] = {}
        # term -> doc ids containing it, so search only looks at candidate documents
        self._postings: dict[str, set[Hashable]] = {}

    def add(self, doc_id: Hashable, text: str) -> None:
        _check_text(text, "text")
        self._register(doc_id, self._KIND)
        tokens = frozenset(self.analyzer(text))
        self._doc_tokens[doc_id] = tokens
        for term in tokens:
            self._postings.setdefault(term, set()).add(doc_id)

    def add_many(self, pairs: Iterable[tuple[Hashable, str]]) -> None:
        """`add` for many (doc_id, text) pairs, all or none."""
        for doc_id, text in _checked_pairs(self, pairs, self._KIND):
            self.add(doc_id, text)

    def remove(self, doc_id: Hashable) -> None:
        self._unregister(doc_id, self._KIND)
        for term in self._doc_tokens.pop(doc_id):
            docs = self._postings[term]
            docs.discard(doc_id)
            if not docs:
                del self._postings[term]

    def score(self, query: str, doc_id: Hashable) -> float:
        """Jaccard similarity of the query and one stored document (0.0 if disjoint)."""
        q = frozenset(self.analyzer(_check_text(query, "query")))
        self._require(doc_id, self._KIND)
        d = self._doc_tokens[doc_id]
        union = len(q | d)
        return len(q & d) / union if union else 0.0

    def search(self, query: str, k: int = 10) -> list[tuple[Hashable, float]]:
        """Documents sharing at least one token with `query`, best first, at most `k`."""
        q = frozenset(self.analyzer(_check_text(query, "query")))
        k = _check_k(k)
        shared: Counter[Hashable] = Counter()
        for term in q:
            shared.update(self._postings.get(term, ()))
        nq = len(q)
        scores = {
            d: n / (nq + len(self._doc_tokens[d]) - n) for d, n in shared.items()
        }
        return self._top(scores, k)

    def matched_terms(self, query: str, doc_id: Hashable) -> list[str]:
        """Distinct query tokens found in the document, in query order."""
        q = _dedupe(self.analyzer(_check_text(query, "query")))
        self._require(doc_id, self._KIND)
        d = self._doc_tokens[doc_id]
        return [t for t in q if t in d]

    def __repr__(self) -> str:
        return f"TokenOverlap(docs={len(self)}, terms={len(self._postings)})"


# ---------------------------------------------------------------------------


def _move_df(hist: Counter, old: int, new: int) -> None:
    """One term's document frequency went from `old` to `new` (0 means absent)."""
    if old:
        hist[old] -= 1
        if not hist[old]:
            del hist[old]
    if new:
        hist[new] += 1


class BM25Index(_DocTable):
    """An incremental BM25 inverted index.

    score(q, d) = sum over query tokens t (repeats count each time) of
    idf(t) * tf_part(tf(t, d), |d|), with avgdl the mean document length.

    ``idf="okapi"`` (as rank_bm25.BM25Okapi):
        idf = ln(N - n + 0.5) - ln(n + 0.5); a negative idf is replaced by
        epsilon * (mean idf over the whole vocabulary);
        tf_part = tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)).
    ``idf="lucene"`` (as bm25s method="lucene", the default):
        idf = ln(1 + (N - n + 0.5) / (n + 0.5)), never negative;
        tf_part = tf / (tf + k1 * (1 - b + b * |d| / avgdl)).

    Search touches only the postings of the query terms and returns the documents
    that contain at least one of them, best first, ties broken by insertion order.

    Example:
        >>> ix = BM25Index(); ix.add("a", "cat named Biscuit"); ix.add("b", "dog named Rex")
        >>> [d for d, _ in ix.search("cat")]
        ['a']
    """

    IDF_KINDS = ("lucene", "okapi")
    # total postings length above which search prunes (see _search_pruned); below it
    # the bookkeeping costs more than reading every posting (5000, 2500, 1500 and 1000
    # measured on the benchmark corpus at 10k and 100k records: 2500 was fastest at 100k
    # by about a tenth and level at 10k)
    PRUNE_ABOVE = 2500

    def __init__(
        self, idf: str = "lucene", k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25,
        analyzer: Callable[[str], list[str]] | None = None,
    ) -> None:
        super().__init__()
        self.analyzer = _check_analyzer(analyzer)
        if idf not in self.IDF_KINDS:
            raise ValueError(
                f"unknown idf {idf!r}; choose one of {', '.join(map(repr, self.IDF_KINDS))}"
            )
        for name, value in (("k1", k1), ("b", b), ("epsilon", epsilon)):
            if not is_number(value):
                raise TypeError(f"{name} must be a number, got {type(value).__name__}")
            if not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value}")
        if k1 < 0:
            raise ValueError(f"k1 must be >= 0 (typical: 1.2-2.0), got {k1}")
        if not 0 <= b <= 1:
            raise ValueError(f"b must be between 0 and 1 (typical: 0.75), got {b}")
        self.kind = idf
        self.k1 = float(k1)
        self.b = float(b)
        self.epsilon = float(epsilon)
        self._postings: dict[str, dict[Hashable, int]] = {}  # term -> {doc_id: tf}
        self._doc_len: dict[Hashable, int] = {}
        self._doc_terms: dict[Hashable, tuple[str, ...]] = {}  # for remove()
        self._total_len = 0
        # {document frequency: number of terms with it}, kept for okapi only (lucene
        # needs no mean idf): its mean idf over the vocabulary then costs O(distinct
        # dfs) instead of O(vocabulary)
        self._df_hist: Counter[int] = Counter()
        self._mean_idf: float | None = None  # okapi only; cleared on every mutation
        self._norms: dict[int, float] = {}  # doc length -> k1*(1-b+b*dl/avgdl); ditto

    # -- mutation -----------------------------------------------------------

    def add(self, doc_id: Hashable, text: str) -> None:
        """Index `text` under `doc_id` (any hashable). O(tokens of the text)."""
        _check_text(text, "text")
        self._register(doc_id, "BM25Index")
        tokens = self.analyzer(text)
        counts = Counter(tokens)
        hist = self._df_hist if self.kind == "okapi" else None
        for term, tf in counts.items():
            posting = self._postings.get(term)
            if posting is None:
                posting = self._postings[term] = {}
            if hist is not None:
                _move_df(hist, len(posting), len(posting) + 1)
            posting[doc_id] = tf
        self._doc_len[doc_id] = len(tokens)
        self._doc_terms[doc_id] = tuple(counts)
        self._total_len += len(tokens)
        self._invalidate()

    def add_many(self, pairs: Iterable[tuple[Hashable, str]], tokens: list[list[str]] | None = None) -> None:
        """Index many (doc_id, text) pairs, all or none: `add` for each, with the
        per-document bookkeeping done once (reopening a 100k-record store uses this).
        `tokens`, one list per pair, are this index's analyzer's tokens of the texts,
        already computed (a store that kept them); they are used instead of analysing."""
        pairs = _checked_pairs(self, pairs, "BM25Index")
        if tokens is not None and len(tokens) != len(pairs):
            raise ValueError(f"{len(tokens)} token lists for {len(pairs)} documents; pass one per document")
        postings, doc_len, doc_terms, seq = self._postings, self._doc_len, self._doc_terms, self._seq
        analyze, total = self.analyzer, 0
        for i, (doc_id, text) in enumerate(pairs):
            seq[doc_id] = self._next_seq
            self._next_seq += 1
            tokens_i = analyze(text) if tokens is None else tokens[i]
            counts = Counter(tokens_i)
            for term, tf in counts.items():
                posting = postings.get(term)
                if posting is None:
                    posting = postings[term] = {}
                posting[doc_id] = tf
            doc_len[doc_id] = len(tokens_i)
            doc_terms[doc_id] = tuple(counts)
            total += len(tokens_i)
        self._total_len += total
        if self.kind == "okapi":
            self._df_hist = Counter(len(p) for p in postings.values())
        self._invalidate()

    def remove(self, doc_id: Hashable) -> None:
        """Forget `doc_id`. KeyError if it was never added (or already removed)."""
        self._unregister(doc_id, "BM25Index")
        hist = self._df_hist if self.kind == "okapi" else None
        for term in self._doc_terms.pop(doc_id):
            posting = self._postings[term]
            if hist is not None:
                _move_df(hist, len(posting), len(posting) - 1)
            del posting[doc_id]
            if not posting:
                del self._postings[term]
        self._total_len -= self._doc_len.pop(doc_id)
        self._invalidate()

    def _invalidate(self) -> None:
        # N and avgdl changed, so every idf and length norm did too
        self._mean_idf = None
        self._norms = {}

    # -- weights ------------------------------------------------------------

    def _raw_idf(self, df: int) -> float:
        n_docs = len(self._doc_len)
        if self.kind == "okapi":
            # written as a difference of logs, like rank_bm25, to agree to the last bit
            return math.log(n_docs - df + 0.5) - math.log(df + 0.5)
        return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))

    def _okapi_mean_idf(self) -> float:
        if self._mean_idf is None:
            vocab = len(self._postings)
            # summed in df order, so the mean (and every score) is bit-for-bit the same
            # whatever sequence of adds and removes produced this set of documents
            total = sum(n * self._raw_idf(df) for df, n in sorted(self._df_hist.items()))
            self._mean_idf = total / vocab if vocab else 0.0
        return self._mean_idf

    def _idf_of_df(self, df: int) -> float:
        w = self._raw_idf(df)
        # rank_bm25 floors only strictly negative values: an idf of exactly 0
        # (N == 2n) stays 0
        if self.kind == "okapi" and w < 0:
            w = self.epsilon * self._okapi_mean_idf()
        return w

    def idf(self, term: str) -> float:
        """The idf weight of one token (as `tokenize` produces it); 0.0 if no document has it."""
        _check_text(term, "term")
        posting = self._postings.get(term)
        return self._idf_of_df(len(posting)) if posting else 0.0

    def _norm(self, dl: int) -> float:
        norm = self._norms.get(dl)
        if norm is None:
            avgdl = self._total_len / len(self._doc_len)
            norm = self._norms[dl] = self.k1 * (1 - self.b + self.b * dl / avgdl)
        return norm

    def _term_weights(self, query_tokens: list[str]) -> list[tuple[dict[Hashable, int], float]]:
        """(postings, idf) for every query token present in the index, in query order."""
        out = []
        for term in query_tokens:
            posting = self._postings.get(term)
            if posting:
                out.append((posting, self._idf_of_df(len(posting))))
        return out

    # -- queries ------------------------------------------------------------

    def search(self, query: str, k: int = 10) -> list[tuple[Hashable, float]]:
        """Top `k` documents containing at least one query token, best first.

        Ties are broken by insertion order (earliest first). Empty query or no match: [].
        """
        query_tokens = self.analyzer(_check_text(query, "query"))
        k = _check_k(k)
        terms = self._term_weights(query_tokens)
        if not terms:
            return []
        distinct = {id(posting): posting for posting, _ in terms}
        work = sum(len(posting) for posting in distinct.values())
        if work <= self.PRUNE_ABOVE or len(distinct) == 1 or any(w < 0 for _, w in terms):
            # Short postings: reading them all is cheapest. One term: it has to be read
            # in full anyway. A negative weight (okapi with a negative mean idf, i.e. a
            # store of one or two documents) breaks pruning's "sums only grow" premise.
            return self._top(self._accumulate(terms), k)
        return self._search_pruned(terms, k)

    def _tf_part(self):
        """The per-posting function tf, norm -> tf part, in the reference's arithmetic order."""
        if self.kind == "okapi":
            k1p1 = self.k1 + 1
            return lambda tf, norm: tf * k1p1 / (tf + norm)
        return lambda tf, norm: tf / (norm + tf)

    def _accumulate(
        self,
        terms: list[tuple[dict[Hashable, int], float]],
        scores: dict[Hashable, float] | None = None,
    ) -> dict[Hashable, float]:
        """Add every posting of `terms` into `scores` (the full, exact term-at-a-time sum)."""
        if scores is None:
            scores = {}
        doc_len = self._doc_len
        norms = self._norms
        norm_of = self._norm
        get = scores.get
        # Two copies of the hot loop so the per-posting work has no call or branch;
        # the arithmetic follows the reference libraries' order so scores agree
        # with them to the last bit or nearly.
        if self.kind == "okapi":
            k1p1 = self.k1 + 1
            for posting, w in terms:
                for d, tf in posting.items():
                    dl = doc_len[d]
                    norm = norms.get(dl)
                    if norm is None:
                        norm = norm_of(dl)
                    scores[d] = get(d, 0.0) + w * (tf * k1p1 / (tf + norm))
        else:
            for posting, w in terms:
                for d, tf in posting.items():
                    dl = doc_len[d]
                    norm = norms.get(dl)
                    if norm is None:
                        norm = norm_of(dl)
                    scores[d] = get(d, 0.0) + w * (tf / (norm + tf))
        return scores

    def _search_pruned(
        self, terms: list[tuple[dict[Hashable, int], float]], k: int
    ) -> list[tuple[Hashable, float]]:
        """Exact top-k with MaxScore-style pruning (all weights >= 0).

        A common word has a long posting list but a small weight. Reading the terms
        from the largest possible contribution down, once the k-th best partial score
        beats everything the unread terms could add, no unseen document can reach the
        top k, so the unread (long) postings are only probed for the candidates seen.
        The final scores are recomputed in query order, so they are the same numbers
        the exhaustive loop gives.
        """
        # a query token repeated m times contributes m times (as both references do)
        grouped: dict[int, list] = {}
        for posting, w in terms:
            entry = grouped.get(id(posting))
            if entry is None:
                grouped[id(posting)] = [posting, w, 1]
            else:
                entry[2] += 1
        # the tf part is < k1 + 1 (okapi) or < 1 (lucene) for any tf and length
        cap = self.k1 + 1 if self.kind == "okapi" else 1.0
        order = sorted(grouped.values(), key=lambda e: (-e[1] * e[2], len(e[0])))
        bounds = [w * m * cap for _, w, m in order]
        suffix = [0.0] * (len(order) + 1)
        for i in range(len(order) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + bounds[i]
        # float sums in another order can differ in the last bits; never prune on a hair
        slack = 1 + 1e-9
        partial: dict[Hashable, float] = {}
        read = len(order)
        for i, (posting, w, m) in enumerate(order):
            # cheap tests first: no partial sum exceeds the bounds read so far, nor the
            # largest partial sum; only then find the k-th best (a pass over them all)
            if (
                len(partial) >= k
                and suffix[i] * slack < suffix[0] - suffix[i]
                and suffix[i] * slack < max(partial.values())
                and suffix[i] * slack < heapq.nlargest(k, partial.values())[-1]
            ):
                read = i
                break
            self._accumulate([(posting, w * m)], partial)
        unread = order[read:]
        if unread:
            # A partial sum is a lower bound of a document's score, partial + the unread
            # terms' bounds an upper one: only documents whose upper bound reaches the
            # k-th best lower bound can still be in the top k.
            theta = heapq.nlargest(k, partial.values())[-1]
            rest = suffix[read]
            candidates = [d for d, s in partial.items() if (s + rest) * slack >= theta]
            if len(candidates) * len(unread) < sum(len(p) for p, _, _ in unread):
                # probe the long postings for the few candidates ...
                partial = {d: partial[d] for d in candidates}
                tf_part = self._tf_part()
                doc_len = self._doc_len
                for posting, w, m in unread:
                    for d in candidates:
                        tf = posting.get(d)
                        if tf:
                            partial[d] += w * m * tf_part(tf, self._norm(doc_len[d]))
            else:
                # ... unless reading them is cheaper (documents new to `partial` are
                # harmless: their sums are complete too, and below the k-th best)
                self._accumulate([(p, w * m) for p, w, m in unread], partial)
        # `partial` now holds complete sums (up to rounding) for every document that can
        # be in the top k; rescore the best k, and any within rounding of the k-th, in
        # query order, so the numbers are the exhaustive loop's to the last bit
        if len(partial) > k:
            theta = heapq.nlargest(k, partial.values())[-1]
            cutoff = theta - abs(theta) * 1e-9
            candidates = [d for d, s in partial.items() if s >= cutoff]
        else:
            candidates = list(partial)
        return self._top(self._exact_scores(terms, candidates), k)

    def _exact_scores(
        self, terms: list[tuple[dict[Hashable, int], float]], docs: list[Hashable]
    ) -> dict[Hashable, float]:
        """Scores of `docs`, summed term by term in query order (as `_accumulate` does)."""
        tf_part = self._tf_part()
        doc_len = self._doc_len
        out = {}
        for d in docs:
            norm = self._norm(doc_len[d])
            total = 0.0
            for posting, w in terms:
                tf = posting.get(d)
                if tf:
                    total = total + w * tf_part(tf, norm)
            out[d] = total
        return out

    def score(self, query: str, doc_id: Hashable) -> float:
        """The BM25 score of one stored document for `query` (0.0 if nothing matches)."""
        query_tokens = self.analyzer(_check_text(query, "query"))
        self._require(doc_id, "BM25Index")
        total = 0.0
        for posting, w in self._term_weights(query_tokens):
            tf = posting.get(doc_id)
            if tf:
                norm = self._norm(self._doc_len[doc_id])
                if self.kind == "okapi":
                    total += w * (tf * (self.k1 + 1) / (tf + norm))
                else:
                    total += w * (tf / (norm + tf))
        return total

    def matched_terms(self, query: str, doc_id: Hashable) -> list[str]:
        """Distinct query tokens that occur in the document, in query order."""
        query_tokens = _dedupe(self.analyzer(_check_text(query, "query")))
        self._require(doc_id, "BM25Index")
        return [t for t in query_tokens if doc_id in self._postings.get(t, ())]

    @property
    def avgdl(self) -> float:
        """Mean document length in tokens (0.0 when empty)."""
        return self._total_len / len(self._doc_len) if self._doc_len else 0.0

    def __repr__(self) -> str:
        return (
            f"BM25Index(idf={self.kind!r}, k1={self.k1}, b={self.b}, "
            f"docs={len(self)}, terms={len(self._postings)})"
        )


# ---------------------------------------------------------------------------

def matching_docs(index, query: str) -> set:
    """Every document of `index` sharing a token with `query`: what a search ranks, unranked.

    Reads the scorer's postings when it has them (memlib's scorers do), so counting
    the matches of a long query costs a set union, not a ranking of all of them.
    """
    postings = getattr(index, "_postings", None)
    if not isinstance(postings, dict):
        return {doc for doc, _ in index.search(query, k=max(len(index), 1))}
    found: set = set()
    for term in dict.fromkeys(tokenize(query)):
        docs = postings.get(term)
        if docs:
            found.update(docs)
    return found


@dataclass(frozen=True)
class ScorerEntry:
    """One scorer the course offers: how to build it and how to show it.

    The archival and SQLite stores, the retrieval explorer, `memlib.evaluation` and
    the figures all read `SCORERS`, so a new scorer is one `register_scorer` call.
    build: analyzer -> a fresh, empty `Scorer`. label: a few words for menus and
    legends. color: its colour in every figure. aliases: other names it answers to.
    """

    name: str
    build: Callable[[Callable[[str], list[str]]], Scorer]
    label: str
    color: str
    aliases: tuple[str, ...] = ()


SCORERS: dict[str, ScorerEntry] = {}


def register_scorer(entry: ScorerEntry) -> ScorerEntry:
    """Add a scorer to the registry (its name and aliases must be new)."""
    if not isinstance(entry, ScorerEntry):
        raise TypeError(f"register_scorer() needs a ScorerEntry, got {type(entry).__name__}")
    taken = [n for n in (entry.name, *entry.aliases) if n in SCORER_NAMES]
    if taken:
        raise ValueError(f"scorer name {taken[0]!r} is already registered; pick another name")
    SCORERS[entry.name] = entry
    SCORER_NAMES[:] = [*SCORER_NAMES, entry.name, *entry.aliases]
    return entry


def scorer_entry(name: str) -> ScorerEntry:
    """The registry entry for a scorer name or alias (ValueError if unknown)."""
    for entry in SCORERS.values():
        if name == entry.name or name in entry.aliases:
            return entry
    raise ValueError(
        f"unknown scorer {name!r}; choose one of {', '.join(map(repr, SCORER_NAMES))}"
    )


def make_scorer(name: str, analyzer: str | Callable[[str], list[str]] | None = None) -> Scorer:
    """A fresh, empty scorer by registered name, e.g. "overlap", "bm25" (= "bm25-lucene"), "bm25-okapi".

    analyzer: an `ANALYZERS` name or a function str -> tokens (default: `tokenize`).
    """
    return scorer_entry(name).build(_check_analyzer(analyzer))


#: Every registered name and alias, in registration order (kept in step by register_scorer).
SCORER_NAMES: list[str] = []

register_scorer(ScorerEntry("overlap", TokenOverlap, "token overlap (Jaccard)", "#8a8f98"))
register_scorer(ScorerEntry("bm25-lucene", lambda a: BM25Index("lucene", analyzer=a),
                            "BM25, Lucene idf", "#3a86c8", aliases=("bm25",)))
register_scorer(ScorerEntry("bm25-okapi", lambda a: BM25Index("okapi", analyzer=a),
                            "BM25, Okapi idf (rank-bm25)", "#e39b2d"))
