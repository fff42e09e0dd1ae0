"""Notebook 05's runners: a decider played through one scenario (`play_scenario`) or through the
multi-session conversation (`play_sessions`), and the fallible-decider sweep. The notebook measures
with them and `memlib.course.checks.nb05_policy` grades with them; they grade nothing themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from memlib._util import TickClock
from memlib.course.checking import CheckFailed, is_class
from memlib.course.checks._common import _short, _short_text

__all__ = ["play_scenario", "play_sessions", "ScenarioRun", "SessionsRun", "decider_scenario", "fallible_sweep"]

# A fixed clock, one minute per tick, so every run is the same.
_SCENARIO_START = datetime(2026, 3, 2, 9, 0)


# -- playing deciders -----------------------------------------------------------------


def _factory(decider: Any) -> Callable[[], Any]:
    """A zero-argument maker of fresh deciders, from the student's class (or any factory)."""
    if is_class(decider) or (callable(decider) and not hasattr(decider, "next_call")):
        return decider
    if hasattr(decider, "next_call"):
        raise CheckFailed(
            f"got a decider object ({type(decider).__name__}), not its class",
            "pass the class itself, e.g. check_policy(MyDecider): the check makes a fresh decider per scenario",
        )
    raise CheckFailed(f"expected your decider class, got {type(decider).__name__} {_short(decider)}",
                      "pass the class that defines next_call(self, view)")


def _new_decider(make: Callable[[], Any], where: str) -> Any:
    try:
        decider = make()
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(f"making your decider raised {type(exc).__name__}: {exc} ({where})",
                          "the class must build with no arguments: MyDecider()") from exc
    if not callable(getattr(decider, "next_call", None)):
        raise CheckFailed(f"{type(decider).__name__} has no next_call method ({where})",
                          "define next_call(self, view) returning a ToolCall")
    return decider


@dataclass
class ScenarioRun:
    """One scenario played: the setup steps' traces, the question's trace, the memory afterwards."""

    scenario: Any
    traces: list = field(default_factory=list)
    question: Any = None  # the Trace of the question step
    memory: Any = None

    @property
    def steps(self) -> list:
        return self.traces + ([self.question] if self.question is not None else [])

    def __repr__(self) -> str:
        reply = self.question.reply if self.question is not None else None
        return f"ScenarioRun({self.scenario.id}: {len(self.traces)} setup steps, reply={_short_text(reply, 70)})"


def decider_scenario(scenario_id: str):
    """The bundled scenario with that id (see data/README.md)."""
    from memlib import datasets

    for scenario in datasets.load("decider_scenarios"):
        if scenario.id == scenario_id:
            return scenario
    known = ", ".join(s.id for s in datasets.load("decider_scenarios"))
    raise KeyError(f"no decider scenario {scenario_id!r}; the scenarios are {known}")


def play_scenario(decider: Any, scenario: Any, memory: Any = None, max_heartbeats: int = 5) -> ScenarioRun:
    """Play `scenario` (an id or a DeciderScenario) with a fresh decider from `decider` (a class).

    "next_session" scenarios ask the question with a new decider over a fresh
    context and history: only core and archival memory carry over.
    """
    from memlib.agent import Agent
    from memlib.tools import MemorySystem

    scenario = decider_scenario(scenario) if isinstance(scenario, str) else scenario
    make = _factory(decider)
    clock = TickClock(_SCENARIO_START)
    memory = memory if memory is not None else MemorySystem.create(window=scenario.window, clock=clock)
    agent = Agent(_new_decider(make, f"scenario {scenario.id}"), memory, max_heartbeats=max_heartbeats)
    run = ScenarioRun(scenario, memory=memory)
    for text in scenario.turns:
        run.traces.append(agent.step(text))
    if scenario.ask == "next_session":
        memory = _next_session(memory, clock)
        agent = Agent(_new_decider(make, f"scenario {scenario.id}"), memory, max_heartbeats=max_heartbeats)
        run.memory = memory
    run.question = agent.step(scenario.question)
    return run


def _next_session(memory: Any, clock: Any, session_id: str = "s2") -> Any:
    """A new session: a fresh context and history; core and archival memory carry over."""
    from memlib.context import MainContext
    from memlib.tools import MemorySystem

    context = memory.context
    fresh = MainContext(window=context.window, core_memory=memory.core, summarizer=context.summarizer,
                        summary_tokens=context.summary_tokens)
    return MemorySystem(context=fresh, archival=memory.archival, session_id=session_id, clock=clock)


@dataclass
class SessionsRun:
    """The multi-session conversation played by one decider, then its early-session questions."""

    label: str
    answers: list = field(default_factory=list)  # (question, Trace, correct)
    memory_calls: int = 0  # calls to memory tools (everything but send_message), whole run
    memory_tokens: int = 0  # tokens of those calls and their results in the context
    capped_steps: int = 0
    policy_errors: int = 0
    settings: dict = field(default_factory=dict)
    memory: Any = field(default=None, repr=False)  # the memory at the end: what survived

    @property
    def correct(self) -> int:
        return sum(ok for _, _, ok in self.answers)

    @property
    def accuracy(self) -> float:
        return self.correct / len(self.answers) if self.answers else 0.0

    @property
    def cost(self) -> float:
        """Memory tool calls per correctly answered question (inf when none is answered)."""
        return self.memory_calls / self.correct if self.correct else float("inf")

    def row(self) -> dict:
        return {"decider": self.label, "accuracy": round(self.accuracy, 3), "correct": self.correct,
                "questions": len(self.answers), "memory calls": self.memory_calls,
                "calls per answer": round(self.cost, 2), "memory tokens": self.memory_tokens}

    def __repr__(self) -> str:
        return (f"SessionsRun({self.label}: {self.correct}/{len(self.answers)} correct, "
                f"{self.memory_calls} memory calls, {self.cost:.2f} per answer)")


