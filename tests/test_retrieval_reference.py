"""BM25Index against the reference implementations.

okapi  vs rank_bm25.BM25Okapi  : every document's score within 1e-9, same ranking.
lucene vs bm25s (method=lucene): scores within relative 1e-5 (bm25s keeps float32),
                                 same top-k ids.
Both references are fed exactly the token lists `memlib.retrieval.tokenize` produces.
"""

from __future__ import annotations

import math
import random

import bm25s
import numpy as np
import pytest
import rank_bm25
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib.retrieval import BM25Index, tokenize

# lowercase, non-stopword words that are their own stem: tokenize() leaves them exactly as they are
VOCAB = ["alpha", "bravo", "kilo", "delta", "echo", "foxtrot", "golf", "hotel"]
OUTSIDE = "zulu"  # never in a document

docs_strategy = st.lists(
    st.lists(st.sampled_from(VOCAB), min_size=0, max_size=12), min_size=1, max_size=8
).filter(lambda corpus: any(corpus))  # rank_bm25 divides by the vocabulary size
query_strategy = st.lists(st.sampled_from(VOCAB + [OUTSIDE]), min_size=0, max_size=6)


def build(kind: str, corpus: list[list[str]], **params) -> BM25Index:
    index = BM25Index(kind, **params)
    for i, doc in enumerate(corpus):
        text = " ".join(doc)
        assert tokenize(text) == doc  # the test words must survive tokenize unchanged
        index.add(i, text)
    return index


