"""Workflow (procedural) memory: the rules a coding agent learns about one repository.

A coding agent that works on the same repository for days should not relearn
where the auth module lives, which command runs the tests or what the reviewer
insists on. Those are *procedures*: named, identifier-like, and they change
(the test command gains a flag). The bug of the day is not: its log and its
ticket belong in the context window and go when the session ends.

The procedures themselves are `memlib.procedures`: archival records with their
provenance and states (a user's rule enters active, an inferred one pending
until confirmed, a changed one supersedes the old), rendered into the
core-memory block ``procedures``; this module re-exports them. Here is what
exercises them: `WorkflowLearner` is the small deterministic learner that reads
the scenario's messages (a handful of patterns, documented where they are
defined; it is no language model and understands nothing else). `run_scenario`
plays the three sessions of ``data/workflow_sessions.json`` through a
MainContext per session and answers the day-3 questions with `ProcedurePolicy`
in the agent loop; `measure_retrieval` shows why workflow retrieval differs
from a user-profile conversation.

Not here: deciding *when* to clean up. The primary agent only adds while it
works (writes are cheap, looking back is not); merging restatements,
superseding changed rules and rewriting the block between sessions is the
sleep-time agent's job (`memlib.sleeptime`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from memlib import datasets
from memlib.agent import Agent
from memlib.archival import ArchivalStore, parse_when
from memlib.context import MainContext
from memlib.core_memory import CoreMemory
from memlib.decision import ToolCall
from memlib.messages import Message
# Procedural memory itself; re-exported, since notebook 09 and the tests import it from here.
from memlib.procedures import (BLOCK_LABEL, BLOCK_LIMIT, BLOCK_LINE, CONFIRM_RULES, PROCEDURE_TAG,  # noqa: F401
                               SOURCES, Candidate, ProceduralMemory, Rule, ScenarioClock, TimelineEvent,
                               rewrite_block, rule_of, rule_text)
from memlib.recall import RecallStore
from memlib.retrieval import BM25Index, tokenize
from memlib.sleeptime import SleepTimeAgent, next_session_view
from memlib.tools import MemorySystem

__all__ = [
    "PROCEDURE_TAG", "BLOCK_LABEL", "BLOCK_LIMIT", "SOURCES", "CONFIRM_RULES",
    "ScenarioClock", "TimelineEvent", "Candidate", "Rule", "ProceduralMemory",
    "WorkflowLearner", "WorkflowMessage", "WorkflowScenario", "load_scenario",
    "ProcedurePolicy", "ScenarioRun", "run_scenario", "rewrite_block",
]

# -- the scenario ------------------------------------------------------------------


@dataclass(frozen=True)
class WorkflowMessage:
    """One message of the coding sessions (user, assistant, or a tool: shell output, review comment)."""

    session_id: str
    turn_id: int
    role: str
    timestamp: datetime
    content: str
    local: bool = False
    tool: str | None = None
    command: str | None = None
    exit_code: int | None = None
    author: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class WorkflowScenario:
    repository: str
    sessions: tuple[dict, ...]
    messages: tuple[WorkflowMessage, ...]
    rules: tuple[dict, ...]
    rejected: tuple[dict, ...]
    tasks: tuple[dict, ...]
    lookups: tuple[dict, ...]

    def session(self, session_id: str) -> list[WorkflowMessage]:
        found = [m for m in self.messages if m.session_id == session_id]
        if not found:
            raise KeyError(f"no session {session_id!r}; the sessions are {[s['id'] for s in self.sessions]}")
        return found

    def __repr__(self) -> str:
        return (f"WorkflowScenario({self.repository}: {len(self.sessions)} sessions, {len(self.messages)} messages, "
                f"{len(self.rules)} rule statements, {len(self.tasks)} tasks)")


_MESSAGE_FIELDS = {f for f in WorkflowMessage.__dataclass_fields__}


def load_scenario(text: str | None = None) -> WorkflowScenario:
    """The coding-agent scenario from `data/workflow_sessions.json` (or from JSON `text`)."""
    if text is None:
        text = datasets.read_text("workflow_sessions.json")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the workflow scenario is not valid JSON: {exc}") from None
    missing = {"repository", "sessions", "messages", "rules", "rejected", "tasks", "lookups"} - set(data)
    if missing:
        raise ValueError(f"the workflow scenario lacks {sorted(missing)}; regenerate it with "
                         "python data/world_workflow.py")
    messages = []
    for row in data["messages"]:
        unknown = set(row) - _MESSAGE_FIELDS
        if unknown:
            raise ValueError(f"message {row.get('turn_id')} has unknown fields {sorted(unknown)}")
        messages.append(WorkflowMessage(**{**row, "timestamp": parse_when(row["timestamp"], "timestamp")}))
    return WorkflowScenario(data["repository"], tuple(data["sessions"]), tuple(messages), tuple(data["rules"]),
                            tuple(data["rejected"]), tuple(data["tasks"]), tuple(data["lookups"]))


# -- the learner ----------------------------------------------------------------------

# The patterns the learner knows; everything else in a message is ignored.
_TEST_RUNNER = re.compile(r"(^|\s)(pytest|tox|nox|make test)\b")
_STATED_TEST = (re.compile(r"`([^`]+)` is the test command"), re.compile(r"test command is (?:now )?`([^`]+)`"),
                re.compile(r"run the tests with `([^`]+)`", re.IGNORECASE))
_STATED_PATH = re.compile(r"\b[Tt]he (\w+) module lives in `([^`]+)`")
_YES = re.compile(r"^\s*(yes|right|correct)\b", re.IGNORECASE)
_NO = re.compile(r"^\s*no\b", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`]+)`")
# Review comments: which style rule a comment is about, by its words (first match wins).
_REVIEW_TOPICS = (
    ("style.line_length", re.compile(r"line-length|\bcharacters\b", re.IGNORECASE)),
    ("style.docstrings", re.compile(r"\bdocstrings?\b", re.IGNORECASE)),
    ("style.commit_messages", re.compile(r"\bcommit messages?\b", re.IGNORECASE)),
    ("style.imports", re.compile(r"\bimports?\b", re.IGNORECASE)),
    ("style.logging", re.compile(r"\blog(ging)?\b", re.IGNORECASE)),
)
_LINE_LENGTH = re.compile(r"under (\d+) characters|line-length = (\d+)", re.IGNORECASE)


def _sentence_with(text: str, needle: str) -> str:
    for sentence in re.split(r"(?<=[.!?;])\s+", text):
        if needle in sentence:
            return sentence
    return text


class WorkflowLearner:
    """A small deterministic learner: what rule (if any) a message states, confirms or rejects.

    It knows: test runs (a shell command running pytest/tox/nox/make test that
    exits 0), "the X module lives in `path`", "`cmd` is the test command" and
    its variants, review comments on line length, docstrings, commit messages,
    imports and logging, and answers starting with yes/right/correct or no
    that name a pending rule's value in backticks.
    """

    def candidates(self, message: WorkflowMessage) -> list[Candidate]:
        if message.role == "tool" and message.tool == "shell":
            if message.command and message.exit_code == 0 and _TEST_RUNNER.search(message.command):
                last = message.content.strip().splitlines()[-1] if message.content.strip() else ""
                return [Candidate("test_command", message.command, "tool", f"exit 0: {last}")]
            return []
        if message.role == "tool" and message.tool == "review":
            for name, pattern in _REVIEW_TOPICS:
                if pattern.search(message.content):
                    value = message.content
                    if name == "style.line_length":
                        m = _LINE_LENGTH.search(message.content)
                        if not m:
                            continue
                        value = m.group(1) or m.group(2)
                    return [Candidate(name, value, "review", message.content)]
            return []
        if message.role not in ("user", "assistant"):
            return []
        found = []
        for pattern in _STATED_TEST:
            for m in pattern.finditer(message.content):
                found.append(Candidate("test_command", m.group(1), message.role,
                                       _sentence_with(message.content, m.group(0))))
        for m in _STATED_PATH.finditer(message.content):
            found.append(Candidate(f"path.{m.group(1).lower()}", m.group(2), message.role,
                                   _sentence_with(message.content, m.group(0))))
        return found

    @staticmethod
    def answer(message: WorkflowMessage) -> tuple[str | None, set[str]]:
        """("confirm" | "reject" | None, the backticked values the user's message names)."""
        if message.role != "user":
            return None, set()
        named = set(_BACKTICKED.findall(message.content))
        if _YES.match(message.content):
            return "confirm", named
        if _NO.match(message.content):
            return "reject", named
        return None, named


# -- answering from memory -------------------------------------------------------------



class ProcedurePolicy:
    """Answers a workflow question from the `procedures` block, else from the conversation history.

    A block line matches a question when a word of the rule's *name* is in the
    question (value words only break ties); among equal scores the later line
    wins (the block is appended in time order). No match: one
    conversation_search, and the best message it returns, cited.
    """

    def __init__(self, label: str = BLOCK_LABEL) -> None:
        self.label = label

    def best_line(self, question: str, block_text: str) -> dict | None:
        words = set(tokenize(question))
        best, best_score = None, 0
        for raw in block_text.splitlines():
            m = BLOCK_LINE.match(raw.strip())
            if not m:
                continue
            name_hits = len(words & set(tokenize(m["name"].replace(".", " ").replace("_", " "))))
            if not name_hits:
                continue
            score = 2 * name_hits + len(words & set(tokenize(m["value"])))
            if score >= best_score:
                best, best_score = m.groupdict(), score
        return best

    def next_call(self, view):
        if view.calls:
            call, result = view.calls[-1]
            found = [m for m in result.records if getattr(m, "id", None) != view.user_message.id]
            if call.name == "conversation_search" and result.ok and found:
                message = found[0]  # the question itself is in the history too: skip it
                return ToolCall("send_message", {"message": f"From our history (message #{message.id}): "
                                                            f"{message.content}"})
            return ToolCall("send_message", {"message": "I have no rule or message that answers this."})
        block = view.memory.core.get(self.label).value if self.label in view.memory.core else ""
        line = self.best_line(view.user_text, block)
        if line is not None:
            return ToolCall("send_message", {"message": f"{line['name']}: {line['value']} [{line['id']}]"},
                            thought=f"the {self.label} block has {line['name']}")
        return ToolCall("conversation_search", {"query": view.user_text, "request_heartbeat": True},
                        thought="no procedure answers this; it may be in an earlier session")

    def __repr__(self) -> str:
        return f"ProcedurePolicy(block={self.label!r})"


# -- playing the scenario -------------------------------------------------------------


@dataclass
class ScenarioRun:
    """Everything `run_scenario` produced: memory, the event timeline, the agent's answers."""

    procedures: ProceduralMemory
    recall: Any
    events: list[TimelineEvent] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)  # task id -> reply
    traces: list = field(default_factory=list)  # memlib.agent.Trace of each day-3 question
    blocks: dict[str, str] = field(default_factory=dict)  # session id -> the block as that session began
    windows: dict[str, list] = field(default_factory=dict)  # session id -> messages in the window at its end
    views: dict[str, dict] = field(default_factory=dict)  # session id -> next_session_view as it began

    def correct(self, scenario: WorkflowScenario) -> dict[str, bool]:
        return {t["id"]: t["answer"] in self.answers.get(t["id"], "") for t in scenario.tasks}

    def __repr__(self) -> str:
        return (f"ScenarioRun({len(self.events)} events, {len(self.answers)} answers; {self.procedures!r})")


