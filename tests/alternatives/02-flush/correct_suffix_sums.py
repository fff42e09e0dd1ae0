"""Sums the tokens from the end (suffix sums), marks where units begin, and cuts at the first unit start whose suffix fits."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    n = len(queue)
    suffix = [0] * (n + 1)  # suffix[i]: tokens of queue[i:]
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + tokens[i]

    starts = []  # indices where a unit begins; a cut may only fall there (or at the end)
    open_call = None  # tool_call_id of the call whose results may still follow
    for i, message in enumerate(queue):
        if message.role == "tool" and open_call is not None and message.tool_call_id == open_call:
            continue  # a result of the call just before: same unit
        starts.append(i)
        open_call = message.tool_call_id if message.is_tool_call else None
    starts.append(n)

    cut = next((i for i in starts if suffix[i] <= target), n)
    if cut == 0:
        return list(queue), summary
    evicted, kept = list(queue[:cut]), list(queue[cut:])
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return kept, new_summary