def synthetic_words(n: int) -> list[str]:
    """n three-letter words "qaa", "qab", ... that tokenize() keeps as they are (no stemming)."""
    words = (f"q{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(26 * 26))
    return [w for w in words if tokenize(w) == [w]][:n]


def matched(corpus: list[list[str]], query: list[str]) -> set[int]:
    q = set(query)
    return {i for i, doc in enumerate(corpus) if q & set(doc)}


def assert_same_ranking(ranked_ids, ref_scores, candidates, k, tol_of):
    """Our order agrees with the reference scores, up to ties within tolerance."""
    assert len(ranked_ids) == min(k, len(candidates))
    assert set(ranked_ids) <= candidates
    for a, b in zip(ranked_ids, ranked_ids[1:]):
        assert ref_scores[a] >= ref_scores[b] - tol_of(ref_scores[a]), (a, b)
    if ranked_ids:
        last = ref_scores[ranked_ids[-1]]
        for d in candidates - set(ranked_ids):
            assert ref_scores[d] <= last + tol_of(last), f"doc {d} should be in the top {k}"


# ---------------------------------------------------------------- okapi / rank_bm25


def check_okapi(corpus, query_tokens, k=None, k1=1.5, b=0.75, epsilon=0.25, prune=None):
    ref = rank_bm25.BM25Okapi(corpus, k1=k1, b=b, epsilon=epsilon)
    with np.errstate(invalid="ignore", divide="ignore"):  # see the nan test below
        ref_scores = [float(s) for s in ref.get_scores(query_tokens)]
    ours = build("okapi", corpus, k1=k1, b=b, epsilon=epsilon)
    if prune is not None:
        ours.PRUNE_ABOVE = prune
    query = " ".join(query_tokens)
    cand = matched(corpus, query_tokens)
    k = k or len(corpus)
    results = ours.search(query, k=k)
    for doc_id, score in results:
        assert score == pytest.approx(ref_scores[doc_id], abs=1e-9, rel=0)
    for i in range(len(corpus)):
        if i in cand:
            assert ours.score(query, i) == pytest.approx(ref_scores[i], abs=1e-9, rel=0)
        else:
            assert ours.score(query, i) == 0.0
            # rank_bm25 scores every document; with b == 1 an empty one gets 0/0 = nan
            assert ref_scores[i] == 0.0 or (math.isnan(ref_scores[i]) and not corpus[i] and b == 1)
    assert_same_ranking([d for d, _ in results], ref_scores, cand, k, lambda s: 1e-9)
    for term in set(query_tokens):
        assert ours.idf(term) == pytest.approx(ref.idf.get(term, 0.0), abs=1e-12, rel=0)
    return results


@settings(max_examples=300, deadline=None)
@given(corpus=docs_strategy, query=query_strategy, k=st.integers(1, 10))
def test_okapi_matches_rank_bm25(corpus, query, k):
    check_okapi(corpus, query, k=k)


@settings(max_examples=100, deadline=None)
@given(
    corpus=docs_strategy,
    query=query_strategy,
    k1=st.floats(0.1, 3.0),
    b=st.floats(0.0, 1.0),
    epsilon=st.floats(0.0, 1.0),
)
def test_okapi_matches_rank_bm25_other_parameters(corpus, query, k1, b, epsilon):
    check_okapi(corpus, query, k1=k1, b=b, epsilon=epsilon)


@pytest.mark.parametrize(
    "corpus",
    [
        [["alpha"]],
        [["alpha", "bravo", "alpha"]],
        [["alpha"], ["bravo"]],  # N == 2n: idf exactly 0, which rank_bm25 does not floor
        [["alpha", "bravo"], ["alpha"]],  # a term in every document
        [["alpha"], ["alpha", "bravo"], ["alpha", "kilo", "kilo"]],
        [["alpha"], [], ["bravo"]],  # an empty document still counts in N and avgdl
    ],
)
@pytest.mark.parametrize(
    "query", [[], ["alpha"], ["alpha", "alpha"], ["bravo", "alpha", "bravo"], [OUTSIDE]]
)
def test_okapi_tiny_stores(corpus, query):
    results = check_okapi(corpus, query)
    if not query or query == [OUTSIDE]:
        assert results == []


def test_rank_bm25_gives_nan_to_empty_documents_when_b_is_1():
    # a quirk of the reference (it scores every document, 0 * idf / 0): we give no score
    with pytest.warns(RuntimeWarning):
        ref = rank_bm25.BM25Okapi([[], ["alpha"]], b=1.0).get_scores(["alpha"])
    assert math.isnan(ref[0])
    index = build("okapi", [[], ["alpha"]], b=1.0)
    assert [d for d, _ in index.search("alpha")] == [1]
    assert index.score("alpha", 0) == 0.0


def test_okapi_floor_and_zero_idf_are_reproduced():
    # 1 of 2 docs: ln(1.5) - ln(1.5) == 0 exactly, kept as 0 (not floored)
    two = build("okapi", [["alpha"], ["bravo"]])
    assert two.idf("alpha") == 0.0
    assert two.search("alpha") == [(0, 0.0)]  # it matched, so it is listed
    # 3 of 4 docs: negative raw idf -> epsilon * mean idf over the vocabulary
    corpus = [["alpha", "bravo"], ["alpha"], ["alpha"], ["kilo"]]
    index = build("okapi", corpus)
    ref = rank_bm25.BM25Okapi(corpus)
    assert index.idf("alpha") == ref.idf["alpha"] == 0.25 * ref.average_idf
    assert index.idf("alpha") > 0


def test_okapi_seeded_random_corpora_including_pruned_search():
    rng = random.Random(20261129)
    words = synthetic_words(300)
    weights = [1 / (i + 1) for i in range(len(words))]  # Zipf: a few words are everywhere
    for trial in range(12):
        n_docs = rng.choice([1, 2, 3, 10, 60, 250])
        corpus = [rng.choices(words, weights, k=rng.randint(0, 30)) for _ in range(n_docs)]
        if not any(corpus):
            continue
        for _ in range(10):
            query = rng.choices(words, weights, k=rng.randint(0, 6))
            k = rng.choice([1, 3, 10, 1000])
            full = check_okapi(corpus, query, k=k)
            pruned = check_okapi(corpus, query, k=k, prune=0)  # force the pruning path
            assert pruned == full


# ---------------------------------------------------------------- lucene / bm25s


def bm25s_scores(corpus, query_tokens, k1=1.5, b=0.75):
    ref = bm25s.BM25(method="lucene", k1=k1, b=b)
    ref.index(corpus, show_progress=False)
    if not query_tokens:  # bm25s reads query[0]; an empty query scores nothing
        return [0.0] * len(corpus)
    return [float(s) for s in ref.get_scores(list(query_tokens))]


def check_lucene(corpus, query_tokens, k=None, k1=1.5, b=0.75, prune=None):
    ref_scores = bm25s_scores(corpus, query_tokens, k1=k1, b=b)
    ours = build("lucene", corpus, k1=k1, b=b)
    if prune is not None:
        ours.PRUNE_ABOVE = prune
    query = " ".join(query_tokens)
    cand = matched(corpus, query_tokens)
    k = k or len(corpus)
    results = ours.search(query, k=k)
    for doc_id, score in results:
        assert score == pytest.approx(ref_scores[doc_id], rel=1e-5)
        assert score > 0  # lucene idf is never negative
    for i in range(len(corpus)):
        assert ours.score(query, i) == pytest.approx(ref_scores[i], rel=1e-5, abs=0)
        if i not in cand:
            assert ref_scores[i] == 0.0
    ranked = [d for d, _ in results]
    assert_same_ranking(ranked, ref_scores, cand, k, lambda s: 1e-5 * abs(s))
    # where the reference has no near-ties, the top-k ids are exactly the same
    ref_ranked = sorted(cand, key=lambda d: (-ref_scores[d], d))[:k]
    top = [ref_scores[d] for d in sorted(cand, key=lambda d: -ref_scores[d])]
    gaps = [a - b for a, b in zip(top, top[1:])]
    if all(g > 1e-4 * a for g, a in zip(gaps, top)):
        assert ranked == ref_ranked
    return results


@settings(max_examples=200, deadline=None)
@given(corpus=docs_strategy, query=query_strategy, k=st.integers(1, 10))
def test_lucene_matches_bm25s(corpus, query, k):
    check_lucene(corpus, query, k=k)


@settings(max_examples=50, deadline=None)
@given(corpus=docs_strategy, query=query_strategy, k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0))
def test_lucene_matches_bm25s_other_parameters(corpus, query, k1, b):
    check_lucene(corpus, query, k1=k1, b=b)


