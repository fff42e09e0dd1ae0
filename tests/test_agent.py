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


# -- the agent's parts: begin, ask, splice (what step is written with) ----------------


def _events_after(trace, kind):
    kinds = trace.kinds
    return kinds[kinds.index(kind) + 1:] if kind in kinds else []


def test_begin_appends_the_user_message_and_starts_a_trace():
    agent = new_agent(ScriptedPolicy([]))
    trace = agent.begin("hello there")
    assert isinstance(trace, Trace) and trace.step == 1 and agent.traces == [trace]
    assert trace.user_message.content == "hello there" and trace.kinds == ["append"]
    assert agent.memory.context.messages[-1] is trace.user_message
    assert agent.memory.turn_id == trace.user_message.id
    assert agent.begin("again").step == 2


@pytest.mark.parametrize("text, error", [(None, TypeError), (3, TypeError), ("  ", ValueError)])
def test_begin_rejects_bad_user_text(text, error):
    agent = new_agent(ScriptedPolicy([]))
    with pytest.raises(error):
        agent.begin(text)
    assert agent.traces == [] and len(agent.memory.recall) == 0


def test_ask_shows_the_policy_the_calls_so_far_and_what_the_cap_leaves():
    views = []

    class Recorder:
        def next_call(self, view):
            views.append(view)
            return reply("hi")

    agent = new_agent(Recorder(), max_heartbeats=3)
    trace = agent.begin("hello")
    earlier = (ToolCall("archival_memory_search", {"query": "tea"}), agent_result("OK"))
    assert agent.ask(trace, []) == reply("hi")
    assert agent.ask(trace, [earlier]) == reply("hi")
    assert views[0].calls == () and views[0].calls_left == 3 and views[0].user_message is trace.user_message
    assert views[1].calls == (earlier,) and views[1].calls_left == 2
    assert agent.ask(trace, [earlier] * 5) is not None and views[2].calls_left == 0  # never below zero
    assert agent.memory.context.messages[-1] is trace.user_message  # asking changes no context


def agent_result(status, message="done", heartbeat=False):
    from memlib.tools import ToolResult

    return ToolResult(status, message, heartbeat)


@pytest.mark.parametrize("output", [None, "send_message", 42, {"nope": 1}])
def test_ask_turns_a_malformed_output_into_a_call_that_dispatch_fails(output):
    from memlib.tools import NO_CALL, dispatch

    agent = new_agent(GarbagePolicy([output]))
    trace = agent.begin("hello")
    call = agent.ask(trace, [])
    assert call.name == NO_CALL and "policy_output" in call.arguments
    result = dispatch(call.name, call.arguments, agent.memory)
    assert result.status == "Failed" and result.heartbeat
    assert result.message.startswith("the policy returned no usable tool call: cannot read a tool call")


def test_dispatch_reports_an_invalid_call_without_its_problem_as_an_unknown_tool():
    from memlib.tools import NO_CALL, dispatch

    memory = MemorySystem.create(window=2048, clock=Clock())
    for arguments in ({}, {"problem": 3}, '{"problem": "x"}'):
        result = dispatch(NO_CALL, arguments, memory)
        assert result.status == "Failed" and "unknown tool" in result.message


def test_ask_records_a_policy_that_raised_and_returns_none():
    class Broken:
        def next_call(self, view):
            raise KeyError("lost")

    agent = new_agent(Broken())
    trace = agent.begin("hello")
    assert agent.ask(trace, []) is None
    assert trace.kinds == ["append", "policy_error", "tool_call", "tool_result", "append", "append"]
    assert isinstance(trace.policy_errors[0], KeyError)
    call_msg, result_msg = agent.memory.context.messages[-2:]
    assert call_msg.name == "policy_error" and result_msg.tool_call_id == call_msg.tool_call_id
    assert "Failed" in result_msg.content and "KeyError" in result_msg.content


@pytest.mark.parametrize("error", [NotImplementedError("write next_call"), None])
def test_ask_lets_an_unsolved_stub_and_an_exhausted_script_propagate(error):
    from memlib.agent import PolicyStopped

    class Stub:
        def next_call(self, view):
            raise error

    agent = new_agent(Stub() if error else ScriptedPolicy([]))
    trace = agent.begin("hello")
    with pytest.raises(NotImplementedError if error else PolicyStopped):
        agent.ask(trace, [])


