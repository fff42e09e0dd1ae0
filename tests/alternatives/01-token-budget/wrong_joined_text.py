"""Wrong: counts the tokens of the joined text of the kept messages instead of summing per-message counts
(tokens merge across message boundaries, so the total differs from sum(count(m)))."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    fixed = count(system_prompt) + reserve
    n = 0
    for k in range(1, len(messages) + 1):
        newest = messages[-k:]
        total = fixed + count("".join(newest)) + MESSAGE_OVERHEAD * k
        if total > window:
            break
        n = k
    return n