def _to_messages(message: WorkflowMessage, call_number: int) -> list:
    common = dict(timestamp=message.timestamp, session_id=message.session_id)
    if message.role == "user":
        return [Message.user(message.content, **common)]
    if message.role == "assistant":
        return [Message.assistant(message.content, **common)]
    call_id = f"{message.session_id}-{message.tool}-{call_number}"
    if message.tool == "shell":
        shown, arguments = f"shell({message.command!r})", {"command": message.command}
        result = f"exit {message.exit_code}\n{message.content}"
    else:
        shown, arguments = f"review({message.path or 'PR'})", {"path": message.path}
        result = f"{message.author}: {message.content}"
    return [Message.assistant(shown, tool_call_id=call_id, name=message.tool, arguments=arguments, **common),
            Message.tool(result, tool_call_id=call_id, name=message.tool, **common)]


def run_scenario(scenario: WorkflowScenario | None = None, *, sleep_time: bool = True, window: int = 8192,
                 until: str | None = None,
                 make_archival: Callable[[ScenarioClock], ArchivalStore] | None = None) -> ScenarioRun:
    """Play the three sessions through memlib; the sleep-time agent runs between them when `sleep_time`.

    `until` names a session to stop at: memory as that session is about to
    begin (after the sleep-time run before it), e.g. what day 3 starts from.
    `make_archival(clock)` builds the (empty) archival store, e.g.
    ``lambda clock: SQLiteArchivalStore(path, clock=clock)``; default: in memory.

    Each session gets a fresh MainContext (the bug of the day lives there) over
    the same core memory, archival store and recall store. The learner writes
    rules as it reads; the day-3 questions go through `memlib.agent.Agent` with
    `ProcedurePolicy`.
    """
    scenario = scenario if scenario is not None else load_scenario()
    ids = [s["id"] for s in scenario.sessions]
    if until is not None and until not in ids:
        raise ValueError(f"until must be one of the sessions {ids}, got {until!r}")
    first = scenario.messages[0].timestamp
    clock = ScenarioClock(first - timedelta(minutes=1))
    core = CoreMemory.default(persona=f"I am a coding agent working on {scenario.repository}.",
                              human="Ines Halloran, developer on Project Heron.")
    archival = ArchivalStore(clock=clock) if make_archival is None else make_archival(clock)
    if not isinstance(archival, ArchivalStore) or len(archival):
        raise ValueError("make_archival must return an empty ArchivalStore that reads the clock it is given")
    recall = RecallStore()
    procedures = ProceduralMemory(archival, core, clock=clock)
    run = ScenarioRun(procedures, recall)
    learner = WorkflowLearner()
    task_turns = {t["turn_id"]: t for t in scenario.tasks}
    sleeper = None
    if sleep_time:
        sleeper = SleepTimeAgent(procedures)
    for index, session in enumerate(scenario.sessions):
        sid = session["id"]
        messages = scenario.session(sid)
        if index and sleeper is not None:
            # Between sessions: in the evening after the previous day.
            previous = scenario.session(scenario.sessions[index - 1]["id"])[-1].timestamp
            start = previous.replace(hour=19, minute=0, second=0) if previous.hour < 19 else previous
            run.events.extend(sleeper.run(start))
        run.blocks[sid] = core.get(BLOCK_LABEL).value
        run.views[sid] = next_session_view(procedures, [lk["query"] for lk in scenario.lookups])
        if sid == until:
            break
        clock.set(messages[0].timestamp)
        context = MainContext(window=window, core_memory=core, recall=recall)
        memory = MemorySystem(context=context, archival=archival, session_id=sid, clock=clock)
        agent = Agent(ProcedurePolicy(), memory)
        run.events.append(TimelineEvent("primary", messages[0].timestamp, "session", f"{sid}: {session['bug']}",
                                        end=messages[-1].timestamp, session_id=sid))
        for n, message in enumerate(messages):
            clock.set(message.timestamp)
            if message.turn_id in task_turns:
                task = task_turns[message.turn_id]
                trace = agent.step(message.content)
                run.traces.append(trace)
                run.answers[task["id"]] = trace.reply or ""
                run.events.append(TimelineEvent("primary", message.timestamp, "answer",
                                                f"{task['id']}: {trace.reply}", session_id=sid))
                continue
            for item in _to_messages(message, n):
                memory.append_message(item)
            run.events.extend(_learn(procedures, learner, message))
        run.windows[sid] = list(context.messages)
        core.detach(context)
    return run


