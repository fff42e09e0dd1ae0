"""The checks of 02, 04, 05 (page fault), 06, 07 and 08 speak Chinese in a Chinese notebook.

Each case feeds one answer (wrong ones, and one right one per exercise) through its check in
English and in Chinese and requires: the same verdict; a Chinese message (Han characters, no
English sentence outside code spans, identifiers and quoted data); and the English message
byte for byte as it was before the checks learnt Chinese (tests/fixtures/checks_en_messages.json,
written from the English-only checks). The wrong answers are the ones the English tests of
these checks use, so every message those tests reach is said in Chinese too.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from pathlib import Path
from typing import Any, Callable

import pytest

import test_checks_01_to_04 as t14
import test_checks_06_to_08 as t68
from memlib.agent import Agent, ToolCall
from memlib.citations import NO_SUPPORT, Citation, CitedAnswer, answer_from_store, cite
from memlib.course import lang
from memlib.course.checking import CheckFailed, strict_checks
from memlib.course.checks import (check_citation_contract, check_flush, check_guard, check_loop, check_page_fault,
                                  check_summarizer, check_typed_core_memory)
from memlib.guard import Verdict, scan
from memlib.summarize import NoSummarizer, TruncatingSummarizer

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "checks_en_messages.json"


@pytest.fixture(autouse=True)
def _english_by_default(monkeypatch):
    monkeypatch.delenv(lang.LANGUAGE_ENV, raising=False)
    monkeypatch.setattr(lang, "_chosen", {})


# -- the answers ------------------------------------------------------------------------------


def _top(question, store):
    return store.search(question, top_k=5)


def _citation_answers() -> dict[str, Callable]:
    def no_citations(question, store):
        hits = _top(question, store)
        return CitedAnswer(hits[0].record.text if hits else NO_SUPPORT)

    def made_up(question, store):
        hits = _top(question, store)
        return CitedAnswer(hits[0].record.text, (Citation(f"arc-{hits[0].rank + 1:06d}x"),))

    def bare(question, store):
        answer = answer_from_store(question, store)
        return CitedAnswer(answer.text, tuple(Citation(c.record_id) for c in answer.citations))

    def everything(question, store):
        hits = _top(question, store)
        return cite(hits[0].record.text, hits) if hits else CitedAnswer(NO_SUPPORT)

    def top_hit(question, store):
        hits = _top(question, store)
        return cite(hits[0].record.text, [hits[0]]) if hits else CitedAnswer(NO_SUPPORT)

    def silent(question, store):
        answer = answer_from_store(question, store)
        return answer if answer.citations else CitedAnswer("")

    def yes(question, store):
        answer = answer_from_store(question, store)
        return CitedAnswer("Yes, definitely.", answer.citations) if answer.citations else answer

    def wrong_fact(question, store):
        answer = answer_from_store(question, store)
        if question == "What is Ines allergic to?":
            return CitedAnswer("Ines found out after a reaction in 2019.", answer.citations)
        return answer

    return {"str": lambda q, s: "Penicillin.", "missing": no_citations, "fabricated": made_up,
            "invented": lambda q, s: CitedAnswer("Penicillin.", (Citation("arc-000042", "s01", 4),)),
            "no_provenance": bare, "every_hit": everything, "top_hit": top_hit, "silent": silent,
            "too_strict": lambda q, s: CitedAnswer(NO_SUPPORT), "unsupported": yes, "wrong_fact": wrong_fact,
            "not_a_function": "answer", "right": answer_from_store}


def _guard_answers() -> dict[str, Any]:
    from memlib import datasets
    from memlib.evaluation import KeywordGuard
    from memlib.guard import POISONED_PAGE

    def ascii_only(text):
        text.encode("ascii")
        return scan(text)

    rng = random.Random(0)
    coin = (Verdict(True, [], None), Verdict(False, ["coin"], "coin"))
    excuse = re.compile(r"\b(?:lesson|course|said)\b", re.I)
    injected = {n.text for n in datasets.load("poisoning") if n.is_injection} | {POISONED_PAGE}
    return {
        "bool": lambda text: "ignore" in text.lower(),
        "no_reasons": lambda text: Verdict(scan(text).trusted, [], None),
        "crashes": ascii_only,
        "coin": lambda text: coin[rng.random() < 0.5],
        "no_category": lambda text: Verdict(scan(text).trusted, scan(text).reasons, None),
        "reasons_when_trusted": lambda text: Verdict(scan(text).trusted, ["checked"], None),
        "excuse": lambda text: Verdict(True, [], None) if excuse.search(text) else scan(text),
        "keyword": t68._verdict_from_flag(KeywordGuard().flags),
        "lookup": t68._verdict_from_flag(lambda text: text in injected),
        "everything": t68._verdict_from_flag(lambda text: True),
        "misses_the_page": lambda text: Verdict(True, [], None) if text == POISONED_PAGE else scan(text),
        "not_a_function": "my_scan",
        "right": t68.notebook_solution_guard(),
    }


def _cases() -> dict[str, tuple[Callable, Any]]:
    """case id -> (check, answer)."""
    cases: dict[str, tuple[Callable, Any]] = {}
    for kind in ("strict", "loose", "no_units", "newest", "pops_queue", "always_summarize", "per_message",
                 "reversed", "generator", "no_previous", "target_budget", "returns_previous", "no_recall",
                 "recall_kept", "recall_reversed", "recall_twice", "kept_only"):
        cases[f"02-flush/{kind}"] = (check_flush, t14._flush_variant(kind))
    cases["02-flush/crashes"] = (check_flush, lambda queue, *rest: (queue[len(queue)], ""))
    cases["02-flush/not_a_function"] = (check_flush, "flush")
    cases["02-flush/right"] = (check_flush, t14._flush_variant("recall_first"))

    for name, answer in (("join_everything", t14.JoinEverything()), ("returns_list", t14.ReturnsList()),
                         ("ignores_previous", t14.IgnoresPrevious()), ("zero_budget", t14.ZeroBudgetLeaks()),
                         ("random", t14.Random()), ("crashes", t14.CrashesOnEmpty()),
                         ("pops", t14.PopsEvicted()), ("no_summary", NoSummarizer()),
                         ("truncating", TruncatingSummarizer()), ("assistant_first", t14.AssistantFirst()),
                         ("wastes_budget", t14.WastesBudget()), ("object", object()),
                         ("right", t14.StudentLike)):
        cases[f"02-summarizer/{name}"] = (check_summarizer, answer)

    for bug in ("forget_calls", "ask_after_none", "no_splice", "splice_twice", "stop_on_failure", "until_send",
                "no_cap", "silent_cap", "cap_unnamed", "no_heartbeat_event", "extra_event", "no_return"):
        cases[f"04-loop/{bug}"] = (check_loop, t14.loop_agent(**{bug: True}))
    cases["04-loop/cap_minus_1"] = (check_loop, t14.loop_agent(cap_shift=-1))
    cases["04-loop/inherits"] = (check_loop, type("Inherits", (Agent,), {}))
    cases["04-loop/crashes"] = (check_loop, type("Div", (Agent,), {"step": lambda s, t: 1 / 0}))
    cases["04-loop/instance"] = (check_loop, "MyAgent")
    cases["04-loop/right"] = (check_loop, t14.loop_agent())

    search, reply = t14.SEARCH, t14.REPLY
    scripts = {
        "no_search": [reply],
        "conversation": [ToolCall("conversation_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
                         reply],
        "wrong_words": [ToolCall("archival_memory_search", {"query": "allergy", "request_heartbeat": True}), reply],
        "no_heartbeat": [ToolCall("archival_memory_search", {"query": "Biscuit allergic"}), reply],
        "ran_out": [search],
        "no_reply": [ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": False})],
        "no_citation": [search, ToolCall("send_message", {"message": "Biscuit must avoid chicken."})],
        "bare_id": [search, ToolCall("send_message", {"message": "Biscuit must avoid chicken, see arc-000001"})],
        "unknown_id": [search, ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000099]"})],
        "other_id": [search, ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000002]"})],
        "wrong_food": [search, ToolCall("send_message", {"message": "He must avoid onions. [arc-000001]"})],
        "safe": [search, ToolCall("send_message", {"message": "Chicken is safe to eat for him. [arc-000001]"})],
        "reply_first": [reply, search],
        "failed_call": [ToolCall("archival_memory_search", {"q": "Biscuit", "request_heartbeat": True}), reply],
        "empty": [],
        "strings": ["archival_memory_search"],
        "a_string": "send_message",
        "right": [search, reply],
    }
    for name, calls in scripts.items():
        cases[f"05-page-fault/{name}"] = (check_page_fault, calls)

    for name, answer in _citation_answers().items():
        cases[f"06-citations/{name}"] = (check_citation_contract, answer)
    for name, answer in _guard_answers().items():
        cases[f"07-guard/{name}"] = (check_guard, answer)

    for name in ("NoSchema", "SchemaOnly", "NoOwnLimit", "NotAtomic", "NoLimit", "OffByOne", "SpaceJoin",
                 "IgnoresReadOnly", "ReplaceUnchecked", "NoDescriptions", "WrongLimit", "LossyJson", "NoCounts",
                 "FlatDocument", "ValidatingWrongLimit"):
        cases[f"08-typed-core-memory/{name}"] = (check_typed_core_memory, getattr(t68, name))
    cases["08-typed-core-memory/instance"] = (check_typed_core_memory, t68.TypedCoreMemory([]))
    cases["08-typed-core-memory/right"] = (check_typed_core_memory, t68.TypedCoreMemory)
    return cases


CASES = _cases()


def outcome(check: Callable, answer: Any, code: str) -> dict[str, Any]:
    """What `check(answer)` says in language `code`: its verdict, failure message and printed lines."""
    strict_checks()
    random.seed(0)  # an answer that shuffles gives the same message every run
    lang.use_language(code)
    out = io.StringIO()
    what = hint = ""
    try:
        with contextlib.redirect_stdout(out):
            check(answer)
        status = "passed"
    except CheckFailed as failure:
        status, what, hint = "failed", failure.what, failure.hint
    finally:
        lang.use_language("en")
    # the note on a reference call is left out of the pinned English messages (the gradebook takes the
    # references from the check's outcome; the note is only words for the student, in both languages)
    lines = [line for line in out.getvalue().splitlines() if not line.startswith(("NOTE  ", "注意  "))]
    return {"status": status, "what": what, "hint": hint, "out": lines}


# -- what counts as Chinese ---------------------------------------------------------------------

_CODE = re.compile(r"`[^`]*`")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|“[^”]*”|‘[^’]*’|«[^»]*»"
                     r"|'[^'…]*…|\"[^\"…]*…")  # the last two: a quote cut short (memlib._util.quote)
_WORD = re.compile(r"[A-Za-z]+")
#: A Python exception and its message, which Python says in English (up to a bracket or a semicolon).
_EXCEPTION = re.compile(r"\b\w+(?:Error|Exception)\b: [^（）()；;]*")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


def english_sentences(text: str) -> list[str]:
    """Runs of 4 or more plain English words, outside code spans, quoted data and identifiers.

    A Python exception's own message counts as data. A word is a token of letters only (trailing punctuation ignored); a token with a digit, an
    underscore, a dot inside, brackets, '=' or a Han character is an identifier or Chinese and
    breaks a run.

    Example:
        >>> english_sentences("检查 `the whole queue fits` 没有问题")
        []
        >>> english_sentences("你返回了 list，but the check wants an int")
        ['the check wants an int']
    """
    plain = _QUOTED.sub(" | ", _CODE.sub(" | ", _EXCEPTION.sub(" | ", text)))
    plain = _CJK.sub(" | ", plain)  # Chinese around a word ends a run, spaces or not
    runs: list[list[str]] = [[]]
    for token in plain.split():
        bare = token.strip(",;:.!?()（），；：。！？")
        if _WORD.fullmatch(bare):
            runs[-1].append(bare)
        else:
            runs.append([])
    return [" ".join(run) for run in runs if len(run) >= 4]


def test_the_english_detector_finds_sentences_and_spares_code() -> None:
    assert english_sentences("the step went on after send_message") == ["the step went on after"]
    assert english_sentences("调用 self.ask(trace, calls) 时给它这一步的 (call, result)") == []
    assert english_sentences("回复没有说 Biscuit 不能吃什么：'He must avoid onions. [arc-000001]'") == []
    assert english_sentences("第 3 个 heartbeat event was not added") == ["heartbeat event was not added"]
    assert english_sentences("你的答案运行出错：IndexError: list index out of range（flush）") == []
    assert english_sentences("没有返回记录（no archival records match）") == ["no archival records match"]


# -- the cases ----------------------------------------------------------------------------------


def _chinese_problems(said: dict[str, Any]) -> list[str]:
    problems = []
    texts = [said["what"], said["hint"]] + said["out"]
    for text in texts:
        if not text:
            continue
        english = english_sentences(text)
        if english:
            problems.append(f"English in {text!r}: {english}")
    for text in [said["what"], said["hint"]] + [line for line in said["out"] if line.startswith("通过")]:
        if text and not _HAN.search(text):
            problems.append(f"no Chinese in {text!r}")
    if any(line.startswith("PASS") for line in said["out"]):
        problems.append("a PASS line in English")
    return problems


def test_every_exercise_has_a_right_answer_and_wrong_ones() -> None:
    exercises = {case.split("/")[0] for case in CASES}
    assert exercises == {"02-flush", "02-summarizer", "04-loop", "05-page-fault", "06-citations", "07-guard",
                         "08-typed-core-memory"}
    for exercise in exercises:
        assert f"{exercise}/right" in CASES
        assert sum(case.startswith(exercise + "/") for case in CASES) >= 5, exercise
    assert set(json.loads(GOLDEN.read_text(encoding="utf-8"))) == set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_check_says_the_same_verdict_in_chinese(case: str) -> None:
    check, answer = CASES[case]
    english = outcome(check, answer, "en")
    chinese = outcome(check, answer, "zh")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[case]
    assert _unnumbered(english) == _unnumbered(golden), "the English message changed"
    assert english["status"] == ("passed" if case.endswith("/right") else "failed")
    assert chinese["status"] == english["status"]
    assert len(chinese["out"]) == len(english["out"])
    assert _chinese_problems(chinese) == []


def _unnumbered(said: dict[str, Any]) -> dict[str, Any]:
    """`said` with the line numbers of crashes left out: a crashing answer is a line of a test file, which moves."""
    def plain(text: str) -> str:
        return re.sub(r", line \d+:", ", line N:", text)

    return {**said, "what": plain(said["what"]), "hint": plain(said["hint"]), "out": [plain(x) for x in said["out"]]}


def write_golden() -> None:
    """Write the English messages of every case (run once, from the English-only checks)."""
    golden = {case: outcome(check, answer, "en") for case, (check, answer) in sorted(CASES.items())}
    GOLDEN.write_text(json.dumps(golden, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def test_every_label_a_check_shows_has_its_chinese() -> None:
    from memlib import datasets
    from memlib.course.checks import nb02_flush, nb04_loop, nb07_guard, nb08_typed_core_memory as nb08

    assert {case.label for case in nb02_flush._cases()} == set(nb02_flush.CASE_LABELS_ZH)
    assert {s.name for s in nb04_loop.loop_scenarios()} == set(nb04_loop._WHAT_ZH)
    assert set(nb04_loop._GROUPS) == set(nb04_loop._GROUPS_ZH)
    assert set(nb07_guard.SPLIT_NAMES) == set(nb07_guard.SPLIT_NAMES_ZH) == set(nb07_guard.GUARD_THRESHOLDS)
    assert set(datasets.load("core_memory").invalid) == set(nb08._CATCHES_ZH)
    lang.use_language("zh")
    assert [nb08._when(w) for w in ("after from_json", "before filling 'notes'", "valid_letta_blocks")] == [
        "from_json 之后", "填满 'notes' 之前", "valid_letta_blocks"]


def test_the_note_on_a_reference_call_speaks_the_notebooks_language() -> None:
    from memlib.course.checking import reference_note

    lang.use_language("zh")
    try:
        chinese = reference_note(["memlib.guard.scan"])
    finally:
        lang.use_language("en")
    assert chinese == "注意  你的答案调用了 memlib 的参考实现：memlib.guard.scan（成绩簿会记下这一点）"
    assert reference_note(["memlib.guard.scan"]).startswith("NOTE  your answer calls memlib's reference")
