"""How search cost grows with the store: generated notes and median top-10 latency.

`make_corpus(n)` writes `n` deterministic notes (words drawn from a Zipf
vocabulary) and queries taken from them; `search_latency(sizes)` times top-10
searches on such corpora, one query at a time as an agent searches, for
memlib's `BM25Index` and `TokenOverlap` and for rank-bm25 (a dependency).
Notebook 03 draws the result with `memlib.viz.search_latency_figure`.

Standard library only (rank-bm25 is imported when its engine is built). This is
not the benchmark harness: `benchmarks/bench.py`, outside the package, adds
bm25s, SQLite FTS5, tantivy and the stores, writes the README's tables and
checks targets; nothing here asserts a time.
"""

from __future__ import annotations

import gc
import itertools
import random
import statistics
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any
from dataclasses import dataclass

from memlib.retrieval import STOPWORDS, BM25Index, TokenOverlap, tokenize

__all__ = ["Corpus", "make_corpus", "make_vocabulary", "time_each", "median_ms", "scorer_engine", "ENGINES",
           "search_latency"]

_ONSETS = ["", "b", "br", "c", "ch", "cl", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "l",
           "m", "n", "p", "pl", "pr", "r", "s", "sh", "sl", "st", "t", "th", "tr", "v", "w", "y", "z"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "ou", "oa"]
_CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng", "rt", "ve", "se"]
# The commonest words of English notes, stopwords included, so the head of the Zipf
# curve looks like real text (memlib drops the stopwords when it indexes).
_HEAD = ("the of and to a in is you that it he was for on are as with his they i at be this "
         "have from or one had by word but not what all were we when your can said there use "
         "an each which she do how their if will up other about out many then them these so "
         "some her would make like him into time has look two more write go see number no way "
         "could people my than first water been call who oil its now find long down day did get "
         "come made may part meeting user prefers remember flight sister project doctor friday").split()


@dataclass
class Corpus:
    """Documents as text and as memlib tokens, plus queries, all from one seed."""

    texts: list[str]
    tokens: list[list[str]]
    queries: list[str]
    query_tokens: list[list[str]]
    vocabulary: int
    seed: int

    def __repr__(self) -> str:
        mean = sum(map(len, self.tokens)) / max(1, len(self.tokens))
        return (f"Corpus({len(self.texts)} docs, {mean:.1f} tokens/doc, vocabulary {self.vocabulary}, "
                f"{len(self.queries)} queries, seed={self.seed})")


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def make_vocabulary(size: int, rng: random.Random) -> list[str]:
    """`size` distinct words: common English first, then pronounceable made-up words."""
    _positive_int("size", size)
    words = list(dict.fromkeys(_HEAD))[:size]
    seen = set(words)
    while len(words) < size:
        n_syll = rng.choice([1, 2, 2, 2, 3, 3, 4])
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(n_syll)) + rng.choice(_CODAS)
        if len(word) >= 3 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


def make_corpus(n_docs: int, seed: int = 1, vocabulary: int = 50_000, n_queries: int = 100,
                zipf: float = 1.07) -> Corpus:
    """`n_docs` notes of 5-80 words (log-normal, about 25) from a Zipf vocabulary (rank r weighs r^-zipf).

    Queries are 2-5 words taken from a random note (so each has matches), the way
    an agent's queries reuse words of facts it stored. The same arguments always
    give the same corpus.

    Example:
        >>> corpus = make_corpus(200, n_queries=3)
        >>> len(corpus.texts), len(corpus.queries), corpus.texts == make_corpus(200, n_queries=3).texts
        (200, 3, True)
    """
    _positive_int("n_docs", n_docs)
    _positive_int("n_queries", n_queries)
    rng = random.Random(seed)
    words = make_vocabulary(vocabulary, rng)
    cumulative = list(itertools.accumulate(r ** -zipf for r in range(1, vocabulary + 1)))
    texts = []
    for _ in range(n_docs):
        n = min(80, max(5, int(rng.lognormvariate(3.0, 0.5))))
        texts.append(" ".join(rng.choices(words, cum_weights=cumulative, k=n)).capitalize() + ".")
    queries: list[str] = []
    while len(queries) < n_queries:
        # words as written (not stems), so every analyzer gets the text a user would type
        source = [w for w in texts[rng.randrange(n_docs)].lower().rstrip(".").split() if w not in STOPWORDS]
        if len(source) >= 2:
            queries.append(" ".join(rng.sample(source, min(len(source), rng.randint(2, 5)))))
    return Corpus(texts, [tokenize(t) for t in texts], queries, [tokenize(q) for q in queries], vocabulary, seed)