def _learn(procedures: ProceduralMemory, learner: WorkflowLearner, message: WorkflowMessage) -> list[TimelineEvent]:
    """What the primary agent writes after reading one message: the hot path, add-only."""
    events = []
    at, sid, turn = message.timestamp, message.session_id, message.turn_id

    def event(kind, what, rule):
        events.append(TimelineEvent("primary", at, kind, what, record_id=rule.id, session_id=sid))

    def activated(rule):
        if procedures.append_line(rule):
            event("block_append", f"+ {rule.line()}", rule)
        else:
            event("block_full", f"no room in the block for {rule.name}; left for the sleep-time agent", rule)

    answered: set[tuple[str, str]] = set()
    verdict, named = learner.answer(message)
    for rule in procedures.pending():
        if verdict and rule.value in named:
            if verdict == "confirm":
                rule = procedures.confirm(rule.id, by="user", reason=f"the user said so in {sid}/{turn}")
                event("confirm", f"{rule.name} confirmed by the user", rule)
                activated(rule)
            else:
                rule = procedures.reject(rule.id, by="user", reason=f"the user said no in {sid}/{turn}")
                event("reject", f"{rule.name} = {rule.value} rejected by the user", rule)
            answered.add((rule.name, rule.value))
    for cand in learner.candidates(message):
        if (cand.name, cand.value) in answered:
            continue  # the message confirmed (or refused) exactly this rule: not a new statement
        waiting = procedures.find_pending(cand.name, cand.value)
        if waiting is not None and cand.source == "tool":
            rule = procedures.confirm(waiting.id, by="rule:succeeded-twice",
                                      reason=f"exit 0 again in {sid}/{turn}")
            event("confirm", f"{rule.name} confirmed: it succeeded twice", rule)
            activated(rule)
            continue
        if cand.source == "tool" and any(r.value == cand.value for r in procedures.current().values()
                                         if r.name == cand.name):
            continue  # a known command passing again is no news
        rule = procedures.learn(cand.name, cand.value, source=cand.source, session_id=sid, turn_id=turn,
                                context=cand.context)
        event("learn", f"{rule.name} = {rule.value} ({rule.status}, from {cand.source})", rule)
        if cand.source == "review":
            rule = procedures.confirm(rule.id, by="rule:reviewer", reason=f"review comment by {message.author}")
            event("confirm", f"{rule.name} confirmed: the reviewer said it", rule)
        if rule.status == "active":
            activated(rule)
    return events


