"""memlib.retrieval: tokenizer, TokenOverlap, BM25Index (incremental use, bad input).

The comparisons with rank_bm25 and bm25s live in test_retrieval_reference.py.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib.retrieval import (
    SCORER_NAMES,
    STOPWORDS,
    BM25Index,
    Scorer,
    TokenOverlap,
    make_scorer,
    tokenize,
)

WORDS = ["apple", "banana", "cherry", "date", "elder", "fig", "grape"]
ALL_SCORERS = [TokenOverlap, lambda: BM25Index("lucene"), lambda: BM25Index("okapi")]
SCORER_IDS = ["overlap", "lucene", "okapi"]


# ---------------------------------------------------------------- tokenize


def test_tokenize_lowercases_and_splits_on_punctuation_and_underscores():
    assert tokenize("Hello, WORLD! snake_case x-ray 3.14") == [
        "hello", "world", "snake", "case", "x", "ray", "3", "14",
    ]


def test_tokenize_removes_stopwords_only_as_whole_tokens():
    assert tokenize("The theme of this thesis") == ["theme", "thesi"]  # Snowball's stem of "thesis"
    assert "the" in STOPWORDS and "theme" not in STOPWORDS
    assert tokenize("the a an of") == []


def test_tokenize_unicode_words():
    assert tokenize("Café MÜNCHEN naïve 東京 Москва") == ["café", "münchen", "naïv", "東京", "москва"]
    assert tokenize("東京タワー") == ["東京", "京タ", "タワ", "ワー"]  # CJK runs become bigrams


@pytest.mark.parametrize("text", ["", "   ", "!!!", "___", "\n\t"])
def test_tokenize_empty_and_punctuation_only(text):
    assert tokenize(text) == []


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["a list"], 3.5])
def test_tokenize_rejects_non_str(bad):
    with pytest.raises(TypeError, match="str"):
        tokenize(bad)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokenize_is_total_and_deterministic(text):
    tokens = tokenize(text)
    assert tokens == tokenize(text)
    assert all(t and t not in STOPWORDS and "_" not in t for t in tokens)
    assert all(t == t.lower() for t in tokens)


def test_tokenize_surrogates_and_huge_input():
    assert tokenize("\ud800abc\udfff def") == ["abc", "def"]
    huge = "memory " * 200_000
    assert len(tokenize(huge)) == 200_000


# ---------------------------------------------------------------- TokenOverlap


def test_overlap_is_jaccard_over_token_sets():
    s = TokenOverlap()
    s.add("a", "cat named Biscuit")
    s.add("b", "dog named Rex")
    s.add("c", "nothing shared")
    results = s.search("what is the cat named")
    assert [d for d, _ in results] == ["a", "b"]  # "c" shares no token: absent
    assert results[0][1] == pytest.approx(2 / 3)  # {cat, name} / {cat, name, biscuit}
    assert results[1][1] == pytest.approx(1 / 4)  # {name} / {cat, name, dog, rex}
    assert s.score("cat named", "c") == 0.0
    assert s.matched_terms("named cat cat", "a") == ["name", "cat"]  # tokens, stemmed


def test_overlap_ties_by_insertion_order_and_k():
    s = TokenOverlap()
    for doc_id in ["z", "y", "x"]:
        s.add(doc_id, "same words here")
    assert [d for d, _ in s.search("same words here")] == ["z", "y", "x"]
    assert [d for d, _ in s.search("same", k=2)] == ["z", "y"]


# ---------------------------------------------------------------- BM25Index basics


@pytest.mark.parametrize("kind", ["lucene", "okapi"])
def test_bm25_basic_search(kind):
    index = BM25Index(kind)
    index.add("pets", "The user has a cat named Biscuit")
    index.add("work", "The user works as a nurse in Leeds")
    index.add("food", "Favourite food: ramen, and more ramen")
    index.add("travel", "Trip to Kyoto planned for April")
    assert [d for d, _ in index.search("what is my cat called?")] == ["pets"]
    assert index.search("ramen")[0][0] == "food"
    assert index.search("submarine") == []
    assert index.search("") == []
    assert index.search("the and of") == []  # stopwords only
    assert index.matched_terms("cat Biscuit dog", "pets") == ["cat", "biscuit"]
    assert index.matched_terms("dog", "pets") == []
    for doc_id, score in index.search("user cat nurse"):
        assert index.score("user cat nurse", doc_id) == score
    assert index.score("submarine", "pets") == 0.0


def test_bm25_higher_tf_and_rarer_terms_score_higher():
    index = BM25Index()
    index.add(1, "ramen noodles")
    index.add(2, "ramen ramen ramen noodles")
    index.add(3, "noodles soup")
    index.add(4, "noodles bread")
    assert [d for d, _ in index.search("ramen")] == [2, 1]
    assert index.idf("ramen") > index.idf("noodl") > 0  # idf takes tokens: "noodles" -> "noodl"
    assert index.idf("absent") == 0.0


def test_bm25_ties_broken_by_insertion_order():
    index = BM25Index()
    for doc_id in ["c", "a", "b"]:
        index.add(doc_id, "identical text")
    index.add("d", "other words")
    assert [d for d, _ in index.search("identical")] == ["c", "a", "b"]
    assert [d for d, _ in index.search("identical", k=1)] == ["c"]
    # re-adding makes it the newest document
    index.remove("c")
    index.add("c", "identical text")
    assert [d for d, _ in index.search("identical")] == ["a", "b", "c"]


def test_lucene_never_zero_where_okapi_is_in_a_young_store():
    # the quirk notebook 03 shows: 1 of 2 documents -> okapi idf is exactly 0
    okapi, lucene = BM25Index("okapi"), BM25Index("lucene")
    for index in (okapi, lucene):
        index.add("m1", "my cat is named Biscuit")
        index.add("m2", "I live in Leeds")
    assert okapi.search("cat") == [("m1", 0.0)]
    assert lucene.search("cat")[0][1] > 0


def test_bm25_len_contains_repr_and_avgdl():
    index = BM25Index("okapi", k1=1.2, b=0.5)
    assert len(index) == 0 and "x" not in index and index.avgdl == 0.0
    assert index.search("anything") == []
    index.add("x", "alpha beta")
    index.add("y", "")  # an empty document still counts in N and avgdl
    assert len(index) == 2 and "x" in index and "y" in index
    assert ["unhashable"] not in index
    assert index.avgdl == 1.0
    r = repr(index)
    assert "okapi" in r and "docs=2" in r and "terms=2" in r
    assert repr(TokenOverlap()) == "TokenOverlap(docs=0, terms=0)"


@pytest.mark.parametrize("make", ALL_SCORERS, ids=SCORER_IDS)
def test_every_scorer_meets_the_protocol(make):
    scorer = make()
    assert isinstance(scorer, Scorer)
    scorer.add(1, "alpha beta")
    scorer.add(2, "beta gamma")
    for i in range(3, 7):  # padding so okapi's idf is positive (see the okapi quirk test)
        scorer.add(i, f"filler{i}")
    assert [d for d, _ in scorer.search("beta gamma")] == [2, 1]
    scorer.remove(2)
    assert [d for d, _ in scorer.search("beta gamma")] == [1]
    assert len(scorer) == 5 and 2 not in scorer


def test_make_scorer():
    assert isinstance(make_scorer("overlap"), TokenOverlap)
    for name, kind in [("bm25", "lucene"), ("bm25-lucene", "lucene"), ("bm25-okapi", "okapi")]:
        scorer = make_scorer(name)
        assert isinstance(scorer, BM25Index) and scorer.kind == kind
    assert make_scorer("bm25") is not make_scorer("bm25")  # fresh each time
    assert set(SCORER_NAMES) == {"overlap", "bm25", "bm25-lucene", "bm25-okapi"}
    with pytest.raises(ValueError, match="bm25-okapi"):
        make_scorer("tfidf")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("make", ALL_SCORERS, ids=SCORER_IDS)
def test_bad_input_errors_say_what_to_do(make):
    scorer = make()
    scorer.add("a", "alpha")
    with pytest.raises(ValueError, match="remove"):
        scorer.add("a", "again")
    with pytest.raises(KeyError, match="not in"):
        scorer.remove("nope")
    with pytest.raises(TypeError, match="text must be a str"):
        scorer.add("b", None)
    with pytest.raises(TypeError, match="text must be a str"):
        scorer.add("b", b"bytes")
    with pytest.raises(TypeError, match="hashable"):
        scorer.add(["list"], "text")
    with pytest.raises(TypeError, match="query must be a str"):
        scorer.search(None)
    with pytest.raises(TypeError, match="query must be a str"):
        scorer.search(42)
    for k in [0, -1, 2.5, "3", True, None]:
        with pytest.raises(ValueError, match="k must be an int >= 1"):
            scorer.search("alpha", k=k)
    with pytest.raises(KeyError, match="not in"):
        scorer.matched_terms("alpha", "nope")
    # nothing above changed the store
    assert len(scorer) == 1 and scorer.search("alpha")[0][0] == "a"


def test_bm25_constructor_checks():
    with pytest.raises(ValueError, match="'lucene', 'okapi'"):
        BM25Index("bm25plus")
    with pytest.raises(ValueError, match="b must be between 0 and 1"):
        BM25Index(b=1.5)
    with pytest.raises(ValueError, match="k1"):
        BM25Index(k1=-1)
    with pytest.raises(ValueError, match="finite"):
        BM25Index(k1=math.nan)
    with pytest.raises(TypeError, match="k1 must be a number"):
        BM25Index(k1="1.5")
    with pytest.raises(TypeError, match="term must be a str"):
        BM25Index().idf(None)


@pytest.mark.parametrize("make", ALL_SCORERS, ids=SCORER_IDS)
def test_huge_and_strange_strings_do_not_crash(make):
    scorer = make()
    scorer.add("huge", "memory " * 100_000 + "needle")
    scorer.add("uni", "naïve café 東京 \ud800 lone surrogate \udfff emoji 🧠")
    scorer.add("empty", "")
    scorer.add("punct", "!!! ??? ___")
    assert scorer.search("needle")[0][0] == "huge"
    assert scorer.search("東京 café")[0][0] == "uni"
    assert [d for d, _ in scorer.search("surrogate \udfff")] == ["uni"]
    assert scorer.search("\ud800\udc00 " * 10_000) == []
    assert scorer.search("x" * 1_000_000) == []
    scorer.remove("huge")
    assert scorer.search("needle") == []


# ---------------------------------------------------------------- incremental use

ops_strategy = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove"]),
        st.integers(0, 9),  # doc id
        st.lists(st.sampled_from(WORDS), min_size=0, max_size=8),
    ),
    max_size=40,
)
queries_strategy = st.lists(st.lists(st.sampled_from(WORDS + ["zzz"]), max_size=5), max_size=6)


def replay(kind, ops):
    """Apply ops to a fresh index (skipping impossible ones); return it and the survivors."""
    index = BM25Index(kind) if kind != "overlap" else TokenOverlap()
    live: dict[int, str] = {}  # dicts keep insertion order = order of the latest add
    for op, doc_id, words in ops:
        if op == "add" and doc_id not in live:
            live[doc_id] = " ".join(words)
            index.add(doc_id, live[doc_id])
        elif op == "remove" and doc_id in live:
            del live[doc_id]
            index.remove(doc_id)
    return index, live


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["lucene", "okapi", "overlap"]), ops=ops_strategy, queries=queries_strategy)
def test_adds_then_removes_equal_a_fresh_build(kind, ops, queries):
    index, live = replay(kind, ops)
    fresh = BM25Index(kind) if kind != "overlap" else TokenOverlap()
    for doc_id, text in live.items():
        fresh.add(doc_id, text)
    assert len(index) == len(fresh) == len(live)
    for q in queries:
        query = " ".join(q)
        # bit-for-bit: idf, norms and sums do not depend on the history
        assert index.search(query, k=20) == fresh.search(query, k=20)
        assert index.search(query, k=2) == fresh.search(query, k=2)
    assert repr(index) == repr(fresh)


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["lucene", "okapi", "overlap"]), ops=ops_strategy, victim=st.integers(0, 9))
def test_removed_id_is_never_returned(kind, ops, victim):
    index, live = replay(kind, ops)
    if victim not in live:
        index.add(victim, " ".join(WORDS))
    index.remove(victim)
    assert victim not in index
    for word in WORDS:
        assert victim not in [d for d, _ in index.search(word, k=100)]
    assert victim not in [d for d, _ in index.search(" ".join(WORDS), k=100)]
    with pytest.raises(KeyError):
        index.remove(victim)


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(["lucene", "okapi", "overlap"]), ops=ops_strategy, queries=queries_strategy)
def test_search_is_deterministic_and_well_formed(kind, ops, queries):
    a, live = replay(kind, ops)
    b, _ = replay(kind, ops)
    for q in queries:
        query = " ".join(q)
        first = a.search(query, k=5)
        assert first == a.search(query, k=5) == b.search(query, k=5)
        scores = [s for _, s in first]
        assert scores == sorted(scores, reverse=True)
        ids = [d for d, _ in first]
        assert len(ids) == len(set(ids)) <= 5
        qset = set(q)
        for doc_id in ids:  # every result contains a query term
            assert qset & set(live[doc_id].split())
        # a longer result list starts with the shorter one
        assert a.search(query, k=50)[: len(first)] == first


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(["lucene", "okapi"]), ops=ops_strategy, queries=queries_strategy, k=st.integers(1, 6))
def test_pruned_search_equals_exhaustive_search(kind, ops, queries, k):
    exhaustive, _ = replay(kind, ops)
    pruned, _ = replay(kind, ops)
    exhaustive.PRUNE_ABOVE = 10**12
    pruned.PRUNE_ABOVE = 0
    for q in queries:
        query = " ".join(q)
        assert pruned.search(query, k=k) == exhaustive.search(query, k=k)


def test_insert_while_searching_updates_idf():
    index = BM25Index("lucene")
    index.add(1, "alpha beta")
    before = index.idf("alpha")
    index.add(2, "gamma")
    assert index.idf("alpha") > before  # rarer now: 1 of 2 documents
    index.add(3, "alpha")
    assert index.idf("alpha") < before * 2
    index.remove(1)
    index.remove(3)
    assert index.idf("alpha") == 0.0 and index.search("alpha") == []
    assert repr(index).endswith("docs=1, terms=1)")
