"""Two experiments in the spirit of the MemGPT paper, run as deterministic simulations.

1. Nested key-value retrieval (Packer et al., arXiv:2310.08560, §3.2): 140 UUID
   key-value pairs; at nesting level L the value of the asked key is itself a
   key, L times over, and the answer is the value at the end of the chain.
   A `WindowReader` sees only the pairs that fit in a fixed token window; a
   `KVPagingPolicy` agent keeps every pair in archival memory and looks each
   key up with `archival_memory_search`, page by page, through `memlib.agent`.
2. Multi-session recall on the bundled conversation: the conversation is played
   through a `MainContext` with a recursive summary; after every session the
   questions about earlier sessions are asked. The summary-only baseline
   answers from what is in the prompt (messages + summary); the paging agent
   also reads one page of `conversation_search` (recall) and of
   `archival_memory_search` (notes it archived under memory pressure).

No language model is involved anywhere: both readers are rules. These
simulations reproduce the *setup* of the paper's experiments, not its numbers,
and a rule never misreads what it sees, so the gap they show comes from what
each reader can see, not from reasoning. Everything is seeded and repeatable.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Sequence

from memlib import datasets
from memlib._util import check_int_at_least, check_positive_int
from memlib.agent import Agent, AgentView, ToolCall
from memlib.archival import ArchivalStore
from memlib.context import MainContext
from memlib.summarize import ExtractiveSummarizer
from memlib.tokens import count
from memlib.tools import MemorySystem, dispatch

__all__ = [
    "KVTask", "make_kv_task", "make_kv_tasks", "kv_line", "kv_archive", "WindowReader", "KVPagingPolicy",
    "KVTrial", "KVResult", "run_nested_kv",
    "RecallProbe", "MultiSessionResult", "run_multisession", "phrase_in",
]


# ======================================================================================
# 1. nested key-value retrieval
# ======================================================================================


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128)))


def kv_line(key: str, value: str) -> str:
    """How one pair is written, in the prompt and in archival memory."""
    return f'"{key}": "{value}"'


@dataclass(frozen=True)
class KVTask:
    """One nested lookup: `pairs` in prompt order, start at `start_key`, follow `level` extra hops.

    `chain` is start_key, then every intermediate key, then the answer.
    """

    pairs: tuple[tuple[str, str], ...]
    start_key: str
    answer: str
    level: int
    chain: tuple[str, ...]

    @property
    def question(self) -> str:
        return (f"Look up the key {self.start_key}. If its value is itself a key, look that key up too, "
                "and repeat until the value is not a key. What is the final value?")

    def __repr__(self) -> str:
        return f"KVTask(level {self.level}, {len(self.pairs)} pairs, start {self.start_key[:8]}…)"


def _check_level(level) -> None:
    check_int_at_least(level, 0, "level", "0 = plain lookup")


def _pairs_with_chains(levels: Sequence[int], n_pairs: int, rng: random.Random):
    """`n_pairs` shuffled pairs of fresh UUIDs hiding one chain per level; returns (pairs, chains)."""
    need = sum(level + 1 for level in levels)
    check_int_at_least(n_pairs, need, "n_pairs", f"the chains for levels {list(levels)} need that many pairs")
    seen: set[str] = set()

    def fresh() -> str:
        while True:  # a repeated UUID would create an accidental chain
            value = _uuid(rng)
            if value not in seen:
                seen.add(value)
                return value

    chains = [tuple(fresh() for _ in range(level + 2)) for level in levels]
    pairs = [(chain[i], chain[i + 1]) for chain in chains for i in range(len(chain) - 1)]
    pairs += [(fresh(), fresh()) for _ in range(n_pairs - len(pairs))]
    rng.shuffle(pairs)
    return tuple(pairs), chains


def make_kv_task(level: int, n_pairs: int = 140, rng: random.Random | int | None = 0) -> KVTask:
    """A task with `n_pairs` pairs of fresh UUIDs, `level + 1` of them forming the chain.

    Example:
        >>> task = make_kv_task(2, n_pairs=10, rng=1)
        >>> len(task.pairs), len(task.chain), dict(task.pairs)[task.chain[0]] == task.chain[1]
        (10, 4, True)
    """
    _check_level(level)
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    pairs, (chain,) = _pairs_with_chains([level], n_pairs, rng)
    return KVTask(pairs, chain[0], chain[-1], level, chain)


def make_kv_tasks(levels: Sequence[int] = (0, 1, 2, 3, 4), trials: int = 30, n_pairs: int = 140,
                  seed: int = 0) -> list[KVTask]:
    """`trials` tasks per level from one seeded generator, returned level by level.

    Each trial is one set of `n_pairs` pairs that hides one chain per level
    (for levels 0-4: 15 of the 140 pairs); the tasks of a trial share those
    pairs, so the paging agent builds one archive per trial instead of one per
    task. The chains' positions are random, so levels stay independent draws.
    """
    check_positive_int(trials, "trials")
    levels = list(levels)
    if not levels:
        raise ValueError("levels is empty; pass nesting levels such as (0, 1, 2, 3, 4)")
    for level in levels:
        _check_level(level)
    if len(set(levels)) != len(levels):
        raise ValueError(f"levels must not repeat, got {levels}")
    rng = random.Random(seed)
    by_level: dict[int, list[KVTask]] = {level: [] for level in levels}
    for _ in range(trials):
        pairs, chains = _pairs_with_chains(levels, n_pairs, rng)
        for level, chain in zip(levels, chains):
            by_level[level].append(KVTask(pairs, chain[0], chain[-1], level, chain))
    return [task for level in levels for task in by_level[level]]


class WindowReader:
    """A reader with a fixed context window and no memory tools.

    The prompt is an instruction, the pairs in order and the question; the
    pairs that do not fit in `window` tokens (counted with `counter`, cl100k by
    default) are cut off the end, as a truncated document would be. The reader
    follows the chain perfectly through the pairs it can see and answers with
    the last value it reached.
    """

    INSTRUCTION = "Below is a JSON object of key-value pairs. Answer the question after it.\n{"

    def __init__(self, window: int = 4096, counter: Callable[[str], int] | None = None):
        check_int_at_least(window, 64, "window", "a number of tokens")
        self.window = window
        self.counter = counter if counter is not None else count
        self._costs: dict[int, tuple[object, list[int]]] = {}  # id(pairs) -> (pairs, token cost per line)

    def visible(self, task: KVTask) -> dict[str, str]:
        """The pairs that fit in the window after the instruction and the question."""
        budget = self.window - self.counter(self.INSTRUCTION) - self.counter("}\n" + task.question)
        seen: dict[str, str] = {}
        for (key, value), cost in zip(task.pairs, self._line_costs(task.pairs)):
            if cost > budget:
                break
            budget -= cost
            seen[key] = value
        return seen

    def _line_costs(self, pairs) -> list[int]:
        # Tasks of one trial share their pairs: count each line once per set, not once per task.
        entry = self._costs.get(id(pairs))
        if entry is None or entry[0] is not pairs:
            if len(self._costs) >= 256:
                self._costs.clear()  # bounded: a long-lived reader must not grow without end
            entry = self._costs[id(pairs)] = (pairs, [self.counter(kv_line(k, v) + ",\n") for k, v in pairs])
        return entry[1]

    def answer(self, task: KVTask, visible: dict[str, str] | None = None) -> str | None:
        """The value reached by following the chain through the visible pairs (None: start not visible).

        `visible` may pass in `self.visible(task)` when it was already computed.
        """
        pairs = self.visible(task) if visible is None else visible
        current, steps = task.start_key, 0
        while current in pairs and steps <= len(pairs):
            current, steps = pairs[current], steps + 1
        return current if steps else None

    def __repr__(self) -> str:
        return f"WindowReader(window={self.window} tokens)"


class KVPagingPolicy:
    """A deterministic agent policy for nested lookups through archival memory.

    For each key of the chain it calls `archival_memory_search(query=key)` and
    reads the page of results for the record whose key is exactly that key
    (other records may mention it as a value); if the page does not have it, it
    asks for the next page, up to `max_pages`. When a value is not found as a
    key, the value is the answer and it calls `send_message`.
    """

    def __init__(self, max_pages: int = 3):
        check_positive_int(max_pages, "max_pages")
        self.max_pages = max_pages
        self._current: str | None = None
        self._page = 0

    @staticmethod
    def start_key(text: str) -> str:
        for word in text.replace(".", " ").split():
            try:
                return str(uuid.UUID(word))
            except ValueError:
                continue
        raise ValueError(f"no key (UUID) in the question {text[:60]!r}")

    def next_call(self, view: AgentView) -> ToolCall:
        if not view.calls:
            self._current, self._page = self.start_key(view.user_text), 0
            return self._search()
        result = view.calls[-1][1]
        if not result.ok and self._page == 0:
            return ToolCall("send_message", {"message": f"search failed: {result.message}"})
        for record in (result.records if result.ok else ()):
            key, _, value = record.text.partition(": ")
            if key.strip('"') == self._current:
                self._current, self._page = value.strip('"'), 0
                return self._search()  # the value might itself be a key
        if result.ok and result.records and self._page + 1 < self.max_pages and "page=" in result.message:
            self._page += 1
            return self._search()
        # Not a key anywhere we looked: this value is the end of the chain.
        return ToolCall("send_message", {"message": self._current})

    def _search(self) -> ToolCall:
        return ToolCall("archival_memory_search",
                        {"query": self._current, "page": self._page, "request_heartbeat": True})

    def __repr__(self) -> str:
        return f"KVPagingPolicy(max_pages={self.max_pages})"


@dataclass(frozen=True)
class KVTrial:
    """One task answered by both readers."""

    level: int
    window_answer: str | None
    paging_answer: str | None
    answer: str
    visible_pairs: int
    paging_calls: int

    @property
    def window_correct(self) -> bool:
        return self.window_answer == self.answer

    @property
    def paging_correct(self) -> bool:
        return self.paging_answer == self.answer


@dataclass
class KVResult:
    """All trials, and accuracy per nesting level for each reader."""

    trials: list[KVTrial]
    settings: dict = field(default_factory=dict)

    def table(self) -> list[dict]:
        """One row per level: trials, accuracy of each reader, mean calls of the paging agent."""
        by_level: dict[int, list[KVTrial]] = defaultdict(list)
        for t in self.trials:
            by_level[t.level].append(t)
        rows = []
        for level in sorted(by_level):
            ts = by_level[level]
            rows.append({
                "level": level, "trials": len(ts),
                "window_accuracy": sum(t.window_correct for t in ts) / len(ts),
                "paging_accuracy": sum(t.paging_correct for t in ts) / len(ts),
                "paging_calls": sum(t.paging_calls for t in ts) / len(ts),
                "visible_share": sum(t.visible_pairs for t in ts) / len(ts) / self.settings.get("n_pairs", 1),
            })
        return rows

    def format_table(self) -> str:
        lines = ["| nesting level | trials | fixed window | paging agent | calls per task |",
                 "|---|---|---|---|---|"]
        for r in self.table():
            lines.append(f"| {r['level']} | {r['trials']} | {r['window_accuracy']:.2f} | "
                         f"{r['paging_accuracy']:.2f} | {r['paging_calls']:.1f} |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        parts = ", ".join(f"L{r['level']}: {r['window_accuracy']:.2f} vs {r['paging_accuracy']:.2f}"
                          for r in self.table())
        return f"KVResult({len(self.trials)} trials; window vs paging accuracy {parts})"


def kv_archive(pairs: Sequence[tuple[str, str]]) -> ArchivalStore:
    """An archival store holding every pair as one record (`kv_line`), in prompt order."""
    archival = ArchivalStore(page_size=5)
    for key, value in pairs:
        archival.insert(kv_line(key, value), tags=("kv",))
    return archival


def _paging_answer(task: KVTask, archival: ArchivalStore, max_pages: int, context_window: int,
                   max_heartbeats: int) -> tuple[str | None, int]:
    # The policy only searches, so tasks that share their pairs can share the archive.
    context = MainContext(window=context_window)
    memory = MemorySystem(archival=archival, context=context)
    agent = Agent(KVPagingPolicy(max_pages=max_pages), memory, max_heartbeats=max_heartbeats)
    trace = agent.step(task.question)
    calls = sum(1 for c in trace.tool_calls if c.name == "archival_memory_search")
    return trace.reply, calls


def run_nested_kv(levels: Sequence[int] = (0, 1, 2, 3, 4), trials: int = 30, n_pairs: int = 140,
                  window: int = 4096, seed: int = 0, max_pages: int = 3,
                  max_heartbeats: int = 20, log: Callable[[str], object] | None = None) -> KVResult:
    """Both readers on the same seeded tasks; `window` is the fixed reader's and the agent's context.

    `max_heartbeats` caps the agent's chained calls per question (one search per
    key, plus extra pages): a chain longer than the cap is answered wrongly.
    `log` (e.g. `print`) gets one line per nesting level as it finishes, so a long run shows progress.
    """
    tasks = make_kv_tasks(levels, trials, n_pairs, seed)
    reader = WindowReader(window)
    archives: dict[int, ArchivalStore] = {}  # one per set of pairs (id() is stable: tasks hold them)
    results = []
    for task in tasks:
        archive = archives.get(id(task.pairs))
        if archive is None:
            archive = archives[id(task.pairs)] = kv_archive(task.pairs)
        paging, calls = _paging_answer(task, archive, max_pages, window, max_heartbeats)
        visible = reader.visible(task)
        results.append(KVTrial(task.level, reader.answer(task, visible), paging, task.answer,
                               len(visible), calls))
        if log and sum(t.level == task.level for t in results) == trials:
            log(f"level {task.level}: {trials} questions answered by both readers")
    settings = {"levels": tuple(levels), "trials": trials, "n_pairs": n_pairs, "window": window,
                "seed": seed, "max_pages": max_pages, "max_heartbeats": max_heartbeats}
    return KVResult(results, settings)


# ======================================================================================
# 2. multi-session recall
# ======================================================================================


def phrase_in(phrase: str, texts: Sequence[str]) -> bool:
    """True when `phrase` occurs in one of `texts`, ignoring case and runs of whitespace."""
    needle = " ".join(phrase.lower().split())
    return any(needle in " ".join(t.lower().split()) for t in texts)


@dataclass(frozen=True)
class RecallProbe:
    """One question asked after one session, answered by both readers."""

    question_id: str
    asked_after: str
    distance: int  # sessions between the one that states the answer and the one just finished
    baseline_correct: bool
    paging_correct: bool
    paging_source: str | None  # "main context", "conversation_search", "archival_memory_search" or None

    def __repr__(self) -> str:
        return (f"RecallProbe({self.question_id} after {self.asked_after}, distance {self.distance}: "
                f"baseline {self.baseline_correct}, paging {self.paging_correct} via {self.paging_source})")


@dataclass
class MultiSessionResult:
    probes: list[RecallProbe]
    settings: dict = field(default_factory=dict)
    archived: int = 0

    def table(self) -> list[dict]:
        """One row per session distance: probes and the accuracy of each reader."""
        by_distance: dict[int, list[RecallProbe]] = defaultdict(list)
        for p in self.probes:
            by_distance[p.distance].append(p)
        rows = []
        for d in sorted(by_distance):
            ps = by_distance[d]
            rows.append({"distance": d, "probes": len(ps),
                         "baseline_accuracy": sum(p.baseline_correct for p in ps) / len(ps),
                         "paging_accuracy": sum(p.paging_correct for p in ps) / len(ps)})
        return rows

    def sources(self) -> dict[str, int]:
        """How many correct paging answers came from each place."""
        counts: dict[str, int] = defaultdict(int)
        for p in self.probes:
            if p.paging_correct and p.paging_source is not None:
                counts[p.paging_source] += 1
        return dict(sorted(counts.items()))

    def format_table(self) -> str:
        lines = ["| session distance | probes | summary only | paging agent |", "|---|---|---|---|"]
        for r in self.table():
            lines.append(f"| {r['distance']} | {r['probes']} | {r['baseline_accuracy']:.2f} | "
                         f"{r['paging_accuracy']:.2f} |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        n = max(len(self.probes), 1)
        base = sum(p.baseline_correct for p in self.probes) / n
        paging = sum(p.paging_correct for p in self.probes) / n
        return (f"MultiSessionResult({len(self.probes)} probes; summary only {base:.2f}, "
                f"paging {paging:.2f})")


def _search_texts(tool: str, query: str, memory: MemorySystem, pages: int) -> list[str]:
    texts: list[str] = []
    for page in range(pages):
        result = dispatch(tool, {"query": query, "page": page}, memory)
        if not result.ok or not result.records:
            break
        texts += [getattr(item, "content", "") or getattr(item, "text", "") for item in result.records]
    return texts


def _is_statement(text: str) -> bool:
    return not text.rstrip().endswith("?")


def run_multisession(turns=None, questions=None, window: int = 1024, summary_tokens: int = 192,
                     summarizer=None, pages: int = 1, archive_on_pressure: bool = True) -> MultiSessionResult:
    """Play the conversation, asking every due question after every session.

    A question about session s asked after session t has distance t - s. The
    summary-only baseline is right when the key phrase is in its prompt (the
    messages in the window or the summary): generous, since a reader that has
    the words in view is assumed to use them. The paging agent sees the same
    prompt plus `pages` page(s) of `conversation_search` and of
    `archival_memory_search` for the question, and is right when the key phrase
    is in any of it. On each memory-pressure warning the agent archives the
    user's statements still only in the window (MemGPT's "save what matters").
    The questions are probes: they are not appended to the conversation.

    `turns` / `questions` default to the bundled `conversation` and
    `conversation_questions`; the summarizer defaults to ExtractiveSummarizer.
    """
    turns = list(datasets.load("conversation") if turns is None else turns)
    questions = list(datasets.load("conversation_questions") if questions is None else questions)
    if not turns:
        raise ValueError("turns is empty; pass the conversation to play (datasets.load('conversation'))")
    check_positive_int(pages, "pages")
    sessions: list[str] = []
    for t in turns:
        if t.session_id not in sessions:
            sessions.append(t.session_id)
    unknown = sorted({q.session_id for q in questions} - set(sessions))
    if unknown:
        raise ValueError(f"questions refer to sessions {unknown} that are not in the conversation {sessions}")
    context = MainContext(window=window, summarizer=summarizer or ExtractiveSummarizer(),
                          summary_tokens=summary_tokens)
    memory = MemorySystem(context=context, archival=ArchivalStore(page_size=5))
    archived_ids: set[int] = set()
    probes: list[RecallProbe] = []
    position = {s: i for i, s in enumerate(sessions)}
    for index, session in enumerate(sessions):
        memory.session_id = session
        for turn in (t for t in turns if t.session_id == session):
            events = memory.append_message(turn.to_message())
            if archive_on_pressure and any(e.kind == "pressure" for e in events):
                for m in context.messages:
                    if m.role == "user" and m.id not in archived_ids and _is_statement(m.content):
                        archived_ids.add(m.id)
                        memory.turn_id = m.id
                        dispatch("archival_memory_insert", {"content": m.content}, memory)
        prompt = [m.content for m in context.messages] + [context.summary]
        for q in questions:
            if position[q.session_id] > index:
                continue  # not said yet
            baseline = phrase_in(q.key_phrase, prompt)
            source = "main context" if baseline else None
            if source is None:
                for tool in ("conversation_search", "archival_memory_search"):
                    if phrase_in(q.key_phrase, _search_texts(tool, q.question, memory, pages)):
                        source = tool
                        break
            probes.append(RecallProbe(q.id, session, index - position[q.session_id], baseline,
                                      source is not None, source))
    settings = {"window": window, "summary_tokens": summary_tokens,
                "summarizer": repr(context.summarizer), "pages": pages,
                "archive_on_pressure": archive_on_pressure}
    return MultiSessionResult(probes, settings, archived=len(memory.archival))
