"""The analyzer (`memlib.retrieval.tokenize`), the scorer registry, and the stores using both.

Bad input must come back in linear time and identical on every run; the SQLite FTS5
candidate path must find exactly what the in-memory index finds with the new tokens.
"""

from __future__ import annotations

import subprocess
import sys
import time
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib import retrieval
from memlib.archival import ArchivalStore
from memlib.retrieval import (ANALYZER_ID, ANALYZERS, DEFAULT_ANALYZER, STOPWORDS, Analyzer, BM25Index,
                              ScorerEntry, TokenOverlap, make_scorer, register_scorer, scorer_entry, tokenize)
from memlib.storage import SQLiteArchivalStore, fts5_available

# ---------------------------------------------------------------- what the analyzer does


def test_stemming_joins_word_forms():
    assert tokenize("moved") == tokenize("moving") == tokenize("moves") == ["move"]
    assert tokenize("allergies") == tokenize("allergy") == ["allergi"]
    assert tokenize("meetings") == tokenize("meeting") == ["meet"]
    # Snowball is a stemmer, not a lemmatizer: the adjective keeps another stem
    assert tokenize("allergic") == ["allerg"]


def test_unstemmed_analyzer_is_the_previous_tokenizer_on_plain_text():
    words = ANALYZERS["unstemmed"]
    assert words("The user's cats are named Biscuit_2!") == ["user", "s", "cats", "named", "biscuit", "2"]


def test_stopwords_are_optional():
    assert ANALYZERS["stemmed-all-words"]("the cats") == ["the", "cat"]
    assert tokenize("the cats") == ["cat"]
    assert Analyzer("x", stem=False, stopwords=False)("The THE") == ["the", "the"]


def test_chinese_note_is_found_by_a_two_character_query():
    note = "我的妹妹对花生过敏"  # "my younger sister is allergic to peanuts"
    assert tokenize(note) == ["我的", "的妹", "妹妹", "妹对", "对花", "花生", "生过", "过敏"]
    index = BM25Index()
    index.add("zh", note)
    index.add("en", "my sister moved to Lisbon")
    assert [d for d, _ in index.search("花生")] == ["zh"]
    assert [d for d, _ in index.search("过敏")] == ["zh"]
    # the unstemmed-but-unsplit tokenizer of before kept the whole run as one token
    assert BM25Index(analyzer=Analyzer("one-run", cjk_bigrams=False)).search("花生") == []


def test_cjk_scripts_and_mixed_runs():
    assert tokenize("東京タワーに行く") == ["東京", "京タ", "タワ", "ワー", "ーに", "に行", "行く"]
    assert tokenize("한국어") == ["한국", "국어"]
    assert tokenize("猫") == ["猫"]  # a lone character stays a unigram, as in Lucene
    assert tokenize("iPhone15手机") == ["iphone15", "手机"]  # the Latin part is a word of its own
    assert tokenize("Ines去了Lisbon") == ["ine", "去了", "lisbon"]


def test_other_scripts_keep_their_combining_marks():
    assert tokenize("हिन्दी") == ["हिन्दी"]  # vowel signs and virama are marks, not separators
    assert tokenize("ไทย") == ["ไทย"]
    # composed and decomposed forms are the same token (NFKC first) ...
    assert tokenize("cafe\u0301") == tokenize("café") == ["café"]
    # ... and full-width letters and digits, common in CJK text, are plain ones
    assert tokenize("ＷｉＦｉ密码是１２３４") == ["wifi", "密码", "码是", "1234"]
    assert tokenize("ｶﾀｶﾅ") == tokenize("カタカナ")


def test_mark_class_covers_every_combining_mark():
    # the class scans only the planes where marks live; check that against a full scan
    marks = [cp for cp in range(0x110000) if unicodedata.category(chr(cp))[0] == "M"]
    for cp in marks[:: max(1, len(marks) // 400)] + marks[-3:]:
        assert tokenize("a" + chr(cp) + "b") == retrieval.ANALYZERS["unstemmed"]("a" + chr(cp) + "b")
        assert len(tokenize("x" + chr(cp) + "y")) == 1, hex(cp)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("text", ["", "   ", "!!!", "...?!", "😀🎉👍", "\u0301\u0302", "\u200b\u200d", "___"])
def test_empty_punctuation_emoji_and_lone_marks_give_no_tokens(text):
    assert tokenize(text) == []


def test_emoji_between_words_separates_them():
    assert tokenize("cats😀dogs") == ["cat", "dog"]


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["a list"]])
def test_non_str_is_refused(bad):
    with pytest.raises(TypeError, match="str"):
        tokenize(bad)
    with pytest.raises(TypeError, match="str"):
        ANALYZERS["unstemmed"](bad)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_the_same_tokens_every_time(text):
    tokens = tokenize(text)
    assert tokens == tokenize(text)
    assert all(t and t not in STOPWORDS and "_" not in t and t == t.lower() for t in tokens)


