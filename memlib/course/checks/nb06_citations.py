"""Notebook 06's check, exercise 3: the citation contract."""

from __future__ import annotations

import re
from typing import Any, Callable

from memlib.course.checking import Cases, CheckFailed, expect, graded, judge_fixed_then_fresh, passed
from memlib.course.exercise import Exercise
from memlib.course.lang import bilingual
from memlib.course.checks._common import _short_text as _short

__all__ = ["check_citation_contract", "citation_store", "CITATION_QUESTIONS", "ANSWER_FACTS"]


# ---------------------------------------------------------------------------
# Exercise 3: the citation contract
# ---------------------------------------------------------------------------

#: (text, session_id, turn_id, source_url) of the records the citation check searches.
CITATION_RECORDS = (
    ("Ines's sister-in-law Róisín teaches at a primary school in Galway.", "s03", 2, None),
    ("Ines is allergic to penicillin; she found out after a reaction in 2019.", "s01", 4, None),
    ("The PyData Lisbon talk is on the second day of the conference.", "s05", 1,
     "https://pydata.example/lisbon/2026/schedule"),
    ("Biscuit the beagle weighs 13.2 kg after his annual check-up.", "s04", 7, None),
    ("Ines's flight to Lisbon leaves Leeds Bradford at 06:40 on 11 June.", "s06", 3,
     "https://mail.example/booking/KX7Q2"),
    ("The Heron design doc is version 3 and lives on the Routing Data wiki.", "s02", 5,
     "https://wiki.kestrel.example/routing-data/designs/heron-v3"),
    ("Ada's swimming lessons are on Wednesday evenings at Kirkstall pool.", "s03", 9, None),
    ("Ines prefers no meetings before 10 a.m.", "s01", 8, None),
    ("Sam works night shifts in the ICU at Leeds General.", "s02", 1, None),
    ("The allotment plot is number 14 at Potternewton.", "s04", 2, None),
)

#: (question, ids of the records that answer it; empty = the store cannot answer it).
CITATION_QUESTIONS = (
    ("What is Ines allergic to?", ("arc-000002",)),
    ("What colour is the allotment shed?", ()),
    ("What time does the flight to Lisbon leave?", ("arc-000005",)),
    ("How much does Biscuit the beagle weigh?", ("arc-000004",)),
    ("What is Ines's blood type?", ()),
    ("Which day are Ada's swimming lessons?", ("arc-000007",)),
    ("Where does the Heron design doc live?", ("arc-000006",)),
    ("Who is Ines's mentor at Kestrel?", ()),
    ("Which day is the PyData Lisbon talk?", ("arc-000003",)),
    # The user's name is in half the records: sharing it and one place name is no support.
    ("What does Ines think of the Lisbon trams?", ()),
    # One informative word is enough when the record has it.
    ("Where is the allotment?", ("arc-000010",)),
    # ...even when the question also names the user, whom that record never mentions.
    ("Where is Ines's allotment?", ("arc-000010",)),
)

#: The support rule the exercise states, and every question above follows (the reference is stricter: 60 %).
COMMON_WORDS = "more than a quarter of the records"
SUPPORT_RULE = "at least half of the remaining words"
ANSWERABLE = sum(bool(gold) for _, gold in CITATION_QUESTIONS)
UNANSWERABLE = len(CITATION_QUESTIONS) - ANSWERABLE
#: In the partial-credit tally an unanswerable question counts this many times, so the two halves of the
#: contract (cite the support; cite nothing without it) weigh the same: an answer that always cites its
#: top hit, or never cites anything, is right on exactly half and earns nothing (the floor is above half).
UNANSWERABLE_WEIGHT = ANSWERABLE // UNANSWERABLE

