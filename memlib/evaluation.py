"""Measure memory: recall@k and MRR for retrieval, fact retention for summaries, the guard's rates.

The metric functions are `memlib.metrics` (small and pure, so notebooks and
graded checks can use them on their own), re-exported here. `measure()` runs the
course's reference measurements on the bundled datasets, and
`python -m memlib.evaluation --write` rewrites the measured table in
data/README.md (without `--write` it only prints it).

The guard is measured on both poisoning splits (development, and held-out: written
before the rules and never used to tune them), per family, next to two comparisons
defined here: the deliberately naive keyword guard the lesson argues against, and a
small naive Bayes classifier trained on the development split only (issue 15 asked
whether one pays where the rules stop; the figures answer it).

Deliberately not here: the retrieval, summarisation or guard rules themselves
(see `memlib.retrieval`, `memlib.summarize`, `memlib.scanner`).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from math import log
from pathlib import Path
from typing import Protocol

from memlib import datasets, retrieval
from memlib.context import MainContext
from memlib.datasets import BENIGN_KINDS, INJECTION_FAMILIES
# The metrics themselves, re-exported: notebooks and checks import them from here.
from memlib.metrics import fact_retention, mean_recall_at_k, mrr, recall_at_k, reciprocal_rank  # noqa: F401
from memlib.retrieval import DEFAULT_ANALYZER, make_scorer
from memlib.scanner import scan
from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer
from memlib.tokens import count as count_tokens

__all__ = [
    "recall_at_k", "reciprocal_rank", "mean_recall_at_k", "mrr", "fact_retention",
    "KeywordGuard", "NaiveBayesGuard", "RulesGuard", "EitherGuard", "RetrievalResult", "RetentionResult", "GuardResult", "Measurements",
    "evaluate_retrieval", "evaluate_retention", "evaluate_guard", "evaluate_guards", "measure",
    "format_table", "write_readme_table", "main",
    "ProfileResult", "evaluate_profile",
]

TABLE_START = "<!-- measured-table:start -->"
TABLE_END = "<!-- measured-table:end -->"


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


class RulesGuard:
    """`memlib.guard.scan` with the `.flags(text)` interface the measurements use."""

    def flags(self, text: str) -> bool:
        return not scan(text).trusted

    def __repr__(self) -> str:
        return "memlib.guard.scan (rules)"


_NB_WORD = re.compile(r"[^\W\d_]+|\d+|[^\w\s]")


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _nb_features(text: str) -> list[str]:
    """Word unigrams and bigrams, and character 3- to 5-grams inside words (lower-cased); a
    run of Han characters, which has no spaces to split on, also gives its character 2-grams."""
    words = _NB_WORD.findall(text.lower()[:5000])
    feats = [f"w:{w}" for w in words] + [f"b:{a} {b}" for a, b in zip(words, words[1:])]
    for w in words:
        padded = f" {w} "
        feats += [f"c:{padded[i:i + n]}" for n in (3, 4, 5) for i in range(len(padded) - n + 1)]
        if _HAN.search(w):
            feats += [f"c:{w[i:i + 2]}" for i in range(len(w) - 1)]
    return feats


@dataclass
class NaiveBayesGuard:
    """Multinomial naive Bayes over word and character n-grams, trained on labelled notes.

    Deterministic (counts, Laplace smoothing, no randomness). `threshold` is on the
    log-odds of "injection"; `fit` picks it on out-of-fold scores of the training notes
    (five folds by note id) as the lowest value whose false-positive rate stays at or
    under `max_fpr`, so the held-out split plays no part.
    """

    threshold: float = 0.0
    log_prior: float = 0.0
    weights: dict = field(default_factory=dict)  # feature -> log P(f|injection) - log P(f|benign)
    default: float = 0.0  # the weight of a feature never seen in training
    trained_on: str = "the development split"  # what `repr` says it learned from

    @classmethod
    def fit(cls, notes, max_fpr: float = 0.02, trained_on: str = "the development split") -> "NaiveBayesGuard":
        notes = list(notes)
        folds = [[n for i, n in enumerate(sorted(notes, key=lambda n: n.id)) if i % 5 == k] for k in range(5)]
        scored = []
        for k in range(5):
            model = cls._train([n for j, f in enumerate(folds) if j != k for n in f])
            scored += [(model.score(n.text), n.is_injection) for n in folds[k]]
        benign = sorted((s for s, inj in scored if not inj), reverse=True)
        allowed = int(max_fpr * len(benign))
        model = cls._train(notes)
        model.threshold = benign[allowed] if allowed < len(benign) else benign[-1]
        model.trained_on = trained_on
        return model

    @classmethod
    def _train(cls, notes) -> "NaiveBayesGuard":
        counts: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
        docs: Counter[bool] = Counter()
        for n in notes:
            counts[n.is_injection].update(_nb_features(n.text))
            docs[n.is_injection] += 1
        vocab = set(counts[True]) | set(counts[False])
        total = {c: sum(counts[c].values()) + len(vocab) for c in (True, False)}
        weights = {f: log((counts[True][f] + 1) / total[True]) - log((counts[False][f] + 1) / total[False])
                   for f in vocab}
        return cls(0.0, log(docs[True] / docs[False]), weights, log(total[False] / total[True]))

    def score(self, text: str) -> float:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        feats = _nb_features(text)
        return self.log_prior + sum(self.weights.get(f, self.default) for f in feats) / max(1, len(feats)) ** 0.5

    def flags(self, text: str) -> bool:
        return self.score(text) > self.threshold

    def __repr__(self) -> str:
        return f"naive Bayes on {self.trained_on} ({len(self.weights):,} n-grams)"


class Guard(Protocol):
    """What `evaluate_guard` measures: anything that says whether a note's text is flagged."""

    def flags(self, text: str) -> bool: ...


