"""The agent loop: heartbeats, the hard cap, tool-call pairing, traces, and the lesson scenario."""

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib.agent import (
    PRESSURE_ALERT,
    TRACE_KINDS,
    Agent,
    AgentView,
    ToolCall,
    Trace,
)
from memlib.citations import CITATION_PATTERN, Citation, CitedAnswer, strip_citations, verify
from memlib.context import MainContext
from memlib.core_memory import CoreMemory
from memlib.policies import RulePolicy, ScriptedPolicy
from memlib.tools import MemorySystem


class Clock:
    def __init__(self):
        self.now = datetime(2026, 1, 5, 9, 0)

    def __call__(self):
        self.now += timedelta(minutes=1)
        return self.now


def new_agent(policy=None, window=2048, **kw):
    memory = MemorySystem.create(window=window, clock=Clock())
    return Agent(policy if policy is not None else RulePolicy(), memory, **kw)


def reply(text):
    return ToolCall("send_message", {"message": text})


def assert_pairs_intact(context):
    """Every tool result in view directly follows the call it answers."""
    messages = context.messages
    for i, message in enumerate(messages):
        if message.role == "tool":
            assert i > 0, "a tool result lost its call to eviction"
            previous = messages[i - 1]
            assert previous.tool_call_id == message.tool_call_id
            assert previous.role in ("assistant", "tool")


# -- ToolCall ------------------------------------------------------------------------


def test_tool_call_repr_and_validation():
    call = ToolCall("archival_memory_search", {"query": "sister", "page": 0})
    assert repr(call) == "archival_memory_search(query='sister', page=0)"
    assert ToolCall("send_message", None).arguments == {}
    assert ToolCall("x", '{"a": 1}').render() == 'x({"a": 1})'
    assert len(ToolCall("x", {"content": "y" * 1000}).render()) < 220
    with pytest.raises(TypeError, match="name must be a str"):
        ToolCall(None)
    with pytest.raises(TypeError, match="arguments must be a dict"):
        ToolCall("send_message", ["hi"])


# -- Agent construction and input ----------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(policy=object()), TypeError),
        (dict(policy=RulePolicy(), memory="memory"), TypeError),
        (dict(policy=RulePolicy(), max_heartbeats=-1), ValueError),
        (dict(policy=RulePolicy(), max_heartbeats=True), ValueError),
        (dict(policy=RulePolicy(), max_heartbeats="5"), ValueError),
    ],
)
def test_agent_rejects_bad_construction(kwargs, error):
    with pytest.raises(error):
        Agent(**kwargs)


def test_agent_accepts_a_main_context_or_nothing():
    context = MainContext(window=1024, core_memory=CoreMemory.default())
    agent = Agent(RulePolicy(), context)
    assert agent.memory.context is context and agent.memory.core is context.core_memory
    assert Agent(RulePolicy()).memory.context is not None
    assert "max_heartbeats=5" in repr(agent)


@pytest.mark.parametrize("text, error", [(None, TypeError), (3, TypeError), ("", ValueError), ("   ", ValueError)])
def test_step_rejects_bad_user_text(text, error):
    with pytest.raises(error):
        new_agent().step(text)


# -- the loop -----------------------------------------------------------------------


def test_tool_call_and_result_enter_the_context_as_a_pair():
    agent = new_agent(ScriptedPolicy([
        ToolCall("archival_memory_insert", {"content": "Ada likes tea", "request_heartbeat": True}),
        reply("Saved."),
    ]))
    agent.step("Remember that I like tea")
    roles = [(m.role, m.tool_call_id, m.name) for m in agent.memory.context.messages]
    assert roles == [
        ("user", None, None),
        ("assistant", "call-0001", "archival_memory_insert"),
        ("tool", "call-0001", "archival_memory_insert"),
        ("assistant", "call-0002", "send_message"),
        ("tool", "call-0002", "send_message"),
    ]
    assert agent.memory.context.messages[3].content == "Saved."  # the words the user read


def test_context_events_carry_the_segments_for_viewers():
    agent = new_agent(ScriptedPolicy([reply("Hello.")]))
    trace = agent.step("Hi")
    appends = trace.of_kind("append")
    assert appends and all(sum(e.segments.values()) == e.window for e in appends)
    assert appends[-1].segments == agent.memory.context.segments()


