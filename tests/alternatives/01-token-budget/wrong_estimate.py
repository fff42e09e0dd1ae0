"""Wrong: uses the words x 1.3 estimate (memlib.tokens.estimate) instead of memlib.tokens.count."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import estimate


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    budget = window - estimate(system_prompt) - reserve
    n = 0
    for text in reversed(messages):
        cost = estimate(text) + MESSAGE_OVERHEAD
        if cost > budget:
            break
        budget -= cost
        n += 1
    return n