@dataclass(frozen=True)
class EitherGuard:
    """Flags a note when either guard does (rules OR classifier)."""

    first: Guard
    second: Guard
    name: str = "rules or naive Bayes"

    def flags(self, text: str) -> bool:
        return self.first.flags(text) or self.second.flags(text)

    def __repr__(self) -> str:
        return self.name


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
    split: str = "poisoning"
    by_category: dict = field(default_factory=dict)  # family or benign kind -> (flagged, notes)

    def __repr__(self) -> str:
        return (f"GuardResult({self.guard} on {self.split}: recall={self.recall:.3f}, "
                f"FPR={self.false_positive_rate:.3f})")


@dataclass(frozen=True)
class Measurements:
    retrieval: tuple[RetrievalResult, ...]
    retention: tuple[RetentionResult, ...]
    guard: GuardResult
    guards: tuple[GuardResult, ...] = ()  # every guard on every poisoning split
    independent: tuple[RetrievalResult, ...] = ()  # retrieval on `queries_independent`

    def __repr__(self) -> str:
        return f"Measurements({len(self.retrieval)} retrieval, {len(self.retention)} retention, {self.guard!r})"


def retrieval_methods() -> tuple[str, ...]:
    """The scorers measured: every entry of `memlib.retrieval.SCORERS`, in registry order."""
    return tuple(retrieval.SCORERS)  # looked up now: the registry is the one in use, not the one at import


def evaluate_retrieval(method: str, facts=None, queries=None, k: int = 10,
                       analyzer: str | None = None) -> RetrievalResult:
    """recall@k and MRR@k of `memlib.retrieval.make_scorer(method, analyzer)` on the queries dataset.

    analyzer: a `memlib.retrieval.ANALYZERS` name (default: the default analyzer).
    """
    facts = datasets.load("facts") if facts is None else facts
    queries = datasets.load("queries") if queries is None else queries
    analyzer = DEFAULT_ANALYZER.name if analyzer is None else analyzer
    scorer = make_scorer(method, analyzer)
    for record in facts:
        scorer.add(record.id, record.text)
    runs = []
    by_kind: dict[str, list] = {}
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
    return tuple(evaluate_retrieval(method, analyzer=name, **kwargs) for name in retrieval.ANALYZERS)


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


def evaluate_guard(guard: Guard | None = None, notes=None, split: str | None = None) -> GuardResult:
    """Recall on injections and false-positive rate on benign notes of a guard with `.flags(text)`,
    overall and per family or benign kind (`by_category`)."""
    guard = KeywordGuard() if guard is None else guard
    split = split if split is not None else ("poisoning" if notes is None else "notes")
    notes = datasets.load("poisoning") if notes is None else notes
    injections = [n for n in notes if n.label == "injection"]
    benign = [n for n in notes if n.label == "benign"]
    if not injections or not benign:
        raise ValueError("notes must contain both injection and benign notes")
    flagged = {n.id: bool(guard.flags(n.text)) for n in notes}
    totals, hits = Counter(n.category for n in notes), Counter(n.category for n in notes if flagged[n.id])
    return GuardResult(
        guard=repr(guard),
        injections=len(injections),
        benign=len(benign),
        recall=sum(flagged[n.id] for n in injections) / len(injections),
        false_positive_rate=sum(flagged[n.id] for n in benign) / len(benign),
        split=split,
        by_category={c: (hits[c], totals[c]) for c in sorted(totals)},
    )


