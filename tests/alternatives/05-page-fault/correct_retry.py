"""First tries a query that finds nothing ('allergy'), chains with a heartbeat, retries with matching words, then answers."""
from memlib.agent import ToolCall


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    calls = []
    for query in ("allergy", "Biscuit allergic"):
        calls.append(ToolCall("archival_memory_search", {"query": query, "request_heartbeat": True}))
    calls.append(ToolCall("send_message", {"message": "[arc-000001] Chicken: Biscuit must avoid chicken."}))
    return calls
