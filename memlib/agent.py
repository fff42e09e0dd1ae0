"""The agent loop: the kernel that turns a user message into memory tool calls.

Each `Agent.step` appends the user's message to the main context, then asks a
`Policy` for tool calls until one does not request a heartbeat (or the hard
cap is hit). Every call and its result enter the context as a pair of
messages sharing a `tool_call_id`, so eviction never separates them. Two
policies need no language model: `ScriptedPolicy` replays a list of calls and
`RulePolicy` is a small deterministic agent. Every step returns a `Trace`.
This module does not talk to any model endpoint.

Example:
    >>> from memlib.tools import MemorySystem
    >>> agent = Agent(RulePolicy(), MemorySystem.create(window=2048))
    >>> agent.step("My name is Ada.").reply
    'Got it: I noted your name in core memory.'
    >>> agent.memory.core.get("human").value
    'Name: Ada'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from memlib.citations import Citation, cite
from memlib.context import ContextOverflowError, MainContext
from memlib.messages import Message
from memlib.retrieval import tokenize
from memlib.tools import MemorySystem, ToolResult, dispatch, result_message

__all__ = [
    "Agent",
    "AgentView",
    "Policy",
    "RulePolicy",
    "ScriptedPolicy",
    "ScriptedPolicyExhausted",
    "ToolCall",
    "Trace",
    "TraceEvent",
    "TRACE_KINDS",
    "PRESSURE_ALERT",
]

TRACE_KINDS = (
    "append", "pressure", "alert", "evict", "summarize", "flush", "core_edit",
    "tool_call", "tool_result", "heartbeat", "send_message",
)

#: The system alert the loop adds to the context when memory pressure is reported (paper §2).
PRESSURE_ALERT = (
    "[memory pressure] {percent:.0%} of the context window is in use; save what matters to core "
    "or archival memory before the oldest messages are evicted."
)

# A tool call is shown in the context with its arguments shortened: the full
# text went to the tool (and to archival storage), and a 20,000-character
# insert must not push the whole conversation out of the window.
_CALL_ARG_CHARS = 200


# -- calls and views ----------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A request to run one tool, as a policy (or a model) produces it.

    Example:
        >>> ToolCall("archival_memory_search", {"query": "sister"})
        archival_memory_search(query='sister')
    """

    name: str
    arguments: Any = field(default_factory=dict)

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
            inner = self.arguments if max_chars is None else _cut(self.arguments, max_chars)
            return f"{self.name}({inner})"
        parts = []
        for key, value in self.arguments.items():
            text = repr(value)
            parts.append(f"{key}={text if max_chars is None else _cut(text, max_chars)}")
        return f"{self.name}({', '.join(parts)})"

    def __repr__(self) -> str:
        return self.render()


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass(frozen=True)
class AgentView:
    """What a policy sees when it chooses the next call.

    `calls` are the (call, result) pairs made so far in this step; `alerts` are
    system alerts raised since the policy last looked (memory pressure).
    """

    user_message: Message
    memory: MemorySystem
    calls: tuple[tuple[ToolCall, ToolResult], ...] = ()
    alerts: tuple[str, ...] = ()

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
            f"AgentView(user={_cut(self.user_text, 40)!r}, {len(self.calls)} calls so far, "
            f"alerts={len(self.alerts)})"
        )


@runtime_checkable
class Policy(Protocol):
    """Chooses the next tool call from what the agent can see."""

    def next_call(self, view: AgentView) -> ToolCall: ...


# -- scripted policy ----------------------------------------------------------------


class ScriptedPolicyExhausted(RuntimeError):
    """A ScriptedPolicy was asked for more calls than its script holds."""


