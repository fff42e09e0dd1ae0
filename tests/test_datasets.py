"""Tests for the bundled datasets and memlib.datasets: counts, schemas, ids, thresholds."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from importlib import resources

import jsonschema
import pytest

from memlib import datasets
from memlib.archival import TRUST_LEVELS, ArchivalRecord
from memlib.retrieval import ANALYZERS

DATA = resources.files("memlib.data")


def jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in DATA.joinpath(name).read_text(encoding="utf-8").splitlines() if line.strip()]


# -- README counts ---------------------------------------------------------------

def readme_counts() -> dict[str, int]:
    text = DATA.joinpath("README.md").read_text(encoding="utf-8")
    block = text.split("<!-- counts:start -->")[1].split("<!-- counts:end -->")[0]
    counts = {}
    for line in block.splitlines():
        m = re.fullmatch(r"\|\s*(\w+)\s*\|\s*[^|]+\|\s*(\d+)\s*\|", line.strip())
        if m:
            counts[m.group(1)] = int(m.group(2))
    return counts


def actual_counts() -> dict[str, int]:
    core = [e for e in DATA.joinpath("core_memory").iterdir() if e.name.endswith(".json")]
    quizzes = [e for e in DATA.joinpath("quizzes").iterdir() if e.name.endswith(".json")]
    return {
        "facts": len(jsonl("facts.jsonl")),
        "queries": len(jsonl("queries.jsonl")),
        "queries_independent": len(jsonl("queries_independent.jsonl")),
        "conversation": len(jsonl("conversation.jsonl")),
        "conversation_questions": len(jsonl("conversation_questions.jsonl")),
        "poisoning": len(jsonl("poisoning.jsonl")),
        "poisoning_heldout": len(jsonl("poisoning_heldout.jsonl")),
        "poisoning_independent": len(jsonl("poisoning_independent.jsonl")),
        "poisoning_third_author": len(jsonl("poisoning_third_author.jsonl")),
        "poisoning_zh_dev": len(jsonl("poisoning_zh_dev.jsonl")),
        "poisoning_fourth_author": len(jsonl("poisoning_fourth_author.jsonl")),
        "poisoning_chinese": len(jsonl("poisoning_chinese.jsonl")),
        "poisoning_codeswitch": len(jsonl("poisoning_codeswitch.jsonl")),
        "consolidation_heldout": len(jsonl("consolidation_heldout.jsonl")),
        "core_memory": len(core),
        "decider_scenarios": len(json.loads(DATA.joinpath("decider_scenarios.json").read_text("utf-8"))["scenarios"]),
        "quizzes": len(quizzes),
    }


def test_readme_counts_match_files():
    assert readme_counts() == actual_counts()


def test_readme_detail_numbers_match_files():
    text = DATA.joinpath("README.md").read_text(encoding="utf-8")
    queries = jsonl("queries.jsonl")
    kinds = Counter(q["kind"] for q in queries)
    notes = jsonl("poisoning.jsonl")
    benign = [n for n in notes if n["label"] == "benign"]
    hard = [n for n in benign if n["category"] in datasets.HARD_NEGATIVE_CATEGORIES]
    facts = jsonl("facts.jsonl")
    assert f"{kinds['paraphrase']} paraphrase ({round(100 * kinds['paraphrase'] / len(queries))} %)" in text
    assert f"{len(notes) - len(benign)} injections and {len(benign)} benign" in text
    assert f"{len(hard)} of them hard" in text
    independent = Counter(n["label"] for n in jsonl("poisoning_independent.jsonl"))
    third = Counter(n["label"] for n in jsonl("poisoning_third_author.jsonl"))
    assert (f"independent\nsplit has {independent['injection']} injections and {independent['benign']} benign "
            f"notes, the third author's {third['injection']} and {third['benign']}.") in text
    assert f"{sum(1 for f in facts if f['supersedes'])} supersede" in text
    assert f"{sum(1 for f in facts if f['duplicate_of'])} are\nnear-duplicates" in text
    turns = jsonl("conversation.jsonl")
    roles = Counter(t["role"] for t in turns)
    sessions = len({t["session_id"] for t in turns})
    assert f"{sessions} sessions ({roles['user']} user and {roles['assistant']} assistant" in text
    assert f"facts span {len({f['session_id'] for f in facts})} sessions" in text


def test_minimum_sizes():
    c = actual_counts()
    assert c["facts"] >= 300 and c["queries"] >= 100 and c["conversation"] >= 400
    assert c["conversation_questions"] >= 40 and c["poisoning"] >= 150 and c["quizzes"] == len(datasets.QUIZ_NOTEBOOKS)


# -- facts -------------------------------------------------------------------------

FACT_FIELDS = {"id", "text", "tags", "session_id", "turn_id", "source_url", "created_at", "trust",
               "supersedes", "duplicate_of"}


def test_fact_records_have_exact_schema():
    facts = jsonl("facts.jsonl")
    for f in facts:
        assert set(f) == FACT_FIELDS, f["id"]
        assert isinstance(f["text"], str) and f["text"].strip()
        assert isinstance(f["tags"], list) and f["tags"] and all(isinstance(t, str) for t in f["tags"])
        assert re.fullmatch(r"s\d\d", f["session_id"])
        assert isinstance(f["turn_id"], int) and f["turn_id"] >= 1
        assert f["source_url"] is None or f["source_url"].startswith("https://")
        datetime.fromisoformat(f["created_at"])
        assert f["trust"] in TRUST_LEVELS
    ids = [f["id"] for f in facts]
    assert len(ids) == len(set(ids))
    assert len({f["text"] for f in facts}) == len(facts)
    assert len({f["session_id"] for f in facts}) >= 20


def test_fact_links_point_backwards_in_time():
    facts = {f["id"]: f for f in jsonl("facts.jsonl")}
    links = [(f, f[k]) for f in facts.values() for k in ("supersedes", "duplicate_of") if f[k]]
    assert sum(1 for f in facts.values() if f["supersedes"]) >= 10
    assert sum(1 for f in facts.values() if f["duplicate_of"]) >= 10
    for f, other in links:
        assert other in facts, (f["id"], other)
        assert facts[other]["created_at"] < f["created_at"], (f["id"], other)


def test_facts_load_as_archival_records():
    facts = datasets.load("facts")
    assert all(isinstance(f, ArchivalRecord) for f in facts)
    assert facts[0].id == "fact-0001" and isinstance(facts[0].created_at, datetime)
    assert "fact-0001" in repr(facts[0])
    links = datasets.load("fact_links")
    assert {link.kind for link in links} == {"supersedes", "near_duplicate"}
    assert "supersedes" in repr(links[0]) or "near_duplicate" in repr(links[0])


# -- queries -----------------------------------------------------------------------

def test_queries_schema_and_relevance():
    facts = {f["id"]: f for f in jsonl("facts.jsonl")}
    stale = {f["supersedes"] for f in facts.values() if f["supersedes"]}
    queries = jsonl("queries.jsonl")
    assert len({q["id"] for q in queries}) == len(queries)
    assert len({q["question"] for q in queries}) == len(queries)
    for q in queries:
        assert set(q) == {"id", "question", "kind", "answer", "relevant_ids", "distractor_ids"}
        assert q["kind"] in datasets.QUERY_KINDS
        assert q["relevant_ids"], q["id"]
        assert all(r in facts for r in q["relevant_ids"] + q["distractor_ids"]), q["id"]
        assert not set(q["relevant_ids"]) & stale, f"{q['id']} marks a superseded fact relevant"
        assert not set(q["relevant_ids"]) & set(q["distractor_ids"])


def test_independent_queries_schema_and_relevance():
    facts = {f["id"] for f in jsonl("facts.jsonl")}
    queries = jsonl("queries_independent.jsonl")
    assert len(queries) >= 90
    assert len({q["id"] for q in queries}) == len(queries) == len({q["question"] for q in queries})
    for q in queries:
        assert set(q) == {"id", "question", "kind", "answer", "relevant_ids"}, q["id"]
        assert q["kind"] in datasets.INDEPENDENT_QUERY_KINDS, q["id"]
        assert q["relevant_ids"] and set(q["relevant_ids"]) <= facts, q["id"]
    # the second author's questions share no wording with the course's own
    assert not {q["question"] for q in queries} & {q["question"] for q in jsonl("queries.jsonl")}
    loaded = datasets.load("queries_independent")
    assert [q.id for q in loaded] == [q["id"] for q in queries] and loaded[0].distractor_ids == ()


def test_paraphrase_share_and_definition():
    queries = jsonl("queries.jsonl")
    paraphrases = [q for q in queries if q["kind"] == "paraphrase"]
    assert len(paraphrases) / len(queries) >= 0.40
    for q in paraphrases:
        # the key answer term does not appear in the question
        # one-letter tokens are possessive fragments ("master's"), not answer terms
        # compared as words (no stemming): q-045 asks about "depots" for an answer with "depot",
        # which the default stemmed analyzer does match
        words = ANALYZERS["unstemmed"]
        shared = {t for t in set(words(q["answer"])) & set(words(q["question"])) if len(t) > 1}
        assert not shared, f"{q['id']} shares {shared} with its answer"


def test_every_kind_is_represented():
    kinds = Counter(q["kind"] for q in jsonl("queries.jsonl"))
    assert kinds["morphology"] >= 10 and kinds["distractor"] >= 10 and kinds["lexical"] >= 10
    distractors = [q for q in jsonl("queries.jsonl") if q["kind"] == "distractor"]
    assert all(q["distractor_ids"] for q in distractors)


# -- conversation ------------------------------------------------------------------

def test_conversation_schema_and_order():
    turns = jsonl("conversation.jsonl")
    sessions = []
    for t in turns:
        assert set(t) == {"session_id", "turn_id", "role", "timestamp", "content", "facts"}
        assert t["role"] in ("user", "assistant")
        assert t["content"].strip()
        if t["session_id"] not in sessions:
            sessions.append(t["session_id"])
    assert len(sessions) >= 8 and sessions == sorted(sessions)
    ids = [t["turn_id"] for t in turns]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    stamps = [datetime.fromisoformat(t["timestamp"]) for t in turns]
    assert stamps == sorted(stamps)
    for t in turns:
        for phrase in t["facts"]:
            assert phrase.lower() in t["content"].lower(), (t["turn_id"], phrase)


def test_conversation_questions_gold_turns_are_early_only():
    turns = {t["turn_id"]: t for t in jsonl("conversation.jsonl")}
    sessions = sorted({t["session_id"] for t in turns.values()})
    early = set(sessions[:3])
    questions = jsonl("conversation_questions.jsonl")
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert q["gold_turn_ids"], q["id"]
        for tid in q["gold_turn_ids"]:
            assert tid in turns, (q["id"], tid)
            assert turns[tid]["session_id"] in early, (q["id"], tid)
            assert q["key_phrase"].lower() in turns[tid]["content"].lower()
        # and nowhere later in the chat
        later = [t for t in turns.values() if t["session_id"] not in early]
        assert not any(q["key_phrase"].lower() in t["content"].lower() for t in later), q["id"]
        assert q["answer"].strip()


def test_conversation_loads_as_turns_and_messages():
    turns = datasets.load("conversation")
    message = turns[0].to_message()
    assert message.role == turns[0].role and message.id == turns[0].turn_id
    assert message.session_id == turns[0].session_id
    assert "c01" in repr(turns[0])
    questions = datasets.load("conversation_questions")
    assert isinstance(questions[0].gold_turn_ids, tuple)


# -- poisoning ---------------------------------------------------------------------

def test_poisoning_schema_and_shares():
    notes = jsonl("poisoning.jsonl")
    assert len({n["id"] for n in notes}) == len(notes)
    assert len({n["text"] for n in notes}) == len(notes)
    for n in notes:
        assert set(n) == {"id", "text", "label", "category", "carrier"}
        assert n["carrier"] in datasets.CARRIERS
        if n["label"] == "injection":
            assert n["category"] in datasets.INJECTION_FAMILIES
        else:
            assert n["label"] == "benign" and n["category"] in datasets.BENIGN_KINDS
    families = Counter(n["category"] for n in notes if n["label"] == "injection")
    assert set(families) == set(datasets.INJECTION_FAMILIES)
    assert min(families.values()) >= 20
    benign = [n for n in notes if n["label"] == "benign"]
    assert set(n["category"] for n in benign) == set(datasets.BENIGN_KINDS)
    hard = [n for n in benign if n["category"] in datasets.HARD_NEGATIVE_CATEGORIES]
    assert len(hard) / len(benign) >= 0.40


def test_both_poisoning_splits_reach_the_corpus_target():
    """Issue 15's target: at least 600 injected and 600 benign notes over the two splits."""
    notes = jsonl("poisoning.jsonl") + jsonl("poisoning_heldout.jsonl")
    labels = Counter(n["label"] for n in notes)
    assert labels["injection"] >= 600 and labels["benign"] >= 600


