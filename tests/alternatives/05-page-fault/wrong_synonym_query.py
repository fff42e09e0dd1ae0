"""Wrong: the query 'allergy diet' shares no stemmed word with the fact, so the search finds nothing; the reply answers from nowhere."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("archival_memory_search", {"query": "allergy diet", "request_heartbeat": True}),
        ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000001]"}),
    ]
