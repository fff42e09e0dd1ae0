"""A while True loop with a heartbeat counter; breaks on no heartbeat, on None, and at the cap."""
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
            if heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats reached: the step ends")
                break
            heartbeats += 1
            trace.add("heartbeat", f"{heartbeats}/{self.max_heartbeats}: the policy runs again")
        return trace