@pytest.mark.parametrize("name", ["poisoning_heldout", "poisoning_independent", "poisoning_third_author"])
def test_measuring_poisoning_splits_cover_every_family_and_kind(name):
    notes = jsonl(f"{name}.jsonl")
    assert len({n["id"] for n in notes}) == len(notes) and len({n["text"] for n in notes}) == len(notes)
    for n in notes:
        assert set(n) == {"id", "text", "label", "category", "carrier"}
        assert n["carrier"] in datasets.CARRIERS
        kinds = datasets.INJECTION_FAMILIES if n["label"] == "injection" else datasets.BENIGN_KINDS
        assert n["category"] in kinds, n["id"]
    families = Counter(n["category"] for n in notes if n["label"] == "injection")
    assert set(families) == set(datasets.INJECTION_FAMILIES) and min(families.values()) >= 20
    benign = Counter(n["category"] for n in notes if n["label"] == "benign")
    assert set(benign) == set(datasets.BENIGN_KINDS) and min(benign.values()) >= 20
    # benign hard negatives in about the same number as injections
    assert 0.85 <= sum(benign.values()) / sum(families.values()) <= 1.15
    assert set(Counter(n["carrier"] for n in notes)) == set(datasets.CARRIERS)
    # no note of another split reappears in this one
    for other in {"poisoning", "poisoning_heldout", "poisoning_independent", "poisoning_third_author"} - {name}:
        assert not {n["text"] for n in notes} & {n["text"] for n in jsonl(f"{other}.jsonl")}
    loaded = datasets.load(name)
    assert len(loaded) == len(notes) and loaded[0].carrier == notes[0]["carrier"]


NEW_AUTHORS = {"poisoning_fourth_author": ("fa", {"en"}), "poisoning_chinese": ("zh", {"zh-Hans", "zh-Hant"}),
               "poisoning_codeswitch": ("cs", {"zh-en", "zh-code"})}


@pytest.mark.parametrize("name", sorted(NEW_AUTHORS))
def test_new_authors_splits_cover_every_family_kind_and_their_languages(name):
    prefix, langs = NEW_AUTHORS[name]
    notes = jsonl(f"{name}.jsonl")
    assert len({n["id"] for n in notes}) == len(notes) and len({n["text"] for n in notes}) == len(notes)
    for n in notes:
        assert set(n) == {"id", "text", "label", "category", "carrier", "lang"}
        assert re.fullmatch(prefix + r"-\d{4}", n["id"]) and n["carrier"] in datasets.CARRIERS
        assert n["lang"] in langs, n["id"]
        kinds = datasets.INJECTION_FAMILIES if n["label"] == "injection" else datasets.BENIGN_KINDS
        assert n["category"] in kinds, n["id"]
    families = Counter(n["category"] for n in notes if n["label"] == "injection")
    assert set(families) == set(datasets.INJECTION_FAMILIES) and min(families.values()) >= 12
    benign = Counter(n["category"] for n in notes if n["label"] == "benign")
    assert set(benign) == set(datasets.BENIGN_KINDS) and min(benign.values()) >= 12
    assert {n["lang"] for n in notes} == langs
    others = set(NEW_AUTHORS) - {name} | {"poisoning", "poisoning_heldout", "poisoning_independent",
                                          "poisoning_third_author", "poisoning_zh_dev"}
    for other in others:
        assert not {n["text"] for n in notes} & {n["text"] for n in jsonl(f"{other}.jsonl")}
    loaded = datasets.load(name)
    assert len(loaded) == len(notes) and {n.lang for n in loaded} == langs
    text = DATA.joinpath("README.md").read_text(encoding="utf-8")
    labels = Counter(n["label"] for n in notes)
    entry = text.split(f"- `{name}.jsonl`")[1].split("\n- ")[0]
    assert f"{labels['injection']} injections and {labels['benign']} benign notes" in " ".join(entry.split())


