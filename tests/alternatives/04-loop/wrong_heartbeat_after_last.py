"""Wrong: adds a heartbeat event after every call, also after the last one when the step ends without a heartbeat."""
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
            if result.heartbeat and heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", "cap reached")
                break
            heartbeats += 1
            trace.add("heartbeat", f"heartbeat {heartbeats}")
            if not result.heartbeat:
                break
        return trace
