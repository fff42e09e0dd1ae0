"""The agent loop: the kernel that turns a user message into memory tool calls.

Each `Agent.step` appends the user's message to the main context, then asks a
`Policy` for tool calls until one does not request a heartbeat (or the hard
cap is hit). Every call and its result enter the context as a pair of
messages sharing a `tool_call_id`, so eviction never separates them; the call
message keeps its full arguments as data. Whatever a policy does (raise,
return garbage, call a tool that does not exist, never stop) becomes a Failed
observation or a capped step in the `Trace`; nothing crashes the loop.

`Agent.step` is written with the agent's public parts, the same ones notebook
04's exercise builds the loop from: `begin` (the user's message in, a new
trace), `ask` (the policy's next call), `memlib.tools.dispatch` (run it) and
`splice` (the call and its result into main context and the trace).

This module holds the loop and the trace. The decision protocol (`ToolCall`,
the `AgentView` a policy reads, `Policy`, `PolicyStopped`) is `memlib.decision`
and the policies themselves (`ScriptedPolicy`, `RulePolicy`, notebook 05's
reference decider) are `memlib.policies`; both are re-exported here, where
notebooks 04 and 06 (and copies students saved) import them from. It does not
talk to any model endpoint.

Example:
    >>> from memlib.policies import RulePolicy
    >>> from memlib.tools import MemorySystem
    >>> agent = Agent(RulePolicy(), MemorySystem.create(window=2048))
    >>> agent.step("My name is Ada.").reply
    'Got it: I noted your name in core memory.'
    >>> agent.memory.core.get("human").value
    'Name: Ada'
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any

from memlib._util import check_int_at_least, shorten, shown
from memlib.context import ContextOverflowError, MainContext
from memlib.messages import Message
from memlib.decision import AgentView, Policy, PolicyStopped, ToolCall, as_tool_call
# The policies once lived here: notebooks 04 and 06, and copies students saved, import them from this module.
from memlib.policies import (CORE_KEYS, RulePolicy, ScriptedPolicy,  # noqa: F401
                             ScriptedPolicyExhausted, is_question)
from memlib.tools import NO_CALL, MemorySystem, ToolResult, dispatch, result_message

__all__ = [
    "Agent",
    "AgentView",
    "Policy",
    "PolicyStopped",
    "ToolCall",
    "Trace",
    "TraceEvent",
    "TRACE_KINDS",
    "PRESSURE_ALERT",
    "as_tool_call",
]

TRACE_KINDS = (
    "append", "pressure", "alert", "evict", "summarize", "flush", "core_edit", "thought",
    "tool_call", "tool_result", "heartbeat", "send_message", "policy_error",
)

#: The system alert the loop adds to the context when memory pressure is reported (paper §2).
PRESSURE_ALERT = (
    "[memory pressure] {percent:.0%} of the context window is in use; save what matters to core "
    "or archival memory before the oldest messages are evicted."
)

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
        return f"TraceEvent({self.kind}: {shorten(self.detail, 60)})"


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
        #: exceptions the policy raised during the step (each also a `policy_error` event)
        self.policy_errors: list[Exception] = []
        #: the user's message as it entered main context (set by `Agent.begin`)
        self.user_message: Message | None = None

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
        return [e.call for e in self.events if e.kind == "tool_call" and e.call is not None]

    @property
    def results(self) -> list[ToolResult]:
        return [e.result for e in self.events if e.kind == "tool_result" and e.result is not None]

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
                lines.append(TraceEvent("evict", f"{run} messages {span} out of main context (still in recall storage)",
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
    Whatever a policy returns is survivable: a malformed call, an unknown tool
    or wrong arguments become a Failed observation it can read and correct. An
    exception it raises becomes a `policy_error` event and a Failed
    observation, and ends the step (a policy that crashed once would crash
    again); the exception is kept on `Trace.policy_errors` so a notebook or a
    check can show its traceback. Two exceptions propagate instead:
    NotImplementedError (an unsolved exercise says so) and `PolicyStopped` (a
    script that ran out).
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
        check_int_at_least(max_heartbeats, 0, "max_heartbeats")
        self.policy = policy
        self.memory = memory
        self.max_heartbeats = max_heartbeats
        self.traces: list[Trace] = []
        self._calls_made = 0
        self._pending_alert: float | None = None  # pressure seen but not yet shown to the policy
        self._seen: int | None = None  # context events already in a trace when the policy was last asked

    def __repr__(self) -> str:
        return (
            f"Agent({self.policy!r}, {self.memory!r}, max_heartbeats={self.max_heartbeats}, "
            f"{len(self.traces)} steps)"
        )

    def step(self, user_text: str) -> Trace:
        """Handle one user message; returns the trace of everything that happened.

        The loop notebook 04 asks students to write, from the agent's parts:
        `begin`, `ask`, `memlib.tools.dispatch` and `splice`, chained by
        heartbeats up to `max_heartbeats`.
        """
        trace = self.begin(user_text)
        calls: list[tuple[ToolCall, ToolResult]] = []
        heartbeats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:  # the policy crashed: ask recorded why
                break
            result = dispatch(call.name, call.arguments, self.memory)
            calls.append((call, result))
            self.splice(call, result, trace)
            if not result.heartbeat:
                break
            if heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats reached: ending the step")
                break
            heartbeats += 1
            reason = "after a failed call" if not result.ok else "requested"
            trace.add("heartbeat", f"{heartbeats}/{self.max_heartbeats} ({reason}): the policy runs again")
        return trace

    # -- the agent's parts (what `step` is written with) ---------------------------

    def begin(self, user_text: str) -> Trace:
        """Start a step: the user's message enters main context; returns the step's new Trace.

        Raises TypeError for a user_text that is not a str, ValueError for an
        empty one, and ContextOverflowError (before anything changed) for a
        message too big for the window: the caller must split or archive it.
        """
        if not isinstance(user_text, str):
            raise TypeError(f"user_text must be a str, got {type(user_text).__name__}")
        if not user_text.strip():
            raise ValueError("user_text is empty; pass what the user said")
        trace = Trace(user_text, step=len(self.traces) + 1)
        trace.user_message = self._append(Message.user(user_text), trace)
        self.traces.append(trace)
        self.memory.turn_id = trace.user_message.id
        return trace

    def ask(self, trace: Trace, calls: Sequence[tuple[ToolCall, ToolResult]] = ()) -> ToolCall | None:
        """The policy's next call, given main context and `calls` (this step's (call, result) pairs so far).

        A pending memory-pressure alert enters main context first and reaches
        the policy in `view.alerts`; `view.calls_left` is what the heartbeat
        cap still allows after this call. A malformed output comes back as an
        `invalid_call` ToolCall, which `dispatch` answers with a Failed result
        (and a heartbeat), so the policy reads what went wrong. A policy that
        raises gets a `policy_error` event and a Failed observation in main
        context, and ask returns None: the step should end (a policy that
        crashed once would crash again). NotImplementedError and
        `PolicyStopped` propagate; TypeError for a trace that `begin` did not
        make or `calls` that are not (ToolCall, ToolResult) pairs.
        """
        user_message = self._own_trace(trace)
        if not isinstance(calls, (list, tuple)) or not all(
                isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], ToolCall)
                and isinstance(pair[1], ToolResult) for pair in calls):
            raise TypeError(f"calls must be this step's (ToolCall, ToolResult) pairs so far, oldest first; "
                            f"got {shown(calls, 80)}")
        alerts = self._deliver_alert(trace)
        left = max(0, self.max_heartbeats - len(calls))
        view = AgentView(user_message, self.memory, tuple(calls), alerts, left)
        self._seen = self._events_count()
        try:
            output = self.policy.next_call(view)
        except (NotImplementedError, PolicyStopped):
            raise
        except Exception as exc:  # a bug in the policy: observed, never a crash of the loop
            self._policy_error(exc, trace)
            return None
        try:
            return as_tool_call(output)
        except TypeError as exc:
            return ToolCall(NO_CALL, {"policy_output": shown(output, 200), "problem": str(exc)})

    def splice(self, call: ToolCall, result: ToolResult, trace: Trace) -> None:
        """The call and its result enter main context back to back under one tool_call_id, and the trace.

        The trace gets the call's thought, the call, what the tool did to the
        context since `ask` (evictions, summaries, core edits), the result, and
        the words sent for a successful send_message. A call message too large
        for the window enters shortened. TypeError for arguments of the wrong
        kind or a trace that `begin` did not make.
        """
        if not isinstance(call, ToolCall):
            raise TypeError(f"call must be the ToolCall ask returned, got {type(call).__name__}")
        if not isinstance(result, ToolResult):
            raise TypeError(f"result must be the ToolResult dispatch returned, got {type(result).__name__}")
        self._own_trace(trace)
        if call.thought:
            trace.add("thought", call.thought, call=call)
        trace.add("tool_call", call.render(), call=call)
        context = self.memory.context
        if context is not None and self._seen is not None:
            for event in context.events[self._seen:]:
                self._record(event, trace)
        self._seen = None
        trace.add("tool_result", f"{result.status}: {result.message}", call=call, result=result)
        if call.name == "send_message" and result.ok and self.memory.outbox:
            trace.add("send_message", self.memory.outbox[-1], call=call, result=result)
        self._append_pair(call, result, trace)

    # -- internals ----------------------------------------------------------------

    def _own_trace(self, trace: Any) -> Message:
        """The user message of a trace `begin` made on this agent (TypeError otherwise)."""
        if not isinstance(trace, Trace) or trace.user_message is None or not any(t is trace for t in self.traces):
            raise TypeError(f"trace must be the Trace this agent's begin(user_text) returned, got {shown(trace, 60)}")
        return trace.user_message

    def _events_count(self) -> int | None:
        context = self.memory.context
        return len(context.events) if context is not None else None

    def _policy_error(self, exc: Exception, trace: Trace) -> None:
        """A policy that raised: record what it raised as a Failed observation (the step ends)."""
        where = ""
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            where = f" (in {tb.tb_frame.f_code.co_name}, line {tb.tb_lineno})"
        text = f"{type(exc).__name__}: {exc}{where}"
        trace.policy_errors.append(exc)
        trace.add("policy_error", f"the policy raised {text}; the step ends here")
        call = ToolCall("policy_error", {"exception": type(exc).__name__, "message": shorten(str(exc), 200)})
        result = ToolResult("Failed", f"the policy raised {text}")
        self._seen = None
        trace.add("tool_call", call.render(), call=call)
        trace.add("tool_result", f"{result.status}: {result.message}", call=call, result=result)
        self._append_pair(call, result, trace)

    def _append_pair(self, call: ToolCall, result: ToolResult, trace: Trace) -> None:
        """The call and its result enter the context back to back, under one tool_call_id."""
        self._calls_made += 1
        call_id = f"call-{self._calls_made:04d}"
        if call.name == "send_message" and result.ok and self.memory.outbox:
            said = self.memory.outbox[-1]  # the words the user read, so conversation_search finds them
        else:
            said = call.render()
        # The prompt shows a shortened rendering; the message keeps the exact arguments
        # as data, so a later reader (a decider, a model, a check) sees what was called.
        call_msg = Message.assistant(said, tool_call_id=call_id, name=call.name, arguments=call.arguments,
                                     thought=call.thought)
        self._append(call_msg, trace, fallback=call_msg.replace(content=shorten(said, 80)))
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
