"""Citations: formatting, cite, verify."""

import pytest

from memlib.archival import ArchivalStore
from memlib.citations import CITATION_PATTERN, Citation, CitedAnswer, cite, strip_citations, verify


@pytest.fixture
def store():
    store = ArchivalStore()
    store.insert("The user's sister is called Maya", session_id="s2", turn_id=14)
    store.insert("The user is allergic to peanuts", session_id="s1", turn_id=3, source_url="https://example.org/n/1")
    store.insert("Weather was rainy in Porto", session_id="s3", turn_id=1)
    return store


def test_citation_format_variants():
    assert Citation("arc-000003", "s2", 14).format() == "[arc-000003 · session s2 turn 14]"
    assert Citation("arc-000003").format() == "[arc-000003]"
    assert Citation("arc-1", source_url="https://x.org").format() == "[arc-1 · https://x.org]"
    assert str(Citation("arc-1", "s1")) == "[arc-1 · session s1]"
    assert repr(Citation("arc-1", "s1")) == "Citation([arc-1 · session s1])"


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(record_id=""), ValueError),
        (dict(record_id=None), ValueError),
        (dict(record_id="arc-1", session_id=2), TypeError),
        (dict(record_id="arc-1", turn_id="3"), TypeError),
        (dict(record_id="arc-1", turn_id=True), TypeError),
        (dict(record_id="arc-1", source_url=1), TypeError),
    ],
)
def test_citation_rejects_bad_input(kwargs, error):
    with pytest.raises(error):
        Citation(**kwargs)


def test_from_record_and_from_hit(store):
    record = store.get("arc-000002")
    citation = Citation.from_record(record)
    assert citation == Citation("arc-000002", "s1", 3, "https://example.org/n/1")
    hit = store.search("peanuts")[0]
    assert Citation.from_record(hit) == citation
    with pytest.raises(TypeError, match="ArchivalRecord"):
        Citation.from_record("arc-000002")


def test_cite_dedupes_and_keeps_order(store):
    a, b = store.get("arc-000002"), store.get("arc-000001")
    answer = cite("text", [a, b, a])
    assert answer.record_ids == ["arc-000002", "arc-000001"]
    assert repr(answer) == "CitedAnswer('text', cites=['arc-000002', 'arc-000001'])"
    with pytest.raises(TypeError):
        cite(None, [a])
    with pytest.raises(TypeError):
        cite("text", "arc-000002")
    with pytest.raises(TypeError):
        CitedAnswer("text", ["arc-1"])


def test_render_and_pattern_round_trip(store):
    answer = cite("Your sister is called Maya.", [store.get("arc-000001")])
    rendered = answer.render()
    assert rendered == "Your sister is called Maya. [arc-000001 · session s2 turn 14]"
    assert CITATION_PATTERN.findall(rendered) == ["arc-000001"]
    assert strip_citations(rendered) == "Your sister is called Maya."


def test_verify_accepts_a_supported_answer(store):
    answer = cite("Your sister is called Maya.", [store.get("arc-000001")])
    assert verify(answer, store) == []


def test_verify_flags_missing_citation(store):
    assert "cites no records" in verify(CitedAnswer("Your sister is Maya."), store)[0]


def test_verify_flags_unknown_record(store):
    problems = verify(CitedAnswer("Your sister is Maya.", (Citation("arc-999999"),)), store)
    assert problems == ["arc-999999 is not in the store; cite only ids returned by archival_memory_search"]


def test_verify_flags_unsupporting_record(store):
    answer = cite("Your sister is called Maya.", [store.get("arc-000003")])
    problems = verify(answer, store)
    assert any("shares no words" in p for p in problems)


def test_verify_flags_weak_support(store):
    answer = cite("Your sister Maya lives in Lisbon and works as a pilot.", [store.get("arc-000001")])
    problems = verify(answer, store)
    assert len(problems) == 1 and "unsupported: lisbon, lives, pilot, works" in problems[0]
    assert verify(answer, store, min_support=0.3) == []


def test_verify_flags_wrong_provenance(store):
    answer = CitedAnswer("Your sister is called Maya.", (Citation("arc-000001", "s9", 14),))
    problems = verify(answer, store)
    assert problems and "session_id='s9'" in problems[0]


def test_verify_works_with_a_plain_dict(store):
    records = {r.id: r for r in store}
    answer = cite("allergic to peanuts", [store.get("arc-000002")])
    assert verify(answer, records) == []


def test_verify_rejects_bad_arguments(store):
    with pytest.raises(TypeError):
        verify("Your sister is Maya", store)
    with pytest.raises(ValueError):
        verify(CitedAnswer("x"), store, min_support=2)


def test_citation_from_a_recall_message():
    from memlib.messages import Message

    message = Message.user("I have a dentist appointment", id=26, session_id="s1")
    assert Citation.from_message(message).format() == "[msg-000026 · session s1 turn 26]"
    with pytest.raises(TypeError):
        Citation.from_message(Message.user("not stored yet"))
    with pytest.raises(TypeError):
        Citation.from_message("msg-1")
