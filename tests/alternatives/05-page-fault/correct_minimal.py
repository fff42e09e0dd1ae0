"""Two calls, short query with the dog's name and the fact's verb, bare [arc-000001] citation at the end."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [
        ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
        ToolCall("send_message", {"message": "Biscuit must avoid chicken: he is allergic to it. [arc-000001]"}),
    ]