# -- why workflow retrieval differs from a user-profile conversation ------------------------

_IDENTIFIER = re.compile(r"[/_=]|--|\(\)|\w\.\w")


def is_identifier(text: str) -> bool:
    """Does `text` look like an identifier (a path, a flag, a command, a call) rather than prose?"""
    return bool(_IDENTIFIER.search(text))


def _store_hits(procedures: ProceduralMemory, query: str, k: int) -> list[Rule]:
    hits = procedures.archival.search(query, top_k=k)
    return [rule_of(h.record) for h in hits if PROCEDURE_TAG in h.record.tags]


def measure_retrieval(scenario: WorkflowScenario | None = None, k: int = 5) -> dict:
    """The numbers behind "multi-session chat is not workflow memory".

    Workflow side: the day-3 store (as session w3 begins, with and without the
    sleep-time runs), queried with the day-3 tasks and the identifier /
    paraphrase lookups: BM25 hit@1 (a record of the needed rule on top),
    current@1 (its current version on top), the keyed lookup by name, the
    block line `ProcedurePolicy` picks from the question, and, for identifier
    lookups, an exact match (every word of the query verbatim in the record,
    case-insensitive; the newest such record). Profile side:
    `conversation_questions` over the `conversation` turns with BM25 (hit@1 and
    hit@k on the gold turns). Returns a dict of rows for `retrieval_tables`.
    """
    scenario = scenario if scenario is not None else load_scenario()
    rows: list[dict] = []
    # profile questions: BM25 over every turn of the multi-session chat
    turns = datasets.load("conversation")
    index = BM25Index()
    for t in turns:
        index.add(t.turn_id, t.content)
    questions = datasets.load("conversation_questions")
    ranked = [[doc for doc, _ in index.search(q.question, k=k)] for q in questions]
    rows.append({"set": "profile: conversation_questions over conversation", "store": f"{len(turns)} turns",
                 "n": len(questions), "identifier_answers": sum(is_identifier(q.answer) for q in questions),
                 "hit@1": sum(bool(r) and r[0] in q.gold_turn_ids for q, r in zip(questions, ranked)),
                 f"hit@{k}": sum(any(d in q.gold_turn_ids for d in r) for q, r in zip(questions, ranked)),
                 "current@1": None, "keyed": None, "policy": None, "substring": None,
                 "matching": sum(len(index.search(q.question, k=len(turns))) for q in questions)
                 / len(questions) / len(turns)})
    probes = [("tasks", [(t["question"], t["needs"][0], t["answer"]) for t in scenario.tasks if t["needs"]])]
    for kind in ("identifier", "paraphrase"):
        probes.append((f"lookups ({kind})", [(lk["query"], lk["needs"], None) for lk in scenario.lookups
                                             if lk["kind"] == kind]))
    policy = ProcedurePolicy()
    row: dict[str, Any]  # a table row: text, counts and shares
    for sleep in (False, True):
        procedures = run_scenario(scenario, sleep_time=sleep, until="w3").procedures
        current = procedures.current()
        block = procedures.core.get(procedures.label).value
        for label, items in probes:
            row = {"set": f"workflow {label}", "store": f"day-3 store, {'with' if sleep else 'without'} sleep-time",
                   "n": len(items), "identifier_answers": sum(is_identifier(a) for _, _, a in items if a)
                   if label == "tasks" else None}
            hits = [_store_hits(procedures, q, k) for q, _, _ in items]
            row["hit@1"] = sum(bool(h) and h[0].name == need for h, (_, need, _) in zip(hits, items))
            row[f"hit@{k}"] = sum(any(r.name == need for r in h) for h, (_, need, _) in zip(hits, items))
            row["current@1"] = sum(bool(h) and h[0].id == current[need].id for h, (_, need, _) in zip(hits, items))
            searchable = sum(r.status == "active" for r in procedures.rules())
            row["store"] += f" ({searchable} searchable records)"
            row["matching"] = sum(len(procedures.archival.matching(q)) for q, _, _ in items) / len(items) / searchable
            row["keyed"] = sum(need in current for _, need, _ in items)
            row["policy"] = sum((policy.best_line(q, block) or {}).get("id") == current[need].id
                                for q, need, _ in items)
            row["substring"] = None
            if "identifier" in label:
                newest = {}
                for q, need, _ in items:
                    parts = q.lower().split()
                    found = [r for r in procedures.rules()
                             if r.status == "active" and all(p in r.record.text.lower() for p in parts)]
                    newest[q] = found[-1].id if found else None
                row["substring"] = sum(newest[q] == current[need].id for q, need, _ in items)
            rows.append(row)
    examples = ["src/heron/auth/session.py", "--kafka-stub", "PYTHONPATH=src pytest -q --kafka-stub tests/",
                "redact()", "style.line_length", "HERON-412", "the authentication module"]
    return {"rows": rows, "k": k, "tokens": {e: tokenize(e) for e in examples}}