@pytest.mark.parametrize("trace, calls", [
    (None, []), ("a trace", []), (Trace("made by hand"), []),
    ("own", None), ("own", "calls"), ("own", [ToolCall("x")]), ("own", [(ToolCall("x"), "OK")]),
])
def test_ask_rejects_a_foreign_trace_and_malformed_calls(trace, calls):
    agent = new_agent(ScriptedPolicy([reply("hi")]))
    own = agent.begin("hello")
    with pytest.raises(TypeError):
        agent.ask(own if trace == "own" else trace, calls)
    assert agent.policy.remaining == 1  # the policy was not asked


def test_ask_delivers_a_pending_pressure_alert_first():
    views = []

    class Watcher:
        def next_call(self, view):
            views.append(view)
            return reply("ok " + "padding " * 20)

    agent = new_agent(Watcher(), window=400)
    while not any(t.of_kind("pressure") for t in agent.traces):
        agent.step("message with a few words to take up some room in the window")
    trace = agent.begin("one more")
    agent.ask(trace, [])
    assert views[-1].alerts and views[-1].alerts[0].startswith("[memory pressure]")
    assert "alert" in trace.kinds and agent.memory.context.messages[-1].role == "system"


def test_splice_pairs_the_call_with_its_result_and_records_what_the_tool_did():
    from memlib.tools import dispatch

    call = ToolCall("core_memory_append", {"label": "human", "content": "Likes tea."}, thought="worth keeping")
    agent = new_agent(ScriptedPolicy([call]))
    trace = agent.begin("I like tea.")
    asked = agent.ask(trace, [])
    result = dispatch(asked.name, asked.arguments, agent.memory)
    agent.splice(asked, result, trace)
    assert _events_after(trace, "append")[:4] == ["thought", "tool_call", "core_edit", "tool_result"]
    call_msg, result_msg = agent.memory.context.messages[-2:]
    assert (call_msg.role, result_msg.role) == ("assistant", "tool")
    assert call_msg.tool_call_id == result_msg.tool_call_id and call_msg.arguments == call.arguments
    assert trace.tool_calls == [call] and trace.results == [result]


def test_splice_of_a_send_message_records_the_words_sent():
    from memlib.tools import dispatch

    agent = new_agent(ScriptedPolicy([reply("Hello, Ada.")]))
    trace = agent.begin("hi")
    call = agent.ask(trace, [])
    agent.splice(call, dispatch(call.name, call.arguments, agent.memory), trace)
    assert trace.reply == "Hello, Ada." and agent.memory.context.messages[-2].content == "Hello, Ada."


@pytest.mark.parametrize("what", ["call", "result", "trace"])
def test_splice_rejects_arguments_of_the_wrong_kind(what):
    agent = new_agent(ScriptedPolicy([]))
    trace = agent.begin("hi")
    args = {"call": reply("x"), "result": agent_result("OK"), "trace": trace}
    args[what] = {"call": ("send_message", {}), "result": "OK", "trace": Trace("hi")}[what]
    before = list(agent.memory.context.messages)
    with pytest.raises(TypeError):
        agent.splice(args["call"], args["result"], args["trace"])
    assert agent.memory.context.messages == before


def test_step_is_the_loop_written_with_the_parts():
    """A loop written from the parts, as notebook 04 asks, matches Agent.step event for event."""
    from memlib.tools import dispatch

    class Mine(Agent):
        def step(self, user_text):
            trace, calls, beats = self.begin(user_text), [], 0
            while (call := self.ask(trace, calls)) is not None:
                result = dispatch(call.name, call.arguments, self.memory)
                calls.append((call, result))
                self.splice(call, result, trace)
                if not result.heartbeat:
                    break
                if beats == self.max_heartbeats:
                    trace.add("heartbeat", "cap reached")
                    break
                beats += 1
                trace.add("heartbeat", f"{beats}")
            return trace

    script = [ToolCall("archival_memory_insert", {"content": "Ada likes tea.", "request_heartbeat": True}),
              ToolCall("nope"), ToolCall("archival_memory_search", {"query": "tea", "request_heartbeat": True}),
              reply("Ada likes tea.")]
    runs = []
    for cls in (Agent, Mine):
        agent = cls(ScriptedPolicy(script), MemorySystem.create(window=2048, clock=Clock()), max_heartbeats=5)
        trace = agent.step("What does Ada like?")
        runs.append((trace.kinds, [(m.role, m.content) for m in agent.memory.context.messages]))
    assert runs[0] == runs[1]
