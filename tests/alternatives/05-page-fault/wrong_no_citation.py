"""Wrong: the reply gives the right answer but cites no record (the id is mentioned without brackets)."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
        ToolCall("send_message", {"message": "Biscuit must avoid chicken (record arc-000001)."}),
    ]
