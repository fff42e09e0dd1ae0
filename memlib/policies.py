"""The deciders: policies that choose the agent's next tool call.

The loop (`memlib.agent`) asks a policy for one `ToolCall` at a time; this
module holds the policies that need no language model:

- `ScriptedPolicy` replays a list of calls (notebook 04's page-fault script);
- `RulePolicy` is a small deterministic agent: it stores what it is told,
  searches when a question cannot be answered from main context, answers
  with citations and saves what matters under memory pressure;
- `ReferenceDecider` is notebook 05's reference: RulePolicy plus one note per
  statement under pressure, page turning, and an honest "not found";
- `FallibleDecider` wraps any policy and makes it fail the way weaker models
  do (forget to search, forget to save, call the wrong tool, garble
  arguments), with given probabilities and a seed.

The nested key-value paging policy stays with its experiment
(`memlib.experiments.KVPagingPolicy`) and the guard's policies with the guard
(`memlib.guard`). This module does not run the loop or talk to any model.

Example:
    >>> from memlib.agent import Agent
    >>> from memlib.tools import MemorySystem
    >>> agent = Agent(ReferenceDecider(), MemorySystem.create(window=2048))
    >>> agent.step("Remember that the vet is Dr Okafor.").reply
    'Got it: I saved that to archival memory.'
    >>> agent.step("Who is the vet?").reply  # still in view: no search needed
    'You told me: "Remember that the vet is Dr Okafor."'
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping
from typing import Any

from memlib._util import check_bool, check_fraction, check_positive_int, is_int, shorten
from memlib.decision import AgentView, PolicyStopped, ToolCall, as_tool_call
from memlib.citations import CITATION_PATTERN, Citation, cite
from memlib.messages import Message
from memlib.retrieval import ANALYZERS, tokenize

__all__ = [
    "ScriptedPolicy",
    "ScriptedPolicyExhausted",
    "RulePolicy",
    "ReferenceDecider",
    "FallibleDecider",
    "FALLIBLE_MISTAKES",
    "CORE_KEYS",
    "is_question",
]


# -- scripted policy ----------------------------------------------------------------


class ScriptedPolicyExhausted(PolicyStopped):
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
        self._calls = [as_tool_call(call) for call in calls]
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._calls) - self._next

    def next_call(self, view: AgentView) -> ToolCall:
        if self._next >= len(self._calls):
            raise ScriptedPolicyExhausted(
                f"ScriptedPolicy ran out after {len(self._calls)} calls (asked again while handling "
                f"{shorten(view.user_text, 40)!r}); add calls to the script, or end the step with "
                "send_message or request_heartbeat=False"
            )
        call = self._calls[self._next]
        self._next += 1
        return call

    def __repr__(self) -> str:
        return f"ScriptedPolicy({len(self._calls)} calls, {self.remaining} left)"


# -- rule policy --------------------------------------------------------------------

# Facts about the user that belong in core memory (always in view); other "my X is Y"
# facts go to archival memory.
CORE_KEYS = frozenset({"name", "job", "age", "birthday", "pronouns", "hometown", "occupation", "email", "city"})

# Words that say what kind of question it is rather than what it is about.
_QUESTION_WORDS = frozenset(
    "tell told say said mention mentioned know remember recall earlier talk talked please "
    "again ever anything something happen happened about".split()
)


def _question_words(text: str) -> list[str]:
    """The words of a question worth searching for, as the user wrote them (lowercased, once each).

    The query a decider sends is these words, not their stems: the search
    analyses it like every record, and a trace shows what a person would type.
    """
    return list(dict.fromkeys(w for w in ANALYZERS["unstemmed"](text) if w not in _QUESTION_WORDS))


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
        return _call("archival_memory_insert", content=shorten(note, 2000))

    # -- answering ----------------------------------------------------------------

    def _answer(self, view: AgentView) -> ToolCall:
        words = _question_words(view.user_text)
        terms = tokenize(" ".join(words))
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
                return _call(tool, query=" ".join(words))
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


# -- notebook 05's reference decider -------------------------------------------------

# A user message worth saving under pressure says something (not a greeting, not a question).
_MIN_STATEMENT_WORDS = 5
# Longest note the decider packs statements into when it saves under pressure.
_NOTE_CHARS = 800
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"']?\s+")


class ReferenceDecider(RulePolicy):
    """Notebook 05's reference decider: RulePolicy with the habits a good model has.

    - Under memory pressure it archives every user statement still only in the
      context, one note per message (so a search finds the one that matters),
      chained with heartbeats while the cap leaves room for its reply.
    - When a page of search results has no record holding every word of the
      question and there is a next page, it turns the page (up to `max_pages`).
    - It answers from the best-matching record it found, with a citation, and
      otherwise says plainly that nothing was found.

    `save_under_pressure=False` ignores the alert (notebook 05's comparison);
    `memory_tools=False` never calls a memory tool: it stores nothing and
    answers from main context (core memory, messages in view, the summary) or
    not at all, the "same decider without memory management" baseline.
    """

    def __init__(self, save_under_pressure: bool = True, memory_tools: bool = True, max_pages: int = 3,
                 human_label: str = "human", persona_label: str = "persona") -> None:
        check_positive_int(max_pages, "max_pages")
        super().__init__(human_label, persona_label)
        self.save_under_pressure = check_bool(save_under_pressure, "save_under_pressure")
        self.memory_tools = check_bool(memory_tools, "memory_tools")
        self.max_pages = max_pages
        self._pressure = False  # an alert arrived and statements are still unsaved

    def __repr__(self) -> str:
        habits = [] if self.save_under_pressure else ["ignores pressure alerts"]
        if not self.memory_tools:
            habits = ["no memory tools"]
        return f"ReferenceDecider({', '.join(habits) or f'max_pages={self.max_pages}'})"

    def next_call(self, view: AgentView) -> ToolCall:
        if not view.calls:
            self._queue, self._ack = self._plan(view) if self.memory_tools else ([], "")
        if view.alerts and self.save_under_pressure and self.memory_tools:
            self._pressure = True
        last = view.last_result
        if last is not None and not last.ok:
            return _reply(f"Sorry, a memory operation failed: {last.message}")
        if self._pressure:
            save = self._next_save(view)
            if save is not None:
                return save
        if self._queue:
            return self._queue.pop(0)
        if self._ack:
            return _reply(self._ack)
        if is_question(view.user_text):
            return self._answer(view)
        return _reply("Noted.")

    def _next_save(self, view: AgentView) -> ToolCall | None:
        """The next note of unsaved statements to archive, or None (nothing left, or no room in this step).

        Statements are packed into notes of up to `_NOTE_CHARS` characters: the
        context shows each call cut short, so a few packed notes take far less
        of the window than one call per message, and the saves themselves do
        not trigger the flush they are racing.
        """
        context = view.context
        if context is None:
            self._pressure = False
            return None
        unsaved = [
            m for m in context.messages
            if m.role == "user" and m.id not in self._saved and m.id != view.user_message.id
            and not is_question(m.content) and len(m.content.split()) >= _MIN_STATEMENT_WORDS
        ]
        if not unsaved:
            self._pressure = False
            return None
        # Keep room for the step's own work: its queued store and the reply, or a search and an answer.
        room = 1 + len(self._queue) + (2 * self.max_pages if is_question(view.user_text) else 0)
        if view.calls_left is not None and view.calls_left < room:
            return None  # still under pressure: the next step goes on saving
        notes: list[str] = []
        for message in unsaved:
            note = _note_about_user(message.content)
            if notes and len(" ".join(notes)) + len(note) > _NOTE_CHARS:
                break
            notes.append(note)
            self._saved.add(message.id)
        return _call("archival_memory_insert", content=shorten(" ".join(notes), 2000))

    def _answer(self, view: AgentView) -> ToolCall:
        words = _question_words(view.user_text)
        terms = list(dict.fromkeys(tokenize(" ".join(words))))
        if not terms:
            return _reply("Could you say what you would like me to recall?")
        about_conversation = bool(_ABOUT_CONVERSATION.search(view.user_text))
        searched = any(call.name.endswith("search") for call, _ in view.calls)
        if not searched and not about_conversation:
            known = self._from_main_context(view, terms)
            if known:
                return _reply(known)
        if not self.memory_tools:
            return _reply("I could not find that in what I can see.")
        query = " ".join(words)
        order = ["conversation_search", "archival_memory_search"] if about_conversation else \
            ["archival_memory_search", "conversation_search"]
        # With no call left after this one, this one must be the reply.
        can_search = view.calls_left is None or view.calls_left > 0
        for tool in order:
            pages = [result for call, result in view.calls if call.name == tool]
            if not pages:
                if can_search:
                    return _call(tool, query=query)
                continue
            last = pages[-1]
            # A page "misses" when no usable result (not a question, not this message) has every word.
            complete = any(_overlap(item, terms) == len(terms) for item in last.records
                           if _answers_something(item, view.user_message.id))
            if not complete and can_search and len(pages) < self.max_pages and f"page={len(pages)}" in last.message:
                return _call(tool, query=query, page=len(pages))
            records = tuple(item for result in pages for item in result.records)
            found = self._best(records, terms, view.user_message.id)
            if found is not None:
                return _reply(_cited_sentence(found, terms))
        return _reply("I could not find that in my memory.")

    def _from_main_context(self, view: AgentView, terms: list[str]) -> str | None:
        known = super()._from_main_context(view, terms)
        if known is None and view.context is not None and view.context.summary:
            need = max(1, math.ceil(len(terms) / 2))
            for line in re.split(r"(?<=[.!?])\s+", view.context.summary):
                if CITATION_PATTERN.search(line):
                    continue  # an old search result: its source was not looked up now, so do not repeat it
                if len(set(terms) & set(tokenize(line))) >= need:
                    return f"From my summary of our conversation: {_sentence(line)}"
        return known


def _cited_sentence(item: Any, terms: list[str]) -> str:
    """The sentence of `item` that shares most words with the question, with its citation."""
    text = item.content if isinstance(item, Message) else item.text
    sentences = [s for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()] or [text]
    best = max(sentences, key=lambda s: len(set(terms) & set(tokenize(s))))  # first of the best, in order
    best = best.strip().strip('"')
    if isinstance(item, Message):
        return f'You told me in turn {item.id}: "{best}" {Citation.from_message(item).format()}'
    return cite(_sentence(_rewrite(best, _TO_SECOND)), [item]).render()


def _answers_something(item: Any, current_id: int) -> bool:
    """False for the question being answered and for other questions: they state nothing."""
    return not (isinstance(item, Message) and (item.id == current_id or is_question(item.content)))


def _overlap(item: Any, terms: list[str]) -> int:
    text = item.content if isinstance(item, Message) else getattr(item, "text", "")
    return len(set(terms) & set(tokenize(text)))


# -- fallible deciders ---------------------------------------------------------------

#: The mistakes a FallibleDecider makes, each with its own probability.
FALLIBLE_MISTAKES = ("forget_search", "forget_save", "wrong_tool", "malformed")

_SEARCHES = ("archival_memory_search", "conversation_search")
_SWAPPED = {"archival_memory_search": "conversation_search", "conversation_search": "archival_memory_search",
            "archival_memory_insert": "core_memory_append", "core_memory_append": "archival_memory_insert",
            "core_memory_replace": "core_memory_append"}


class FallibleDecider:
    """Wraps any policy and makes it slip, the way a weaker model does, with a seed.

    Each probability is per opportunity:

    - `forget_search`: a call that would search memory is replaced by an
      answer from nothing ("I don't think you told me");
    - `forget_save`: an insert or core edit made in a step that received a
      memory-pressure alert is dropped (the inner policy believes it saved);
    - `wrong_tool`: the call goes to a neighbouring tool with the same
      arguments (archival search for conversation search, insert for append);
    - `malformed`: the arguments are sent as cut-off JSON text.

    `slips` counts what happened, for the notebook to show. The same seed and
    inner policy give the same run.

    Example:
        >>> FallibleDecider(RulePolicy(), forget_search=0.5, seed=1)
        FallibleDecider(RulePolicy(saved 0 user messages), forget_search=0.5, seed=1)
    """

    def __init__(self, inner: Any, forget_search: float = 0.0, forget_save: float = 0.0,
                 wrong_tool: float = 0.0, malformed: float = 0.0, seed: int = 0) -> None:
        if not callable(getattr(inner, "next_call", None)):
            raise TypeError(f"inner must be a policy with next_call(view), got {type(inner).__name__}")
        self.inner = inner
        self.rates = {}
        for name, value in zip(FALLIBLE_MISTAKES, (forget_search, forget_save, wrong_tool, malformed)):
            self.rates[name] = check_fraction(value, name, "a probability")
        if not is_int(seed):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.seed = seed
        self._rng = random.Random(seed)
        self._alerted = False
        self.slips = {name: 0 for name in FALLIBLE_MISTAKES}

    def __repr__(self) -> str:
        rates = ", ".join(f"{k}={v:g}" for k, v in self.rates.items() if v)
        return f"FallibleDecider({self.inner!r}{', ' + rates if rates else ''}, seed={self.seed})"

    def _slip(self, mistake: str) -> bool:
        rate = self.rates[mistake]
        # Draw only for mistakes that are switched on, so adding one keeps the others' sequence.
        if rate and self._rng.random() < rate:
            self.slips[mistake] += 1
            return True
        return False

    def next_call(self, view: AgentView) -> ToolCall:
        if not view.calls:
            self._alerted = False
        self._alerted = self._alerted or bool(view.alerts)
        call = as_tool_call(self.inner.next_call(view))
        # A dropped save: ask the inner policy again, as if the save had been made.
        for _ in range(8):
            saving = call.name in ("archival_memory_insert", "core_memory_append", "core_memory_replace")
            if not (self._alerted and saving and self._slip("forget_save")):
                break
            call = as_tool_call(self.inner.next_call(view))
        if call.name in _SEARCHES and self._slip("forget_search"):
            return ToolCall("send_message", {"message": "I don't think you told me that."})
        if call.name in _SWAPPED and self._slip("wrong_tool"):
            call = ToolCall(_SWAPPED[call.name], call.arguments)
        if call.name != "send_message" and self._slip("malformed"):
            text = call.arguments if isinstance(call.arguments, str) else \
                "{" + ", ".join(f'"{k}": {v!r}' for k, v in call.arguments.items())
            call = ToolCall(call.name, text[: max(1, len(text) // 2)])
        return call