#: What a supported answer must say (a regular expression, case-insensitive): the cited record's fact.
#: An answer that cites the right record but says something else contradicts it.
ANSWER_FACTS = {
    "What is Ines allergic to?": r"penicillin",
    "What time does the flight to Lisbon leave?": r"\b0?6[:.h]40\b",
    "How much does Biscuit the beagle weigh?": r"13[.,]2",
    "Which day are Ada's swimming lessons?": r"wednesday",
    "Where does the Heron design doc live?": r"wiki",
    "Which day is the PyData Lisbon talk?": r"second",
    "Where is the allotment?": r"potternewton|plot (?:number |no\.? ?)?14",
    "Where is Ines's allotment?": r"potternewton|plot (?:number |no\.? ?)?14",
}

# An answer without support must say so; these are the ways of saying it we accept.
_ADMITS = re.compile(
    r"\b(?:could ?n[o']t|can ?n[o']t|cannot|did ?n[o']t|do ?n[o']t|does ?n[o']t|unable to|nothing|no)\b"
    r"[^.]{0,60}\b(?:find|found|know|record|records|support|supports|information|memory|answer|mention)",
    re.I,
)


def citation_store():
    """The archival store the citation check asks its questions of (ids arc-000001 ...)."""
    from datetime import datetime

    from memlib.archival import ArchivalStore

    store = ArchivalStore()
    for i, (text, session, turn, url) in enumerate(CITATION_RECORDS):
        store.insert(text, session_id=session, turn_id=turn, source_url=url,
                     created_at=datetime(2026, 1, 5 + i, 9, 0))
    return store


_TIMES = {1: "once", 2: "twice", 3: "three times"}


def _record_hint(store, record_id: str) -> str:
    return f"{record_id} ({_short(store.get(record_id).text, 45)})"


EXERCISE = Exercise(
    grade_id='06-citations',
    notebook='06_citations',
    answer='answer_with_citations',
    points=3,
    description="every retrieval-backed answer cites real, supporting records; no support, no citation",
    references=("memlib.citations:answer_from_store",),
    setup='from memlib.citations import CitedAnswer, cite',
    contract=(f"asks {len(CITATION_QUESTIONS)} questions of a store of {len(CITATION_RECORDS)} records",
              f"{ANSWERABLE} that one record answers", f"{UNANSWERABLE} that nothing answers",
              f"drop the ones that appear in {COMMON_WORDS}", f"contains {SUPPORT_RULE}",
              f"each of the {UNANSWERABLE} counts {_TIMES[UNANSWERABLE_WEIGHT]}"),
    partial_credit=True,
    case_weights={"answerable question": 1, "unanswerable question": UNANSWERABLE_WEIGHT},
    equivalent={
        'negate: terms - common or terms -> terms - common or not terms':
            'differs only when every content word of the question is in more than a quarter of the records (then it crashes on len(False)); no question of the check, nor of the course, is like that',
        'swap-args: max(1, math.ceil(0.6 * len(informative))) -> max(math.ceil(0.6 * len(informative)), 1)':
            'max is symmetric',
        'constant: 1 -> 0':
            'the minimum of 1 needed word matters only when the question has no informative word, and then no record overlaps either (overlap > best_overlap = 0 is required anyway)',
        'constant: 0 -> -1':
            'best_overlap starts the search; the required overlap is at least 1, so starting from 0 or -1 selects the same hit',
        'compare: sum((t in w for w in words_of.values())) > 0.25 * len(records) -> sum((t in w for w in words_of.values())) >= 0.25 * len(records)':
            'a count of records is an integer and 0.25 x 10 records is 2.5: > and >= agree',
        'constant: 5 -> 6':
            'how many search hits to consider is free: the supporting record is the first hit for every question of the check',
        'constant: 5 -> 4':
            'how many search hits to consider is free: the supporting record is the first hit for every question of the check',
        'compare: overlap > best_overlap -> overlap >= best_overlap':
            'which of two equally supported records to cite is free; no question of the check has a tie',
        'compare: len(t) > 1 -> len(t) >= 1':
            "one-letter tokens are the possessive 's', in more than a quarter of the records, so they are excluded as common anyway",
        'constant: 1 -> 2 (#2)':
            "the threshold is free within the contract: a question whose only informative word is the answer's ('Where is the allotment?') is covered; two-letter words are never the only evidence in the check's questions",
        'constant: 1 -> 0 (#2)':
            'the minimum of 1 needed word matters only when the question has no informative word, and then no record overlaps either (overlap > best_overlap = 0 is required anyway)',
    },
)