POISONING_SPLITS = ("poisoning", "poisoning_heldout", "poisoning_independent", "poisoning_third_author")
#: What naive Bayes learns from when it is trained on two authors' notes.
TWO_AUTHORS = "two authors (development split and third author)"


def two_author_guard() -> NaiveBayesGuard:
    """Naive Bayes trained on the development split and the third author's notes together."""
    return NaiveBayesGuard.fit(datasets.load("poisoning") + datasets.load("poisoning_third_author"),
                               trained_on=TWO_AUTHORS)


@functools.lru_cache(maxsize=1)
def evaluate_guards() -> tuple[GuardResult, ...]:
    """The keyword guard, the rules, naive Bayes (on the development split, then on two authors' notes)
    and rules or naive Bayes, each on every split of `POISONING_SPLITS`.

    Computed once per process (the bundled notes do not change; the results are frozen)."""
    nb, nb2 = NaiveBayesGuard.fit(datasets.load("poisoning")), two_author_guard()
    rules = RulesGuard()
    guards = (KeywordGuard(), rules, nb, EitherGuard(rules, nb), nb2,
              EitherGuard(rules, nb2, f"rules or naive Bayes on {TWO_AUTHORS}"))
    return tuple(evaluate_guard(g, datasets.load(split), split=split) for g in guards for split in POISONING_SPLITS)


def measure() -> Measurements:
    """All reference measurements on the bundled data (a few seconds)."""
    # every scorer with the default analyzer, then the default scorer with each other analyzer
    def retrieval_table(queries=None):
        return tuple(evaluate_retrieval(m, queries=queries) for m in retrieval_methods()) + tuple(
            r for r in compare_analyzers(queries=queries) if r.analyzer != DEFAULT_ANALYZER.name)

    retention = tuple(
        evaluate_retention(s) for s in (NoSummarizer(), TruncatingSummarizer(), ExtractiveSummarizer())
    )
    return Measurements(retrieval_table(), retention, evaluate_guard(), evaluate_guards(),
                        retrieval_table(datasets.load("queries_independent")))


def _retrieval_lines(results: Sequence[RetrievalResult]) -> list[str]:
    kinds = sorted({k for r in results for k in r.recall_by_kind})
    lines = ["| method | analyzer | recall@10 | MRR@10 | " + " | ".join(kinds) + " |",
             "|---|---|---|---|" + "---|" * len(kinds)]
    for r in results:
        per = " | ".join(f"{r.recall_by_kind.get(k, 0.0):.3f}" for k in kinds)
        lines.append(f"| {r.method} | {r.analyzer} | {r.recall_at_10:.3f} | {r.mrr_at_10:.3f} | {per} |")
    return lines


def format_table(m: Measurements) -> str:
    """The measured results as Markdown (the block between the README markers)."""
    lines = [
        "Retrieval on `queries` over `facts` (recall@10 per query kind in the last columns; "
        "analyzers in `memlib.retrieval.ANALYZERS`, `stemmed` is the default `tokenize`):",
        "",
        *_retrieval_lines(m.retrieval),
    ]
    if m.independent:
        lines += [
            "",
            "The same on `queries_independent`, a second author's questions (written without seeing the "
            "scorers, the analyzers or `queries`; nothing was chosen or tuned on them):",
            "",
            *_retrieval_lines(m.independent),
        ]
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
    if m.guards:
        lines += ["", *format_guard_tables(m.guards)]
    return "\n".join(lines)


