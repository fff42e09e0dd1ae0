"""Grows a running total (not a remaining budget) with an index-based while loop; returns the kept count."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt or "") + int(reserve)
    i = len(messages)
    while i > 0:
        nxt = used + MESSAGE_OVERHEAD + count(messages[i - 1])
        if nxt > window:
            break
        used = nxt
        i -= 1
    return len(messages) - i