def test_heartbeat_cap_is_enforced():
    looping = ScriptedPolicy([ToolCall("archival_memory_search", {"query": "x", "request_heartbeat": True})] * 20)
    agent = new_agent(looping, max_heartbeats=3)
    trace = agent.step("go")
    assert len(trace.tool_calls) == 4  # the first call plus three heartbeats
    assert trace.of_kind("heartbeat")[-1].detail == "cap of 3 heartbeats reached: ending the step"
    assert looping.remaining == 16


def test_zero_heartbeats_means_one_call():
    agent = new_agent(ScriptedPolicy([ToolCall("conversation_search", {"query": "x", "request_heartbeat": True})]),
                      max_heartbeats=0)
    assert len(agent.step("go").tool_calls) == 1


def test_no_heartbeat_ends_the_step():
    agent = new_agent(ScriptedPolicy([ToolCall("archival_memory_insert", {"content": "a fact"}), reply("never")]))
    trace = agent.step("go")
    assert len(trace.tool_calls) == 1 and trace.reply is None


def test_agent_keeps_running_after_failed_tools():
    script = [
        ToolCall("core_memory_replace", {"label": "human", "old_content": "Bob", "new_content": "x"}),
        ToolCall("no_such_tool", {}),
        ToolCall("archival_memory_search", {"query": 7}),
        ToolCall("archival_memory_insert", "{broken json"),
        reply("Sorry about that."),
    ]
    agent = new_agent(ScriptedPolicy(script))
    trace = agent.step("hello")
    assert [r.status for r in trace.results] == ["Failed", "Failed", "Failed", "Failed", "OK"]
    assert trace.reply == "Sorry about that."
    assert all("after a failed call" in e.detail for e in trace.of_kind("heartbeat"))
    agent.policy = RulePolicy()  # the script is used up; the same agent carries on
    assert agent.step("Thanks.").reply == "Noted."


class GarbagePolicy:
    """Returns things that are not tool calls."""

    def __init__(self, outputs):
        self.outputs = list(outputs)

    def next_call(self, view):
        return self.outputs.pop(0) if self.outputs else None


def test_bad_policy_output_becomes_a_failed_observation():
    agent = new_agent(GarbagePolicy([None, "send_message", 42, {"nope": 1}, reply("ok")]))
    trace = agent.step("hello")
    assert [r.status for r in trace.results] == ["Failed"] * 4 + ["OK"]
    assert "no usable tool call" in trace.results[0].message
    assert_pairs_intact(agent.memory.context)


def test_a_policy_that_only_returns_garbage_is_stopped_by_the_cap():
    agent = new_agent(GarbagePolicy([]), max_heartbeats=5)
    trace = agent.step("hello")
    assert len(trace.results) == 6 and all(not r.ok for r in trace.results)


def test_policy_sees_previous_calls_in_the_view():
    seen = []

    class Recorder:
        def next_call(self, view):
            seen.append(view)
            if view.last_result is None:
                return ToolCall("archival_memory_search", {"query": "tea", "request_heartbeat": True})
            return reply(view.last_result.status)

    agent = new_agent(Recorder())
    agent.step("what tea?")
    assert isinstance(seen[0], AgentView) and seen[0].calls == ()
    assert seen[1].last_call.name == "archival_memory_search"
    assert "<system>" in seen[1].prompt and "what tea?" in seen[1].prompt


def test_agent_without_a_main_context_uses_recall_only():
    memory = MemorySystem(clock=Clock())
    agent = Agent(RulePolicy(), memory)
    assert agent.step("My name is Ada.").reply.startswith("Got it")
    assert [m.role for m in memory.recall][:1] == ["user"] and len(memory.recall) == 5


def test_pressure_alert_reaches_the_policy_and_the_context():
    views = []

    class Watcher:
        def next_call(self, view):
            views.append(view)
            return reply("ok " + "padding " * 20)

    agent = new_agent(Watcher(), window=400)
    for i in range(12):
        agent.step(f"message {i} with a few words to take up some room in the window")
    alerted = [v for v in views if v.alerts]
    assert alerted and alerted[0].alerts[0].startswith("[memory pressure]")
    assert any(m.role == "system" and m.content.startswith("[memory pressure]") for m in agent.memory.recall)
    assert any(t.of_kind("alert") for t in agent.traces)


# -- the trace ----------------------------------------------------------------------


