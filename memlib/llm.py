"""A language model in the decider's seat: any OpenAI-compatible chat endpoint as a `Policy`.

`ChatPolicy` sends the main context as chat messages, with memlib's tool schemas, to a
chat-completions endpoint (OpenAI, or a local server: Ollama, llama.cpp's server, LM Studio,
vLLM) and turns the model's reply into the next `ToolCall`. The loop, the memory and the
trace are the ones every other policy uses, so a real model's mistakes (malformed arguments,
unknown tools, no tool call, endless heartbeats) show up as `Failed` observations in the same
traces, never as crashes.

Optional: it needs the official client, ``pip install memlib[llm]``. Nothing else in memlib
imports this module, and the course never needs a model. The client's own retries cover rate
limits, overloaded servers, timeouts and dropped connections; a request the server rejects as
invalid is never retried. What still fails raises `ModelEndpointError` with what the server
said; memory is then as after the last completed tool call.

The messages are shaped to fit the strictest request schema among the common servers:
llama-cpp-python's server validates each body with pydantic and rejects an assistant message
whose ``content`` is null, so a tool call without text carries ``""`` (a string, which
OpenAI's request types, vLLM's, Ollama's and llama.cpp's own server take as well). This
module does not stream and does not send ``tool_choice`` (every server's default, "auto",
lets the model answer in plain text).

Example (with a server running):
    >>> policy = ChatPolicy(base_url="http://localhost:11434/v1", model="qwen2.5:7b")  # doctest: +SKIP
    >>> Agent(policy, MemorySystem.create(window=4096)).step("My name is Ada.")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memlib._util import check_int_at_least, check_number_at_least, one_line, shorten
from memlib.agent import AgentView, PolicyStopped, ToolCall
from memlib.messages import Message
from memlib.tools import TOOL_SCHEMAS

__all__ = ["ChatPolicy", "ModelEndpointError", "ModelTurn", "KNOWN_SERVERS", "ENV_VARS", "from_env", "how_to_enable"]

#: The usual base URLs of servers that speak the chat-completions protocol (their defaults).
KNOWN_SERVERS: dict[str, str] = {
    "OpenAI": "https://api.openai.com/v1",
    "Ollama": "http://localhost:11434/v1",
    "llama.cpp server (llama-server)": "http://localhost:8080/v1",
    "LM Studio": "http://localhost:1234/v1",
    "vLLM": "http://localhost:8000/v1",
}

#: Environment variables that configure a model for the notebooks: base URL, model, key.
ENV_VARS = ("MEMLIB_LLM_BASE_URL", "MEMLIB_LLM_MODEL", "MEMLIB_LLM_API_KEY")

# Local servers ignore the key, but the client refuses to start without one.
_NO_KEY = "not-needed"


class ModelEndpointError(PolicyStopped):
    """The endpoint could not give a usable answer (after retries where retrying makes sense).

    A `PolicyStopped`, so it ends `Agent.step` with this error instead of becoming a Failed
    observation: without an answer from the model there is nothing to decide.
    """


@dataclass(frozen=True)
class ModelTurn:
    """One request to the model and what came of it (ChatPolicy.turns keeps them all)."""

    step_message_id: int
    attempts: int
    tool_calls: int
    thought: str
    prompt_tokens: int | None
    completion_tokens: int | None
    note: str = ""

    def __repr__(self) -> str:
        usage = f", {self.prompt_tokens}+{self.completion_tokens} tokens" if self.prompt_tokens is not None else ""
        note = f", {self.note}" if self.note else ""
        return f"ModelTurn({self.tool_calls} tool calls, {self.attempts} attempt(s){usage}{note})"


def _client_module():
    try:
        import openai
    except ImportError:
        raise ImportError(
            "ChatPolicy needs the openai client: pip install 'memlib[llm]' (Colab already has it)"
        ) from None
    return openai


class ChatPolicy:
    """A chat model as the decider: `next_call(view)` asks the model for the next tool call.

    - The request is the main context as chat messages (`chat_messages`): one system message
      with the system prompt, core memory and the recursive summary; then the queue, where a
      tool call is an assistant message with `tool_calls` and its result a `tool` message with
      the same id, and a memory-pressure alert is a system message.
    - A reply with several tool calls is run in order: the first is returned now, the others
      on the following heartbeats (all but the last are made to request one); a new user
      message drops any that are left.
    - A reply with text and no tool call is the reply to the user (`send_message`); text
      before a call is kept as the call's inner monologue (`ToolCall.thought`).
    - Arguments that are not a JSON object are passed on as text, so the tool answers
      `Failed` with the reason and the loop gives the model another turn to correct itself.
    - HTTP 408, 409, 429 and 5xx, timeouts and refused connections are retried up to
      `max_retries` times by the openai client (exponential backoff with jitter, or the wait
      the server asks for in ``retry-after``). Other refusals (400, 401, 404, 422, ...) are
      not retried, nor is a 500 whose body is a validation error (llama-cpp-python answers an
      invalid request so): the same request would fail the same way. What still fails raises
      `ModelEndpointError`, naming the endpoint, what the server said and what to check.
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 timeout: float = 60.0, max_retries: int = 3,
                 temperature: float | None = 0.0, tools: list[dict] | None = None,
                 max_tokens: int | None = None) -> None:
        for name, value in (("base_url", base_url), ("model", model)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        if api_key is not None and not isinstance(api_key, str):
            raise TypeError(f"api_key must be a str or None, got {type(api_key).__name__}")
        check_int_at_least(max_retries, 0, "max_retries")
        check_number_at_least(timeout, 0, "timeout")
        if max_tokens is not None:
            check_int_at_least(max_tokens, 1, "max_tokens")
        self.max_tokens = max_tokens  # the longest reply, in the model's tokens (None: the server's limit)
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.max_retries = max_retries
        self.temperature = temperature
        self.tools = list(TOOL_SCHEMAS if tools is None else tools)
        openai = _client_module()
        self._attempts = 0  # HTTP requests sent for the current model turn (the client's retries included)

        def count_attempt(request: Any) -> None:
            self._attempts += 1

        http_client = openai.DefaultHttpxClient(
            event_hooks={"request": [count_attempt], "response": [_refuse_retry_of_invalid_request]})
        self._client = openai.OpenAI(base_url=self.base_url, api_key=api_key or _NO_KEY, timeout=timeout,
                                     max_retries=max_retries, http_client=http_client)
        self._queued: list[ToolCall] = []
        self._queued_for: int | None = None
        self.turns: list[ModelTurn] = []

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **options: Any) -> "ChatPolicy | None":
        """A ChatPolicy configured by MEMLIB_LLM_BASE_URL / _MODEL / _API_KEY, or None if unset."""
        env = os.environ if environ is None else environ
        base_url, model, key = (env.get(name, "").strip() for name in ENV_VARS)
        if not base_url or not model:
            return None
        return cls(base_url=base_url, model=model, api_key=key or None, **options)

    def __repr__(self) -> str:
        return f"ChatPolicy(model={self.model!r}, base_url={self.base_url!r}, {len(self.turns)} requests)"

    # -- the request ------------------------------------------------------------------

    def chat_messages(self, view: AgentView) -> list[dict[str, Any]]:
        """The main context as chat-completions messages (what `next_call` sends)."""
        context = view.context
        if context is None:
            return [{"role": "system", "content": "You are a helpful assistant with memory tools."},
                    {"role": "user", "content": view.user_text}]
        system = [context.system_prompt]
        if context.core_memory is not None:
            system.append(f"<core_memory>\n{context.core_memory.render()}\n</core_memory>")
        if context.summary:
            system.append(f"<summary of evicted messages>\n{context.summary}\n</summary of evicted messages>")
        messages: list[dict[str, Any]] = [{"role": "system", "content": "\n\n".join(system)}]
        queue = context.messages
        answered = {m.tool_call_id for m in queue if m.role == "tool"}
        for message in queue:
            messages.append(_chat_message(message, answered))
        return messages

    # -- the policy -------------------------------------------------------------------

    def next_call(self, view: AgentView) -> ToolCall:
        step = view.user_message.id
        if self._queued and self._queued_for == step:
            return self._queued.pop(0)
        self._queued = []
        response, attempts = self._complete(self.chat_messages(view))
        choices = getattr(response, "choices", None)
        if not choices:
            raise ModelEndpointError(
                f"{self.base_url} answered without any choices for model {self.model!r}; "
                "the server may not support this model or chat completions"
            )
        reply = choices[0].message
        thought = (getattr(reply, "content", None) or "").strip()
        raw_calls = list(getattr(reply, "tool_calls", None) or [])
        calls = [_to_call(raw, thought if i == 0 else "") for i, raw in enumerate(raw_calls)]
        note = ""
        if not calls:
            # No tool call: the text is the answer to the user, as chat apps treat it.
            calls = [ToolCall("send_message", {"message": thought})]
            note = "plain text, sent as the reply"
        elif len(calls) > 1:
            calls = [_with_heartbeat(c) for c in calls[:-1]] + calls[-1:]
            note = f"{len(calls)} tool calls in one reply, run in order"
        usage = getattr(response, "usage", None)
        self.turns.append(ModelTurn(step, attempts, len(raw_calls), thought,
                                    getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None),
                                    note))
        self._queued, self._queued_for = calls[1:], step
        return calls[0]

    def request_body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The body of the chat-completions request for these messages (what `next_call` posts)."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "tools": self.tools}
        if self.temperature is not None:
            body["temperature"] = float(self.temperature)
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def _complete(self, messages: list[dict[str, Any]]):
        openai = _client_module()
        self._attempts = 0
        try:
            return self._client.chat.completions.create(**self.request_body(messages)), self._attempts
        except (openai.APIError, ValueError) as exc:  # ValueError: e.g. a body that is not JSON
            raise ModelEndpointError(self._explain(exc, self._attempts, messages)) from exc

    def _explain(self, exc: Exception, attempts: int, messages: list[dict[str, Any]]) -> str:
        openai = _client_module()
        where = f"{self.base_url} (model {self.model!r})"
        tries = f" after {attempts} tries" if attempts > 1 else ""
        if isinstance(exc, openai.APITimeoutError):
            return f"{where} did not answer in time{tries}; is the model loaded? raise timeout= for slow machines"
        if isinstance(exc, openai.APIConnectionError):
            return (f"could not connect to {where}{tries}: is the server running? "
                    f"usual base URLs: {', '.join(f'{k} {v}' for k, v in KNOWN_SERVERS.items())}")
        status = getattr(exc, "status_code", None)
        said = _server_said(exc)
        if status == 401:
            return f"{where} refused the API key (HTTP 401: {said}); set MEMLIB_LLM_API_KEY or pass api_key="
        if status == 404:
            return (f"{where} answered HTTP 404 ({said}): check the model name and that the base URL ends "
                    "where the server's /chat/completions lives (usually .../v1)")
        if status == 429:
            return f"{where} is rate-limiting (HTTP 429){tries}: {said}; wait, or lower the request rate"
        if status is not None and "context" in said.lower() and ("length" in said.lower() or "window" in said.lower()):
            return (f"{where} answered HTTP {status}: {said}; the server's context is smaller than the "
                    "memory's window: start the server with a larger context, or give MemorySystem.create "
                    "a smaller window=")
        if status is not None and _is_invalid_request(status, said):
            return (f"{where} rejected the request as invalid (HTTP {status}, not retried: it would fail "
                    f"again): {said}{_message_in_question(said, messages)}")
        if status is not None:
            return f"{where} answered HTTP {status}{tries}: {said}"
        return f"{where} sent an answer the client could not read: {one_line(exc, 300)}"


