"""A recursive helper: one call per level, recursing while a heartbeat is asked for and allowed."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def _chain(self, trace, calls, beats_left):
        call = self.ask(trace, calls)
        if call is None:
            return
        result = dispatch(call.name, call.arguments, self.memory)
        self.splice(call, result, trace)
        calls.append((call, result))
        if not result.heartbeat:
            return
        if beats_left == 0:
            trace.add("heartbeat", "hit the cap: no more heartbeats this step")
            return
        trace.add("heartbeat", f"{beats_left - 1} heartbeats left")
        self._chain(trace, calls, beats_left - 1)

    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        self._chain(trace, [], self.max_heartbeats)
        return trace