def retrieval_tables(measured: dict | None = None) -> str:
    """`measure_retrieval` as Markdown tables (what `python -m memlib.workflow` prints).

    The query sets first (what each searches), then the searches' results: two narrow
    tables rather than one of eleven columns, which a laptop-size notebook squeezes
    into unreadable slivers. A result that does not apply to a set shows "—".
    """
    measured = measured if measured is not None else measure_retrieval()
    k = measured["k"]
    out = ["How the default analyzer (memlib.retrieval.tokenize) splits identifiers:", "",
           "| text | tokens |", "|---|---|"]
    out += [f"| `{text}` | {' '.join(tokens) or '(none)'} |" for text, tokens in measured["tokens"].items()]

    def cell(row, key):
        value = row.get(key)
        return "—" if value is None else f"{value}/{row['n']}"

    out += ["", "The query sets:", "",
            "| query set | store | questions | share of the store a query matches (mean) | identifier answers |",
            "|---|---|---|---|---|"]
    out += [f"| {row['set']} | {row['store']} | {row['n']} | {row['matching']:.0%} | "
            f"{cell(row, 'identifier_answers')} |" for row in measured["rows"]]
    results = {"hit@1": "BM25 hit@1", f"hit@{k}": f"BM25 hit@{k}", "current@1": "current version on top",
               "keyed": "keyed lookup", "policy": "ProcedurePolicy line", "substring": "exact words"}
    out += ["", f"Questions each search answers with the needed record: on top, or for hit@{k} in the top {k} "
                "(— : does not apply to the set):", "",
            "| query set | store | " + " | ".join(results.values()) + " |", "|---|---|" + "---|" * len(results)]
    for row in measured["rows"]:
        store = row["store"].split(" (")[0]  # the record count is in the table above
        out.append(f"| {row['set']} | {store} | " + " | ".join(cell(row, key) for key in results) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    # Through the imported module, not this __main__ copy, so its classes are memlib.workflow's.
    from memlib import workflow

    print(workflow.retrieval_tables())
