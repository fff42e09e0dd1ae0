"""The analyzer: how a text becomes search tokens, the same for every scorer and store.

`tokenize` (the default `Analyzer`) turns text into search tokens: Unicode words,
lowercased, stopwords dropped, Snowball English stems, and CJK runs as
overlapping character bigrams so notes in any script can be found. `ANALYZERS`
names the variants (stemmed, unstemmed) and `ANALYZER_ID` says what the default
tokens depend on. Like bm25s, memlib keeps tokenization apart from scoring: the
scorers are `memlib.retrieval`, which re-exports all of this.

Deliberately not here: stemmers for languages other than English, word segmentation
for Thai, Lao or Khmer (their runs stay whole words), and any scoring.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from snowballstemmer.english_stemmer import EnglishStemmer

__all__ = ["STOPWORDS", "tokenize", "word_spans", "Analyzer", "ANALYZERS", "DEFAULT_ANALYZER", "ANALYZER_ID"]

_STEMMER = EnglishStemmer()

# A deliberately small, fixed list. Small memory stores are the common case here, and
# with okapi's idf ln((N - n + 0.5) / (n + 0.5)) any word that occurs in more than half
# of the documents gets a *negative* weight, so "the" or "is" in a query would push
# matching documents down. Dropping the commonest function words avoids most of that
# and keeps scores easy to explain. The list is frozen so results never depend on
# which NLTK or spaCy version happens to be installed.
STOPWORDS: frozenset[str] = frozenset(
    """
    a an and are as at be been but by can could did do does for from had has have
    he her hers him his how i if in into is it its me my of on or our ours she so
    than that the their theirs them then there these they this those to too us was
    we were what when where which while who whom why will with would you your yours
    """.split()
)


def _mark_class(below: int = 0x110000) -> str:
    """A regex character class body holding every combining mark (Mn, Mc, Me) below `below`.

    Python's `\\w` leaves marks out, so without this "हिन्दी" (vowel signs and virama
    are marks) would fall apart into single letters. Marks only occur below U+20000
    and in plane 14 (variation selectors); scanning just those takes milliseconds.
    """
    spans: list[tuple[int, int]] = []
    start: int | None = None
    prev = -2
    for lo, hi in ((0, min(below, 0x20000)), (0xE0000, min(below, 0xE1000))):
        for cp in range(lo, hi):
            if unicodedata.category(chr(cp))[0] == "M":
                if cp != prev + 1:
                    if start is not None:
                        spans.append((start, prev))
                    start = cp
                prev = cp
    if start is not None:
        spans.append((start, prev))
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in spans)


# The scripts written without spaces between words that Lucene's CJK analyzer splits
# into overlapping character bigrams: Han (with the iteration marks), Hiragana,
# Katakana (full and half width) and Hangul.
_CJK_RANGES = (
    "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
    "\uff66-\uff9f\u1100-\u11ff\U00020000-\U0003ffff"
)
# A run never starts at the kana voicing marks U+3099/U+309A (combining marks): after a
# Latin letter such a mark stays with the letter's word, as every other mark does.
_CJK_START = _CJK_RANGES.replace("\u3040-\u30ff", "\u3040-\u3098\u309b-\u30ff")
_CJK_RUN = re.compile(f"[{_CJK_START}][{_CJK_RANGES}]*")
_MAX_STEM_LEN = 64  # longer "words" (hashes, base64, a 1 MB run of letters) are kept as they are

_patterns: tuple[re.Pattern, re.Pattern, re.Pattern] | None = None


def _word_patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """(word run for text within the BMP, word run for any text, a run of underscores and marks).

    A word run is a word character followed by word characters and marks. One
    character class repeated keeps `re` linear even on a 1 MB word; an alternation
    inside the repeat does not. Underscores are word characters to `re`, so runs are
    split on them afterwards. A class with only BMP marks compiles to a fast lookup
    table; the full one (marks of historic scripts above U+FFFF) is a list of ranges,
    twice as slow, so it is used only for text that has characters above U+FFFF.
    """
    global _patterns
    if _patterns is None:  # built on first use: importing memlib stays instant
        marks = _mark_class()
        _patterns = (re.compile(f"[^\\W_][\\w{_mark_class(0x10000)}]*"),
                     re.compile(f"[^\\W_][\\w{marks}]*"), re.compile(f"[_{marks}]+"))
    return _patterns


def _word_run(text: str) -> re.Pattern:
    bmp, full, _ = _word_patterns()
    return full if text and max(text) > "\uffff" else bmp


def _split_run(run: str) -> list[tuple[int, str]]:
    """A run with underscores -> (offset, word) pieces, each starting with a letter or digit."""
    out, pos = [], 0
    leading = _word_patterns()[2]
    for piece in run.split("_"):
        start = pos
        pos += len(piece) + 1
        skip = leading.match(piece)  # marks right after an underscore belong to no letter
        if skip:
            piece, start = piece[skip.end():], start + skip.end()
        if piece:
            out.append((start, piece))
    return out


def _words(text: str) -> list[str]:
    """The words of `text`: letters and digits with the combining marks that follow them.

    Underscores, punctuation, symbols (emoji) and whitespace separate words; `re`
    matches code points and never encodes, so any str works, lone surrogates included.
    """
    runs = _word_run(text).findall(text)
    if "_" not in text:  # the common case: every run is a word
        return runs
    out: list[str] = []
    for run in runs:
        if "_" in run:
            out.extend(piece for _, piece in _split_run(run))
        else:
            out.append(run)
    return out


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every word of `text` as the analyzer splits it (before NFKC and lowercasing)."""
    if not isinstance(text, str):
        raise TypeError(f"word_spans() needs a str, got {type(text).__name__}")
    spans: list[tuple[int, int]] = []
    for m in _word_run(text).finditer(text):
        if "_" in m.group():
            spans.extend((m.start() + i, m.start() + i + len(w)) for i, w in _split_run(m.group()))
        else:
            spans.append(m.span())
    return spans