# -- errors ---------------------------------------------------------------------------------

# A pydantic or FastAPI validation report ("1 validation error for ...", "2 validation errors:"),
# which llama-cpp-python's server sends with HTTP 500 when the request body does not fit its schema.
_VALIDATION_ERROR = re.compile(r"\b\d+ validation errors?\b")


def _is_invalid_request(status: int, said: str) -> bool:
    """True for an answer that says the request itself is wrong, so sending it again cannot help."""
    if 400 <= status < 500:
        return status not in (408, 409, 429)  # timeout, conflict, rate limit: worth another try
    return status == 500 and bool(_VALIDATION_ERROR.search(said))


def _message_in_question(said: str, messages: list[dict[str, Any]]) -> str:
    """The message a validation error points at ("messages.4.content", "'messages', 4"), shown as sent."""
    found = re.search(r"\bmessages\W{1,3}(\d+)", said)
    if found is None or int(found.group(1)) >= len(messages):
        return ""
    index = int(found.group(1))
    return f" [message {index} as sent: {shorten(json.dumps(messages[index], ensure_ascii=False), 200)}]"


def _refuse_retry_of_invalid_request(response: Any) -> None:
    """An httpx response hook: mark a 500 that reports a validation error as not worth retrying.

    The openai client retries every 5xx unless the answer carries ``x-should-retry: false``;
    the client obeys that header, so setting it here keeps its backoff for real server trouble.
    """
    if response.status_code == 500:
        response.read()
        if _is_invalid_request(500, _error_text(response.text)):
            response.headers["x-should-retry"] = "false"


