"""Wrong: pops the evicted messages off `queue` itself (the caller's list) and returns it as the kept list."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    costs = list(tokens)
    used = sum(costs)
    evicted = []
    while queue and used > target:
        message = queue.pop(0)
        used -= costs.pop(0)
        evicted.append(message)
        if message.is_tool_call:
            while queue and queue[0].role == "tool" and queue[0].tool_call_id == message.tool_call_id:
                evicted.append(queue.pop(0))
                used -= costs.pop(0)
    if not evicted:
        return list(queue), summary
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return queue, new_summary
