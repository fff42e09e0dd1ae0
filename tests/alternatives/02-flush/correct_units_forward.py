"""Cuts the queue into units first with a forward for loop (a call plus its results), then drops whole units from the front."""


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    units = []  # each unit: a list of (message, tokens) pairs
    for message, cost in zip(queue, tokens):
        head = units[-1][0][0] if units else None
        joins_call = (
            head is not None
            and message.role == "tool"
            and head.role == "assistant"
            and head.tool_call_id is not None
            and message.tool_call_id == head.tool_call_id
        )
        if joins_call:
            units[-1].append((message, cost))
        else:
            units.append([(message, cost)])

    total = sum(tokens)
    gone = 0
    while gone < len(units) and total > target:
        total -= sum(cost for _, cost in units[gone])
        gone += 1
    if gone == 0:
        return list(queue), summary

    evicted = [message for unit in units[:gone] for message, _ in unit]
    kept = [message for unit in units[gone:] for message, _ in unit]
    new_summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return kept, new_summary
