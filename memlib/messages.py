"""One message in a conversation: what the context queues and recall stores.

A message is immutable. Tool calls and their results are ordinary messages
that share a `tool_call_id`, so eviction can keep the pair together; a tool
call's message also keeps the call's full `arguments` as data (its `content`
is the shortened rendering the prompt shows). This module does not count
tokens or store anything.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlib._util import is_int, shorten

__all__ = ["Message", "ROLES"]

ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Message:
    """A chat message.

    `id` is -1 until a context or recall store assigns one; `timestamp` is a
    naive UTC datetime, filled in on append when missing. `arguments` is set
    on tool-call messages only: the exact arguments of the call (a dict, or
    the JSON text a model sent), never cut; it is not part of equality.

    Example:
        >>> Message.user("my sister is called Ines")
        Message(user: 'my sister is called Ines')
    """

    role: str
    content: str
    id: int = -1
    timestamp: datetime | None = None
    tool_call_id: str | None = None
    name: str | None = None
    session_id: str | None = None
    arguments: Any = field(default=None, compare=False)
    #: a tool call's inner monologue: what the decider said to itself before calling
    thought: str = field(default="", compare=False)

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {self.role!r}")
        if not isinstance(self.content, str):
            raise TypeError(f"content must be a str, got {type(self.content).__name__}")
        if not is_int(self.id):
            raise TypeError(f"id must be an int, got {type(self.id).__name__}")
        if self.timestamp is not None and not isinstance(self.timestamp, datetime):
            raise TypeError("timestamp must be a datetime or None")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs the tool_call_id of the call it answers")
        if self.arguments is not None and not (self.role == "assistant" and self.tool_call_id):
            raise ValueError("only a tool-call message (assistant with a tool_call_id) carries arguments")

    @classmethod
    def user(cls, content: str, **kw) -> "Message":
        return cls("user", content, **kw)

    @classmethod
    def assistant(cls, content: str, **kw) -> "Message":
        return cls("assistant", content, **kw)

    @classmethod
    def system(cls, content: str, **kw) -> "Message":
        return cls("system", content, **kw)

    @classmethod
    def tool(cls, content: str, tool_call_id: str, **kw) -> "Message":
        return cls("tool", content, tool_call_id=tool_call_id, **kw)

    @property
    def is_tool_call(self) -> bool:
        """An assistant message that calls a tool (its result follows it)."""
        return self.role == "assistant" and self.tool_call_id is not None

    def replace(self, **changes) -> "Message":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["timestamp"] = self.timestamp.isoformat() if self.timestamp else None
        if d["arguments"] is None:
            del d["arguments"]  # plain messages keep the shape older files have
        elif isinstance(self.arguments, dict):
            d["arguments"] = dict(self.arguments)
        if not d["thought"]:
            del d["thought"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Message":
        d = dict(d)
        if d.get("timestamp"):
            d["timestamp"] = datetime.fromisoformat(d["timestamp"])
        return cls(**d)

    def __repr__(self) -> str:
        text = shorten(self.content, 60)
        ident = f"#{self.id} " if self.id >= 0 else ""
        return f"Message({ident}{self.role}: {text!r})"