@graded(EXERCISE)
def check_citation_contract(answer_fn: Callable[[str, Any], Any]) -> None:
    """Ask `answer_fn(question, store)` the CITATION_QUESTIONS; check each CitedAnswer against the contract.

    Fixed: a CitedAnswer; citations built from store records (Citation.from_record or
    cite), only of records that support the answer, never an extra one; the answer says
    what the cited record says (ANSWER_FACTS) and passes memlib.citations.verify; with no
    support, no citation and a plain statement that nothing was found. Free: the support
    rule, within what the questions allow (dropping the words in more than a quarter of the
    records, at least half of the remaining words is enough; the user's name alone is not),
    the wording.
    """
    expect(callable(answer_fn), bilingual(f"answer_with_citations is a {type(answer_fn).__name__}, not a function",
                                          f"answer_with_citations 是 {type(answer_fn).__name__}，不是函数"),
           bilingual("define `def answer_with_citations(question, store):` and pass the function itself",
                     "定义 `def answer_with_citations(question, store):`，再把函数本身传进来"))
    judge_fixed_then_fresh(EXERCISE.grade_id, _judge_questions(answer_fn), _shuffled_store,
                           (citation_store(), CITATION_QUESTIONS), size=lambda cases: _weight(cases[1]))


def _weight(questions: tuple[tuple[str, tuple[str, ...]], ...]) -> int:
    """How many cases `questions` count as in the tally (`EXERCISE.case_weights`)."""
    weights = EXERCISE.case_weights
    return sum(weights["answerable question" if gold else "unanswerable question"] for _, gold in questions)


def _judge_questions(answer_fn: Callable[[str, Any], Any]) -> Callable[[Any], int]:
    """The judge of `judge_fixed_then_fresh`: asks every question of a (store, questions) pair, counts the
    weights of the right answers, and reports the first wrong one. Questions other than CITATION_QUESTIONS
    are the fresh set: the same questions, with the ids of the records stored in an order drawn for this
    grading run."""
    def judge(cases: Any) -> int:
        store, questions = cases
        fresh = questions is not CITATION_QUESTIONS
        right, first = 0, None
        for question, gold in questions:
            try:
                _ask(answer_fn, store, question, gold)
                right += _weight(((question, gold),))
            except _WrongAnswer as wrong:
                first = first or wrong.failure
        if first is not None:
            tally = Cases(right, _weight(questions))
            if fresh:
                where = bilingual("in the same records stored in another order, drawn for this grading run "
                                  "(new ids): ", "同样的记录按本次评分随机抽取的另一种顺序存入（id 都变了）：")
                raise CheckFailed(where + first.what, first.hint, cases=tally) from first
            raise CheckFailed(first.what, first.hint, cases=tally) from first
        if fresh:
            passed(bilingual(f"the same {ANSWERABLE + UNANSWERABLE} questions in the records stored in an order "
                             "drawn for this grading run",
                             f"同样 {ANSWERABLE + UNANSWERABLE} 个问题，换成本次评分随机抽取的存储顺序，也都通过"))
        else:
            passed(bilingual(f"{ANSWERABLE} answerable questions: each answer cites the right record with session, "
                             "turn and source url",
                             f"{ANSWERABLE} 个能回答的问题：每个回答都引用了正确的记录，带着会话、轮次和来源网址"))
            passed(bilingual(f"{UNANSWERABLE} unanswerable questions: no citation, and the answer says so",
                             f"{UNANSWERABLE} 个无法回答的问题：没有引用，回答也说明了这一点"))
        return _weight(questions)
    return judge


