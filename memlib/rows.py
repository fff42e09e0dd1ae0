"""The rows every storage backend shares: field lists, row codecs, the decode-changes loops and the errors.

A table of `memlib.tables` hands its store `Changes`: the rows it read, decoded
here into `ArchivalRecord`s, `Transition`s and `Message`s, or into `BadRow`s that
say what is wrong with a damaged one. The SQLite tables (`memlib.storage`) and
the PostgreSQL ones (`memlib.postgres`) store the same columns in the same text
forms, so they decode with the same code and raise the same `StorageError`s.

Not here: any SQL or connection; each backend writes its own statements.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Literal, overload

from memlib._util import is_int, shown
from memlib.archival import ArchivalRecord, Transition
from memlib.messages import Message
from memlib.tables import BadRow, Changes

__all__ = [
    "StorageError", "ReadOnlyStorageError", "StorageFullError", "StorageCorruptError",
    "RECORD_FIELDS", "TRANSITION_FIELDS", "MESSAGE_FIELDS",
    "decode_row", "record_from_fields", "record_row", "transition_from_fields", "transition_row",
    "message_from_fields", "message_row", "archival_changes", "recall_changes",
]


# ---------------------------------------------------------------------------
# errors


class StorageError(OSError):
    """A storage file could not be opened, read or written; the message says why and what to do."""


class ReadOnlyStorageError(StorageError, PermissionError):
    """The database (or its directory) cannot be written; nothing was changed."""


class StorageFullError(StorageError):
    """The disk (or the database's page limit) is full; the write was rolled back."""


class StorageCorruptError(StorageError):
    """The file is not a memlib SQLite store, or SQLite reports it damaged."""


# ---------------------------------------------------------------------------
# columns, in the order every backend stores them


RECORD_FIELDS = ("id", "text", "tags", "session_id", "turn_id", "source_url", "created_at", "trust",
                  "state", "valid_from", "valid_to", "superseded_by")
TRANSITION_FIELDS = ("record_id", "action", "before", "after", "at", "by", "reason", "detail")
MESSAGE_FIELDS = ("id", "role", "content", "timestamp", "tool_call_id", "name", "session_id",
                   "arguments", "thought")


# ---------------------------------------------------------------------------
# rows <-> objects




# Longer names first: "session_id must be ..." must not be read as a problem with "id".
_FIELD_ORDER = ("session_id", "turn_id", "source_url", "created_at", "tool_call_id", "timestamp", "trust",
                "superseded_by", "valid_from", "valid_to", "record_id", "arguments", "thought",
                "tags", "text", "content", "state", "role", "name", "action", "at", "id")


def decode_row(row, names: tuple[str, ...], ints: tuple[str, ...], path: str, table: str, build):
    """A raw row (TEXT as bytes) -> the object `build(fields)` makes, or a BadRow saying why not."""
    seq = row[0]
    fields: dict[str, object] = {}
    for name, value in zip(names, row[1:]):
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                return BadRow(path, table, seq, name, f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                              fields.get("id"))
        if name in ints and value is not None and not is_int(value):
            return BadRow(path, table, seq, name, f"{shown(value)} is not an integer", fields.get("id"))
        fields[name] = value
    ident = fields.get("id")
    try:
        return build(fields)
    except Exception as exc:
        text = str(exc)
        field = next((f for f in _FIELD_ORDER if f in names and f in text), names[0])
        return BadRow(path, table, seq, field, f"{type(exc).__name__}: {text[:200]}", ident)


def record_from_fields(f: dict) -> ArchivalRecord:
    try:
        tags = [] if f["tags"] == "[]" else json.loads(f["tags"]) if isinstance(f["tags"], str) else None
    except ValueError:
        tags = None
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags {shown(f['tags'])} is not a JSON list of strings")
    if not isinstance(f["created_at"], str):
        raise ValueError(f"created_at {shown(f['created_at'])} is not an ISO date text")
    return ArchivalRecord(id=f["id"], text=f["text"], tags=tuple(tags), session_id=f["session_id"],
                          turn_id=f["turn_id"], source_url=f["source_url"],
                          created_at=_iso(f, "created_at"), trust=f["trust"], state=f["state"],
                          valid_from=_iso(f, "valid_from", optional=True),
                          valid_to=_iso(f, "valid_to", optional=True), superseded_by=f["superseded_by"])


@overload
def _iso(f: dict, name: str, optional: Literal[False] = False) -> datetime: ...
@overload
def _iso(f: dict, name: str, optional: bool) -> datetime | None: ...
def _iso(f: dict, name: str, optional: bool = False) -> datetime | None:
    value = f[name]
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} {shown(value)} is not an ISO date text")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{name} {shown(value)} is not an ISO date") from None


