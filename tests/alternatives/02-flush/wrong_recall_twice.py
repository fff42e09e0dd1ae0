"""Wrong: files each unit in recall as it leaves, then files the whole evicted list again after summarizing."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens)
    evicted = []
    cut = 0
    while cut < len(queue) and used > target:
        end = cut + 1
        if queue[cut].is_tool_call:
            while end < len(queue) and queue[end].role == "tool" and queue[end].tool_call_id == queue[cut].tool_call_id:
                end += 1
        for message in queue[cut:end]:
            recall.add(message)
            evicted.append(message)
        used -= sum(tokens[cut:end])
        cut = end
    if not evicted:
        return list(queue), summary
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary
