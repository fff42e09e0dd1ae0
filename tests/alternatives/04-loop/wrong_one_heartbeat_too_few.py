"""Wrong: one heartbeat too few: loops over range(max_heartbeats) calls, so a step makes at most max_heartbeats calls."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        for beat in range(self.max_heartbeats):
            call = self.ask(trace, calls)
            if call is None:
                return trace
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                return trace
            if beat == self.max_heartbeats - 1:
                trace.add("heartbeat", "heartbeat cap reached")
            else:
                trace.add("heartbeat", "requested")
        return trace
