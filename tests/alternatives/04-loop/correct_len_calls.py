"""No counter: the heartbeats so far are len(calls) - 1; the loop condition carries the heartbeat flag."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        wants_more = True
        while wants_more:
            call = self.ask(trace, calls)
            if call is None:
                return trace
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            wants_more = result.heartbeat
            if wants_more and len(calls) > self.max_heartbeats:
                trace.add("heartbeat", f"stopped: cap of {self.max_heartbeats} heartbeats")
                return trace
            if wants_more:
                trace.add("heartbeat", f"heartbeat {len(calls)}")
        return trace
