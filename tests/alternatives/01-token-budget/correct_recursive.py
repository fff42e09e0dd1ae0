"""Recursive formulation: the newest message fits, then recurse on the rest with the smaller window."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def _fit(messages, end, room):
    if end == 0:
        return 0
    cost = count(messages[end - 1]) + MESSAGE_OVERHEAD
    if cost > room:
        return 0
    return 1 + _fit(messages, end - 1, room - cost)


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    import sys

    messages = list(messages)
    limit = sys.getrecursionlimit()
    if len(messages) + 100 > limit:
        sys.setrecursionlimit(len(messages) + 1000)
    try:
        return _fit(messages, len(messages), window - reserve - count(system_prompt))
    finally:
        sys.setrecursionlimit(limit)
