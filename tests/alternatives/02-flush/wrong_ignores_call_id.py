"""Wrong: a call takes along every "tool" message that follows it, whatever its tool_call_id (the rule asks for the same id)."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens)
    cut = 0
    while cut < len(queue) and used > target:
        end = cut + 1
        if queue[cut].is_tool_call:
            while end < len(queue) and queue[end].role == "tool":
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
