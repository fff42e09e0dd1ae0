"""Files each message in recall inside the eviction loop, as it leaves, and summarizes once after the loop."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    kept_tokens = sum(tokens)
    evicted = []
    i = 0
    while kept_tokens > target and i < len(queue):
        unit = [i]
        if queue[i].is_tool_call:
            j = i + 1
            while j < len(queue) and queue[j].role == "tool" and queue[j].tool_call_id == queue[i].tool_call_id:
                unit.append(j)
                j += 1
        for k in unit:
            recall.add(queue[k])
            evicted.append(queue[k])
            kept_tokens -= tokens[k]
        i = unit[-1] + 1
    if not evicted:
        return list(queue), summary
    return list(queue[i:]), summarizer.summarize(summary, evicted, summary_tokens)
