"""Wrong: evicts message by message and ignores tool units, so a call can leave while its results stay (or the reverse)."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    used = sum(tokens)
    cut = 0
    while cut < len(queue) and used > target:
        used -= tokens[cut]
        cut += 1
    if cut == 0:
        return list(queue), summary
    evicted = list(queue[:cut])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), new_summary
