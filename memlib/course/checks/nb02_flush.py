"""Notebook 02's check, exercise F: the main context's flush, written by the student.

The flush evicts the oldest messages until the kept ones fit a target, never
parts a tool call from its results, folds what left into the summary with one
summarizer call and files it in recall storage. The reference is
`reference_flush`; `memlib.context.MainContext` makes the same choice for its
"paper" profile (and adds reserves, other profiles and failure atomicity, which
the exercise leaves out). The check runs the answer on seeded random queues and
compares each part of what it did: the kept messages, the summarizer's calls,
the summary and recall storage.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memlib.course.checking import CheckFailed, graded, judge_fixed_then_fresh, judge_parts, passed
from memlib.course.exercise import Exercise
from memlib.course.lang import bilingual, language
from memlib.course.checks._common import _as_callable, _call, _short, _short_text
from memlib.course.flushing import flush_units

__all__ = ["check_flush", "reference_flush"]


# ============================================================================
# 02 · exercise F: the flush
# ============================================================================


def reference_flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest units of `queue` until the kept messages take at most `target`
    tokens; fold the evicted ones into the summary with one call and file them in recall.
    Returns (kept, new_summary); when nothing leaves, (list(queue), summary) and no call.

    Example:
        >>> from memlib.messages import Message
        >>> from memlib.recall import RecallStore
        >>> from memlib.summarize import TruncatingSummarizer
        >>> queue = [Message.user(f"note {i}", id=i) for i in range(4)]
        >>> recall = RecallStore()
        >>> kept, summary = reference_flush(queue, [10, 10, 10, 10], 25, "", TruncatingSummarizer(), 20, recall)
        >>> [m.id for m in kept], summary, [m.id for m in recall]
        ([2, 3], 'user: note 0\\nuser: note 1', [0, 1])
    """
    starts = flush_units(queue)
    kept_tokens, cut = sum(tokens), 0
    for begin, end in zip(starts, starts[1:]):
        if kept_tokens <= target:
            break
        kept_tokens -= sum(tokens[begin:end])
        cut = end
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary


# -- the cases ------------------------------------------------------------------------------

_START = datetime(2026, 3, 2, 9, 0)
_TOOLS = ("archival_memory_search", "conversation_search", "core_memory_append")

#: Each case's label in Chinese.
CASE_LABELS_ZH = {
    "target 0": "目标为 0",
    "the whole queue fits exactly": "整个队列恰好放得下",
    "room to spare": "还有富余",
    "target at a unit boundary": "目标落在两组消息的交界处",
    "target inside a unit": "目标落在一组消息的中间",
    "a target that keeps part of a tool call's results": "只够留下工具调用的部分结果的目标",
    "a target just below the last two messages": "比最后两条消息略小的目标",
    "a target after the tool call": "落在工具调用之后的目标",
    "a tool result of another call right after a tool call": "工具调用后面紧跟着另一次调用的结果",
    "an empty queue": "空队列",
}


@dataclass
class _Case:
    label: str
    queue: list
    tokens: list[int]
    target: int
    summary: str
    inner: Any  # the memlib summarizer behind the recording one
    summary_tokens: int
    filed: list  # messages already in recall storage (from earlier flushes)

    def describe(self) -> str:
        if language() == "zh":
            previous = f"之前的摘要是 {_short_text(self.summary, 40)}" if self.summary else 'summary ""'
            return (f"{CASE_LABELS_ZH.get(self.label, self.label)}：队列有 {len(self.queue)} 条消息"
                    f"（{sum(self.tokens)} 个 token），target={self.target}，{previous}，{self.inner!r}，"
                    f"summary_tokens={self.summary_tokens}")
        previous = f"previous summary {_short_text(self.summary, 40)}" if self.summary else 'summary ""'
        return (f"{self.label}: a queue of {len(self.queue)} messages ({sum(self.tokens)} tokens), "
                f"target={self.target}, {previous}, {self.inner!r}, summary_tokens={self.summary_tokens}")


