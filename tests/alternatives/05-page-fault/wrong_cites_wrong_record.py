"""Wrong: cites the vet's record arc-000002 instead of the record the answer comes from (arc-000001)."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
        ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000002]"}),
    ]
