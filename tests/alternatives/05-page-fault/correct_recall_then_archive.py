"""Searches recall storage first (with a heartbeat), then archival memory, then answers citing the archival record."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("conversation_search", {"query": "Biscuit", "request_heartbeat": True}),
        ToolCall("archival_memory_search", {"query": "what food is Biscuit allergic to", "request_heartbeat": True}),
        ToolCall("send_message", {"message": "According to what you told me [arc-000001], Biscuit must avoid chicken."}),
    ]
