"""Wrong: counts the summary's budget against the target (kept + summary_tokens <= target), so it evicts too much."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens) + summary_tokens
    cut = 0
    while cut < len(queue) and used > target:
        end = cut + 1
        if queue[cut].is_tool_call:
            while end < len(queue) and queue[end].role == "tool" and queue[end].tool_call_id == queue[cut].tool_call_id:
                end += 1
        used -= sum(tokens[cut:end])
        cut = end
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary
