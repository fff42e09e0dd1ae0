"""Whose number is it: every figure or behaviour the course attributes to the MemGPT paper,
MemGPT's code, Letta or another system, with where it was read.

One registry, `SOURCES`, keyed by short names ("letta.compaction_trigger"). The profiles in
`memlib.context`, the tool surfaces in `memlib.tools`, the notebooks (`sources_table`) and the
quizzes cite these keys, and the tests tie each quoted constant to its entry, so a changed
number fails a test instead of drifting. `where` is machine-readable: the paper as
"arXiv:2310.08560v2 <section or table>", code as "owner/repo@ref:path".
This module only records; it reads nothing from the network.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Source", "SOURCES", "PAPER", "MEMGPT", "LETTA", "cite", "value", "sources_table"]

#: The paper (v2), MemGPT's research code (its last 0.3 release, in the repository that
#: became Letta's) and the last Letta server (letta-ai/letta before it was archived).
PAPER = "arXiv:2310.08560v2"
MEMGPT = "letta-ai/letta@0.3.25"
LETTA = "letta-ai/letta@56ba9c25"

_WHERE = re.compile(r"^(arXiv:\d{4}\.\d{4,5}v\d+ (§[\d.]+|Table \d+|Figure \d+)( .*)?"
                    r"|[\w.-]+/[\w.-]+@[\w.-]+:[\w./-]+)$")


@dataclass(frozen=True)
class Source:
    """One claim: what it says (in the course's words), its value if it has one, where it was read."""

    key: str
    claim: str
    where: str
    value: Any = None

    def __post_init__(self):
        if not _WHERE.match(self.where):
            raise ValueError(f"{self.key}: where {self.where!r} is neither 'arXiv:ID <section>' "
                             "nor 'owner/repo@ref:path'")

    def __repr__(self) -> str:
        shown = "" if self.value is None else f" = {self.value!r}"
        return f"Source({self.key}{shown}; {self.where})"


def _s(key: str, claim: str, where: str, value: Any = None) -> Source:
    return Source(key, claim, where, value)


_ALL = [
    # -- the paper --------------------------------------------------------------------------
    _s("paper.working_context", "working context is a fixed-size read/write block of unstructured "
       "text, written only through function calls (no persona/human split)", f"{PAPER} §2.1"),
    _s("paper.tiers", "main context (system instructions, working context, FIFO queue) and external "
       "context: recall storage and archival storage; three tiers already, under other names than "
       "Letta's", f"{PAPER} §2.1"),
    _s("paper.plan_out_loud", "the paper asks the model to plan out loud; 'inner monologue' is the "
       "word of MemGPT's code and prompts, not the paper's", f"{PAPER} §4"),
    _s("paper.warning", "memory-pressure warning when the prompt passes e.g. 70 % of the window",
       f"{PAPER} §2.2", 0.7),
    _s("paper.flush", "flush when the prompt passes e.g. 100 % of the window", f"{PAPER} §2.2", 1.0),
    _s("paper.evict_to", "a flush evicts e.g. 50 % of the window into a new recursive summary; the "
       "paper says nothing about keeping a tool call with its result", f"{PAPER} §2.2", 0.5),
    _s("paper.recall_on_append", "the queue manager writes every incoming message and every output "
       "to recall storage as it arrives, not when it is evicted", f"{PAPER} §2.2"),
    _s("paper.events", "events trigger inference: user messages, system messages (e.g. capacity "
       "warnings), user interactions (a login, an upload finished) and timed events", f"{PAPER} §2.4"),
    _s("paper.heartbeat", "a call with request_heartbeat returns control to the processor at once; "
       "without it the processor yields until the next external event", f"{PAPER} §2.4"),
    _s("paper.dmr", "deep memory retrieval accuracy / ROUGE-L recall, without and with MemGPT; the "
       "baselines saw a lossy summary of the past sessions, MemGPT the full history through search",
       f"{PAPER} Table 2 §3.1.1",
       {"GPT-3.5 Turbo": ((0.387, 0.394), (0.669, 0.629)), "GPT-4": ((0.321, 0.296), (0.925, 0.814)),
        "GPT-4 Turbo": ((0.353, 0.359), (0.934, 0.827))}),
    _s("paper.doc_qa", "document QA is multi-document QA over retrieved Wikipedia passages "
       "(NaturalQuestions-Open, 50 questions), not documents over 100k tokens", f"{PAPER} §3.2.1", 50),
    _s("paper.nested_kv", "nested KV: 140 UUID pairs, about 8k tokens, the GPT-4 baseline's window; "
       "the baselines saw every pair and still failed; GPT-3.5's failure was returning the original "
       "value", f"{PAPER} §3.2.2", 140),
    # -- MemGPT's research code, 0.3.25 ------------------------------------------------------
    _s("memgpt.warning", "MESSAGE_SUMMARY_WARNING_FRAC", f"{MEMGPT}:memgpt/constants.py", 0.75),
    _s("memgpt.trunc_frac", "MESSAGE_SUMMARY_TRUNC_TOKEN_FRAC: summarise the oldest share of the "
       "message tokens, only when the provider reports an overflow", f"{MEMGPT}:memgpt/constants.py", 0.75),
    _s("memgpt.keep_last", "MESSAGE_SUMMARY_TRUNC_KEEP_N_LAST; the cut never parts a tool call from "
       "its result", f"{MEMGPT}:memgpt/constants.py", 3),
    _s("memgpt.core_limit", "CORE_MEMORY_PERSONA_CHAR_LIMIT = CORE_MEMORY_HUMAN_CHAR_LIMIT",
       f"{MEMGPT}:memgpt/constants.py", 2000),
    _s("memgpt.memory_module", "from 0.3.19 to 0.3.25 each section is a MemoryModule(description, "
       "limit=2000, value) whose __setattr__ stores the value first and validates it after: an "
       "over-limit edit raises, but the value stays stored and loading the agent fails later "
       "(0.3.18 and earlier: a CoreMemory of plain strings with limits in code)",
       f"{MEMGPT}:memgpt/memory.py", 2000),
    _s("memgpt.page_size", "RETRIEVAL_QUERY_DEFAULT_PAGE_SIZE", f"{MEMGPT}:memgpt/constants.py", 5),
    _s("memgpt.return_limit", "FUNCTION_RETURN_CHAR_LIMIT", f"{MEMGPT}:memgpt/constants.py", 3000),
    _s("memgpt.max_pause", "MAX_PAUSE_HEARTBEATS (minutes)", f"{MEMGPT}:memgpt/constants.py", 360),
    _s("memgpt.max_chaining_steps", "the server's optional cap on heartbeat chains; None (no cap) by "
       "default", f"{MEMGPT}:memgpt/server/server.py", None),
    _s("memgpt.tools", "archival_memory_insert(content), archival_memory_search(query, page), "
       "conversation_search(query, page), conversation_search_date(start_date, end_date, page), "
       "send_message(message), pause_heartbeats(minutes)", f"{MEMGPT}:memgpt/functions/function_sets/base.py",
       ("send_message", "pause_heartbeats", "conversation_search", "conversation_search_date",
        "archival_memory_insert", "archival_memory_search")),
    _s("memgpt.memory_tools", "core_memory_append(name, content), core_memory_replace(name, old_content, "
       "new_content): methods of the memory class", f"{MEMGPT}:memgpt/memory.py",
       ("core_memory_append", "core_memory_replace")),
    # -- the last Letta server ---------------------------------------------------------------
    _s("letta.default_agent", "the default agent type is letta_v1_agent (no heartbeats: tool rules "
       "decide)", f"{LETTA}:letta/schemas/agent.py", "letta_v1_agent"),
    _s("letta.v1_tools", "letta_v1_agent drops send_message from its default tools (and the v3 loop "
       "adds no request_heartbeat); the older v2 loop still adds request_heartbeat to every tool",
       f"{LETTA}:letta/services/agent_manager.py", None),
    _s("letta.compaction_trigger", "SUMMARIZATION_TRIGGER_MULTIPLIER: compaction once usage passes "
       "this share of the window", f"{LETTA}:letta/constants.py", 0.9),
    _s("letta.sliding_window", "compaction mode 'sliding_window': the share of messages evicted "
       "starts at sliding_window_percentage and grows by 0.10 before each try, the cut snaps back "
       "to an assistant message, until what is kept fits under (1 - percentage) x window",
       f"{LETTA}:letta/services/summarizer/summarizer_sliding_window.py", 0.30),
    _s("letta.partial_evict", "the older v2 loop's 'partial evict' keeps the newest share of the "
       "messages by count (partial_evict_summarizer_percentage): what is kept starts at index "
       "round((1 - share) x N), N counting the system message, moved forward to an assistant message; "
       "the rest (about 70 %) is summarised", f"{LETTA}:letta/services/summarizer/summarizer.py", 0.30),
    _s("letta.v2_trigger", "the older v2 loop summarises only when the last response's tokens pass "
       "100 % of the window or the provider reports a context overflow (no 90 % trigger)",
       f"{LETTA}:letta/agents/letta_agent_v2.py", 1.0),
    _s("letta.message_ids", "the agent state names its in-context messages message_ids; "
       "in_context_message_ids is the Agent File's field", f"{LETTA}:letta/schemas/agent.py", "message_ids"),
    _s("letta.create_client", "the old client API (create_client) printed a deprecation message from "
       "2025-03-04 and the local client was removed on 2025-05-22 (commit d4390cd9)",
       "letta-ai/letta@6a7b9ff4:letta/client/client.py", "2025-05-22"),
    _s("letta.no_warning", "memory_warning_threshold 0.75 exists but send_memory_warning_message is "
       "False: no warning by default", f"{LETTA}:letta/settings.py", None),
    _s("letta.core_limit", "CORE_MEMORY_PERSONA_CHAR_LIMIT = CORE_MEMORY_HUMAN_CHAR_LIMIT",
       f"{LETTA}:letta/constants.py", 20000),
    _s("letta.block_limit", "CORE_MEMORY_BLOCK_CHAR_LIMIT (other blocks)", f"{LETTA}:letta/constants.py", 100000),
    _s("letta.page_size", "RETRIEVAL_QUERY_DEFAULT_PAGE_SIZE", f"{LETTA}:letta/constants.py", 5),
    _s("letta.return_limit", "FUNCTION_RETURN_CHAR_LIMIT", f"{LETTA}:letta/constants.py", 50000),
    _s("letta.max_steps", "DEFAULT_MAX_STEPS", f"{LETTA}:letta/constants.py", 50),
    _s("letta.hybrid_search", "embeddings and full text fused by reciprocal rank only when the "
       "archive uses Turbopuffer (use_tpuf, False by default); a self-hosted server searches with "
       "SQL / embeddings, conversation_search likewise", f"{LETTA}:letta/settings.py", False),
    _s("letta.sleeptime_frequency", "the sleep-time agent runs as a background task every N turns of "
       "the primary agent (sleeptime_agent_frequency, set to 5 when the server creates the group; "
       "the every-N count is in groups/sleeptime_multi_agent_v4.py), not between sessions",
       f"{LETTA}:letta/server/server.py", 5),
    _s("letta.tools", "core_memory_append(label, content), core_memory_replace(label, old_content, "
       "new_content), memory_replace, memory_insert, memory_rethink, memory_finish_edits, memory, "
       "memory_apply_patch, rethink_memory, archival_memory_insert(content, tags), "
       "archival_memory_search(query, tags, ...), conversation_search(query=None, roles, limit, "
       "start_date, end_date); conversation_search_date is gone",
       f"{LETTA}:letta/functions/function_sets/base.py", None),
    _s("letta.over_limit_reports", "the over-limit block reports (letta-ai/letta issues 1567 and "
       "1636, July/August 2024) are MemGPT 0.3.x MemoryModule validation errors from before the "
       "rename", f"{MEMGPT}:memgpt/memory.py", (1567, 1636)),
    # -- other systems -----------------------------------------------------------------------
    _s("mem0.pipeline", "Mem0 runs an LLM extraction and update pipeline (ADD / UPDATE / DELETE / "
       "NOOP) beside the agent, outside the agent's own decisions", "arXiv:2504.19413v1 §2.1",
       ("ADD", "UPDATE", "DELETE", "NOOP")),
]

#: key -> Source
SOURCES: dict[str, Source] = {s.key: s for s in _ALL}


def _get(key: str) -> Source:
    try:
        return SOURCES[key]
    except KeyError:
        close = [k for k in SOURCES if k.split(".")[0] == key.split(".")[0]]
        raise KeyError(f"no source {key!r}; known under that prefix: {', '.join(close) or 'none'}") from None


def cite(key: str) -> str:
    """Where a claim was read, e.g. cite("paper.warning") -> "arXiv:2310.08560v2 §2.2"."""
    return _get(key).where


def value(key: str) -> Any:
    """The registered value of a claim (what tests and profiles compare against)."""
    return _get(key).value


class _Table:
    """A small sources table: HTML in a notebook, plain text elsewhere (nbval, a terminal)."""

    def __init__(self, rows: list[Source]):
        self.rows = rows

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(s.claim)}</td><td>{'' if s.value is None else html.escape(_show(s.value))}"
            f"</td><td><code>{html.escape(s.where)}</code></td></tr>" for s in self.rows)
        return ("<table><thead><tr><th>claim</th><th>value</th><th>where it was read</th></tr></thead>"
                f"<tbody>{cells}</tbody></table>")

    def __repr__(self) -> str:
        return "\n".join(f"{s.key}: {'' if s.value is None else _show(s.value) + ' '}({s.where})"
                         for s in self.rows)


def _show(v: Any) -> str:
    if isinstance(v, float) and 0 < v < 1:
        return f"{v:.0%}"
    if isinstance(v, (tuple, list)):
        return ", ".join(map(str, v))
    return str(v)


def sources_table(*keys: str) -> _Table:
    """The registry entries for `keys`, as a table a notebook renders (unknown keys raise KeyError)."""
    if not keys:
        raise ValueError("name at least one source key, e.g. sources_table('paper.warning')")
    return _Table([_get(k) for k in keys])
