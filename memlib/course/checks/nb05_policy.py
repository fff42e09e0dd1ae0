"""Notebook 05's checks, the memory policy: the student's decider, graded on behaviour and cost.

The student writes the decider in four steps, each graded on its own: three
methods of their class (`DECIDER_PARTS`: ``store``, ``save_under_pressure``,
``answer``), each played inside memlib's reference decider so that a step
passes while the others are still stubs (`reference_except`), then
``next_call(view) -> ToolCall``, which puts them together. The last check
(`check_policy`), on the whole decider, plays the scenarios of
``datasets.load("decider_scenarios")`` (identity facts, a page fault, a
pressure save, a recall question, a second page, a question nothing
answers), two runs with failing tools, a set of malformed views, and the
multi-session conversation, where it must answer at least
`MULTI_SESSION_MIN_CORRECT` of the 44 early-session questions with at most
`MULTI_SESSION_MAX_CALLS_PER_ANSWER` memory calls per correct answer (both
stated in the exercise; they come from a panel of independently written
correct deciders, not from memlib's reference). Every failure names the
scenario, the step and what the decider did instead.

The runners notebook 05 measures with (`play_scenario`, `play_sessions`) live in
`memlib.course.checks._nb05_play` and are exported here too. It grades behaviour, never code: how the
student's methods split the work among themselves is theirs to choose, as
long as each does what its step asks.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from memlib._util import TickClock
from memlib.course.checking import CheckFailed, graded, passed
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _short, _short_text
from memlib.course.checks._nb05_play import (
    _SCENARIO_START, ScenarioRun, SessionsRun, _factory, _new_decider, decider_scenario, fallible_sweep, play_scenario,
    play_sessions,
)
from memlib.decision import PolicyStopped, as_tool_call
from memlib.policies import ReferenceDecider

__all__ = [
    "check_policy", "check_policy_store", "check_policy_pressure", "check_policy_answer",
    "reference_except", "DECIDER_PARTS", "play_scenario", "play_sessions", "ScenarioRun", "SessionsRun",
    "decider_scenario", "fallible_sweep",
    "MULTI_SESSION_MIN_CORRECT", "MULTI_SESSION_MAX_CALLS_PER_ANSWER",
]

#: Correct answers the student's decider must give to the multi-session run's 44 questions.
#: Independently written correct deciders answer 19 to 37 (memlib's reference 24); a decider
#: that ignores pressure alerts answers none. The floor sits 4 below the weakest correct one.
MULTI_SESSION_MIN_CORRECT = 15
#: Memory calls per correct answer it may make over that run. The correct deciders make 1.7 to
#: 3.1 (the reference 2.7); searching or saving on every turn costs 8 or more.
MULTI_SESSION_MAX_CALLS_PER_ANSWER = 4.0

_NOT_FOUND = re.compile(r"\b(not|no|nothing|couldn't|can't|cannot|don't|never|unable|unknown)\b", re.I)
_SEARCH_TOOLS = ("archival_memory_search", "conversation_search", "conversation_search_date")
_SAVE_TOOLS = ("archival_memory_insert", "core_memory_append", "core_memory_replace")


# -- one part of the decider at a time ---------------------------------------------------

#: The methods steps 1 to 3 of the exercise ask for, in order; step 4's next_call puts them together.
DECIDER_PARTS = ("store", "save_under_pressure", "answer")
#: Calls the step-4 decider keeps free for a search and its answer before it saves under pressure.
_SAVE_RESERVE = 4


class _PartFailed(CheckFailed, PolicyStopped):
    """The student's part raised or returned no call: a check failure that the agent loop lets through."""