@pytest.mark.parametrize(
    "corpus",
    [
        [["alpha"]],
        [["alpha"], ["bravo"]],
        [["alpha", "bravo"], ["alpha"]],  # a term in every document
        [["alpha"], ["alpha", "bravo"], ["alpha", "kilo", "kilo"]],
        [["alpha"], [], ["bravo"]],
    ],
)
@pytest.mark.parametrize(
    "query", [[], ["alpha"], ["alpha", "alpha"], ["bravo", "alpha", "bravo"], [OUTSIDE]]
)
def test_lucene_tiny_stores(corpus, query):
    results = check_lucene(corpus, query)
    if "alpha" in query:  # in every one of these stores: never a zero or negative score
        assert results and all(score > 0 for _, score in results)


def test_lucene_repeated_query_tokens_count_each_time():
    corpus = [["alpha", "bravo"], ["bravo", "kilo"], ["alpha"]]
    once = bm25s_scores(corpus, ["alpha"])
    twice = bm25s_scores(corpus, ["alpha", "alpha"])
    assert twice[0] == pytest.approx(2 * once[0], rel=1e-6)  # what bm25s does
    index = build("lucene", corpus)
    assert index.score("alpha alpha", 0) == 2 * index.score("alpha", 0)


def test_lucene_seeded_random_corpora_including_pruned_search():
    rng = random.Random(7)
    words = synthetic_words(300)
    weights = [1 / (i + 1) for i in range(len(words))]
    for trial in range(10):
        n_docs = rng.choice([1, 2, 3, 10, 60, 250])
        corpus = [rng.choices(words, weights, k=rng.randint(0, 30)) for _ in range(n_docs)]
        if not any(corpus):
            continue
        for _ in range(10):
            query = rng.choices(words, weights, k=rng.randint(0, 6))
            k = rng.choice([1, 3, 10, 1000])
            full = check_lucene(corpus, query, k=k)
            assert check_lucene(corpus, query, k=k, prune=0) == full


def test_tokenized_text_is_what_the_references_see():
    # the reference tests feed token lists; real text goes through tokenize() first
    texts = ["The cat sat on the mat.", "A DOG, a cat; and a bird!", "cats_and_dogs 42"]
    corpus = [tokenize(t) for t in texts]
    ref = rank_bm25.BM25Okapi(corpus)
    index = BM25Index("okapi")
    for i, t in enumerate(texts):
        index.add(i, t)
    q = "Where is the CAT?"
    scores = ref.get_scores(tokenize(q))
    for d, s in index.search(q):
        assert s == pytest.approx(scores[d], abs=1e-9, rel=0)
