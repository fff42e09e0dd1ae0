"""Builds cumulative costs of the newest-first suffix with itertools.accumulate and counts prefixes within budget."""
from itertools import accumulate, takewhile

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    fixed = count(system_prompt) + reserve
    costs = [count(m) + MESSAGE_OVERHEAD for m in messages[::-1]]
    totals = accumulate(costs, initial=fixed)
    next(totals)  # the total with no message at all
    return sum(1 for _ in takewhile(lambda t: t <= window, totals))