class _PartlyYours(ReferenceDecider):
    """memlib's reference decider, with one of `DECIDER_PARTS` handed to the student's object.

    It follows the step-4 skeleton the notebook asks for: store on the step's
    first view, save under pressure while calls are left for an answer, reply
    to a statement, answer a question. When the part is ``store`` it saves
    nothing under pressure itself, so only the student's stores reach archival memory.
    """

    def __init__(self, yours: Any, part: str) -> None:
        super().__init__(save_under_pressure=part != "store")
        self.yours, self.part = yours, part
        try:
            self._method = getattr(yours, part)
        except AttributeError:
            raise CheckFailed(f"your class has no method {part}",
                              f"run the cell that defines {part}(self, view) and sets MyDecider.{part} = {part}, "
                              "then this one again") from None
        if not callable(self._method):
            raise CheckFailed(f"MyDecider.{part} is {_short(self._method)}, not a method",
                              f"define def {part}(self, view): ... and set MyDecider.{part} = {part}")

    def _yours(self, view: Any, *, none_allowed: bool) -> Any:
        try:
            output = self._method(view)
        except NotImplementedError:
            raise
        except Exception as exc:
            raise _PartFailed(f"your {self.part}(view) raised {type(exc).__name__}: {exc} (on the message "
                              f"{_short_text(view.user_text, 50)})",
                              "guard what you read: view.context may be None, a search result may be Failed "
                              "with no records, a message may have no words") from exc
        if output is None and none_allowed:
            return None
        try:
            return as_tool_call(output)
        except TypeError:
            raise _PartFailed(f"your {self.part}(view) returned {_short(output)} on the message "
                              f"{_short_text(view.user_text, 50)}, not a ToolCall" + (" or None" if none_allowed else ""),
                              "return ToolCall(name, arguments), e.g. with reply(...) or memory_call(...)") from None

    def _plan(self, view: Any) -> tuple[list, str]:
        if self.part != "store":
            return super()._plan(view)
        call = self._yours(view, none_allowed=True)
        if call is None:
            return [], ""
        if not self._saved_by_you(view.user_message.id):  # step 2 skips what step 1 stored
            raise _PartFailed(f"your store(view) returned {call.render(60)} for the message "
                              f"{_short_text(view.user_text, 50)} and did not add its id to self.saved",
                              "add view.user_message.id to self.saved for every message you store, so that "
                              "save_under_pressure does not save it again")
        return [call], "Noted."

    def _saved_by_you(self, message_id: int) -> bool:
        try:
            return message_id in self.yours.saved
        except Exception as exc:
            raise _PartFailed(f"reading self.saved of your decider raised {type(exc).__name__}: {exc}",
                              "keep the line self.saved = set() in MyDecider.__init__ (the toolkit cell)") from exc

    def _next_save(self, view: Any) -> Any:
        if self.part != "save_under_pressure":
            return super()._next_save(view)
        if view.calls_left is not None and view.calls_left < _SAVE_RESERVE:
            return None  # still under pressure: the next step goes on saving
        save = self._yours(view, none_allowed=True)
        if save is None:
            self._pressure = False
        return save

    def _answer(self, view: Any) -> Any:
        if self.part != "answer":
            return super()._answer(view)
        return self._yours(view, none_allowed=False)


def reference_except(part: str, decider_class: Any) -> Callable[[], Any]:
    """A maker of deciders that are memlib's reference except for `part`, which `decider_class` does.

    `part` is one of `DECIDER_PARTS`, the method of your class that steps 1
    to 3 of exercise 2c ask for; play the result like any decider:
    ``play_scenario(reference_except("store", MyDecider), "identity")``.
    """
    if part not in DECIDER_PARTS:
        raise ValueError(f"part must be one of {', '.join(DECIDER_PARTS)}, got {part!r}")
    make = _factory(decider_class)
    return lambda: _PartlyYours(make(), part)


# -- what every step must respect -------------------------------------------------------


def _where(scenario_id: str, trace: Any) -> str:
    return f"scenario {scenario_id!r}, step {trace.step} ({_short_text(trace.user_text, 50)})"


def _did(trace: Any) -> str:
    calls = trace.tool_calls
    return ", ".join(c.render(40) for c in calls) if calls else "no call at all"


def _search_results(trace: Any) -> list:
    """Every record or message a successful search returned in this step."""
    found = []
    for call, result in zip(trace.tool_calls, trace.results):
        if call.name in _SEARCH_TOOLS and result.ok:
            found.extend(result.records)
    return found


def _item_id(item: Any) -> str:
    from memlib.citations import Citation

    return Citation.from_message(item).record_id if hasattr(item, "role") else item.id


def _item_text(item: Any) -> str:
    return item.content if hasattr(item, "role") else item.text


def _cited_ids(text: str | None) -> list[str]:
    from memlib.citations import CITATION_PATTERN

    return CITATION_PATTERN.findall(text or "")


def _step_rules(scenario_id: str, trace: Any, *, must_reply: bool) -> None:
    """Rules for every step: no exception, no loop to the cap, a reply, citations only of what was found."""
    where = _where(scenario_id, trace)
    if trace.policy_errors:
        error = trace.results[-1].message
        raise CheckFailed(f"{where}: your next_call raised instead of returning a call: {error}",
                          "run that scenario with play_scenario(MyDecider, ...) and read the trace; a decider "
                          "must return a ToolCall for every view, even after a Failed result")
    if any("cap of" in e.detail for e in trace.of_kind("heartbeat")):
        raise CheckFailed(f"{where}: your decider looped until the heartbeat cap ({len(trace.tool_calls)} calls: "
                          f"{_did(trace)})",
                          "end the step with send_message once you have what you need; repeat a search only "
                          "with another page or other words")
    calls = trace.tool_calls
    if must_reply and (not calls or calls[-1].name != "send_message" or not trace.results[-1].ok):
        last = calls[-1] if calls else None
        if last is not None and last.name != "send_message" and trace.results[-1].ok:
            raise CheckFailed(f"{where}: the step ended after {last.render(60)} without a reply: that call "
                              "did not request a heartbeat, so the loop handed control back to the user",
                              "add 'request_heartbeat': True to every memory call that should be followed "
                              "by another call, and end with send_message")
        raise CheckFailed(f"{where}: the step ended without a reply to the user ({_did(trace)})",
                          "end every step with ToolCall('send_message', {'message': ...})")
    found = {_item_id(item) for item in _search_results(trace)}
    for cited in _cited_ids(trace.reply):
        if cited not in found:
            raise CheckFailed(f"{where}: the reply cites [{cited}], which no search returned in this step: "
                              f"{_short_text(trace.reply, 90)}",
                              "cite only records or messages a search handed you in this step; an answer "
                              "from what is in view needs no citation")


