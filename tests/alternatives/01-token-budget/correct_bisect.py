"""Precomputes suffix sums (oldest-first indexing) and binary-searches the shortest suffix that fits."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    messages = list(messages)
    room = window - reserve - count(system_prompt)
    if room <= 0 or not messages:
        return 0
    # suffix[i] = tokens of messages[i:], so suffix[len] = 0 and it decreases with i
    suffix = [0] * (len(messages) + 1)
    for i in range(len(messages) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + count(messages[i]) + MESSAGE_OVERHEAD
    lo, hi = 0, len(messages)  # find the smallest start index i with suffix[i] <= room
    while lo < hi:
        mid = (lo + hi) // 2
        if suffix[mid] <= room:
            hi = mid
        else:
            lo = mid + 1
    return len(messages) - lo
