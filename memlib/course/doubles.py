"""The doubles a check hands to a student's answer, to see what the answer did with them.

Only checks use these (never a notebook): a `ProbePolicy` plays a decider whose script can also crash
or answer with garbage, and notes what each view showed it (notebook 04's check of the agent loop); a
`RecordingSummarizer` wraps one of memlib's summarizers and notes every call it gets (notebook 02's
check of the flush). Both cross to a student's kernel as data (`memlib.course.wire`), and the grader
copies back what the answer's code did to them (`memlib.course.checker`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, Sequence

from memlib._util import shorten
from memlib.decision import AgentView, ToolCall, as_tool_call
from memlib.messages import Message
from memlib.policies import ScriptedPolicyExhausted
from memlib.summarize import NoSummarizer, Summarizer, check_summary_args, is_summarizer

__all__ = ["ProbePolicy", "ProbeCrash", "RecordingSummarizer", "SummaryCall"]


class ProbeCrash(RuntimeError):
    """What a ProbePolicy raises on a `ProbePolicy.RAISE` entry: a policy with a bug."""


class ProbePolicy:
    """Replays a script, and notes what each view showed: an instrument for checking an agent loop.

    Entries are what ScriptedPolicy takes (a ToolCall, a `(name, arguments)`
    pair, a `{"name", "arguments"}` dict), or one of two markers that make
    that turn misbehave: `ProbePolicy.RAISE` (next_call raises `ProbeCrash`)
    and `ProbePolicy.MALFORMED` (it returns the bare text "send_message", no
    tool call). `seen` holds, per turn, what the view held: the names of the
    step's calls so far, `calls_left` and the alerts. Asked once more than its
    script holds, it raises `ScriptedPolicyExhausted`.

    Example:
        >>> probe = ProbePolicy([ToolCall("send_message", {"message": "hi"})])
        >>> probe
        ProbePolicy(1 entries, 1 left)
    """

    RAISE = "raise"
    MALFORMED = "malformed"

    def __init__(self, script: Iterable[Any]) -> None:
        if isinstance(script, (str, bytes, Mapping)):
            raise TypeError("ProbePolicy takes a list of calls and markers, e.g. "
                            "[ProbePolicy.RAISE, ToolCall('send_message', {'message': 'hi'})]")
        entries: list[ToolCall | str] = []
        for entry in script:
            if isinstance(entry, str):
                if entry not in (self.RAISE, self.MALFORMED):
                    raise ValueError(f"unknown marker {entry!r}: use ProbePolicy.RAISE or ProbePolicy.MALFORMED")
                entries.append(entry)
            else:
                entries.append(as_tool_call(entry))
        self.script: tuple[ToolCall | str, ...] = tuple(entries)
        #: per turn: (names of the step's calls so far, calls_left, alerts), as the view showed them
        self.seen: list[tuple[tuple[str, ...], int | None, tuple[str, ...]]] = []

    @property
    def remaining(self) -> int:
        return max(0, len(self.script) - len(self.seen))

    def next_call(self, view: AgentView) -> ToolCall:
        turn = len(self.seen)
        if turn >= len(self.script):
            raise ScriptedPolicyExhausted(
                f"ProbePolicy ran out after {len(self.script)} calls (asked again while handling "
                f"{shorten(view.user_text, 40)!r})"
            )
        self.seen.append((tuple(call.name for call, _ in view.calls), view.calls_left, tuple(view.alerts)))
        entry = self.script[turn]
        if entry == self.RAISE:
            raise ProbeCrash(f"the probe's script crashes on turn {turn + 1}")
        if entry == self.MALFORMED:
            return "send_message"  # type: ignore[return-value]  # the point: a reply that is no tool call
        assert isinstance(entry, ToolCall)
        return entry

    def __repr__(self) -> str:
        return f"ProbePolicy({len(self.script)} entries, {self.remaining} left)"




class SummaryCall(NamedTuple):
    """One call a `RecordingSummarizer` got: its arguments, and the kind of sequence `evicted` was."""

    previous: str
    evicted: tuple[Message, ...]
    max_tokens: int
    kind: str  # type(evicted).__name__: "list", "tuple", "generator" ...


class RecordingSummarizer:
    """Notes every call in `calls`, then lets `inner` (a summarizer) write the summary.

    Arguments are checked first (the same errors as every summarizer), so a call
    is recorded only with valid arguments. An `evicted` that is an iterator is
    read once and handed on as a list (`kind` says what it was).

    Example:
        >>> from memlib.summarize import TruncatingSummarizer
        >>> s = RecordingSummarizer(TruncatingSummarizer())
        >>> s.summarize("", [Message.user("Maeve lives in Lisbon.")], 20)
        'user: Maeve lives in Lisbon.'
        >>> [(len(c.evicted), c.max_tokens, c.kind) for c in s.calls]
        [(1, 20, 'list')]
    """

    def __init__(self, inner: Summarizer | None = None, calls: Sequence[SummaryCall] = ()):
        inner = inner if inner is not None else NoSummarizer()
        if isinstance(inner, RecordingSummarizer) or not is_summarizer(inner):
            raise TypeError(f"inner must be a summarizer (not a RecordingSummarizer), got {type(inner).__name__}")
        self.inner = inner
        self.calls: list[SummaryCall] = []
        for call in calls:
            if not isinstance(call, SummaryCall):
                raise TypeError(f"calls must be SummaryCall records, got {type(call).__name__}")
            check_summary_args(call.previous, call.evicted, call.max_tokens)
            self.calls.append(SummaryCall(call.previous, tuple(call.evicted), call.max_tokens, str(call.kind)))

    def summarize(self, previous: str, evicted: Sequence[Message], max_tokens: int) -> str:
        kind = type(evicted).__name__
        if not isinstance(evicted, (list, tuple, str, bytes)) and hasattr(evicted, "__iter__"):
            evicted = list(evicted)
        check_summary_args(previous, evicted, max_tokens)
        self.calls.append(SummaryCall(previous, tuple(evicted), max_tokens, kind))
        return self.inner.summarize(previous, evicted, max_tokens)

    def __repr__(self) -> str:
        return f"RecordingSummarizer({self.inner!r}, {len(self.calls)} calls)"