def _answer_rules(scenario_id: str, trace: Any, answer: str, *, searched_with: tuple) -> None:
    """The question step searched with one of `searched_with`, answers with `answer` and cites an item that holds it."""
    where = _where(scenario_id, trace)
    reply = trace.reply or ""
    names = [c.name for c in trace.tool_calls]
    if not any(n in searched_with for n in names):
        raise CheckFailed(f"{where}: your decider answered without {' or '.join(searched_with)} "
                          f"({_did(trace)})",
                          "the answer is no longer in view (it was evicted, or said in an earlier session): "
                          "search for it first, with request_heartbeat=True")
    if answer.lower() not in reply.lower():
        raise CheckFailed(f"{where}: the reply does not say {answer!r}: {_short_text(reply, 100)}",
                          _missed_answer_hint(trace, answer))
    if not _cited_ids(reply):
        raise CheckFailed(f"{where}: the reply has no citation: {_short_text(reply, 100)}",
                          "add the id of the record or message the answer comes from, e.g. "
                          "Citation.from_record(record).format() or Citation.from_message(message).format()")
    _cites_what_holds(where, trace, answer)


def _holders(trace: Any, answer: str) -> list:
    """The records or messages a search returned in this step whose text holds `answer`."""
    from memlib.experiments import phrase_in

    return [item for item in _search_results(trace) if phrase_in(answer, [_item_text(item)])]


def _missed_answer_hint(trace: Any, answer: str) -> str:
    """Why a reply after searching missed the answer: it was found and not used, or never found."""
    held = _holders(trace, answer)
    if held:
        return (f"a search returned [{_item_id(held[0])}], which holds the answer: answer from the part of the "
                "records that matches the question best (most words shared), not the first that shares a word")
    return ("no search in this step returned a record that holds the answer: search with the question's "
            "key words, and turn the page (page=1, ...) when the first page misses")


def _cites_what_holds(where: str, trace: Any, answer: str) -> None:
    """Every source the reply cites holds `answer` (else the answer came from somewhere else)."""
    holders = {_item_id(item) for item in _holders(trace, answer)}
    wrong = [c for c in _cited_ids(trace.reply) if c not in holders]
    if wrong:
        raise CheckFailed(f"{where}: the reply cites [{wrong[0]}], which does not say {answer!r}: the answer "
                          f"came from another record than the one cited ({_short_text(trace.reply, 80)})",
                          "cite the record or message whose text holds the answer you give")


# -- the scenarios ----------------------------------------------------------------------


def _scenario_identity(make) -> None:
    run = play_scenario(make, "identity")
    for trace in run.steps:
        _step_rules("identity", trace, must_reply=True)
    human = run.memory.core.get("human").value if "human" in run.memory.core else ""
    where = "scenario 'identity'"
    if "Ines Halloran" not in human:
        saved = [c.render(50) for t in run.traces for c in t.tool_calls if c.name != "send_message"]
        raise CheckFailed(f"{where}: core memory's human block does not hold the name 'Ines Halloran' "
                          f"(it holds {human!r}; your calls: {', '.join(saved) or 'none'})",
                          "identity facts (name, job, ...) go to core memory: core_memory_append with "
                          "label='human', or core_memory_replace when the value changes")
    if human.count("Ines") != 1:
        raise CheckFailed(f"{where}: the human block keeps the old name next to the new one: {human!r}",
                          "a corrected value replaces the old line: core_memory_replace(label, old_content, "
                          "new_content) with old_content copied from the block")
    question = run.question
    if any(c.name in _SEARCH_TOOLS for c in question.tool_calls):
        raise CheckFailed(f"{_where('identity', question)}: your decider searched although the name is in core "
                          f"memory, in view ({_did(question)})",
                          "look at view.memory.core (always in the prompt) before searching: a search costs a call")
    if "ines halloran" not in (question.reply or "").lower():
        raise CheckFailed(f"{_where('identity', question)}: the reply does not say 'Ines Halloran': "
                          f"{_short_text(question.reply, 100)}",
                          "the name is in core memory's human block, which every view holds "
                          "(view.memory.core.get('human').value): answer from it, no search needed")
    passed("identity facts go to core memory, a correction replaces the old value, no search for what is in view")