def _queue(rng: random.Random, texts: list[str], first_id: int, units: int, tools: bool = True):
    """A queue of `units` units (messages, and tool calls with 0 to 3 results) and its token counts."""
    queue: list = []
    from memlib.messages import Message

    def add(role: str, content: str, **kw) -> None:
        queue.append(Message(role, content, id=first_id + len(queue),
                             timestamp=_START + timedelta(minutes=first_id + len(queue)), **kw))

    for _ in range(units):
        kind = rng.random()
        if tools and kind < 0.3:
            tool = rng.choice(_TOOLS)
            call_id = f"call-{first_id + len(queue)}"
            add("assistant", f"{tool}(query={rng.choice(texts)[:30]!r})", tool_call_id=call_id, name=tool)
            for _ in range(rng.choice((0, 1, 1, 2, 3))):
                add("tool", f'{{"status": "OK", "message": {rng.choice(texts)[:50]!r}}}', tool_call_id=call_id,
                    name=tool)
            if rng.random() < 0.2:  # a late result of another call: a unit of its own
                add("tool", '{"status": "OK", "message": "late"}', tool_call_id=f"late-{first_id + len(queue)}",
                    name=tool)
        else:
            add(rng.choice(("user", "user", "assistant")), rng.choice(texts))
    tokens = [rng.randint(4, 40) for _ in queue]
    return queue, tokens


def _targets(rng: random.Random, queue, tokens) -> list[tuple[str, int]]:
    """Targets that matter: at a unit boundary, inside a unit, 0, the whole queue, above it."""
    starts = flush_units(queue)
    total = sum(tokens)
    suffixes = [sum(tokens[s:]) for s in starts[:-1]]
    picks = [("target 0", 0), ("the whole queue fits exactly", total), ("room to spare", total + 7)]
    if len(suffixes) > 1:
        at = rng.randrange(1, len(suffixes))
        picks.append(("target at a unit boundary", suffixes[at]))
        wide = [i for i in range(len(suffixes) - 1) if suffixes[i] - suffixes[i + 1] > 1]
        if wide:
            i = rng.choice(wide)
            picks.append(("target inside a unit", rng.randrange(suffixes[i + 1] + 1, suffixes[i])))
    return picks


#: Rounds of drawn queues (each gives up to five targets): the fixed ones a student's own check shows, and
#: those the grader's checker draws for each grading run (so a table of the fixed cases' results fails).
FIXED_ROUNDS, FRESH_ROUNDS = 12, 4


def _cases() -> list[_Case]:
    """The fixed cases: queues drawn from seed 2026, then the hand-made ones."""
    return _drawn_cases(random.Random(2026), FIXED_ROUNDS) + _hand_made_cases()


def _drawn_cases(rng: random.Random, rounds: int) -> list[_Case]:
    from memlib import datasets
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer

    texts = [t.content for t in datasets.load("conversation")][:200]
    inners = [ExtractiveSummarizer(), TruncatingSummarizer(), NoSummarizer(),
              ExtractiveSummarizer(user_weight=1.0, assistant_weight=1.0)]
    cases: list[_Case] = []
    for round_ in range(rounds):
        filed_count = rng.choice((0, 0, 3))
        queue, tokens = _queue(rng, texts, filed_count, rng.randint(3, 9))
        filed = _queue(rng, texts, 0, filed_count, tools=False)[0]
        summary = "" if not filed else "- user: " + rng.choice(texts)
        for label, target in _targets(rng, queue, tokens):
            cases.append(_Case(label, queue, tokens, target, summary, inners[round_ % len(inners)],
                               rng.choice((0, 24, 64)), filed))
    return cases


