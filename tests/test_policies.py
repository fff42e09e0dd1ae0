"""memlib.policies and the loop's handling of bad deciders: raise, garbage, unknown tools, never stopping."""

import json

import pytest

from memlib.agent import Agent, Policy, ToolCall
from memlib.messages import Message
from memlib.core_memory import Block, CoreMemory
from memlib.policies import (FALLIBLE_MISTAKES, FallibleDecider, ReferenceDecider, RulePolicy, ScriptedPolicy,
                             ScriptedPolicyExhausted)
from memlib.tools import MemorySystem
from test_agent import new_agent, reply  # the agent tests' fixtures


def pairs_intact(context):
    ids = [m.tool_call_id for m in context.messages if m.tool_call_id]
    return all(ids.count(i) == 2 for i in ids)


# -- the move -------------------------------------------------------------------------


def test_old_import_paths_still_work():
    from memlib import agent, policies

    assert agent.RulePolicy is policies.RulePolicy and agent.ScriptedPolicy is policies.ScriptedPolicy
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        agent.Nope  # noqa: B018


def test_every_policy_satisfies_the_protocol():
    for policy in (RulePolicy(), ReferenceDecider(), ScriptedPolicy([]), FallibleDecider(RulePolicy())):
        assert isinstance(policy, Policy)


# -- ScriptedPolicy ------------------------------------------------------------------------


def test_scripted_policy_replays_then_says_it_ran_out():
    policy = ScriptedPolicy([reply("one"), ("send_message", {"message": "two"}),
                             {"name": "send_message", "arguments": {"message": "three"}}])
    agent = new_agent(policy)
    assert [agent.step(f"hi {i}").reply for i in range(3)] == ["one", "two", "three"]
    assert repr(policy) == "ScriptedPolicy(3 calls, 0 left)"
    with pytest.raises(ScriptedPolicyExhausted, match="ran out after 3 calls"):
        agent.step("again")


@pytest.mark.parametrize("calls", ["send_message", {"name": "x"}, [42], [("a", {}, "extra")]])
def test_scripted_policy_rejects_bad_scripts(calls):
    with pytest.raises(TypeError):
        ScriptedPolicy(calls)


# -- RulePolicy ---------------------------------------------------------------------


def test_rule_policy_persona_and_human_in_core_memory():
    agent = new_agent()
    assert agent.step("You are Sam, a patient study buddy.").reply == "Understood: I updated my persona."
    agent.step("My name is Ada.")
    agent.step("My city is Porto.")
    agent.step("My city is Lisbon.")
    assert agent.memory.core.get("persona").value == "I am Sam, a patient study buddy."
    assert agent.memory.core.get("human").value == "Name: Ada\nCity: Lisbon"
    assert agent.traces[-1].tool_calls[0].name == "core_memory_replace"


def test_rule_policy_archives_what_it_is_told():
    agent = new_agent()
    agent.step("Remember that my sister Maya is allergic to peanuts.")
    agent.step("My bike is a green Brompton.")
    agent.step("Remember that I water the plants on Sunday.")
    texts = [r.text for r in agent.memory.archival]
    assert texts == [
        "The user's sister Maya is allergic to peanuts.",
        "The user's bike is a green Brompton.",
        'The user said: "I water the plants on Sunday."',
    ]
    record = agent.memory.archival.get("arc-000001")
    assert (record.session_id, record.turn_id) == ("s1", 0)


def test_rule_policy_answers_from_main_context_without_searching():
    agent = new_agent()
    agent.step("My name is Ada.")
    trace = agent.step("What is my name?")
    assert trace.reply == "From core memory: Name: Ada." and len(trace.tool_calls) == 1


def test_rule_policy_searches_archival_and_cites():
    agent = new_agent()
    agent.memory.archival.insert("The user's sister Maya is allergic to peanuts.", session_id="s0", turn_id=3)
    trace = agent.step("What is my sister allergic to?")
    assert [c.name for c in trace.tool_calls] == ["archival_memory_search", "send_message"]
    assert trace.reply == "Your sister Maya is allergic to peanuts. [arc-000001 · session s0 turn 3]"


