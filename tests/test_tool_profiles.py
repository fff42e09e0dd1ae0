"""memlib.tools.tool_schemas: MemGPT 0.3.25's and the last Letta server's tool surfaces, pinned to the fact sheet."""

import json
from datetime import datetime

import pytest

from memlib.tools import (MAX_PAUSE_HEARTBEATS, TOOL_SCHEMAS, ToolResult, memgpt_return, tool_schemas)


def surface(profile):
    return {f["function"]["name"]: f["function"]["parameters"] for f in tool_schemas(profile)}


def signature(params):
    return list(params["properties"]), params["required"]


def test_memgpt_03_surface():
    tools = surface("memgpt-0.3")
    assert sorted(tools) == sorted([
        "send_message", "pause_heartbeats", "conversation_search", "conversation_search_date",
        "archival_memory_insert", "archival_memory_search", "core_memory_append", "core_memory_replace"])
    assert signature(tools["send_message"]) == (["message"], ["message"])
    assert signature(tools["pause_heartbeats"]) == (["minutes"], ["minutes"])
    assert signature(tools["core_memory_append"]) == (["name", "content", "request_heartbeat"],
                                                      ["name", "content", "request_heartbeat"])
    assert signature(tools["core_memory_replace"])[0] == ["name", "old_content", "new_content", "request_heartbeat"]
    # page has a default (0), so it is optional; request_heartbeat is required everywhere it appears
    assert signature(tools["conversation_search_date"]) == (
        ["start_date", "end_date", "page", "request_heartbeat"], ["start_date", "end_date", "request_heartbeat"])
    for name, params in tools.items():
        has = "request_heartbeat" in params["properties"]
        assert has == (name not in ("send_message", "pause_heartbeats")), name
        assert has == ("request_heartbeat" in params["required"]), name
        if has:
            assert params["properties"]["request_heartbeat"]["type"] == "boolean"
    assert MAX_PAUSE_HEARTBEATS == 360


def test_letta_surface():
    tools = surface("letta")
    assert "conversation_search_date" not in tools and "pause_heartbeats" not in tools
    assert signature(tools["core_memory_append"]) == (["label", "content"], ["label", "content"])
    assert signature(tools["memory_replace"]) == (["label", "old_string", "new_string"],
                                                  ["label", "old_string", "new_string"])
    assert signature(tools["memory_insert"]) == (["label", "new_string", "insert_line"], ["label", "new_string"])
    assert signature(tools["memory_rethink"]) == (["label", "new_memory"], ["label", "new_memory"])
    assert signature(tools["memory_finish_edits"]) == ([], [])
    assert signature(tools["archival_memory_insert"]) == (["content", "tags"], ["content"])
    assert signature(tools["archival_memory_search"]) == (
        ["query", "tags", "tag_match_mode", "top_k", "start_datetime", "end_datetime"], ["query"])
    assert tools["archival_memory_search"]["properties"]["tag_match_mode"]["enum"] == ["any", "all"]
    assert signature(tools["conversation_search"])[0] == ["query", "roles", "limit", "start_date", "end_date"]
    assert not any("request_heartbeat" in p["properties"] for p in tools.values())


def test_memlib_surface_is_today_s_and_a_fresh_copy():
    a = tool_schemas("memlib")
    assert a == TOOL_SCHEMAS and a is not TOOL_SCHEMAS
    a[0]["function"]["name"] = "changed"
    assert TOOL_SCHEMAS[0]["function"]["name"] != "changed"
    memory_tools = [f["function"]["name"] for f in TOOL_SCHEMAS if f["function"]["name"] != "send_message"]
    assert len(memory_tools) == 6  # six memory tools, plus send_message


def test_unknown_profile_is_named():
    with pytest.raises(ValueError, match="unknown tool profile 'memgpt'; choose one of memlib, memgpt-0.3, letta"):
        tool_schemas("memgpt")


def test_memgpt_envelope():
    text = memgpt_return(ToolResult("Failed", "Content not found"), datetime(2024, 5, 1, 14, 5))
    assert json.loads(text) == {"status": "Failed", "message": "Content not found", "time": "2024-05-01 02:05:00 PM"}
    with pytest.raises(TypeError):
        memgpt_return({"status": "OK"})