class _WrongAnswer(Exception):
    """One question answered against the contract (a well-formed CitedAnswer): a wrong case, not a malformed
    answer."""

    def __init__(self, failure: CheckFailed) -> None:
        super().__init__(failure.what)
        self.failure = failure


def _shuffled_store(rng: Any) -> tuple[Any, tuple[tuple[str, tuple[str, ...]], ...]]:
    """The citation store with its records inserted in an order drawn from `rng`, and the gold ids in it."""
    from datetime import datetime

    from memlib.archival import ArchivalStore

    order = list(range(len(CITATION_RECORDS)))
    while order == sorted(order):
        rng.shuffle(order)
    store, id_of = ArchivalStore(), {}
    for i in order:
        text, session, turn, url = CITATION_RECORDS[i]
        record = store.insert(text, session_id=session, turn_id=turn, source_url=url,
                              created_at=datetime(2026, 1, 5 + i, 9, 0))
        id_of[f"arc-{i + 1:06d}"] = record.id
    return store, tuple((question, tuple(id_of[g] for g in gold)) for question, gold in CITATION_QUESTIONS)


def _ask(answer_fn: Callable[[str, Any], Any], store: Any, question: str, gold: tuple[str, ...]) -> None:
    """Ask one question; an answer of the wrong kind fails the check at once (no tally), a CitedAnswer against
    the contract raises `_WrongAnswer` (a wrong case)."""
    from memlib.citations import CitedAnswer, answer_from_store

    reference = answer_from_store(question, store)
    assert [c.record_id for c in reference.citations] == list(gold), "reference disagrees with the gold ids"
    answer = answer_fn(question, store)
    expect(isinstance(answer, CitedAnswer),
           bilingual(f"for {question!r} the answer is a {type(answer).__name__}, not a CitedAnswer",
                     f"对问题 {question!r}，回答是 {type(answer).__name__}，不是 CitedAnswer"),
           bilingual("return cite(text, records) for a supported answer, CitedAnswer(text) for an unsupported one",
                     "有依据的回答返回 cite(text, records)，没有依据的返回 CitedAnswer(text)"))
    try:
        _judge_answer(store, question, gold, answer, reference)
    except CheckFailed as failure:
        raise _WrongAnswer(failure) from None