def test_rule_policy_falls_back_to_conversation_then_admits_ignorance():
    agent = new_agent()
    trace = agent.step("What is the capital of Peru?")
    assert [c.name for c in trace.tool_calls] == ["archival_memory_search", "conversation_search", "send_message"]
    assert trace.reply == "I could not find that in my memory."


def test_rule_policy_apologises_after_a_failed_tool():
    memory = MemorySystem.create(window=2048, core=CoreMemory([Block("persona", ""), Block("human", "", limit=5)]))
    agent = Agent(RulePolicy(), memory)
    trace = agent.step("My name is Ada Lovelace.")
    assert trace.results[0].status == "Failed"
    assert trace.reply.startswith("Sorry, a memory operation failed: appending")
    assert memory.core.get("human").value == ""


def test_rule_policy_saves_what_matters_under_pressure():
    agent = new_agent(window=500)
    agent.step("I have a dentist appointment on Friday at 9.")
    for i in range(12):
        agent.step(f"Study log {i}: read section {i} of the paging chapter.")
    saves = [r for r in agent.memory.archival if r.text.startswith("Saved under memory pressure")]
    assert saves and "dentist appointment" in saves[0].text
    assert sum("dentist" in r.text for r in agent.memory.archival) == 1  # saved once, not on every alert


# -- tool calls keep their arguments as data -------------------------------------------


def test_a_tool_call_message_keeps_its_full_arguments():
    long_note = "Biscuit's vet notes: " + "x" * 5000
    agent = new_agent(ScriptedPolicy([ToolCall("archival_memory_insert", {"content": long_note,
                                                                          "request_heartbeat": True}),
                                      reply("saved")]), window=8192)
    agent.step("save the notes")
    call_msg = next(m for m in agent.memory.context.messages if m.is_tool_call and m.name == "archival_memory_insert")
    assert len(call_msg.content) < 400  # the prompt shows a shortened rendering...
    assert call_msg.arguments == {"content": long_note, "request_heartbeat": True}  # ...the data is exact
    again = Message.from_dict(json.loads(json.dumps(call_msg.to_dict())))
    assert again.arguments == call_msg.arguments
    plain = Message.user("hi")
    assert "arguments" not in plain.to_dict()
    with pytest.raises(ValueError, match="only a tool-call message"):
        Message.user("hi", arguments={"x": 1})


# -- a decider that misbehaves never crashes the loop -----------------------------------


class Raises:
    def __init__(self, after=0):
        self.after, self.n = after, 0

    def next_call(self, view):
        self.n += 1
        if self.n > self.after:
            return view.last_result.records[0]  # AttributeError / IndexError: a typical bug
        return ToolCall("archival_memory_search", {"query": "sister", "request_heartbeat": True})


def test_a_policy_that_raises_becomes_a_failed_observation_and_ends_the_step():
    agent = new_agent(Raises(after=1))
    trace = agent.step("Where does my sister live?")
    assert trace.kinds.count("policy_error") == 1
    assert [c.name for c in trace.tool_calls] == ["archival_memory_search", "policy_error"]
    assert not trace.results[-1].ok and "IndexError" in trace.results[-1].message
    assert "in next_call, line" in trace.results[-1].message
    assert isinstance(trace.policy_errors[0], IndexError)
    assert pairs_intact(agent.memory.context)
    agent.policy = RulePolicy()  # the same agent carries on
    assert agent.step("hello again").reply


def test_not_implemented_and_exhausted_scripts_propagate():
    class Stub:
        def next_call(self, view):
            raise NotImplementedError("Exercise 6: write next_call")

    with pytest.raises(NotImplementedError):
        new_agent(Stub()).step("hi")
    from memlib.policies import ScriptedPolicyExhausted

    with pytest.raises(ScriptedPolicyExhausted):
        new_agent(ScriptedPolicy([])).step("hi")


