"""Wrong: forgets MESSAGE_OVERHEAD, counting only count(text) per message."""
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    budget = window - count(system_prompt) - reserve
    n = 0
    for text in reversed(messages):
        if count(text) > budget:
            break
        budget -= count(text)
        n += 1
    return n
