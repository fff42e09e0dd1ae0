"""The cap event's detail begins with a capital: "Cap reached after 5 heartbeats; the step ends." (the word cap, capitalised)."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        beats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                return trace
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                return trace
            if beats == self.max_heartbeats:
                trace.add("heartbeat", f"Cap reached after {beats} heartbeats; the step ends.")
                return trace
            beats += 1
            trace.add("heartbeat", f"{beats} of {self.max_heartbeats}")
