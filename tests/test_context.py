"""memlib.context: budget, pressure, eviction, pairing and the no-loss invariant."""

import pytest
from hypothesis import given, settings, strategies as st

from memlib.context import ContextOverflowError, MainContext
from memlib.messages import Message
from memlib.summarize import ExtractiveSummarizer, TruncatingSummarizer
from memlib.tokens import count


def fill(ctx, n, words=12):
    for i in range(n):
        ctx.append(Message.user(f"turn {i}: " + " ".join(["memory"] * words)))


def kinds(events):
    return [e.kind for e in events]


def test_segments_add_up_to_the_window():
    ctx = MainContext(window=500, system_prompt="You are terse.")
    fill(ctx, 3)
    seg = ctx.segments()
    assert sum(seg.values()) == 500
    assert seg["system"] == count("<system>\nYou are terse.\n</system>\n")  # the tags are in the prompt too
    assert seg["messages"] == sum(ctx.message_tokens(m) for m in ctx.messages)
    assert count(ctx.render()) == ctx.used


def test_warning_at_70_percent_then_flush_to_about_half():
    ctx = MainContext(window=400, system_prompt="sys")
    seen = []
    for i in range(60):
        events = ctx.append(Message.user(f"turn {i}: " + "memory " * 12))
        seen += events
        assert ctx.used <= ctx.window
    first_pressure = kinds(seen).index("pressure")
    assert seen[first_pressure].tokens_used >= 0.7 * 400
    appends_before = [e for e in seen[:first_pressure] if e.kind == "append"]
    assert all(e.tokens_used < 0.7 * 400 for e in appends_before[:-1])
    flushes = [e for e in seen if e.kind == "flush"]
    assert flushes and all(e.tokens_used <= 0.5 * 400 for e in flushes)


def test_pressure_warning_once_per_cycle():
    ctx = MainContext(window=400, system_prompt="sys")
    events = []
    for _ in range(60):
        events += ctx.append(Message.user("memory " * 12))
    ks = kinds(events)
    # between two flushes there is at most one warning
    segments = " ".join(ks).split("flush")
    assert all(seg.count("pressure") <= 1 for seg in segments)


def test_evicted_messages_reach_recall_and_summary():
    ctx = MainContext(window=300, system_prompt="sys", summarizer=ExtractiveSummarizer())
    ctx.append(Message.user("My sister Ines moved to Lisbon in 2023."))
    fill(ctx, 30)
    assert all("Ines" not in m.content for m in ctx.messages)
    assert "Lisbon" in ctx.summary
    assert ctx.recall.conversation_search("Ines Lisbon")[0].id == 0


def test_tool_call_never_separated_from_result():
    ctx = MainContext(window=300, system_prompt="sys")
    for i in range(40):
        ctx.append(Message.assistant(f"calling search {i}", tool_call_id=f"c{i}", name="archival_memory_search"))
        ctx.append(Message.tool("result " * 15, tool_call_id=f"c{i}", name="archival_memory_search"))
        queue = ctx.messages
        assert queue[0].role == "assistant", "a tool result was left without its call"
        for a, b in zip(queue, queue[1:]):
            if b.role == "tool":
                assert a.tool_call_id == b.tool_call_id


def test_message_too_large_raises_and_changes_nothing():
    ctx = MainContext(window=200, system_prompt="sys")
    fill(ctx, 5, words=5)
    before = (ctx.messages, ctx.used, len(ctx.recall))
    with pytest.raises(ContextOverflowError, match="cannot fit"):
        ctx.append(Message.user("word " * 400))
    assert (ctx.messages, ctx.used, len(ctx.recall)) == before


def test_summarizer_over_budget_is_truncated_not_overflowing():
    class Greedy:
        def summarize(self, previous, evicted, max_tokens):
            return "\n".join(m.content for m in evicted) * 5

    ctx = MainContext(window=300, system_prompt="sys", summarizer=Greedy(), summary_tokens=40)
    fill(ctx, 40)
    assert ctx.used <= 300 and count(ctx.summary) <= 40
    assert any("truncated" in e.detail for e in ctx.events if e.kind == "summarize")


def test_core_memory_growth_triggers_flush():
    class Core:
        version, text = 0, "persona: terse"

        def render(self):
            return self.text

    core = Core()
    ctx = MainContext(window=400, system_prompt="sys", core_memory=core)
    fill(ctx, 20)
    core.text += " likes tea" * 30
    core.version += 1
    events = ctx.core_changed()
    assert "core_edit" in kinds(events) and ctx.used <= 400


@pytest.mark.parametrize("kwargs, error", [
    ({"window": 10}, ValueError), ({"window": "big"}, ValueError),
    ({"warn_at": 0.4}, ValueError), ({"summarizer": object()}, TypeError),
    ({"system_prompt": 3}, TypeError), ({"window": 100, "system_prompt": "word " * 200}, ValueError),
])
def test_bad_constructor_arguments(kwargs, error):
    with pytest.raises(error):
        MainContext(**kwargs)


def test_append_rejects_non_messages():
    with pytest.raises(TypeError, match="takes a Message"):
        MainContext().append("hello")


