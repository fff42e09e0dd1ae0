"""memlib.recall: every message kept, searchable by words and by day."""

from datetime import datetime

import pytest

from memlib.messages import Message
from memlib.recall import RecallStore


def filled():
    recall = RecallStore()
    texts = ["my sister Ines moved to Lisbon", "the printer on floor 3 is broken again",
             "Ines starts her new job at the aquarium", "lunch was ramen", "weather is grey"]
    for day, text in enumerate(texts, start=1):
        recall.add(Message.user(text, timestamp=datetime(2024, 3, day, 10)))
    return recall


def test_ids_are_assigned_in_order_and_messages_kept():
    recall = filled()
    assert [m.id for m in recall] == [0, 1, 2, 3, 4]
    assert recall.get(2).content.startswith("Ines starts")
    assert 4 in recall and 5 not in recall


def test_conversation_search_best_first_and_paged():
    recall = filled()
    found = recall.conversation_search("where does Ines live")
    assert [m.id for m in found][:1] == [0]
    assert {m.id for m in found} == {0, 2}
    small = RecallStore(page_size=1)
    for m in recall:
        small.add(m)
    assert len(small.conversation_search("Ines", page=0)) == 1
    assert len(small.conversation_search("Ines", page=1)) == 1
    assert small.conversation_search("Ines", page=2) == []


def test_search_by_date_is_inclusive():
    recall = filled()
    assert [m.id for m in recall.conversation_search_date("2024-03-02", "2024-03-03")] == [1, 2]
    assert [m.id for m in recall.conversation_search_date("2024-03-05", "2024-03-05")] == [4]


@pytest.mark.parametrize("start, end, match", [
    ("03/01/2024", "2024-03-02", "YYYY-MM-DD"),
    ("2024-03-05", "2024-03-01", "swap"),
    (None, "2024-03-01", "YYYY-MM-DD"),
    ("2024-02-30", "2024-03-01", "YYYY-MM-DD"),
])
def test_bad_dates(start, end, match):
    with pytest.raises(ValueError, match=match):
        filled().conversation_search_date(start, end)


def test_bad_input():
    recall = filled()
    with pytest.raises(TypeError):
        recall.add("just a string")
    with pytest.raises(ValueError, match="already"):
        recall.add(Message.user("dup", id=1))
    with pytest.raises(ValueError, match="page"):
        recall.conversation_search("x", page=-1)
    with pytest.raises(TypeError):
        recall.conversation_search(3)
    assert len(recall) == 5


def test_page_size_override_returns_every_match_in_one_call():
    recall = filled()
    assert [m.id for m in recall.conversation_search("Ines", page_size=50)] in ([0, 2], [2, 0])
    assert len(recall.conversation_search_date("2024-03-01", "2024-03-05", page_size=50)) == 5
    with pytest.raises(ValueError, match="page_size must be"):
        recall.conversation_search("Ines", page_size=0)