class ScriptedPolicy:
    """Replays a fixed list of calls, one per request: the lesson's page-fault script.

    Calls may be ToolCall objects, `(name, arguments)` pairs or
    `{"name": ..., "arguments": ...}` dicts.
    """

    def __init__(self, calls: Iterable[Any]) -> None:
        if isinstance(calls, (str, bytes, Mapping)):
            raise TypeError(
                "ScriptedPolicy takes a list of calls, e.g. [ToolCall('send_message', {'message': 'hi'})]"
            )
        self._calls = [_as_call(call) for call in calls]
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._calls) - self._next

    def next_call(self, view: AgentView) -> ToolCall:
        if self._next >= len(self._calls):
            raise ScriptedPolicyExhausted(
                f"ScriptedPolicy ran out after {len(self._calls)} calls (asked again while handling "
                f"{_cut(view.user_text, 40)!r}); add calls to the script, or end the step with "
                "send_message or request_heartbeat=False"
            )
        call = self._calls[self._next]
        self._next += 1
        return call

    def __repr__(self) -> str:
        return f"ScriptedPolicy({len(self._calls)} calls, {self.remaining} left)"


def _as_call(value: Any) -> ToolCall:
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, Mapping) and "name" in value:
        return ToolCall(value["name"], value.get("arguments", {}))
    if isinstance(value, tuple) and len(value) == 2:
        return ToolCall(*value)
    raise TypeError(f"cannot read a tool call from {_cut(repr(value), 60)}; use ToolCall(name, arguments)")


# -- rule policy --------------------------------------------------------------------

# Facts about the user that belong in core memory (always in view); other "my X is Y"
# facts go to archival memory.
CORE_KEYS = frozenset({"name", "job", "age", "birthday", "pronouns", "hometown", "occupation", "email", "city"})

# Words that say what kind of question it is rather than what it is about.
_QUESTION_WORDS = frozenset(
    "tell told say said mention mentioned know remember recall earlier talk talked please "
    "again ever anything something happen happened about".split()
)
_QUESTION_START = re.compile(
    r"^(what|who|whom|whose|where|when|which|why|how|do|does|did|is|are|was|were|can|could|have|has)\b", re.I
)
_ABOUT_CONVERSATION = re.compile(
    r"\b(did i (say|mention|tell)|what did i|have i (said|mentioned|told)|earlier|we talk)", re.I
)
_PERSONA = re.compile(r"^\s*(?:you are|your name is)\s+(?P<what>.+?)[.!]*\s*$", re.I)
_REMEMBER = re.compile(r"^\s*(?:please\s+)?remember(?:\s+that)?[,:]?\s+(?P<fact>.+?)[.!]*\s*$", re.I)
_MY_X_IS = re.compile(r"^\s*my\s+(?P<key>[a-z][a-z ]{0,30}?)\s+(?:is|are)\s+(?P<value>.+?)[.!]*\s*$", re.I)
_FIRST_PERSON = re.compile(r"\b(i|i'm|my|me|mine)\b", re.I)

# Rewrites between the user's words and a note about the user, applied in order.
_TO_THIRD = [(r"\bmy\b", "the user's"), (r"\bmine\b", "the user's"), (r"\bme\b", "the user")]
_TO_SECOND = [(r"\bthe user's\b", "your"), (r"\bthe user said\b", "you said"), (r"\bthe user\b", "you")]
_SUBJECT_I = re.compile(r"\bI\b|\bI'\w+")


def _rewrite(text: str, rules: list[tuple[str, str]]) -> str:
    for pattern, replacement in rules:
        text = re.sub(pattern, replacement, text, flags=re.I)
    return text[:1].upper() + text[1:]


def _note_about_user(text: str) -> str:
    """A self-contained note: "my sister ..." becomes "The user's sister ...".

    Sentences with "I" as subject are quoted instead: turning "I have" into
    "the user has" needs grammar that a few rules would get wrong.
    """
    text = text.strip()
    if _SUBJECT_I.search(text):
        return f'The user said: "{_sentence(text)}"'
    return _sentence(_rewrite(text, _TO_THIRD))


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def is_question(text: str) -> bool:
    text = text.strip()
    return text.endswith("?") or bool(_QUESTION_START.match(text))


