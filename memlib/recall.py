"""Recall storage: every message the agent has ever seen, in order, searchable.

When the context evicts a message it is not lost: it stays here, and the
agent can page it back with `conversation_search` (by words) or
`conversation_search_date` (by day). Messages are stored as given; this
module never summarises or deletes.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Iterator, cast

from memlib._util import check_page, check_positive_int, is_int, parse_day, utcnow
from memlib._util import naive_utc as _naive_utc
from memlib.messages import Message
from memlib.retrieval import BM25Index, matching_docs
from memlib.tables import MemoryRecallTable, OnTable, warn_bad_rows

__all__ = ["RecallStore", "parse_day"]


class RecallStore(OnTable):
    """Every message, searchable by content and by date.

    The store owns the rules (ids, timestamps, duplicates, the index); its rows
    live in a table (`memlib.tables`): memory by default, a SQLite file with
    `memlib.storage.SQLiteRecallStore`. Every read first picks up what other
    connections to the same table committed.

    Example:
        >>> recall = RecallStore()
        >>> _ = recall.add(Message.user("my sister Ines moved to Lisbon"))
        >>> recall.conversation_search("where does Ines live")
        [Message(#0 user: 'my sister Ines moved to Lisbon')]
    """

    def __init__(self, page_size: int = 5, *, table=None):
        check_positive_int(page_size, "page_size")
        self.page_size = page_size
        self._messages: list[Message] = []
        self._by_id: dict[int, Message] = {}
        self._index = BM25Index()
        self._taken: set[int] = set()  # ids of rows the table could not read
        self._last_id: int | None = None
        self.bad_rows: list = []
        self._attach(table if table is not None else MemoryRecallTable())

    def _view(self) -> list[Message]:
        return self._messages

    def _apply(self, changes) -> None:
        if changes.reset and not self._messages:
            self._index.add_many([(m.id, m.content) for m in changes.rows])
            for message in changes.rows:
                self._remember(message)
        else:
            for message in changes.rows:
                self._put(message)
        if changes.bad:
            self.bad_rows.extend(changes.bad)
            for bad in changes.bad:
                if is_int(bad.id):
                    self._taken.add(bad.id)
                    self._last_id = max(bad.id, self._last_id if self._last_id is not None else bad.id)
            warn_bad_rows(self._table.name, changes.bad)

    def _put(self, message: Message) -> None:
        self._index.add(message.id, message.content)
        self._remember(message)

    def _remember(self, message: Message) -> None:
        self._messages.append(message)
        self._by_id[message.id] = message
        self._last_id = message.id if self._last_id is None else max(self._last_id, message.id)

    def add(self, message: Message) -> Message:
        """Store `message`, giving it an id (one past the largest) and a timestamp if it has none."""
        if not isinstance(message, Message):
            raise TypeError(f"expected a Message, got {type(message).__name__}")
        with self._lock:
            with self._table.write("add a message to recall storage") as (writer, changes):
                # Inside the write lock, after loading other writers' messages, so two
                # connections never hand out the same id.
                if changes is not None:
                    self._apply(changes)
                if message.id < 0:
                    message = message.replace(id=self._last_id + 1 if self._last_id is not None else 0)
                if message.id in self._by_id or message.id in self._taken:
                    raise ValueError(f"message id {message.id} is already in recall storage")
                if message.timestamp is None:
                    message = message.replace(timestamp=utcnow())
                writer.insert(message)
            self._put(message)
            return message

    def get(self, message_id: int) -> Message:
        with self._current():
            try:
                return self._by_id[message_id]
            except (KeyError, TypeError):
                raise KeyError(f"no message with id {message_id!r} in recall storage") from None

    def conversation_search(self, query: str, page: int = 0, page_size: int | None = None) -> list[Message]:
        """Messages matching `query`, best first, `page_size` (default: the store's) per page."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        size = check_page(page_size, page, self.page_size, "page_size")
        with self._current():
            ranked = self._index.search(query, k=(page + 1) * size)
            return [self._by_id[cast(int, i)] for i, _ in ranked[page * size:]]  # the index holds message ids

    def conversation_search_date(self, start_date, end_date, page: int = 0,
                                 page_size: int | None = None) -> list[Message]:
        """Messages sent between two days (inclusive, YYYY-MM-DD), oldest first."""
        start, end = parse_day(start_date, "start_date"), parse_day(end_date, "end_date")
        if start > end:
            raise ValueError(f"start_date {start} is after end_date {end}; swap them")
        size = check_page(page_size, page, self.page_size, "page_size")
        # Up to the last microsecond of end_date (end + 1 day would overflow on 9999-12-31).
        lo, hi = datetime.combine(start, time.min), datetime.combine(end, time.max)
        with self._current() as messages:
            found = [m for m in messages if lo <= _naive_utc(m.timestamp) <= hi]
            return found[page * size:(page + 1) * size]

    def matching(self, query: str) -> set:
        """Ids of every message sharing a word with `query` (counted, not ranked: cheap)."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        with self._current():
            return matching_docs(self._index, query)

    @property
    def messages(self) -> list[Message]:
        with self._current() as messages:
            return list(messages)

    def __len__(self) -> int:
        with self._current() as messages:
            return len(messages)

    def __iter__(self) -> Iterator[Message]:
        with self._current() as messages:
            return iter(list(messages))

    def __contains__(self, message_id) -> bool:
        with self._current():
            try:
                return message_id in self._by_id
            except TypeError:
                return False

    def __repr__(self) -> str:
        return f"RecallStore({len(self)} messages, page_size={self.page_size})"
