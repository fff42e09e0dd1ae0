"""Copies the queue into a deque of (message, tokens) and pops units off its left end; files in recall before summarizing."""
from collections import deque


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    left = deque(zip(queue, tokens))
    used = sum(tokens)
    evicted = []
    while left and used > target:
        message, cost = left.popleft()
        evicted.append(message)
        used -= cost
        if message.role == "assistant" and message.tool_call_id is not None:
            while left and left[0][0].role == "tool" and left[0][0].tool_call_id == message.tool_call_id:
                result, cost = left.popleft()
                evicted.append(result)
                used -= cost
    if not evicted:
        return list(queue), summary
    for message in evicted:
        recall.add(message)
    return [message for message, _ in left], summarizer.summarize(summary, evicted, summary_tokens)
