"""Counts turns with itertools.count and passes an immutable snapshot of the pairs, tuple(calls), to ask."""
from itertools import count

from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        for turn in count():
            call = self.ask(trace, tuple(calls))
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls += [(call, result)]
            if not result.heartbeat:
                break
            if turn >= self.max_heartbeats:
                trace.add("heartbeat", "cap")
                break
            trace.add("heartbeat", "")
        return trace
