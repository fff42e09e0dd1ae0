"""Wrong: one heartbeat too many: checks the cap with > instead of >= before counting, so a step makes max_heartbeats + 2 calls.

(Changed after my own tries, before any check: the first version counted first and then tested >, which is correct.)"""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        heartbeats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                break
            if heartbeats > self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats reached")
                break
            heartbeats += 1
            trace.add("heartbeat", f"{heartbeats}/{self.max_heartbeats}")
        return trace
