"""Wrong: searches recall storage (conversation_search) instead of archival memory, then cites the archival id."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("conversation_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
        ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000001]"}),
    ]
