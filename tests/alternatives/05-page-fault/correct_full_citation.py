"""Queries 'chicken', adds inner-monologue thoughts, and cites in the full Citation.format() form."""
from memlib.agent import ToolCall

RECORD = "arc-000001"
FULL_CITATION = f"[{RECORD} · session s1 turn 5]"  # what Citation.from_record(record).format() printed


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    search = ToolCall(
        name="archival_memory_search",
        arguments={"query": "Biscuit chicken allergic", "page": 0, "request_heartbeat": True},
        thought="The food Biscuit must avoid is not in my prompt; look it up in archival memory.",
    )
    reply = ToolCall(
        name="send_message",
        arguments={"message": f"Biscuit is allergic to chicken, so keep chicken away from him {FULL_CITATION}."},
        thought="Found it in the archive; answer and cite the record.",
    )
    return [search, reply]