class RulePolicy:
    """A small deterministic agent: what a language model would do, written as rules.

    - "You are X" / "your name is X" goes into the `persona` block.
    - "My name is Ada" (and other CORE_KEYS) goes into the `human` block,
      replacing an older value; other "my X is Y" and "remember (that) ..." go
      to archival memory as a self-contained note.
    - A question it cannot answer from main context (core memory and the
      messages in view) makes it search archival memory, then the conversation
      (questions about what was said search the conversation first), and it
      answers with a citation; if nothing matches it says so.
    - On a memory-pressure alert it first archives what the user said about
      themselves that is still only in the context.
    - After a Failed tool result it tells the user what went wrong.
    """

    def __init__(self, human_label: str = "human", persona_label: str = "persona") -> None:
        self.human_label, self.persona_label = human_label, persona_label
        self._queue: list[ToolCall] = []
        self._ack = ""
        self._saved: set[int] = set()  # ids of user messages already stored somewhere

    def __repr__(self) -> str:
        return f"RulePolicy(saved {len(self._saved)} user messages)"

    # -- the decision -------------------------------------------------------------

    def next_call(self, view: AgentView) -> ToolCall:
        if not view.calls:  # a new step: plan what to store from this message
            self._queue, self._ack = self._plan(view)
        if view.alerts:
            save = self._save_under_pressure(view)
            if save is not None:
                return save
        last = view.last_result
        if last is not None and not last.ok:
            return _reply(f"Sorry, a memory operation failed: {last.message}")
        if self._queue:
            return self._queue.pop(0)
        if self._ack:
            return _reply(self._ack)
        if is_question(view.user_text):
            return self._answer(view)
        return _reply("Noted.")

    # -- storing ------------------------------------------------------------------

    def _plan(self, view: AgentView) -> tuple[list[ToolCall], str]:
        text = view.user_text
        if match := _PERSONA.match(text):
            what = match["what"]
            self._saved.add(view.user_message.id)
            return [_call("core_memory_append", label=self.persona_label, content=_sentence(f"I am {what}"))], \
                "Understood: I updated my persona."
        if match := _REMEMBER.match(text):
            self._saved.add(view.user_message.id)
            note = _note_about_user(match["fact"])
            return [_call("archival_memory_insert", content=note)], "Got it: I saved that to archival memory."
        if (match := _MY_X_IS.match(text)) and not is_question(text):
            self._saved.add(view.user_message.id)
            key, value = match["key"].strip().lower(), match["value"].strip()
            if key in CORE_KEYS:
                return [self._core_fact(view, key, value)], f"Got it: I noted your {key} in core memory."
            note = _note_about_user(text.strip().rstrip(".!"))
            return [_call("archival_memory_insert", content=note)], "Got it: I saved that to archival memory."
        return [], ""

    def _core_fact(self, view: AgentView, key: str, value: str) -> ToolCall:
        line = f"{key.capitalize()}: {value}"
        if self.human_label in view.memory.core:
            for old in view.memory.core.get(self.human_label).value.splitlines():
                if old.lower().startswith(f"{key}:"):
                    return _call("core_memory_replace", label=self.human_label, old_content=old, new_content=line)
        return _call("core_memory_append", label=self.human_label, content=line)

    def _save_under_pressure(self, view: AgentView) -> ToolCall | None:
        """Archive, in one note, what the user said about themselves that only the context holds."""
        context = view.context
        if context is None:
            return None
        unsaved = [
            m for m in context.messages
            if m.role == "user" and m.id not in self._saved and m.id != view.user_message.id
            and not is_question(m.content) and _FIRST_PERSON.search(m.content)
        ]
        if not unsaved:
            return None
        self._saved.update(m.id for m in unsaved)
        notes = " ".join(_note_about_user(m.content) for m in unsaved)
        turns = ", ".join(str(m.id) for m in unsaved)
        label = "turn" if len(unsaved) == 1 else "turns"
        note = f"Saved under memory pressure ({label} {turns}): {notes}"
        return _call("archival_memory_insert", content=_cut(note, 2000))

    # -- answering ----------------------------------------------------------------

    def _answer(self, view: AgentView) -> ToolCall:
        terms = [t for t in tokenize(view.user_text) if t not in _QUESTION_WORDS]
        if not terms:
            return _reply("Could you say what you would like me to recall?")
        about_conversation = bool(_ABOUT_CONVERSATION.search(view.user_text))
        searched = {call.name: result for call, result in view.calls}
        if not searched and not about_conversation:
            known = self._from_main_context(view, terms)
            if known:
                return _reply(known)
        order = ["conversation_search", "archival_memory_search"] if about_conversation else \
            ["archival_memory_search", "conversation_search"]
        for tool in order:
            if tool not in searched:
                return _call(tool, query=" ".join(terms))
            found = self._best(searched[tool].records, terms, view.user_message.id)
            if found is not None:
                return _reply(_cited(found))
        return _reply("I could not find that in my memory.")

    def _from_main_context(self, view: AgentView, terms: list[str]) -> str | None:
        need = max(1, math.ceil(len(terms) / 2))
        for block in view.memory.core:
            for line in block.value.splitlines():
                if len(set(terms) & set(tokenize(line))) >= need:
                    return f"From core memory: {_sentence(line)}"
        if view.context is not None:
            for m in reversed(view.context.messages):
                if m.role == "user" and m.id != view.user_message.id and not is_question(m.content):
                    if len(set(terms) & set(tokenize(m.content))) >= need:
                        return f'You told me: "{m.content.strip()}"'
        return None

    @staticmethod
    def _best(records: tuple, terms: list[str], current_id: int) -> Any:
        """The first result (best ranked) that shares the most terms with the question."""
        best, best_overlap = None, 0
        for item in records:
            if isinstance(item, Message) and (item.id == current_id or is_question(item.content)):
                continue  # the question itself, or another question, answers nothing
            text = item.content if isinstance(item, Message) else item.text
            overlap = len(set(terms) & set(tokenize(text)))
            if overlap > best_overlap:
                best, best_overlap = item, overlap
        return best


