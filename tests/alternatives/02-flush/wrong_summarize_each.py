"""Wrong: folds the evicted messages into the summary one call per message instead of one call for all of them."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens)
    cut = 0
    while cut < len(queue) and used > target:
        end = cut + 1
        if queue[cut].is_tool_call:
            while end < len(queue) and queue[end].role == "tool" and queue[end].tool_call_id == queue[cut].tool_call_id:
                end += 1
        used -= sum(tokens[cut:end])
        cut = end
    for message in queue[:cut]:
        summary = summarizer.summarize(summary, [message], summary_tokens)
        recall.add(message)
    return list(queue[cut:]), summary