def test_chinese_development_split_schema_languages_and_readme_figures():
    notes = jsonl("poisoning_zh_dev.jsonl")
    assert len({n["id"] for n in notes}) == len(notes) and len({n["text"] for n in notes}) == len(notes)
    for n in notes:
        assert set(n) == {"id", "text", "label", "category", "carrier", "lang"}
        assert re.fullmatch(r"zd-\d{4}", n["id"]) and n["carrier"] in datasets.CARRIERS
        assert n["lang"] in datasets.ZH_LANGS
        kinds = datasets.INJECTION_FAMILIES if n["label"] == "injection" else datasets.BENIGN_KINDS
        assert n["category"] in kinds, n["id"]
        assert sum("\u4e00" <= c <= "\u9fff" for c in n["text"]) >= 2, n["id"]  # every note has Chinese in it
    families = Counter(n["category"] for n in notes if n["label"] == "injection")
    assert set(families) == set(datasets.INJECTION_FAMILIES) and min(families.values()) >= 10
    benign = Counter(n["category"] for n in notes if n["label"] == "benign")
    assert set(benign) == set(datasets.BENIGN_KINDS) and min(benign.values()) >= 10
    assert set(Counter(n["carrier"] for n in notes)) == set(datasets.CARRIERS)
    langs = Counter(n["lang"] for n in notes)
    assert set(langs) == set(datasets.ZH_LANGS)
    text = DATA.joinpath("README.md").read_text(encoding="utf-8")
    labels = Counter(n["label"] for n in notes)
    assert f"It holds {labels['injection']} injections and {labels['benign']} benign notes" in text
    assert (f"by language {langs['zh-Hans']} zh-Hans, {langs['zh-Hant']} zh-Hant,\n{langs['zh-en']} zh-en and "
            f"{langs['zh-code']} zh-code") in text
    # no note of another split reappears in it (compared by the test, not read by anyone)
    for other in ("poisoning", "poisoning_heldout", "poisoning_independent", "poisoning_third_author"):
        assert not {n["text"] for n in notes} & {n["text"] for n in jsonl(f"{other}.jsonl")}


