"""Stateful property test: the budget is the real prompt, and a failed step changes nothing.

Hypothesis drives a MainContext, its CoreMemory (edited directly, through the
public API, and through the tools), an archival store and the tool dispatcher
through random sequences of steps, with summarizers that sometimes raise. In
every reachable state the token count of exactly what `render()` returns must
equal `used`, and `used` must stay within the window.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from memlib.context import ContextOverflowError, MainContext
from memlib.core_memory import Block, CoreMemory, CoreMemoryError
from memlib.messages import Message
from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer
from memlib.tokens import count
from memlib.tools import MemorySystem, dispatch, result_message

# Hard cases for the tokenizer at the seams between prompt pieces: leading and
# trailing spaces and newlines, punctuation, digits, contractions, CJK, tags.
_ALPHABET = st.sampled_from(
    ["a", "Ines", " ", "  ", "\n", "\n\n", "\r\n", "\t", ".", "!", "?", "'s", "12", "7", "[", "]", "<", ">",
     "é", "中文", "🙂", "-", "</system>", "<|endoftext|>", "word", "Lisbon", ","]
)
TEXT = st.lists(_ALPHABET, min_size=0, max_size=40).map("".join)
BIG_TEXT = st.integers(50, 400).map(lambda n: "memory " * n)

STATES = {"n": 0}  # how many states were checked (reported by the budget note)


class FlakySummarizer:
    """Wraps a real summarizer; raises while `failing` is set."""

    def __init__(self, inner):
        self.inner, self.failing = inner, False

    def summarize(self, previous, evicted, max_tokens):
        if self.failing:
            raise RuntimeError("summarizer is down")
        return self.inner.summarize(previous, evicted, max_tokens)


class Greedy:
    """Ignores its budget: the context must truncate what it returns."""

    def summarize(self, previous, evicted, max_tokens):
        return "\n".join(f"- {m.role}: {m.content}" for m in evicted) * 3


def snapshot(memory: MemorySystem):
    ctx = memory.context
    return (memory.core.to_json(), memory.core.labels, ctx.render(), ctx.used, ctx.summary, len(ctx.events),
            [m.to_dict() for m in memory.recall], [r.to_dict() for r in memory.archival],
            memory.archival.next_id, list(memory.outbox))


class BudgetMachine(RuleBasedStateMachine):
    @initialize(window=st.sampled_from([128, 200, 256, 512]),
                inner=st.sampled_from(["none", "truncating", "extractive", "greedy"]),
                limit=st.sampled_from([50, 300, 2000]), on_disk=st.booleans())
    def setup(self, window, inner, limit, on_disk):
        inner = {"none": NoSummarizer(), "truncating": TruncatingSummarizer(),
                 "extractive": ExtractiveSummarizer(), "greedy": Greedy()}[inner]
        self.summarizer = FlakySummarizer(inner)
        reserve = 0 if isinstance(inner, NoSummarizer) else window // 8
        self.core = CoreMemory.default(limit=limit)
        self.folder = recall = archival = None
        if on_disk:  # the same rules with the SQLite stores underneath
            from memlib.storage import SQLiteArchivalStore, SQLiteRecallStore

            self.folder = tempfile.mkdtemp(prefix="memlib-stateful-")
            recall = SQLiteRecallStore(os.path.join(self.folder, "r.db"), synchronous="NORMAL")
            archival = SQLiteArchivalStore(os.path.join(self.folder, "a.db"), synchronous="NORMAL")
        ctx = MainContext(window=window, system_prompt="sys", core_memory=self.core,
                          summarizer=self.summarizer, summary_tokens=reserve, recall=recall)
        self.memory = MemorySystem(context=ctx, archival=archival)
        self.appended: list[str] = []

    @property
    def ctx(self) -> MainContext:
        return self.memory.context

    def _append(self, message: Message) -> None:
        before = snapshot(self.memory)
        try:
            self.memory.append_message(message)
        except (ContextOverflowError, RuntimeError):
            assert snapshot(self.memory) == before, "a failed append changed the context"
        else:
            self.appended.append(message.content)

    @rule(role=st.sampled_from(["user", "assistant", "system"]), text=TEXT | BIG_TEXT)
    def append(self, role, text):
        self._append(Message(role, text))

    @rule(call=TEXT, result=TEXT | BIG_TEXT, n=st.integers(0, 10**6))
    def tool_pair(self, call, result, n):
        self._append(Message.assistant(call, tool_call_id=f"c{n}"))
        if self.ctx.messages and self.ctx.messages[-1].tool_call_id == f"c{n}":
            self._append(Message.tool(result, tool_call_id=f"c{n}"))

    @rule(text=TEXT | BIG_TEXT, n=st.integers(0, 10**6))
    def oversized_tool_result_is_cut_to_fit(self, text, n):
        from memlib.tools import ToolResult

        self._append(Message.assistant("search", tool_call_id=f"r{n}"))
        if not (self.ctx.messages and self.ctx.messages[-1].tool_call_id == f"r{n}"):
            return
        message = result_message(ToolResult("OK", text * 20), f"r{n}", "archival_memory_search", self.ctx)
        if self.ctx.message_tokens(message) <= self.ctx.room(message):
            self._append(message)
            if not self.summarizer.failing:
                assert self.ctx.messages[-1].content == message.content

    @rule(label=st.sampled_from(["human", "persona", "missing"]), text=TEXT | BIG_TEXT)
    def core_append_directly(self, label, text):
        before = snapshot(self.memory)
        try:
            self.core.append(label, text)
        except (CoreMemoryError, ContextOverflowError, RuntimeError, TypeError):
            assert snapshot(self.memory) == before, "a refused core edit changed something"

    @rule(old=TEXT, new=TEXT | BIG_TEXT)
    def core_replace_directly(self, old, new):
        before = snapshot(self.memory)
        try:
            self.core.replace("human", old, new)
        except (CoreMemoryError, ContextOverflowError, RuntimeError):
            assert snapshot(self.memory) == before, "a refused core edit changed something"

    @rule(text=TEXT | BIG_TEXT, n=st.integers(0, 99))
    def add_block_directly(self, text, n):
        before = snapshot(self.memory)
        try:
            self.core.add_block(Block(f"b{n}", text[:2000], limit=2000))
        except (CoreMemoryError, ContextOverflowError, RuntimeError):
            assert snapshot(self.memory) == before

    @rule(name=st.sampled_from(["core_memory_append", "core_memory_replace", "archival_memory_insert",
                                "archival_memory_search", "conversation_search", "send_message"]),
          a=TEXT | BIG_TEXT, b=TEXT)
    def tool_call(self, name, a, b):
        args = {"core_memory_append": {"label": "human", "content": a},
                "core_memory_replace": {"label": "human", "old_content": b, "new_content": a},
                "archival_memory_insert": {"content": a},
                "archival_memory_search": {"query": a},
                "conversation_search": {"query": a},
                "send_message": {"message": a}}[name]
        before = snapshot(self.memory)
        result = dispatch(name, args, self.memory)
        # Only a summarizer that raises is a real surprise (and even then nothing changes).
        assert "unexpectedly" not in result.message or self.summarizer.failing, result.message
        if not result.ok:
            assert snapshot(self.memory) == before, f"Failed {name} changed something: {result.message}"

    @rule()
    def flush(self):
        before = snapshot(self.memory)
        try:
            self.ctx.flush()
        except RuntimeError:
            assert snapshot(self.memory) == before

    @rule()
    def toggle_summarizer(self):
        self.summarizer.failing = not self.summarizer.failing

    def teardown(self):
        if getattr(self, "folder", None):
            self.memory.recall.close()
            self.memory.archival.close()
            shutil.rmtree(self.folder, ignore_errors=True)

    @invariant()
    def budget_is_the_rendered_prompt(self):
        STATES["n"] += 1
        ctx = self.ctx
        assert count(ctx.render()) == ctx.used
        assert ctx.used <= ctx.window
        assert sum(ctx.segments().values()) == ctx.window

    @invariant()
    def nothing_is_lost(self):
        conversation = [m.content for m in self.memory.recall]
        assert conversation == self.appended
        queue = [m.id for m in self.ctx.messages]
        assert queue == [m.id for m in self.memory.recall][len(conversation) - len(queue):]


EXAMPLES = int(os.environ.get("MEMLIB_STATEFUL_EXAMPLES", "60"))


def test_budget_state_machine():
    STATES["n"] = 0
    run_state_machine_as_test(BudgetMachine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=30, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))
    print(f"budget state machine: {EXAMPLES} examples, {STATES['n']} states checked")
    assert STATES["n"] >= EXAMPLES