def _scenario_answered(make, scenario_id: str, tools: tuple, summary: str) -> ScenarioRun:
    scenario = decider_scenario(scenario_id)
    run = play_scenario(make, scenario)
    for trace in run.traces:
        _step_rules(scenario_id, trace, must_reply=False)
    _step_rules(scenario_id, run.question, must_reply=True)
    _answer_rules(scenario_id, run.question, scenario.answer, searched_with=tools)
    passed(summary)
    return run


def _scenario_pressure(make) -> None:
    scenario = decider_scenario("pressure_save")
    run = play_scenario(make, scenario)
    alerted = [t for t in run.traces if t.of_kind("alert")]
    if not alerted:
        raise CheckFailed("scenario 'pressure_save': no memory-pressure alert reached your decider",
                          "internal: the scenario should fill the window past 70 %")
    saves = [(t, c) for t in alerted for c in t.tool_calls if c.name in _SAVE_TOOLS]
    if not saves:
        first = alerted[0]
        raise CheckFailed(f"{_where('pressure_save', first)}: the memory-pressure alert arrived "
                          f"(view.alerts) and your decider did not save anything ({_did(first)})",
                          "when view.alerts is not empty, archive what the user said that is still only in "
                          "the context (archival_memory_insert, one call per statement, with heartbeats)")
    answer = scenario.answer
    kept = any(answer in r.text for r in run.memory.archival) or answer in run.memory.core.render()
    if not kept:
        raise CheckFailed(f"scenario 'pressure_save': the statement with {answer!r} was evicted without being "
                          f"saved (your saves under pressure: {', '.join(c.render(50) for _, c in saves)})",
                          "save every user statement still in the context when the alert comes, not only the "
                          "newest; the oldest ones are evicted first")
    for trace in run.traces:
        _step_rules("pressure_save", trace, must_reply=False)
    _step_rules("pressure_save", run.question, must_reply=True)
    _answer_rules("pressure_save", run.question, answer, searched_with=("archival_memory_search",))
    passed("under memory pressure it saves what the user said, and the next session finds it in archival memory")


def _scenario_page_two(make) -> None:
    run = _scenario_answered(make, "page_two", ("conversation_search",),
                             "it turns the page when the first page of results misses")
    pages = [c.arguments.get("page", 0) for c in run.question.tool_calls
             if c.name == "conversation_search" and isinstance(c.arguments, dict)]
    if not any(p >= 1 for p in pages):
        raise CheckFailed(f"{_where('page_two', run.question)}: internal: the answer should need page 1",
                          "report this: the scenario no longer needs a second page")


def _scenario_no_answer(make) -> None:
    run = play_scenario(make, "no_answer")
    for trace in run.steps:
        _step_rules("no_answer", trace, must_reply=True)
    question = run.question
    where = _where("no_answer", question)
    reply = question.reply or ""
    if not any(c.name in _SEARCH_TOOLS for c in question.tool_calls):
        raise CheckFailed(f"{where}: your decider answered without searching ({_did(question)})",
                          "a question you cannot answer from what is in view needs a search before you say "
                          "you do not know")
    if _cited_ids(reply) or not _NOT_FOUND.search(reply):
        raise CheckFailed(f"{where}: nothing in memory says who the dentist is, and your decider replied "
                          f"{_short_text(reply, 100)}",
                          "when no record shares enough words with the question, say plainly that you found "
                          "nothing, with no citation; do not answer from the closest record")
    passed("it says plainly that nothing was found, without a citation")


class _BrokenArchive:
    """Makes the archival store fail on search, as a broken disk or index would."""

    @staticmethod
    def install(memory: Any) -> None:
        def search(*args, **kwargs):
            raise OSError("archival index unavailable (disk I/O error)")

        memory.archival.search = search


def _scenario_failures(make) -> None:
    from memlib.agent import Agent
    from memlib.core_memory import Block, CoreMemory
    from memlib.tools import MemorySystem

    scenario = decider_scenario("page_fault")
    memory = MemorySystem.create(window=scenario.window, clock=TickClock(_SCENARIO_START))
    agent = Agent(_new_decider(make, "scenario 'failed_search'"), memory, max_heartbeats=5)
    for text in scenario.turns:
        agent.step(text)
    _BrokenArchive.install(memory)
    trace = agent.step(scenario.question)
    _step_rules("failed_search", trace, must_reply=True)  # cites only what a search that worked returned
    if _cited_ids(trace.reply):  # e.g. a message conversation_search found after archival search failed
        _cites_what_holds(_where("failed_search", trace), trace, scenario.answer)
    full = CoreMemory([Block("persona", "I am a helpful assistant.", 2000), Block("human", "x" * 18, 20)])
    memory = MemorySystem.create(window=2048, core=full, clock=TickClock(_SCENARIO_START))
    agent = Agent(_new_decider(make, "scenario 'failed_edit'"), memory, max_heartbeats=5)
    trace = agent.step("My name is Ines Halloran.")
    _step_rules("failed_edit", trace, must_reply=True)
    passed("after Failed results (a broken archive, a full core block) it replies instead of looping or raising")