def time_each(fn: Callable[[Any], object], items: Iterable, repeats: int) -> list[float]:
    """Seconds per call of `fn(item)`, every item `repeats` times (interleaved so drift averages out)."""
    items = list(items)
    out = []
    gc.collect()
    gc.disable()  # a collection landing in one sample would be noise, not the method's cost
    try:
        for _ in range(repeats):
            for item in items:
                t = time.perf_counter()
                fn(item)
                out.append(time.perf_counter() - t)
    finally:
        gc.enable()
    return out


def median_ms(samples: list[float]) -> float:
    """The median of samples in seconds, in milliseconds."""
    return statistics.median(samples) * 1e3


def scorer_engine(make_index: Callable[[], Any], doc_id: Callable[[int], Hashable] = int):
    """An engine for memlib's scorers: every note is added to `make_index()` under `doc_id(i)`.

    Example: `scorer_engine(BM25Index, lambda i: f"arc-{i:06d}")` times the index with string ids.
    """
    def build(corpus: Corpus):
        index = make_index()
        for i, text in enumerate(corpus.texts):
            index.add(doc_id(i), text)
        return lambda q: index.search(q, k=10)

    return build


def _build_rank_bm25(corpus: Corpus):
    from rank_bm25 import BM25Okapi

    # memlib's tokens, so both engines rank the same terms; the query is analysed in the timed call
    bm25 = BM25Okapi(corpus.tokens)
    docs = list(range(len(corpus.texts)))
    return lambda q: bm25.get_top_n(tokenize(q), docs, n=10)


#: Engine name -> build(corpus) returning search(query) (top 10).
ENGINES: dict[str, Callable[[Corpus], Callable[[str], object]]] = {
    "memlib BM25Index": scorer_engine(BM25Index),
    "rank-bm25 BM25Okapi": _build_rank_bm25,
    "memlib TokenOverlap": scorer_engine(TokenOverlap),
}


def search_latency(sizes: Iterable[int], engines: Mapping[str, Callable] | None = None, *,
                   repeats: int | Callable[[str, int], int] = 1, n_queries: int = 20,
                   log: Callable[[str], object] | None = None) -> dict:
    """Median top-10 latency per engine and store size, on `make_corpus(size)`.

    `engines` maps a name to build(corpus) -> search(query) (default `ENGINES`);
    `repeats` is how often every query runs, or a function (engine name, size) -> repeats.
    Returns {"sizes": [...], "median_ms": {engine: {size: ms}}, "build_s": {engine: {size: s}}},
    which `memlib.viz.search_latency_figure` draws.

    Example:
        >>> out = search_latency([100, 200], n_queries=3)
        >>> out["sizes"], sorted(out["median_ms"]["memlib BM25Index"])
        ([100, 200], [100, 200])
    """
    sizes = [_positive_int("each size", n) for n in sizes]
    if not sizes:
        raise ValueError("sizes is empty; give store sizes such as [1_000, 10_000]")
    engines = ENGINES if engines is None else engines
    if not engines:
        raise ValueError(f"engines is empty; give some of {sorted(ENGINES)}")
    repeats_for = repeats if callable(repeats) else (lambda name, n: _positive_int("repeats", repeats))
    out: dict = {"sizes": sizes, "median_ms": {}, "build_s": {}}
    for n in sizes:
        corpus = make_corpus(n, n_queries=n_queries)
        if log:
            log(f"search at {n:,} records: {corpus!r}")
        for name, build in engines.items():
            t = time.perf_counter()
            search = build(corpus)
            out["build_s"].setdefault(name, {})[n] = time.perf_counter() - t
            ms = median_ms(time_each(search, corpus.queries, repeats_for(name, n)))
            out["median_ms"].setdefault(name, {})[n] = ms
            if log:
                log(f"  {name:<40} {ms:9.3f} ms  (build {out['build_s'][name][n]:.2f} s)")
            del search
            gc.collect()
    return out
