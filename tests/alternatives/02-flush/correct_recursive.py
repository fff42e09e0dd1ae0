"""Recursive: if what is left does not fit, drop the first unit and recurse on the rest."""


def _unit_end(queue, start):
    """One past the last message of the unit that begins at `start`."""
    end = start + 1
    head = queue[start]
    if head.is_tool_call:
        while end < len(queue) and queue[end].role == "tool" and queue[end].tool_call_id == head.tool_call_id:
            end += 1
    return end


def _cut(queue, tokens, start, left, target):
    """Index of the first kept message, given that queue[start:] takes `left` tokens."""
    if left <= target or start == len(queue):
        return start
    end = _unit_end(queue, start)
    return _cut(queue, tokens, end, left - sum(tokens[start:end]), target)


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    cut = _cut(queue, tokens, 0, sum(tokens), target)
    if not cut:
        return list(queue), summary
    evicted = list(queue[:cut])
    summary = summarizer.summarize(summary, evicted, summary_tokens)
    for message in evicted:
        recall.add(message)
    return list(queue[cut:]), summary
