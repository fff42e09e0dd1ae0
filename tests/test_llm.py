"""ChatPolicy through the real openai client against a scripted server on 127.0.0.1.

The server (tests/chat_server.py) answers with scripted tool calls, malformed arguments,
HTTP errors, delays and broken bodies; every request it receives is checked. No network.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import time

import pytest

pytest.importorskip("openai", reason="ChatPolicy needs the optional openai client: pip install 'memlib[llm]'")

from chat_server import ChatServer, Reply, completion, error, search_then_answer  # noqa: E402
import llama_cpp_schema  # noqa: E402
from llama_cpp_schema import FASTAPI_STYLE_MESSAGE  # noqa: E402

from memlib.agent import Agent  # noqa: E402
from memlib.llm import ChatPolicy, ModelEndpointError, how_to_enable  # noqa: E402
from memlib.tools import TOOL_NAMES, MemorySystem  # noqa: E402


def policy_for(server: ChatServer, **options) -> ChatPolicy:
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
    (401, "refused the API key (HTTP 401: scripted error)", 1),
    (404, "HTTP 404 (scripted error)", 1),
    (400, "rejected the request as invalid (HTTP 400, not retried: it would fail again): scripted error", 1),
    (422, "rejected the request as invalid (HTTP 422", 1),
    (408, "HTTP 408 after 3 tries: scripted error", 3),
    (409, "HTTP 409 after 3 tries", 3),
    (429, "rate-limiting (HTTP 429) after 3 tries: scripted error", 3),
    (500, "HTTP 500 after 3 tries: scripted error", 3),
    (503, "HTTP 503 after 3 tries", 3),
])
def test_http_errors_are_clear_and_bounded(status, fragment, requests):
    with ChatServer(script=[error(status)] * 5) as server:
        with pytest.raises(ModelEndpointError, match=re.escape(fragment)):
            Agent(policy_for(server, max_retries=2), MemorySystem.create(window=2048)).step("Hi")
        assert len(server.requests) == requests


@pytest.mark.parametrize("message", [
    "1 validation error for CreateChatCompletionRequest\nmessages.2.content\n  Input should be a valid string",
    FASTAPI_STYLE_MESSAGE,
])
def test_a_500_that_reports_a_validation_error_is_not_retried(message):
    with ChatServer(script=[error(500, message)] * 3) as server:
        with pytest.raises(ModelEndpointError) as raised:
            Agent(policy_for(server, max_retries=2), MemorySystem.create(window=2048)).step("Hi")
    assert len(server.requests) == 1
    text = str(raised.value)
    assert "rejected the request as invalid (HTTP 500, not retried" in text and "Input should be a valid string" in text


def test_retries_wait_with_backoff_or_as_long_as_the_server_asks():
    answer = completion(None, [("send_message", {"message": "Hello."})])
    for first, at_least in ((error(503, retry_after_ms=None), 0.5 * 0.75),  # the client's first backoff, less jitter
                            (Reply(429, error(429).body, headers={"retry-after": "1"}), 1.0)):
        with ChatServer(script=[first, answer]) as server:
            policy = policy_for(server, max_retries=1)
            started = time.monotonic()
            assert Agent(policy, MemorySystem.create(window=2048)).step("Hi").reply == "Hello."
            waited = time.monotonic() - started
        assert waited >= at_least and policy.turns[-1].attempts == 2, (first, waited)


def test_a_context_too_small_for_the_window_says_what_to_change():
    # llama-cpp-python's answer when the prompt does not fit the model's context (n_ctx)
    too_long = ("This model's maximum context length is 512 tokens. However, you requested 1310 tokens "
                "(1310 in the messages, None in the completion). Please reduce the length of the messages or completion.")
    body = {"error": {"message": too_long, "type": "invalid_request_error", "param": "messages",
                      "code": "context_length_exceeded"}}
    with ChatServer(script=[Reply(400, body)] * 2) as server:
        with pytest.raises(ModelEndpointError, match="maximum context length is 512 tokens.*smaller window="):
            Agent(policy_for(server), MemorySystem.create(window=2048)).step("Hi")
    assert len(server.requests) == 1


def test_timeout_and_refused_connection():
    with ChatServer(script=[Reply(200, completion("late").body, delay=1.5)] * 2) as server:
        with pytest.raises(ModelEndpointError, match="did not answer in time after 2 tries"):
            Agent(policy_for(server, timeout=0.3, max_retries=1), MemorySystem.create(window=2048)).step("Hi")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    policy = ChatPolicy(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=1, timeout=2)
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


# -- llama-cpp-python's request schema (tests/llama_cpp_schema.py) ----------------------------
# One xdist group: the schema is read from the sdist once per process.


@pytest.fixture(scope="module")
def llama_cpp():
    return llama_cpp_schema.require()


@pytest.mark.xdist_group("llama-cpp-schema")
def test_agent_steps_send_requests_that_llama_cpp_python_accepts(llama_cpp):
    def answer_like_llama_cpp(request: dict) -> Reply:
        reply = search_then_answer(request)
        llama_cpp.check_response(reply.body)  # the scripted answers have the server's own shape
        return reply

    several = completion("Two things to keep.", [("core_memory_append", {"label": "human", "content": "Name: Ada"}),
                                                 ("archival_memory_search", '{"query": "train"'),  # malformed JSON
                                                 ("send_message", {"message": "Noted."})])
    llama_cpp.check_response(several.body)
    with ChatServer(script=[several], responder=answer_like_llama_cpp, gate=llama_cpp.gate) as server:
        memory = MemorySystem.create(window=2048)
        memory.archival.insert("Maya is allergic to peanuts", session_id="s1", turn_id=3)
        agent = Agent(policy_for(server, max_retries=0), memory)
        first = agent.step("I'm Ada.")
        stated = agent.step("Ada takes the 7:15 train.")
        asked = agent.step("What is Maya allergic to?")
    assert first.reply == "Noted." and stated.reply == "Noted." and "peanuts" in asked.reply
    requests = server.requests
    assert len(requests) == 5 and all(llama_cpp.problem(r) == "" for r in requests)
    sent = [m for r in requests for m in r["messages"]]
    # every kind of message went through the schema: a call with text, one without (content ""),
    # a malformed-arguments call, tool results, the system prompt, user text
    calls = [m for m in sent if m.get("tool_calls")]
    assert {m["content"] for m in calls} >= {"", "Two things to keep.", "A statement: archive it in case it matters later."}
    assert any(m["tool_calls"][0]["function"]["arguments"] == '{"query": "train"' for m in calls)
    assert {m["role"] for m in sent} == {"system", "user", "assistant", "tool"}
    assert requests[0]["tools"] and isinstance(requests[0]["temperature"], float)


@pytest.mark.xdist_group("llama-cpp-schema")
def test_llama_cpp_python_rejects_the_null_content_that_chat_policy_no_longer_sends(llama_cpp, monkeypatch):
    with ChatServer(script=[completion(None, [("archival_memory_insert", {"content": "Ada likes tea",
                                                                          "request_heartbeat": True})])],
                    gate=llama_cpp.gate) as server:
        policy = policy_for(server, max_retries=3)
        agent = Agent(policy, MemorySystem.create(window=2048))
        sends = policy.chat_messages

        def with_null_content(view):  # the message form ChatPolicy sent before
            messages = sends(view)
            for message in messages:
                if message.get("tool_calls") and message["content"] == "":
                    message["content"] = None
            return messages

        monkeypatch.setattr(policy, "chat_messages", with_null_content)
        with pytest.raises(ModelEndpointError) as raised:
            agent.step("Remember: I like tea.")
    first, second = server.requests  # the call went through; its follow-up was rejected, and not sent again
    assert llama_cpp.problem(first) == ""
    problem = llama_cpp.problem(second)
    assert "ChatCompletionRequestAssistantMessage.content" in problem and "Input should be a valid string" in problem
    text = str(raised.value)
    assert "rejected the request as invalid (HTTP 500, not retried" in text and "validation error" in text
    assert '"role": "assistant", "content": null, "tool_calls"' in text.split("as sent:")[1]  # the culprit, shown
    assert [r.text for r in agent.memory.archival] == ["Ada likes tea"]  # the completed call is kept


@pytest.mark.xdist_group("llama-cpp-schema")
def test_the_schema_is_read_from_the_pinned_sdist(llama_cpp):
    assert llama_cpp.version == llama_cpp_schema.pinned_version() == "0.3.36"
    assert llama_cpp.request_model.__module__ == "llama_cpp.server.types"
    assert "llama_cpp" not in sys.modules  # loaded without the package (and its compiled library)
    good = {"messages": [{"role": "user", "content": "Hi"}]}
    assert llama_cpp.problem(good) == ""
    assert "tool_call_id" in llama_cpp.problem({"messages": [{"role": "tool", "content": "{}"}]})


@pytest.mark.notebooks
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


def test_max_tokens_is_sent_when_set_and_checked():
    policy = ChatPolicy(base_url="http://127.0.0.1:9/v1", model="m", max_tokens=256)
    assert policy.request_body([{"role": "user", "content": "hi"}])["max_tokens"] == 256
    assert "max_tokens" not in ChatPolicy(base_url="http://127.0.0.1:9/v1", model="m").request_body([])
    for bad in (0, -5, 2.5, "256"):
        with pytest.raises((ValueError, TypeError)):
            ChatPolicy(base_url="http://127.0.0.1:9/v1", model="m", max_tokens=bad)
