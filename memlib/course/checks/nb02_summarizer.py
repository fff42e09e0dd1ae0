"""Notebook 02's check, exercise 1: a recursive, bounded summarizer."""

from __future__ import annotations

from typing import Any, Sequence

from memlib.course.checking import CheckFailed, expect, graded, is_class, passed
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _call, _short

__all__ = ["check_summarizer"]


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


EXERCISE = Exercise(
    grade_id='02-summarizer',
    notebook='02_eviction_summaries',
    answer='MySummarizer()',
    points=4,
    description="exercise 1: a recursive summarizer that stays within max_tokens and keeps facts",
    references=("memlib.summarize:ExtractiveSummarizer",),
    equivalent={
        'drop: if score(candidates[i]) <= 0:     continue -> pass':
            'which sentences fill the budget left over after the facts is free: the stub fixes the budget and the facts, not which small talk is dropped',
        "negate: line[2:] if line.startswith('- ') else line -> line[2:] if not line.startswith('- ') else line":
            "the line format of a summary is free; the previous summary's facts survive with or without the '- ' prefix stripped",
        'compare: score(candidates[i]) <= 0 -> score(candidates[i]) < 0':
            'which sentences fill the budget left over after the facts is free: the stub fixes the budget and the facts, not which small talk is dropped',
        'drop: continue -> pass':
            'which sentences fill the budget left over after the facts is free: the stub fixes the budget and the facts, not which small talk is dropped',
        "compare: count('\\n'.join(('- ' + candidates[j] for j in trial))) <= max_tokens -> count('\\n'.join(('- ' + candidates[j] for j in trial))) < max_tokens":
            'the contract is count(summary) <= max_tokens: a summary one token shorter than allowed also keeps it',
        'constant: 2 -> 3':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 2 -> 1':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 0 -> 1':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 0 -> -1':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 3 -> 4':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 3 -> 2':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 2 -> 3 (#2)':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 2 -> 1 (#2)':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 1 -> 2':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
        'constant: 1 -> 0':
            "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    },
)


@graded(EXERCISE)
def check_summarizer(summarizer: Any) -> None:
    """Check exercise 1: `summarizer.summarize(previous, evicted, max_tokens) -> str` (notebook 02).

    Fixed: a str with count(summary) <= max_tokens ('' for 0); the same output for the same
    input; the evicted list is not changed; the previous summary's facts and the evicted
    facts are kept when there is room; fact retention on the course conversation at least
    half the reference's and above forgetting or keeping the newest text. Free: the scoring
    heuristic, the line format, which small talk is dropped.
    """
    from memlib import datasets
    from memlib.evaluation import evaluate_retention, fact_retention
    from memlib.messages import Message
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer
    from memlib.tokens import count

    if is_class(summarizer):
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
    # The input is checked after the first call, before the second: a summarizer that pops the
    # evicted list would otherwise be reported as non-deterministic, which is not its mistake.
    first = summarize(_PREVIOUS_SUMMARY, evicted, 120)
    expect(evicted == copy_before, "summarize changed the list of evicted messages "
           f"({len(copy_before)} messages before the call, {len(evicted)} after)" if len(evicted) != len(copy_before)
           else "summarize changed the list of evicted messages (same length, other content)",
           "read the messages without removing or editing them")
    second = summarize(_PREVIOUS_SUMMARY, evicted, 120)
    expect(first == second, "two calls with the same arguments gave different summaries: "
           f"{_first_text_difference(first, second)}",
           "no randomness, no dependence on the time or on earlier calls: same input, same summary")
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
    # Nothing evicted and room to spare: the previous summary's facts survive all the same.
    unchanged = summarize(_PREVIOUS_SUMMARY, [], 200)
    lost = [fact for fact in _PREVIOUS_FACTS if fact_retention(unchanged, [fact]) == 0]
    expect(not lost, f"with nothing evicted and 200 tokens of room, the summary lost {', '.join(map(repr, lost))} "
           f"of the previous one: {_short(unchanged, 120)}",
           "with evicted == [] there is nothing new to add: keep the previous summary (trimmed only if over budget)")
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


def _first_text_difference(a: str, b: str) -> str:
    """Where two texts first differ, shown on both sides (never two equal lengths)."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at character {at}: {a[max(0, at - 15):at + 25]!r} vs {b[max(0, at - 15):at + 25]!r}"