def _call(name: str, **arguments: Any) -> ToolCall:
    if name != "send_message":
        arguments["request_heartbeat"] = True
    return ToolCall(name, arguments)


def _reply(text: str) -> ToolCall:
    return ToolCall("send_message", {"message": text})


def _cited(item: Any) -> str:
    if isinstance(item, Message):
        quote = " ".join(item.content.split())
        return f'You told me in turn {item.id}: "{quote}" {Citation.from_message(item).format()}'
    return cite(_sentence(_rewrite(item.text, _TO_SECOND)), [item]).render()


# -- trace --------------------------------------------------------------------------


@dataclass(frozen=True)
class TraceEvent:
    """One thing that happened during a step, in order."""

    kind: str
    detail: str
    tokens_used: int | None = None
    window: int | None = None
    call: ToolCall | None = None
    result: ToolResult | None = None
    message: Message | None = None
    #: tokens per context segment right after the event's append (viewers draw the bar from it)
    segments: dict | None = None

    def render(self) -> str:
        meter = f"  [{self.tokens_used}/{self.window} tokens]" if self.tokens_used is not None else ""
        # Multi-line details (search results) stay aligned under the first line.
        detail = self.detail.replace("\n", "\n" + " " * 15)
        return f"  {self.kind:<12} {detail}{meter}"

    def __repr__(self) -> str:
        return f"TraceEvent({self.kind}: {_cut(self.detail, 60)})"


def _routine(event: TraceEvent) -> bool:
    if event.kind == "append":
        return True
    sent = event.call is not None and event.call.name == "send_message"
    if event.kind == "tool_call" and sent:
        return True
    return event.kind == "tool_result" and sent and event.result is not None and event.result.ok


