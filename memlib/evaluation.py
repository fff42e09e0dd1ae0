"""Measure memory: recall@k and MRR for retrieval, fact retention for summaries.

The metric functions are small and pure, so notebooks and graded checks can use
them on their own. `measure()` runs the course's reference measurements on the
bundled datasets, and `python -m memlib.evaluation --write` rewrites the
measured table in data/README.md (without `--write` it only prints it).

Deliberately not here: the retrieval, summarisation or guard methods themselves
(see `memlib.retrieval`, `memlib.summarize`, `memlib.guard`); the only method
defined here is the deliberately naive keyword guard the lesson argues against.

Example:
    >>> recall_at_k(["a", "b", "c"], {"c", "z"}, k=3)
    0.5
    >>> reciprocal_rank(["a", "b", "c"], {"c"})
    0.3333333333333333
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "recall_at_k", "reciprocal_rank", "mean_recall_at_k", "mrr", "fact_retention",
    "KeywordGuard", "RetrievalResult", "RetentionResult", "GuardResult", "Measurements",
    "evaluate_retrieval", "evaluate_retention", "evaluate_guard", "measure",
    "format_table", "write_readme_table", "main",
]

TABLE_START = "<!-- measured-table:start -->"
TABLE_END = "<!-- measured-table:end -->"


# -- input checks -----------------------------------------------------------

def _check_ranked(ranked_ids: object) -> list:
    if isinstance(ranked_ids, (str, bytes)) or not isinstance(ranked_ids, Iterable):
        raise TypeError(
            f"ranked_ids must be a list of ids, best first, got {type(ranked_ids).__name__}; "
            "for scorer output [(id, score), ...] pass [doc_id for doc_id, _ in results]"
        )
    ranked = list(ranked_ids)
    if any(isinstance(r, tuple) for r in ranked):
        raise TypeError(
            "ranked_ids holds tuples; pass only the ids: [doc_id for doc_id, _ in scorer.search(q)]"
        )
    return ranked


def _check_relevant(relevant_ids: object) -> set:
    if isinstance(relevant_ids, (str, bytes)) or not isinstance(relevant_ids, Iterable):
        raise TypeError(
            f"relevant_ids must be a collection of ids, got {type(relevant_ids).__name__}; "
            "wrap a single id in a list: ['fact-0001']"
        )
    relevant = set(relevant_ids)
    if not relevant:
        raise ValueError("relevant_ids is empty: recall and MRR are undefined for a query with no relevant item")
    return relevant


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    return k


# -- retrieval metrics ------------------------------------------------------

def recall_at_k(ranked_ids: Sequence[Hashable], relevant_ids: Iterable[Hashable], k: int) -> float:
    """Share of the relevant ids found in the first k ranked ids (0.0 .. 1.0).

    Duplicates in the ranking count once.

    Example:
        >>> recall_at_k(["f1", "f7", "f3"], ["f3", "f9"], k=2)
        0.0
    """
    ranked = _check_ranked(ranked_ids)
    relevant = _check_relevant(relevant_ids)
    k = _check_k(k)
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def reciprocal_rank(ranked_ids: Sequence[Hashable], relevant_ids: Iterable[Hashable], k: int | None = None) -> float:
    """1 / (1-based rank of the first relevant id), 0.0 if none is in the (first k) ranked ids."""
    ranked = _check_ranked(ranked_ids)
    relevant = _check_relevant(relevant_ids)
    if k is not None:
        ranked = ranked[: _check_k(k)]
    for position, doc_id in enumerate(ranked, start=1):
        if doc_id in relevant:
            return 1.0 / position
    return 0.0


def _check_runs(runs: object) -> list[tuple[list, set]]:
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Iterable):
        raise TypeError("runs must be a list of (ranked_ids, relevant_ids) pairs, one per query")
    out = []
    for n, run in enumerate(runs):
        if not (isinstance(run, (tuple, list)) and len(run) == 2):
            raise TypeError(f"run {n} is {run!r}; each run must be a (ranked_ids, relevant_ids) pair")
        out.append((_check_ranked(run[0]), _check_relevant(run[1])))
    if not out:
        raise ValueError("runs is empty: a mean over zero queries is undefined")
    return out


def mean_recall_at_k(runs: Iterable[tuple[Sequence[Hashable], Iterable[Hashable]]], k: int) -> float:
    """Mean recall@k over queries; `runs` is [(ranked_ids, relevant_ids), ...]."""
    checked = _check_runs(runs)
    k = _check_k(k)
    return sum(recall_at_k(r, rel, k) for r, rel in checked) / len(checked)


def mrr(runs: Iterable[tuple[Sequence[Hashable], Iterable[Hashable]]], k: int | None = None) -> float:
    """Mean reciprocal rank over queries; `runs` is [(ranked_ids, relevant_ids), ...].

    Example:
        >>> mrr([(["a", "b"], ["b"]), (["c"], ["c"]), (["d"], ["x"])])
        0.5
    """
    checked = _check_runs(runs)
    return sum(reciprocal_rank(r, rel, k) for r, rel in checked) / len(checked)


# -- summaries ------------------------------------------------------------------

def _normalise(text: str) -> str:
    # Case and runs of whitespace should not decide whether a fact survived
    # (summarisers re-join lines and collapse spaces).
    return " ".join(text.lower().split())


def fact_retention(summary: str, facts: Iterable[str]) -> float:
    """Share of `facts` (key phrases) still findable in `summary`.

    A fact is findable when its key phrase occurs in the summary, ignoring case
    and differences in whitespace. Key phrases are the short answers the
    conversation dataset records per turn (`Turn.facts`), e.g. "Thursday at 8".
    Duplicate phrases count once.

    Example:
        >>> fact_retention("- user: The plumber comes Thursday at 8.", ["thursday at 8", "Larsen"])
        0.5
    """
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a str, got {type(summary).__name__}")
    if isinstance(facts, (str, bytes)) or not isinstance(facts, Iterable):
        raise TypeError("facts must be a list of key phrases (str), e.g. ['Thursday at 8', 'Larsen']")
    phrases = list(dict.fromkeys(facts))
    bad = [p for p in phrases if not isinstance(p, str) or not p.strip()]
    if bad:
        raise ValueError(f"facts must be non-empty strings, got {bad[:3]!r}")
    if not phrases:
        raise ValueError("facts is empty: nothing was evicted, so retention is undefined; evict something first")
    haystack = _normalise(summary)
    return sum(_normalise(p) in haystack for p in phrases) / len(phrases)


# -- the naive guard ------------------------------------------------------------

@dataclass(frozen=True)
class KeywordGuard:
    """Flags a note when it contains one of a few trigger phrases (case-insensitive).

    The lesson's strawman for notebook 07: it looks reasonable and misses most
    real injections. Not a defence; see `memlib.guard` for exercise 4.
    """

    phrases: tuple[str, ...] = ("ignore previous instructions",)

    def flags(self, text: str) -> bool:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        low = text.lower()
        return any(p.lower() in low for p in self.phrases)

    def __repr__(self) -> str:
        return f"KeywordGuard({list(self.phrases)})"


# -- measurements on the bundled data ----------------------------------------

@dataclass(frozen=True)
class RetrievalResult:
    method: str
    recall_at_10: float
    mrr_at_10: float
    recall_by_kind: dict = field(default_factory=dict)
    analyzer: str = "stemmed"
    mrr_by_kind: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f"RetrievalResult({self.method}, {self.analyzer}: recall@10={self.recall_at_10:.3f}, "
                f"MRR@10={self.mrr_at_10:.3f})")


@dataclass(frozen=True)
class RetentionResult:
    summarizer: str
    window: int
    summary_tokens: int
    evicted_facts: int
    retained: float
    early_question_phrases: float
    flushes: int = 0
    mean_over_flushes: float = 0.0

    def __repr__(self) -> str:
        return (f"RetentionResult({self.summarizer}: retention={self.retained:.3f} of {self.evicted_facts} "
                f"evicted facts, mean over {self.flushes} flushes={self.mean_over_flushes:.3f})")


@dataclass(frozen=True)
class GuardResult:
    guard: str
    injections: int
    benign: int
    recall: float
    false_positive_rate: float

    def __repr__(self) -> str:
        return f"GuardResult({self.guard}: recall={self.recall:.3f}, FPR={self.false_positive_rate:.3f})"


@dataclass(frozen=True)
class Measurements:
    retrieval: tuple[RetrievalResult, ...]
    retention: tuple[RetentionResult, ...]
    guard: GuardResult

    def __repr__(self) -> str:
        return f"Measurements({len(self.retrieval)} retrieval, {len(self.retention)} retention, {self.guard!r})"


def retrieval_methods() -> tuple[str, ...]:
    """The scorers measured: every entry of `memlib.retrieval.SCORERS`, in registry order."""
    from memlib.retrieval import SCORERS

    return tuple(SCORERS)


def evaluate_retrieval(method: str, facts=None, queries=None, k: int = 10,
                       analyzer: str | None = None) -> RetrievalResult:
    """recall@k and MRR@k of `memlib.retrieval.make_scorer(method, analyzer)` on the queries dataset.

    analyzer: a `memlib.retrieval.ANALYZERS` name (default: the default analyzer).
    """
    from memlib import datasets
    from memlib.retrieval import DEFAULT_ANALYZER, make_scorer

    facts = datasets.load("facts") if facts is None else facts
    queries = datasets.load("queries") if queries is None else queries
    analyzer = DEFAULT_ANALYZER.name if analyzer is None else analyzer
    scorer = make_scorer(method, analyzer)
    for record in facts:
        scorer.add(record.id, record.text)
    runs, by_kind = [], {}
    for q in queries:
        ranked = [doc_id for doc_id, _ in scorer.search(q.question, k)]
        runs.append((ranked, q.relevant_ids))
        by_kind.setdefault(q.kind, []).append((ranked, q.relevant_ids))
    return RetrievalResult(
        method=method,
        recall_at_10=mean_recall_at_k(runs, k),
        mrr_at_10=mrr(runs, k),
        recall_by_kind={kind: mean_recall_at_k(r, k) for kind, r in sorted(by_kind.items())},
        analyzer=analyzer,
        mrr_by_kind={kind: mrr(r, k) for kind, r in sorted(by_kind.items())},
    )


def compare_analyzers(method: str = "bm25-lucene", **kwargs) -> tuple[RetrievalResult, ...]:
    """`evaluate_retrieval` of one scorer under every analyzer in `memlib.retrieval.ANALYZERS`."""
    from memlib.retrieval import ANALYZERS

    return tuple(evaluate_retrieval(method, analyzer=name, **kwargs) for name in ANALYZERS)


RETENTION_WINDOW = 1024
RETENTION_SUMMARY_TOKENS = 192


def evaluate_retention(summarizer, window: int = RETENTION_WINDOW,
                       summary_tokens: int = RETENTION_SUMMARY_TOKENS) -> RetentionResult:
    """Play the conversation through a small MainContext with `summarizer`; measure what the summary kept.

    Every summariser gets the same window and the same summary budget. The
    facts counted are the key phrases of every turn that was evicted by the end
    (`retained`); `mean_over_flushes` averages, over every flush, the retention
    of all facts evicted up to that flush, so it also credits a summariser that
    keeps recent facts for a while and then loses them.
    """
    from memlib import datasets
    from memlib.context import MainContext

    turns = datasets.load("conversation")
    questions = datasets.load("conversation_questions")
    facts_of = {t.turn_id: t.facts for t in turns}
    ctx = MainContext(window=window, summarizer=summarizer, summary_tokens=summary_tokens)
    evicted_so_far: list[str] = []
    per_flush: list[float] = []
    for turn in turns:
        events = ctx.append(turn.to_message())
        for event in events:
            if event.kind == "evict" and event.message is not None:
                evicted_so_far.extend(facts_of.get(event.message.id, ()))
        if any(e.kind == "flush" for e in events) and evicted_so_far:
            per_flush.append(fact_retention(ctx.summary, evicted_so_far))
    in_context = {m.id for m in ctx.messages}
    evicted_phrases = [p for t in turns if t.turn_id not in in_context for p in t.facts]
    early = [q.key_phrase for q in questions]
    return RetentionResult(
        summarizer=type(summarizer).__name__,
        window=window,
        summary_tokens=summary_tokens,
        evicted_facts=len(set(evicted_phrases)),
        retained=fact_retention(ctx.summary, evicted_phrases),
        early_question_phrases=fact_retention(ctx.summary, early),
        flushes=len(per_flush),
        mean_over_flushes=sum(per_flush) / len(per_flush) if per_flush else 0.0,
    )


def evaluate_guard(guard: KeywordGuard | None = None, notes=None) -> GuardResult:
    """Recall on injections and false-positive rate on benign notes of a guard with `.flags(text)`."""
    from memlib import datasets

    guard = KeywordGuard() if guard is None else guard
    notes = datasets.load("poisoning") if notes is None else notes
    injections = [n for n in notes if n.label == "injection"]
    benign = [n for n in notes if n.label == "benign"]
    if not injections or not benign:
        raise ValueError("notes must contain both injection and benign notes")
    return GuardResult(
        guard=repr(guard),
        injections=len(injections),
        benign=len(benign),
        recall=sum(bool(guard.flags(n.text)) for n in injections) / len(injections),
        false_positive_rate=sum(bool(guard.flags(n.text)) for n in benign) / len(benign),
    )


def measure() -> Measurements:
    """All reference measurements on the bundled data (a few seconds)."""
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer

    from memlib.retrieval import DEFAULT_ANALYZER

    # every scorer with the default analyzer, then the default scorer with each other analyzer
    retrieval = tuple(evaluate_retrieval(m) for m in retrieval_methods()) + tuple(
        r for r in compare_analyzers() if r.analyzer != DEFAULT_ANALYZER.name)
    retention = tuple(
        evaluate_retention(s) for s in (NoSummarizer(), TruncatingSummarizer(), ExtractiveSummarizer())
    )
    return Measurements(retrieval, retention, evaluate_guard())


def format_table(m: Measurements) -> str:
    """The measured results as Markdown (the block between the README markers)."""
    kinds = sorted({k for r in m.retrieval for k in r.recall_by_kind})
    lines = [
        "Retrieval on `queries` over `facts` (recall@10 per query kind in the last columns; "
        "analyzers in `memlib.retrieval.ANALYZERS`, `stemmed` is the default `tokenize`):",
        "",
        "| method | analyzer | recall@10 | MRR@10 | " + " | ".join(kinds) + " |",
        "|---|---|---|---|" + "---|" * len(kinds),
    ]
    for r in m.retrieval:
        per = " | ".join(f"{r.recall_by_kind.get(k, 0.0):.3f}" for k in kinds)
        lines.append(f"| {r.method} | {r.analyzer} | {r.recall_at_10:.3f} | {r.mrr_at_10:.3f} | {per} |")
    ret = m.retention[0]
    lines += [
        "",
        f"Fact retention on `conversation` (MainContext window {ret.window} tokens, summary budget "
        f"{ret.summary_tokens} tokens for every summariser). Fact retention: share of the key phrases "
        "of evicted turns found in the final summary; mean over flushes: the same share measured "
        "after every flush, averaged; last column: answers to the early-session questions found in "
        "the final summary:",
        "",
        "| summariser | evicted facts | fact retention | mean over flushes | early-question answers in summary |",
        "|---|---|---|---|---|",
    ]
    for r in m.retention:
        lines.append(f"| {r.summarizer} | {r.evicted_facts} | {r.retained:.3f} | "
                     f"{r.mean_over_flushes:.3f} ({r.flushes} flushes) | {r.early_question_phrases:.3f} |")
    g = m.guard
    lines += [
        "",
        "Trivial keyword guard on `poisoning` (flags notes containing \"ignore previous instructions\"):",
        "",
        "| guard | injections | benign | recall on injections | false-positive rate |",
        "|---|---|---|---|---|",
        f"| {g.guard} | {g.injections} | {g.benign} | {g.recall:.3f} | {g.false_positive_rate:.3f} |",
    ]
    return "\n".join(lines)


def _default_readme() -> Path:
    from importlib import resources

    return Path(str(resources.files("memlib.data").joinpath("README.md")))


def write_readme_table(table: str, readme: Path | None = None) -> Path:
    """Replace the text between the measured-table markers in data/README.md."""
    path = _default_readme() if readme is None else Path(readme)
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(TABLE_START) + r".*?" + re.escape(TABLE_END), re.DOTALL)
    if not pattern.search(text):
        raise ValueError(
            f"{path} has no measured-table markers; add a line {TABLE_START} and a line "
            f"{TABLE_END} where the table should go"
        )
    new = pattern.sub(lambda _: f"{TABLE_START}\n{table}\n{TABLE_END}", text, count=1)
    path.write_text(new, encoding="utf-8", newline="\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memlib.evaluation",
        description="Measure retrieval, fact retention and the keyword guard on the bundled datasets.",
    )
    parser.add_argument("--write", action="store_true", help="rewrite the table in data/README.md")
    parser.add_argument("--readme", type=Path, default=None, help="README to rewrite (default: memlib.data's)")
    args = parser.parse_args(argv)
    table = format_table(measure())
    if args.write:  # write before printing, so a closed stdout (| head) cannot stop it
        path = write_readme_table(table, args.readme)
        print(f"wrote the table into {path}", file=sys.stderr)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