def _error_text(body: str) -> str:
    """The message of an OpenAI-style error body ({"error": {"message": ...}}), else the body."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return body
    error = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return str(error) if isinstance(error, str) else body


def _server_said(exc: Exception) -> str:
    """What the server wrote in its error answer, on one line (the client's summary if nothing)."""
    response = getattr(exc, "response", None)
    text = _error_text(response.text) if response is not None else ""
    return one_line(text or exc, 300) or f"an empty answer ({type(exc).__name__})"


# -- translation ------------------------------------------------------------------------


def _chat_message(message: Message, answered: set) -> dict[str, Any]:
    if message.is_tool_call:
        if message.tool_call_id not in answered:
            # Chat APIs reject a call without its result; show it as plain text instead.
            return {"role": "assistant", "content": message.content}
        arguments = message.arguments if message.arguments is not None else {}
        # A model's malformed JSON goes back as it was sent, so it can see its own mistake.
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        return {
            "role": "assistant",
            # "" rather than null: llama-cpp-python's schema rejects a null content.
            "content": message.thought or "",
            "tool_calls": [{"id": message.tool_call_id, "type": "function",
                            "function": {"name": message.name or "unknown", "arguments": text}}],
        }
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    return {"role": message.role, "content": message.content}


def _to_call(raw: Any, thought: str) -> ToolCall:
    function = getattr(raw, "function", None)
    name = getattr(function, "name", None) or ""
    text = getattr(function, "arguments", None) or ""
    try:
        parsed = json.loads(text) if text.strip() else {}
    except (json.JSONDecodeError, RecursionError):
        parsed = None
    # Not an object: pass the text on, so the tool's Failed result tells the model what was wrong.
    arguments = parsed if isinstance(parsed, dict) else text
    return ToolCall(str(name), arguments, thought=thought)


def _with_heartbeat(call: ToolCall) -> ToolCall:
    if isinstance(call.arguments, Mapping) and call.name != "send_message":
        return ToolCall(call.name, {**call.arguments, "request_heartbeat": True}, thought=call.thought)
    return call


# -- the notebooks' switch -----------------------------------------------------------------


def how_to_enable() -> str:
    """The one line a notebook prints when no model is configured."""
    return ("No model configured: set MEMLIB_LLM_BASE_URL and MEMLIB_LLM_MODEL (and MEMLIB_LLM_API_KEY "
            "if the server needs one), e.g. http://localhost:11434/v1 for Ollama, then re-run this cell.")


def from_env(**options: Any) -> ChatPolicy | None:
    """`ChatPolicy.from_env()`: the configured model, or None (then print `how_to_enable()`)."""
    return ChatPolicy.from_env(**options)