def test_poisoning_notes_carry_their_language_when_the_split_records_it():
    loaded = datasets.load("poisoning_zh_dev")
    assert len(loaded) == len(jsonl("poisoning_zh_dev.jsonl"))
    assert {n.lang for n in loaded} == set(datasets.ZH_LANGS)
    assert all(n.lang is None for n in datasets.load("poisoning"))  # the other splits do not record it
    assert datasets.PoisonNote("x", "t", "benign", "ordinary").lang is None  # positional use unchanged


def test_concealment_notes_hide_something_and_show_it_in_repr():
    concealed = [n for n in datasets.load("poisoning") if n.category == "concealment"]
    # all but the few split-sentence ones hide characters, mark-up or an encoding
    hidden = [n for n in concealed if any(ord(c) > 0x7F for c in n.text)
              or any(w in n.text.lower() for w in ("base64", "hex", "rot13", "reverse", "backwards", "decode", "encoded", "<", "\\u"))]
    assert len(hidden) >= 0.9 * len(concealed)
    assert "\\u" in repr(next(n for n in datasets.load("poisoning")
                                if n.category == "concealment" and any(ord(c) > 0xFFFF for c in n.text)))


# -- core memory -------------------------------------------------------------------

def test_core_memory_examples_against_schema_and_memlib():
    from memlib.core_memory import CoreMemory, CoreMemoryError

    ex = datasets.load("core_memory")
    jsonschema.Draft202012Validator.check_schema(ex.schema)
    validator = jsonschema.Draft202012Validator(ex.schema)
    assert set(ex.legacy) == {"persona", "human"} and all(isinstance(v, str) for v in ex.legacy.values())
    legacy = CoreMemory.from_dict(ex.legacy)
    assert set(legacy.labels) == {"persona", "human"}
    assert len(ex.valid) >= 2 and len(ex.invalid) >= 4
    for name, doc in ex.valid.items():
        validator.validate(doc)
        CoreMemory.from_dict(doc)
    schema_catches = {"over_limit", "missing_label", "wrong_type", "flat_in_typed_file"}
    code_catches = {"duplicate_labels", "value_over_own_limit"}
    assert set(ex.invalid) == schema_catches | code_catches
    for name in schema_catches:
        assert list(validator.iter_errors(ex.invalid[name])), name
    for name in code_catches:
        assert not list(validator.iter_errors(ex.invalid[name])), name
        with pytest.raises(CoreMemoryError):
            CoreMemory.from_dict(ex.invalid[name])
    # Loading twice gives equal, independent copies.
    again = datasets.load("core_memory")
    again.valid.clear()
    assert datasets.load("core_memory").valid