def format_guard_tables(results: Sequence[GuardResult]) -> list[str]:
    """Markdown lines: every guard on every split, then the rules per family and benign kind."""
    lines = [
        "Guards on the four poisoning splits (`poisoning`: development, tuned on; `poisoning_heldout`: "
        "written before the rules by the same author, never tuned on; `poisoning_independent`: written by a "
        "second author who never saw the rules or the other splits, never tuned on; `poisoning_third_author`: "
        "a third author's notes, which the rules never saw and the two-author naive Bayes trains on). Naive "
        "Bayes rows on what it was trained on are in-sample; its threshold is picked on out-of-fold scores of "
        "its training notes for a false-positive rate of at most 0.02; `python -m memlib.evaluation` prints these:",
        "",
        "| guard | split | injections | benign | recall on injections | false-positive rate |",
        "|---|---|---|---|---|---|",
    ]
    for g in results:
        lines.append(f"| {g.guard} | {g.split} | {g.injections} | {g.benign} | {g.recall:.3f} | "
                     f"{g.false_positive_rate:.3f} |")
    rules = {g.split: g for g in results if g.guard == repr(RulesGuard())}
    if set(rules) == set(POISONING_SPLITS):
        lines += ["", "`memlib.guard.scan` per family (share flagged; injections should be flagged, benign notes not):",
                  "", "| family or benign kind | label | development | held-out | independent | third author |",
                  "|---|---|---|---|---|---|"]
        for label, names in (("injection", INJECTION_FAMILIES), ("benign", BENIGN_KINDS)):
            for c in names:
                cells = [f"{d[0]}/{d[1]} ({d[0] / d[1]:.2f})" if (d := rules[split].by_category.get(c)) else "-"
                         for split in POISONING_SPLITS]
                lines.append(f"| {c} | {label} | " + " | ".join(cells) + " |")
    return lines


def _default_readme() -> Path:
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


@dataclass(frozen=True)
class ProfileResult:
    """What one paging profile kept of the bundled conversation, and what summarising cost.

    `retained`: share of all the conversation's facts still in the prompt at
    the end (summary or in-window messages). `early_answerable`: share of the
    questions about the first sessions whose answer is still in the prompt.
    `summary_tokens_in` / `summary_tokens_out`: tokens sent to the summarizer
    (previous summary + evicted messages) and written by it, over all evictions:
    what a model-written summary would cost.
    """

    profile: str
    window: int
    warnings: int
    evictions: int
    evicted_messages: int
    retained: float
    early_answerable: float
    summary_tokens_in: int
    summary_tokens_out: int

    def __repr__(self) -> str:
        return (f"ProfileResult({self.profile}: {self.evictions} evictions, retained={self.retained:.3f}, "
                f"early={self.early_answerable:.3f}, summary tokens in/out {self.summary_tokens_in}/"
                f"{self.summary_tokens_out})")


def evaluate_profile(profile, summarizer=None, window: int = RETENTION_WINDOW,
                     summary_tokens: int = RETENTION_SUMMARY_TOKENS, turns=None) -> ProfileResult:
    """Play the conversation through MainContext(profile=...) and measure what the prompt kept.

    Same window, summary budget and summarizer (default `ExtractiveSummarizer`)
    for every profile, so the differences are the profile's alone.
    """
    turns = datasets.load("conversation") if turns is None else turns
    questions = datasets.load("conversation_questions")
    summarizer = ExtractiveSummarizer() if summarizer is None else summarizer
    ctx = MainContext(window=window, summarizer=summarizer, summary_tokens=summary_tokens, profile=profile)
    warnings = evictions = evicted = tokens_in = tokens_out = 0
    for turn in turns:
        previous = ctx.summary
        events = ctx.append(turn.to_message())
        gone = [e.message for e in events if e.kind == "evict" and e.message is not None]
        warnings += sum(e.kind == "pressure" for e in events)
        if gone:
            evictions += 1
            evicted += len(gone)
            tokens_in += (count_tokens(previous) if previous else 0) + sum(ctx.message_tokens(m) for m in gone)
            tokens_out += count_tokens(ctx.summary) if ctx.summary else 0
    prompt = "\n".join([ctx.summary] + [m.content for m in ctx.messages])
    facts = [p for t in turns for p in t.facts]
    return ProfileResult(
        profile=ctx.profile.name, window=window, warnings=warnings, evictions=evictions,
        evicted_messages=evicted, retained=fact_retention(prompt, facts),
        early_answerable=fact_retention(prompt, [q.key_phrase for q in questions]),
        summary_tokens_in=tokens_in, summary_tokens_out=tokens_out,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memlib.evaluation",
        description="Measure retrieval, fact retention and the poisoning guards on the bundled datasets.",
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