def test_same_tokens_in_a_fresh_interpreter():
    # nothing depends on hash seeds, caches or what was tokenized first
    text = "Ines MOVED to Lisbon; 我的妹妹对花生过敏 · हिन्दी · naïve café 😀"
    code = f"from memlib.retrieval import tokenize; print(tokenize({text!r}))"
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONHASHSEED": seed, "PYTHONIOENCODING": "utf-8"}).stdout
           for seed in ("1", "2")]
    assert out[0] == out[1] == f"{tokenize(text)}\n"


def _seconds(text: str) -> float:
    """The CPU time of one tokenize: a busy machine's waits (the Colab profiles run niced beside CI) do not count."""
    start = time.thread_time()
    tokenize(text)
    return time.thread_time() - start


@pytest.mark.parametrize("unit", [
    "memory notes and meetings ",  # ordinary English words (mostly cached stems)
    "我的妹妹对花生过敏。",           # CJK: bigrams
    "a",                           # one giant word (not stemmed past 64 characters)
    "é\u0301",                     # letters buried in combining marks
    "😀 ",                          # nothing but emoji
    "x_" ,                          # one-letter words between separators
])
@pytest.mark.slow  # compares wall-clock times, so outside the quick subset
def test_one_megabyte_notes_come_back_in_linear_time(unit):
    small = unit * (100_000 // len(unit.encode()))
    big = unit * (1_000_000 // len(unit.encode()))
    tokenize(small)  # warm the pattern and the stem cache
    t_small = min(_seconds(small) for _ in range(3))
    t_big = min(_seconds(big) for _ in range(2))
    # 10x the text: linear is ~10x; quadratic would be ~100x. Generous for a shared machine.
    assert t_big < 30 * t_small + 0.05, (t_small, t_big)
    assert tokenize(big) == tokenize(big)


def test_giant_word_is_kept_whole():
    word = "ab" * 50_000 + "ing"
    assert tokenize(word) == [word]


# ---------------------------------------------------------------- scorers take an analyzer


@pytest.mark.parametrize("name", ["overlap", "bm25", "bm25-okapi"])
def test_scorers_use_the_analyzer_they_are_given(name):
    stemmed = make_scorer(name)
    plain = make_scorer(name, analyzer="unstemmed")
    for s in (stemmed, plain):
        s.add("a", "She moved to Lisbon")
    assert [d for d, _ in stemmed.search("moving")] == ["a"]
    assert plain.search("moving") == []
    raw = make_scorer(name, analyzer=str.split)
    raw.add("a", "Moved moved")
    assert [d for d, _ in raw.search("moved")] == ["a"] and raw.search("move") == []


def test_bad_analyzer_is_refused():
    with pytest.raises(ValueError, match="unknown analyzer 'porter'.*'stemmed'"):
        BM25Index(analyzer="porter")
    with pytest.raises(TypeError, match="analyzer"):
        TokenOverlap(analyzer=3)


def test_default_analyzer_is_what_tokenize_uses():
    assert DEFAULT_ANALYZER is ANALYZERS["stemmed"]
    assert tokenize("Moving meetings") == DEFAULT_ANALYZER("Moving meetings")
    assert repr(DEFAULT_ANALYZER) in ANALYZER_ID


def test_default_analyzer_measures_best_on_the_course_queries():
    from memlib.evaluation import compare_analyzers

    results = {r.analyzer: r for r in compare_analyzers("bm25-lucene")}
    best = max(results.values(), key=lambda r: (r.recall_at_10, r.mrr_at_10))
    assert best.analyzer == DEFAULT_ANALYZER.name
    # stemming is what lifts the morphology queries
    assert results["stemmed"].recall_by_kind["morphology"] > results["unstemmed"].recall_by_kind["morphology"]


# ---------------------------------------------------------------- one registry of scorers


def test_registry_lists_every_scorer_once_with_its_aliases():
    assert list(retrieval.SCORERS) == ["overlap", "bm25-lucene", "bm25-okapi"]
    assert retrieval.SCORER_NAMES == ["overlap", "bm25-lucene", "bm25", "bm25-okapi"]
    assert scorer_entry("bm25") is scorer_entry("bm25-lucene")
    with pytest.raises(ValueError, match="unknown scorer 'bm26'.*'bm25-okapi'"):
        make_scorer("bm26")


def test_one_registered_scorer_reaches_stores_explorer_evaluation_and_figures(monkeypatch):
    pytest.importorskip("ipywidgets")
    from memlib.evaluation import retrieval_methods
    from memlib.viz import RetrievalExplorer, recall_at_k_curve

    monkeypatch.setattr(retrieval, "SCORERS", dict(retrieval.SCORERS))
    monkeypatch.setattr(retrieval, "SCORER_NAMES", list(retrieval.SCORER_NAMES))
    register_scorer(ScorerEntry("bm25-soft", lambda a: BM25Index("lucene", k1=0.9, analyzer=a),
                                "BM25, k1=0.9", "#123456"))
    with pytest.raises(ValueError, match="already registered"):
        register_scorer(ScorerEntry("bm25-soft", TokenOverlap, "again", "#000000"))
    store = ArchivalStore(scorer="bm25-soft")
    store.insert("Ines moved to Lisbon")
    assert [h.record.text for h in store.search("moving")] == ["Ines moved to Lisbon"]
    assert "bm25-soft" in retrieval_methods()
    ex = RetrievalExplorer(["Ines moved to Lisbon"], scorer="bm25-soft", query="moving")
    assert "bm25-soft" in ex._scorer.options and ex.results
    fig = recall_at_k_curve({"bm25-soft": [0.5, 0.6]})
    assert fig.data[0].line.color == "#123456"


# ---------------------------------------------------------------- SQLite FTS5 candidates


QUERIES = ["moving", "allergy", "花生", "meetings with Ines", "हिन्दी", "café", "nothing here", "😀", ""]
TEXTS = ["Ines moved to Lisbon in May", "my sister's allergies: peanuts", "我的妹妹对花生过敏",
         "weekly meeting with Ines and Sam", "notes in हिन्दी", "cafe\u0301 on the corner",
         "the dentist is on Friday", "Ines is moving again"]


@pytest.mark.skipif(not fts5_available(), reason="this Python's SQLite has no FTS5")
def test_fts5_candidates_give_the_same_results_as_the_index(tmp_path):
    memory = ArchivalStore()
    with SQLiteArchivalStore(tmp_path / "a.db", fts5=True, candidates="fts5") as fts, \
            SQLiteArchivalStore(tmp_path / "b.db", fts5=True, candidates="index") as idx:
        for text in TEXTS:
            for store in (memory, fts, idx):
                store.insert(text)
        for q in QUERIES:
            want = [(h.record.text, h.score) for h in memory.search(q, top_k=10)]
            assert [(h.record.text, h.score) for h in fts.search(q, top_k=10)] == want, q
            assert [(h.record.text, h.score) for h in idx.search(q, top_k=10)] == want, q
        assert [h.record.text for h in fts.search("花生")] == ["我的妹妹对花生过敏"]


@pytest.mark.skipif(not fts5_available(), reason="this Python's SQLite has no FTS5")
def test_fts5_mirror_written_by_another_analyzer_is_rebuilt(tmp_path, monkeypatch):
    import memlib.storage as storage

    path = tmp_path / "old.db"
    # a file whose mirror holds the old, unstemmed tokens (as an older memlib wrote it)
    monkeypatch.setattr(storage, "tokenize", ANALYZERS["unstemmed"])
    monkeypatch.setattr(storage, "ANALYZER_ID", "an older analyzer")
    with SQLiteArchivalStore(path, fts5=True) as old:
        old.insert("Ines moved to Lisbon")
    monkeypatch.undo()
    with SQLiteArchivalStore(path, fts5=True, candidates="fts5") as store:
        assert [h.record.text for h in store.search("moving")] == ["Ines moved to Lisbon"]
        assert store._table._db.meta("analyzer") == ANALYZER_ID