# -- quizzes -----------------------------------------------------------------------

@pytest.mark.parametrize("notebook", datasets.QUIZ_NOTEBOOKS)
def test_quiz_files(notebook):
    raw = json.loads(DATA.joinpath("quizzes", f"{notebook}.json").read_text(encoding="utf-8"))
    assert raw["notebook"] == notebook and raw["title"].strip()
    assert len(raw["questions"]) >= 5
    for q in raw["questions"]:
        assert {"question", "options", "answer", "explanation"} <= set(q) <= {"question", "options", "answer",
                                                                            "explanation", "feedback", "sources"}
        # "sources": keys of memlib.sources the question's facts come from (tests/test_sources.py checks them)
        assert all(isinstance(k, str) for k in q.get("sources", []))
        assert len(q.get("feedback", q["options"])) == len(q["options"])
        assert len(q["options"]) >= 3 and len(set(q["options"])) == len(q["options"])
        assert isinstance(q["answer"], int) and 0 <= q["answer"] < len(q["options"])
        assert q["explanation"].strip()
    quiz = datasets.load_quiz(notebook)
    assert quiz == datasets.load("quiz", notebook=int(notebook))
    assert quiz.questions[0].correct in quiz.questions[0].options
    assert notebook in repr(quiz)


def test_quiz_answers_are_not_all_the_same_position():
    positions = Counter(q.answer for nb in datasets.QUIZ_NOTEBOOKS for q in datasets.load_quiz(nb).questions)
    assert max(positions.values()) / sum(positions.values()) < 0.5


# -- loader errors -----------------------------------------------------------------