def test_render_and_repr():
    ctx = MainContext(window=300, system_prompt="sys", summarizer=TruncatingSummarizer())
    fill(ctx, 30)
    text = ctx.render()
    assert text.startswith("<system>") and "<summary>" in text
    assert repr(ctx).startswith("MainContext(")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant", "call"]), st.integers(0, 60)),
                max_size=80),
       st.sampled_from([None, TruncatingSummarizer(), ExtractiveSummarizer()]))
def test_budget_and_no_loss_invariants(steps, summarizer):
    ctx = MainContext(window=256, system_prompt="sys", summarizer=summarizer)
    appended = []
    for i, (role, words) in enumerate(steps):
        text = " ".join(f"w{i}x{j}" for j in range(words))
        batch = ([Message.assistant("call", tool_call_id=f"t{i}"), Message.tool(text, tool_call_id=f"t{i}")]
                 if role == "call" else [Message(role, text)])
        for m in batch:
            try:
                ctx.append(m)
                appended.append(m.content)
            except ContextOverflowError:
                pass
            assert ctx.used <= ctx.window
    recalled = [m.content for m in ctx.recall]
    assert recalled == appended                   # everything, in order, once
    queue = [m.id for m in ctx.messages]
    assert queue == [m.id for m in ctx.recall][len(recalled) - len(queue):]  # context is a suffix


def test_restore_puts_back_a_saved_queue_and_summary():
    ctx = MainContext(window=300, system_prompt="sys", summarizer=ExtractiveSummarizer())
    fill(ctx, 30)
    again = MainContext(window=300, system_prompt="sys", summarizer=ExtractiveSummarizer(), recall=ctx.recall)
    again.restore(ctx.messages, ctx.summary)
    assert (again.messages, again.summary, again.used) == (ctx.messages, ctx.summary, ctx.used)
    empty = MainContext(window=300, system_prompt="sys")
    with pytest.raises(ValueError, match="not in recall storage"):
        empty.restore(ctx.messages)
    big = MainContext(window=100, system_prompt="sys", recall=ctx.recall)
    with pytest.raises(ValueError, match="over its"):
        big.restore(ctx.messages)
    assert big.messages == [] and big.summary == ""


# -- the budget is the rendered prompt (issue 14) -------------------------------------


def test_used_is_the_token_count_of_the_rendered_prompt_at_awkward_seams():
    from memlib.core_memory import CoreMemory

    core = CoreMemory.default(human="Name: Ada ")
    ctx = MainContext(window=400, system_prompt="sys.", core_memory=core, summarizer=TruncatingSummarizer())
    for text in ["", " leading space", "trailing space ", "\n\nnewlines\n", "ends with a dot.", "12", "34",
                 "'s", "中文", "</system>", "<|endoftext|>", "\r\n", "word " * 30] * 4:
        ctx.append(Message.user(text))
        assert count(ctx.render()) == ctx.used <= ctx.window
    assert ctx.summary and "<summary>" in ctx.render()


def test_a_direct_core_edit_flushes_or_is_refused_never_overflows():
    from memlib.core_memory import CoreMemory

    core = CoreMemory.default(limit=5000)
    ctx = MainContext(window=512, core_memory=core)
    fill(ctx, 20)
    core.append("human", "likes tea " * 60)  # straight on CoreMemory, no tool: the context is told
    assert count(ctx.render()) == ctx.used <= 512 and "flush" in kinds(ctx.events)
    before = (core.to_json(), ctx.used, ctx.render())
    with pytest.raises(ContextOverflowError, match="edit undone"):
        core.append("human", "likes tea " * 300)  # would be about 1,940 of 512 tokens
    assert (core.to_json(), ctx.used, ctx.render()) == before


def test_a_summarizer_that_raises_changes_nothing():
    class Broken:
        def summarize(self, previous, evicted, max_tokens):
            raise RuntimeError("model offline")

    ctx = MainContext(window=300, system_prompt="sys", summarizer=Broken(), summary_tokens=30)
    fill(ctx, 8)
    before = (ctx.messages, ctx.used, ctx.summary, len(ctx.recall), len(ctx.events))
    with pytest.raises(RuntimeError, match="model offline"):
        fill(ctx, 20)
    after_first_failure = (ctx.messages, ctx.used, ctx.summary, len(ctx.recall), len(ctx.events))
    with pytest.raises(RuntimeError):
        ctx.flush()
    assert (ctx.messages, ctx.used, ctx.summary, len(ctx.recall), len(ctx.events)) == after_first_failure
    assert after_first_failure[0][: len(before[0])] == before[0]  # nothing evicted unsummarised


def test_room_says_exactly_what_still_fits():
    ctx = MainContext(window=300, system_prompt="sys")
    fill(ctx, 10)
    room = ctx.room(Message.user("x"))
    fits = Message.user("word " * 400)
    while ctx.message_tokens(fits) > room:
        fits = Message.user(fits.content[:-5])
    ctx.append(fits)  # the largest message room() allows is accepted
    with pytest.raises(ContextOverflowError):
        ctx.append(Message.user(fits.content + " word word word"))