def _malformed_views() -> list[tuple[str, Any]]:
    from memlib.agent import PRESSURE_ALERT, AgentView, ToolCall
    from memlib.messages import Message
    from memlib.tools import MemorySystem, ToolResult

    with_context = MemorySystem.create(window=1024, clock=TickClock(_SCENARIO_START))
    question = Message.user("What did I say about the boiler?", id=0)
    failed = (ToolCall("archival_memory_search", {"query": "boiler", "request_heartbeat": True}),
              ToolResult("Failed", "archival index unavailable", heartbeat=True))
    empty_ok = (ToolCall("conversation_search", {"query": "boiler", "request_heartbeat": True}),
                ToolResult("OK", "no messages match 'boiler'; try other words", heartbeat=True))
    alert = (PRESSURE_ALERT.format(percent=0.93),)
    return [
        ("a memory with no main context (view.context is None)",
         AgentView(question, MemorySystem(context=None, clock=TickClock(_SCENARIO_START)))),
        ("a Failed search result with no records", AgentView(question, with_context, (failed,))),
        ("an OK search that found nothing", AgentView(question, with_context, (empty_ok,))),
        ("a pressure alert over an empty context", AgentView(question, with_context, (), alert)),
        ("a message of emoji only", AgentView(Message.user("🙂🙂🙂", id=0), with_context)),
        ("no calls left in the step (calls_left=0) and an alert", AgentView(question, with_context, (), alert, 0)),
        ("a view with calls_left unknown (None)", AgentView(question, with_context, (empty_ok,), (), None)),
    ]


def _scenario_malformed(make) -> None:
    from memlib.agent import as_tool_call

    for description, view in _malformed_views():
        decider = _new_decider(make, f"malformed view: {description}")
        try:
            output = decider.next_call(view)
        except (NotImplementedError, CheckFailed):  # a stub, or the student's part failing inside the reference
            raise
        except Exception as exc:
            raise CheckFailed(f"malformed view ({description}): your next_call raised {type(exc).__name__}: {exc}",
                              "guard what you read: view.context may be None, view.last_result may be Failed "
                              "with no records, a message may have no words") from exc
        try:
            as_tool_call(output)
        except TypeError:
            raise CheckFailed(f"malformed view ({description}): next_call returned {_short(output)}, not a ToolCall",
                              "always return ToolCall(name, arguments)") from None
    passed(f"it returns a ToolCall on {len(_malformed_views())} malformed views without raising")


def _examples(missed: list) -> str:
    return "; ".join(f"{q.question!r} -> {_short_text(t.reply, 50)}" for q, t in missed[:2])


def _multi_session(make) -> None:
    mine = play_sessions(make, "your decider")
    if mine.policy_errors or mine.capped_steps:
        raise CheckFailed(f"multi-session run: {mine.policy_errors} step(s) raised and {mine.capped_steps} hit "
                          "the heartbeat cap", "run play_sessions(MyDecider) and look at the traces")
    for question, trace, correct in mine.answers:
        _step_rules("multi-session", trace, must_reply=True)
        if correct:
            _cites_what_holds(_where("multi-session", trace), trace, question.key_phrase)
    floor, ceiling, asked = MULTI_SESSION_MIN_CORRECT, MULTI_SESSION_MAX_CALLS_PER_ANSWER, len(mine.answers)
    problems, hints = [], []
    if mine.correct < floor:
        missed = [(q, t) for q, t, ok in mine.answers if not ok]
        in_hand = [(q, t) for q, t in missed if _holders(t, q.key_phrase)]
        never_found = [(q, t) for q, t in missed if not _holders(t, q.key_phrase)]
        problems.append(f"{mine.correct} of {asked} early-session questions answered, fewer than the {floor} needed")
        if in_hand:
            problems.append(f"in {len(in_hand)} of the {len(missed)} missed, a search returned a record that "
                            f"holds the answer and the reply did not say it, e.g. {_examples(in_hand)}")
            hints.append("answer from the part of the records found that matches the question best (most words "
                         "shared), not the first that shares a word")
        if never_found:
            problems.append(f"in {len(never_found)} of the {len(missed)} missed, no search returned the answer, "
                            f"e.g. {_examples(never_found)}")
            hints.append("each session starts with an empty context: only what your decider saved (archival, "
                         "core) survives. Save every statement under pressure, then search for the question's "
                         "key words")
    if mine.correct and mine.cost > ceiling:
        problems.append(f"{mine.memory_calls} memory calls for {mine.correct} correct answers = {mine.cost:.1f} "
                        f"per answer, over the limit of {ceiling}")
        if mine.correct < floor and mine.memory_calls <= ceiling * asked:
            hints.append(f"the calls are not too many ({mine.memory_calls / asked:.1f} per question asked): the "
                         "cost per correct answer is high because few answers are right")
        else:
            hints.append("search only when a question cannot be answered from what is in view, and save under "
                         "pressure rather than on every turn")
    if problems:
        raise CheckFailed("multi-session run: " + "; ".join(problems), "; ".join(hints))
    passed(f"multi-session: {mine.correct} of {asked} correct (at least {floor} needed), "
           f"{mine.cost:.2f} memory calls per answer (at most {ceiling})")


