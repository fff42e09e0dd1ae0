"""ChatPolicy through the real openai client against a scripted server on 127.0.0.1.

The server (tests/chat_server.py) answers with scripted tool calls, malformed arguments,
HTTP errors, delays and broken bodies; every request it receives is checked. No network.
"""

from __future__ import annotations

import json
import socket
import sys

import pytest

pytest.importorskip("openai", reason="ChatPolicy needs the optional openai client: pip install 'memlib[llm]'")

from chat_server import ChatServer, Reply, completion, error, search_then_answer  # noqa: E402

from memlib.agent import Agent  # noqa: E402
from memlib.llm import ChatPolicy, ModelEndpointError, how_to_enable  # noqa: E402
from memlib.tools import TOOL_NAMES, MemorySystem  # noqa: E402


def policy_for(server: ChatServer, **options) -> ChatPolicy:
    options.setdefault("backoff", 0.01)
    options.setdefault("timeout", 5.0)
    return ChatPolicy(base_url=server.base_url, model="test-model", **options)


def test_requests_carry_context_tools_and_paired_call_ids():
    script = [completion("I should write that down.", [("archival_memory_insert",
                                                         {"content": "Maya is allergic to peanuts", "request_heartbeat": True})]),
              completion(None, [("send_message", {"message": "Noted."})])]
    with ChatServer(script=script) as server:
        agent = Agent(policy_for(server), MemorySystem.create(window=2048))
        trace = agent.step("My sister Maya is allergic to peanuts.")
    first, second = server.requests
    assert first["model"] == "test-model"
    assert [t["function"]["name"] for t in first["tools"]] == list(TOOL_NAMES)
    assert first["messages"][0]["role"] == "system" and "<core_memory>" in first["messages"][0]["content"]
    assert first["messages"][-1] == {"role": "user", "content": "My sister Maya is allergic to peanuts."}
    call, result = second["messages"][-2:]
    assert call["role"] == "assistant" and call["content"] == "I should write that down."
    (tool_call,) = call["tool_calls"]
    assert json.loads(tool_call["function"]["arguments"]) == {"content": "Maya is allergic to peanuts",
                                                              "request_heartbeat": True}
    assert result["role"] == "tool" and result["tool_call_id"] == tool_call["id"] == "call-0001"
    assert json.loads(result["content"])["status"] == "OK"
    assert trace.reply == "Noted."
    assert [r.text for r in agent.memory.archival] == ["Maya is allergic to peanuts"]
    assert trace.of_kind("thought")[0].detail == "I should write that down."


