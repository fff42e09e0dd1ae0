"""Wrong: uses a strict < comparison, so a prompt that fills the window exactly is rejected."""
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt) + reserve
    n = 0
    for text in reversed(messages):
        used += count(text) + MESSAGE_OVERHEAD
        if not used < window:
            break
        n += 1
    return n