@pytest.mark.parametrize("output, fragment", [
    (None, "no usable tool call"),
    ("send_message", "no usable tool call"),
    (ToolCall("archival_memory_delete", {"id": "arc-000001"}), "unknown tool"),
    (ToolCall("archival_memory_search", {"q": "sister"}), "has no argument"),
    (ToolCall("archival_memory_search", '{"query": "sis'), "not valid JSON"),
    (ToolCall("archival_memory_search", {"query": 3}), "must be a string"),
])
def test_malformed_calls_become_failed_observations(output, fragment):
    agent = new_agent(_Once(output))
    trace = agent.step("hello")
    assert fragment in trace.results[0].message and not trace.results[0].ok
    assert trace.reply == "recovered"  # a Failed result hands control back: the policy can correct itself


class _Once:
    def __init__(self, first):
        self.first, self.done = first, False

    def next_call(self, view):
        if not self.done:
            self.done = True
            return self.first
        return reply("recovered")


def test_a_policy_that_never_stops_is_capped():
    forever = type("Forever", (), {"next_call": lambda self, view: ToolCall(
        "conversation_search", {"query": "x", "request_heartbeat": True})})()
    agent = new_agent(forever, max_heartbeats=4)
    trace = agent.step("hello")
    assert len(trace.tool_calls) == 5 and "cap of 4 heartbeats" in trace.of_kind("heartbeat")[-1].detail


def test_the_view_says_how_many_calls_are_left():
    seen = []

    class Counts:
        def next_call(self, view):
            seen.append(view.calls_left)
            return ToolCall("conversation_search", {"query": "x", "request_heartbeat": True})

    new_agent(Counts(), max_heartbeats=3).step("hello")
    assert seen == [3, 2, 1, 0]


# -- notebook 05's reference decider -------------------------------------------------------


def test_reference_decider_saves_under_pressure_in_packed_notes_and_keeps_room_to_reply():
    agent = new_agent(ReferenceDecider(), window=400)
    for i in range(12):
        trace = agent.step(f"I moved the standup to room {i} because the projector in the old one broke again.")
        assert trace.reply is not None  # every step still ends with a reply
    inserts = [c for t in agent.traces for c in t.tool_calls if c.name == "archival_memory_insert"]
    assert inserts and all(len(c.arguments["content"]) <= 2000 for c in inserts)
    assert any("room 0" in r.text for r in agent.memory.archival)  # the oldest statement survived the flush


def test_reference_decider_variants():
    assert repr(ReferenceDecider(save_under_pressure=False)) == "ReferenceDecider(ignores pressure alerts)"
    agent = new_agent(ReferenceDecider(memory_tools=False))
    agent.step("Remember that the vet is Dr Okafor.")
    assert len(agent.memory.archival) == 0
    trace = agent.step("Which dentist did I choose?")
    assert trace.tool_calls[-1].name == "send_message" and len(trace.tool_calls) == 1
    with pytest.raises(ValueError, match="max_pages"):
        ReferenceDecider(max_pages=0)
    # a flag is True or False: the string "no" would otherwise switch the behaviour on
    with pytest.raises(TypeError, match="save_under_pressure must be True or False"):
        ReferenceDecider(save_under_pressure="no")
    with pytest.raises(TypeError, match="memory_tools must be True or False"):
        ReferenceDecider(memory_tools=0)


def test_reference_decider_answers_with_nothing_left_in_the_cap():
    agent = new_agent(ReferenceDecider(), max_heartbeats=0)
    agent.step("Remember that the vet is Dr Okafor.")
    trace = agent.step("Which dentist did I choose?")
    assert [c.name for c in trace.tool_calls] == ["send_message"]


# -- fallible deciders ------------------------------------------------------------------------


def test_fallible_decider_validates_and_is_reproducible():
    with pytest.raises(ValueError, match="probability"):
        FallibleDecider(RulePolicy(), forget_search=1.5)
    with pytest.raises(TypeError, match="inner must be a policy"):
        FallibleDecider(object())

    def run(seed):
        decider = FallibleDecider(ReferenceDecider(), forget_search=0.5, wrong_tool=0.3, malformed=0.3, seed=seed)
        agent = new_agent(decider, window=600)
        for i in range(6):
            agent.step(f"Remember that locker {i} has code {1000 + i}.")
        replies = [agent.step(f"What is the code of locker {i}?").reply for i in range(6)]
        return replies, dict(decider.slips)

    assert run(3) == run(3)
    replies, slips = run(3)
    assert sum(slips.values()) > 0 and set(slips) == set(FALLIBLE_MISTAKES)


