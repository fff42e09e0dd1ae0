"""The registry of sources: well-formed, and tied to every number memlib quotes from it."""

import json
import re
from pathlib import Path

import pytest

from memlib import sources
from memlib.context import PROFILES, SLIDING_WINDOW_STEP
from memlib.core_memory import DEFAULT_LIMIT
from memlib.sources import SOURCES, Source, cite, sources_table, value
from memlib.tools import MAX_PAUSE_HEARTBEATS, PAGE_SIZE, RESULT_CHAR_LIMIT, tool_schemas
from conftest import ROOT



def test_every_source_says_where_it_was_read():
    assert len(SOURCES) >= 30
    for key, s in SOURCES.items():
        assert s.key == key and s.claim
        # the paper, MemGPT 0.3.25, the last Letta server; a dated change names its own commit
        assert re.match(r"arXiv:|letta-ai/letta@(0\.3\.25|56ba9c25|[0-9a-f]{8}):", s.where), key
    with pytest.raises(ValueError, match="neither"):
        Source("x.y", "a claim", "somewhere on the web")


def test_unknown_keys_and_empty_tables_are_named():
    with pytest.raises(KeyError, match="known under that prefix: .*letta.compaction_trigger"):
        cite("letta.compaction")
    with pytest.raises(ValueError, match="at least one"):
        sources_table()
    table = sources_table("paper.warning", "letta.sliding_window")
    assert "70%" in table._repr_html_() and "summarizer_sliding_window.py" in repr(table)


def test_the_paging_profiles_carry_the_registered_numbers():
    paper, memgpt = PROFILES["paper"], PROFILES["memgpt"]
    assert (paper.warn_at, paper.trigger_at, paper.amount) == (
        value("paper.warning"), value("paper.flush"), value("paper.evict_to"))
    assert (memgpt.warn_at, memgpt.amount, memgpt.keep_last) == (
        value("memgpt.warning"), value("memgpt.trunc_frac"), value("memgpt.keep_last"))
    assert PROFILES["letta"].trigger_at == value("letta.compaction_trigger")
    assert PROFILES["letta_v2"].trigger_at == value("letta.v2_trigger")
    for name in ("letta", "letta_v2"):
        assert PROFILES[name].warn_at is None      # letta.no_warning
    assert (PROFILES["letta"].evict, PROFILES["letta"].amount) == ("sliding_window", value("letta.sliding_window"))
    assert (PROFILES["letta_v2"].evict, PROFILES["letta_v2"].amount) == ("partial_evict", value("letta.partial_evict"))
    assert value("letta.default_agent") in PROFILES["letta"].source
    assert SLIDING_WINDOW_STEP == 0.10


def test_the_quoted_constants_and_tool_surfaces_match_the_registry():
    assert PAGE_SIZE == value("memgpt.page_size") == value("letta.page_size")
    assert RESULT_CHAR_LIMIT == value("memgpt.return_limit")
    assert MAX_PAUSE_HEARTBEATS == value("memgpt.max_pause")
    assert DEFAULT_LIMIT == value("memgpt.core_limit") == value("memgpt.memory_module")
    memgpt = [f["function"]["name"] for f in tool_schemas("memgpt-0.3")]
    assert sorted(memgpt) == sorted(value("memgpt.tools") + value("memgpt.memory_tools"))
    letta = {f["function"]["name"] for f in tool_schemas("letta")}
    assert "conversation_search_date" not in letta and {"memory_replace", "memory_insert"} <= letta


def _cited_keys(text):
    return re.findall(r"""sources_table\(([^)]*)\)""", text)


def test_every_key_the_notebooks_and_quizzes_cite_exists():
    cited = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for args in _cited_keys("".join(cell["source"])):
                cited += [(path.name, k) for k in re.findall(r"""["']([\w.]+)["']""", args)]
    for path in sorted((ROOT / "data" / "quizzes").glob("*.json")):
        for q in json.loads(path.read_text())["questions"]:
            cited += [(path.name, k) for k in q.get("sources", [])]
    assert len(cited) >= 20, cited
    missing = [(where, k) for where, k in cited if k not in SOURCES]
    assert not missing


def test_the_module_reads_nothing_from_the_network():
    text = Path(sources.__file__).read_text()
    assert "urllib" not in text and "requests" not in text
