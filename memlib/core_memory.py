"""Core memory: the small, always-visible notes an agent keeps about itself and the user.

MemGPT splits core memory into two sections, `persona` and `human`, of 2,000
characters each; Letta generalises them to labelled *blocks* with a limit, a
description and a read-only flag. This module holds those blocks, edits them
atomically (a failed edit changes nothing) and renders them for the prompt.
It deliberately does not count tokens or decide what to remember: the context
(`memlib.context`) and the agent (`memlib.agent`) do that. A context that
shows this memory attaches itself and is told about every edit, and can
refuse one its window cannot hold (the edit is then undone).

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

__all__ = ["Block", "CoreMemory", "CoreMemoryError", "DEFAULT_LIMIT"]

#: MemGPT's limit for each core-memory section, in characters.
DEFAULT_LIMIT = 2000

# Labels become XML-like tags in the prompt and JSON keys in tool calls, so they
# stay identifier-like: a letter or underscore, then letters, digits, _ or -.
_LABEL_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class CoreMemoryError(ValueError):
    """A core-memory edit or block was invalid; the message says what to do instead."""


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
        if not _LABEL_PATTERN.match(self.label):
            raise CoreMemoryError(
                f"Block label {self.label!r} is not identifier-like; use letters, digits, '_' or '-', "
                "starting with a letter or '_' (e.g. 'human', 'persona', 'project_notes')"
            )
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
        """The block as a tagged prompt section with its character count against its limit."""
        attrs = f'characters="{self.chars}/{self.limit}"'
        if self.read_only:
            attrs += ' read_only="true"'
        if self.description:
            attrs += f' description="{html.escape(self.description, quote=True)}"'
        body = f"{self.value}\n" if self.value else ""
        return f"<{self.label} {attrs}>\n{body}</{self.label}>"

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

    # -- construction ---------------------------------------------------------

    @classmethod
    def default(cls, persona: str = "", human: str = "", limit: int = DEFAULT_LIMIT) -> "CoreMemory":
        """MemGPT's layout: a `persona` and a `human` section of 2,000 characters each.

        No descriptions: MemGPT's sections had none, and the rendered prompt
        stays as the paper shows it. Typed blocks (notebook 08) add them.
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
        """Accept `{"blocks": [...]}`, a bare list of block dicts, or the flat legacy dict."""
        if isinstance(data, Mapping) and "blocks" in data:
            data = data["blocks"]
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
        return {"blocks": [block.to_dict() for block in self._blocks.values()]}

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
        # memory exactly as it was (Letta once saved over-limit values: letta-ai/letta issues 1567, 1636).
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