def test_each_slip_does_what_it_says():
    def first_step(**rates):
        agent = new_agent(FallibleDecider(ReferenceDecider(), seed=0, **rates), window=2048)
        agent.memory.archival.insert("The vet is Dr Okafor.")
        return agent.step("Who is the vet?")  # not in view: the reference searches archival memory first

    assert first_step().tool_calls[0].name == "archival_memory_search"
    assert first_step(forget_search=1.0).reply == "I don't think you told me that."
    assert first_step(wrong_tool=1.0).tool_calls[0].name == "conversation_search"
    malformed = first_step(malformed=1.0)
    assert isinstance(malformed.tool_calls[0].arguments, str) and "not valid JSON" in malformed.results[0].message


def test_forget_save_drops_the_saves_made_under_pressure():
    careful, forgetful = ReferenceDecider(), FallibleDecider(ReferenceDecider(), forget_save=1.0)
    kept = []
    for decider in (careful, forgetful):
        agent = new_agent(decider, window=400)
        for i in range(12):
            agent.step(f"I moved the standup to room {i} because the projector in the old one broke again.")
        kept.append(len(agent.memory.archival))
    assert kept[0] > 0 and kept[1] == 0 and forgetful.slips["forget_save"] > 0


def test_fallible_sweep_reports_a_line_per_probability():
    from memlib.course.checks import fallible_sweep

    lines = []
    rows = fallible_sweep((0.0, 0.3), seeds=(0,), log=lines.append)
    assert len(lines) == 2 and lines[0].startswith("p = 0.0: ") and lines[1].startswith("p = 0.3: ")
    assert f"{rows[0]['memory calls']} memory calls" in lines[0]


# -- ProbePolicy: the loop check's instrument ------------------------------------------


def test_probe_policy_replays_misbehaves_on_markers_and_notes_each_view():
    from memlib.agent import Agent
    from memlib.course.doubles import ProbeCrash, ProbePolicy

    search = ToolCall("archival_memory_search", {"query": "tea", "request_heartbeat": True})
    probe = ProbePolicy([search, ProbePolicy.MALFORMED, ProbePolicy.RAISE, ToolCall("send_message", {"message": "x"})])
    agent = Agent(probe, MemorySystem.create(window=2048), max_heartbeats=3)
    trace = agent.step("what tea?")
    assert [c.name for c in trace.tool_calls] == ["archival_memory_search", "invalid_call", "policy_error"]
    assert isinstance(trace.policy_errors[0], ProbeCrash)
    assert probe.seen == [((), 3, ()), (("archival_memory_search",), 2, ()),
                          (("archival_memory_search", "invalid_call"), 1, ())]
    assert probe.remaining == 1 and repr(probe) == "ProbePolicy(4 entries, 1 left)"


def test_probe_policy_runs_out_like_a_script():
    from memlib.agent import Agent
    from memlib.course.doubles import ProbePolicy
    from memlib.policies import ScriptedPolicyExhausted

    probe = ProbePolicy([ToolCall("archival_memory_search", {"query": "tea", "request_heartbeat": True})])
    with pytest.raises(ScriptedPolicyExhausted, match="ran out after 1 calls"):
        Agent(probe, MemorySystem.create(window=2048)).step("hi")
    assert len(probe.seen) == 1


@pytest.mark.parametrize("script, error", [
    ("send_message", TypeError), ({"name": "x"}, TypeError), (["explode"], ValueError), ([42], TypeError),
])
def test_probe_policy_rejects_a_bad_script(script, error):
    from memlib.course.doubles import ProbePolicy

    with pytest.raises(error):
        ProbePolicy(script)
