"""Wrong: evicts from the newest end (the messages just said) instead of the oldest, keeping units together."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens)
    end = len(queue)
    while end > 0 and used > target:
        start = end - 1
        # a result at the end pulls back to its call
        while start > 0 and queue[start].role == "tool" and queue[start - 1].tool_call_id == queue[start].tool_call_id:
            start -= 1
        used -= sum(tokens[start:end])
        end = start
    if end == len(queue):
        return list(queue), summary
    evicted = list(queue[end:])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[:end]), new_summary
