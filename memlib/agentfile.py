"""Read and write Letta Agent Files (`.af`): a whole agent in one JSON document.

An Agent File holds an agent's memory blocks, its messages (and which of them
are in the context window), its tools and its configuration. `read(path)`
turns one into memlib objects: per agent a `CoreMemory` with the file's
blocks, memlib `Message`s, the ids of the in-window messages in order, and the
tools with their schemas. `write(agent_file, path)` writes the current form.

Forms read (see the course's fact sheet on the format):

- the current form: top-level `agents`, `blocks`, `tools`, ... referring to
  each other by short ids (`agent-0`, `block-0`, `message-0`, `tool-0`), each
  agent listing `in_context_message_ids`;
- the legacy single-agent form (Letta 0.6.x): the top level *is* the agent,
  with `core_memory` and a per-message `in_context` flag;
- the intermediate form with `in_context_message_indices` (positions in `messages`);
- double-encoded files: a JSON string whose content is the document.

Labels are kept exactly as the file has them, `system/persona`, `notes.v2`
and non-ASCII ones included: memlib's core memory renders a label that is not
a tag name safely (see `memlib.core_memory`). A label core memory cannot hold
(empty, padded with whitespace, with control or invisible characters, longer
than `memlib.core_memory.MAX_LABEL_LENGTH`) raises `AgentFileError` naming the block.

Real files are messy; these load, and each case is listed in `conditions`:

- a value already longer than its block's limit (MemGPT 0.3.x stored such
  values before the rename to Letta: letta-ai/letta issues 1567 and 1636) loads unchanged. Its memlib
  block's limit is set to the value's length, so edits can shorten it but
  never make it longer; the file's own limit is written back;
- two blocks of one agent with the same label: the second gets a suffix in
  memlib (`human_2`); the file's label is written back unchanged;
- the same label in several agents is fine (each agent has its own core memory).

A dangling id, a missing required field or a document that is not an Agent
File raises `AgentFileError` naming the field; nothing half-built is returned.
Unknown fields are kept and written back. Not here: archival passages (the
format has none, so an exported agent loses its archival memory), running the
agent, or talking to a Letta server.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memlib._util import is_int, parse_when, shown
from memlib.core_memory import Block, CoreMemory, CoreMemoryError
from memlib.messages import ROLES, Message

__all__ = ["AgentFile", "Agent", "Tool", "Condition", "AgentFileError", "read", "write", "loads", "dumps"]


class AgentFileError(ValueError):
    """The document is not a readable Agent File; the message names the field."""


@dataclass(frozen=True)
class Condition:
    """Something odd in a file that still loaded: `kind`, where (a field path) and what was done."""

    kind: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: {self.detail}"


@dataclass
class Tool:
    """A tool as the file describes it: its name, the schema shown to the model, and the rest."""

    name: str
    schema: dict
    tool_type: str | None
    raw: dict = field(repr=False)

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, {self.tool_type or 'untyped'})"


@dataclass
class Agent:
    """One agent of the file, as memlib objects (plus what is needed to write it back)."""

    name: str
    system: str
    agent_type: str | None
    core_memory: CoreMemory
    messages: list[Message]
    message_ids: list[str]
    in_context_ids: list[str]
    tools: list[Tool]
    raw: dict = field(repr=False)
    # memlib label -> where the block came from, to write it back as it was
    block_refs: dict[str, "_BlockRef"] = field(repr=False, default_factory=dict)

    @property
    def in_context_messages(self) -> list[Message]:
        """The messages in the window, in window order."""
        by_id = dict(zip(self.message_ids, self.messages))
        return [by_id[i] for i in self.in_context_ids]

    def __repr__(self) -> str:
        return (f"Agent({self.name!r}, {len(self.core_memory)} blocks, {len(self.messages)} messages "
                f"({len(self.in_context_ids)} in context), {len(self.tools)} tools)")


@dataclass(frozen=True)
class _BlockRef:
    id: str
    label: str          # the file's label (memlib's differs only for a duplicate: see duplicate_label)
    file_limit: int
    loaded_limit: int   # what memlib set: the file's limit, or the value's length if over it
    raw: dict


@dataclass
class AgentFile:
    """A read Agent File: its agents, what was odd about it, and the form it came in."""

    agents: list[Agent]
    tools: list[Tool]
    conditions: list[Condition]
    form: str
    raw: dict = field(repr=False)

    def __repr__(self) -> str:
        odd = f", {len(self.conditions)} conditions" if self.conditions else ""
        return f"AgentFile({self.form} form, agents {[a.name for a in self.agents]}, {len(self.tools)} tools{odd})"


# -- reading ------------------------------------------------------------------


def read(path) -> AgentFile:
    """Read an Agent File from `path` (any of the forms in the module docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise AgentFileError(f"{path} is not UTF-8 text, so not an Agent File ({exc})") from exc
    return loads(text, source=str(path))


def loads(text: str, source: str = "the document") -> AgentFile:
    """Read an Agent File from JSON text."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"loads takes JSON text, got {type(text).__name__}")
    try:
        data = json.loads(text)
        twice = isinstance(data, str)
        if twice:  # double-encoded: a JSON string holding the document
            data = json.loads(data)
    except json.JSONDecodeError as exc:
        raise AgentFileError(f"{source} is not JSON ({exc}), so not an Agent File") from exc
    result = _read(data, source)
    if twice:
        result.form += ", double-encoded"
    return result


def _read(data, source: str) -> AgentFile:
    if not isinstance(data, dict):
        raise AgentFileError(f"{source}: the top level is a {type(data).__name__}, not an Agent File object")
    if "agents" in data:
        return _read_current(data)
    if "core_memory" in data or ("messages" in data and "system" in data):
        return _read_legacy(data)
    raise AgentFileError(
        f"{source} is not an Agent File: its top level has neither 'agents' (current form) nor "
        f"'core_memory' (legacy single-agent form); keys found: {sorted(data)[:10]}")


def _need(obj: dict, key: str, where: str, kind=None):
    if not isinstance(obj, dict):
        raise AgentFileError(f"{where} must be an object, got {type(obj).__name__}")
    if key not in obj or obj[key] is None:
        raise AgentFileError(f"{where}.{key} is missing (required)")
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise AgentFileError(f"{where}.{key} must be a {names}, got {type(value).__name__}")
    return value


def _list(obj: dict, key: str, where: str) -> list:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise AgentFileError(f"{where}.{key} must be a list, got {type(value).__name__}")
    return value


def _read_current(data: dict) -> AgentFile:
    conditions: list[Condition] = []
    agents_raw = _need(data, "agents", "file", list)
    blocks = {}
    for i, b in enumerate(_list(data, "blocks", "file")):
        bid = _need(b, "id", f"blocks[{i}]", str)
        blocks[bid] = (f"blocks[{i}]", b)
    tools = {}
    for i, t in enumerate(_list(data, "tools", "file")):
        tid = _need(t, "id", f"tools[{i}]", str)
        tools[tid] = _tool(t, f"tools[{i}]")
    agents = []
    for i, a in enumerate(agents_raw):
        where = f"agents[{i}]"
        block_list = []
        for j, bid in enumerate(_list(a, "block_ids", where)):
            if bid not in blocks:
                raise AgentFileError(f"{where}.block_ids[{j}]: {bid!r} is not the id of any block in 'blocks'")
            block_list.append((bid, *blocks[bid]))
        tool_list = []
        for j, tid in enumerate(_list(a, "tool_ids", where)):
            if tid not in tools:
                raise AgentFileError(f"{where}.tool_ids[{j}]: {tid!r} is not the id of any tool in 'tools'")
            tool_list.append(tools[tid])
        messages, ids = _messages(_list(a, "messages", where), where, conditions, need_ids=True)
        in_context = []
        if "in_context_message_ids" in a and a["in_context_message_ids"] is not None:
            known = set(ids)
            for j, mid in enumerate(_list(a, "in_context_message_ids", where)):
                if mid not in known:
                    raise AgentFileError(
                        f"{where}.in_context_message_ids[{j}]: {mid!r} is not the id of any message of this agent")
                in_context.append(mid)
        elif "in_context_message_indices" in a:
            in_context = _from_indices(a, ids, where)
        agents.append(_agent(a, where, block_list, messages, ids, in_context, tool_list, conditions))
    _same_labels(agents, conditions)
    form = "indices" if any("in_context_message_indices" in a and "in_context_message_ids" not in a
                            for a in agents_raw) else "current"
    return AgentFile(agents, list(tools.values()), conditions, form, data)


def _read_legacy(data: dict) -> AgentFile:
    conditions: list[Condition] = []
    where = "file"
    block_list = []
    for i, b in enumerate(_list(data, "core_memory", where)):
        bid = b.get("id") if isinstance(b, dict) and isinstance(b.get("id"), str) else f"block-{i}"
        block_list.append((bid, f"core_memory[{i}]", b))
    tool_list = [_tool(t, f"tools[{i}]") for i, t in enumerate(_list(data, "tools", where))]
    raw_messages = _list(data, "messages", where)
    messages, ids = _messages(raw_messages, where, conditions, need_ids=False)
    if "in_context_message_indices" in data:
        in_context = _from_indices(data, ids, where)
        form = "indices"
    else:
        in_context = [mid for mid, m in zip(ids, raw_messages) if m.get("in_context")]
        form = "legacy"
    agent = _agent(data, where, block_list, messages, ids, in_context, tool_list, conditions)
    return AgentFile([agent], tool_list, conditions, form, data)


def _from_indices(a: dict, ids: list[str], where: str) -> list[str]:
    out = []
    for j, k in enumerate(_list(a, "in_context_message_indices", where)):
        if not is_int(k) or not 0 <= k < len(ids):
            raise AgentFileError(f"{where}.in_context_message_indices[{j}]: {k!r} is not a position in "
                                 f"messages (0..{len(ids) - 1})")
        out.append(ids[k])
    return out


def _tool(t: dict, where: str) -> Tool:
    name = _need(t, "name", where, str)
    schema = t.get("json_schema") or {}
    if not isinstance(schema, dict):
        raise AgentFileError(f"{where}.json_schema must be an object, got {type(schema).__name__}")
    return Tool(name, schema, t.get("tool_type"), t)


def _agent(a, where, block_list, messages, ids, in_context, tool_list, conditions) -> Agent:
    name = _need(a, "name", where, str)
    system = _need(a, "system", where, str)
    core = CoreMemory()
    refs: dict[str, _BlockRef] = {}
    for bid, bwhere, b in block_list:
        label = _need(b, "label", bwhere, str)
        value = _need(b, "value", bwhere, str)
        limit = _need(b, "limit", bwhere, int)
        if not is_int(limit) or limit <= 0:
            raise AgentFileError(f"{bwhere}.limit must be a positive number of characters, got {limit!r}")
        description = b.get("description") or ""
        read_only = b.get("read_only") or False
        if not isinstance(description, str) or not isinstance(read_only, bool):
            raise AgentFileError(f"{bwhere}: description must be a string and read_only true or false")
        mlabel, n = label, 2
        while mlabel in refs:
            mlabel, n = f"{label}_{n}", n + 1
        if mlabel != label:
            conditions.append(Condition("duplicate_label", f"{bwhere}.label",
                                        f"agent {name!r} already has a block {label!r}; this one is {mlabel!r}"))
        if len(value) > limit:
            conditions.append(Condition(
                "over_limit", f"{bwhere}.value",
                f"block {label!r} holds {len(value)} characters, over its limit of {limit}; loaded unchanged, "
                f"edits may shorten it but not lengthen it"))
        loaded = max(limit, len(value))
        try:
            block = Block(mlabel, value, loaded, description, read_only)
        except CoreMemoryError as exc:  # only the label can be wrong here: the rest was checked above
            raise AgentFileError(f"{bwhere}.label: block {bid!r} cannot be loaded: {exc}") from None
        core.add_block(block)
        refs[mlabel] = _BlockRef(bid, label, limit, loaded, b)
    core.version = 0
    return Agent(name, system, a.get("agent_type"), core, messages, ids, in_context, tool_list, a, refs)


def _same_labels(agents: list[Agent], conditions: list[Condition]) -> None:
    first: dict[str, tuple[str, str]] = {}  # file label -> (agent, block id) that used it first
    for agent in agents:
        for ref in agent.block_refs.values():
            owner = first.setdefault(ref.label, (agent.name, ref.id))
            if owner[0] != agent.name and owner[1] != ref.id:
                conditions.append(Condition(
                    "label_in_several_agents", f"agent {agent.name!r}",
                    f"its block {ref.label!r} ({ref.id}) is a different block from agent {owner[0]!r}'s "
                    f"{ref.label!r} ({owner[1]}); each agent keeps its own"))


def _text_of(m: dict, where: str) -> str:
    content = m.get("content")
    if content is None:
        content = m.get("text", "")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise AgentFileError(f"{where}.content must be a string or a list of parts, got {type(content).__name__}")
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


def _timestamp(m: dict, where: str, conditions: list[Condition]) -> datetime | None:
    value = m.get("created_at")
    if not value:
        return None
    try:
        return parse_when(str(value))
    except ValueError:
        conditions.append(Condition("bad_timestamp", f"{where}.created_at", f"{shown(value)} is not an ISO time; ignored"))
        return None


def _messages(raw: list, where: str, conditions: list[Condition], *, need_ids: bool) -> tuple[list[Message], list[str]]:
    messages, ids = [], []
    for i, m in enumerate(raw):
        mwhere = f"{where}.messages[{i}]"
        role = _need(m, "role", mwhere, str)
        if need_ids:
            mid = _need(m, "id", mwhere, str)
        else:
            mid = m.get("id") if isinstance(m.get("id"), str) else f"message-{i}"
        if mid in ids:
            raise AgentFileError(f"{mwhere}.id: {mid!r} is used by two messages of this agent")
        ids.append(mid)
        text = _text_of(m, mwhere)
        name = m.get("name") if isinstance(m.get("name"), str) else None
        call_id = None
        calls = m.get("tool_calls") or []
        if not isinstance(calls, list):
            raise AgentFileError(f"{mwhere}.tool_calls must be a list, got {type(calls).__name__}")
        rendered = []
        for j, c in enumerate(calls):
            fn = _need(c, "function", f"{mwhere}.tool_calls[{j}]", dict)
            fname = _need(fn, "name", f"{mwhere}.tool_calls[{j}].function", str)
            args = fn.get("arguments", "")
            args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            rendered.append(f"{fname}({args})")  # the full arguments, as the model wrote them
            if call_id is None:
                call_id, name = c.get("id") or f"{mid}-call-{j}", fname
        if rendered:
            text = "\n".join([text] + rendered) if text else "\n".join(rendered)
        if role == "tool":
            call_id = m.get("tool_call_id")
            returns = m.get("tool_returns") or []
            if not call_id and returns and isinstance(returns[0], dict):
                call_id = returns[0].get("tool_call_id")
            if not call_id:
                raise AgentFileError(f"{mwhere}.tool_call_id is missing (a tool message must name its call)")
            if not text and returns and isinstance(returns[0], dict):
                text = str(returns[0].get("tool_return", ""))
        if role not in ROLES:
            conditions.append(Condition("unknown_role", f"{mwhere}.role",
                                        f"role {role!r} is not one memlib knows; read as a system message"))
            name, role = name or role, "system"
        messages.append(Message(role, text, id=i, timestamp=_timestamp(m, mwhere, conditions),
                                tool_call_id=call_id, name=name))
    return messages, ids


# -- writing ------------------------------------------------------------------


def dumps(agent_file: AgentFile, indent: int | None = 1) -> str:
    """The current form of `agent_file` as JSON text (unknown fields kept)."""
    return json.dumps(_current(agent_file), ensure_ascii=False, indent=indent)


def write(agent_file: AgentFile, path) -> Path:
    """Write `agent_file` to `path` in the current form; returns the path.

    The text is built completely before the file is opened, so an error leaves
    no half-written file. Blocks are written from each agent's `core_memory`
    (edits included); messages as they were read, plus any appended to
    `agent.messages` with an id in `agent.message_ids`; the in-context ids
    from `agent.in_context_ids`. Everything else is written back as read.
    """
    text = dumps(agent_file)
    path = Path(path)
    path.write_text(text + "\n", encoding="utf-8")
    return path


_AGENT_ORDER = ("id", "name", "system", "agent_type", "block_ids", "tool_ids", "tool_rules", "llm_config",
                "embedding_config", "messages", "in_context_message_ids")
_LEGACY_ONLY = ("core_memory", "messages", "tools", "in_context_message_indices")


def _current(af: AgentFile) -> dict:
    if not isinstance(af, AgentFile):
        raise TypeError(f"write takes an AgentFile from memlib.agentfile.read, got {type(af).__name__}")
    legacy = "agents" not in af.raw
    out = {} if legacy else copy.deepcopy({k: v for k, v in af.raw.items() if k not in ("agents", "blocks", "tools")})
    blocks: dict[str, dict] = {}
    if not legacy:
        for b in af.raw.get("blocks") or []:
            blocks[b["id"]] = copy.deepcopy(b)
    tools: dict[str, dict] = {}
    if not legacy:
        for t in af.raw.get("tools") or []:
            tools[t["id"]] = copy.deepcopy(t)
    agents = []
    for n, agent in enumerate(af.agents):
        a = copy.deepcopy({k: v for k, v in agent.raw.items() if k not in _LEGACY_ONLY})
        if legacy:
            a.setdefault("id", f"agent-{n}")
        a["name"], a["system"] = agent.name, agent.system
        a["block_ids"] = []
        for block in agent.core_memory:
            ref = agent.block_refs.get(block.label)
            bid = ref.id if ref else _fresh({**blocks, **_all_block_ids(af)}, "block")
            label = ref.label if ref else block.label
            # an untouched limit goes back as the file had it (an over-limit block keeps its file limit)
            limit = ref.file_limit if ref and block.limit == ref.loaded_limit else block.limit
            entry = copy.deepcopy(blocks.get(bid) or (ref.raw if ref else {}))
            entry.pop("_written_by", None)
            new = dict(entry, id=bid, label=label, value=block.value, limit=limit,
                       description=block.description, read_only=block.read_only)
            earlier = blocks.get(bid, {}).get("_written_by")
            if earlier is not None and earlier != n and {k: v for k, v in blocks[bid].items() if k != "_written_by"} != new:
                raise AgentFileError(f"block {bid!r} ({label!r}) is shared by several agents and they now "
                                     "hold different values; make them agree before writing")
            blocks[bid] = dict(new, _written_by=n)
            a["block_ids"].append(bid)
        a["tool_ids"] = []
        for tool in agent.tools:
            tid = tool.raw.get("id") if isinstance(tool.raw.get("id"), str) else None
            if tid is None:
                tid = next((k for k, v in tools.items() if v is tool.raw), None) or _fresh(tools, "tool")
            tools.setdefault(tid, dict(copy.deepcopy(tool.raw), id=tid))
            a["tool_ids"].append(tid)
        a["messages"] = _write_messages(agent)
        missing = [i for i in agent.in_context_ids if i not in set(agent.message_ids)]
        if missing:
            raise AgentFileError(f"agent {agent.name!r}: in_context_ids {missing[:3]} are not ids of its messages")
        a["in_context_message_ids"] = list(agent.in_context_ids)
        first = [k for k in _AGENT_ORDER if k in a]
        agents.append({**{k: a[k] for k in first}, **{k: v for k, v in a.items() if k not in first}})
    known = {"agents": agents, "groups": out.pop("groups", []),
             "blocks": [{k: v for k, v in b.items() if k != "_written_by"} for b in blocks.values()],
             "files": out.pop("files", []), "sources": out.pop("sources", []), "tools": list(tools.values()),
             "mcp_servers": out.pop("mcp_servers", []), "metadata": out.pop("metadata", {})}
    if legacy:
        known["metadata"].setdefault("converted_from", "legacy single-agent form")
    return {**known, **out}  # the format's keys first, in its order, then whatever else the file had


def _all_block_ids(af: AgentFile) -> dict:
    return {ref.id: None for agent in af.agents for ref in agent.block_refs.values()}


def _fresh(taken: dict, kind: str) -> str:
    n = len(taken)
    while f"{kind}-{n}" in taken:
        n += 1
    return f"{kind}-{n}"


def _write_messages(agent: Agent) -> list[dict]:
    if len(agent.messages) != len(agent.message_ids):
        raise AgentFileError(f"agent {agent.name!r} has {len(agent.messages)} messages but "
                             f"{len(agent.message_ids)} message_ids; give every new message an id")
    raw = [m for m in agent.raw.get("messages") or []]
    out = []
    for i, (message, mid) in enumerate(zip(agent.messages, agent.message_ids)):
        if i < len(raw):
            m = copy.deepcopy(raw[i])
            m.pop("in_context", None)
            m["id"] = mid
            if "content" not in m and "text" in m:
                m["content"] = [{"type": "text", "text": m.pop("text")}]
            out.append(m)
        else:
            out.append({"id": mid, "role": message.role, "content": [{"type": "text", "text": message.content}],
                        "tool_call_id": message.tool_call_id if message.role == "tool" else None,
                        "name": message.name,
                        "created_at": message.timestamp.isoformat() if message.timestamp else None})
    return out
