"""Checks behind the graded cells of notebooks 01 to 04, with their references.

One check per graded cell: ``check_token_budget`` (01), ``check_summarizer``
(02, exercise 1), ``check_bm25`` (03, exercise 2) and ``check_page_fault``
(04). Each asserts invariants, compares with a reference, and when the answer
matches a known mistake (estimate instead of count, no idf, tf as presence,
no heartbeat, ...) says so and where to look. The references
(`reference_how_many_fit`, `reference_bm25_scores`,
`reference_page_fault_calls`) and the notebook-04 scenario
(`page_fault_scenario`) live here too, so the notebooks can fall back to them.

This module does not run notebooks or award points (`memlib.course.grade`
does); it never shows a reference solution in a failure message.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Sequence

from memlib.course.checking import CheckFailed, expect, graded, passed

__all__ = [
    "check_token_budget",
    "check_summarizer",
    "check_bm25",
    "check_page_fault",
    "reference_how_many_fit",
    "reference_bm25_scores",
    "reference_page_fault_calls",
    "page_fault_scenario",
    "PageFaultScenario",
    "BM25_MISTAKES",
    "BUDGET_MISTAKES",
    "ordinal",
]


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _short(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _call(fn: Callable, args: tuple, kwargs: dict | None = None, *, where: str) -> Any:
    """Call the student's code; an exception becomes a CheckFailed that says on what input.

    NotImplementedError passes through: `graded` turns it into "not solved yet".
    """
    try:
        return fn(*args, **(kwargs or {}))
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as exc:
        raise CheckFailed(
            f"your code raised {type(exc).__name__}: {exc} ({where})",
            "run your function on that input in a cell of its own to see the full traceback",
        ) from exc


def _as_callable(answer: Any, what: str) -> Callable:
    if not callable(answer):
        raise CheckFailed(
            f"expected your function {what}, got {type(answer).__name__} {_short(answer)}",
            f"pass the function itself, e.g. check(...)({what.split('(')[0]}) without calling it",
        )
    return answer


# ============================================================================
# 01 · token budget: how many of the newest messages fit in the window?
# ============================================================================


def reference_how_many_fit(messages: Sequence[str], window: int, system_prompt: str = "", reserve: int = 0) -> int:
    """How many of the newest `messages` fit next to the system prompt and a reserve.

    The prompt holds count(system_prompt) + reserve + (count(m) + MESSAGE_OVERHEAD)
    for each kept message and must stay <= window. Messages are kept newest
    first and contiguously: the first one that does not fit stops the count.

    Example:
        >>> reference_how_many_fit(["hi", "hello there"], window=20)
        2
    """
    from memlib.context import MESSAGE_OVERHEAD
    from memlib.tokens import count

    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(list(messages)):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept


def _budget_variant(kind: str) -> Callable[..., int]:
    """A plausible wrong answer to the token-budget exercise (for diagnosis and tests)."""
    from memlib.context import MESSAGE_OVERHEAD
    from memlib.tokens import count, estimate

    def run(messages, window, system_prompt="", reserve=0):
        counter = estimate if kind == "estimate" else count
        overhead = 0 if kind == "no_overhead" else MESSAGE_OVERHEAD
        used = (0 if kind == "no_system" else counter(system_prompt)) + (0 if kind == "no_reserve" else reserve)
        order = list(messages) if kind == "oldest_first" else list(reversed(list(messages)))
        kept = 0
        for text in order:
            cost = counter(text) + overhead
            fits = used + cost < window if kind == "strict" else used + cost <= window
            if not fits:
                if kind == "skip":
                    continue
                if kind == "inclusive":
                    kept += 1
                break
            used += cost
            kept += 1
        return kept

    run.__name__ = f"how_many_fit_{kind}"
    return run


#: Wrong answers the token-budget check recognises: kind -> (what is wrong, hint).
BUDGET_MISTAKES: dict[str, tuple[str, str]] = {
    "estimate": (
        "your counts match the words x 1.3 estimate, not the tokenizer",
        "count tokens with memlib.tokens.count (tiktoken), not estimate(): the estimate is off by "
        "several tokens per message and the errors add up",
    ),
    "no_overhead": (
        "you leave out the per-message overhead",
        "every message costs count(text) + MESSAGE_OVERHEAD (3) tokens for its role markers "
        "(memlib.context.MESSAGE_OVERHEAD)",
    ),
    "no_system": (
        "you do not count the system prompt",
        "the system prompt is in the window too: start from count(system_prompt)",
    ),
    "no_reserve": (
        "you ignore `reserve`",
        "reserve is room kept free for the model's reply: add it to what is used before counting messages",
    ),
    "strict": (
        "a message that fills the window exactly is not counted (off by one)",
        "the prompt may use the whole window: the test is used <= window, not used < window",
    ),
    "inclusive": (
        "you count the message that no longer fits (off by one)",
        "stop before the message that would push the prompt past the window; do not count it",
    ),
    "oldest_first": (
        "you keep the oldest messages",
        "a context keeps the newest messages: walk the list from the end (reversed(messages))",
    ),
    "skip": (
        "you skip a message that does not fit and keep counting older ones",
        "the kept messages are a contiguous run of the newest ones: stop at the first that does not fit",
    ),
}


def _budget_cases() -> list[tuple[str, list[str], int, str, int]]:
    """(label, messages, window, system_prompt, reserve), built from the course conversation."""
    from memlib import datasets
    from memlib.context import DEFAULT_SYSTEM_PROMPT, MESSAGE_OVERHEAD
    from memlib.tokens import count

    texts = [t.content for t in datasets.load("conversation")]
    chat = texts[4:40]
    short = sorted(texts[:120], key=len)[:12]
    long = sorted(texts[:120], key=len)[-4:]
    system = DEFAULT_SYSTEM_PROMPT
    sys_tokens = count(system)
    cases = [
        ("36 messages of the course chat, a 512-token window", chat, 512, system, 0),
        ("the same messages, 128 tokens reserved for the reply", chat, 512, system, 128),
        ("a 300-token window without a system prompt", chat, 300, "", 0),
        ("long old messages, short new ones", long + short, 200, system, 16),
        ("short old messages, long new ones", short + long, 200, system, 16),
        ("no messages at all", [], 256, system, 0),
        ("a window smaller than the system prompt", chat[:5], max(1, sys_tokens - 5), system, 0),
    ]
    # The newest 5 messages fill the window exactly: they all fit.
    last5 = chat[-5:]
    exact = sys_tokens + 32 + sum(count(m) + MESSAGE_OVERHEAD for m in last5)
    cases.append(("a window the newest 5 messages fill exactly", chat, exact, system, 32))
    # A very long message in the middle: the count stops there.
    wall = " ".join(texts[:60])
    cases.append(("a very long message before the 3 newest", chat[:6] + [wall] + chat[-3:], 400, system, 0))
    # Messages whose words x 1.3 estimate is far from the token count (numbers, names, URLs).
    odd = ["ID 4f9a-22c1-88e0 expires 2026-03-14T09:30Z, ping ops@kestrel.example",
           "Sam's rota: Mon/Tue/Wed 19:00-07:30; Thu off; Fri 19:00-07:30.",
           "brigid1957 is the wifi password (router TP-Link AX1800, 5 GHz band)"] * 4
    cases.append(("messages full of numbers and ids", odd, 180, system, 0))
    return cases


def _describe_budget_case(label, messages, window, system_prompt, reserve) -> str:
    from memlib.tokens import count

    return (f"{label} (window={window}, system prompt of {count(system_prompt)} tokens, reserve={reserve}, "
            f"{len(messages)} messages)")


@graded("01-token-budget", "how_many_fit counts the newest messages that fit, with tiktoken and overheads")
def check_token_budget(how_many_fit: Callable) -> None:
    """Check `how_many_fit(messages, window, system_prompt="", reserve=0) -> int` (notebook 01)."""
    fn = _as_callable(how_many_fit, "how_many_fit")
    cases = _budget_cases()
    got: list[Any] = []
    for label, messages, window, system_prompt, reserve in cases:
        before = list(messages)
        value = _call(fn, (list(messages), window, system_prompt, reserve),
                      where=f"how_many_fit on {_describe_budget_case(label, messages, window, system_prompt, reserve)}")
        if isinstance(value, bool) or not isinstance(value, int):
            raise CheckFailed(
                f"how_many_fit returned {type(value).__name__} {_short(value)} for {label}",
                "return the number of messages that fit, an int (not the tokens, not the messages)",
            )
        expect(messages == before, "how_many_fit changed the list of messages it was given",
               "count without removing or editing messages")
        got.append(value)
    passed("returns an int and leaves the messages alone")
    expected = [reference_how_many_fit(m, w, s, r) for _, m, w, s, r in cases]
    wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    if not wrong:
        passed(f"right count on all {len(cases)} budgets (exact fits, reserves, empty lists, a message too big)")
        return
    first = wrong[0]
    example = (f"for {_describe_budget_case(*cases[first])} you return {got[first]}, "
               f"expected {expected[first]}")
    for kind, (what, hint) in BUDGET_MISTAKES.items():
        variant = _budget_variant(kind)
        if all(variant(list(m), w, s, r) == g for (_, m, w, s, r), g in zip(cases, got)):
            raise CheckFailed(f"{what}: {example}", hint)
    raise CheckFailed(
        f"{len(wrong)} of {len(cases)} budgets are wrong: {example}",
        "used = count(system_prompt) + reserve, then for each message from the newest: "
        "used += count(text) + MESSAGE_OVERHEAD; stop at the first that makes used > window",
    )


# ============================================================================
# 02 · exercise 1: a recursive, bounded summarizer
# ============================================================================

#: Facts a summarizer must carry forward from the previous summary when there is room.
_PREVIOUS_SUMMARY = (
    "- user: My sister Maeve lives in Lisbon and works at the aquarium.\n"
    "- user: The dentist appointment is on 12 May at 9:40."
)
_PREVIOUS_FACTS = ("Lisbon", "12 May")
_FILLER = ("Busy day ahead.", "Ok, thanks!", "Sounds good.", "Morning! Grey and drizzly here again.")


def _retention_threshold(reference: float, baseline: float) -> float:
    """Retention a student's summarizer needs: at least half the reference's, and above the baselines."""
    return max(reference / 2, baseline + 1e-9)


def _chunks(turns, sizes: Sequence[int]):
    from memlib.messages import Message

    at = 0
    for size in sizes:
        yield [Message(t.role, t.content) for t in turns[at:at + size]]
        at += size


@graded("02-summarizer", "exercise 1: a recursive summarizer that stays within max_tokens and keeps facts")
def check_summarizer(summarizer: Any) -> None:
    """Check exercise 1: `summarizer.summarize(previous, evicted, max_tokens) -> str` (notebook 02)."""
    from memlib import datasets
    from memlib.evaluation import evaluate_retention, fact_retention
    from memlib.messages import Message
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer
    from memlib.tokens import count

    if isinstance(summarizer, type):
        try:
            summarizer = summarizer()
        except TypeError as exc:
            raise CheckFailed(f"cannot create {summarizer.__name__}() without arguments ({exc})",
                              "give every __init__ argument a default, or pass an instance") from None
    expect(callable(getattr(summarizer, "summarize", None)),
           f"{type(summarizer).__name__} has no summarize method",
           "define summarize(self, previous, evicted, max_tokens) in your class")
    method = summarizer.summarize

    def summarize(previous, evicted, max_tokens):
        return _call(method, (previous, evicted, max_tokens),
                     where=f"summarize(previous of {len(previous)} chars, {len(evicted)} evicted messages, "
                           f"max_tokens={max_tokens})")
    turns = datasets.load("conversation")
    some = [Message(t.role, t.content) for t in turns[4:14]]

    # 1. the contract: a str, within budget (checked below on many inputs)
    out = summarize("", some, 200)
    if not isinstance(out, str):
        raise CheckFailed(f"summarize returned {type(out).__name__} {_short(out)}",
                          "return the new summary as one str (join lines with '\\n')")

    # 2. bounded on many inputs, fed its own output (the recursion of a long chat)
    sizes = [1, 3, 8, 2, 20, 5, 40, 1, 12, 30]
    for budget in (1, 7, 32, 96, 192):
        previous = ""
        for call, chunk in enumerate(_chunks(turns, sizes), start=1):
            summary = summarize(previous, chunk, budget)
            if not isinstance(summary, str):
                raise CheckFailed(f"summarize returned {type(summary).__name__} on call {call}", "always return a str")
            used = count(summary)
            if used > budget:
                raise CheckFailed(
                    f"the summary has {used} tokens, over max_tokens={budget} (call {call} of a chain where "
                    f"each summary is the next call's `previous`, {len(chunk)} messages evicted)",
                    "measure with memlib.tokens.count and drop lines until count(summary) <= max_tokens; "
                    "check the joined text, not each line on its own",
                )
            previous = summary
    passed("never exceeds max_tokens over 50 chained calls with budgets from 1 to 192 tokens")

    out0 = summarize(_PREVIOUS_SUMMARY, some, 0)
    expect(isinstance(out0, str) and count(out0) == 0,
           f"with max_tokens=0 summarize returned {_short(out0)} ({count(out0) if isinstance(out0, str) else '?'} tokens)",
           "a budget of 0 tokens leaves room for nothing: return ''")
    for budget in (40, 200):
        empty = summarize(_PREVIOUS_SUMMARY, [], budget)
        expect(isinstance(empty, str) and count(empty) <= budget,
               f"with nothing evicted and max_tokens={budget} summarize returned {_short(empty)}",
               "with evicted == [] the summary is the previous one, trimmed to the budget if needed")
    passed("max_tokens=0 gives ''; an empty evicted list works")

    # 3. deterministic and leaves its input alone
    evicted = [Message(t.role, t.content) for t in turns[20:40]]
    copy_before = list(evicted)
    first, second = summarize(_PREVIOUS_SUMMARY, evicted, 120), summarize(_PREVIOUS_SUMMARY, evicted, 120)
    expect(first == second, "two calls with the same arguments gave different summaries",
           "no randomness, no dependence on the time or on earlier calls: same input, same summary")
    expect(evicted == copy_before, "summarize changed the list of evicted messages",
           "read the messages without removing or editing them")
    passed("deterministic, and does not modify the evicted messages")

    # 4. recursive: facts of the previous summary survive when there is room
    filler = [Message.user(text) for text in _FILLER]
    kept = summarize(_PREVIOUS_SUMMARY, filler, 200)
    lost = [fact for fact in _PREVIOUS_FACTS if fact_retention(kept, [fact]) == 0]
    if lost:
        raise CheckFailed(
            f"the previous summary said {', '.join(map(repr, lost))}; with 200 tokens of room and only "
            f"small talk evicted, your summary lost it: {_short(kept, 120)}",
            "a recursive summary folds the previous summary in: treat its lines as candidates alongside "
            "the evicted messages",
        )
    fresh = summarize("", [Message.user("My sister Maeve lives in Lisbon and works at the aquarium."),
                           *filler], 200)
    expect(fact_retention(fresh, ["Lisbon"]) == 1.0,
           f"a fact stated in the evicted messages ('Lisbon') is missing although the budget had room: "
           f"{_short(fresh, 120)}",
           "keep what the user said that carries a fact (names, places, numbers)")
    passed("recursive: keeps the previous summary's facts and the evicted facts when there is room")

    # 5. useful: keeps more facts than forgetting, and than keeping the newest text
    mine = _call(evaluate_retention, (summarizer,), where="the course conversation played through MainContext")
    reference = evaluate_retention(ExtractiveSummarizer()).retained
    baseline = max(evaluate_retention(NoSummarizer()).retained, evaluate_retention(TruncatingSummarizer()).retained)
    need = _retention_threshold(reference, baseline)
    if mine.retained < need:
        if mine.retained <= baseline:
            what = (f"fact retention on the course conversation is {mine.retained:.3f}, no better than no "
                    f"summary or keeping the newest text ({baseline:.3f})")
        else:
            what = (f"fact retention on the course conversation is {mine.retained:.3f}, below the "
                    f"{need:.3f} needed (half of the reference's {reference:.3f})")
        raise CheckFailed(
            what,
            "the newest lines are mostly small talk; rank the sentences by how much they look like a fact "
            "(numbers, names, what the user says rather than the assistant) and keep the best that fit",
        )
    passed(f"fact retention {mine.retained:.3f} of {mine.evicted_facts} evicted facts "
           f"(no summary / newest text: {baseline:.3f}, reference: {reference:.3f})")


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


@graded("03-bm25", "exercise 2: BM25 okapi scores equal rank_bm25's on toy corpora and the course facts")
def check_bm25(bm25_scores: Callable) -> None:
    """Check exercise 2: `bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25) -> list[float]`."""
    fn = _as_callable(bm25_scores, "bm25_scores")
    cases = _bm25_cases()
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
    passed("one float per document, inputs left alone")
    expected = [reference_bm25_scores(c.query, c.docs, c.k1, c.b, c.epsilon) for c in cases]
    wrong = [i for i in range(len(cases)) if not _close(results[i], expected[i])]
    if not wrong:
        passed(f"scores equal rank_bm25.BM25Okapi on {len(cases) - 24} toy corpora and 24 queries "
               f"over the course facts")
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


# ============================================================================
# 04 · scripting the agent through a page fault
# ============================================================================

_SCENARIO_SETUP = [
    "My name is Ines.",
    "Remember that Biscuit is allergic to chicken.",
    "Remember that the vet is Dr Okafor on Otley Road.",
    "Remember that Ada's swimming lesson is at 5:15 at Scott Hall.",
]
_SCENARIO_FILLER = [f"Log {i}: reviewed the Doncaster feed backlog, batch {i} of the Heron migration, "
                    f"nothing unusual in the scans." for i in range(1, 13)]
_SCENARIO_QUESTION = "Which food must Biscuit avoid?"


class _Clock:
    """A fixed clock, one minute per tick, so the scenario is the same on every run."""

    def __init__(self, start: datetime = datetime(2026, 3, 2, 9, 0)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now

    def __repr__(self) -> str:
        return f"_Clock({self.now:%Y-%m-%d %H:%M})"


@dataclass
class PageFaultScenario:
    """Notebook 04's setup: an agent whose main context no longer holds the answer.

    `agent` ran a RulePolicy through the setup and filler turns; `question`
    is the user's next message; `record_id` is the archival record that
    answers it; `answer` the word the reply must contain.
    """

    agent: Any
    question: str
    record_id: str
    answer: str
    fact_message_id: int

    @property
    def memory(self):
        return self.agent.memory

    @property
    def fact_in_context(self) -> bool:
        return self.fact_message_id in {m.id for m in self.memory.context.messages}

    def run(self, calls) -> Any:
        """Answer `question` with a ScriptedPolicy replaying `calls`; returns the Trace."""
        from memlib.agent import ScriptedPolicy

        self.agent.policy = ScriptedPolicy(calls)
        return self.agent.step(self.question)

    def __repr__(self) -> str:
        where = "in main context" if self.fact_in_context else "evicted from main context"
        return (f"PageFaultScenario(question={self.question!r}, answer in {self.record_id} "
                f"(fact message #{self.fact_message_id} {where}), {self.memory!r})")


def page_fault_scenario(window: int = 600) -> PageFaultScenario:
    """A fresh, deterministic agent that archived a fact and then evicted it (notebook 04)."""
    from memlib.agent import Agent, RulePolicy
    from memlib.tools import MemorySystem

    memory = MemorySystem.create(window=window, clock=_Clock(), session_id="s1")
    agent = Agent(RulePolicy(), memory, max_heartbeats=5)
    for text in _SCENARIO_SETUP + _SCENARIO_FILLER:
        agent.step(text)
    fact = next(m for m in memory.recall if m.content == _SCENARIO_SETUP[1])
    record = next(r for r in memory.archival if "allergic" in r.text)
    return PageFaultScenario(agent, _SCENARIO_QUESTION, record.id, "chicken", fact.id)


def reference_page_fault_calls(scenario: PageFaultScenario | None = None) -> list:
    """A script that answers the scenario's question: search archival memory, then reply with a citation."""
    from memlib.agent import ToolCall
    from memlib.citations import Citation

    scenario = scenario or page_fault_scenario()
    record = scenario.memory.archival.get(scenario.record_id)
    return [
        ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
        ToolCall("send_message", {"message": f"Biscuit must avoid chicken: he is allergic to it. "
                                             f"{Citation.from_record(record).format()}"}),
    ]


