"""Bugs reported against MemGPT / Letta, written as properties memlib must keep (notebook 11).

Each test names the report and the invariant it broke; hypothesis tries many conversations,
every paging profile and windows of many sizes.

- letta-ai/letta#2601: a summary wiped every in-context message, not only the oldest ones
  up to the cut. Invariant: a flush removes a prefix of the queue and nothing else.
- letta-ai/letta#1635: an archival_memory_search result overflowed the context and no
  summary was triggered. Invariant: a tool result always fits next to its call.
- letta-ai/letta#3279: the summarizer of a local model inherited the agent's capped window
  and could not read the context it had to compact. Invariant: what a flush asks the
  summarizer to read (old summary + evicted messages) fits in the window being compacted.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from memlib.context import PROFILES, MainContext
from memlib.messages import Message
from memlib.summarize import ExtractiveSummarizer
from memlib.tools import MemorySystem, dispatch, result_message

WORDS = ["tea", "Lisbon", "swimming", "Ada", "lesson", "tram", "note", "week", "plumber", "Ines"]


def text(n_words, seed):
    return " ".join(WORDS[(seed + i * 7) % len(WORDS)] for i in range(n_words))


def chat_message(i, n_words):
    content = f"m{i} " + text(n_words, i)
    return Message.user(content) if i % 2 == 0 else Message.assistant(content)


conversations = st.lists(st.integers(min_value=1, max_value=60), min_size=5, max_size=60)
profiles = st.sampled_from(sorted(PROFILES))


@settings(max_examples=60, deadline=None)
@given(sizes=conversations, profile=profiles, window=st.integers(min_value=300, max_value=1200))
def test_2601_a_flush_removes_only_a_prefix_of_the_queue(sizes, profile, window):
    ctx = MainContext(window=window, profile=profile, summarizer=ExtractiveSummarizer())
    for i, n in enumerate(sizes):
        before = [m.id for m in ctx.messages]
        events = ctx.append(chat_message(i, n))
        evicted = [e.message.id for e in events if e.kind == "evict"]
        after = [m.id for m in ctx.messages]
        new = ctx.recall.messages[-1].id  # the message just appended, numbered by recall storage
        # what went is the oldest part of the queue (with Letta's evict-after-append profiles it may
        # reach the new message); everything after the cut is still there, in order
        assert evicted == (before + [new])[:len(evicted)]
        assert after == (before + [new])[len(evicted):]
        assert ctx.used <= ctx.window
    assert len(ctx.recall) == len(sizes)  # and every message, evicted or not, is in recall storage


@settings(max_examples=40, deadline=None)
@given(record_words=st.lists(st.integers(min_value=5, max_value=900), min_size=1, max_size=8),
       history=st.integers(min_value=0, max_value=30), window=st.integers(min_value=400, max_value=2000))
def test_1635_an_archival_search_result_always_fits_next_to_its_call(record_words, history, window):
    memory = MemorySystem.create(window=window)
    for i, n in enumerate(record_words):
        assert dispatch("archival_memory_insert", {"content": "Ada swimming " + text(n, i)}, memory).status == "OK"
    for i in range(history):
        memory.append_message(chat_message(i, 25))
    call = Message.assistant("archival_memory_search(query='Ada swimming')", tool_call_id="c1",
                             name="archival_memory_search")
    memory.append_message(call)
    result = dispatch("archival_memory_search", {"query": "Ada swimming"}, memory)
    memory.append_message(result_message(result, "c1", name="archival_memory_search", context=memory.context))
    queue = memory.context.messages
    assert memory.context.used <= window
    assert queue[-1].role == "tool" and queue[-2].tool_call_id == "c1"  # the result sits right after its call


class WindowedSummarizer:
    """A summarizer running on a model with the agent's own window: it fails when its input does not fit."""

    def __init__(self, window, counter):
        self.window, self.counter, self.inner, self.largest = window, counter, ExtractiveSummarizer(), 0

    def summarize(self, previous, evicted, max_tokens):
        reads = self.counter(previous) + sum(self.counter(m.content) for m in evicted)
        self.largest = max(self.largest, reads)
        if reads > self.window:
            raise RuntimeError(f"summarizer input of {reads} tokens over its {self.window}-token window")
        return self.inner.summarize(previous, evicted, max_tokens)


@settings(max_examples=60, deadline=None)
@given(sizes=conversations, profile=profiles, window=st.integers(min_value=300, max_value=1200))
def test_3279_the_summarizer_never_reads_more_than_the_window_it_compacts(sizes, profile, window):
    probe = MainContext(window=window, profile=profile)
    summarizer = WindowedSummarizer(window, probe.counter)
    ctx = MainContext(window=window, profile=profile, summarizer=summarizer)
    for i, n in enumerate(sizes):
        ctx.append(chat_message(i, n))  # would raise if the summarizer were handed too much
    assert summarizer.largest <= window
