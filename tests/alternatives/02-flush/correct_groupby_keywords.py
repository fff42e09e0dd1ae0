"""Numbers the units and groups with itertools.groupby; calls summarize with the protocol's keyword names."""
from itertools import accumulate, groupby


def _unit_numbers(queue):
    number, call_id = -1, None
    for message in queue:
        if not (message.role == "tool" and call_id is not None and message.tool_call_id == call_id):
            number += 1
            call_id = message.tool_call_id if message.is_tool_call else None
        yield number


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    items = list(zip(_unit_numbers(queue), queue, tokens))
    units = [[(m, t) for _, m, t in group] for _, group in groupby(items, key=lambda x: x[0])]
    unit_tokens = [sum(t for _, t in unit) for unit in units]
    total = sum(tokens)
    # freed[k]: tokens freed by evicting the first k units
    freed = list(accumulate(unit_tokens, initial=0))
    k = next((k for k, f in enumerate(freed) if total - f <= target), len(units))
    if k == 0:
        return list(queue), summary
    evicted = [m for unit in units[:k] for m, _ in unit]
    kept = [m for unit in units[k:] for m, _ in unit]
    new_summary = summarizer.summarize(previous=summary, evicted=evicted, max_tokens=summary_tokens)
    for m in evicted:
        recall.add(m)
    return kept, new_summary
