"""Wrong: after cutting message by message it evicts the rest of a unit only when the cut fell among its results, not when it fell right after the call."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens)
    cut = 0
    while cut < len(queue) and used > target:
        used -= tokens[cut]
        cut += 1
    # do not leave half of a call's results behind
    while 0 < cut < len(queue) and queue[cut - 1].role == "tool" and queue[cut].role == "tool" \
            and queue[cut].tool_call_id == queue[cut - 1].tool_call_id:
        used -= tokens[cut]
        cut += 1
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary
