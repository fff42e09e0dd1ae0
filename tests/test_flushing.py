"""FlushContext (memlib.course.flushing): a main context whose flush is exercise F's function."""

from __future__ import annotations

from datetime import datetime

import pytest

from memlib import datasets
from memlib.context import ContextOverflowError, MainContext
from memlib.course.checks import reference_flush
from memlib.course.flushing import FlushContext, FlushError, flush_units, probe_flush, validate_flush
from memlib.messages import Message
from memlib.summarize import ExtractiveSummarizer

AT = datetime(2026, 3, 2, 9, 0)


def _turns(n: int) -> list[Message]:
    return [Message(t.role, t.content) for t in datasets.load("conversation")[:n]]


def _with_tool_calls(n: int) -> list[Message]:
    out = []
    for i, message in enumerate(_turns(n)):
        out.append(message)
        if i % 4 == 3:
            out += [Message.assistant(f"archival_memory_search(query='week {i}')", tool_call_id=f"c{i}"),
                    Message.tool('{"status": "OK", "message": "2 records"}', f"c{i}")]
    return out


@pytest.mark.parametrize("summarizer", [None, ExtractiveSummarizer()])
def test_the_reference_flush_makes_exactly_memlibs_flushes(summarizer):
    kwargs = {"window": 512, "summarizer": summarizer, "summary_tokens": 64 if summarizer else None}
    ours, memlibs = FlushContext(reference_flush, **kwargs), MainContext(**kwargs)
    for message in _with_tool_calls(160):
        message = message.replace(timestamp=AT)  # else each store stamps it, and a second can pass between
        assert [e.detail for e in ours.append(message)] == [e.detail for e in memlibs.append(message)]
    assert ours.summary == memlibs.summary and ours.messages == memlibs.messages
    assert sum(e.kind == "flush" for e in ours.events) >= 5


def _calls_log(flush):
    calls = []

    def logged(*args):
        calls.append(args)
        return flush(*args)

    return logged, calls


def test_the_function_gets_the_queue_target_and_a_fresh_recall():
    logged, calls = _calls_log(reference_flush)
    ctx = FlushContext(logged, window=300)
    for message in _turns(30):
        ctx.append(message)
    assert calls
    queue, tokens, target, summary, summarizer, budget, recall = calls[0]
    assert tokens == [ctx.message_tokens(m) for m in queue] and 0 <= target < sum(tokens)
    assert summarizer is ctx.summarizer and budget == 0 and len(recall) > 0  # it filed what it evicted
    assert len(ctx.recall) == 30  # the context's own recall: every message once


@pytest.mark.parametrize("wrong, message", [
    (lambda queue, tokens, target, summary, s, b, recall: (queue, summary), "over the target"),
    (lambda queue, tokens, target, summary, s, b, recall: (queue[-1:], summary), "recall storage got 0"),
    (lambda queue, tokens, target, summary, s, b, recall: (queue[:1], summary), "newest messages of the queue"),
    (lambda queue, tokens, target, summary, s, b, recall: queue[1:], r"returns \(kept, new_summary\)"),
    (lambda queue, tokens, target, summary, s, b, recall: (queue[1:], None), r"\(a list of messages, a str\)"),
])
def test_a_flush_that_breaks_a_rule_is_refused_and_changes_nothing(wrong, message):
    ctx = FlushContext(wrong, window=300)
    messages = iter(_turns(60))
    with pytest.raises(FlushError, match=message):
        while True:
            before = (ctx.messages, ctx.summary, ctx.used, len(ctx.recall))
            ctx.append(next(messages))
    assert (ctx.messages, ctx.summary, ctx.used, len(ctx.recall)) == before


def test_a_part_of_a_tool_unit_is_refused():
    queue = [Message.assistant("search()", id=0, tool_call_id="c0", timestamp=AT),
             Message.tool("found", "c0", id=1, timestamp=AT), Message.user("thanks", id=2, timestamp=AT)]
    assert flush_units(queue) == [0, 2, 3]
    with pytest.raises(FlushError, match="#1 is a tool result whose call was evicted"):
        validate_flush((queue[1:], ""), queue, [5, 5, 5], 10, queue[:1])
    assert validate_flush((queue[2:], "s"), queue, [5, 5, 5], 10, queue[:2]) == (2, "s")
    with pytest.raises(FlushError, match="tool result whose call"):
        probe_flush(lambda queue, tokens, *rest: (queue[1:], ""))
    probe_flush(reference_flush)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="flush must be a function"):
        FlushContext("flush", window=300)
    with pytest.raises(ValueError, match="evicts to a share of the window"):
        FlushContext(reference_flush, window=300, profile="memgpt")


def test_a_message_that_cannot_fit_is_memlibs_error_and_the_function_is_not_called():
    logged, calls = _calls_log(reference_flush)
    ctx = FlushContext(logged, window=128)
    with pytest.raises(ContextOverflowError):
        ctx.append(Message.user("word " * 400))
    assert not calls and len(ctx) == 0


def test_the_stepper_animates_a_ready_context():
    from memlib.viz import ContextStepper

    stepper = ContextStepper(_turns(40), context=FlushContext(reference_flush, window=512))
    assert stepper.turns == 40 and any(s.flushed for s in stepper.history)
    with pytest.raises(TypeError, match="either a ready context"):
        ContextStepper(_turns(5), window=512, context=FlushContext(reference_flush, window=512))
