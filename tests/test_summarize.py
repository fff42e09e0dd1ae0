"""memlib.summarize: every summarizer stays within its budget and is recursive."""

import pytest
from hypothesis import given, settings, strategies as st

from memlib.messages import Message
from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer
from memlib.tokens import count

ALL = [NoSummarizer(), TruncatingSummarizer(), ExtractiveSummarizer()]
CHAT = [
    Message.user("Hi there! How are you?"),
    Message.assistant("Great, thanks. What can I do for you today?"),
    Message.user("My dentist appointment moved to 14 May at 9:30."),
    Message.user("ok thanks"),
    Message.user("Also, my manager Priya wants the Atlas report by Friday."),
    Message.assistant("Got it, sounds good."),
]


def test_extractive_keeps_facts_and_drops_chatter():
    summary = ExtractiveSummarizer().summarize("", CHAT, 60)
    assert "14 May" in summary and "Priya" in summary
    assert "ok thanks" not in summary and "How are you" not in summary
    assert count(summary) <= 60


def test_extractive_is_recursive_and_bounded():
    s = ExtractiveSummarizer()
    summary = s.summarize("", CHAT, 40)
    later = [Message.user("My sister Ines moved to Lisbon in 2023.")]
    again = s.summarize(summary, later, 40)
    assert "Lisbon" in again and count(again) <= 40


def test_truncating_keeps_the_newest_lines():
    summary = TruncatingSummarizer().summarize("user: very old line", CHAT, 25)
    assert summary.endswith("assistant: Got it, sounds good.")
    assert "very old line" not in summary and count(summary) <= 25


def test_no_summarizer_forgets():
    assert NoSummarizer().summarize("", CHAT, 100) == ""


@pytest.mark.parametrize("summarizer", ALL, ids=repr)
@pytest.mark.parametrize("args, error", [
    ((None, CHAT, 10), TypeError), (("", "text", 10), TypeError),
    (("", [1, 2], 10), TypeError), (("", CHAT, -1), ValueError), (("", CHAT, 2.5), ValueError),
])
def test_bad_arguments(summarizer, args, error):
    with pytest.raises(error):
        summarizer.summarize(*args)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=12), st.text(max_size=300), st.integers(0, 80))
def test_every_summarizer_respects_max_tokens(texts, previous, max_tokens):
    evicted = [Message.user(t) for t in texts]
    for summarizer in ALL:
        assert count(summarizer.summarize(previous, evicted, max_tokens)) <= max_tokens


def test_recording_summarizer_notes_each_call_and_refuses_what_is_not_a_summarizer():
    from memlib.course.doubles import RecordingSummarizer, SummaryCall

    recorder = RecordingSummarizer(TruncatingSummarizer())
    evicted = [Message.user("Maeve lives in Lisbon."), Message.user("The dentist is on 12 May.")]
    assert recorder.summarize("", (m for m in evicted), 40) == TruncatingSummarizer().summarize("", evicted, 40)
    assert recorder.calls == [SummaryCall("", tuple(evicted), 40, "generator")]  # read once, handed on as a list
    with pytest.raises(TypeError, match="evicted must be a list of Message"):
        recorder.summarize("", ["text"], 40)
    assert len(recorder.calls) == 1  # an invalid call is not recorded
    for inner in (object(), RecordingSummarizer()):
        with pytest.raises(TypeError, match="inner must be a summarizer"):
            RecordingSummarizer(inner)
    with pytest.raises(TypeError, match="SummaryCall records"):
        RecordingSummarizer(calls=[("", (), 5, "list")])
    assert isinstance(RecordingSummarizer().inner, NoSummarizer)
