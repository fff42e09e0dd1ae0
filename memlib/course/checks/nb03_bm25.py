"""Notebook 03's check, exercise 2: BM25 (okapi) from tf and idf."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from memlib.course.checking import CheckFailed, expect, fresh_random, graded, passed
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _as_callable, _call, _short, ordinal

__all__ = ["check_bm25", "reference_bm25_scores", "BM25_MISTAKES"]


# ============================================================================
# 03 · exercise 2: BM25 (okapi) from tf and idf
# ============================================================================


def reference_bm25_scores(query_tokens: Sequence[str], docs_tokens: Sequence[Sequence[str]],
                          k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> list[float]:
    """BM25 okapi scores of every document, as `rank_bm25.BM25Okapi(docs).get_scores(query)`."""
    from rank_bm25 import BM25Okapi

    if not docs_tokens:
        return []
    return [float(s) for s in BM25Okapi([list(d) for d in docs_tokens], k1=k1, b=b, epsilon=epsilon)
            .get_scores(list(query_tokens))]


def _bm25_variant(query, docs, k1=1.5, b=0.75, epsilon=0.25, *, idf="okapi", tf="count", norm=True,
                  avgdl="mean", floor="mean", k1p1=True, dedupe=False) -> list[float]:
    """BM25 with one knob turned the wrong way: the mistakes `check_bm25` recognises."""
    n = len(docs)
    if n == 0:
        return []
    counts = [Counter(d) for d in docs]
    df = Counter(t for c in counts for t in c)
    cf = Counter(t for d in docs for t in d)
    lengths = [len(d) for d in docs]
    if avgdl == "mean":
        avg = sum(lengths) / n
    elif avgdl == "distinct":
        avg = sum(len(c) for c in counts) / n
    elif avgdl == "total":
        avg = float(sum(lengths))
    else:  # "max"
        avg = float(max(lengths))
    freq = cf if idf == "cf" else df

    def raw(t):
        if idf == "lucene":
            return math.log(1 + (n - freq[t] + 0.5) / (freq[t] + 0.5))
        return math.log(n - freq[t] + 0.5) - math.log(freq[t] + 0.5)

    weights = {t: raw(t) for t in freq}
    if idf in ("okapi", "cf"):
        mean = sum(weights.values()) / len(weights) if weights else 0.0
        for t, w in weights.items():
            if w < 0:
                weights[t] = {"mean": epsilon * mean, "none": w, "zero": 0.0, "const": epsilon}[floor]
    if idf == "none":
        weights = {t: 1.0 for t in freq}
    terms = list(dict.fromkeys(query)) if dedupe else list(query)
    scores = []
    for c, dl in zip(counts, lengths):
        total = 0.0
        for t in terms:
            f = c.get(t, 0)
            if not f:
                continue
            if tf == "presence":
                f = 1
            k = k1 * (1 - b + b * dl / avg) if norm else k1
            total += weights.get(t, 0.0) * (f * ((k1 + 1) if k1p1 else 1) / (f + k))
        scores.append(total)
    return scores


#: Wrong answers the BM25 check recognises: name -> (variant options, what is wrong, hint).
BM25_MISTAKES: dict[str, tuple[dict, str, str]] = {
    "no_idf": ({"idf": "none"}, "every term weighs the same",
               "is idf used? each term's part is multiplied by idf(term) = ln(N - n + 0.5) - ln(n + 0.5)"),
    "collection_frequency": ({"idf": "cf"}, "idf counts occurrences, not documents",
                             "is idf using the document frequency? n is the number of documents that contain "
                             "the term, not how many times it occurs in the corpus"),
    "lucene_idf": ({"idf": "lucene"}, "this is the lucene idf ln(1 + (N - n + 0.5) / (n + 0.5))",
                   "this exercise asks for the okapi idf of rank_bm25: ln(N - n + 0.5) - ln(n + 0.5), "
                   "floored at epsilon x mean idf"),
    "no_length_norm": ({"norm": False}, "document length does not change the scores",
                       "is there length normalisation? the denominator is "
                       "tf + k1 * (1 - b + b * len(doc) / avgdl)"),
    "presence": ({"tf": "presence"}, "a term that occurs twice counts like a term that occurs once",
                 "tf is how many times the term occurs in the document (Counter(doc)[term]), not 0 or 1"),
    "avgdl_distinct": ({"avgdl": "distinct"}, "avgdl is off",
                       "avgdl is the mean document length in tokens, repeats included: "
                       "sum(len(d) for d in docs) / len(docs), not the mean number of distinct terms"),
    "avgdl_total": ({"avgdl": "total"}, "avgdl is off",
                    "avgdl is the mean document length: divide the total number of tokens by the number "
                    "of documents"),
    "avgdl_max": ({"avgdl": "max"}, "avgdl is off",
                  "avgdl is the mean document length (sum / count), not the longest document"),
    "no_k1_plus_1": ({"k1p1": False}, "every score is (k1 + 1) times too small",
                     "the okapi numerator is tf * (k1 + 1); rank_bm25 keeps that factor"),
    "no_floor": ({"floor": "none"}, "negative idf is not floored",
                 "a term in more than half the documents gets a negative idf; rank_bm25 replaces it by "
                 "epsilon x the mean idf over the whole vocabulary"),
    "zero_floor": ({"floor": "zero"}, "negative idf is set to 0",
                   "rank_bm25 replaces a negative idf by epsilon x the mean idf over the whole vocabulary, not 0"),
    "constant_floor": ({"floor": "const"}, "negative idf is set to epsilon itself",
                       "the floor is epsilon x the mean idf over the whole vocabulary (average_idf), not epsilon"),
    "dedupe_query": ({"dedupe": True}, "a repeated query term counts once",
                     "sum over the query tokens as given: a token that appears twice in the query counts twice"),
}


@dataclass(frozen=True)
class _BM25Case:
    label: str
    query: tuple[str, ...]
    docs: tuple[tuple[str, ...], ...]
    doc_names: tuple[str, ...]
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25


def _bm25_cases() -> list[_BM25Case]:
    from memlib import datasets
    from memlib.retrieval import tokenize

    def small(label, query, docs, **kw):
        docs = tuple(tuple(d.split()) for d in docs)
        return _BM25Case(label, tuple(query.split()), docs, tuple(f"document {i}" for i in range(len(docs))), **kw)

    cases = [
        small("a young memory of 3 documents", "ines lisbon",
              ["ines sister lisbon", "ines dentist may", "ines cat biscuit"]),
        small("term frequency", "heron",
              ["heron heron kafka", "heron batch scans", "cello lesson friday", "allotment beans",
               "biscuit vet", "galway mother"]),
        small("rare versus common terms", "kafka heron",
              ["heron project team", "heron project plan", "heron standup notes", "kafka streaming heron",
               "heron heron review", "cello", "biscuit walk"]),
        small("short and long documents", "lisbon",
              ["talk in lisbon", "the conference talk is in lisbon in june and the slides are due in may "
               "with a rehearsal in leeds before that", "cello", "allotment", "galway"]),
        small("a repeated query term", "sam sam rota",
              ["sam rota nights", "sam nurse", "rota change", "ada swimming", "biscuit"]),
        # Boundaries: idf is exactly 0 for a term in exactly half the documents (kept, not floored,
        # as rank-bm25 does) and a single document. No case has no documents at all: the contract
        # does not say what that gives (rank-bm25 itself raises), so an answer may do either.
        small("a term in exactly half of 4 documents", "heron plan",
              ["heron plan review", "heron notes", "cello lesson", "biscuit walk"]),
        small("a single document", "ines lisbon", ["ines flies to lisbon in june"]),
        small("k1=1.2, b=0.5", "biscuit vet",
              ["biscuit vet otley road", "biscuit walk", "vet bill", "cello lesson", "biscuit biscuit food treats"],
              k1=1.2, b=0.5),
    ]
    facts = datasets.load("facts")
    docs = tuple(tuple(tokenize(f.text)) for f in facts)
    names = tuple(f.id for f in facts)
    for q in datasets.load("queries")[:24]:
        cases.append(_BM25Case(f"query {q.id} {q.question!r} over the {len(facts)} course facts",
                               tuple(tokenize(q.question)), docs, names))
    return cases


def _fresh_bm25_cases(rng) -> list[_BM25Case]:
    """Four cases drawn for one grading run: a sample of the course facts, a query of their words, k1 and b."""
    from memlib import datasets
    from memlib.retrieval import tokenize

    facts = list(datasets.load("facts"))
    cases = []
    for n in range(4):
        chosen = rng.sample(facts, rng.randrange(3, min(40, len(facts))))
        docs = tuple(tuple(tokenize(f.text)) for f in chosen)
        words = sorted({t for d in docs for t in d})
        query = tuple(rng.choice(words) for _ in range(rng.randrange(1, 5)))
        cases.append(_BM25Case(f"a case drawn for this grading run ({n + 1} of 4): {len(docs)} course facts",
                               query, docs, tuple(f.id for f in chosen),
                               k1=round(rng.uniform(0.8, 2.0), 2), b=round(rng.uniform(0.3, 0.9), 2)))
    return cases


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9) for x, y in zip(a, b))


def _ranks(scores: Sequence[float]) -> list[int]:
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    ranks = [0] * len(scores)
    for position, i in enumerate(order, start=1):
        ranks[i] = position
    return ranks


def _rank_difference(case: _BM25Case, got: Sequence[float], expected: Sequence[float]) -> str | None:
    got_ranks, want_ranks = _ranks(got), _ranks(expected)
    for i in sorted(range(len(expected)), key=lambda i: want_ranks[i])[:10]:
        if got_ranks[i] != want_ranks[i] and not math.isclose(got[i], expected[i], rel_tol=1e-6, abs_tol=1e-9):
            return (f"for {case.label}, {case.doc_names[i]} ranks {ordinal(got_ranks[i])}, expected "
                    f"{ordinal(want_ranks[i])} (score {got[i]:.4f}, expected {expected[i]:.4f})")
    return None


def _bm25_example(cases: Sequence[_BM25Case], results, expected, wrong: Sequence[int]) -> str:
    """One concrete difference: a document ranked in the wrong place if there is one, else a score."""
    for i in wrong:
        text = _rank_difference(cases[i], results[i], expected[i])
        if text:
            return text
    case, got, want = cases[wrong[0]], results[wrong[0]], expected[wrong[0]]
    j = next(j for j in range(len(want)) if not math.isclose(got[j], want[j], rel_tol=1e-6, abs_tol=1e-9))
    return f"for {case.label}, {case.doc_names[j]} scores {got[j]:.4f}, expected {want[j]:.4f}"


@graded("03-bm25", "exercise 2: BM25 okapi scores equal rank_bm25's on toy corpora and the course facts",
        references=("memlib.course.checks.nb03_bm25:reference_bm25_scores", "rank_bm25:BM25Okapi",
                    "memlib.retrieval:BM25Index"))
def check_bm25(bm25_scores: Callable) -> None:
    """Check exercise 2: `bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25) -> list[float]`.

    Fixed: one score per document in order, equal to
    rank_bm25.BM25Okapi within 1e-6: okapi idf ln(N - n + 0.5) - ln(n + 0.5), a negative idf
    replaced by epsilon x the mean idf (an idf of exactly 0 is kept), tf and length
    normalisation with the given k1 and b; the token lists are not changed. Free: data
    structures and loop order (term at a time, document at a time, numpy), and what an empty
    corpus gives (the contract is silent there; rank-bm25 raises).
    """
    fn = _as_callable(bm25_scores, "bm25_scores")
    _judge_bm25(fn, _bm25_cases(), fresh=False)
    # the grader's checker only: cases no answer can have looked up, judged after the fixed ones so that
    # an answer the student's own check fails gets the same message from the grader
    rng = fresh_random("03-bm25")
    if rng is not None:
        _judge_bm25(fn, _fresh_bm25_cases(rng), fresh=True)


def _judge_bm25(fn: Callable, cases: list[_BM25Case], *, fresh: bool) -> None:
    results: list[list[float]] = []
    for case in cases:
        docs = [list(d) for d in case.docs]
        query = list(case.query)
        out = _call(fn, (query, docs), dict(k1=case.k1, b=case.b, epsilon=case.epsilon),
                    where=f"bm25_scores on {case.label}")
        try:
            values = [float(v) for v in out]
        except (TypeError, ValueError):
            raise CheckFailed(f"bm25_scores returned {type(out).__name__} {_short(out)} for {case.label}",
                              "return a list with one float score per document, in the order of docs_tokens") from None
        if len(values) != len(docs):
            raise CheckFailed(
                f"bm25_scores returned {len(values)} scores for {len(docs)} documents ({case.label})",
                "one score per document, in the order of docs_tokens, 0.0 for documents that match nothing",
            )
        if any(math.isnan(v) for v in values):
            raise CheckFailed(f"bm25_scores returned NaN for {case.label}",
                              "look for 0/0: avgdl, or a length of 0")
        expect(docs == [list(d) for d in case.docs] and query == list(case.query),
               "bm25_scores changed the token lists it was given", "read the lists without modifying them")
        results.append(values)
    if not fresh:
        passed("one float per document, inputs left alone")
    expected = [reference_bm25_scores(c.query, c.docs, c.k1, c.b, c.epsilon) for c in cases]
    wrong = [i for i in range(len(cases)) if not _close(results[i], expected[i])]
    if not wrong:
        passed(f"scores equal rank_bm25.BM25Okapi on {len(cases)} cases drawn for this grading run" if fresh else
               f"scores equal rank_bm25.BM25Okapi on {len(cases) - 24} toy corpora and 24 queries over the course facts")
        return
    example = _bm25_example(cases, results, expected, wrong)
    for name, (options, what, hint) in BM25_MISTAKES.items():
        if all(_close(results[i], _bm25_variant(c.query, c.docs, c.k1, c.b, c.epsilon, **options))
               for i, c in enumerate(cases)):
            raise CheckFailed(f"{what}: {example}", hint)
    ignores_params = all(
        _close(results[i], reference_bm25_scores(c.query, c.docs)) for i, c in enumerate(cases)
    )
    if ignores_params:
        raise CheckFailed(f"k1, b or epsilon is ignored: {example}",
                          "use the k1, b and epsilon arguments instead of the constants 1.5, 0.75, 0.25")
    raise CheckFailed(
        f"{len(wrong)} of {len(cases)} cases differ from rank_bm25: {example}",
        "score(q, d) = sum over query tokens t of idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)); "
        "compare your idf and avgdl with the reference on the 3-document example",
    )

EXERCISE = Exercise(
    grade_id='03-bm25',
    notebook='03_archival_bm25',
    check='check_bm25',
    answer='bm25_scores',
    points=4,
    equivalent={
        'drop: if n_docs == 0:     return [] -> pass':
            'not exercised, rather than equivalent: the stub does not say what an empty corpus gives (rank-bm25 itself raises), so the check does not ask',
        'return: return [] -> return None':
            'not exercised, rather than equivalent: the stub does not say what an empty corpus gives (rank-bm25 itself raises), so the check does not ask',
        'drop: return [] -> pass':
            'not exercised, rather than equivalent: the stub does not say what an empty corpus gives (rank-bm25 itself raises), so the check does not ask',
        'constant: 0 -> -1':
            'not exercised, rather than equivalent: the stub does not say what an empty corpus gives (rank-bm25 itself raises), so the check does not ask',
        'constant: 0.0 -> 1.0':
            'the floor of an empty vocabulary: only reached when every document is empty, where avgdl = 0 and BM25 (rank_bm25 too) is undefined',
        'constant: 0.0 -> -1.0':
            'the floor of an empty vocabulary: only reached when every document is empty, where avgdl = 0 and BM25 (rank_bm25 too) is undefined',
    },
)
