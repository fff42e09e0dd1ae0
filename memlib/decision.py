"""The decision protocol: what a policy reads (`AgentView`) and what it answers (`ToolCall`).

A `Policy` is anything with `next_call(view) -> ToolCall`; `as_tool_call` reads the
looser shapes a notebook may return, and `PolicyStopped` is how a policy with
nothing left to decide says so. The loop that asks policies and runs their calls
is `memlib.agent`; the policies themselves are `memlib.policies`. Neither is
imported here, so both can build on this module.

Example:
    >>> as_tool_call(("send_message", {"message": "Hi"}))
    send_message(message='Hi')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from memlib._util import shorten, shown
from memlib.context import MainContext
from memlib.messages import Message
from memlib.tools import MemorySystem, ToolResult

__all__ = ["AgentView", "Policy", "PolicyStopped", "ToolCall", "as_tool_call"]

# A tool call is shown in the context with its arguments shortened: the full
# text went to the tool (and to archival storage), and a 20,000-character
# insert must not push the whole conversation out of the window.
_CALL_ARG_CHARS = 200


@dataclass(frozen=True)
class ToolCall:
    """A request to run one tool, as a policy (or a model) produces it.

    Example:
        >>> ToolCall("archival_memory_search", {"query": "sister"})
        archival_memory_search(query='sister')
    """

    name: str
    arguments: Any = field(default_factory=dict)
    #: inner monologue: what the decider said to itself before this call (a model's text)
    thought: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"ToolCall name must be a str such as 'send_message', got {type(self.name).__name__}")
        if self.arguments is None:
            object.__setattr__(self, "arguments", {})
        elif not isinstance(self.arguments, (Mapping, str)):
            raise TypeError(
                f"ToolCall arguments must be a dict (or its JSON text), got {type(self.arguments).__name__}"
            )

    def render(self, max_chars: int | None = _CALL_ARG_CHARS) -> str:
        """`name(arg='value', ...)`, each value cut to `max_chars` (None: never cut)."""
        if isinstance(self.arguments, str):
            inner = self.arguments if max_chars is None else shorten(self.arguments, max_chars)
            return f"{self.name}({inner})"
        parts = []
        for key, value in self.arguments.items():
            text = repr(value)
            parts.append(f"{key}={text if max_chars is None else shorten(text, max_chars)}")
        return f"{self.name}({', '.join(parts)})"

    def __repr__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class AgentView:
    """What a policy sees when it chooses the next call.

    `calls` are the (call, result) pairs made so far in this step; `alerts` are
    system alerts raised since the policy last looked (memory pressure);
    `calls_left` is how many more calls the heartbeat cap allows in this step
    after the one being chosen (None: no cap known), so a policy can plan a
    chain that still ends with its reply.
    """

    user_message: Message
    memory: MemorySystem
    calls: tuple[tuple[ToolCall, ToolResult], ...] = ()
    alerts: tuple[str, ...] = ()
    calls_left: int | None = None

    @property
    def user_text(self) -> str:
        return self.user_message.content

    @property
    def context(self) -> MainContext | None:
        return self.memory.context

    @property
    def last_call(self) -> ToolCall | None:
        return self.calls[-1][0] if self.calls else None

    @property
    def last_result(self) -> ToolResult | None:
        return self.calls[-1][1] if self.calls else None

    @property
    def prompt(self) -> str:
        """The main context as text: what a language model would read."""
        return self.context.render() if self.context is not None else ""

    def __repr__(self) -> str:
        return (
            f"AgentView(user={shorten(self.user_text, 40)!r}, {len(self.calls)} calls so far, "
            f"alerts={len(self.alerts)})"
        )


@runtime_checkable
class Policy(Protocol):
    """Chooses the next tool call from what the agent can see."""

    def next_call(self, view: AgentView) -> ToolCall: ...


def as_tool_call(value: Any) -> ToolCall:
    """Read a tool call from a ToolCall, a `(name, arguments)` pair or a `{"name", "arguments"}` dict."""
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, Mapping) and "name" in value:
        return ToolCall(value["name"], value.get("arguments", {}))
    if isinstance(value, tuple) and len(value) == 2:
        return ToolCall(*value)
    raise TypeError(f"cannot read a tool call from {shown(value, 60)}; use ToolCall(name, arguments)")


class PolicyStopped(RuntimeError):
    """Raised by a policy that has nothing left to decide (an exhausted script).

    Unlike any other exception a policy raises, it propagates out of
    `Agent.step`: it is a problem with the script, not a decision to observe.
    """
