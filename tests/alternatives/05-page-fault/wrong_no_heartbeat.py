"""Wrong: the search does not request a heartbeat, so the turn ends after the search and the reply never runs."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("archival_memory_search", {"query": "Biscuit allergic"}),
        ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000001]"}),
    ]