# word -> stem. Words repeat (Zipf), so the cache makes the ~25 us of an uncached
# stem rare; a plain dict is faster to probe than functools.lru_cache, and emptying
# it when full changes no result (a stem depends on its word only).
_stem_cache: dict[str, str] = {}
_STEM_CACHE_SIZE = 1 << 17


def _english_stem(word: str) -> str:
    # Pure-Python Snowball, chosen explicitly: `snowballstemmer.stemmer()` silently
    # switches to PyStemmer when that is installed, and the tokens must not depend on
    # what else happens to be installed.
    stem = _stem_cache.get(word)
    if stem is None:
        if len(_stem_cache) >= _STEM_CACHE_SIZE:
            _stem_cache.clear()
        stem = _stem_cache[word] = _STEMMER.stemWord(word)
    return stem


def _cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


@dataclass(frozen=True)
class Analyzer:
    """Text -> search tokens: NFKC, lowercase, Unicode word split, optional stopwords and stemming.

    Every step is linear in the text and deterministic, so the same text gives the
    same tokens on every run and every machine with the same Python. NFKC folds the
    full-width letters and digits common in Chinese and Japanese text ("ＷｉＦｉ１２"
    -> "wifi12") and composes accents, so "café" typed either way is one token. Runs of Chinese,
    Japanese or Korean characters (written without spaces) become overlapping
    character bigrams, as Lucene's CJK analyzer does: "花生过敏" -> 花生 生过 过敏,
    so a query "花生" finds it. Stemming is Snowball English (Porter 2).

    Example:
        >>> Analyzer("demo")("Moving the allergies!")
        ['move', 'allergi']
    """

    name: str
    stem: bool = True
    stopwords: bool = True
    cjk_bigrams: bool = True

    def __call__(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise TypeError(
                f"tokenize() needs a str, got {type(text).__name__}; "
                "convert the value to text first (e.g. str(value))"
            )
        stop = STOPWORDS if self.stopwords else ()
        stem = _english_stem if self.stem else None
        cached = _stem_cache.get
        out: list[str] = []
        append = out.append
        for word in _words(unicodedata.normalize("NFKC", text).lower()):
            if self.cjk_bigrams and not word.isascii() and _CJK_RUN.search(word):
                # split the word into CJK runs (bigrams) and the rest (ordinary words)
                pos = 0
                for run in _CJK_RUN.finditer(word):
                    if run.start() > pos:
                        self._plain(word[pos:run.start()], stop, stem, append)
                    out.extend(_cjk_bigrams(run.group()))
                    pos = run.end()
                if pos < len(word):
                    self._plain(word[pos:], stop, stem, append)
            elif word not in stop:  # the common case, inlined: it runs once per word
                if stem is not None:
                    known = cached(word)
                    if known is not None:
                        word = known
                    elif len(word) <= _MAX_STEM_LEN and not word.isdigit():
                        word = stem(word)
                append(word)
        return out

    @staticmethod
    def _plain(word: str, stop, stem, append) -> None:
        if word not in stop:
            if stem is not None and len(word) <= _MAX_STEM_LEN and not word.isdigit():
                word = stem(word)
            append(word)

    def __repr__(self) -> str:
        return (f"Analyzer({self.name!r}, stem={self.stem}, stopwords={self.stopwords}, "
                f"cjk_bigrams={self.cjk_bigrams})")


#: The analyzers the course compares; `tokenize` is DEFAULT_ANALYZER.
ANALYZERS: dict[str, Analyzer] = {
    a.name: a
    for a in (
        Analyzer("stemmed"),
        Analyzer("stemmed-all-words", stopwords=False),
        Analyzer("unstemmed", stem=False),
        Analyzer("unstemmed-all-words", stem=False, stopwords=False),
    )
}
DEFAULT_ANALYZER = ANALYZERS["stemmed"]
#: What the default tokens depend on; stores that keep tokens on disk (the FTS5
#: mirror in memlib.storage) rebuild them when this changes.
ANALYZER_ID = f"{DEFAULT_ANALYZER!r} nfkc unicode {unicodedata.unidata_version} snowball-english"


def tokenize(text: str) -> list[str]:
    """The search tokens of `text` with the default analyzer (see `Analyzer`).

    Lowercased words with stopwords removed and Snowball English stems; underscores,
    punctuation and whitespace separate words, apostrophes do too ("don't" gives
    ["don", "t"]); CJK runs become character bigrams. Any str is accepted.

    Example:
        >>> tokenize("The user's cats are named Biscuit_2!")
        ['user', 's', 'cat', 'name', 'biscuit', '2']
        >>> tokenize("我的妹妹对花生过敏")
        ['我的', '的妹', '妹妹', '妹对', '对花', '花生', '生过', '过敏']
    """
    return DEFAULT_ANALYZER(text)