def _identity_lines(make) -> None:
    """After the identity scenario, the human block has one 'Name:' line with the full name and a 'Job:' line."""
    run = play_scenario(make, "identity")
    human = run.memory.core.get("human").value if "human" in run.memory.core else ""
    lines = [line.strip().lower() for line in human.splitlines()]
    names = [line for line in lines if line.startswith("name:")]
    jobs = [line for line in lines if line.startswith("job:")]
    if len(names) != 1 or "ines halloran" not in names[0] or len(jobs) != 1 or "data engineer" not in jobs[0]:
        raise CheckFailed(f"scenario 'identity': after 'My name is Ines.', 'My job is data engineer at Kestrel "
                          f"Freight.', 'My name is Ines Halloran.' the human block is {human!r}",
                          "expected one line 'Name: Ines Halloran' and one 'Job: data engineer at Kestrel "
                          "Freight': replace the line of the same key (the text before ':'), append a new key")
    passed("one line per identity key in the human block: 'Name: ...', 'Job: ...'")


def _stores_only_what_is_remembered(make) -> None:
    """The page-fault scenario's three "Remember that ..." facts are archived, and nothing else is."""
    run = play_scenario(make, "page_fault")
    for trace in run.steps:
        _step_rules("page_fault", trace, must_reply=False)
    facts = [t[len("Remember that "):].rstrip(".") for t in run.scenario.turns if t.startswith("Remember that ")]
    texts = [r.text for r in run.memory.archival]
    missing = [f for f in facts if not any(f in text for text in texts)]
    if missing:
        raise CheckFailed(f"scenario 'page_fault': archival memory holds no record of {missing[0]!r} "
                          f"(it holds {len(texts)} record(s): {_short_text(' | '.join(texts), 90)})",
                          "a message 'Remember that X' goes to archival memory: "
                          "memory_call('archival_memory_insert', content=X)")
    extra = [text for text in texts if not any(f in text for f in facts)]
    if extra:
        raise CheckFailed(f"scenario 'page_fault': your store archived {_short_text(extra[0], 70)}, which is "
                          "neither an identity fact nor 'Remember that ...'",
                          "return None for every other message: saving the rest is the pressure save's job "
                          "(step 2), and a save on every turn costs a call each time")
    passed("'Remember that ...' goes to archival memory, and nothing else does")


def _pressure_odd_views(make) -> None:
    """save_under_pressure returns None or a call on views with no context, nothing unsaved, no words."""
    for description, view in _malformed_views():
        if not view.alerts and view.context is not None:
            continue
        decider = _new_decider(make, f"odd view: {description}")
        decider._yours(view, none_allowed=True)
    passed("save_under_pressure copes with no context and an empty one")


def _answer_without_words(make) -> None:
    """A question with no words to search for gets a reply, not a search with nothing to search."""
    from memlib.agent import AgentView
    from memlib.messages import Message
    from memlib.tools import MemorySystem

    view = AgentView(Message.user("🙂?", id=0), MemorySystem.create(window=1024, clock=TickClock(_SCENARIO_START)))
    call = _new_decider(make, "a question of emoji only")._yours(view, none_allowed=False)
    if call.name != "send_message":
        raise CheckFailed(f"on the question '🙂?' your answer(view) returned {call.render(60)}",
                          "a question with no words has nothing to search for: reply, e.g. ask what to look up")
    passed("a question with no words gets a reply")


