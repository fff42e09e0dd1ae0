"""A while loop over indices with a running total of what is kept; a call pulls its results along; no unit list."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    remaining = sum(tokens)
    i = 0
    while i < len(queue) and remaining > target:
        first = queue[i]
        remaining -= tokens[i]
        i += 1
        if first.role == "assistant" and first.tool_call_id:
            while i < len(queue) and queue[i].role == "tool" and queue[i].tool_call_id == first.tool_call_id:
                remaining -= tokens[i]
                i += 1
    if i == 0:
        return list(queue), summary
    evicted = queue[:i]
    new_summary = summarizer.summarize(summary, list(evicted), summary_tokens)
    for message in evicted:
        recall.add(message)
    return queue[i:], new_summary