def _memory_cost(trace: Any) -> tuple[int, int]:
    """(memory tool calls, tokens their call and result messages took) in one step."""
    from memlib.tokens import count

    calls = tokens = 0
    for call, result in zip(trace.tool_calls, trace.results):
        if call.name == "send_message":
            continue
        calls += 1
        tokens += count(call.render()) + count(result.to_content())
    return calls, tokens


def play_sessions(decider: Any, label: str | None = None, fresh_sessions: bool = True, window: int = 1024,
                  summary_tokens: int = 192, turns=None, questions=None, max_heartbeats: int = 5) -> SessionsRun:
    """Play the bundled conversation's user statements session by session, then ask its questions.

    With `fresh_sessions` (the default) every session starts a new context and
    history with a new decider: only core and archival memory carry over, so
    what the decider did not save is gone. Without it, one context and one
    recall store run through all sessions (MemGPT's recall storage keeps every
    message). The user's questions to the assistant are left out (they are
    not about memory); the early-session questions are asked at the end, in a
    session of their own. A reply is correct when it contains the key phrase.
    """
    from memlib import datasets
    from memlib.agent import Agent
    from memlib.context import MainContext
    from memlib.experiments import phrase_in
    from memlib.summarize import ExtractiveSummarizer
    from memlib.tools import MemorySystem

    make = _factory(decider)
    turns = [t for t in (datasets.load("conversation") if turns is None else turns)
             if t.role == "user" and not t.content.rstrip().endswith("?")]
    questions = list(datasets.load("conversation_questions") if questions is None else questions)
    clock = TickClock(_SCENARIO_START)
    context = MainContext(window=window, summarizer=ExtractiveSummarizer(), summary_tokens=summary_tokens)
    memory = MemorySystem(context=context, clock=clock)
    agent = Agent(_new_decider(make, "the multi-session run"), memory, max_heartbeats=max_heartbeats)
    run = SessionsRun(label or str(getattr(decider, "__name__", repr(decider))),
                      settings={"window": window, "fresh_sessions": fresh_sessions, "turns": len(turns),
                                "questions": len(questions)})

    def account(trace: Any) -> None:
        calls, tokens = _memory_cost(trace)
        run.memory_calls += calls
        run.memory_tokens += tokens
        run.capped_steps += any("cap of" in e.detail for e in trace.of_kind("heartbeat"))
        run.policy_errors += bool(trace.policy_errors)

    sessions = list(dict.fromkeys(t.session_id for t in turns)) + ["questions"]
    for session in sessions:
        if fresh_sessions and session != sessions[0]:
            memory = _next_session(memory, clock, session)
            agent = Agent(_new_decider(make, "the multi-session run"), memory, max_heartbeats=max_heartbeats)
        memory.session_id = session
        if session == "questions":
            break
        for turn in (t for t in turns if t.session_id == session):
            account(agent.step(turn.content))
    for question in questions:
        trace = agent.step(question.question)
        account(trace)
        run.answers.append((question, trace, phrase_in(question.key_phrase, [trace.reply or ""])))
    run.memory = memory
    return run


def fallible_sweep(probabilities=(0.0, 0.1, 0.2, 0.3, 0.5), seeds=(0, 1), base: Any = None,
                   mistakes: tuple[str, ...] | None = None, log: Any = None, **session_options: Any) -> list[dict]:
    """Multi-session accuracy and cost of `base` wrapped in FallibleDecider, per mistake probability.

    Every mistake in `mistakes` (default: all of FALLIBLE_MISTAKES) gets the
    same probability p. Each session's decider draws from its own seed
    (seed, session), so runs are reproducible. One row per p: accuracy over
    all seeds' questions, memory calls per correct answer (all calls over all
    correct answers), and the slips counted. `log` (e.g. `print`) gets a line per p as it finishes.
    """
    import itertools

    from memlib.policies import FALLIBLE_MISTAKES, FallibleDecider, ReferenceDecider

    base = base if base is not None else ReferenceDecider
    mistakes = tuple(FALLIBLE_MISTAKES if mistakes is None else mistakes)
    unknown = [m for m in mistakes if m not in FALLIBLE_MISTAKES]
    if unknown:
        raise ValueError(f"unknown mistake(s) {unknown}; choose from {FALLIBLE_MISTAKES}")
    rows = []
    for p in probabilities:
        correct = asked = calls = 0
        slips = {m: 0 for m in mistakes}
        for seed in seeds:
            counter = itertools.count()
            made: list = []

            def make(seed=seed, counter=counter, made=made):
                decider = FallibleDecider(base(), seed=seed * 1000 + next(counter), **{m: p for m in mistakes})
                made.append(decider)
                return decider

            run = play_sessions(make, f"p={p}", **session_options)
            correct, asked, calls = correct + run.correct, asked + len(run.answers), calls + run.memory_calls
            for decider in made:
                for m in mistakes:
                    slips[m] += decider.slips[m]
        rows.append({"p": p, "accuracy": correct / asked if asked else 0.0,
                     "calls per answer": calls / correct if correct else float("inf"),
                     "memory calls": calls, "slips": slips, "runs": len(seeds)})
        if log:
            log(f"p = {p}: {correct} of {asked} answered, {calls} memory calls")
    return rows