class Trace:
    """Everything one `Agent.step` did: context events, tool calls, results, heartbeats, replies."""

    def __init__(self, user_text: str, step: int = 0) -> None:
        self.user_text = user_text
        self.step = step
        self.events: list[TraceEvent] = []

    def add(self, kind: str, detail: str, **extra: Any) -> TraceEvent:
        event = TraceEvent(kind, detail, **extra)
        self.events.append(event)
        return event

    @property
    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def of_kind(self, kind: str) -> list[TraceEvent]:
        return [e for e in self.events if e.kind == kind]

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [e.call for e in self.events if e.kind == "tool_call"]

    @property
    def results(self) -> list[ToolResult]:
        return [e.result for e in self.events if e.kind == "tool_result"]

    @property
    def replies(self) -> list[str]:
        return [e.detail for e in self.events if e.kind == "send_message"]

    @property
    def reply(self) -> str | None:
        """The last message sent to the user in this step, if any."""
        return self.replies[-1] if self.replies else None

    def render(self, compact: bool = False) -> str:
        """The step as text, one event per line.

        `compact=True` hides the routine append events, shows a successful
        send_message only as the message sent, and folds a run of evictions
        into one line: how the demo prints it.
        """
        lines = [f"step {self.step} · user: {self.user_text}"]
        events = [e for e in self.events if not (compact and _routine(e))]
        i = 0
        while i < len(events):
            event = events[i]
            run = 1
            while compact and event.kind == "evict" and i + run < len(events) and events[i + run].kind == "evict":
                run += 1
            if run > 1:
                first, last = events[i].message, events[i + run - 1].message
                span = f"#{first.id}..#{last.id}" if first and last else ""
                lines.append(TraceEvent("evict", f"{run} messages {span} -> recall storage",
                                        events[i + run - 1].tokens_used, event.window).render())
            else:
                lines.append(event.render())
            i += run
        return "\n".join(lines)

    __str__ = render

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(list(self.events))

    def __repr__(self) -> str:
        return (
            f"Trace(step {self.step}, {len(self.events)} events, {len(self.tool_calls)} calls, "
            f"reply={self.reply!r})"
        )


# -- the loop -----------------------------------------------------------------------