def _hand_made_cases() -> list[_Case]:
    """A tool call and its results must leave together, or stay together; an empty queue."""
    from memlib.messages import Message
    from memlib.summarize import ExtractiveSummarizer, TruncatingSummarizer

    cases: list[_Case] = []

    def msg(i: int, role: str, content: str, **kw) -> Any:
        return Message(role, content, id=i, timestamp=_START + timedelta(minutes=i), **kw)

    pair = [msg(0, "user", "Find what I said about Biscuit's food."),
            msg(1, "assistant", "archival_memory_search(query='Biscuit food')", tool_call_id="call-1",
                name="archival_memory_search"),
            msg(2, "tool", '{"status": "OK", "message": "Biscuit is allergic to chicken"}', tool_call_id="call-1",
                name="archival_memory_search"),
            msg(3, "tool", '{"status": "OK", "message": "page 2: nothing more"}', tool_call_id="call-1",
                name="archival_memory_search"),
            msg(4, "assistant", "Biscuit must avoid chicken."),
            msg(5, "user", "Thanks! Dentist is on 12 May at 9:40.")]
    pair_tokens = [12, 20, 30, 10, 15, 18]
    for target, label in ((60, "a target that keeps part of a tool call's results"),
                          (33, "a target just below the last two messages"), (45, "a target after the tool call")):
        cases.append(_Case(label, pair, pair_tokens, target, "", ExtractiveSummarizer(), 48, []))
    late = [msg(0, "user", "Search for the vet's address."),
            msg(1, "assistant", "archival_memory_search(query='vet')", tool_call_id="call-1",
                name="archival_memory_search"),
            msg(2, "tool", '{"status": "OK", "message": "Dr Okafor, Otley Road"}', tool_call_id="call-1",
                name="archival_memory_search"),
            msg(3, "tool", '{"status": "OK", "message": "a late result"}', tool_call_id="call-0",
                name="conversation_search"),
            msg(4, "user", "Thanks, that's the one.")]
    cases.append(_Case("a tool result of another call right after a tool call", late, [10] * 5, 20,
                       "", TruncatingSummarizer(), 40, []))
    cases.append(_Case("an empty queue", [], [], 0, "- user: Maeve lives in Lisbon.", TruncatingSummarizer(), 20,
                       []))
    return cases


# -- running one case -----------------------------------------------------------------------


@dataclass
class _Run:
    kept: Any
    summary: Any
    queue_after: list
    calls: list
    recall_after: list


_TWICE = re.compile(r"message id (\d+) is already in recall storage")


def _run(fn, case: _Case) -> _Run:
    from memlib.recall import RecallStore
    from memlib.course.doubles import RecordingSummarizer

    queue = list(case.queue)
    tokens = list(case.tokens)
    recall = RecallStore()
    for message in case.filed:
        recall.add(message)
    summarizer = RecordingSummarizer(case.inner)
    try:
        result = _call(fn, (queue, tokens, case.target, case.summary, summarizer, case.summary_tokens, recall),
                       where=bilingual(f"flush on {case.describe()}", f"flush，用例：{case.describe()}"))
    except CheckFailed as failure:
        twice = _TWICE.search(str(failure.__cause__ or ""))
        if twice:
            raise CheckFailed(bilingual(f"recall got #{twice.group(1)} twice ({case.describe()})",
                                        f"#{twice.group(1)} 被存进 recall 两次（{case.describe()}）"),
                              bilingual("file each evicted message once: one recall.add(message) per message",
                                        "被驱逐的消息每条只存一次：每条消息调用一次 recall.add(message)")) from None
        raise
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise CheckFailed(bilingual(f"flush returned {type(result).__name__} {_short(result)} ({case.describe()})",
                                    f"flush 返回了 {type(result).__name__} {_short(result)}（{case.describe()}）"),
                          bilingual("return a pair: (kept, new_summary)", "返回一对值：(kept, new_summary)"))
    kept, summary = result
    return _Run(kept, summary, queue, list(summarizer.calls), recall.messages[len(case.filed):])


def _ids(messages) -> str:
    shown = ", ".join(f"#{m.id}" for m in messages[:8])
    return shown + (", ..." if len(messages) > 8 else "") if messages else bilingual("none", "无")


