"""The metrics of the course, small and pure: recall@k and MRR for retrieval, fact retention for summaries.

Notebooks and graded checks use them on their own; `memlib.evaluation` runs them
(and the guard measurements) on the bundled datasets and writes the measured
table, and re-exports them. Not here: any dataset, runner or table.

Example:
    >>> recall_at_k(["a", "b", "c"], {"c", "z"}, k=3)
    0.5
    >>> reciprocal_rank(["a", "b", "c"], {"c"})
    0.3333333333333333
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from memlib._util import check_positive_int

__all__ = ["recall_at_k", "reciprocal_rank", "mean_recall_at_k", "mrr", "fact_retention"]


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
    return check_positive_int(k, "k")


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