def _script_of(answer: Any) -> list:
    from memlib.agent import ToolCall

    calls = answer() if callable(answer) else answer
    if isinstance(calls, (str, bytes, dict)) or not hasattr(calls, "__iter__"):
        raise CheckFailed(f"expected a list of ToolCall, got {type(calls).__name__} {_short(calls)}",
                          "return [ToolCall('archival_memory_search', {...}), ToolCall('send_message', {...})]")
    calls = list(calls)
    if not calls:
        raise CheckFailed("the script is empty", "the agent needs at least a search and a send_message")
    for i, call in enumerate(calls):
        if not isinstance(call, ToolCall):
            raise CheckFailed(f"call {i} is {type(call).__name__} {_short(call)}, not a ToolCall",
                              "build each call with ToolCall(name, {argument: value, ...})")
    return calls


@graded("04-page-fault", "the scripted agent pages the evicted fact in from archival memory and answers with a citation")
def check_page_fault(page_fault_calls: Any) -> None:
    """Check the notebook-04 exercise: the calls that answer the scenario's question.

    Accepts the student's function (called with no arguments) or its list of ToolCall.
    """
    from memlib.agent import ScriptedPolicyExhausted
    from memlib.citations import CITATION_PATTERN

    calls = _script_of(page_fault_calls)
    passed(f"a script of {len(calls)} ToolCall(s)")
    scenario = page_fault_scenario()
    expect(not scenario.fact_in_context, "internal: the scenario's fact should be evicted", "")
    names = [c.name for c in calls]
    try:
        trace = scenario.run(calls)
    except ScriptedPolicyExhausted:
        raise CheckFailed(
            f"the script ran out: after its last call ({calls[-1].render()}) the loop asked for another one",
            "the last call requested a heartbeat (or failed), so the agent expected to continue; end with "
            "send_message, which ends the step",
        ) from None
    ran = trace.tool_calls
    results = trace.results
    for call, result in zip(ran, results):
        if not result.ok:
            raise CheckFailed(f"{call.render()} failed: {result.message}",
                              "fix the call's name or arguments (see TOOL_SCHEMAS for what each tool takes)")
    searches = [(c, r) for c, r in zip(ran, results) if c.name == "archival_memory_search"]
    if not searches:
        if "archival_memory_search" in names:
            first = names.index("archival_memory_search")
            raise CheckFailed(
                f"your archival_memory_search (call {first}) never ran: the step ended after "
                f"{ran[-1].render()}",
                "send_message ends the step, and a call without request_heartbeat=True hands control back "
                "to the user: put the search first and request a heartbeat on it",
            )
        if "conversation_search" in names:
            raise CheckFailed(
                "the script searches the conversation, not archival memory",
                "the agent archived the fact as a record: use archival_memory_search so the answer can "
                "cite the record's id",
            )
        raise CheckFailed(
            f"the script never searches archival memory ({', '.join(names)})",
            "the fact was evicted from main context, so the agent must page it in: call "
            "archival_memory_search before answering",
        )
    found = [c for c, r in searches if any(getattr(rec, "id", None) == scenario.record_id for rec in r.records)]
    if not found:
        call, result = searches[0]
        first_line = result.message.splitlines()[0]
        raise CheckFailed(
            f"{call.render()} did not return the record with the answer ({first_line})",
            "search is by words (no stemming, no synonyms): use words the stored fact contains, "
            "such as the dog's name and what the fact is about",
        )
    passed(f"{found[0].render()} pages in {scenario.record_id}")
    if "send_message" not in [c.name for c in ran]:
        last_call, last_result = ran[-1], results[-1]
        if "send_message" in names and not last_result.heartbeat:
            raise CheckFailed(
                f"{last_call.render()} did not request a heartbeat, so the loop stopped there and your "
                "send_message never ran",
                "add 'request_heartbeat': True to the search's arguments: that is how a tool call asks "
                "to get control back and chain the next call",
            )
        raise CheckFailed("the step ended without send_message: the user never got an answer",
                          "finish the script with ToolCall('send_message', {'message': ...})")
    reply = trace.reply or ""
    expect(scenario.answer in reply.lower(),
           f"the reply does not say what Biscuit must avoid: {_short(reply, 100)}",
           "answer the question with what the archival record says")
    cited = CITATION_PATTERN.findall(reply)
    bare_ids = re.findall(r"arc-\d{6}", reply)
    if not cited:
        hint = ("write the citation in brackets, e.g. '[arc-000001]', or build it with "
                "Citation.from_record(record).format()")
        if bare_ids:
            raise CheckFailed(f"the reply names {bare_ids[0]} but not as a citation: {_short(reply, 100)}", hint)
        raise CheckFailed(f"the reply has no citation: {_short(reply, 100)}",
                          "say where the answer came from: add the record id found by the search, " + hint)
    unknown = [i for i in cited if i not in scenario.memory.archival]
    expect(not unknown, f"the reply cites {unknown[0] if unknown else ''}, which is not in archival memory",
           "cite the id the search returned")
    expect(scenario.record_id in cited,
           f"the reply cites {', '.join(cited)}, not the record that holds the answer ({scenario.record_id})",
           "cite the record the answer comes from")
    passed(f"the reply answers and cites {scenario.record_id}: {_short(reply, 100)}")
