"""A small OpenAI-compatible chat-completions server for the tests, on 127.0.0.1 only.

It answers POST .../chat/completions from a script of replies (tool calls, text, HTTP
errors, delays, broken bodies), or, when the script is empty, from a `responder` function
of the request. A `gate` can answer first, as a real server does when a request does not fit
its schema (tests/llama_cpp_schema.py). Every request is recorded, so tests can check what
the client sent. Nothing here reaches the network.

    python tests/chat_server.py          # serve the echo-search responder until killed
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    """One scripted answer: an HTTP status, headers and body, after an optional delay."""

    status: int = 200
    body: Any = None  # a dict is sent as JSON; a str as it is
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def completion(content: str | None = None, calls: list[tuple[str, Any]] = (), *, usage=(10, 5)) -> Reply:
    """A chat completion: optional text and tool calls as (name, arguments dict or raw text)."""
    tool_calls = [{"id": f"model-call-{i}", "type": "function",
                   "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                  for i, (name, args) in enumerate(calls)]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body = {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }
    return Reply(200, body)


def error(status: int, text: str = "scripted error", *, retry_after_ms: int | None = 1) -> Reply:
    """An OpenAI-style error answer. `retry_after_ms` asks the client to wait that long before
    a retry (short, so that tests of retries stay fast); None sends no such header."""
    headers = {} if retry_after_ms is None else {"retry-after-ms": str(retry_after_ms)}
    return Reply(status, {"error": {"message": text, "type": "test", "code": status}}, headers=headers)


def search_then_answer(request: dict) -> Reply:
    """A tiny deterministic 'model': archive what the user states; for a question, search, then answer from the hit."""
    last = request["messages"][-1]
    if last["role"] == "user" and not last["content"].rstrip().endswith("?"):
        return completion("A statement: archive it in case it matters later.",
                          [("archival_memory_insert", {"content": last["content"], "request_heartbeat": True})])
    if last["role"] == "user":
        return completion("The user asks something I may have archived; search first.",
                          [("archival_memory_search", {"query": last["content"], "request_heartbeat": True})])
    if last["role"] == "tool" and json.loads(last["content"]).get("message", "").startswith("archived"):
        return completion(None, [("send_message", {"message": "Noted."})])
    if last["role"] == "tool":
        result = json.loads(last["content"])
        text = result.get("message", "")
        # result lines are numbered: "1. [arc-000001 · session s1 turn 2] text"
        found = [line.split(". ", 1)[1] for line in text.splitlines()[1:] if ". " in line]
        answer = found[0] if found and result.get("status") == "OK" else "I could not find that in my memory."
        return completion(None, [("send_message", {"message": answer})])
    return completion("Nothing to do.", [("send_message", {"message": "OK."})])


@dataclass
class ChatServer:
    """Start with `with ChatServer() as server:`; `server.base_url` ends in /v1."""

    script: list[Reply] = field(default_factory=list)
    responder: Callable[[dict], Reply] | None = None
    gate: Callable[[dict], Reply | None] | None = None  # a Reply here answers before the script
    requests: list[dict] = field(default_factory=list)
    headers: list[dict] = field(default_factory=list)

    def __enter__(self) -> "ChatServer":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(request)
                owner.headers.append(dict(self.headers))
                refusal = owner.gate(request) if owner.gate is not None else None
                if not self.path.endswith("/chat/completions"):
                    reply = error(404, f"no route {self.path}")
                elif refusal is not None:
                    reply = refusal
                elif owner.script:
                    reply = owner.script.pop(0)
                elif owner.responder is not None:
                    reply = owner.responder(request)
                else:
                    reply = error(500, "the test script ran out of replies")
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


if __name__ == "__main__":
    with ChatServer(responder=search_then_answer) as server:
        print(server.base_url, flush=True)
        threading.Event().wait()
