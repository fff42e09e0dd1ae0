"""Notebook 03's check, exercise 2: BM25 (okapi) from tf and idf."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from memlib.course.checking import Cases, CheckFailed, expect, graded, judge_fixed_then_fresh, passed
from memlib.course.lang import bilingual, language
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


#: The same mistakes said in Chinese (a Chinese notebook's check speaks it: memlib.course.lang): name -> (what, hint).
BM25_MISTAKES_ZH: dict[str, tuple[str, str]] = {
    "no_idf": ("每个词的权重都一样", "用上 idf 了吗？每个词那一项都要乘以 idf(term) = ln(N - n + 0.5) - ln(n + 0.5)"),
    "collection_frequency": ("idf 数的是出现次数，而不是文档数",
                             "idf 用的是文档频率吗？n 是包含这个词的文档数，而不是它在整个语料里出现了多少次"),
    "lucene_idf": ("这是 Lucene 的 idf：ln(1 + (N - n + 0.5) / (n + 0.5))",
                   "这个练习要的是 rank_bm25 的 okapi idf：ln(N - n + 0.5) - ln(n + 0.5)，下限为 epsilon × 平均 idf"),
    "no_length_norm": ("文档长度对分数没有影响", "做了长度归一化吗？分母是 tf + k1 * (1 - b + b * len(doc) / avgdl)"),
    "presence": ("出现两次的词和出现一次的词算得一样", "tf 是这个词在文档里出现的次数（Counter(doc)[term]），不是 0 或 1"),
    "avgdl_distinct": ("avgdl 算错了", "avgdl 是文档的平均长度（按 token 计，重复的也算）："
                       "sum(len(d) for d in docs) / len(docs)，而不是平均有多少个不同的词"),
    "avgdl_total": ("avgdl 算错了", "avgdl 是文档的平均长度：用 token 总数除以文档数"),
    "avgdl_max": ("avgdl 算错了", "avgdl 是文档的平均长度（总和 / 篇数），而不是最长那篇的长度"),
    "no_k1_plus_1": ("每个分数都小了 (k1 + 1) 倍", "okapi 的分子是 tf * (k1 + 1)；rank_bm25 保留了这个因子"),
    "no_floor": ("负的 idf 没有设下限", "出现在超过一半文档里的词，idf 是负数；rank_bm25 会把它换成 epsilon × 整个词表上的平均 idf"),
    "zero_floor": ("负的 idf 被设成了 0", "rank_bm25 把负的 idf 换成 epsilon × 整个词表上的平均 idf，而不是 0"),
    "constant_floor": ("负的 idf 被设成了 epsilon 本身", "下限是 epsilon × 整个词表上的平均 idf（average_idf），而不是 epsilon"),
    "dedupe_query": ("查询里重复的词只算了一次", "按给定的查询 token 逐个求和：查询里出现两次的 token 就算两次"),
}

#: Each toy corpus's label in Chinese.
CASE_LABELS_ZH = {
    "a young memory of 3 documents": "只有 3 篇文档的新记忆",
    "term frequency": "词频",
    "rare versus common terms": "少见词与常见词",
    "short and long documents": "短文档与长文档",
    "a repeated query term": "查询里重复的词",
    "a term in exactly half of 4 documents": "恰好出现在 4 篇中一半文档里的词",
    "a single document": "只有一篇文档",
    "k1=1.2, b=0.5": "k1=1.2，b=0.5",
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
    label_zh: str = ""

    def named(self) -> str:
        """The case's label in the language the course speaks."""
        return bilingual(self.label, self.label_zh or CASE_LABELS_ZH.get(self.label, self.label))

    def document(self, i: int) -> str:
        name = self.doc_names[i]
        return bilingual(name, name.replace("document ", "文档 ", 1))


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
                               tuple(tokenize(q.question)), docs, names,
                               label_zh=f"查询 {q.id} {q.question!r}（检索全部 {len(facts)} 条课程事实）"))
    return cases