def test_trace_kinds_and_rendering():
    agent = new_agent()
    trace = agent.step("Remember that my sister Maya is allergic to peanuts.")
    assert set(trace.kinds) <= set(TRACE_KINDS)
    assert trace.kinds[0] == "append" and trace.kinds[-1] == "append"
    full, compact = trace.render(), trace.render(compact=True)
    assert full.startswith("step 1 · user: Remember that") and "append" in full
    assert "append" not in compact and "tool_call    archival_memory_insert(" in compact
    assert "send_message Got it: I saved that to archival memory." in compact
    assert repr(trace).startswith("Trace(step 1,") and len(trace) == len(list(trace))
    assert isinstance(Trace("x"), Trace) and Trace("x").reply is None


# -- the lesson scenario, end to end ----------------------------------------------------


def test_lesson_scenario_end_to_end():
    agent = new_agent(window=700)
    memory, context = agent.memory, agent.memory.context
    for text in ["You are Sam, a patient study buddy.", "My name is Ada.",
                 "Remember that my sister Maya is allergic to peanuts.", "My bike is a green Brompton.",
                 "Remember that my thesis draft is due on 12 March.", "I have a dentist appointment on Friday at 9."]:
        agent.step(text)
    assert len(memory.archival) == 3 and "Name: Ada" in memory.core.get("human").value
    for i in range(8):
        agent.step(f"Study log {i}: read section {i} of the paging chapter and took notes.")
        assert context.used <= context.window
        assert_pairs_intact(context)
    evicted = [t for t in agent.traces if t.of_kind("evict")]
    assert evicted, "the context never filled up"
    sister = next(m for m in memory.recall if "sister Maya" in m.content and m.role == "user")
    dentist = next(m for m in memory.recall if "dentist" in m.content and m.role == "user")
    assert sister.id not in {m.id for m in context.messages}
    assert dentist.id not in {m.id for m in context.messages}

    trace = agent.step("What is my sister allergic to?")
    assert trace.tool_calls[0].name == "archival_memory_search"
    answer = trace.reply
    assert answer.startswith("Your sister Maya is allergic to peanuts. [arc-000001 · session s1 turn")
    ids = CITATION_PATTERN.findall(answer)
    cited = CitedAnswer(strip_citations(answer), tuple(Citation.from_record(memory.archival.get(i)) for i in ids))
    assert verify(cited, memory.archival) == []

    trace = agent.step("What did I tell you about the dentist?")
    assert trace.tool_calls[0].name == "conversation_search"
    assert f"turn {dentist.id}" in trace.reply and "dentist appointment on Friday" in trace.reply

    # Nothing lost: recall holds every message ever appended, in order.
    assert [m.id for m in memory.recall] == list(range(len(memory.recall)))
    assert context.messages == memory.recall.messages[-len(context.messages):]


# -- property: the loop survives any conversation ------------------------------------------

USER_TEXTS = [
    "My name is Ada.", "My name is Bea.", "You are Sam.", "Remember that my cat is called Biscuit.",
    "My favourite colour is green.", "What is my name?", "What did I tell you about the cat?",
    "What is my favourite colour?", "I went hiking on Sunday.", "Hello there!", "?", "remember",
    "my  is ", "What is it?", "x" * 3000, "Remember that " + "long " * 600,
]


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.sampled_from(USER_TEXTS), min_size=1, max_size=25),
       window=st.sampled_from([700, 1200, 4096]), cap=st.integers(0, 4))
def test_agent_survives_any_conversation(texts, window, cap):
    agent = new_agent(window=window, max_heartbeats=cap)
    for text in texts:
        trace = agent.step(text)
        assert len(trace.tool_calls) <= 1 + cap
        context = agent.memory.context
        assert context.used <= context.window
        assert_pairs_intact(context)
    assert [m.id for m in agent.memory.recall] == list(range(len(agent.memory.recall)))
    for block in agent.memory.core:
        assert block.chars <= block.limit
    assert PRESSURE_ALERT  # (imported for the notebook's sake; keep it public)


def test_a_user_message_too_big_for_the_window_raises_and_changes_nothing():
    from memlib.context import ContextOverflowError

    agent = new_agent(window=300)
    agent.step("My name is Ada.")
    before = (len(agent.traces), len(agent.memory.recall), agent.memory.context.used)
    with pytest.raises(ContextOverflowError):
        agent.step("word " * 2000)
    assert (len(agent.traces), len(agent.memory.recall), agent.memory.context.used) == before
    assert agent.step("Thanks.").reply == "Noted."