def _judge(case: _Case, run: _Run) -> None:
    """Raise CheckFailed naming the first thing `run` got wrong on `case`."""
    where = case.describe()
    queue, tokens = case.queue, case.tokens
    if run.queue_after != queue:
        raise CheckFailed(bilingual(
            f"queue was changed: {len(queue)} messages before the call, {len(run.queue_after)} after "
            f"({where})" if len(run.queue_after) != len(queue) else
            f"queue was changed (same length, other messages) ({where})",
            f"queue 被改动了：调用前 {len(queue)} 条消息，调用后 {len(run.queue_after)} 条（{where}）"
            if len(run.queue_after) != len(queue) else f"queue 被改动了：长度不变，消息变了（{where}）"),
            bilingual("leave queue as it is: build the kept list from it (a slice is a new list)",
                      "不要动 queue：用它构造留下的列表（切片就是新列表）"))
    kept = run.kept
    if not isinstance(kept, (list, tuple)):
        raise CheckFailed(bilingual(f"kept is {type(kept).__name__} {_short(kept)} ({where})",
                                    f"kept 是 {type(kept).__name__} {_short(kept)}（{where}）"),
                          bilingual("return the kept messages as a list, oldest first",
                                    "把留下的消息作为列表返回，从旧到新"))
    if not isinstance(run.summary, str):
        raise CheckFailed(bilingual(
            f"the new summary is {type(run.summary).__name__} {_short(run.summary)} ({where})",
            f"新摘要是 {type(run.summary).__name__} {_short(run.summary)}（{where}）"),
            bilingual("return (kept, new_summary) with new_summary a str: what summarize returned",
                      "返回 (kept, new_summary)，其中 new_summary 是 str，也就是 summarize 的返回值"))
    cut = len(queue) - len(kept)
    if cut < 0 or list(kept) != list(queue[cut:]):
        raise CheckFailed(bilingual(
            f"kept is not the newest messages of the queue in order: you kept {_ids(kept)}; the "
            f"queue is {_ids(queue)} ({where})",
            f"kept 不是队列里按顺序排列的最新消息：你留下了 {_ids(kept)}，队列是 {_ids(queue)}（{where}）"),
            bilingual("only the oldest messages leave: what is kept is queue[cut:] for some cut",
                      "只有最早的消息离开：留下的总是某个 cut 对应的 queue[cut:]"))
    starts = flush_units(queue)
    if cut not in starts:
        head = next(s for s in reversed(starts) if s < cut)
        raise CheckFailed(bilingual(
            f"message #{queue[cut].id} is a tool result whose call (#{queue[head].id}) was evicted: "
            f"a tool call leaves with its results ({where})",
            f"消息 #{queue[cut].id} 是工具结果，它的调用（#{queue[head].id}）却被驱逐了。"
            f"工具调用要和它的结果一起走（{where}）"),
            bilingual("evict whole units: an assistant message with a tool_call_id and the 'tool' messages "
                      "right after it with that id go together",
                      "按整组驱逐：带 tool_call_id 的 assistant 消息，和紧随其后、id 相同的 'tool' 消息一起走"))
    kept_tokens = sum(tokens[cut:])
    if kept_tokens > case.target:
        raise CheckFailed(bilingual(
            f"kept {len(kept)} messages ({kept_tokens} tokens) over the target of {case.target}: "
            f"evict until the kept ones fit ({where})",
            f"留下了 {len(kept)} 条消息（{kept_tokens} 个 token），超过目标 {case.target}。"
            f"要一直驱逐，直到留下的放得下（{where}）"),
            bilingual("keep evicting the oldest unit while the kept messages take more than target tokens",
                      "只要留下的消息超过 target 个 token，就继续驱逐最早的一组"))
    expected_cut = next(s for s in starts if sum(tokens[s:]) <= case.target)
    if cut != expected_cut:
        already = bilingual(
            f"the whole queue already took {sum(tokens)} tokens" if expected_cut == 0 else
            f"after the oldest {expected_cut} the kept ones already took {sum(tokens[expected_cut:])} tokens",
            f"整个队列本来只占 {sum(tokens)} 个 token" if expected_cut == 0 else
            f"去掉最早的 {expected_cut} 条后，留下的只占 {sum(tokens[expected_cut:])} 个 token")
        raise CheckFailed(bilingual(
            f"evicted {cut} messages, but {already}, within the target of {case.target} ({where})",
            f"驱逐了 {cut} 条消息，可是{already}，已经不超过目标 {case.target}（{where}）"),
            bilingual("stop evicting as soon as the kept messages take at most target tokens",
                      "留下的消息一旦不超过 target 个 token，就停止驱逐"))
    evicted = list(queue[:cut])
    if not evicted:
        if run.calls:
            raise CheckFailed(bilingual(
                f"nothing had to leave, yet the summarizer was called {len(run.calls)} time(s) ({where})",
                f"没有消息需要离开，摘要器却被调用了 {len(run.calls)} 次（{where}）"),
                bilingual("when nothing leaves, return (list(queue), summary) and call nothing",
                          "没有消息离开时，返回 (list(queue), summary)，什么也不调用"))
        if run.recall_after:
            raise CheckFailed(bilingual(f"nothing had to leave, yet recall got {_ids(run.recall_after)} ({where})",
                                        f"没有消息需要离开，recall 却收到了 {_ids(run.recall_after)}（{where}）"),
                              bilingual("when nothing leaves, call nothing: recall holds evicted messages only",
                                        "没有消息离开时，什么也不调用：recall 只存被驱逐的消息"))
        if run.summary != case.summary:
            raise CheckFailed(bilingual(
                f"nothing had to leave, yet the summary changed: {_short_text(run.summary)} ({where})",
                f"没有消息需要离开，摘要却变了：{_short_text(run.summary)}（{where}）"),
                bilingual("when nothing leaves, return the summary you were given", "没有消息离开时，原样返回传进来的摘要"))
        return
    if not run.calls:
        raise CheckFailed(bilingual(f"the summarizer was never called, though {cut} messages left ({where})",
                                    f"有 {cut} 条消息离开，摘要器却一次也没被调用（{where}）"),
                          bilingual("fold the evicted messages into the summary: "
                                    "summarizer.summarize(summary, evicted, summary_tokens)",
                                    "把被驱逐的消息并进摘要：summarizer.summarize(summary, evicted, summary_tokens)"))
    if len(run.calls) > 1:
        raise CheckFailed(bilingual(
            f"the summarizer was called {len(run.calls)} times: fold all evicted messages in one call ({where})",
            f"摘要器被调用了 {len(run.calls)} 次，应该一次就把所有被驱逐的消息并进去（{where}）"),
            bilingual("collect the evicted messages in a list first, then call "
                      "summarizer.summarize(summary, evicted, summary_tokens) once",
                      "先把被驱逐的消息收进列表，再调用一次 summarizer.summarize(summary, evicted, summary_tokens)"))
    (call,) = run.calls
    if call.kind not in ("list", "tuple"):
        raise CheckFailed(bilingual(f"summarize got the evicted messages as a {call.kind} ({where})",
                                    f"summarize 收到的被驱逐消息是 {call.kind}（{where}）"),
                          bilingual("pass the evicted messages as a list, oldest first",
                                    "把被驱逐的消息作为列表传入，从旧到新"))
    if list(call.evicted) != evicted:
        order = sorted(call.evicted, key=lambda m: m.id) == evicted
        raise CheckFailed(bilingual(
            f"summarize got {_ids(list(call.evicted))} as evicted, expected {_ids(evicted)}"
            f"{', oldest first' if order else ''} ({where})",
            f"summarize 收到的 evicted 是 {_ids(list(call.evicted))}，应为 {_ids(evicted)}"
            f"{'，从旧到新' if order else ''}（{where}）"),
            bilingual("pass exactly the messages that leave, oldest first", "传入的恰好是离开的那些消息，从旧到新"))
    if call.previous != case.summary:
        raise CheckFailed(bilingual(
            f"summarize got previous={_short_text(call.previous)}, expected the summary so far "
            f"{_short_text(case.summary)} ({where})",
            f"summarize 收到 previous={_short_text(call.previous)}，应为目前的摘要 "
            f"{_short_text(case.summary)}（{where}）"),
            bilingual("pass the summary you were given as previous", "把传进来的摘要作为 previous 传入"))
    if call.max_tokens != case.summary_tokens:
        raise CheckFailed(bilingual(
            f"summarize got max_tokens={call.max_tokens}, expected summary_tokens={case.summary_tokens} ({where})",
            f"summarize 收到 max_tokens={call.max_tokens}，应为 summary_tokens={case.summary_tokens}（{where}）"),
            bilingual("pass summary_tokens as max_tokens", "把 summary_tokens 作为 max_tokens 传入"))
    expected_summary = case.inner.summarize(case.summary, evicted, case.summary_tokens)
    if run.summary != expected_summary:
        raise CheckFailed(bilingual(
            f"the new summary {_short_text(run.summary)} is not what summarize returned "
            f"({_short_text(expected_summary)}) ({where})",
            f"新摘要 {_short_text(run.summary)} 不是 summarize 的返回值（{_short_text(expected_summary)}）（{where}）"),
            bilingual("return summarize's result as new_summary", "把 summarize 的结果作为 new_summary 返回"))
    filed = run.recall_after
    if filed != evicted:
        extra = [m for m in filed if m not in evicted]
        missing = [m for m in evicted if m not in filed]
        what = bilingual(
            f"recall got {_ids(extra)}, which stayed in main context" if extra else
            f"recall is missing {_ids(missing)}" if missing else
            f"recall got the evicted messages out of order ({_ids(filed)}, expected {_ids(evicted)})",
            f"recall 收到了 {_ids(extra)}，它们还留在主上下文里" if extra else
            f"recall 里缺了 {_ids(missing)}" if missing else
            f"recall 收到的被驱逐消息顺序不对（{_ids(filed)}，应为 {_ids(evicted)}）")
        raise CheckFailed(bilingual(f"{what} ({where})", f"{what}（{where}）"),
                          bilingual("file each evicted message in recall once, oldest first: "
                                    "for message in evicted: recall.add(message)",
                                    "被驱逐的消息按从旧到新的顺序各存进 recall 一次："
                                    "`for message in evicted: recall.add(message)`"))