def test_full_arguments_reach_the_model_even_when_the_context_shows_them_cut():
    long_note = "Ines's train times: " + "; ".join(f"{h:02d}:15 from Leeds" for h in range(6, 22)) * 3
    script = [completion(None, [("archival_memory_insert", {"content": long_note, "request_heartbeat": True})]),
              completion(None, [("send_message", {"message": "Saved."})])]
    with ChatServer(script=script) as server:
        agent = Agent(policy_for(server), MemorySystem.create(window=4096))
        agent.step("Keep my train times.")
    sent = json.loads(server.requests[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"])
    assert sent["content"] == long_note
    shown = agent.memory.context.messages[-4].content  # the call as the context renders it
    assert len(shown) < len(long_note)


@pytest.mark.parametrize("bad, fragment", [
    ('{"query": "sister"', "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ('{"no_such_argument": 1}', "has no argument"),
])
def test_malformed_arguments_become_a_failed_observation_and_the_model_retries(bad, fragment):
    script = [completion(None, [("archival_memory_search", bad)]),
              completion(None, [("send_message", {"message": "Sorry, let me answer directly."})])]
    with ChatServer(script=script) as server:
        trace = Agent(policy_for(server), MemorySystem.create(window=2048)).step("Who is my sister?")
    failed = [r for r in trace.results if not r.ok]
    assert len(failed) == 1 and fragment in failed[0].message
    # the second request shows the model its error, paired with its call
    error_message = json.loads(server.requests[1]["messages"][-1]["content"])
    assert error_message["status"] == "Failed" and fragment in error_message["message"]
    assert trace.reply == "Sorry, let me answer directly."


def test_unknown_tool_and_plain_text():
    script = [completion(None, [("web_search", {"query": "peanuts"})]), completion("Maya is allergic to peanuts.")]
    with ChatServer(script=script) as server:
        policy = policy_for(server)
        trace = Agent(policy, MemorySystem.create(window=2048)).step("What is Maya allergic to?")
    assert "unknown tool" in trace.results[0].message
    assert trace.reply == "Maya is allergic to peanuts."
    assert policy.turns[-1].note == "plain text, sent as the reply"


def test_several_calls_in_one_reply_run_in_order_without_asking_again():
    script = [completion("Two facts.", [("core_memory_append", {"label": "human", "content": "Name: Ada"}),
                                        ("archival_memory_insert", {"content": "Ada lives in Leeds"}),
                                        ("send_message", {"message": "Noted both."})])]
    with ChatServer(script=script) as server:
        agent = Agent(policy_for(server), MemorySystem.create(window=2048))
        trace = agent.step("I'm Ada and I live in Leeds.")
    assert len(server.requests) == 1
    assert [c.name for c in trace.tool_calls] == ["core_memory_append", "archival_memory_insert", "send_message"]
    assert "Name: Ada" in agent.memory.core.get("human").value and trace.reply == "Noted both."


def test_a_model_that_never_stops_is_capped():
    loop = completion(None, [("conversation_search", {"query": "dentist", "request_heartbeat": True})])
    with ChatServer(responder=lambda request: loop) as server:
        trace = Agent(policy_for(server), MemorySystem.create(window=4096), max_heartbeats=3).step("Dentist?")
    assert len(server.requests) == 4 and len(trace.tool_calls) == 4
    assert "cap of 3 heartbeats" in trace.of_kind("heartbeat")[-1].detail


def test_the_echo_model_answers_from_archival_memory():
    with ChatServer(responder=search_then_answer) as server:
        memory = MemorySystem.create(window=2048)
        memory.archival.insert("Maya is allergic to peanuts", session_id="s1", turn_id=3)
        agent = Agent(policy_for(server), memory)
        stated = agent.step("Ada takes the 7:15 train.")
        trace = agent.step("What is Maya allergic to?")
    assert stated.reply == "Noted." and [r.text for r in memory.archival][-1] == "Ada takes the 7:15 train."
    assert "peanuts" in trace.reply and "arc-" in trace.reply


def test_retries_429_and_5xx_then_succeeds():
    script = [error(429), error(503), completion(None, [("send_message", {"message": "Hello."})])]
    with ChatServer(script=script) as server:
        policy = policy_for(server, max_retries=2)
        trace = Agent(policy, MemorySystem.create(window=2048)).step("Hi")
    assert trace.reply == "Hello." and policy.turns[-1].attempts == 3 and len(server.requests) == 3


@pytest.mark.parametrize("status, fragment, requests", [
    (401, "refused the API key", 1), (404, "HTTP 404", 1), (429, "rate-limiting (HTTP 429) after 3 tries", 3),
    (500, "HTTP 500 after 3 tries", 3),
])
def test_http_errors_are_clear_and_bounded(status, fragment, requests):
    with ChatServer(script=[error(status)] * 5) as server:
        with pytest.raises(ModelEndpointError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
            Agent(policy_for(server, max_retries=2), MemorySystem.create(window=2048)).step("Hi")
        assert len(server.requests) == requests


def test_timeout_and_refused_connection():
    with ChatServer(script=[Reply(200, completion("late").body, delay=1.5)] * 2) as server:
        with pytest.raises(ModelEndpointError, match="did not answer in time after 2 tries"):
            Agent(policy_for(server, timeout=0.3, max_retries=1), MemorySystem.create(window=2048)).step("Hi")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    policy = ChatPolicy(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=1, backoff=0.01, timeout=2)
    with pytest.raises(ModelEndpointError, match="could not connect"):
        Agent(policy, MemorySystem.create(window=2048)).step("Hi")


@pytest.mark.parametrize("body", [
    {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []},
    "this is not JSON",
])
def test_responses_without_choices(body):
    with ChatServer(script=[Reply(200, body)]) as server:
        with pytest.raises(ModelEndpointError):
            Agent(policy_for(server), MemorySystem.create(window=2048)).step("Hi")


def test_a_failed_step_leaves_memory_as_after_the_last_completed_call():
    script = [completion(None, [("archival_memory_insert", {"content": "Ada likes tea", "request_heartbeat": True})]),
              error(500), error(500)]
    with ChatServer(script=script) as server:
        agent = Agent(policy_for(server, max_retries=1), MemorySystem.create(window=2048))
        with pytest.raises(ModelEndpointError):
            agent.step("Remember: I like tea.")
    memory = agent.memory
    assert [r.text for r in memory.archival] == ["Ada likes tea"]
    roles = [m.role for m in memory.context.messages]
    assert roles[-3:] == ["user", "assistant", "tool"]  # the message, then the one completed pair
    assert len(memory.recall) == len(memory.context.messages)


def test_a_new_step_drops_calls_left_from_the_last_reply():
    script = [completion(None, [("send_message", {"message": "One."}), ("send_message", {"message": "Two."})]),
              completion(None, [("send_message", {"message": "Fresh."})])]
    with ChatServer(script=script) as server:
        agent = Agent(policy_for(server), MemorySystem.create(window=2048))
        agent.step("First")
        # the first send_message got request_heartbeat added, so "Two." ran in the same step
        assert agent.traces[-1].replies == ["One.", "Two."] or agent.traces[-1].replies == ["One."]
        assert agent.step("Second").reply == "Fresh."


def test_bad_configuration_and_environment(monkeypatch):
    with pytest.raises(ValueError, match="base_url"):
        ChatPolicy(base_url="", model="m")
    with pytest.raises(ValueError, match="max_retries"):
        ChatPolicy(base_url="http://127.0.0.1:9/v1", model="m", max_retries=-1)
    assert ChatPolicy.from_env({}) is None
    configured = ChatPolicy.from_env({"MEMLIB_LLM_BASE_URL": "http://127.0.0.1:9/v1", "MEMLIB_LLM_MODEL": "m"})
    assert configured.model == "m" and "MEMLIB_LLM_BASE_URL" in how_to_enable()
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ImportError, match=r"memlib\[llm\]"):
        ChatPolicy(base_url="http://127.0.0.1:9/v1", model="m")


def test_api_key_is_sent_as_bearer():
    with ChatServer(script=[completion("hi")]) as server:
        Agent(policy_for(server, api_key="sk-test"), MemorySystem.create(window=2048)).step("Hi")
    headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert headers["authorization"] == "Bearer sk-test"


@pytest.mark.slow
def test_notebook_05_runs_its_model_section_against_the_test_server(tmp_path):
    """With the variables set, nbval runs notebook 05's model cells for real (without them, test_notebooks runs it)."""
    import os
    import shutil
    import subprocess
    from pathlib import Path

    notebook = Path(__file__).resolve().parents[1] / "solutions" / "05_who_decides.ipynb"
    shutil.copy(notebook, tmp_path / notebook.name)
    with ChatServer(responder=search_then_answer) as server:
        env = {**os.environ, "MEMLIB_LLM_BASE_URL": server.base_url, "MEMLIB_LLM_MODEL": "test-model"}
        run = subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "-q", "-p", "no:cacheprovider",
                              notebook.name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    # the page-fault scenario and the ten sessions went through the model: hundreds of requests
    assert len(server.requests) > 100
    assert all(r["model"] == "test-model" and r["tools"] for r in server.requests)
