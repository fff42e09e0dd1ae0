"""Files the evicted messages first and folds recall's returned copies (same messages, id and timestamp filled in) into the summary."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    cut, used = 0, sum(tokens)
    while cut < len(queue) and used > target:
        end = cut + 1
        if queue[cut].is_tool_call:
            while end < len(queue) and queue[end].role == "tool" and queue[end].tool_call_id == queue[cut].tool_call_id:
                end += 1
        used -= sum(tokens[cut:end])
        cut = end
    if cut == 0:
        return list(queue), summary
    filed = [recall.add(message) for message in queue[:cut]]
    return list(queue[cut:]), summarizer.summarize(summary, filed, summary_tokens)