EXERCISE = Exercise(
    grade_id="02-flush",
    notebook="02_eviction_summaries",
    answer="flush",
    points=3,
    description="exercise F: a flush that evicts whole units to the target, folds them into the summary "
                "and files them in recall",
    references=("memlib.course.checks.nb02_flush:reference_flush",),
    partial_credit=True,
    equivalent={
        "mutate-input: flush(tokens) -> tokens changed in place":
            "the contract asks to leave queue as it is, not tokens: popping token counts while evicting is a "
            "fair way to write the loop (the check and FlushContext pass a list of their own)",
    },
)


@graded(EXERCISE)
def check_flush(flush: Any) -> None:
    """Check exercise F: `flush(queue, tokens, target, summary, summarizer, summary_tokens, recall)`.

    Fixed: the kept messages are the newest whole units of the queue, within `target`, and
    only as few leave as needed; one summarizer call with (summary, evicted, summary_tokens),
    evicted oldest first; its result returned; each evicted message filed in recall once,
    oldest first; queue unchanged; nothing called when nothing leaves. Free: kept as a new
    list or the same messages, evicted passed as a list or a tuple, whether recall or the
    summarizer comes first, how the loop is written.
    """
    fn = _as_callable(flush, "flush")
    fixed = _cases()

    def judge(cases: list[_Case]) -> int:
        fresh = cases is not fixed
        judge_parts([functools.partial(_judge_drawn, case, fn, fresh) for case in cases])  # each queue is a case
        if fresh:
            passed(bilingual(f"the same rules on {len(cases)} queues drawn for this grading run",
                             f"本次评分另抽的 {len(cases)} 个队列上，同样的规则也都遵守了"))
            return len(cases)
        passed(bilingual(f"the oldest whole units leave until the kept messages fit, on {len(cases)} queues "
                         "(targets at and inside units, 0, the whole queue, an empty queue)",
                         f"{len(cases)} 个队列上，最早的消息都按整组离开，直到留下的放得下"
                         "（目标落在组的交界处和组中间、为 0、等于整个队列，以及空队列）"))
        passed(bilingual("one summarizer call with the evicted messages, oldest first; its summary returned; "
                         "nothing called when nothing leaves",
                         "摘要器只调用一次，传入从旧到新的被驱逐消息，返回它的摘要；没有消息离开时什么也不调用"))
        passed(bilingual("each evicted message filed in recall once, oldest first; the queue left as it was",
                         "每条被驱逐的消息按从旧到新的顺序存进 recall 一次；queue 保持原样"))
        return len(cases)

    # in the grader's checker, queues no answer can have looked up follow the fixed ones
    judge_fixed_then_fresh(EXERCISE.grade_id, judge, lambda rng: _drawn_cases(rng, FRESH_ROUNDS), fixed)


def _judge_drawn(case: _Case, fn: Any, fresh: bool) -> None:
    """Judge `fn` on one case; a failure on a queue drawn for this grading run says so."""
    try:
        _judge(case, _run(fn, case))
    except CheckFailed as failure:
        if not fresh:
            raise
        raise CheckFailed(bilingual("on a queue drawn for this grading run: ", "在本次评分另抽的队列上：")
                          + failure.what, failure.hint) from failure
