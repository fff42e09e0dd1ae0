"""Core memory: the small, always-visible notes an agent keeps about itself and the user.

MemGPT splits core memory into two sections, `persona` and `human`, of 2,000
characters each; Letta generalises them to labelled *blocks* with a limit, a
description and a read-only flag. This module holds those blocks, edits them
atomically (a failed edit changes nothing) and renders them for the prompt.
A label is kept exactly as given, `system/human` and `notes.v2` included (Letta
files have such labels); one that is not a tag name is rendered as an escaped
attribute, so no label can break or inject into the prompt's markup.
It deliberately does not count tokens or decide what to remember: the context
(`memlib.context`) and the agent (`memlib.agent`) do that. A context that
shows this memory attaches itself and is told about every edit, and can
refuse one its window cannot hold (the edit is then undone).

An edit can also be *proposed* instead of applied (`propose`): it then waits
beside its block as a `PendingEdit`, with who proposed it, from what text and
why it waits, is not rendered and costs no budget, until `confirm` applies it
(with the block's usual checks) or `reject` drops it. Both are logged
(`edit_log`). Which edits must wait is not decided here (`memlib.governance`).

Example:
    >>> memory = CoreMemory.default()
    >>> memory.append("human", "Name: Ada")
    >>> print(memory.render())  # doctest: +NORMALIZE_WHITESPACE
    <persona characters="0/2000">
    </persona>
    <human characters="9/2000">
    Name: Ada
    </human>
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import weakref
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from memlib._util import check_bool, is_int, shorten

__all__ = ["Block", "CoreMemory", "CoreMemoryError", "DEFAULT_LIMIT", "MAX_LABEL_LENGTH", "PendingEdit", "EditEvent",
           "EDIT_STATES"]

#: MemGPT's limit for each core-memory section, in characters.
DEFAULT_LIMIT = 2000

#: The longest block label, in characters: a label names a block (and is
#: repeated in the prompt and in every tool call), it does not hold notes.
MAX_LABEL_LENGTH = 100

# A label like this is a tag name in the prompt (<human ...>...</human>), as in
# MemGPT and Letta. Any other label (Letta files have `system/human`, `notes.v2`)
# goes into an attribute of a <block> tag instead, escaped (see Block.render).
_TAG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class CoreMemoryError(ValueError):
    """A core-memory edit or block was invalid; the message says what to do instead."""


#: States of a proposed core-memory edit: waiting, applied, dropped.
EDIT_STATES = ("pending", "confirmed", "rejected")
_EDIT_ACTIONS = ("append", "replace")


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


@dataclasses.dataclass(frozen=True)
class PendingEdit:
    """A core-memory edit that waits for confirmation, with its provenance.

    `action` is "append" (`content` is added) or "replace" (`old_content` becomes
    `content`); `by` proposed it, `source` is the text it came from, `reason`
    says why it waits. `state` is one of EDIT_STATES.

    Example:
        >>> PendingEdit("ce-1", "append", "human", "Name: Ada", reason="from a web page")
        PendingEdit(ce-1 pending: append to 'human' 'Name: Ada' (from a web page))
    """

    id: str
    action: str
    label: str
    content: str
    old_content: str | None = None
    by: str = "agent"
    source: str = ""
    reason: str = ""
    state: str = "pending"

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise CoreMemoryError(f"an edit id must be a non-empty str, got {self.id!r}")
        if self.action not in _EDIT_ACTIONS:
            raise CoreMemoryError(f"unknown edit action {self.action!r}; expected 'append' or 'replace'")
        if self.state not in EDIT_STATES:
            raise CoreMemoryError(f"unknown edit state {self.state!r}; expected one of {', '.join(EDIT_STATES)}")
        for name in ("label", "content", "by", "source", "reason"):
            _text(getattr(self, name), name)
        if self.action == "replace":
            if not isinstance(self.old_content, str) or not self.old_content:
                raise CoreMemoryError("a replace edit needs the exact old_content it changes")
        elif self.old_content is not None:
            raise CoreMemoryError("an append edit has no old_content; use action='replace' to change text")
        elif not self.content.strip():
            raise CoreMemoryError("content is empty; pass the text to add")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __repr__(self) -> str:
        what = f"append to {self.label!r} {_short(self.content)}" if self.action == "append" else \
            f"replace {_short(self.old_content or '')} in {self.label!r} by {_short(self.content)}"
        why = f" ({self.reason})" if self.reason else ""
        return f"PendingEdit({self.id} {self.state}: {what}{why})"


@dataclasses.dataclass(frozen=True)
class EditEvent:
    """One entry of the edit log: a proposal, a confirmation or a rejection."""

    edit_id: str
    action: str  # "propose" | "confirm" | "reject"
    by: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _short(text: str, width: int = 40) -> str:
    """Quote `text` for an error message, shortened so huge inputs stay readable."""
    return repr(shorten(text, width))


@dataclasses.dataclass(frozen=True)
class Block:
    """One labelled section of core memory (Letta's block, MemGPT's section).

    Blocks are immutable: `CoreMemory` edits by building a new, validated block
    and swapping it in, which is what makes every edit all-or-nothing.

    Example:
        >>> Block("human", "Name: Ada", limit=100)
        Block('human', 9/100 chars: 'Name: Ada')
    """

    label: str
    value: str = ""
    limit: int = DEFAULT_LIMIT
    description: str = ""
    read_only: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.label, str):
            raise TypeError(f"Block label must be a str, got {type(self.label).__name__}; use e.g. 'human'")
        problem = _label_problem(self.label)
        if problem:
            value = f" (the block holding {_short(self.value)})" if isinstance(self.value, str) and self.value else ""
            raise CoreMemoryError(f"{problem}{value}")
        # bool is an int subclass; a limit of True would be a silent bug.
        if not is_int(self.limit):
            raise TypeError(f"Block limit must be an int number of characters, got {self.limit!r}")
        if self.limit <= 0:
            raise CoreMemoryError(f"Block limit must be positive, got {self.limit}; MemGPT uses {DEFAULT_LIMIT}")
        if not isinstance(self.value, str):
            raise TypeError(f"Block value must be a str, got {type(self.value).__name__}")
        if len(self.value) > self.limit:
            raise CoreMemoryError(
                f"block {self.label!r} would hold {len(self.value)} characters, over its limit of {self.limit}; "
                "shorten the text or raise the limit"
            )
        if not isinstance(self.description, str):
            raise TypeError(f"Block description must be a str, got {type(self.description).__name__}")
        check_bool(self.read_only, "Block read_only")

    @property
    def chars(self) -> int:
        """Characters currently used."""
        return len(self.value)

    def render(self) -> str:
        """The block as a tagged prompt section with its character count against its limit.

        A label that is a tag name is the tag (`<human ...>`); any other label is
        an attribute of a `<block>` tag, with the characters that could end the
        attribute or start a tag escaped, so it cannot break the prompt's markup.

        Example:
            >>> print(Block("system/human", "Name: Ada", 100).render())
            <block label="system/human" characters="9/100">
            Name: Ada
            </block>
        """
        if _TAG_NAME.match(self.label):
            tag, attrs = self.label, ""
        else:
            tag, attrs = "block", f'label="{_attribute(self.label)}" '
        attrs += f'characters="{self.chars}/{self.limit}"'
        if self.read_only:
            attrs += ' read_only="true"'
        if self.description:
            attrs += f' description="{html.escape(self.description, quote=True)}"'
        body = f"{self.value}\n" if self.value else ""
        return f"<{tag} {attrs}>\n{body}</{tag}>"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Block":
        if not isinstance(data, Mapping):
            raise TypeError(f"a block must be a dict with at least 'label', got {type(data).__name__}")
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise CoreMemoryError(
                f"unknown block field(s) {sorted(unknown)}; expected label, value, limit, description, read_only"
            )
        if "label" not in data:
            raise CoreMemoryError(f"block {dict(data)!r} has no 'label'; every block needs one, e.g. 'human'")
        return cls(**data)

    def __repr__(self) -> str:
        flag = ", read-only" if self.read_only else ""
        return f"Block({self.label!r}, {self.chars}/{self.limit} chars{flag}: {_short(self.value)})"


def _label_problem(label: str) -> str | None:
    """Why `label` cannot name a block, or None.

    Beyond these rules a label is kept exactly as given (`system/human`,
    `notes.v2`, non-ASCII): the memory tools address the block by it.
    """
    if not label:
        return "Block label is empty; name the block, e.g. 'human'"
    if len(label) > MAX_LABEL_LENGTH:
        return f"Block label {_short(label)} is {len(label)} characters long; at most {MAX_LABEL_LENGTH}"
    if label != label.strip():
        return f"Block label {label!r} starts or ends with whitespace; the memory tools could not name it reliably"
    # control characters, line breaks, invisible formatting (e.g. right-to-left overrides), lone surrogates
    bad = next((i for i, char in enumerate(label) if not char.isprintable()), None)
    if bad is not None:
        return (f"Block label {label!r} contains U+{ord(label[bad]):04X} at position {bad}; "
                "a label is printable text, with no control, line-break or invisible characters")
    return None


def _attribute(text: str) -> str:
    # Only what could end the attribute or start a tag: an apostrophe stays as
    # itself, so the model reads (and sends back) the label as it is.
    return html.escape(text, quote=False).replace('"', "&quot;")


class CoreMemory:
    """Ordered blocks of core memory with atomic `append` / `replace` edits.

    `version` increases by one on every successful change, so a context can
    tell cheaply whether it needs to recount the tokens core memory uses.
    """

    def __init__(self, blocks: Iterable[Block] = ()) -> None:
        if isinstance(blocks, (str, bytes, Mapping)):
            raise TypeError(
                "CoreMemory takes an iterable of Block objects; for a {'persona': ..., 'human': ...} dict "
                "use CoreMemory.from_flat(...)"
            )
        self._blocks: dict[str, Block] = {}
        for block in blocks:
            self._add(block)
        self.version = 0
        self._listeners: list[weakref.ref] = []
        self._edits: dict[str, PendingEdit] = {}
        self._edit_log: list[EditEvent] = []

    # -- construction ---------------------------------------------------------

    @classmethod
    def default(cls, persona: str = "", human: str = "", limit: int = DEFAULT_LIMIT) -> "CoreMemory":
        """MemGPT's layout: a `persona` and a `human` section of 2,000 characters each.

        No descriptions: MemGPT's sections had none, so the rendered prompt
        stays as MemGPT 0.3's showed it (a tagged section with its character
        count; the paper shows no rendering). Typed blocks (notebook 08) add them.
        """
        return cls(
            [
                Block("persona", persona, limit),
                Block("human", human, limit),
            ]
        )

    @classmethod
    def from_flat(cls, sections: Mapping[str, str], limit: int = DEFAULT_LIMIT) -> "CoreMemory":
        """Build from the legacy flat format `{"persona": "...", "human": "..."}`."""
        if not isinstance(sections, Mapping):
            raise TypeError(f"from_flat expects a dict of label -> text, got {type(sections).__name__}")
        return cls(Block(label, value, limit) for label, value in sections.items())

    @classmethod
    def from_dict(cls, data: Any) -> "CoreMemory":
        """Accept `{"blocks": [...]}`, a bare list of block dicts, or the flat legacy dict.

        `{"blocks": ..., "edits": [...], "edit_log": [...]}` also brings back the
        proposed edits (pending or decided) and their log, as `to_dict` wrote them.
        """
        if isinstance(data, Mapping) and "blocks" in data:
            extra = set(data) - {"blocks", "edits", "edit_log"}
            if extra:
                raise CoreMemoryError(f"unknown core-memory field(s) {sorted(extra)}; expected blocks, edits, edit_log")
            memory = cls.from_dict(data["blocks"])
            memory._load_edits(data.get("edits", []), data.get("edit_log", []))
            return memory
        if isinstance(data, Mapping):
            if all(isinstance(v, str) for v in data.values()):
                return cls.from_flat(data)
            raise CoreMemoryError(
                "a core-memory dict must be {'blocks': [...]} or flat {'persona': '...', 'human': '...'}"
            )
        if isinstance(data, list):
            return cls(Block.from_dict(item) for item in data)
        raise TypeError(f"cannot read core memory from {type(data).__name__}; expected a dict or a list of blocks")

    @classmethod
    def from_json(cls, text: str) -> "CoreMemory":
        """Inverse of `to_json` (also reads the flat legacy format)."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise TypeError(f"from_json expects JSON text, got {type(text).__name__}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CoreMemoryError(
                f"core memory JSON is invalid ({exc}); pass the text that to_json() produced"
            ) from exc
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"blocks": [block.to_dict() for block in self._blocks.values()]}
        if self._edits:  # only when something was ever proposed: older files stay byte for byte the same
            data["edits"] = [edit.to_dict() for edit in self._edits.values()]
            data["edit_log"] = [event.to_dict() for event in self._edit_log]
        return data

    def to_json(self, indent: int | None = None) -> str:
        """JSON text that `from_json` turns back into an equal CoreMemory."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    # -- reading --------------------------------------------------------------

    @property
    def labels(self) -> list[str]:
        return list(self._blocks)

    @property
    def blocks(self) -> list[Block]:
        return list(self._blocks.values())

    def get(self, label: str) -> Block:
        """The block called `label`; CoreMemoryError naming the known labels otherwise."""
        if not isinstance(label, str):
            raise TypeError(f"block label must be a str, got {type(label).__name__}")
        try:
            return self._blocks[label]
        except KeyError:
            known = ", ".join(repr(name) for name in self._blocks) or "none"
            raise CoreMemoryError(f"no block {_short(label)} in core memory; known blocks: {known}") from None

    def __getitem__(self, label: str) -> Block:
        return self.get(label)

    def __contains__(self, label: object) -> bool:
        return label in self._blocks

    def __iter__(self) -> Iterator[Block]:
        return iter(list(self._blocks.values()))

    def __len__(self) -> int:
        return len(self._blocks)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CoreMemory):
            return NotImplemented
        return self.blocks == other.blocks

    def render(self) -> str:
        """Every block as a tagged section, in order, for the system prompt."""
        return "\n".join(block.render() for block in self._blocks.values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{b.label} {b.chars}/{b.limit}" for b in self._blocks.values())
        return f"CoreMemory([{inner}], version={self.version})"

    # -- editing --------------------------------------------------------------

    def add_block(self, block: Block) -> None:
        """Add a new block at the end (Letta lets agents carry more than persona and human)."""
        before = dict(self._blocks)
        self._add(block)
        blocks, self._blocks = self._blocks, before
        self._commit(blocks)

    def append(self, label: str, content: str) -> None:
        """Add `content` on a new line at the end of block `label`; all or nothing."""
        block = self._editable(label)
        if not isinstance(content, str):
            raise TypeError(f"content must be a str, got {type(content).__name__}")
        if not content.strip():
            raise CoreMemoryError(f"content is empty; pass the text to add to block {label!r}")
        new_value = f"{block.value}\n{content}" if block.value else content
        self._swap(block, new_value, action=f"appending {len(content)} characters")

    def replace(self, label: str, old_content: str, new_content: str) -> None:
        """Replace the one exact occurrence of `old_content` in block `label`.

        An empty `new_content` deletes `old_content` (and the line break that
        held it). `old_content` must be non-empty and appear exactly once:
        replacing several matches would change text the caller did not look at.
        """
        block = self._editable(label)
        if not isinstance(old_content, str):
            raise TypeError(f"old_content must be a str, got {type(old_content).__name__}")
        if not isinstance(new_content, str):
            raise TypeError(f"new_content must be a str, got {type(new_content).__name__}")
        if old_content == "":
            raise CoreMemoryError(
                f"old_content is empty; copy the exact text to change from block {label!r}, "
                "or use core_memory_append to add new text"
            )
        count = block.value.count(old_content)
        if count == 0:
            raise CoreMemoryError(
                f"old_content {_short(old_content)} not found in block {label!r}; "
                "copy the exact text from core memory or use core_memory_append"
            )
        if count > 1:
            raise CoreMemoryError(
                f"old_content {_short(old_content)} appears {count} times in block {label!r}; "
                "include more of the surrounding text so it matches exactly once"
            )
        start = block.value.index(old_content)
        end = start + len(old_content)
        before, after = block.value[:start], block.value[end:]
        if new_content == "":
            # Deleting a whole line should not leave an empty line behind.
            if after.startswith("\n"):
                after = after[1:]
            elif before.endswith("\n"):
                before = before[:-1]
        new_value = before + new_content + after
        self._swap(block, new_value, action="this replacement")

    # -- edits that wait for confirmation ---------------------------------------

    def propose(self, action: str, label: str, content: str, old_content: str | None = None, *,
                by: str = "agent", source: str = "", reason: str = "") -> PendingEdit:
        """Keep an append or replace beside block `label` without applying it; returns the PendingEdit.

        The block must exist and be editable now (a read-only block refuses at once);
        whether the text still fits or still matches is checked by `confirm`.
        """
        self._editable(label)
        edit = PendingEdit(f"ce-{len(self._edits) + 1}", action, label, content, old_content,
                           by=by, source=source, reason=reason)
        self._edits[edit.id] = edit
        self._edit_log.append(EditEvent(edit.id, "propose", by, reason))
        return edit

    def pending(self) -> list[PendingEdit]:
        """The edits still waiting, oldest first."""
        return [e for e in self._edits.values() if e.state == "pending"]

    @property
    def edits(self) -> list[PendingEdit]:
        """Every proposed edit, whatever its state, oldest first."""
        return list(self._edits.values())

    @property
    def edit_log(self) -> list[EditEvent]:
        """Proposals, confirmations and rejections, in order."""
        return list(self._edit_log)

    def get_edit(self, edit_id: str) -> PendingEdit:
        """The proposed edit `edit_id`; CoreMemoryError naming the pending ones otherwise."""
        if not isinstance(edit_id, str) or edit_id not in self._edits:
            waiting = ", ".join(e.id for e in self.pending()) or "none"
            raise CoreMemoryError(f"no proposed edit {edit_id!r}; edits waiting for confirmation: {waiting}")
        return self._edits[edit_id]

    def confirm(self, edit_id: str, *, by: str = "user", reason: str = "") -> PendingEdit:
        """Apply pending edit `edit_id` now, with the block's usual checks.

        If the edit no longer applies (the block would overflow, the old text is
        gone), CoreMemoryError says why and the edit stays pending, memory unchanged.
        """
        edit = self._waiting(edit_id, "confirm")
        _text(by, "by"), _text(reason, "reason")
        if edit.action == "append":
            self.append(edit.label, edit.content)
        else:
            assert edit.old_content is not None  # PendingEdit refuses a replace without it
            self.replace(edit.label, edit.old_content, edit.content)
        return self._decide(edit, "confirmed", "confirm", by, reason)

    def reject(self, edit_id: str, *, by: str = "user", reason: str = "") -> PendingEdit:
        """Drop pending edit `edit_id`; it stays in `edits` as rejected, with the log entry."""
        edit = self._waiting(edit_id, "reject")
        _text(by, "by"), _text(reason, "reason")
        return self._decide(edit, "rejected", "reject", by, reason)

    def _waiting(self, edit_id: str, verb: str) -> PendingEdit:
        edit = self.get_edit(edit_id)
        if edit.state != "pending":
            raise CoreMemoryError(f"edit {edit_id} is already {edit.state}; only a pending edit can be {verb}ed")
        return edit

    def _decide(self, edit: PendingEdit, state: str, action: str, by: str, reason: str) -> PendingEdit:
        decided = dataclasses.replace(edit, state=state)
        self._edits[edit.id] = decided
        self._edit_log.append(EditEvent(edit.id, action, by, reason))
        return decided

    def _load_edits(self, edits: Any, log: Any) -> None:
        if not isinstance(edits, list) or not isinstance(log, list):
            raise CoreMemoryError("'edits' and 'edit_log' must be lists, as to_dict() writes them")
        loaded = {}
        for item in edits:
            if not isinstance(item, Mapping):
                raise CoreMemoryError(f"an edit must be a dict, got {type(item).__name__}")
            unknown = set(item) - {f.name for f in dataclasses.fields(PendingEdit)}
            if unknown:
                raise CoreMemoryError(f"unknown edit field(s) {sorted(unknown)}")
            edit = PendingEdit(**item)
            if edit.label not in self._blocks:
                raise CoreMemoryError(f"edit {edit.id} is for block {edit.label!r}, which this memory does not have")
            loaded[edit.id] = edit
        events = []
        for item in log:
            if not isinstance(item, Mapping) or set(item) - {"edit_id", "action", "by", "reason"}:
                raise CoreMemoryError(f"bad edit_log entry {item!r}")
            events.append(EditEvent(**item))
        self._edits, self._edit_log = loaded, events

    def snapshot(self) -> str:
        """The whole memory as JSON text, for `restore` to roll back to."""
        return self.to_json()

    def restore(self, snapshot: str) -> None:
        """Put the blocks back exactly as `snapshot()` saw them (counts as an edit).

        Used when a change that was valid for the block is refused by something
        outside it, e.g. a context window that cannot hold the bigger block.
        """
        previous = CoreMemory.from_json(snapshot)
        self._commit(dict(previous._blocks))

    # -- who is told about edits ----------------------------------------------

    def attach(self, listener: Any) -> None:
        """Call `listener.core_changed()` after every edit; if it raises, the edit is undone.

        A MainContext attaches itself, so an edit made directly on core memory
        (not through a tool) still cannot leave the context over its window.
        Listeners are held weakly: a context nobody uses any more is dropped.
        """
        if not callable(getattr(listener, "core_changed", None)):
            raise TypeError(f"a listener needs a core_changed() method, got {type(listener).__name__}")
        if all(ref() is not listener for ref in self._listeners):
            self._listeners.append(weakref.ref(listener))

    def detach(self, listener: Any) -> None:
        """Stop telling `listener` about edits (no error if it was not attached)."""
        self._listeners = [ref for ref in self._listeners if ref() is not None and ref() is not listener]

    def __getstate__(self) -> dict[str, Any]:
        # A copy is a new memory: the contexts showing this one do not follow it.
        state = dict(self.__dict__)
        state["_listeners"] = []
        return state

    # -- internals ------------------------------------------------------------

    def _add(self, block: Block) -> None:
        if not isinstance(block, Block):
            raise TypeError(
                f"core memory holds Block objects, got {type(block).__name__}; wrap text in Block(label, value)"
            )
        if block.label in self._blocks:
            raise CoreMemoryError(f"core memory already has a block {block.label!r}; labels must be unique")
        self._blocks[block.label] = block

    def _editable(self, label: str) -> Block:
        block = self.get(label)
        if block.read_only:
            raise CoreMemoryError(
                f"block {label!r} is read-only; the agent cannot edit it "
                "(store the note in another block or in archival memory)"
            )
        return block

    def _swap(self, block: Block, new_value: str, action: str) -> None:
        # Check the limit before building anything, so a failed edit leaves
        # memory exactly as it was (MemGPT 0.3.x, before the rename to Letta, stored an over-limit value
        # and then failed to load it: letta-ai/letta issues 1567, 1636; memlib.sources "memgpt.memory_module").
        if len(new_value) > block.limit:
            raise CoreMemoryError(
                f"{action} would make block {block.label!r} {len(new_value)}/{block.limit} characters, "
                f"over its limit by {len(new_value) - block.limit}; shorten the text, or condense the block "
                "with core_memory_replace, or move details to archival_memory_insert"
            )
        updated = dataclasses.replace(block, value=new_value)
        self._commit({**self._blocks, block.label: updated})

    def _commit(self, blocks: dict[str, Block]) -> None:
        """Swap in `blocks`, then tell the listeners; undo everything if one refuses."""
        previous = self._blocks
        self._blocks = blocks
        self.version += 1
        try:
            self._notify()
        except BaseException:
            # Back to what every listener accepted before; a new version number, so
            # listeners that took the refused edit recount (shrinking always fits).
            self._blocks = previous
            self.version += 1
            self._notify(quiet=True)
            raise

    def _notify(self, quiet: bool = False) -> None:
        self._listeners = [ref for ref in self._listeners if ref() is not None]
        for ref in list(self._listeners):
            listener = ref()
            if listener is None:
                continue
            try:
                listener.core_changed()
            except Exception:
                if not quiet:
                    raise
