"""Straight loop from the newest message, subtracting each cost from the remaining budget."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    budget = window - count(system_prompt) - reserve
    n = 0
    for text in reversed(messages):
        cost = count(text) + MESSAGE_OVERHEAD
        if cost > budget:
            break
        budget -= cost
        n += 1
    return n