def _judge_answer(store: Any, question: str, gold: tuple[str, ...], answer: Any, reference: Any) -> None:
    """Raise `CheckFailed` when `answer` (a CitedAnswer) breaks the contract for `question`."""
    from memlib.citations import verify

    for citation in answer.citations:
        expect(citation.record_id in store,
               bilingual(f"fabricated citation: the answer to {question!r} cites {citation.record_id!r}, "
                         "which is not in the store",
                         f"捏造的引用：对问题 {question!r} 的回答引用了 {citation.record_id!r}，存储里没有这条记录"),
               bilingual("cite only records that store.search(...) returned; never build ids by hand",
                         "只引用 store.search(...) 返回的记录，绝不要手写 id"))
        record = store.get(citation.record_id)
        for field in ("session_id", "turn_id", "source_url"):
            claimed, actual = getattr(citation, field), getattr(record, field)
            expect(claimed == actual,
                   bilingual(f"incomplete provenance: the citation of {citation.record_id} for {question!r} has "
                             f"{field}={claimed!r} but the record has {actual!r}",
                             f"来源信息不完整：对问题 {question!r}，{citation.record_id} 的引用写的是 "
                             f"{field}={claimed!r}，记录里却是 {actual!r}"),
                   bilingual("build citations with Citation.from_record(record) (or cite(text, records)): they must "
                             "carry the record id, session, turn and source url",
                             "用 Citation.from_record(record)（或 cite(text, records)）生成引用："
                             "引用必须带上记录 id、会话、轮次和来源网址"))
    cited = [c.record_id for c in answer.citations]
    if not gold:
        expect(not cited,
               bilingual(f"citation without support: nothing in the store answers {question!r}, yet the answer "
                         f"cites {', '.join(_record_hint(store, i) for i in cited)}",
                         f"没有依据的引用：存储里没有记录能回答 {question!r}，回答却引用了 "
                         f"{'、'.join(_record_hint(store, i) for i in cited)}"),
               bilingual("a record that merely shares a word (a name) with the question does not support an "
                         "answer; require enough of the question's words in the record, and otherwise cite nothing",
                         "记录和问题只是共用一个词（比如人名），并不能支持回答。要求记录里有足够多的问题用词，"
                         "不够就什么都不引用"))
        expect(_ADMITS.search(answer.text),
               bilingual(f"the answer to {question!r} cites nothing (right) but does not say that it found "
                         f"nothing: {_short(answer.text)}",
                         f"对问题 {question!r} 的回答没有引用（这没错），但也没有说什么都没找到："
                         f"{_short(answer.text)}"),
               bilingual(f"say so plainly, e.g. {reference.text!r}", f"直接说出来，例如 {reference.text!r}"))
        return
    if not cited:
        if _ADMITS.search(answer.text):
            raise CheckFailed(
                bilingual(f"too strict: the answer to {question!r} says there is no support, but "
                          f"{_record_hint(store, gold[0])} answers it",
                          f"太严了：对问题 {question!r} 的回答说没有依据，可是 "
                          f"{_record_hint(store, gold[0])} 就能回答它"),
                bilingual(f"is your support threshold too high? Drop the question's words that appear in "
                          f"{COMMON_WORDS}; a record that contains {SUPPORT_RULE} supports the question",
                          "你的支持阈值是不是太高了？先去掉问题里那些在超过四分之一的记录里都出现的词；"
                          "剩下的词，记录里只要有至少一半，就算支持这个问题"))
        raise CheckFailed(
            bilingual(f"missing citation: the answer to {question!r} cites no record "
                      f"({_short(answer.text)}), but it comes from {_record_hint(store, gold[0])}",
                      f"缺少引用：对问题 {question!r} 的回答没有引用任何记录（{_short(answer.text)}），"
                      f"可它出自 {_record_hint(store, gold[0])}"),
            bilingual("every retrieval-backed answer names its records: return cite(text, [record])",
                      "凡是靠检索得来的回答，都要写明出自哪些记录：返回 cite(text, [record])"))
    irrelevant = [i for i in cited if i not in gold]
    expect(not irrelevant,
           bilingual(f"irrelevant citation: the answer to {question!r} cites "
                     f"{', '.join(_record_hint(store, i) for i in irrelevant)}, which does not answer it",
                     f"无关的引用：对问题 {question!r} 的回答引用了 "
                     f"{'、'.join(_record_hint(store, i) for i in irrelevant)}，它回答不了这个问题"),
           bilingual("cite only the records that support the answer, not every search hit",
                     "只引用支持回答的记录，不要把检索命中的都列上"))
    problems = verify(answer, store)
    expect(not problems,
           bilingual(f"the answer to {question!r} is not supported by what it cites: "
                     f"{problems[0] if problems else ''}",
                     f"对问题 {question!r} 的回答得不到它所引记录的支持：`{problems[0] if problems else ''}`"),
           bilingual("answer with the words of the record you cite (an extractive answer), e.g. the record's text",
                     "用所引记录里的原话回答（抽取式回答），比如直接用记录的文字"))
    fact = ANSWER_FACTS.get(question)
    expect(fact is None or re.search(fact, answer.text, re.I),
           bilingual(f"the answer to {question!r} cites {gold[0]} but does not say what it says: "
                     f"{_short(answer.text)} (the record: {_short(store.get(gold[0]).text, 70)})",
                     f"对问题 {question!r} 的回答引用了 {gold[0]}，却没有说出记录里的内容："
                     f"{_short(answer.text)}（记录是：{_short(store.get(gold[0]).text, 70)}）"),
           bilingual("an answer must agree with the record it cites: answer with the record's own words",
                     "回答必须和它引用的记录一致：用记录自己的话来回答"))