_STORE_EQUIVALENT = {
    "drop: return None -> pass": "a function that ends without a return statement returns None: the same",
    "constant: 1 -> 0": "archiving the whole message 'Remember that X' instead of X keeps the same fact in one "
                        "record, which a search finds by the same words",
    "keep-state: store -> remembers its result per len(view)":
        "an AgentView has no length, so the view itself is the key: every call gets a new view (a new message, "
        "or one more call made), so no remembered result is ever returned again",
}
_NOTE_LIMIT = ("not exercised, rather than equivalent: with notes cut at 799 or 801 characters, or not cut at "
               "all, every scenario and the sessions pass with the same answers and within the cost (measured "
               "by these mutants); grading the limit needs a scenario with more than 800 characters unsaved at "
               "an alert")
_PRESSURE_EQUIVALENT = {
    "drop: if note and len(' '.join(note)) + len(m.content) > 800:     break -> pass": _NOTE_LIMIT,
    "negate: note and len(' '.join(note)) + len(m.content) > 800 -> not note and len(' '.join(note)) + "
    "len(m.content) > 800": _NOTE_LIMIT,
    "drop: break -> pass": _NOTE_LIMIT,
    "compare: len(' '.join(note)) + len(m.content) > 800 -> len(' '.join(note)) + len(m.content) >= 800": _NOTE_LIMIT,
    "binop: len(' '.join(note)) + len(m.content) -> len(' '.join(note)) - len(m.content)": _NOTE_LIMIT,
    "constant: 800 -> 801": _NOTE_LIMIT,
    "constant: 800 -> 799": _NOTE_LIMIT,
}
_NO_WORDS = ("not exercised, rather than equivalent: the only question with no words (the emoji probe) must get "
             "a reply, and with the branch gone the solution still replies, with a line of core memory")
_NO_CALL_LEFT = ("not exercised, rather than equivalent: the reference's pressure save keeps calls in reserve, so "
                 "no question of the check reaches its search with no call left; grading it needs a scenario "
                 "whose saves alone exhaust the cap")
_PAGES = ("not exercised, rather than equivalent: the one scenario that pages (page_two) needs page 1 and no "
          "other, so any limit of two pages or more, and reading 'more pages' from the first page or the last, "
          "make the same calls; grading it needs an answer on page 2")
_IN_VIEW = ("not exercised, rather than equivalent: the only question answered from core memory ('What is my "
            "name?') has one word left to match, and its line is the first one read, so any threshold from "
            "one shared word up makes the same reply; grading it needs a longer question over several core lines")
_ANSWER_EQUIVALENT = {
    "drop: if not terms:     return reply('What would you like me to look up?') -> pass": _NO_WORDS,
    "drop: return reply('What would you like me to look up?') -> pass": _NO_WORDS,
    "drop: if not view.calls_left:     break -> pass": _NO_CALL_LEFT,
    "drop: break -> pass": _NO_CALL_LEFT,
    "compare: len(pages) < 3 -> len(pages) <= 3": _PAGES,
    "constant: 3 -> 4": _PAGES,
    "constant: 3 -> 2": _PAGES,
    "constant: 1 -> 0": _PAGES,
    "compare: shared(terms, text_of(i)) == len(terms) -> shared(terms, text_of(i)) != len(terms)":
        "not exercised, rather than equivalent: on page_two's first page every result is a question, which "
        "is_statement drops, so 'no result has every word' and 'some result lacks a word' both turn the page; "
        "grading it needs a first page with a statement that holds part of the question",
    "compare: 2 * shared(terms, line) >= len(terms) -> 2 * shared(terms, line) > len(terms)": _IN_VIEW,
    "binop: 2 * shared(terms, line) -> 2 / shared(terms, line)": _IN_VIEW,
    "constant: 2 -> 3": _IN_VIEW,
    "constant: 2 -> 1": _IN_VIEW,
}


_TOOLKIT = ("05-24-solution-helpers",)  # the notebook's toolkit: reply, memory_call, ..., the class MyDecider
_STEPS = ("05-24-store", "05-24-pressure", "05-24-answer")


#: The course's own decider: each step's answer and the whole decider are the student's, not it.
REFERENCES = ("memlib.policies:ReferenceDecider",)

#: One record per step; each step's mutants are mutants of its own cell, run after the toolkit
#: (and, for step 4, after the reference of steps 1 to 3).
STORE = Exercise(grade_id="05-policy-store", notebook="05_who_decides", answer="MyDecider", points=1,
                 description="step 1: identity facts to core memory, 'remember that' to archival, nothing else",
                 references=REFERENCES, setup_cells=_TOOLKIT, cell="05-24-store", equivalent=_STORE_EQUIVALENT)
PRESSURE = Exercise(grade_id="05-policy-pressure", notebook="05_who_decides", answer="MyDecider", points=1,
                    description="step 2: under memory pressure it archives what only the context holds",
                    references=REFERENCES, setup_cells=_TOOLKIT, cell="05-24-pressure",
                    equivalent=_PRESSURE_EQUIVALENT)
