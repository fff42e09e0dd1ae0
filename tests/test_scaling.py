"""memlib.scaling: the generated notes and the search-latency measurement of notebook 03."""

from __future__ import annotations

import doctest
import random

import pytest

from memlib import scaling
from memlib.scaling import ENGINES, make_corpus, make_vocabulary, search_latency, time_each

pytestmark = pytest.mark.measure


def test_doctests():
    result = doctest.testmod(scaling)
    assert result.failed == 0 and result.attempted > 0


def test_corpus_is_deterministic_and_realistic():
    a, b = make_corpus(500, seed=5), make_corpus(500, seed=5)
    assert a.texts == b.texts and a.queries == b.queries
    assert make_corpus(500, seed=6).texts != a.texts
    lengths = sorted(map(len, a.tokens))
    assert 5 <= lengths[len(lengths) // 2] <= 40  # notes of a sentence or two
    assert all(5 <= len(t.rstrip(".").split()) <= 80 for t in a.texts)
    assert all(q for q in a.query_tokens)  # every query has searchable words
    assert "500 docs" in repr(a)
    # Zipf: the vocabulary's first word is far commoner than its thousandth
    vocabulary = make_vocabulary(50_000, random.Random(5))  # what make_corpus(seed=5) drew first
    words = " ".join(a.texts).lower().rstrip(".").replace(".", "").split()
    assert vocabulary[0] == "the" and words.count("the") > 20 * max(1, words.count(vocabulary[1000]))


def test_search_latency_times_every_engine_at_every_size():
    out = search_latency([200, 400], n_queries=5, repeats=lambda name, n: 2 if n == 200 else 1)
    assert out["sizes"] == [200, 400] and set(out["median_ms"]) == set(ENGINES)
    assert all(set(by_n) == {200, 400} and all(ms > 0 for ms in by_n.values()) for by_n in out["median_ms"].values())
    assert all(s >= 0 for by_n in out["build_s"].values() for s in by_n.values())
    lines = []
    search_latency([100], {"memlib BM25Index": ENGINES["memlib BM25Index"]}, n_queries=2, log=lines.append)
    assert "100 records" in lines[0] and "memlib BM25Index" in lines[1]


def test_time_each_runs_every_item_repeats_times():
    seen = []
    assert len(time_each(seen.append, [1, 2], 3)) == 6 and seen == [1, 2] * 3


@pytest.mark.parametrize("call, message", [
    (lambda: make_corpus(0), "n_docs"),
    (lambda: make_corpus(10, n_queries=True), "n_queries"),
    (lambda: search_latency([]), "sizes is empty"),
    (lambda: search_latency([100, -1]), "each size"),
    (lambda: search_latency([100], {}), "engines is empty"),
    (lambda: search_latency([100], repeats=0), "repeats"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