def record_row(record: ArchivalRecord) -> tuple:
    """A record as the values of RECORD_FIELDS (the inverse of record_from_fields)."""
    when = [None if d is None else d.isoformat() for d in (record.valid_from, record.valid_to)]
    return (record.id, record.text, json.dumps(list(record.tags), ensure_ascii=False), record.session_id,
            record.turn_id, record.source_url, record.created_at.isoformat(), record.trust, record.state,
            *when, record.superseded_by)


def transition_from_fields(f: dict) -> Transition:
    return Transition(record_id=f["record_id"], action=f["action"], before=f["before"], after=f["after"],
                      at=_iso(f, "at"), by=f["by"], reason=f["reason"], detail=f["detail"])


def transition_row(t: Transition) -> tuple:
    return (t.record_id, t.action, t.before, t.after, t.at.isoformat(), t.by, t.reason, t.detail)


def message_from_fields(f: dict) -> Message:
    for name in ("tool_call_id", "name", "session_id", "arguments"):
        if f[name] is not None and not isinstance(f[name], str):
            raise TypeError(f"{name} {shown(f[name])} is not text")
    try:
        arguments = None if f["arguments"] is None else json.loads(f["arguments"])
    except ValueError:
        raise ValueError(f"arguments {shown(f['arguments'])} is not JSON") from None
    return Message(role=f["role"], content=f["content"], id=f["id"], timestamp=_iso(f, "timestamp"),
                   tool_call_id=f["tool_call_id"], name=f["name"], session_id=f["session_id"],
                   arguments=arguments, thought=f["thought"] if f["thought"] is not None else "")


def message_row(m: Message) -> tuple:
    """A message as the values of MESSAGE_FIELDS."""
    arguments = None if m.arguments is None else json.dumps(m.arguments, ensure_ascii=False)
    assert m.timestamp is not None  # RecallStore.add stamps a message before it is written
    return (m.id, m.role, m.content, m.timestamp.isoformat(), m.tool_call_id, m.name, m.session_id,
            arguments, m.thought)


# ---------------------------------------------------------------------------
# what a table read: rows -> Changes


def archival_changes(rows: list[tuple], log_rows: list[tuple], *, removed: list[str], next_id: int, first: bool,
                     where: str, with_terms: bool = False) -> Changes:
    """Archival rows (seq, then RECORD_FIELDS, then the stored tokens when `with_terms`) and
    transition rows (seq, then TRANSITION_FIELDS) as a table reports them. Shared by every archival table."""
    changes = Changes(removed=removed, next_id=next_id, reset=first)
    for row in rows:
        item = decode_row(row[:len(RECORD_FIELDS) + 1], RECORD_FIELDS, ("turn_id",), where, "archival_records",
                          record_from_fields)
        (changes.bad if isinstance(item, BadRow) else changes.rows).append(item)
        if with_terms and not isinstance(item, BadRow) and isinstance(row[-1], str):
            changes.tokens[item.id] = json.loads(row[-1])
    for row in log_rows:
        item = decode_row(row, TRANSITION_FIELDS, (), where, "archival_transitions", transition_from_fields)
        (changes.bad if isinstance(item, BadRow) else changes.transitions).append(item)
    return changes


def recall_changes(rows: list[tuple], first: bool, where: str) -> Changes | None:
    """Recall rows (seq, then MESSAGE_FIELDS) after the last one seen, as a table reports
    them; None when there is nothing new. Shared by every recall table."""
    if not rows and not first:
        return None
    changes = Changes(reset=first)
    for row in rows:
        item = decode_row(row, MESSAGE_FIELDS, ("id",), where, "recall_messages", message_from_fields)
        (changes.bad if isinstance(item, BadRow) else changes.rows).append(item)
    return changes
