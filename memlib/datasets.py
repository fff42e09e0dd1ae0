"""Load the course datasets bundled in `memlib.data` as typed, immutable records.

`load(name)` reads one dataset through `importlib.resources`, so it works the same
from a checkout and from an installed wheel (Colab). `names()` lists what exists;
`data/README.md` documents every field. Quizzes take a notebook number:
`load("quiz", notebook="03")` or the shortcut `load_quiz("03")`.

Deliberately not here: generating or measuring the data (see `data/generate.py`
and `memlib.evaluation`), or building stores from it (see `memlib.archival`).

Example:
    >>> from memlib import datasets
    >>> facts = datasets.load("facts")
    >>> facts[0].id, facts[0].session_id
    ('fact-0001', 's01')
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from typing import Any

from memlib._util import shorten
from memlib.archival import ArchivalRecord
from memlib.messages import Message
from memlib.data_files import read_text
from memlib.quiz import QUIZ_NOTEBOOKS, Quiz
from memlib.quiz import load_quiz as _load_quiz

__all__ = [
    "FactLink", "Query", "Turn", "ConversationQuestion", "PoisonNote",
    "Quiz", "CoreMemoryExamples", "DeciderScenario",
    "QUERY_KINDS", "INDEPENDENT_QUERY_KINDS", "HARD_NEGATIVE_CATEGORIES",
    "INJECTION_FAMILIES", "BENIGN_KINDS", "CARRIERS", "ZH_LANGS", "QUIZ_NOTEBOOKS",
    "UnknownDatasetError", "names", "load", "load_quiz", "read_text",
]

QUERY_KINDS = ("paraphrase", "morphology", "distractor", "lexical")
#: Kinds of the independent questions (a second author's; "colloquial" is chat-style typing).
INDEPENDENT_QUERY_KINDS = ("paraphrase", "morphology", "lexical", "colloquial")
#: The injection families of ../shared/facts/injection-taxonomy.md, as the poisoning splits label them.
INJECTION_FAMILIES = (
    "output_task", "code_injection", "override", "prompt_extraction", "persona_hijack",
    "fake_authority", "goal_hijack", "exfiltration", "concealment", "memory_edit",
)
#: Benign kinds of the poisoning splits: the hard negatives plus ordinary notes.
BENIGN_KINDS = (
    "ordinary", "imperative_reminder", "howto", "security_talk", "quoted_speech",
    "persona_fact", "technical_text", "unicode_text", "ordinary_link",
)
#: How a note reached memory in the poisoning splits (the wrapper around its payload).
CARRIERS = ("plain", "email", "web_page", "chat_turn", "code_comment", "table_row")
#: Languages of the Chinese split: Simplified, Traditional, Chinese-English code-switching, Chinese with code.
ZH_LANGS = ("zh-Hans", "zh-Hant", "zh-en", "zh-code")
#: Benign notes in these kinds look suspicious to a naive filter on purpose.
HARD_NEGATIVE_CATEGORIES = BENIGN_KINDS[1:]


def _short(text: str, n: int = 50) -> str:
    return shorten(text, n)


@dataclass(frozen=True)
class FactLink:
    """A relation between two facts: `fact_id` supersedes or near-duplicates `other_id`."""

    kind: str  # "supersedes" | "near_duplicate"
    fact_id: str
    other_id: str

    def __repr__(self) -> str:
        return f"FactLink({self.fact_id} {self.kind} {self.other_id})"


@dataclass(frozen=True)
class Query:
    """A question over the facts with its relevance judgements."""

    id: str
    question: str
    kind: str
    answer: str
    relevant_ids: tuple[str, ...]
    distractor_ids: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Query({self.id} [{self.kind}] {_short(self.question)!r} -> {list(self.relevant_ids)})"


@dataclass(frozen=True)
class Turn:
    """One message of the multi-session conversation; `facts` are the key phrases it states."""

    session_id: str
    turn_id: int
    role: str
    timestamp: datetime
    content: str
    facts: tuple[str, ...] = ()

    def to_message(self) -> Message:
        """The turn as a `memlib.messages.Message` (id = turn_id), ready for MainContext."""
        return Message(role=self.role, content=self.content, id=self.turn_id,
                       timestamp=self.timestamp, session_id=self.session_id)

    def __repr__(self) -> str:
        return f"Turn({self.session_id}/{self.turn_id} {self.role}: {_short(self.content)!r})"


@dataclass(frozen=True)
class ConversationQuestion:
    """A question about the conversation whose answer sits only in its early sessions."""

    id: str
    question: str
    answer: str
    key_phrase: str
    gold_turn_ids: tuple[int, ...]
    session_id: str

    def __repr__(self) -> str:
        return f"ConversationQuestion({self.id} {self.question!r} -> {self.answer!r} @ {list(self.gold_turn_ids)})"


@dataclass(frozen=True)
class PoisonNote:
    """A memory note labelled `injection` or `benign`, with its technique or benign kind."""

    id: str
    text: str
    label: str
    category: str
    carrier: str = "plain"  # how the note arrived: one of CARRIERS
    lang: str | None = None  # where a split records it (the Chinese one: one of ZH_LANGS), else None

    @property
    def is_injection(self) -> bool:
        return self.label == "injection"

    def __repr__(self) -> str:
        # ascii() so hidden characters show up as escapes in a notebook
        return f"PoisonNote({self.id} {self.label}/{self.category}: {ascii(_short(self.text, 60))})"




@dataclass(frozen=True)
class CoreMemoryExamples:
    """The core-memory files: flat legacy dict, JSON Schema, valid and invalid typed examples.

    `valid` and `invalid` map the example name (file name without `valid_` /
    `invalid_` and `.json`) to the parsed JSON document. The invalid names say
    what is wrong (e.g. `over_limit`, `missing_label`).
    """

    legacy: dict[str, Any]
    schema: dict[str, Any]
    valid: dict[str, Any]
    invalid: dict[str, Any]

    def __repr__(self) -> str:
        return (f"CoreMemoryExamples(legacy={sorted(self.legacy)}, valid={sorted(self.valid)}, "
                f"invalid={sorted(self.invalid)})")


@dataclass(frozen=True)
class DeciderScenario:
    """One behaviour notebook 05's decider check plays: turns, then a question (see data/README.md).

    `ask` is "same_session" or "next_session" (a fresh context and history:
    only core and archival memory carry over). `answer` is None when nothing
    said answers the question.
    """

    id: str
    kind: str
    purpose: str
    window: int
    turns: tuple[str, ...]
    question: str
    answer: str | None
    ask: str

    def __repr__(self) -> str:
        return f"DeciderScenario({self.id}: {len(self.turns)} turns, then {self.question!r} -> {self.answer!r})"


class UnknownDatasetError(KeyError):
    """`load` was given a name that is not in `names()`."""

    def __str__(self) -> str:  # KeyError would show the repr, newlines escaped
        return str(self.args[0])


# -- reading ------------------------------------------------------------------

def _jsonl(filename: str) -> list[dict]:
    rows = []
    for n, line in enumerate(read_text(filename).splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{filename} line {n} is not valid JSON: {exc}") from exc
    return rows


def _fact_from_row(row: dict) -> ArchivalRecord:
    return ArchivalRecord(
        id=row["id"], text=row["text"], tags=tuple(row["tags"]), session_id=row["session_id"],
        turn_id=row["turn_id"], source_url=row["source_url"],
        created_at=datetime.fromisoformat(row["created_at"]), trust=row["trust"],
    )


def _load_facts() -> tuple:
    return tuple(_fact_from_row(r) for r in _jsonl("facts.jsonl"))


def _load_fact_links(name: str = "facts.jsonl") -> tuple:
    links = []
    for r in _jsonl(name):
        if r.get("supersedes"):
            links.append(FactLink("supersedes", r["id"], r["supersedes"]))
        if r.get("duplicate_of"):
            links.append(FactLink("near_duplicate", r["id"], r["duplicate_of"]))
    return tuple(links)


def _load_queries(name: str = "queries.jsonl") -> tuple:
    return tuple(
        Query(r["id"], r["question"], r["kind"], r["answer"],
              tuple(r["relevant_ids"]), tuple(r.get("distractor_ids", ())))
        for r in _jsonl(name)
    )


def _load_queries_independent() -> tuple:
    return _load_queries("queries_independent.jsonl")


def _load_conversation() -> tuple:
    return tuple(
        Turn(r["session_id"], r["turn_id"], r["role"], datetime.fromisoformat(r["timestamp"]),
             r["content"], tuple(r.get("facts", ())))
        for r in _jsonl("conversation.jsonl")
    )


def _load_conversation_questions() -> tuple:
    return tuple(
        ConversationQuestion(r["id"], r["question"], r["answer"], r["key_phrase"],
                             tuple(r["gold_turn_ids"]), r["session_id"])
        for r in _jsonl("conversation_questions.jsonl")
    )


def _load_poisoning(name: str = "poisoning.jsonl") -> tuple:
    return tuple(PoisonNote(r["id"], r["text"], r["label"], r["category"], r["carrier"], r.get("lang"))
                 for r in _jsonl(name))


def _load_poisoning_heldout() -> tuple:
    return _load_poisoning("poisoning_heldout.jsonl")


def _load_poisoning_independent() -> tuple:
    return _load_poisoning("poisoning_independent.jsonl")


def _load_poisoning_third_author() -> tuple:
    return _load_poisoning("poisoning_third_author.jsonl")


def _load_poisoning_zh_dev() -> tuple:
    return _load_poisoning("poisoning_zh_dev.jsonl")


def _load_poisoning_fourth_author() -> tuple:
    return _load_poisoning("poisoning_fourth_author.jsonl")


def _load_poisoning_chinese() -> tuple:
    return _load_poisoning("poisoning_chinese.jsonl")


def _load_poisoning_codeswitch() -> tuple:
    return _load_poisoning("poisoning_codeswitch.jsonl")


def _load_consolidation_heldout() -> tuple:
    return tuple(_fact_from_row(r) for r in _jsonl("consolidation_heldout.jsonl"))


def _load_consolidation_heldout_links() -> tuple:
    return _load_fact_links("consolidation_heldout.jsonl")


def _load_consolidation_heldout_ends() -> dict:
    return {r["id"]: datetime.fromisoformat(r["ends_at"]) for r in _jsonl("consolidation_heldout.jsonl")
            if r.get("ends_at")}


def _load_decider_scenarios() -> tuple:
    raw = json.loads(read_text("decider_scenarios.json"))
    return tuple(DeciderScenario(s["id"], s["kind"], s["purpose"], s["window"], tuple(s["turns"]),
                                 s["question"], s["answer"], s["ask"]) for s in raw["scenarios"])


def _load_core_memory() -> CoreMemoryExamples:
    folder = resources.files("memlib.data").joinpath("core_memory")
    valid, invalid = {}, {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        name = entry.name
        if name.startswith("valid_") and name.endswith(".json"):
            valid[name[len("valid_"):-5]] = json.loads(entry.read_text(encoding="utf-8"))
        elif name.startswith("invalid_") and name.endswith(".json"):
            invalid[name[len("invalid_"):-5]] = json.loads(entry.read_text(encoding="utf-8"))
    return CoreMemoryExamples(
        legacy=json.loads(read_text("core_memory/legacy_flat.json")),
        schema=json.loads(read_text("core_memory/schema.json")),
        valid=valid, invalid=invalid,
    )


_LOADERS = {
    "facts": _load_facts,
    "fact_links": _load_fact_links,
    "queries": _load_queries,
    "queries_independent": _load_queries_independent,
    "conversation": _load_conversation,
    "conversation_questions": _load_conversation_questions,
    "poisoning": _load_poisoning,
    "poisoning_heldout": _load_poisoning_heldout,
    "poisoning_independent": _load_poisoning_independent,
    "poisoning_third_author": _load_poisoning_third_author,
    "poisoning_zh_dev": _load_poisoning_zh_dev,
    "poisoning_fourth_author": _load_poisoning_fourth_author,
    "poisoning_chinese": _load_poisoning_chinese,
    "poisoning_codeswitch": _load_poisoning_codeswitch,
    "core_memory": _load_core_memory,
    "consolidation_heldout": _load_consolidation_heldout,
    "consolidation_heldout_links": _load_consolidation_heldout_links,
    "consolidation_heldout_ends": _load_consolidation_heldout_ends,
    "decider_scenarios": _load_decider_scenarios,
}
_DESCRIPTIONS = {
    "facts": "list[ArchivalRecord]: archival facts about Ines with provenance",
    "fact_links": "list[FactLink]: which facts supersede or near-duplicate which",
    "queries": "list[Query]: questions over facts with relevant fact ids",
    "queries_independent": "list[Query]: questions over facts by a second author who never saw the scorers "
                           "or `queries`; every fact of an answer's chain, old or new, is relevant",
    "conversation": "list[Turn]: one multi-session chat",
    "conversation_questions": "list[ConversationQuestion]: questions answered only in early sessions",
    "poisoning": "list[PoisonNote]: the development poisoning split: injected and benign memory notes to tune a guard on",
    "poisoning_heldout": "list[PoisonNote]: the held-out poisoning split, for measuring a guard, never for tuning it",
    "poisoning_independent": "list[PoisonNote]: poisoning notes by a second author who never saw the guard or the "
                             "other splits, for measuring a guard, never for tuning it",
    "poisoning_third_author": "list[PoisonNote]: poisoning notes by a third author: the rules never saw them, the "
                              "two-author classifier trains on them",
    "poisoning_zh_dev": "list[PoisonNote]: the Chinese development poisoning split (Simplified, Traditional, "
                        "code-switched, with code; `lang` set), written by the Chinese rules' author to tune them on",
    "poisoning_fourth_author": "list[PoisonNote]: English poisoning notes by a fourth author who never saw the "
                               "guard or the other splits, for measuring a guard, never for tuning it",
    "poisoning_chinese": "list[PoisonNote]: Chinese poisoning notes (Simplified and Traditional, `lang` set) by a fifth "
                         "author who never saw the guard or the other splits, for measuring, never for tuning",
    "poisoning_codeswitch": "list[PoisonNote]: code-switched poisoning notes (Chinese with English or with code, `lang` "
                            "set) by a sixth author who never saw the guard or the other splits, for measuring only",
    "core_memory": "CoreMemoryExamples: legacy flat dict, JSON Schema, valid/invalid examples",
    "consolidation_heldout": "list[ArchivalRecord]: the held-out consolidation world (Kofi), for judging a pass, never for tuning it",
    "consolidation_heldout_links": "list[FactLink]: the held-out world's supersede and near-duplicate links",
    "consolidation_heldout_ends": "dict[str, datetime]: held-out facts that say on which day they stop holding",
    "decider_scenarios": "list[DeciderScenario]: behaviours notebook 05's decider check plays",
    "quiz": "Quiz: the self-check quiz of one notebook (needs notebook=, one of QUIZ_NOTEBOOKS)",
}


@functools.lru_cache(maxsize=None)
def _cached(name: str):
    return _LOADERS[name]()


def names() -> tuple[str, ...]:
    """The dataset names `load` accepts."""
    return tuple(_DESCRIPTIONS)


def load(name: str, *, notebook: str | int | None = None):
    """Load dataset `name` as typed records (a new list each call; the records are frozen).

    `name` is one of `names()`. For "quiz", pass `notebook` (one of `QUIZ_NOTEBOOKS`, as "03" or 3).

    Example:
        >>> len(load("quiz", notebook="03").questions) >= 5
        True
    """
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a str, got {type(name).__name__}; one of {', '.join(names())}")
    if name == "quiz":
        if notebook is None:
            raise ValueError("load('quiz') needs notebook=, e.g. load('quiz', notebook='03')")
        return _load_quiz(notebook)
    if name not in _LOADERS:
        listing = "\n".join(f"  {n}: {d}" for n, d in _DESCRIPTIONS.items())
        raise UnknownDatasetError(f"unknown dataset {name!r}; valid names are:\n{listing}")
    if notebook is not None:
        raise ValueError(f"notebook= only applies to load('quiz'), not to {name!r}")
    data = _cached(name)
    # Records are frozen, but the containers are not: hand out copies so a
    # caller who appends or edits cannot change what the next caller sees.
    return list(data) if isinstance(data, tuple) else copy.deepcopy(data)


def load_quiz(notebook: str | int) -> Quiz:
    """Shortcut for load("quiz", notebook=notebook)."""
    return load("quiz", notebook=notebook)
