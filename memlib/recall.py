"""Recall storage: every message the agent has ever seen, in order, searchable.

When the context evicts a message it is not lost: it stays here, and the
agent can page it back with `conversation_search` (by words) or
`conversation_search_date` (by day). Messages are stored as given; this
module never summarises or deletes.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Iterator

from memlib._util import check_page, naive_utc as _naive_utc, parse_day, utcnow
from memlib.archival import matching_docs
from memlib.messages import Message

__all__ = ["RecallStore", "parse_day"]


class RecallStore:
    """Every message, searchable by content and by date.

    Example:
        >>> recall = RecallStore()
        >>> _ = recall.add(Message.user("my sister Ines moved to Lisbon"))
        >>> recall.conversation_search("where does Ines live")
        [Message(#0 user: 'my sister Ines moved to Lisbon')]
    """

    def __init__(self, page_size: int = 5):
        from memlib.retrieval import BM25Index

        if not isinstance(page_size, int) or isinstance(page_size, bool) or page_size < 1:
            raise ValueError(f"page_size must be a positive int, got {page_size!r}")
        self.page_size = page_size
        self._messages: list[Message] = []
        self._by_id: dict[int, Message] = {}
        self._index = BM25Index()

    def add(self, message: Message) -> Message:
        """Store `message`, giving it an id and a timestamp if it has none."""
        if not isinstance(message, Message):
            raise TypeError(f"expected a Message, got {type(message).__name__}")
        if message.id < 0:
            message = message.replace(id=self._messages[-1].id + 1 if self._messages else 0)
        if message.id in self._by_id:
            raise ValueError(f"message id {message.id} is already in recall storage")
        if message.timestamp is None:
            message = message.replace(timestamp=utcnow())
        self._index.add(message.id, message.content)
        self._messages.append(message)
        self._by_id[message.id] = message
        return message

    def get(self, message_id: int) -> Message:
        try:
            return self._by_id[message_id]
        except (KeyError, TypeError):
            raise KeyError(f"no message with id {message_id!r} in recall storage") from None

    def conversation_search(self, query: str, page: int = 0, page_size: int | None = None) -> list[Message]:
        """Messages matching `query`, best first, `page_size` (default: the store's) per page."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        size = check_page(page_size, page, self.page_size, "page_size")
        ranked = self._index.search(query, k=(page + 1) * size)
        return [self._by_id[i] for i, _ in ranked[page * size:]]

    def conversation_search_date(self, start_date, end_date, page: int = 0,
                                 page_size: int | None = None) -> list[Message]:
        """Messages sent between two days (inclusive, YYYY-MM-DD), oldest first."""
        start, end = parse_day(start_date, "start_date"), parse_day(end_date, "end_date")
        if start > end:
            raise ValueError(f"start_date {start} is after end_date {end}; swap them")
        size = check_page(page_size, page, self.page_size, "page_size")
        # Up to the last microsecond of end_date (end + 1 day would overflow on 9999-12-31).
        lo, hi = datetime.combine(start, time.min), datetime.combine(end, time.max)
        found = [m for m in self._messages if lo <= _naive_utc(m.timestamp) <= hi]
        return found[page * size:(page + 1) * size]

    def matching(self, query: str) -> set:
        """Ids of every message sharing a word with `query` (counted, not ranked: cheap)."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        return matching_docs(self._index, query)

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(list(self._messages))

    def __contains__(self, message_id) -> bool:
        return message_id in self._by_id

    def __repr__(self) -> str:
        return f"RecallStore({len(self)} messages, page_size={self.page_size})"
