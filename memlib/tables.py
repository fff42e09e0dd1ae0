"""Tables: where a store keeps its rows. The seam between memlib's stores and their backends.

`ArchivalStore` and `RecallStore` own every rule once: validation, id
allocation, timestamps, duplicates, record states, the search index. A *table*
only keeps rows durably and says what changed. A new backend is a new table,
not a new store: `memlib.storage` has the SQLite tables, `memlib.postgres` the
PostgreSQL ones, and this module the in-memory tables every store starts with.

The interface, for both kinds (archival rows are `ArchivalRecord`s, recall rows
`Message`s):

- ``pull() -> Changes | None``: what was committed (by other connections, or
  everything on the first call) since this table last looked; None when
  nothing was. Cheap when nothing changed: the stores call it before every read.
- ``write(action)``: a context manager for ONE transaction. It yields
  ``(writer, changes)``: `changes` is what other connections committed before
  the transaction took the write lock (the store applies it before it decides
  anything, so two writers never hand out the same id); `writer` takes
  ``insert(row)``, and for archival tables also ``replace(record)``,
  ``delete(id)``, ``log(transition)`` and ``set_next_id(n)``. The transaction
  commits when the block ends and rolls back on any exception; the store
  updates its own view only after the commit, so memory never runs ahead of
  the durable copy.
- ``candidates(tokens) -> set | None``: ids of rows holding any of memlib's
  `tokens`, if the backend has a full-text index that can answer; None if not.
- ``name`` (where the rows live, for messages), ``close()``.

A table never validates, ranks or numbers anything: that is the store's job,
so every backend gives identical results.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["Changes", "BadRow", "DamagedRowsWarning", "MemoryArchivalTable", "MemoryRecallTable", "OnTable"]


class DamagedRowsWarning(UserWarning):
    """A store opened with some rows it could not read; see the store's `bad_rows`."""


@dataclass(frozen=True)
class BadRow:
    """A row of a table that could not be read: where, which row, which field, why."""

    path: str
    table: str
    seq: int
    field: str
    problem: str
    id: Any = None

    def __str__(self) -> str:
        ident = f", id {self.id!r}" if self.id is not None else ""
        return f"{self.path}: {self.table} row seq={self.seq}{ident}, field {self.field!r}: {self.problem}"


def warn_bad_rows(where: str, bad: list[BadRow]) -> None:
    """One DamagedRowsWarning for the rows a store could not read (they stay untouched)."""
    listed = "; ".join(str(b).split(": ", 1)[1] for b in bad[:5])
    more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
    warnings.warn(
        f"{where}: {len(bad)} damaged row(s) skipped, the others are readable: {listed}{more}. "
        "They stay in the file untouched (and their ids stay taken); see the store's bad_rows.",
        DamagedRowsWarning, stacklevel=5,
    )


@dataclass
class Changes:
    """What a table reports from `pull()` or at the start of a write.

    rows: rows inserted or replaced, in commit order (a replaced row replaces the
        store's row with the same id). removed: ids deleted. transitions: the
        archival state log's new entries. bad: rows that could not be read
        (`memlib.storage.BadRow`); their ids stay taken. next_id: the table's id
        counter for generated archival ids (None: the table keeps none).
        reset: `rows` is the whole content (the first pull): build in bulk.
    """

    rows: list[Any] = field(default_factory=list)
    removed: list[Any] = field(default_factory=list)
    transitions: list[Any] = field(default_factory=list)
    bad: list[Any] = field(default_factory=list)
    next_id: int | None = None
    reset: bool = False
    tokens: dict[Any, list[str]] = field(default_factory=dict)


class _NullWriter:
    """A write transaction on a table that keeps nothing beyond the store's own view."""

    def insert(self, row: Any) -> None:
        pass

    def replace(self, row: Any) -> None:
        pass

    def delete(self, key: Any) -> None:
        pass

    def log(self, transition: Any) -> None:
        pass

    def set_next_id(self, n: int) -> None:
        pass


class _MemoryTable:
    """In memory, the store's own view is the only copy: nothing to pull, nothing to write.

    It lives as long as the store does and no other connection can change it, so
    `pull` always answers None and a write transaction cannot fail.
    """

    name = "memory"

    def pull(self) -> Changes | None:
        return None

    @contextlib.contextmanager
    def write(self, action: str) -> Iterator[tuple[_NullWriter, None]]:
        yield _NullWriter(), None

    def candidates(self, tokens: list[str]) -> set | None:
        return None

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MemoryArchivalTable(_MemoryTable):
    """The archival table of a plain `ArchivalStore`: memory only."""


class MemoryRecallTable(_MemoryTable):
    """The recall table of a plain `RecallStore`: memory only."""


class OnTable:
    """What every store on a table shares: its lock, catching up before each read, closing.

    A store calls `_attach(table)` once and reads only inside `with self._current() as
    view:`, which first applies what other connections committed (`_apply`, the
    store's own) and hands over the store's view (`_view()`), so no read can skip it.
    """

    def _attach(self, table) -> None:
        self._table = table
        self._lock = threading.RLock()
        changes = table.pull()
        if changes is not None:
            self._apply(changes)

    def _apply(self, changes: Changes) -> None:
        raise NotImplementedError

    def _view(self) -> Any:
        raise NotImplementedError

    @contextlib.contextmanager
    def _current(self) -> Iterator[Any]:
        """The store's view, after picking up what other connections committed, under its lock."""
        with self._lock:
            changes = self._table.pull()
            if changes is not None:
                self._apply(changes)
            yield self._view()

    def close(self) -> None:
        """Close the table (a file or a connection). Everything written is already committed."""
        self._table.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
