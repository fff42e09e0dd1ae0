"""Builds the calls from a data table of (name, arguments) pairs; query 'dog food chicken', answer in lower case."""
from memlib.agent import ToolCall

_SCRIPT = (
    ("archival_memory_search", dict(query="dog food chicken", request_heartbeat=True)),
    ("send_message", dict(message="chicken. biscuit is allergic to chicken [arc-000001]")),
)


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return [ToolCall(name, dict(arguments)) for name, arguments in _SCRIPT]