ANSWER = Exercise(grade_id="05-policy-answer", notebook="05_who_decides", answer="MyDecider", points=1,
                  description="step 3: it answers from view or searches, turns pages, cites, says when nothing "
                              "is found",
                  references=REFERENCES, setup_cells=_TOOLKIT, cell="05-24-answer", equivalent=_ANSWER_EQUIVALENT)
POLICY = Exercise(
    grade_id="05-policy", notebook="05_who_decides", answer="MyDecider", points=1,
    description="the student's decider stores, saves under pressure, searches, pages, cites and stays cheap",
    references=REFERENCES,
    setup_cells=_TOOLKIT + _STEPS, cell="05-25-exercise",
    equivalent={
   'compare: view.calls_left >= 4 -> view.calls_left > 4':
       'not exercised, rather than equivalent: no scenario of the check holds more unsaved statements under pressure than the cap leaves room for, so every reserve from 0 to 5 makes the same calls (measured); grading the reserve needs a scenario whose saves alone exhaust the cap',
   'constant: 4 -> 5':
       'not exercised, rather than equivalent: no scenario of the check holds more unsaved statements under pressure than the cap leaves room for, so every reserve from 0 to 5 makes the same calls (measured); grading the reserve needs a scenario whose saves alone exhaust the cap',
   'constant: 4 -> 3':
       'not exercised, rather than equivalent: no scenario of the check holds more unsaved statements under pressure than the cap leaves room for, so every reserve from 0 to 5 makes the same calls (measured); grading the reserve needs a scenario whose saves alone exhaust the cap',
   "drop: if last is not None and (not last.ok):     return reply(f'Sorry, a ... -> pass":
       'what follows a Failed result is free within the stub (a reply, not a loop or an exception): without the branch the solution tries conversation_search after the failed archival search and answers with the message that holds the answer, and replies to the failed core edit as to any statement; independently written correct deciders do both',
   "drop: return reply(f'Sorry, a memory operation failed: {last.message}') -> pass":
       'what follows a Failed result is free within the stub (a reply, not a loop or an exception): without the branch the solution tries conversation_search after the failed archival search and answers with the message that holds the answer, and replies to the failed core edit as to any statement; independently written correct deciders do both',
   "drop: self.pressure = False -> pass":
       'not exercised, rather than equivalent: a decider that stays under pressure after its saves goes on '
       'archiving each new statement at once, before the next alert; in the scenarios and the sessions '
       'that makes the same answers within the cost limit (measured); grading it needs a run where '
       'saving every statement between alerts costs more than the limit allows',
    },
)


@graded(STORE)
def check_policy_store(decider_class: Any) -> None:
    """Check step 1 of the notebook-05 exercise: the student's store(view), inside the reference decider."""
    make = reference_except("store", decider_class)
    _new_decider(make, "building it")
    _stores_only_what_is_remembered(make)
    _scenario_identity(make)
    _identity_lines(make)


@graded(PRESSURE)
def check_policy_pressure(decider_class: Any) -> None:
    """Check step 2 of the notebook-05 exercise: save_under_pressure(view), inside the reference decider."""
    make = reference_except("save_under_pressure", decider_class)
    _new_decider(make, "building it")
    _scenario_pressure(make)
    _pressure_odd_views(make)
    _multi_session(make)


@graded(ANSWER)
def check_policy_answer(decider_class: Any) -> None:
    """Check step 3 of the notebook-05 exercise: answer(view), inside the reference decider."""
    make = reference_except("answer", decider_class)
    _new_decider(make, "building it")
    _scenario_identity(make)
    _scenario_answered(make, "page_fault", ("archival_memory_search",),
                       "a page fault: it searches archival memory, answers and cites")
    _scenario_answered(make, "recall", ("conversation_search",),
                       "'what did I say about...' searches the conversation and cites the message")
    _scenario_page_two(make)
    _scenario_no_answer(make)
    _scenario_failures(make)
    _scenario_malformed(make)
    _answer_without_words(make)
    _multi_session(make)


@graded(POLICY)
def check_policy(decider_class: Any) -> None:
    """Check the notebook-05 exercise: the student's decider class, on behaviour and cost."""
    make = _factory(decider_class)
    _new_decider(make, "building it")
    _scenario_identity(make)
    _scenario_answered(make, "page_fault", ("archival_memory_search",),
                       "a page fault: it searches archival memory, chains with a heartbeat, answers and cites")
    _scenario_pressure(make)
    _scenario_answered(make, "recall", ("conversation_search",),
                       "'what did I say about...' searches the conversation and cites the message")
    _scenario_page_two(make)
    _scenario_no_answer(make)
    _scenario_failures(make)
    _scenario_malformed(make)
    _multi_session(make)


EXERCISES = (STORE, PRESSURE, ANSWER, POLICY)