class Agent:
    """The kernel: user message in, tool calls (interrupts) out, chained by heartbeats.

    `max_heartbeats` is the hard cap on follow-up calls within one step, so a
    step makes at most 1 + max_heartbeats calls however the policy behaves.
    Whatever a policy *returns* is survivable (a malformed call becomes a
    Failed observation); an exception *raised* by a policy is a bug in that
    policy and propagates, so the student sees its traceback.
    """

    def __init__(
        self, policy: Policy, memory: MemorySystem | MainContext | None = None, max_heartbeats: int = 5
    ) -> None:
        if not callable(getattr(policy, "next_call", None)):
            raise TypeError(f"policy must have a next_call(view) method, got {type(policy).__name__}")
        if memory is None:
            memory = MemorySystem.create()
        elif isinstance(memory, MainContext):
            memory = MemorySystem(context=memory)
        elif not isinstance(memory, MemorySystem):
            raise TypeError(f"memory must be a MemorySystem or a MainContext, got {type(memory).__name__}")
        if isinstance(max_heartbeats, bool) or not isinstance(max_heartbeats, int) or max_heartbeats < 0:
            raise ValueError(f"max_heartbeats must be an int >= 0, got {max_heartbeats!r}")
        self.policy = policy
        self.memory = memory
        self.max_heartbeats = max_heartbeats
        self.traces: list[Trace] = []
        self._calls_made = 0
        self._pending_alert: float | None = None  # pressure seen but not yet shown to the policy

    def __repr__(self) -> str:
        return (
            f"Agent({self.policy!r}, {self.memory!r}, max_heartbeats={self.max_heartbeats}, "
            f"{len(self.traces)} steps)"
        )

    def step(self, user_text: str) -> Trace:
        """Handle one user message; returns the trace of everything that happened."""
        if not isinstance(user_text, str):
            raise TypeError(f"user_text must be a str, got {type(user_text).__name__}")
        if not user_text.strip():
            raise ValueError("user_text is empty; pass what the user said")
        trace = Trace(user_text, step=len(self.traces) + 1)
        # A message too big for the window raises ContextOverflowError here,
        # before anything changed: the caller must split or archive it.
        user_message = self._append(Message.user(user_text), trace)
        self.traces.append(trace)
        self.memory.turn_id = user_message.id
        calls: list[tuple[ToolCall, ToolResult]] = []
        heartbeats = 0
        while True:
            alerts = self._deliver_alert(trace)
            view = AgentView(user_message, self.memory, tuple(calls), alerts)
            call, result = self._run(self.policy.next_call(view), trace)
            calls.append((call, result))
            if not result.heartbeat:
                break
            if heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats reached: ending the step")
                break
            heartbeats += 1
            reason = "after a failed call" if not result.ok else "requested"
            trace.add("heartbeat", f"{heartbeats}/{self.max_heartbeats} ({reason}): the policy runs again")
        return trace

    # -- internals ----------------------------------------------------------------

    def _run(self, output: Any, trace: Trace) -> tuple[ToolCall, ToolResult]:
        """Run what the policy returned; anything malformed becomes a Failed result."""
        try:
            call = _as_call(output)
        except TypeError as exc:
            call = ToolCall("invalid_call", {"policy_output": _cut(repr(output), 200)})
            result = ToolResult("Failed", f"the policy returned no usable tool call: {exc}", heartbeat=True)
        else:
            result = None
        trace.add("tool_call", call.render(), call=call)
        if result is None:
            context = self.memory.context
            seen = len(context.events) if context is not None else 0
            result = dispatch(call.name, call.arguments, self.memory)
            if context is not None:
                for event in context.events[seen:]:
                    self._record(event, trace)
        trace.add("tool_result", f"{result.status}: {result.message}", call=call, result=result)
        if call.name == "send_message" and result.ok:
            trace.add("send_message", self.memory.outbox[-1], call=call, result=result)
        self._append_pair(call, result, trace)
        return call, result

    def _append_pair(self, call: ToolCall, result: ToolResult, trace: Trace) -> None:
        """The call and its result enter the context back to back, under one tool_call_id."""
        self._calls_made += 1
        call_id = f"call-{self._calls_made:04d}"
        if call.name == "send_message" and result.ok:
            said = self.memory.outbox[-1]  # the words the user read, so conversation_search finds them
        else:
            said = call.render()
        call_msg = Message.assistant(said, tool_call_id=call_id, name=call.name)
        self._append(call_msg, trace, fallback=call_msg.replace(content=_cut(said, 80)))
        self._append(result_message(result, call_id, call.name, self.memory.context), trace)

    def _append(self, message: Message, trace: Trace, fallback: Message | None = None) -> Message:
        context = self.memory.context
        try:
            events = self.memory.append_message(message)
        except ContextOverflowError:
            if fallback is None:
                raise
            events = self.memory.append_message(fallback)
        segments = context.segments() if context is not None else None
        for event in events:
            self._record(event, trace, segments)
        if context is not None:
            return context.messages[-1]
        return self.memory.recall.messages[-1]

    def _record(self, event: Any, trace: Trace, segments: dict | None = None) -> None:
        trace.add(event.kind, event.detail, tokens_used=event.tokens_used, window=event.window,
                  message=event.message, segments=segments)
        if event.kind == "pressure":
            self._pending_alert = event.tokens_used / event.window

    def _deliver_alert(self, trace: Trace) -> tuple[str, ...]:
        """Put a pending pressure alert into the context (MemGPT's system alert) and the view."""
        if self._pending_alert is None:
            return ()
        text = PRESSURE_ALERT.format(percent=self._pending_alert)
        self._pending_alert = None
        message = self._append(Message.system(text), trace)
        trace.add("alert", text, message=message)
        return (text,)