def _fresh_bm25_cases(rng) -> list[_BM25Case]:
    """Four cases drawn for one grading run: a sample of the course facts, a query of their words, k1 and b,
    and one query word said twice more in one document (term frequency counts: the facts rarely repeat one)."""
    from memlib import datasets
    from memlib.retrieval import tokenize

    facts = list(datasets.load("facts"))
    cases = []
    for n in range(4):
        chosen = rng.sample(facts, rng.randrange(3, min(40, len(facts))))
        docs = [tuple(tokenize(f.text)) for f in chosen]
        words = sorted({t for d in docs for t in d})
        query = tuple(rng.choice(words) for _ in range(rng.randrange(1, 5)))
        repeated = rng.choice(query)
        holder = rng.choice([i for i, d in enumerate(docs) if repeated in d])
        docs[holder] = docs[holder] + (repeated, repeated)
        cases.append(_BM25Case(f"a case drawn for this grading run ({n + 1} of 4): {len(docs)} course facts",
                               query, tuple(docs), tuple(f.id for f in chosen),
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
            return bilingual(
                f"for {case.label}, {case.doc_names[i]} ranks {ordinal(got_ranks[i])}, expected "
                f"{ordinal(want_ranks[i])} (score {got[i]:.4f}, expected {expected[i]:.4f})",
                f"在“{case.named()}”上，{case.document(i)} 排第 {got_ranks[i]} 名，应为第 {want_ranks[i]} 名"
                f"（分数 {got[i]:.4f}，应为 {expected[i]:.4f}）")
    return None


def _bm25_example(cases: Sequence[_BM25Case], results, expected, wrong: Sequence[int]) -> str:
    """One concrete difference: a document ranked in the wrong place if there is one, else a score."""
    for i in wrong:
        text = _rank_difference(cases[i], results[i], expected[i])
        if text:
            return text
    case, got, want = cases[wrong[0]], results[wrong[0]], expected[wrong[0]]
    j = next(j for j in range(len(want)) if not math.isclose(got[j], want[j], rel_tol=1e-6, abs_tol=1e-9))
    return bilingual(f"for {case.label}, {case.doc_names[j]} scores {got[j]:.4f}, expected {want[j]:.4f}",
                     f"在“{case.named()}”上，{case.document(j)} 得分 {got[j]:.4f}，应为 {want[j]:.4f}")


EXERCISE = Exercise(
    grade_id='03-bm25',
    notebook='03_archival_bm25',
    answer='bm25_scores',
    points=4,
    description="exercise 2: BM25 okapi scores equal rank_bm25's on toy corpora and the course facts",
    # (and memlib's public code that builds a BM25Index for the caller by a registered name, or hands out the
    # registry of builders)
    references=("memlib.course.checks.nb03_bm25:reference_bm25_scores", "rank_bm25:BM25Okapi",
                "memlib.retrieval:BM25Index", "memlib.retrieval:make_scorer", "memlib.retrieval:scorer_entry",
                "memlib.retrieval:SCORERS"),
    partial_credit=True,
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


@graded(EXERCISE)
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
    # in the grader's checker, cases no answer can have looked up follow the fixed ones
    fixed = _bm25_cases()
    judge_fixed_then_fresh(EXERCISE.grade_id, lambda cases: _judge_bm25(fn, cases, fresh=cases is not fixed),
                           _fresh_bm25_cases, fixed)


def _judge_bm25(fn: Callable, cases: list[_BM25Case], *, fresh: bool) -> int:
    """How many cases `fn` got right, when it got every one right; else `CheckFailed` (with the tally
    of right cases when the scores are well-formed but some are wrong)."""
    results: list[list[float]] = []
    for case in cases:
        docs = [list(d) for d in case.docs]
        query = list(case.query)
        out = _call(fn, (query, docs), dict(k1=case.k1, b=case.b, epsilon=case.epsilon),
                    where=f"bm25_scores on {case.label}")
        try:
            values = [float(v) for v in out]
        except (TypeError, ValueError):
            raise CheckFailed(
                bilingual(f"bm25_scores returned {type(out).__name__} {_short(out)} for {case.label}",
                          f"在“{case.named()}”上，bm25_scores 返回了 {type(out).__name__} {_short(out)}"),
                bilingual("return a list with one float score per document, in the order of docs_tokens",
                          "返回一个列表，每篇文档一个 float 分数，顺序与 docs_tokens 相同")) from None
        if len(values) != len(docs):
            raise CheckFailed(
                bilingual(f"bm25_scores returned {len(values)} scores for {len(docs)} documents ({case.label})",
                          f"bm25_scores 为 {len(docs)} 篇文档返回了 {len(values)} 个分数（{case.named()}）"),
                bilingual("one score per document, in the order of docs_tokens, 0.0 for documents that match nothing",
                          "每篇文档一个分数，顺序与 docs_tokens 相同，什么都没命中的文档给 0.0"),
            )
        if any(math.isnan(v) for v in values):
            raise CheckFailed(bilingual(f"bm25_scores returned NaN for {case.label}",
                                        f"在“{case.named()}”上，bm25_scores 返回了 NaN"),
                              bilingual("look for 0/0: avgdl, or a length of 0", "找找 0/0：avgdl，或者长度为 0 的文档"))
        expect(docs == [list(d) for d in case.docs] and query == list(case.query),
               bilingual("bm25_scores changed the token lists it was given", "bm25_scores 改动了传给它的 token 列表"),
               bilingual("read the lists without modifying them", "只读这些列表，不要修改它们"))
        results.append(values)
    if not fresh:
        passed(bilingual("one float per document, inputs left alone", "每篇文档一个 float，输入没有被改动"))
    expected = [reference_bm25_scores(c.query, c.docs, c.k1, c.b, c.epsilon) for c in cases]
    wrong = [i for i in range(len(cases)) if not _close(results[i], expected[i])]
    if not wrong:
        passed(bilingual(f"scores equal rank_bm25.BM25Okapi on {len(cases)} cases drawn for this grading run",
                         f"在本次评分抽取的 {len(cases)} 个用例上，分数都与 rank_bm25.BM25Okapi 一致") if fresh else
               bilingual(f"scores equal rank_bm25.BM25Okapi on {len(cases) - 24} toy corpora and 24 queries "
                         f"over the course facts",
                         f"{len(cases) - 24} 个小语料，加上检索课程事实的 24 个查询，分数都与 rank_bm25.BM25Okapi 一致"))
        return len(cases)
    tally = Cases(len(cases) - len(wrong), len(cases))
    example = _bm25_example(cases, results, expected, wrong)
    for name, (options, what, hint) in BM25_MISTAKES.items():
        if all(_close(results[i], _bm25_variant(c.query, c.docs, c.k1, c.b, c.epsilon, **options))
               for i, c in enumerate(cases)):
            if language() == "zh":
                what, hint = BM25_MISTAKES_ZH[name]
            raise CheckFailed(bilingual(f"{what}: {example}", f"{what}：{example}"), hint, cases=tally)
    ignores_params = all(
        _close(results[i], reference_bm25_scores(c.query, c.docs)) for i, c in enumerate(cases)
    )
    if ignores_params:
        raise CheckFailed(bilingual(f"k1, b or epsilon is ignored: {example}",
                                    f"k1、b 或 epsilon 被忽略了：{example}"),
                          bilingual("use the k1, b and epsilon arguments instead of the constants 1.5, 0.75, 0.25",
                                    "用参数 k1、b 和 epsilon，而不是常数 1.5、0.75、0.25"), cases=tally)
    raise CheckFailed(
        bilingual(f"{len(wrong)} of {len(cases)} cases differ from rank_bm25: {example}",
                  f"{len(cases)} 个用例里有 {len(wrong)} 个和 rank_bm25 不一致：{example}"),
        bilingual("score(q, d) = sum over query tokens t of idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| "
                  "/ avgdl)); compare your idf and avgdl with the reference on the 3-document example",
                  "score(q, d) = 对查询里每个 token t 求和 idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| "
                  "/ avgdl))；在那个 3 篇文档的例子上，把你的 idf 和 avgdl 与参考实现对比一下"),
        cases=tally,
    )