def test_names_and_unknown_name():
    assert set(datasets.names()) >= {"facts", "queries", "conversation", "conversation_questions",
                                     "poisoning", "core_memory", "quiz"}
    with pytest.raises(KeyError) as info:
        datasets.load("fcts")
    message = str(info.value)
    assert "fcts" in message and "facts" in message and "poisoning" in message


def test_bad_loader_arguments():
    with pytest.raises(ValueError, match="notebook"):
        datasets.load("quiz")
    with pytest.raises(ValueError, match="00"):
        datasets.load_quiz("99")
    with pytest.raises(ValueError, match="only applies"):
        datasets.load("facts", notebook="03")
    with pytest.raises(TypeError):
        datasets.load(3)


def test_load_returns_fresh_lists():
    a = datasets.load("facts")
    a.clear()
    assert datasets.load("facts")


# -- the data discriminates ------------------------------------------------------------

def test_retrieval_discriminates():
    from memlib.evaluation import evaluate_retrieval

    overlap = evaluate_retrieval("overlap")
    lucene = evaluate_retrieval("bm25-lucene")
    okapi = evaluate_retrieval("bm25-okapi")
    assert lucene.recall_at_10 - overlap.recall_at_10 >= 0.10
    assert okapi.recall_at_10 - overlap.recall_at_10 >= 0.10
    for r in (overlap, lucene, okapi):
        assert r.recall_at_10 < 0.98, r


def test_keyword_guard_is_poor():
    from memlib.evaluation import evaluate_guard

    assert evaluate_guard().recall < 0.5


def test_generator_is_deterministic(tmp_path):
    """Re-running data/generate.py's assembly gives exactly the committed files."""
    import random

    from memlib.data import generate

    facts, key_to_id = generate.build_facts(random.Random(generate.SEED))
    stale = {r["supersedes"] for r in facts if r["supersedes"]}
    queries = generate.build_queries(key_to_id, stale)
    for r in facts:
        del r["key"]
    assert facts == jsonl("facts.jsonl")
    assert queries == jsonl("queries.jsonl")
    turns, questions = generate.world_conversation.build(random.Random(generate.SEED + 1))
    assert turns == jsonl("conversation.jsonl") and questions == jsonl("conversation_questions.jsonl")
    assert generate.world_poisoning.build(random.Random(generate.SEED + 2)) == jsonl("poisoning.jsonl")
    assert generate.world_poisoning_heldout.build(random.Random(generate.SEED + 15)) == jsonl("poisoning_heldout.jsonl")


def test_quiz_citation_example_matches_the_facts():
    """Quiz 06 shows a real citation; it must keep pointing at the penicillin fact."""
    quiz = datasets.load_quiz("06")
    options = [o for q in quiz.questions for o in q.options if o.startswith("[fact-")]
    assert options, "quiz 06 lost its citation example"
    m = re.fullmatch(r"\[(fact-\d{4})\] \((s\d\d)/(\d+), (\w+)\)", options[0])
    assert m, options[0]
    fact = {f.id: f for f in datasets.load("facts")}[m.group(1)]
    assert "penicillin" in fact.text
    assert (fact.session_id, fact.turn_id, fact.trust) == (m.group(2), int(m.group(3)), m.group(4))


def test_consolidation_heldout_is_what_its_world_writes(tmp_path):
    from memlib.data import world_consolidation_heldout as world

    world.write(tmp_path / "out.jsonl")
    assert (tmp_path / "out.jsonl").read_text("utf-8") == DATA.joinpath("consolidation_heldout.jsonl").read_text("utf-8")
    records = datasets.load("consolidation_heldout")
    links = datasets.load("consolidation_heldout_links")
    ends = datasets.load("consolidation_heldout_ends")
    ids = {r.id for r in records}
    assert len(records) == 78 and len(links) == 23 and len(ends) == 8
    assert all(l.fact_id in ids and l.other_id in ids for l in links)
    assert set(ends) <= ids
    # no held-out id or person leaks into the development facts
    assert not ids & {r.id for r in datasets.load("facts")}
